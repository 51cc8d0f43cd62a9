"""The verification gate: run a command in a scratch worktree of a candidate commit.

Input: a commit and a shell command (the project's tests, a build). Output: VerifyResult with the
exit code and the tail of the output. The scratch worktree is detached (no branch), fully checked
out and created under the repository registration lock like every worktree. A one-off one (a
consolidation's commit) is removed after its command. The merge queue's verifications keep one per
run (`<root>/<run>/.verify/kept`, used only under the run's integration lease) and move it to each
candidate: a reset that writes only the files that differ, then a clean of everything else, so its
command sees exactly the candidate's tree whatever the last one left (build outputs, a changed
file, a killed command's debris). Building a whole worktree each time cost 0.22 s of git on a
482-file tree and grows with the repository; moving it costs what the candidate changed.
The integration ref moves only after this says ok. The command starts through the run's `Spawn`
(isolation.py): by default in a network namespace of its own, so a suite that binds a fixed port
passes while another task's suite holds that port.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from ..errors import GitError
from ..frozen import value_class
from ..gitrepo import GitRepo
from ..gitrepo.environment import REDIRECTING
from ..gitrepo.held import write_held
from ..isolation import Spawn

OUTPUT_TAIL_BYTES = 4000
KEPT = "kept"   # the name of a run's kept verification worktree in its `.verify` folder


@value_class
class VerifyResult:
    commit: str
    command: str
    ok: bool
    exit_code: int | None
    output_tail: str
    seconds: float
    network: dict[str, Any] | None = None    # Spawn.to_json(): how the command reached the network

    def to_json(self) -> dict[str, Any]:
        return {"commit": self.commit, "command": self.command, "ok": self.ok, "exit_code": self.exit_code,
                "output_tail": self.output_tail, "seconds": round(self.seconds, 2)} \
            | ({"network": self.network} if self.network else {})


def move_kept_worktree(git: GitRepo, path: Path, commit: str) -> None:
    """Make the kept worktree at `path` exactly `commit`'s tree: its HEAD detached at `commit`, the
    files that differ written (`reset --hard`: stat-clean files are not touched), then every file
    git does not track removed, ignored ones and nested repositories included (`clean -ffdx`). A
    folder that is not plainly that worktree (deleted, its `.git` broken, a git error) is removed
    and built again. The caller holds the run's integration lease: no other process uses it."""
    admin = git.worktree_git_dir(path)
    plain = admin is not None and (path / ".git").is_file() and admin.is_dir() \
        and admin.parent.resolve() == (git.common_dir / "worktrees").resolve()
    if plain:
        assert admin is not None
        # Git is told its folders, never left to find them: from a folder whose `.git` is broken it
        # would find the repository above and reset the main checkout.
        where = ("--git-dir", str(admin), "--work-tree", str(path))
        try:
            git.git(*where, "reset", "--quiet", "--hard", commit, cwd=path)
            git.git(*where, "clean", "-ffdxq", cwd=path)
            os.utime(path)   # its last use: gc's age rule for scratch worktrees reads it
            return
        except GitError:
            pass   # broken in a way git refuses: built again below
    git.remove_worktree(path)   # what is left of it, and its admin entry (a folder deleted by hand keeps one)
    git.add_detached_worktree(path, commit)


def verify_commit(git: GitRepo, commit: str, command: str, scratch_root: Path, *, timeout: float,
                  spawn: Spawn, kept: bool = False) -> VerifyResult:
    """Check out `commit` in a scratch worktree, run `command` there (shell, started as `spawn`
    says), remove the worktree. `kept`: the run's kept worktree is moved to `commit` instead and
    stays (the caller holds the run's integration lease)."""
    import subprocess
    import uuid
    path = scratch_root / (KEPT if kept else f"verify-{commit[:12]}-{uuid.uuid4().hex[:6]}")
    started = time.monotonic()
    if kept:
        move_kept_worktree(git, path, commit)
    else:
        git.add_detached_worktree(path, commit)
    try:
        # The project's command runs in the scratch worktree; git inside it must find that checkout.
        env = {k: v for k, v in os.environ.items() if k not in REDIRECTING} | {"WTC_VERIFY_COMMIT": commit}
        try:
            write_held()   # the project's command may run git on any object of the repository
            done = subprocess.run(spawn.shell(command), cwd=path, env=env, capture_output=True, timeout=timeout)
            output = (done.stdout + done.stderr)[-OUTPUT_TAIL_BYTES:].decode("utf-8", "replace")
            return VerifyResult(commit, command, done.returncode == 0, done.returncode, output,
                                time.monotonic() - started, spawn.to_json())
        except subprocess.TimeoutExpired as expired:
            raw = (expired.stdout or b"") + (expired.stderr or b"")
            output = raw[-OUTPUT_TAIL_BYTES:].decode("utf-8", "replace") + f"\n[timed out after {timeout:.0f} s]"
            return VerifyResult(commit, command, False, None, output, time.monotonic() - started, spawn.to_json())
    finally:
        if not kept:
            git.remove_worktree(path)
