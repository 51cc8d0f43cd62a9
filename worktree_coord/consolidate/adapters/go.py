"""Go modules: `go mod edit` (the native editor), `go mod tidy` relock with GOPROXY=off, `go mod tidy -diff`.

One root is one module (its go.mod and go.sum). Offline means the module cache only: GOPROXY=off
with GOFLAGS=-mod=mod; a miss reads "module lookup disabled by GOPROXY=off". `go mod tidy` drops
requirements no package imports, so an added requirement holds only when the merged code imports
it; verification reports the change otherwise.
"""

from __future__ import annotations

from worktree_coord.consolidate.adapters.base import FailureKind, ToolAdapter, ToolConfig, ToolRun
from worktree_coord.consolidate.intent import Ecosystem, Intent, Op


def _module_arg(text: str) -> str:
    """`path version` (go.mod spelling) as `path@version` (go mod edit spelling)."""
    parts = text.split()
    return f"{parts[0]}@{parts[1]}" if len(parts) == 2 else text


class GoAdapter(ToolAdapter):
    ecosystem = Ecosystem.GO
    tool = "go"
    lock_name = "go.sum"
    default_config = ToolConfig(
        relock=("go", "mod", "tidy"),
        offline_env={"GOPROXY": "off", "GOFLAGS": "-mod=mod"},
        check=(("go", "mod", "tidy", "-diff"),),
    )

    def native_edit(self, intent: Intent) -> ToolRun | None:
        op = intent.op
        if op in (Op.ADD_DEP, Op.SET_SPEC) and intent.group == "require" and intent.spec:
            flag = f"-require={intent.name}@{intent.spec}"
        elif op == Op.REMOVE_DEP and intent.group == "require":
            flag = f"-droprequire={intent.name}"
        elif op == Op.SET_OVERRIDE and intent.spec:
            flag = f"-replace={_module_arg(intent.name)}={_module_arg(intent.spec)}"
        elif op == Op.REMOVE_OVERRIDE:
            flag = f"-dropreplace={_module_arg(intent.name)}"
        elif op == Op.SET_RUNTIME and intent.name in ("go", "toolchain") and intent.spec:
            flag = f"-{intent.name}={intent.spec}"
        else:
            return None
        return self.run(["go", "mod", "edit", flag], cwd=(self.workdir / intent.manifest).parent)

    def classify(self, stderr: str) -> FailureKind:
        common = self._classify_common(stderr)
        if common is not None:
            return common
        if "GOPROXY=off" in stderr or "module lookup disabled" in stderr:
            return FailureKind.OFFLINE_MISS
        if "go: " in stderr:
            return FailureKind.RESOLUTION
        return FailureKind.OTHER

    def locked_versions(self) -> dict[str, set[str]]:
        """The build list go.mod requires (MVS picks these), plus every module go.sum pins."""
        from worktree_coord.consolidate.manifests import read_go_mod

        out: dict[str, set[str]] = {}
        manifest = self.workdir / (f"{self.root}/go.mod" if self.root else "go.mod")
        if manifest.is_file():
            for (_, name), value in read_go_mod("go.mod", manifest.read_bytes()).deps.items():
                out.setdefault(name, set()).add(value.spec or "")
        lock = self.workdir / self.lockfile
        if lock.is_file():
            for line in lock.read_text().splitlines():
                parts = line.split()
                if len(parts) == 3:
                    out.setdefault(parts[0], set()).add(parts[1].removesuffix("/go.mod"))
        return out
