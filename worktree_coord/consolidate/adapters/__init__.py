"""Ecosystem adapters behind one protocol (`base.EcosystemAdapter`); `adapter_for` picks one."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

from worktree_coord.consolidate.adapters.base import (
    EcosystemAdapter,
    FailureKind,
    ToolAdapter,
    ToolConfig,
    ToolRun,
)
from worktree_coord.consolidate.adapters.cargo import CargoAdapter
from worktree_coord.consolidate.adapters.go import GoAdapter
from worktree_coord.consolidate.adapters.gradle import GradleAdapter
from worktree_coord.consolidate.adapters.maven import MavenAdapter
from worktree_coord.consolidate.adapters.npm import NpmAdapter
from worktree_coord.consolidate.adapters.pip_tools import PipToolsAdapter
from worktree_coord.consolidate.adapters.pixi import PixiAdapter
from worktree_coord.consolidate.adapters.pnpm import PnpmAdapter
from worktree_coord.consolidate.adapters.poetry import PoetryAdapter
from worktree_coord.consolidate.adapters.uv import UvAdapter
from worktree_coord.consolidate.adapters.yarn import YarnAdapter
from worktree_coord.consolidate.intent import Ecosystem
from worktree_coord.errors import UsageError

ADAPTERS: dict[Ecosystem, type[ToolAdapter]] = {
    Ecosystem.NPM: NpmAdapter,
    Ecosystem.CARGO: CargoAdapter,
    Ecosystem.UV: UvAdapter,
    Ecosystem.GO: GoAdapter,
    Ecosystem.PIP_TOOLS: PipToolsAdapter,
    Ecosystem.POETRY: PoetryAdapter,
    Ecosystem.PNPM: PnpmAdapter,
    Ecosystem.YARN: YarnAdapter,
    Ecosystem.PIXI: PixiAdapter,
    Ecosystem.MAVEN: MavenAdapter,
    Ecosystem.GRADLE: GradleAdapter,
}


def adapter_for(ecosystem: Ecosystem | str, workdir: Path, root: str, *, config: ToolConfig | None = None,
                env: Mapping[str, str] | None = None) -> ToolAdapter:
    eco = Ecosystem(ecosystem)
    cls = ADAPTERS.get(eco)
    if cls is None:
        raise UsageError(f"no consolidation adapter for {eco.value} yet",
                         fix=f"consolidate the {eco.value} root by hand, or use one of: "
                             f"{', '.join(e.value for e in ADAPTERS)}")
    return cls(workdir, root, config=config, env=env)


__all__ = ["ADAPTERS", "CargoAdapter", "EcosystemAdapter", "FailureKind", "GoAdapter", "GradleAdapter", "MavenAdapter", "NpmAdapter", "PipToolsAdapter", "PixiAdapter", "PnpmAdapter", "PoetryAdapter", "ToolAdapter",
           "ToolConfig", "ToolRun", "UvAdapter", "YarnAdapter", "adapter_for"]
