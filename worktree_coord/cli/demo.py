"""`wtc demo`: run the main job on the built-in example."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ..errors import EXIT_INTERNAL, WtcError
from . import app
from ..output.tagging import emit


@app.command("demo")
def demo(
    directory: Optional[Path] = typer.Option(None, "--dir", help="Folder to build the scratch repository in (default: a new temp dir)."),
    parallel: int = typer.Option(8, "--parallel", min=1, max=64, help="Agent processes at once."),
    json_mode: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> int:
    """Build a scratch monorepo and fan parallel agents out over it, then show what happened."""
    from .demo_scenario import DEMO_TASKS, render_report, run_demo, surprises
    from ..output.progress import reporter_for

    if directory is not None and directory.exists() and any(directory.iterdir()):
        raise WtcError(f"{directory} is not empty", fix="pass an empty or new folder to --dir")
    with reporter_for(json_mode=json_mode, label="demo") as reporter:
        reporter.event("demo.running", stage=f"{len(DEMO_TASKS)} agents, {parallel} processes at once")
        report = run_demo(directory, parallel=parallel)
    problems = surprises(report)
    payload = report.to_json() | {"surprises": problems}
    text = render_report(report) + ("\n\nSURPRISES:\n  " + "\n  ".join(problems) if problems else "")
    # A surprise is the demo finding wtc misbehave on its own example: a bug, not bad input.
    code = EXIT_INTERNAL if problems else 0
    emit(payload, schema="demo", json_mode=json_mode, human=text, exit_code=code)
    return code
