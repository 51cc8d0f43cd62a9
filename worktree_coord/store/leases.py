"""Leases: named, owned, expiring claims in the store, used to serialize writes to one task.

A lease held by a dead process (same host, pid gone or reused) is taken over at once; one held on
another host is taken over when it expires. Waiting sleeps with growing, jittered delays (no busy
loop) and gives up with BusyError (exit 4) after the timeout.
"""

from __future__ import annotations

import contextlib
import random
import time
from typing import Iterator

from ..errors import BusyError
from .liveness import Owner, current_owner, is_alive
from .base import Store

DEFAULT_LEASE_TTL = 3600.0


def holder_is_dead(owner_text: str) -> bool:
    try:
        owner = Owner.parse(owner_text)
    except ValueError:
        return True  # unreadable owner: nobody can be waiting on it
    return is_alive(owner) is False


def may_take_over(owner_text: str, expires_at: float) -> bool:
    """A lease may be taken from a holder that is dead, or that has expired on another host (whose
    liveness we cannot see). A live holder on this host keeps its lease however long it works."""
    try:
        alive = is_alive(Owner.parse(owner_text))
    except ValueError:
        return True
    return alive is False or (alive is None and expires_at <= time.time())


@contextlib.contextmanager
def hold(store: Store, name: str, *, timeout: float, ttl: float = DEFAULT_LEASE_TTL, what: str = "") -> Iterator[None]:
    """Hold the lease `name` for the duration of the block."""
    me = str(current_owner())
    deadline = time.monotonic() + timeout
    delay = 0.005
    while True:
        lease = store.acquire_lease(name, me, ttl)
        if lease is not None:
            break
        current = store.get_lease(name)
        if current is not None and may_take_over(current.owner, current.expires_at):
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
        time.sleep(min(delay, deadline - now) * (0.5 + random.random()))
        delay = min(delay * 2, 0.25)
    try:
        yield
    finally:
        store.release_lease(name, me)
