"""`wtc status` and `wtc gc`."""

from __future__ import annotations

from typing import Optional

import typer

from . import app
from .common import JsonOption, RepoOption
from .. import fastcli


@app.command("status")
def status(
    run: Optional[str] = typer.Option(None, "--run", "-r", help="Run id (default: inside a task's worktree its "
                                     "run, else list the runs)."),
    forecast: bool = typer.Option(False, "--forecast", help="Compute the forecast column now (reads the live "
                                  "worktrees) instead of showing the last one computed."),
    repo: str = RepoOption,
    json_mode: bool = JsonOption,
) -> int:
    """Show the runs, or one run's tasks with their states and their last conflict forecast."""
    return fastcli.status(run, forecast, repo, json_mode)


@app.command("gc")
def gc(
    dry_run: bool = typer.Option(False, "--dry-run", help="List what would be removed; change nothing."),
    repo: str = RepoOption,
    json_mode: bool = JsonOption,
) -> int:
    """Remove ended tasks' worktrees (never committing them), tombstones of interrupted removals,
    orphaned folders and admin entries, dead leases, expired keys, branches of empty tasks and of
    merged ones (their commits stay in the integration history); for runs on a git remote, the
    remote branches of merged tasks (lease-checked) and stale tracking refs; the
    forecast cache of runs no longer open; the scratch folders of killed `task check` reads."""
    return fastcli.gc(dry_run, repo, json_mode)
