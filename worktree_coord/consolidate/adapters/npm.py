"""npm: structural package.json edits, `npm install --package-lock-only` relock, relock-twice check.

npm's own editor (`npm install X -w P --package-lock-only`) is not used: it rewrites the file with
a final newline whatever the file had, and for a package that is also a workspace member it asks
the registry; the structural editor keeps the file's indent, EOL and final newline and writes the
dependency objects sorted as npm does.
"""

from __future__ import annotations

import json

from worktree_coord.consolidate.adapters.base import FailureKind, ToolAdapter, ToolConfig, ToolRun
from worktree_coord.consolidate.intent import Ecosystem


class NpmAdapter(ToolAdapter):
    ecosystem = Ecosystem.NPM
    tool = "npm"
    lock_name = "package-lock.json"
    default_config = ToolConfig(
        relock=("npm", "install", "--package-lock-only", "--ignore-scripts", "--no-audit", "--no-fund"),
        offline_flags=("--offline",),
    )

    def check(self) -> list[ToolRun]:
        """Relock again offline: a fresh lock does not change (npm has no read-only lock check)."""
        return self._relock_changes_nothing("relock")

    def classify(self, stderr: str) -> FailureKind:
        common = self._classify_common(stderr)
        if common is not None:
            return common
        if "ENOTCACHED" in stderr or "only-if-cached" in stderr:
            return FailureKind.OFFLINE_MISS
        if "ERESOLVE" in stderr or "ETARGET" in stderr or "E404" in stderr or "EWORKSPACE" in stderr:
            return FailureKind.RESOLUTION
        return FailureKind.OTHER

    def locked_versions(self) -> dict[str, set[str]]:
        lock = self.workdir / self.lockfile
        if not lock.is_file():
            return {}
        packages = json.loads(lock.read_text()).get("packages") or {}
        out: dict[str, set[str]] = {}
        for key, entry in packages.items():
            if "node_modules/" not in key:
                continue        # the root and members' own entries; members are reached by their links
            name = key.rsplit("node_modules/", 1)[1]
            if entry.get("link"):
                entry = packages.get(entry.get("resolved", ""), {})
            if entry.get("version"):
                out.setdefault(name, set()).add(entry["version"])
        return out
