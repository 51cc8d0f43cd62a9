"""`wtc status` and `wtc gc`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

import typer

from . import app
from .common import JsonOption, RepoOption, open_coordinator
from ..output.tagging import emit
from ..errors import UsageError
from ..output import render

if TYPE_CHECKING:
    from ..results import RunStatus


@app.command("status")
def status(
    run: Optional[str] = typer.Option(None, "--run", "-r", help="Run id (default: list the runs)."),
    forecast: bool = typer.Option(False, "--forecast", help="Compute the forecast column now (reads the live "
                                  "worktrees) instead of showing the last one computed."),
    repo: str = RepoOption,
    json_mode: bool = JsonOption,
) -> int:
    """Show the runs, or one run's tasks with their states and their last conflict forecast."""
    if forecast:
        if not run:
            raise UsageError("--forecast needs a run", fix="name it: wtc status --run RUN --forecast")
        with open_coordinator(repo) as coordinator:
            coordinator.forecast(run)   # saves the column the status below shows
    result = _read_status(repo, run)
    from ..output.progress import wants_progress

    if wants_progress(json_mode):  # a person at a terminal: a table; pipes and agents get plain text
        import shutil

        human = render.run_status_table(result, width=shutil.get_terminal_size().columns)
    else:
        human = render.run_status(result)
    emit(result.to_json(), schema="status", json_mode=json_mode, human=human)
    return result.exit_code


def _read_status(repo: str, run: Optional[str]) -> RunStatus:
    # Read-only: a plain repository's store is opened directly (no pygit2, no merge engine, no
    # lease); anything unusual goes through the Coordinator, which asks libgit2.
    from ..coordinator.status_view import open_for_status, read_status

    opened = open_for_status(repo)
    if opened is None:
        with open_coordinator(repo) as coordinator:
            return coordinator.status(run)
    store, where = opened
    try:
        return read_status(store, run, where=where)
    finally:
        if store is not None:
            store.close()


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
    forecast cache of runs no longer open."""
    with open_coordinator(repo, progress="gc", json_mode=json_mode) as coordinator:
        result = coordinator.gc(dry_run=dry_run)
    emit(result.to_json(), schema="gc", json_mode=json_mode, human=render.gc_report(result))
    return result.exit_code
