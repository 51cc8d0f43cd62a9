"""Lock files git and libgit2 leave behind when killed: who may still hold one, and removing one
nobody holds.

git takes a lock by creating `<file>.lock` (O_EXCL) and lets go by renaming it over the file or
deleting it; a process killed in between leaves the lock, and every later writer of that file
refuses ("Unable to create '...lock': File exists") until someone removes it. Nothing in the
file says who made it, so whether a lock is stale is proved from outside it:

- what wtc's own locks exclude: the task's lease (no other wtc call on the task runs) and the
  registration flock, which every git run under it inherits (`GitRepo.registration_lock`: a git
  orphaned by its caller's death holds it until it ends);
- which live git processes could hold it: git moves into the top of the worktree it works on
  before it takes any lock there (`git_processes_in`), and a git or libgit2 writer keeps a shared
  lock such as packed-refs.lock open while it holds it (`held_open`);
- its age: a live write holds a ref's lock for microseconds to milliseconds.

Linux answers the two process questions from /proc; elsewhere they answer None (unknown) and the
callers fall back to age alone. Processes of other users are not read (their folders are closed to
us, and they cannot write this repository's lock files either).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Iterator

PROC = Path("/proc")


def lock_age(lock: Path) -> float | None:
    """Seconds since `lock` was last written; None when it is gone."""
    try:
        return max(0.0, time.time() - lock.stat().st_mtime)
    except OSError:
        return None


def _processes() -> Iterator[str] | None:
    try:
        names = os.listdir(PROC)
    except OSError:
        return None
    own = str(os.getpid())
    return (name for name in names if name.isdigit() and name != own)


def git_processes_in(folder: Path) -> list[int] | None:
    """The live git processes (other than this one) working in `folder` or below it; None when the
    system does not say (no /proc). A git that works on a worktree has moved into its top folder
    before it takes the worktree's index.lock, HEAD.lock or its branch's lock (setup_work_tree),
    so a lock of a worktree with no git in it is held by no git."""
    names = _processes()
    if names is None:
        return None
    top = os.path.realpath(folder)
    found = []
    for name in names:
        try:
            with open(PROC / name / "comm") as comm:
                if not comm.read().startswith("git"):
                    continue
            cwd = os.readlink(PROC / name / "cwd")
        except OSError:     # ended meanwhile, or another user's
            continue
        if cwd == top or cwd.startswith(top + os.sep):
            found.append(int(name))
    return found


def held_open(lock: Path) -> bool | None:
    """Whether a live process (other than this one) has `lock` open; None when the system does not
    say. git keeps packed-refs.lock and index.lock open while it holds them, libgit2 every lock it
    holds; git closes a loose ref's lock once written and renames it a moment later (the age bound
    covers that moment)."""
    names = _processes()
    if names is None:
        return None
    target = os.path.realpath(lock)
    for name in names:
        folder = PROC / name / "fd"
        try:
            descriptors = os.listdir(folder)
        except OSError:
            continue
        for descriptor in descriptors:
            try:
                if os.readlink(folder / descriptor) == target:
                    return True
            except OSError:
                continue
    return False


def remove(lock: Path, why: str) -> str | None:
    """Remove `lock`; the note saying so (its age and `why` it was safe), None when it was gone."""
    age = lock_age(lock)
    try:
        lock.unlink()
    except FileNotFoundError:
        return None
    return f"removed {lock} ({age or 0:.0f} s old), left by a killed git: {why}"


# A shared lock's holder writes for milliseconds; one a minute old with no process holding it open
# was left by a killed writer (the rule `wtc gc` applied to wtc's ref locks before any call did).
STALE_SHARED_LOCK_SECONDS = 60.0

_given: list[str] = []     # warnings of shared locks this process removed, until a face takes them


def is_stale(lock: Path, older_than: float = STALE_SHARED_LOCK_SECONDS) -> bool:
    """Whether `lock` is `older_than` seconds old or more and no live process has it open (where the
    system cannot say who has it open, the age alone decides)."""
    age = lock_age(lock)
    return age is not None and age >= older_than and not held_open(lock)


def clear_if_stale(lock: Path, older_than: float = STALE_SHARED_LOCK_SECONDS) -> str | None:
    """A shared lock (one any git may take: packed-refs.lock, the repository's config.lock, a ref
    several callers move): removed when it is `older_than` seconds old or more and no live process
    has it open; the warning saying so (also kept for `warnings_given`), else None (still held, or
    too young to tell). Never a lock a live process has open: that one is busy, however old."""
    if not is_stale(lock, older_than):
        return None
    warning = remove(lock, f"older than {older_than:.0f} s and open in no live process")
    if warning is not None:
        _given.append(warning)
    return warning


def warnings_given() -> list[str]:
    """The warnings of the shared locks this process removed since the last call (the CLI prints
    them on stderr after the command's own output)."""
    given = list(_given)
    _given.clear()
    return given
