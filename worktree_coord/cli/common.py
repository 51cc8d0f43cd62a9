"""Options every command shares (`--repo`, `--json`, `--key`) and the one way a command opens the
Coordinator."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Iterator

import typer

if TYPE_CHECKING:  # the coordinator (pygit2, the store, the merge engine) loads when a command runs
    from ..coordinator import Coordinator

RepoOption = typer.Option(".", "--repo", "-C", help="Path inside the git repository.", show_default=False)
JsonOption = typer.Option(False, "--json", help="Print exactly one JSON object (with a `schema` field).")
KeyOption = typer.Option(None, "--key", help="Idempotency key (default: auto:<run>-<op>-<task>; the auto: prefix is kept for defaults).")
RunOption = typer.Option(..., "--run", "-r", help="Run id.")


@contextlib.contextmanager
def open_coordinator(repo: str, *, progress: str | None = None, json_mode: bool = False) -> Iterator[Coordinator]:
    """The Coordinator for `repo`; with `progress` (a label) long work draws a live display on a
    terminal (output/progress.py), and stays silent when not a terminal or under --json."""
    from ..coordinator import Coordinator
    from ..output.progress import reporter_for

    if progress is None:
        with Coordinator(repo) as coordinator:
            yield coordinator
        return
    with reporter_for(json_mode=json_mode, label=progress) as reporter, Coordinator(repo, reporter=reporter) as coordinator:
        yield coordinator
