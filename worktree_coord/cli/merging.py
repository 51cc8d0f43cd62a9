"""`wtc merge`: drain every finished, unmerged task into the integration branch."""

from __future__ import annotations

from typing import Optional

import typer

from . import app, render
from .common import JsonOption, KeyOption, RepoOption, RunOption, open_coordinator
from .output import emit


@app.command("merge")
def merge(
    run: str = RunOption,
    key: Optional[str] = KeyOption,
    repo: str = RepoOption,
    json_mode: bool = JsonOption,
) -> int:
    """Merge every finished, unmerged task (after a crash or `finish --no-merge`); safe to repeat."""
    with open_coordinator(repo, progress="merge", json_mode=json_mode) as coordinator:
        result = coordinator.merge(run, key=key)
    emit(result.to_json(), schema="merge", json_mode=json_mode, human=render.merge_report(result))
    return result.exit_code
