"""pip-tools: requirements.in is the manifest, pip-compile writes requirements.txt (the lock).

Offline means pip's `--no-index`: only the links pip is configured with (PIP_FIND_LINKS, a local
wheelhouse) are seen, and `--no-emit-find-links` keeps that machine-specific path out of the lock.
A package absent from them ("from versions: none") is an offline miss; a range no available
version meets is a resolution failure. The freshness check compiles again and compares bytes.
"""

from __future__ import annotations

import re

from packaging.utils import canonicalize_name

from worktree_coord.consolidate.adapters.base import FailureKind, ToolAdapter, ToolConfig, ToolRun
from worktree_coord.consolidate.intent import Ecosystem


class PipToolsAdapter(ToolAdapter):
    ecosystem = Ecosystem.PIP_TOOLS
    tool = "pip-compile"
    lock_name = "requirements.txt"
    default_config = ToolConfig(
        relock=("pip-compile", "--quiet", "--strip-extras", "--no-emit-find-links", "--no-emit-index-url",
                "--output-file=requirements.txt", "requirements.in"),
        offline_flags=("--no-index",),
    )

    def check(self) -> list[ToolRun]:
        """Compile again offline: a fresh requirements.txt does not change."""
        return self._relock_changes_nothing("compile")

    def classify(self, stderr: str) -> FailureKind:
        common = self._classify_common(stderr)
        if common is not None:
            return common
        if "(from versions: none)" in stderr:
            return FailureKind.OFFLINE_MISS
        if "No matching distribution found" in stderr or "ResolutionImpossible" in stderr \
                or "conflict" in stderr.lower():
            return FailureKind.RESOLUTION
        return FailureKind.OTHER

    def locked_versions(self) -> dict[str, set[str]]:
        lock = self.workdir / self.lockfile
        out: dict[str, set[str]] = {}
        if lock.is_file():
            for line in lock.read_text().splitlines():
                match = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==([^\s;\\]+)", line)
                if match:
                    out.setdefault(canonicalize_name(match.group(1)), set()).add(match.group(2))
        return out
