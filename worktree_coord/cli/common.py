"""Options every command shares (`--repo`, `--json`, `--key`) and the one way a command opens the
Coordinator."""

from __future__ import annotations

import typer

from ..fastcli import open_coordinator  # noqa: F401  (the one way a command opens the Coordinator; typer-free)

RepoOption = typer.Option(".", "--repo", "-C", help="Path inside the git repository.", show_default=False)
JsonOption = typer.Option(False, "--json", help="Print exactly one JSON object (with a `schema` field).")
KeyOption = typer.Option(None, "--key", help="Idempotency key (default: auto:<run>-<op>-<task>; the auto: prefix is kept for defaults).")
RunOption = typer.Option(..., "--run", "-r", help="Run id.")
