"""`wtc version`: what is installed, for bug reports and for agents checking the contract version."""

from __future__ import annotations

import typer

from .. import __version__
from . import app
from ..output.tagging import emit


@app.command("version")
def version(json_mode: bool = typer.Option(False, "--json", help="Print one JSON object.")) -> None:
    """Print the worktree_coord version."""
    emit({"version": __version__}, schema="version", json_mode=json_mode, human=f"wtc {__version__}", exit_code=0)
