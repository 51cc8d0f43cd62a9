"""`wtc watch`: a live view of a run while agents work (a face over `Coordinator.snapshot`)."""

from __future__ import annotations

import os
import sys
import time

import typer

from . import app
from ..output import render
from .common import JsonOption, RepoOption, RunOption, open_coordinator
from ..output.tagging import emit


@app.command("watch")
def watch(
    run: str = RunOption,
    once: bool = typer.Option(False, "--once", help="Print one frame and exit (also what a pipe gets)."),
    interval: float = typer.Option(1.0, "--interval", min=0.1, help="Seconds between frames of the live view."),
    forecast_every: float = typer.Option(10.0, "--forecast-every", min=0.0,
                                         help="Recompute the forecast column when it is older than this (seconds)."),
    forecast: bool = typer.Option(True, "--forecast/--no-forecast", help="Show each task's conflict forecast."),
    repo: str = RepoOption,
    json_mode: bool = JsonOption,
) -> int:
    """A live view of a run: tasks by state with their age, merges as they land, conflicts with
    their declaration, the admission queue, pending intents and throughput.

    It only reads the store: it takes no lease and never makes an agent wait. On a terminal it
    redraws every --interval seconds until Ctrl-C, which exits 0; with --once, --json or when stdout
    is not a terminal it prints one frame (--json: one `wtc.watch/1` object) and exits 0. The
    forecast column (`wtc forecast`, per task) is recomputed when older than --forecast-every."""
    age = forecast_every if forecast else None
    with open_coordinator(repo) as coordinator:
        snapshot = coordinator.snapshot(run, forecast_age=age)   # an unknown run fails here, before any drawing (exit 5)
        if json_mode or once or not sys.stdout.isatty():
            width = _width()
            emit(snapshot.to_json(), schema="watch", json_mode=json_mode,
                 human=lambda: render.run_snapshot_text(snapshot, width=width, color=sys.stdout.isatty()))
            return 0
        from rich.console import Console
        from rich.live import Live

        try:
            with Live(render.run_snapshot_view(snapshot), console=Console(), auto_refresh=False,
                      redirect_stdout=False, redirect_stderr=False) as live:
                while True:
                    time.sleep(interval)
                    live.update(render.run_snapshot_view(coordinator.snapshot(run, forecast_age=age)), refresh=True)
        except KeyboardInterrupt:   # the way to leave a live view: not an interruption of work
            pass
    return 0


def _width() -> int:
    try:
        return max(60, int(os.environ.get("COLUMNS", "")) or 100)
    except ValueError:
        return 100
