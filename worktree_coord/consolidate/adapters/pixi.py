"""pixi: tomlkit edits of pixi.toml, `pixi lock` relock, `pixi lock --check`; pixi.lock read as YAML.

pixi resolves conda (and PyPI) packages per environment into pixi.lock. It has no offline switch,
so offline is enforced from outside as for Poetry: every request goes to a closed local proxy (pixi
reads the standard proxy variables), so a relock that needs repodata it has not cached fails at
once instead of reaching the network.

pixi is often not installed where consolidation runs (it is not a Python package). Then the root's
manifest edits are still committed, and its result says plainly that pixi.lock no longer matches
pixi.toml and what to run (`pixi lock`): a project that pins both (dask's pyproject.toml says they
must match) gets the dependency and a named step, not a root that fails until someone installs
pixi. The relock with a real pixi and its failure words are not exercised here (no pixi on this
machine): a failed relock is classified by the words every tool shares.
"""

from __future__ import annotations

import posixpath
import re

from worktree_coord.consolidate.adapters.base import FailureKind, ToolAdapter, ToolConfig
from worktree_coord.consolidate.adapters.poetry import OFFLINE_ENV
from worktree_coord.consolidate.intent import Ecosystem

_CONDA_ARCHIVE = re.compile(r"\.(conda|tar\.bz2)$")


def locked_packages(text: str) -> dict[str, set[str]]:
    """Package name -> versions in a pixi.lock's text (YAML: its `packages:` list), from an entry's
    `name:` and `version:`, or for a conda archive without them, from its file name
    (`toolz-0.12.1-pyhd8ed1ab_0.conda`)."""
    import yaml

    out: dict[str, set[str]] = {}
    # Every scalar a string (the base loader): a version `1.10` is not the number 1.1.
    data = yaml.load(text, Loader=getattr(yaml, "CBaseLoader", yaml.BaseLoader))
    for entry in (data.get("packages") or []) if isinstance(data, dict) else []:
        if not isinstance(entry, dict):
            continue
        name, version = entry.get("name"), entry.get("version")
        archive = entry.get("conda")
        if (name is None or version is None) and isinstance(archive, str):
            parts = _CONDA_ARCHIVE.sub("", posixpath.basename(archive)).rsplit("-", 2)
            if len(parts) == 3:
                name, version = name or parts[0], version or parts[1]
        if name and version:
            out.setdefault(str(name), set()).add(str(version))
    return out


class PixiAdapter(ToolAdapter):
    ecosystem = Ecosystem.PIXI
    tool = "pixi"
    lock_name = "pixi.lock"
    default_config = ToolConfig(
        relock=("pixi", "lock"),
        offline_env=OFFLINE_ENV,
        check=(("pixi", "lock", "--check"),),
        env={"PIXI_NO_PROGRESS": "1"},
    )

    def without_tool(self) -> str | None:
        where = self.root or "."
        manifest = posixpath.join(self.root, "pixi.toml") if self.root else "pixi.toml"
        return (f"pixi is not installed here, so {self.lockfile} was not relocked after the changes to {manifest}: "
                f"run `pixi lock` in {where} and commit {self.lock_name} (pixi: https://pixi.sh), or install pixi "
                "and consolidate again")

    def classify(self, stderr: str) -> FailureKind:
        return self._classify_common(stderr) or FailureKind.OTHER

    def locked_versions(self) -> dict[str, set[str]]:
        lock = self.workdir / self.lockfile
        return locked_packages(lock.read_text(encoding="utf-8")) if lock.is_file() else {}
