"""Port blocks leased across the machine: one registry per user, so two repositories on one machine
never hand out the same ports.

Stage: under `task start`'s worktree preparation (coordinator/worktree_setup.py), beside the
repository's own store, which records each task's block (`wtc status` shows it) and keeps the
tasks of that store apart. Input: a holder (its store, run, task and worktree). Output: the port
ranges the live tasks of other stores hold, and the holder's own range recorded.

Where: `ports.json` in the user's state folder (`config.user_state_dir()`: `$WTC_STATE_DIR`, else
`$XDG_STATE_HOME/worktree-coord`, else `~/.local/state/worktree-coord`), read and rewritten whole
(by rename) under an flock of `ports.lock` beside it; the kernel drops the lock when its holder
dies, so a killed start never leaves the registry locked.

Lease rules (the store's own for its blocks): a range is held while its task is live (started,
rejected, conflict) in its own store. An entry whose store is gone, or whose task is no longer
live there (it ended, or its start was rolled back), is dropped when the registry is next read.
A task of a PostgreSQL store, which this registry cannot read (its password is never written
here), holds its range while its worktree exists. A store that cannot be read says nothing: its
entries are kept (a block never handed out twice matters more than one kept too long).

Cost under the lock (every `task start` on the machine takes it): a reader that names its own
store (`leased_ports(store=...)`) checks at once only that store's entries and whether the other
stores' files still exist; another store's tasks are asked about (a read-only open of its SQLite
file) only when one of its ranges meets a block the reader considers (`PortRegistry.blocks`). A
machine with many repositories' leftovers then costs a start one store's read, not one per
repository (measured: 35 ms under the lock with 23 stores' entries, every start). And a store
found unchanged since its entries were last checked (the same size and modification time of its
SQLite file and its WAL, kept in the registry as `seen`) is not opened again: its tasks cannot
have changed state without writing to it. Either shortcut can only keep an entry longer, never
drop a live one.
"""

from __future__ import annotations

import bisect
import contextlib
import json
import os
from pathlib import Path
from typing import Iterator

from .. import filelock
from ..config import user_state_dir
from ..frozen import value_class
from ..model import TaskState

REGISTRY_FILE = "ports.json"
LOCK_FILE = "ports.lock"
SCHEMA = "wtc.port-registry/1"


@value_class
class PortLease:
    """One task's range of ports: `first`..`last` (inclusive), held for `task` of `run` in the store
    at `store` (its location: a SQLite file, or a PostgreSQL address without its password)."""

    store: str
    run: str
    task: str
    worktree: str
    first: int
    last: int

    def holds(self, store: str, run: str, task: str) -> bool:
        return (self.store, self.run, self.task) == (store, run, task)

    def overlaps(self, first: int, last: int) -> bool:
        return self.first <= last and first <= self.last


@value_class
class _Ranges:
    """Other stores' leases sorted by first port, for one list of leases and one reader's store."""

    leases: list[PortLease]
    store: str
    others: list[PortLease]
    starts: list[int]
    widest: int


class PortRegistry:
    """The machine's port leases, as read under the registry's lock (see `leased_ports`)."""

    def __init__(self, leases: list[PortLease], *, checked: frozenset[str] | None = None,
                 seen: dict[str, list[int]] | None = None) -> None:
        self.leases = leases
        self.changed = False
        self.seen: dict[str, list[int]] = seen if seen is not None else {}   # see `_still_held`
        # Stores whose entries were checked against their store (None: every one was).
        self._checked: set[str] | None = set(checked) if checked is not None else None
        self._ranges: _Ranges | None = None   # see `_meeting`

    def held_by_other_stores(self, store: str) -> list[PortLease]:
        """The ranges live tasks of other stores hold (this store keeps its own tasks apart)."""
        if self._checked is not None:
            self._check({lease.store for lease in self.leases if lease.store != store})
        return [lease for lease in self.leases if lease.store != store]

    def blocks(self, store: str, first: int, last: int) -> bool:
        """Whether a live task of another store than `store` holds a port of `first`..`last`. The
        other stores' entries that meet the range are checked against their store first (once per
        store for this registry), and dropped when their task is no longer live."""
        meeting = {lease.store for lease in self._meeting(store, first, last)}
        if self._checked is not None and meeting - self._checked:
            self._check(meeting - self._checked)
            return bool(self._meeting(store, first, last))
        return bool(meeting)

    def _meeting(self, store: str, first: int, last: int) -> list[PortLease]:
        """Other stores' leases that meet `first`..`last`. A start asks for block after block (0, 1,
        ...) and a machine keeps ~100 leases of other repositories' tasks: the other stores' ranges
        are sorted once (again whenever the list of leases is replaced: every change replaces it)
        and bisected, not scanned per block."""
        index = self._ranges
        if index is None or index.leases is not self.leases or index.store != store:
            others = sorted((lease for lease in self.leases if lease.store != store), key=lambda lease: lease.first)
            index = self._ranges = _Ranges(self.leases, store, others, [lease.first for lease in others],
                                           max((lease.last - lease.first for lease in others), default=0))
        low = bisect.bisect_left(index.starts, first - index.widest)
        high = bisect.bisect_right(index.starts, last)
        return [lease for lease in index.others[low:high] if lease.overlaps(first, last)]

    def _check(self, stores: set[str]) -> None:
        assert self._checked is not None
        stores -= self._checked
        if not stores:
            return
        mine = [lease for lease in self.leases if lease.store in stores]
        before = dict(self.seen)
        kept = _still_held(mine, self.seen)
        self.changed |= self.seen != before
        if len(kept) != len(mine):
            self.leases = [lease for lease in self.leases if lease.store not in stores] + kept
            self.changed = True
        self._checked |= stores

    def lease_of(self, store: str, run: str, task: str) -> PortLease | None:
        return next((lease for lease in self.leases if lease.holds(store, run, task)), None)

    def hold(self, lease: PortLease) -> None:
        """Record `lease`, replacing the holder's earlier one."""
        if self.lease_of(lease.store, lease.run, lease.task) == lease:
            return
        self.release(lease.store, lease.run, lease.task)
        self.leases = [*self.leases, lease]    # a new list: `_meeting`'s sorted ranges know theirs by identity
        self.changed = True

    def release(self, store: str, run: str, task: str) -> None:
        kept = [lease for lease in self.leases if not lease.holds(store, run, task)]
        if len(kept) != len(self.leases):
            self.leases, self.changed = kept, True


def registry_path() -> Path:
    return user_state_dir() / REGISTRY_FILE


@contextlib.contextmanager
def leased_ports(*, timeout: float, store: str | None = None) -> Iterator[PortRegistry]:
    """The registry under its lock, entries of ended tasks dropped; written back on exit when it
    changed. With `store` (the reader's own store), only that store's entries and the existence of
    the others' files are checked at once, another store's tasks when one of its ranges matters
    (see the module docstring). BusyError when another process held the lock for `timeout` seconds."""
    path = registry_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    with filelock.exclusive(path.with_name(LOCK_FILE), timeout=timeout, what="the machine's port registry",
                            fix="retry; many tasks are starting at once on this machine"):
        leases, seen = _read(path)
        before = dict(seen)
        if store is None:
            registry = PortRegistry(_still_held(leases, seen), seen=seen)
        else:
            # Entries of stores whose file is gone go at once (a stat each); the reader's own store's
            # are checked now (one read), every other store's when one of its ranges matters.
            exists = {name: "://" in name or Path(name).is_file() for name in {lease.store for lease in leases}}
            present = [lease for lease in leases if exists[lease.store]]
            own = [lease for lease in present if lease.store == store]
            others = [lease for lease in present if lease.store != store]
            registry = PortRegistry(_still_held(own, seen) + others, checked=frozenset({store}), seen=seen)
        registry.changed = len(registry.leases) != len(leases) or seen != before
        yield registry
        if registry.changed:
            held = {lease.store for lease in registry.leases}
            temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
            # Compact: json's C encoder (an indented dump takes its pure-Python one, ~3 ms of a start's
            # CPU under the registry's lock with ~100 leases on the machine).
            temporary.write_text(json.dumps({"schema": SCHEMA, "leases": [dict(vars(lease)) for lease in registry.leases],
                                             "seen": {k: v for k, v in registry.seen.items() if k in held}},
                                            separators=(",", ":")) + "\n")
            temporary.replace(path)


def _read(path: Path) -> tuple[list[PortLease], dict[str, list[int]]]:
    try:
        data = json.loads(path.read_text())
        seen = data.get("seen", {})
        seen = {str(k): list(v) for k, v in seen.items() if isinstance(v, list)} if isinstance(seen, dict) else {}
        return [PortLease(**row) for row in data.get("leases", [])], seen
    except FileNotFoundError:
        return [], {}
    except (ValueError, TypeError, AttributeError):
        # A registry nobody can read holds nothing anyone can check: start over (each repository's
        # store still keeps its own tasks apart; the bind test still skips ports in use).
        return [], {}


def _store_mark(store: str) -> list[int] | None:
    """What changes whenever a SQLite store is written: its file's and its WAL's size and
    modification time (a WAL-mode write appends to the WAL; a checkpoint rewrites the file)."""
    mark: list[int] = []
    for name in (store, store + "-wal"):
        try:
            info = os.stat(name)
        except FileNotFoundError:
            mark += [-1, -1]
            continue
        except OSError:
            return None
        mark += [info.st_size, info.st_mtime_ns]
    return mark


def _still_held(leases: list[PortLease], seen: dict[str, list[int]] | None = None) -> list[PortLease]:
    """The leases whose task is still live in its store (the module docstring's rules). `seen`:
    each store's mark (`_store_mark`) when its entries were last checked, updated here; a store
    whose mark has not moved since keeps its entries without being opened."""
    from .sqlite import task_states_at

    live = {state.value for state in TaskState if state.live}
    by_store: dict[str, list[PortLease]] = {}
    for lease in leases:
        by_store.setdefault(lease.store, []).append(lease)
    kept: list[PortLease] = []
    for store, held in by_store.items():
        if "://" in store:     # PostgreSQL: its worktree says whether the task still runs here
            kept += [lease for lease in held if Path(lease.worktree).exists()]
            continue
        if not Path(store).is_file():
            continue           # the repository (or its store) is gone: nothing of it runs
        mark = _store_mark(store)     # taken before the read: a write during it moves the mark
        if seen is not None and mark is not None and seen.get(store) == mark:
            kept += held               # not written since every one of these was found live
            continue
        states = task_states_at(store, [(lease.run, lease.task) for lease in held])
        if states is None:
            kept += held
            continue
        kept += [lease for lease in held if states.get((lease.run, lease.task)) in live]
        if seen is not None and mark is not None:
            seen[store] = mark
    return kept
