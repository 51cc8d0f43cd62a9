"""uv: tomlkit edits of pyproject.toml, `uv lock` relock; `uv lock --check`.

`uv add --frozen` is not used to edit: it appends to a list that is not sorted wherever the task
wrote the entry, rewrites the one-line list it adds to over several lines and respells the entry
(`"scipy >= 1.10"` becomes `"scipy>=1.10"`), which showed as churn in dask's consolidated commit;
the structural editor (edits/pyproject.py) writes the entry as and where the task wrote it, and
where `uv add` would for a declared intent (in order in a sorted list, else last).
"""

from __future__ import annotations

import re

from packaging.utils import canonicalize_name

from worktree_coord.consolidate.adapters.base import FailureKind, ToolAdapter, ToolConfig
from worktree_coord.consolidate.intent import Ecosystem
from worktree_coord.consolidate.textformat import load_toml, plain


# uv's resolver explains a failure as a derivation: "Because lib-a depends on packaging>=24 and lib-b
# depends on packaging==19.0, we can conclude that lib-a and lib-b are incompatible." The subject of
# each "depends on" is a project (a member, `lib-a==0.1.0`, `lib-a[extra]` or `lib-a:dev`) or a
# package; only the workspace's own projects are taken from it (the caller matches them).
_DEPENDS_ON = re.compile(r"(?:^|[\s,(])([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?(?::[A-Za-z0-9._-]+)?"
                         r"(?:==[^\s,]+)?\s+depends on\b")


class UvAdapter(ToolAdapter):
    ecosystem = Ecosystem.UV
    tool = "uv"
    lock_name = "uv.lock"
    default_config = ToolConfig(
        relock=("uv", "lock", "--no-progress"),
        offline_flags=("--offline",),
        check=(("uv", "lock", "--check", "--offline", "--no-progress"),),
    )

    def classify(self, stderr: str) -> FailureKind:
        common = self._classify_common(stderr)
        if common is not None:
            return common
        # "network connectivity is disabled": a git source it has not fetched (uv 0.9+ words it so).
        if any(words in stderr for words in ("network was disabled", "not found in the cache",
                                             "network connectivity is disabled")):
            return FailureKind.OFFLINE_MISS
        if "No solution found" in stderr or "unsatisfiable" in stderr:
            return FailureKind.RESOLUTION
        return FailureKind.OTHER

    def blamed_projects(self, stderr: str) -> set[str] | None:
        if "No solution found" not in stderr:
            return None
        named = {canonicalize_name(match.group(1)) for match in _DEPENDS_ON.finditer(stderr)}
        return named or None

    def locked_versions(self) -> dict[str, set[str]]:
        lock = self.workdir / self.lockfile
        if not lock.is_file():
            return {}
        out: dict[str, set[str]] = {}
        for package in plain(load_toml(self.lockfile, lock.read_bytes())).get("package") or []:
            if package.get("version"):
                out.setdefault(canonicalize_name(package["name"]), set()).add(package["version"])
        return out
