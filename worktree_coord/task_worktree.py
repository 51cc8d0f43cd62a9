"""Which task's worktree a folder is in, read from the worktree's `.wtc/env`: what the task commands an
agent runs from its worktree (`wtc task check|finish|update|abandon`, `wtc intent add`) take as TASK
and --run when they are not given, and `wtc status` as its run.

Input: a folder (the command's `--repo`, `.` by default). Output: the run and task the worktree holding
it was made for, or None. A folder is in a task's worktree when the nearest folder above it (itself
included) with a `.git` is a linked worktree (`.git` a file) whose `.wtc/env` names WTC_RUN and
WTC_TASK and, as WTC_WORKTREE, that very folder: a `.wtc/env` copied into another folder names another
path and is not taken. Standard library only, no git run: the quick path calls it before anything
loads. `.wtc/env` is written by `coordinator/worktree_setup.py` (`_write_env_file`) with shell quoting.
"""

from __future__ import annotations

import os

ENV_FILE = os.path.join(".wtc", "env")   # coordinator/worktree_setup.py's ENV_FILE
DEFAULT_WORKTREE_ROOT = ".wtc/worktrees"  # config's `worktree-root` default: <root>/RUN/TASK under the checkout


class TaskWorktree:
    """The run and task a worktree was made for, and its root folder. A plain class (the quick path
    avoids dataclasses, which load inspect)."""

    __slots__ = ("run", "task", "root")

    def __init__(self, run: str, task: str, root: str) -> None:
        self.run = run
        self.task = task
        self.root = root

    def __repr__(self) -> str:
        return f"TaskWorktree(run={self.run!r}, task={self.task!r}, root={self.root!r})"


def task_worktree_of(folder: str) -> TaskWorktree | None:
    """The task worktree `folder` is in (the folder or any below the worktree's root), else None."""
    try:
        here = os.path.realpath(folder)
    except (OSError, ValueError):
        return None
    while True:
        dot_git = os.path.join(here, ".git")
        if os.path.lexists(dot_git):
            # The nearest checkout: a task's worktree has a `.git` file; the main checkout (a `.git`
            # folder) holding the worktrees under `.wtc/worktrees` is never one.
            return _read(here) if os.path.isfile(dot_git) else None
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def _read(root: str) -> TaskWorktree | None:
    try:
        with open(os.path.join(root, ENV_FILE), encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError):
        return None
    values = _assignments(text)
    run, task, worktree = values.get("WTC_RUN"), values.get("WTC_TASK"), values.get("WTC_WORKTREE")
    if not run or not task or not worktree:
        return None
    try:
        same = os.path.realpath(worktree) == root
    except (OSError, ValueError):
        return None
    return TaskWorktree(run, task, root) if same else None


def _assignments(text: str) -> dict[str, str]:
    """NAME=VALUE lines, VALUE unquoted as the shell reads what `shlex.quote` wrote (a safe word as
    it is, else single quotes around it with each quote written '"'"'); comments skipped. By hand, not
    shlex: the quick path imports nothing it can do without."""
    values: dict[str, str] = {}
    for line in text.splitlines():
        if not line or line.startswith("#") or "=" not in line:
            continue
        name, _, quoted = line.partition("=")
        if len(quoted) >= 2 and quoted[0] == quoted[-1] == "'":
            quoted = quoted[1:-1].replace("'\"'\"'", "'")
        values[name] = quoted
    return values
