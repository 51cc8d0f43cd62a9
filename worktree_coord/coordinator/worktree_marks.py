"""What tells a complete task worktree from a half-made one: the task manifest, written last.

Shared by the operations (finish refuses a half-made worktree, abandon snapshots nothing from it)
and by the status view, which imports none of the operations and no libgit2: standard library only.
"""

from __future__ import annotations

from pathlib import Path

MANIFEST_PATH = ".wtc/task.json"


def half_made(path: Path) -> bool:
    """A task worktree a start or update re-created and did not finish (killed mid-checkout, say):
    git's link is there, the task manifest, written last, is not. Nothing in it is the task's work:
    committing it would delete every file the checkout had not written yet, and counting its
    missing files as changes would show thousands."""
    return (path / ".git").is_file() and not (path / MANIFEST_PATH).is_file()
