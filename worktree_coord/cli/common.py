"""Options every command shares (`--repo`, `--json`, `--key`) and the one way a command opens the
Coordinator."""

from __future__ import annotations

import typer

from ..coordinator import Coordinator

RepoOption = typer.Option(".", "--repo", "-C", help="Path inside the git repository.", show_default=False)
JsonOption = typer.Option(False, "--json", help="Print exactly one JSON object (with a `schema` field).")
KeyOption = typer.Option(None, "--key", help="Idempotency key (default: <run>-<op>-<task>).")
RunOption = typer.Option(..., "--run", "-r", help="Run id.")


def open_coordinator(repo: str) -> Coordinator:
    return Coordinator(repo)
