"""Worktrees that run: what a new task worktree gets before its path is handed out.

Stage: `task start` (and `task update` when it re-creates a worktree) has checked the worktree out;
its manifest is not written yet (the manifest marks a complete worktree, so a start killed in here
is redone by the next one). Input: the main checkout, the worktree, the project's
`[tool.worktree-coord.worktree-setup]`. Output: the preparation as JSON, recorded in the task's
context (`wtc status`) and in its manifest. In order:

  1. a block of ports no live task of any run holds, in this repository or another on the machine
     (the machine's port registry), and whose first port nothing listens on (`WTC_PORT_BASE`,
     `WTC_PORT_COUNT`), written with the task's names into `.wtc/env` in the worktree;
  2. the git-ignored files `.worktreeinclude` names (Claude Code's file, gitignore syntax: `.env`,
     local configuration), copied from the main checkout;
  3. the `link` / `copy` folders (node_modules, .venv) of the main checkout, where that is safe; a
     node_modules holding workspace links is rebuilt with them pointing at the worktree's packages
     (linked_modules.py); one the pin tracks is the worktree's own checkout instead, in a sparse
     worktree too (`_task_cone` puts it in the cone);
  4. the `run` command in the worktree, its output in a log outside the worktree, bounded by
     `timeout`, one of the machine's heavy-work places held meanwhile, started through the run's
     `Spawn` (isolation.py: by default with a network of its own).

Invariants: nothing the worktree already holds is overwritten (tracked files win); a linked folder
is excluded in the shared info/exclude before the link exists, so no commit ever takes it; a setup
command that fails or times out raises SetupError naming its log, and a start that created the
task rolls it back (worktree, branch, record, ports).
"""

from __future__ import annotations

import errno
import os
import shlex
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

from ..config import WorktreeSetup
from ..crashpoints import crash_point
from ..errors import BusyError, SetupError, WtcError
from ..model import Boundary, RunRecord
from ..gitrepo.environment import REDIRECTING
from ..gitrepo.held import write_held
from ..isolation import Spawn

from .base import CoordinatorBase
from .linked_modules import place_linked_modules

ENV_FILE = ".wtc/env"
INCLUDE_FILE = ".worktreeinclude"
LINK_EXCLUDE_COMMENT = "worktree_coord: dependency folders linked into task worktrees (worktree-setup.link)"
MAX_LISTED = 20      # skipped files listed in a result; the count is always complete


class WorktreeSetupOperations(CoordinatorBase):
    """Preparing a task's worktree, and undoing a start whose preparation failed."""

    def setup_config(self) -> WorktreeSetup:
        return self.config.worktree_setup or WorktreeSetup()

    def _task_cone(self, run: RunRecord, boundary: Boundary) -> tuple[str, ...] | None:
        """The folders a task's sparse worktree checks out (None: a full checkout): its globs' cone,
        plus each `link` / `copy` folder the pin tracks (a repository that commits node_modules).
        A full worktree has its own copy of such a folder, so setup neither links nor copies it;
        sparse, the cone would leave it out and the worktree would have none. Linking the main
        checkout's over it is no answer: git reads a tracked path under a symlink as deleted (and
        clears the skip-worktree bits of the files it finds there), so the task would seem to
        delete the whole folder. Checked out, the worktree holds it as a full one does."""
        from ..boundary import cone_directories

        cone = cone_directories(list(boundary.own) + list(boundary.read)) if boundary.sparse else None
        if cone is None:
            return None
        setup = self.setup_config()
        tracked = [rel for rel in dict.fromkeys(setup.link + setup.copy)
                   if not any(rel == d or rel.startswith(d + "/") for d in cone)
                   and self.git.folders_at(run.base, rel) is not None]
        return cone_directories([*(f"{d}/**" for d in cone), *(f"{rel}/**" for rel in tracked)]) if tracked else cone

    def setup_log_path(self, run_id: str, task_id: str) -> Path:
        """Outside the worktree, so a rolled-back start still leaves it to read."""
        return self.git.wtc_dir / "logs" / run_id / f"{task_id}-setup.log"

    def _prepare_worktree(self, run: RunRecord, task_id: str, path: Path) -> dict[str, Any]:
        setup = self.setup_config()
        main = self.git.toplevel
        prepared: dict[str, Any] = {"env_file": ENV_FILE}
        env = {"WTC_RUN": run.run_id, "WTC_TASK": task_id, "WTC_WORKTREE": str(path)}
        if main is not None:
            env["WTC_MAIN_CHECKOUT"] = str(main)
        if setup.ports:
            block = self._port_block(run.run_id, task_id, setup, path)
            base = setup.port_base + block * setup.ports
            env |= {"WTC_PORT_BASE": str(base), "WTC_PORT_COUNT": str(setup.ports)}
            prepared["ports"] = {"base": base, "count": setup.ports, "last": base + setup.ports - 1}
        _write_env_file(path / ENV_FILE, env, run.run_id, task_id)
        skipped: list[dict[str, str]] = []
        if main is not None:
            copied, not_copied = self._copy_included(main, path)
            prepared["included"] = {"copied": len(copied), "files": copied[:MAX_LISTED]}
            skipped += not_copied
            for how, names in (("link", setup.link), ("copy", setup.copy)):
                placed, refused = self._place_folders(run, main, path, names, how)
                if placed:
                    prepared["linked" if how == "link" else "copied_folders"] = placed
                skipped += refused
        if skipped:
            prepared["skipped"] = skipped[:MAX_LISTED]
            prepared["skipped_count"] = len(skipped)
        if setup.run:
            log = self.setup_log_path(run.run_id, task_id)
            with self._heavy("setup"):
                prepared["setup"] = run_setup_command(setup.run, cwd=path, env=env, timeout=setup.timeout, log=log,
                                                      spawn=self._spawn(run))
        self.store.update_task_context(run.run_id, task_id, {"prepared": prepared})
        return prepared

    def _prepared(self, run_id: str, task_id: str) -> dict[str, Any]:
        rows = self.store.task_contexts(run_id, task_id)
        return rows[0]["data"].get("prepared", {}) if rows else {}

    def _port_block(self, run_id: str, task_id: str, setup: WorktreeSetup, path: Path) -> int:
        """The task's block: one no live task of this store holds (the store decides, and records it),
        whose ports no live task of another repository on this machine holds (the machine's port
        registry, store/port_registry.py: the range is claimed there as the store considers it),
        and whose first port nothing on the machine listens on (a bind test), unless it is the
        task's own block already."""
        from ..store.port_registry import PortClaim

        limit = max(0, (65535 - setup.port_base + 1) // setup.ports)
        claim = PortClaim(self._port_store(), run_id, task_id, str(path), timeout=self.config.lock_timeout)

        def usable(block: int) -> bool:
            first = setup.port_base + block * setup.ports
            got = claim.claim(first, first + setup.ports - 1)
            if got is None:
                return False
            if got == "own":
                return True     # the task's own block (a re-created worktree): its own server may hold it
            if port_in_use(first):
                claim.undo()
                return False
            crash_point("start.after_port_claim")
            return True

        # Claimed before the store records it: a start killed in between leaves a lease of a live task
        # (the task's next start finds it its own) or of a rolled-back one (reclaimed when met).
        try:
            block = self.store.allocate_port_block(run_id, task_id, limit, usable)
        except BaseException:
            claim.undo()
            raise
        finally:
            claim.done()
        if block is None:
            raise BusyError(f"every block of {setup.ports} ports from {setup.port_base} is held by a live task "
                            "(of this repository or another on this machine) or in use by another program",
                            fix="finish or abandon tasks, or lower worktree-setup.ports / worktree-setup.port-base",
                            retry_after=60.0)
        return block

    def _copy_included(self, main: Path, path: Path) -> tuple[list[str], list[dict[str, str]]]:
        """Claude Code's rule: files matching `.worktreeinclude` that git ignores are copied; a
        file the worktree already has (a tracked one) is left as checked out."""
        include = main / INCLUDE_FILE
        if not include.is_file():
            return [], []
        own_folders = self._own_folders(main)
        candidates = [rel for rel in self.git.untracked_matching(include, skip=own_folders)
                      if not any(rel == f or rel.startswith(f + "/") for f in own_folders)]
        ignored = self.git.ignored(candidates)
        copied: list[str] = []
        skipped: list[dict[str, str]] = []
        for rel in candidates:
            if rel not in ignored:
                skipped.append({"path": rel, "why": f"not git-ignored: {INCLUDE_FILE} copies ignored files only"})
                continue
            target = path / rel
            if target.exists() or target.is_symlink():
                skipped.append({"path": rel, "why": "the worktree has it already (tracked at the run's base)"})
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            import shutil   # here: a start with no file to copy loads none (with its compression modules)

            shutil.copy2(main / rel, target, follow_symlinks=False)
            copied.append(rel)
        return copied, skipped

    def _own_folders(self, main: Path) -> list[str]:
        """Folders of the main checkout that hold worktrees (wtc's, Claude Code's): never copied from."""
        folders = [".wtc", ".claude/worktrees"]
        root = self.worktree_root()
        try:
            folders.append(root.resolve().relative_to(main.resolve()).as_posix())
        except ValueError:
            pass
        return folders

    def _place_folders(self, run: RunRecord, main: Path, path: Path, names: tuple[str, ...],
                       how: str) -> tuple[list[str], list[dict[str, str]]]:
        placed: list[str] = []
        skipped: list[dict[str, str]] = []
        ready: list[str] = []
        for rel in names:
            source, target = main / rel, path / rel
            why = None
            if not source.is_dir():
                why = "no such folder in the main checkout"
            elif self.git.path_in_tree(run.base, rel):
                why = "tracked by git: the worktree has its own copy"
            elif rel not in self.git.ignored([rel]):
                why = "not git-ignored in the main checkout: add it to .gitignore first"
            elif target.exists() or target.is_symlink():
                why = "already present in the worktree"
            else:
                editable = _editable_install_of(source, main)
                if editable:
                    why = (f"a Python environment with an editable install of the main checkout ({editable}): "
                           "its code would be imported instead of the worktree's; build one per worktree with "
                           "worktree-setup.run (e.g. `uv sync`)")
            if why:
                skipped.append({"path": rel, "why": f"{how} skipped: {why}"})
            else:
                ready.append(rel)
        if how == "link" and ready:
            # A pattern like `node_modules/` matches folders only, not a symlink of that name: without
            # this line `git add -A` at finish would commit the link.
            self.git.ensure_excluded([f"/{rel}" for rel in ready], LINK_EXCLUDE_COMMENT)
        for rel in ready:
            source, target = main / rel, path / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            if how == "link":
                # A node_modules holding workspace links gets the worktree's packages in them.
                if place_linked_modules(source, target, main, path) is None:
                    os.symlink(source, target, target_is_directory=True)
            else:
                import shutil

                shutil.copytree(source, target, symlinks=True)
            placed.append(rel)
        return placed, skipped

    def _roll_back_start(self, run: RunRecord, task_id: str, branch: str, path: Path, error: BaseException) -> None:
        """Undo a start whose preparation failed: the worktree, the branch (it holds no work: nobody
        had the path yet), the task's record, context and ports; the log stays."""
        try:
            if path.exists():
                self.git.remove_worktree(path)
            ref = f"refs/heads/{branch}"
            if self.git.ref_target(ref) == run.base:
                self.git.delete_ref(ref, run.base)
        finally:
            self._release_ports(run.run_id, task_id)
            detail = error.to_json() if isinstance(error, WtcError) else {"message": f"{type(error).__name__}: {error}"}
            self.store.delete_task(run.run_id, task_id, event=("task.setup_failed", detail))
            self.store.delete_task_context(run.run_id, task_id)


def run_setup_command(command: str, *, cwd: Path, env: dict[str, str], timeout: float, log: Path,
                      spawn: Spawn) -> dict[str, Any]:
    """Run the project's setup command in the worktree (a shell, its own process group so a timeout
    ends every child, its network as `spawn` says), output to `log`. Returns what ran; SetupError
    when it failed or timed out."""
    log.parent.mkdir(parents=True, exist_ok=True)
    full_env = {k: v for k, v in os.environ.items() if k not in REDIRECTING}  # git in the worktree finds it
    full_env.update(env)
    started = time.monotonic()
    with open(log, "wb") as out:
        out.write(f"$ {command}\n# in {cwd}, timeout {timeout:.0f} s, network {spawn.network}, "
                  f"{time.strftime('%Y-%m-%d %H:%M:%S')}\n".encode())
        if spawn.note:
            out.write(f"# {spawn.note}\n".encode())
        out.flush()
        write_held()   # the setup command may run git (gitrepo/held.py)
        process = subprocess.Popen(spawn.shell(command), cwd=cwd, env=full_env, stdin=subprocess.DEVNULL, stdout=out,
                                   stderr=subprocess.STDOUT, start_new_session=True)
        try:
            code: int | None = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            code = None
            _kill_group(process)
        except BaseException:
            _kill_group(process)
            raise
        seconds = round(time.monotonic() - started, 2)
        out.write(f"\n# exit {code if code is not None else 'none: killed at the timeout'} after {seconds} s\n".encode())
    ran = {"command": command, "exit_code": code, "seconds": seconds, "log": str(log)} | spawn.to_json()
    if code is None:
        raise SetupError(f"the worktree setup command `{command}` did not end within {timeout:.0f} s; see {log}",
                         fix="make it faster (offline installs, a warm cache) or raise worktree-setup.timeout",
                         details=ran)
    if code != 0:
        raise SetupError(f"the worktree setup command `{command}` failed with exit {code}; see {log}",
                         fix=f"read {log}, fix the command (worktree-setup.run) or what it needs, then start again",
                         details=ran)
    return ran


def port_in_use(port: int) -> bool:
    """Whether something on this machine listens on `port` (TCP, IPv4 or IPv6): a bind of every
    address to it fails with "address in use". SO_REUSEADDR, so a connection that recently used
    the port (TIME_WAIT) does not count; any other failure (a privileged port, no IPv6) says
    nothing about the port and counts as free."""
    # The socket module's own C part: `socket.socket` is a subclass of `_socket.socket` that adds
    # file objects and enum names, and `import socket` builds its IntEnum classes from every
    # constant (~4 ms of a start quiet, ~8 under load); the probe makes the same system calls.
    import _socket

    for family, address in ((_socket.AF_INET, "0.0.0.0"), (_socket.AF_INET6, "::")):
        try:
            probe = _socket.socket(family, _socket.SOCK_STREAM)
        except OSError:
            continue
        try:
            probe.setsockopt(_socket.SOL_SOCKET, _socket.SO_REUSEADDR, 1)
            if family == _socket.AF_INET6:
                probe.setsockopt(_socket.IPPROTO_IPV6, _socket.IPV6_V6ONLY, 1)
            try:
                probe.bind((address, port))
            except OSError as error:
                if error.errno == errno.EADDRINUSE:
                    return True
        finally:
            probe.close()
    return False


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    process.wait()


def _write_env_file(target: Path, env: dict[str, str], run_id: str, task_id: str) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    lines = [f"# wtc: task {task_id} of run {run_id}; `set -a; . {ENV_FILE}; set +a` exports these"]
    lines += [f"{name}={shlex.quote(value)}" for name, value in env.items()]
    temporary = target.with_name(target.name + ".tmp")
    temporary.write_text("\n".join(lines) + "\n")
    temporary.replace(target)


def _editable_install_of(folder: Path, main: Path) -> str | None:
    """The file by which a Python environment in `folder` imports code from the main checkout (an
    editable install's .pth or finder), or None (not a virtual environment, or none such)."""
    if not (folder / "pyvenv.cfg").is_file():
        return None
    needle = str(main.resolve())
    for site in [*folder.glob("lib/python*/site-packages"), *folder.glob("Lib/site-packages")]:
        for candidate in [*site.glob("*.pth"), *site.glob("__editable__*")]:
            try:
                if needle in candidate.read_text(errors="replace"):
                    return candidate.name
            except OSError:
                continue
    return None
