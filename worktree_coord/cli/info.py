"""`wtc version`: what is installed, for bug reports and for agents checking the contract version."""

from __future__ import annotations

import typer

from . import app
from .. import fastcli


@app.command("version")
def version(json_mode: bool = typer.Option(False, "--json", help="Print one JSON object.")) -> int:
    """Print the worktree_coord version."""
    return fastcli.version(json_mode)
