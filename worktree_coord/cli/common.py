"""Options every command shares (`--repo`, `--json`, `--key`) and the one way a command opens the
Coordinator; TASK and --run of the task commands an agent runs from its worktree, which default to
the worktree's (fastcli.task_and_run)."""

from __future__ import annotations

import typer

from ..fastcli import open_coordinator  # noqa: F401  (the one way a command opens the Coordinator; typer-free)

RepoOption = typer.Option(".", "--repo", "-C", help="Path inside the git repository.", show_default=False)
JsonOption = typer.Option(False, "--json", help="Print exactly one JSON object (with a `schema` field).")
KeyOption = typer.Option(None, "--key", help="Idempotency key (default: auto:<run>-<op>-<task>; the auto: prefix is kept for defaults).")
RunOption = typer.Option(..., "--run", "-r", help="Run id.")
# `wtc task check|finish|update|abandon`: run inside a task's worktree, TASK and --run are its own.
WorktreeTaskArgument = typer.Argument(None, help="Task id (default: the task whose worktree the command runs in).",
                                      show_default=False)
WorktreeRunOption = typer.Option(None, "--run", "-r", help="Run id (default: the run of the task whose worktree the "
                                 "command runs in).", show_default=False)
