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


# The flags npm writes on a package-lock entry ("dev": true ...): how the entry is installed (with
# `--omit dev`, `--omit optional`, as a peer), not which version: a relock that drops one changes what
# an install puts on disk without moving a version.
LOCK_FLAGS = ("dev", "optional", "devOptional", "peer")


class NpmAdapter(ToolAdapter):
    ecosystem = Ecosystem.NPM
    tool = "npm"
    lock_name = "package-lock.json"
    default_config = ToolConfig(
        relock=("npm", "install", "--package-lock-only", "--ignore-scripts", "--no-audit", "--no-fund"),
        offline_flags=("--offline",),
    )

    def relock_env(self) -> dict[str, str]:
        """npm's setting that writes the lockfile's registry URLs as the lockfile now has them: npm drops
        every `"resolved"` when the person's ~/.npmrc says `omit-lockfile-registry-resolved=true` (and
        adds them to a lockfile written without them when it does not). Adding two devDependencies to
        pdf.js's lockfile removed its 970 `resolved` lines (found driving wtc on pdf.js). None when the
        lockfile holds no registry package (nothing to tell) or cannot be read (npm will say so)."""
        lock = self.workdir / self.lockfile
        try:
            packages = json.loads(lock.read_text()).get("packages") or {}
        except (OSError, ValueError, AttributeError):
            return {}
        kept = omitted = False
        for key, entry in packages.items():
            if "node_modules/" not in key or not isinstance(entry, dict) or entry.get("link"):
                continue
            resolved = entry.get("resolved")
            if isinstance(resolved, str) and resolved.startswith(("https://", "http://")):
                kept = True
            elif resolved is None and entry.get("integrity") and entry.get("version"):
                omitted = True   # a registry package written without its URL
        if kept:
            return {"npm_config_omit_lockfile_registry_resolved": "false"}
        return {"npm_config_omit_lockfile_registry_resolved": "true"} if omitted else {}

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

    def locked_flags(self) -> dict[str, tuple[str, frozenset[str]]]:
        lock = self.workdir / self.lockfile
        if not lock.is_file():
            return {}
        packages = json.loads(lock.read_text()).get("packages") or {}
        # A link's target (a member, a `file:` folder) is named by the link that points at it.
        names = {entry.get("resolved", ""): key.rsplit("node_modules/", 1)[1]
                 for key, entry in packages.items() if "node_modules/" in key and entry.get("link")}
        out: dict[str, tuple[str, frozenset[str]]] = {}
        for key, entry in packages.items():
            if not key or entry.get("link"):
                continue        # the root's own entry; a link's flags are its target's
            name = key.rsplit("node_modules/", 1)[1] if "node_modules/" in key else names.get(key, key)
            out[key] = (name, frozenset(flag for flag in LOCK_FLAGS if entry.get(flag) is True))
        return out

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
