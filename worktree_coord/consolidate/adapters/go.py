"""Go modules and workspaces: `go mod edit` / `go work edit`, relock with GOPROXY=off, tidy checks.

A root is either one module (its go.mod and go.sum) or a workspace: a directory holding `go.work`
whose `use` directives name member modules. Offline means the module cache only: GOPROXY=off
(GOFLAGS=-mod=mod for module commands; workspace-mode commands refuse -mod=mod, so they run
without it). A miss reads "module lookup disabled by GOPROXY=off".

Module root: relock `go mod tidy`, check `go mod tidy -diff`.
Workspace root: relock = `go work sync` (pushes the workspace's build list into the members), then
`go mod tidy` in EVERY member listed in go.work (GOWORK=off, sorted by directory). Every member, not
only those whose files changed: `go work sync` may rewrite any member's requirements, a member whose
go.mod changed needs its go.sum tidied, and tidying all makes the result a function of the tree
alone (same tree -> same bytes, whichever tasks touched which member). go.work.sum is kept as the
Go tool leaves it. Check = `go list -m all` in workspace mode (go.work parses, every member exists,
versions agree, checksums present), `go work sync` changes nothing, and `go mod tidy -diff` per member.

A member that requires another member without a `replace` (`require example.com/c v0.0.0`, the
version existing nowhere) builds in workspace mode, but Go cannot tidy it alone (golang/go#50750) and
`go work sync` / `go list -m all` fail on the same lookup (measured with go 1.27). A failure whose
only errors are lookups of workspace modules is therefore no offline miss and no resolution
failure: the run is tolerated and recorded with a note saying why (`ToolRun.stderr`); what still
holds for such a member is the strict parse and the intents' read-back. Any other error, or a
lookup of a module outside the workspace, fails as usual (the latter as an offline miss).
`go mod tidy` drops requirements no package imports, so an added requirement holds only when the
merged code imports it; verification reports the change otherwise.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from typing import Iterable

from worktree_coord.consolidate.adapters.base import FailureKind, ToolAdapter, ToolConfig, ToolRun
from worktree_coord.consolidate.intent import Ecosystem, Intent, Op
from worktree_coord.consolidate.manifests import read_go_mod

WORKSPACE_SYNC = ("go", "work", "sync")
WORKSPACE_CHECK = ("go", "list", "-m", "all")

# "go: example.com/c@v0.0.0: module lookup disabled ..." and "\texample.com/c: cannot find module
# providing package example.com/c: module lookup disabled ..." -> the module or package path.
_LOOKUP = re.compile(r"^(?:go: |\s+)([^\s:@]+)(?:@[^\s:]+)?: (?:.*: )?module lookup disabled")
_NOISE = re.compile(r"^(\[.*\]$|go: (downloading|finding|found) |go: module lookup disabled by GOPROXY=off$|"
                    r"go: \S+ imports$|\s+\S+ imports$|go: \S+ tested by$|\s+\S+ tested by$)")


def _module_arg(text: str) -> str:
    """`path version` (go.mod spelling) as `path@version` (go mod edit spelling)."""
    parts = text.split()
    return f"{parts[0]}@{parts[1]}" if len(parts) == 2 else text


def _within(path: str, modules: Iterable[str]) -> bool:
    return any(path == m or path.startswith(m + "/") for m in modules)


def _replace_or_runtime_flag(intent: Intent) -> str | None:
    """The `-replace`/`-dropreplace`/`-go`/`-toolchain` flag that `go mod edit` and `go work edit`
    both take for this intent, None when it has none."""
    if intent.op == Op.SET_OVERRIDE and intent.spec:
        return f"-replace={_module_arg(intent.name)}={_module_arg(intent.spec)}"
    if intent.op == Op.REMOVE_OVERRIDE:
        return f"-dropreplace={_module_arg(intent.name)}"
    if intent.op == Op.SET_RUNTIME and intent.name in ("go", "toolchain") and intent.spec:
        return f"-{intent.name}={intent.spec}"
    return None


class GoAdapter(ToolAdapter):
    ecosystem = Ecosystem.GO
    tool = "go"
    lock_name = "go.sum"
    default_config = ToolConfig(
        relock=("go", "mod", "tidy"),
        offline_env={"GOPROXY": "off", "GOFLAGS": "-mod=mod"},
        check=(("go", "mod", "tidy", "-diff"),),
    )

    # ----------------------------------------------------------------------------- workspace
    @property
    def work_file(self) -> Path:
        return self.root_dir / "go.work"

    @property
    def is_workspace(self) -> bool:
        return self.work_file.is_file()

    def _rel(self, *parts: str) -> str:
        out = posixpath.normpath(posixpath.join(self.root, *parts)) if self.root else posixpath.normpath(
            posixpath.join(*parts))
        return "" if out == "." else out

    def member_dirs(self) -> list[str]:
        """Repo-relative directories of the go.work members that hold a go.mod, sorted."""
        if not self.is_workspace:
            return [self.root]
        uses = read_go_mod("go.work", self.work_file.read_bytes()).members
        dirs = {self._rel(use) for use in uses}
        return sorted(d for d in dirs if (self.workdir / d / "go.mod").is_file())

    def _module_paths(self) -> set[str]:
        out = set()
        for directory in self.member_dirs():
            name = read_go_mod("go.mod", (self.workdir / directory / "go.mod").read_bytes()).package_name
            if name:
                out.add(name)
        return out

    def lockfiles(self) -> list[str]:
        paths = [self.lockfile]
        if self.is_workspace:
            paths += [self._rel("go.work.sum")] + [self._rel_to(d, "go.sum") for d in self.member_dirs()]
        return sorted(set(paths))

    def touchable(self, member_dirs: Iterable[str]) -> list[str]:
        """go.work, go.work.sum and every member's go.mod and go.sum (new members included)."""
        if not self.is_workspace:
            return []
        dirs = set(member_dirs) | set(self.member_dirs())
        return sorted({self._rel("go.work"), self._rel("go.work.sum")}
                      | {self._rel_to(d, name) for d in dirs for name in ("go.mod", "go.sum")})

    @staticmethod
    def _rel_to(directory: str, name: str) -> str:
        return f"{directory}/{name}" if directory else name

    def _workspace_env(self, offline: bool) -> dict[str, str]:
        # Workspace mode refuses GOFLAGS=-mod=mod; readonly is its default.
        return {**(dict(self.config.offline_env) if offline else {}), "GOFLAGS": ""}

    def _module_env(self, offline: bool) -> dict[str, str]:
        return {**(dict(self.config.offline_env) if offline else {}), "GOWORK": "off"}

    def _lookups(self, stderr: str) -> tuple[set[str], bool]:
        """(module/package paths whose lookup failed, whether other errors are there too)."""
        failed, other = set(), False
        for line in stderr.splitlines():
            if not line.strip():
                continue
            match = _LOOKUP.match(line)
            if match:
                failed.add(match.group(1))
            elif not _NOISE.match(line):
                other = True
        return failed, other

    def workspace_only(self, stderr: str) -> bool:
        """Whether a failure is only lookups of workspace members (no replace), which Go cannot do alone."""
        failed, other = self._lookups(stderr)
        modules = self._module_paths()
        return bool(failed) and not other and all(_within(p, modules) for p in failed)

    def _tolerant(self, run: ToolRun, where: str) -> ToolRun:
        """A run that failed only on workspace-member lookups counts as done, with a note."""
        if run.ok or not self.workspace_only(run.stderr):
            return run
        note = (f"[{where}] tolerated (go exited {run.returncode}): this module reaches other workspace "
                f"members only through go.work, which Go cannot resolve alone (a replace would):\n{run.stderr}")
        tolerated = ToolRun(run.argv, 0, run.stdout, note, run.seconds)
        if self.runs and self.runs[-1] is run:
            self.runs[-1] = tolerated         # the record shows what happened and why it passed
        return tolerated

    def _named(self, run: ToolRun, where: str) -> ToolRun:
        if run.ok:
            return run
        return ToolRun(run.argv, run.returncode, run.stdout, f"[{where}]\n{run.stderr}", run.seconds)

    # ------------------------------------------------------------------------------- edits
    def native_edit(self, intent: Intent) -> ToolRun | None:
        op = intent.op
        manifest = self.workdir / intent.manifest
        if manifest.name == "go.work":
            return self._work_edit(intent, manifest)
        if op in (Op.ADD_DEP, Op.SET_SPEC) and intent.group == "require" and intent.spec:
            flag: str | None = f"-require={intent.name}@{intent.spec}"
        elif op == Op.REMOVE_DEP and intent.group == "require":
            flag = f"-droprequire={intent.name}"
        else:
            flag = _replace_or_runtime_flag(intent)
        if flag is None:
            return None
        return self.run(["go", "mod", "edit", flag], cwd=manifest.parent)

    def _work_edit(self, intent: Intent, manifest: Path) -> ToolRun | None:
        op = intent.op
        use = intent.name if intent.name.startswith((".", "/")) else f"./{intent.name}"
        if op == Op.ADD_MEMBER:
            flag: str | None = f"-use={use}"
        elif op == Op.REMOVE_MEMBER:
            flag = f"-dropuse={use}"
        else:
            flag = _replace_or_runtime_flag(intent)
        if flag is None:
            return None
        return self.run(["go", "work", "edit", flag, manifest.name], cwd=manifest.parent,
                        env={"GOFLAGS": ""})

    # ------------------------------------------------------------------------------ relock
    def relock(self, offline: bool) -> ToolRun:
        if not self.is_workspace:
            return super().relock(offline)
        runs: list[ToolRun] = []
        sync = self._tolerant(self.run(list(WORKSPACE_SYNC), env=self._workspace_env(offline)), "go work sync")
        if not sync.ok:
            return sync
        runs.append(sync)
        for directory in self.member_dirs():
            where = f"{directory or '.'}: {' '.join(self.config.relock)}"
            tidy = self.run(list(self.config.relock), cwd=self.workdir / directory, env=self._module_env(offline))
            tidy = self._named(self._tolerant(tidy, where), where)
            if not tidy.ok:
                return tidy
            runs.append(tidy)
        return ToolRun(tuple(a for r in runs for a in (*r.argv, ";"))[:-1], 0, "",
                       "\n".join(r.stderr for r in runs if r.stderr), sum(r.seconds for r in runs))

    def check(self) -> list[ToolRun]:
        if not self.is_workspace:
            return super().check()
        listed = self.run(list(WORKSPACE_CHECK), env=self._workspace_env(True))
        runs = [self._named(self._tolerant(listed, "go list -m all"), "go.work")]
        runs.append(self._sync_changes_nothing())
        for directory in self.member_dirs():
            for argv in self.config.check:
                where = f"{directory or '.'}: {' '.join(argv)}"
                run = self.run(list(argv), cwd=self.workdir / directory, env=self._module_env(True))
                runs.append(self._named(self._tolerant(run, where), where))
        return runs

    def _sync_changes_nothing(self) -> ToolRun:
        """`go work sync` again must leave every member as it is (the go.work build list is in them)."""
        paths = self.touchable(())
        before = {p: (self.workdir / p).read_bytes() if (self.workdir / p).is_file() else None for p in paths}
        run = self._tolerant(self.run(list(WORKSPACE_SYNC), env=self._workspace_env(True)), "go work sync")
        moved = []
        for path, data in before.items():
            file = self.workdir / path
            now = file.read_bytes() if file.is_file() else None
            if now != data:
                moved.append(path)
                self._restore(file, data)
        if run.ok and moved:
            return ToolRun(run.argv, 1, run.stdout, f"go work sync changed {', '.join(moved)}: not fresh", run.seconds)
        return self._named(run, "go.work")

    def classify(self, stderr: str) -> FailureKind:
        common = self._classify_common(stderr)
        if common is not None:
            return common
        if "GOPROXY=off" in stderr or "module lookup disabled" in stderr:
            failed = self._lookups(stderr)[0]
            modules = self._module_paths() if self.is_workspace else set()
            # Lookups of workspace members are no cache miss: the network would not find them either.
            if failed and all(_within(p, modules) for p in failed):
                return FailureKind.RESOLUTION
            return FailureKind.OFFLINE_MISS
        if "go: " in stderr:
            return FailureKind.RESOLUTION
        return FailureKind.OTHER

    def locked_versions(self) -> dict[str, set[str]]:
        """The build list each module's go.mod requires (MVS picks these), plus every module a go.sum
        (members' and go.work.sum) pins."""
        out: dict[str, set[str]] = {}
        for directory in self.member_dirs():
            manifest = self.workdir / self._rel_to(directory, "go.mod")
            if manifest.is_file():
                for (_, name), value in read_go_mod("go.mod", manifest.read_bytes()).deps.items():
                    out.setdefault(name, set()).add(value.spec or "")
        sums = [self._rel_to(d, "go.sum") for d in self.member_dirs()] + [self.lockfile]
        if self.is_workspace:
            sums.append(self._rel("go.work.sum"))
        for path in sorted(set(sums)):
            lock = self.workdir / path
            if lock.is_file():
                for line in lock.read_text().splitlines():
                    parts = line.split()
                    if len(parts) == 3:
                        out.setdefault(parts[0], set()).add(parts[1].removesuffix("/go.mod"))
        return out
