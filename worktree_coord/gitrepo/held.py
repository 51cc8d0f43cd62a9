"""The one place a git process's starter asks for objects held in memory to be on disk first.

A drain of the merge queue holds the objects it writes in memory (held_objects.py) and writes
them as one pack when it publishes. Nothing outside this process can read memory: every git
process that could be handed one of those ids (git merge-tree on the drain's last commit, a push
of it, a grep of its tree, a worktree checked out at it, a verification command) is started only
after `write_held()` returned. The git layer calls it wherever it starts git (running.py's
runner, mergetree.py, remote.py, worktree_files.py, the caller's git in repository.py) and the
verification gate before the project's command: callers never need to remember it.

Import-light on purpose (no pygit2): `wtc status` starts git through here too. With nothing
held, `write_held()` is one truth test of a list.
"""

from __future__ import annotations

import threading
from typing import Protocol


class Holder(Protocol):
    def write_held(self) -> None: ...


_holders: list[Holder] = []    # backends holding objects now (normally none, or one drain's)
_lock = threading.Lock()


def holding(holder: Holder) -> None:
    """`holder` keeps objects in memory from now until `released(holder)`."""
    with _lock:
        if holder not in _holders:
            _holders.append(holder)


def released(holder: Holder) -> None:
    """`holder` writes to disk again (what it held is on disk)."""
    with _lock:
        if holder in _holders:
            _holders.remove(holder)


def write_held() -> None:
    """Write every object this process holds in memory to disk, before a git process starts."""
    if not _holders:
        return
    with _lock:
        holders = list(_holders)
    for holder in holders:
        holder.write_held()
