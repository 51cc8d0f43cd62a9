"""`wtc ui`: a live page of a run in the browser (read-only).

Thin: the server and the page live in `worktree_coord/ui/`, loaded only when this command runs.
"""

from __future__ import annotations

from typing import Optional

import typer

from . import app
from .common import RepoOption


@app.command("ui")
def ui(
    run: Optional[str] = typer.Option(None, "--run", help="The run to show (default: the newest open run)."),
    port: int = typer.Option(8766, "--port", min=0, max=65535, help="Port to listen on (0 picks a free one)."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on; any non-loopback address "
                             "requires a token (WTC_UI_TOKEN, or one generated and printed once)."),
    forecast_every: float = typer.Option(10.0, "--forecast-every", min=1.0,
                                         help="Recompute the conflict forecast at least this often (seconds)."),
    forecast: bool = typer.Option(True, "--forecast/--no-forecast", help="Show the forecast matrix of live tasks."),
    repo: str = RepoOption,
    json_mode: bool = typer.Option(False, "--json", help="Report an error that stops the server from starting "
                                   "as one JSON object on stdout."),
) -> int:
    """Serve a live page of a run: tasks on a timeline, conflicts and the forecast as they happen.

    Read-only: the page changes nothing (landing stays `wtc land`). It shows the tasks by phase or
    package with their start, finish, merge and repairs, counts per state and the integration
    throughput, conflicts as they appear, the forecast of live tasks against each other, intents and
    consolidation, what landing would change, and a task's detail. Runs until Ctrl-C (exit 0).
    See docs/ui.md."""
    del json_mode  # cli.main reads --json from the command line to render a start-up error
    from ..serving import parse_bind
    from ..ui.server import serve

    bind = parse_bind(f"[{host}]:{port}" if ":" in host else f"{host}:{port}", option="--host/--port")
    serve(repo, run, bind, forecast_every=forecast_every, forecast=forecast)
    return 0
