"""`wtc forecast` and `wtc task check`: the conflict forecast while agents still work (a face over
`Coordinator.forecast` and `Coordinator.check_task`)."""

from __future__ import annotations

from typing import Optional

from . import app
from .. import fastcli
from ..output import render
from .common import JsonOption, RepoOption, RunOption, WorktreeRunOption, WorktreeTaskArgument, open_coordinator
from ..output.tagging import emit
from .tasks import task_app


@app.command("forecast")
def forecast(
    run: str = RunOption,
    repo: str = RepoOption,
    json_mode: bool = JsonOption,
) -> int:
    """Which files and declarations two or more tasks are changing now, and which would conflict.

    Reads each live task's worktree as it is (uncommitted and untracked files included, its index
    never written) and each finished-but-unmerged branch, and merges the files two sides share,
    pairwise and onto the integration tip. Exit 0: it is a report (`wtc task check` exits 1)."""
    with open_coordinator(repo) as coordinator:
        result = coordinator.forecast(run)
    emit(result.to_json(), schema="forecast", json_mode=json_mode, human=lambda: render.forecast_report(result))
    return result.exit_code


@task_app.command("check")
def task_check(
    task: Optional[str] = WorktreeTaskArgument,
    run: Optional[str] = WorktreeRunOption,
    repo: str = RepoOption,
    json_mode: bool = JsonOption,
) -> int:
    """Would this task's current change merge onto integration and onto each other live task? Exit 1 if not,
    exit 3 if a change is outside the task's boundary (finish would reject it).

    Read-only and cheap on repeat (file merges are cached by blob id): call it as often as you like
    before `wtc task finish`."""
    return fastcli.task_check(task, run, repo, json_mode)
