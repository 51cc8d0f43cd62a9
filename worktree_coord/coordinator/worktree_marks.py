"""What tells a complete task worktree from a half-made one: the task manifest, written last.

Shared by the operations (finish refuses a half-made worktree, abandon snapshots nothing from it)
and by the status view, which imports none of the operations and no libgit2: standard library only.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..errors import StateError

MANIFEST_PATH = ".wtc/task.json"


def half_made(path: Path) -> bool:
    """A task worktree a start or update re-created and did not finish (killed mid-checkout, say):
    git's link is there, the task manifest, written last, is not. Nothing in it is the task's work:
    committing it would delete every file the checkout had not written yet, and counting its
    missing files as changes would show thousands."""
    return (path / ".git").is_file() and not (path / MANIFEST_PATH).is_file()


def half_made_error(task_id: str, run_id: str, path: Path, *, done: str) -> "StateError":
    """What an operation that reads a task's work says of its half-made worktree: nothing in it is
    the task's (finish commits nothing from it, `task check` forecasts nothing from it), and the way
    out is `task update`, which rebuilds it from the task's branch. `done`: what was not done with
    it ("committed", "read")."""
    from ..errors import StateError   # here: the status view imports this module and needs no errors

    return StateError(
        f"the worktree of task {task_id!r} ({path}) is half-made: the `wtc task start` or `wtc task update` "
        f"that re-created it was interrupted (it has no {MANIFEST_PATH}, written last); nothing in it was {done}",
        fix=f"rebuild it from the task's branch, which keeps its commits: wtc task update {task_id} --run {run_id}; "
            "then run the same command again")
