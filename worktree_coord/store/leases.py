"""Leases: named, owned, expiring claims in the store, used to serialize writes to one task.

A lease held by a dead process on this host (pid gone or reused) is taken over at once; one held on
another host is taken over once its owner's heartbeat expired by the store's clock (the holder
renews it from a background thread however long it works: `heartbeat.py`). Waiting sleeps with
growing, jittered delays (no busy loop) and gives up with BusyError (exit 4) after the timeout.

A holder that lost its lease (its heartbeat lapsed and another process took over) must not write
anything that assumes ownership: `Held.ensure()` checks the heartbeat, and writes passed
`fence(name)` are compare-and-set on the holder in the store itself.
"""

from __future__ import annotations

import contextlib
import time
from typing import Iterator, Sequence

from ..errors import BusyError, StoreUnavailable
from . import heartbeat
from ..filelock import jitter
from ..frozen import value_class
from .base import Store
from .liveness import Owner, current_owner, is_alive


def owner_is_dead(store: Store, owner_text: str) -> bool:
    """Whether what `owner_text` holds may be taken: its process ended (this host), or its
    heartbeat expired (another host, whose processes we cannot see)."""
    try:
        owner = Owner.parse(owner_text)
    except ValueError:
        return True  # unreadable owner: nobody can be waiting on it
    alive = is_alive(owner)
    if alive is not None:
        return not alive
    return store.owner_expired(owner_text)


def may_take_over(store: Store, owner_text: str) -> bool:
    """A lease may be taken from a holder that is dead, or whose heartbeat expired on another host.
    A live holder keeps its lease however long it works."""
    return owner_is_dead(store, owner_text)


def task_lease(run_id: str, task_id: str) -> str:
    """The name of the lease that serializes writes to one task."""
    return f"task:{run_id}/{task_id}"


def fence(name: str) -> tuple[str, str]:
    """`holder=` for a write that must happen only while this process holds the lease `name`."""
    return name, str(current_owner())


@value_class
class Held:
    """A lease this process holds for the duration of a `hold` block."""

    name: str
    owner: str
    generation: heartbeat.Generation

    def ensure(self) -> None:
        """Raise LeaseLost when the heartbeat lapsed (the lease may be another process's now)."""
        self.generation.ensure(f"the lease {self.name}")


@contextlib.contextmanager
def hold(store: Store, name: str, *, timeout: float, ttl: float | None = None, what: str = "") -> Iterator[Held]:
    """Hold the lease `name` for the duration of the block (renewed by the heartbeat)."""
    me = str(current_owner())
    keeper = heartbeat.keeper(store, me)
    ttl = ttl if ttl is not None else keeper.ttl
    with keeper.keeping() as generation:
        deadline = time.monotonic() + timeout
        delay = 0.005
        while True:
            lease = store.acquire_lease(name, me, ttl)
            if lease is not None:
                break
            current = store.get_lease(name)
            if current is not None and may_take_over(store, current.owner):
                if store.acquire_lease(name, me, ttl, steal_from=current.owner) is not None:
                    break
                continue
            now = time.monotonic()
            if now >= deadline:
                if current is None:
                    continue  # released between our two reads: try again at once
                holder = current.owner
                raise BusyError(
                    f"{what or name} is busy: another wtc process ({holder}) has held it for over {timeout:.0f} s",
                    fix="retry later; the other call on this task is still running",
                    retry_after=min(30.0, max(1.0, timeout / 10)),
                    details={"lease": name, "holder": holder},
                )
            time.sleep(min(delay, deadline - now) * jitter())
            delay = min(delay * 2, 0.25)
        try:
            yield Held(name, me, generation)
        finally:
            # Unreachable store: the lease stays, and goes with this process's liveness; the
            # block's own error is the one to report.
            with contextlib.suppress(StoreUnavailable):
                store.release_lease(name, me)


@contextlib.contextmanager
def hold_free(store: Store, names: Sequence[str]) -> Iterator[list[str]]:
    """Hold, for the duration of the block, those of the leases `names` that are free or this
    process's already, taken in one write transaction and given back in one (a drain's waiting
    tasks: two store writes for the run, not two a task). Yields the names held, in order; a
    name another owner holds is not waited for nor taken over here: the caller takes it with
    `hold` (which takes it from a dead owner, or says who holds it)."""
    me = str(current_owner())
    keeper = heartbeat.keeper(store, me)
    with keeper.keeping():
        taken = store.acquire_leases(list(names), me, keeper.ttl)
        try:
            yield taken
        finally:
            with contextlib.suppress(StoreUnavailable):   # as `hold`: the leases go with this process
                store.release_leases(taken, me)
