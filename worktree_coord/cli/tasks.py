"""`wtc task start|finish|update|abandon|widen`: what each agent (and, for widen, the lead) calls from its shell;
inside a task's worktree finish, update and abandon take TASK and --run from it (fastcli.task_and_run)."""

from __future__ import annotations

from typing import List, Optional

import typer

from . import app
from .. import fastcli
from .common import (JsonOption, KeyOption, RepoOption, RunOption, WorktreeRunOption, WorktreeTaskArgument,
                     open_coordinator)
from ..output.tagging import emit
from ..output import render

task_app = typer.Typer(help="Tasks: one agent's unit of work in its own worktree.", no_args_is_help=True)
app.add_typer(task_app, name="task")


@task_app.command("start")
def task_start(
    task: str = typer.Argument(..., help="Task id."),
    run: str = RunOption,
    own: List[str] = typer.Option([], "--own", help="Glob the task may change (repeatable; default: what "
                                   "`wtc plan` gives TASK, else default-boundary, else everything)."),
    read: List[str] = typer.Option([], "--read", help="Glob the task reads (repeatable; sets the sparse cone)."),
    sparse: bool = typer.Option(False, "--sparse", help="Check out only own/read folders plus root files."),
    exclusive: bool = typer.Option(False, "--exclusive", help="Refuse to overlap another live task's --own."),
    author: Optional[str] = typer.Option(None, "--author", help='Commit author, "Name <email>".'),
    key: Optional[str] = KeyOption,
    repo: str = RepoOption,
    json_mode: bool = JsonOption,
) -> int:
    """Create the task's branch wtc/<run>/<task> and ephemeral worktree off the pinned commit, prepared to run."""
    return fastcli.task_start(task, run, own, read, sparse, exclusive, author, key, repo, json_mode)


@task_app.command("finish")
def task_finish(
    task: Optional[str] = WorktreeTaskArgument,
    run: Optional[str] = WorktreeRunOption,
    message: Optional[str] = typer.Option(None, "--message", "-m", help="Commit message."),
    merge: bool = typer.Option(True, "--merge/--no-merge", help="Merge into integration now (default) or leave it to `wtc merge`."),
    verify: Optional[str] = typer.Option(None, "--verify", help="Shell command the merge candidate must pass first."),
    merge_unchecked: bool = typer.Option(False, "--merge-unchecked",
                                         help="Merge although the look for uses of names the task removed gives no "
                                              "answer (more changed files than it reads): the uses were checked by hand."),
    key: Optional[str] = KeyOption,
    repo: str = RepoOption,
    json_mode: bool = JsonOption,
) -> int:
    """Commit everything in the worktree, check the boundary, remove the worktree, merge into integration.

    Refuses to merge (exit 6) while the look for uses of names the task removed gives no answer (it
    changed more files than the look reads), unless --merge-unchecked; or split the task."""
    return fastcli.task_finish(task, run, message, merge, verify, key, repo, json_mode, merge_unchecked)


@task_app.command("abandon")
def task_abandon(
    task: Optional[str] = WorktreeTaskArgument,
    run: Optional[str] = WorktreeRunOption,
    key: Optional[str] = KeyOption,
    repo: str = RepoOption,
    json_mode: bool = JsonOption,
) -> int:
    """Drop the worktree (uncommitted work is snapshotted onto the branch), keep the branch; its intents
    not applied are dropped (kept in `wtc intent list` with the reason), since the task will never merge.

    Any task not merged yet can be abandoned: live, failed verification, or finished and waiting for
    its merge (`--no-merge`, or a finish cut off during its verification); `wtc merge` leaves it."""
    task, run = fastcli.task_and_run("abandon", task, run, repo)
    with open_coordinator(repo) as coordinator:
        result = coordinator.abandon_task(run, task, key=key)
    emit(result.to_json(), schema="task.abandon", json_mode=json_mode, human=render.task_abandoned(result))
    return result.exit_code


@task_app.command("widen")
def task_widen(
    task: str = typer.Argument(..., help="Task id."),
    run: str = RunOption,
    own: List[str] = typer.Option([], "--own", help="Glob the task may also change (repeatable)."),
    read: List[str] = typer.Option([], "--read", help="Glob the task may also read (repeatable; widens a sparse cone)."),
    why: str = typer.Option("", "--why", help="Why the task needs it (kept with the change, shown by `wtc report`)."),
    key: Optional[str] = KeyOption,
    repo: str = RepoOption,
    json_mode: bool = JsonOption,
) -> int:
    """The lead gives a live task more of the repository (e.g. after its finish was rejected for a path
    it had good reason to change): new globs are checked for overlaps like start's, recorded with why,
    and the worktree's .wtc/task.json and sparse cone follow."""
    with open_coordinator(repo) as coordinator:
        result = coordinator.widen_task(run, task, own, read, why=why, key=key)
    emit(result.to_json(), schema="task.widen", json_mode=json_mode, human=render.task_widened(result))
    return result.exit_code


@task_app.command("update")
def task_update(
    task: Optional[str] = WorktreeTaskArgument,
    run: Optional[str] = WorktreeRunOption,
    key: Optional[str] = KeyOption,
    repo: str = RepoOption,
    json_mode: bool = JsonOption,
) -> int:
    """Merge the integration tip into the task's worktree (re-created if needed) to resolve conflicts."""
    task, run = fastcli.task_and_run("update", task, run, repo)
    with open_coordinator(repo) as coordinator:
        result = coordinator.update_task(run, task, key=key)
    emit(result.to_json(), schema="task.update", json_mode=json_mode, human=render.task_updated(result))
    return result.exit_code
