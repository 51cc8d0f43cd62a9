"""Admission control: heavy work (merges, verification, relocks) runs at most `limit` at a time
across every process on the repository; callers beyond that wait in a first-come, first-served
queue kept in the store.

Waiting sleeps with growing jittered delays (no busy loop) and purges tickets whose owners died,
so a killed process never blocks the queue. Past the timeout the caller gets BusyError (exit 4)
with a retry-after hint sized from how long the running work has taken so far.
"""

from __future__ import annotations

import contextlib
import os
import random
import time
from typing import Iterator

from ..errors import BusyError
from .leases import holder_is_dead
from .liveness import current_owner
from .base import Store


def default_limit() -> int:
    return max(1, os.cpu_count() or 1)


@contextlib.contextmanager
def admitted(store: Store, kind: str, *, limit: int, timeout: float) -> Iterator[None]:
    """Hold one of `limit` places for `kind` work for the duration of the block."""
    ticket = store.enqueue(kind, str(current_owner()))
    deadline = time.monotonic() + timeout
    delay = 0.005
    try:
        while not store.try_admit(ticket, kind, limit):
            _purge_dead(store, kind, ticket)
            now = time.monotonic()
            if now >= deadline:
                raise BusyError(
                    f"the machine is busy: {limit} {kind} job(s) running and this call waited {timeout:.0f} s for a place",
                    fix="retry after the hinted delay (or raise max-parallel in the configuration)",
                    retry_after=_retry_hint(store, kind),
                    details={"kind": kind, "limit": limit},
                )
            time.sleep(min(delay, max(0.0, deadline - now)) * (0.5 + random.random()))
            delay = min(delay * 2, 0.1)
        yield
    finally:
        store.leave(ticket)


def _purge_dead(store: Store, kind: str, mine: int) -> None:
    for entry in store.queue_entries(kind):
        if entry["ticket"] != mine and holder_is_dead(entry["owner"]):
            store.leave(entry["ticket"])


def _retry_hint(store: Store, kind: str) -> float:
    now = time.time()
    running = [now - e["admitted_at"] for e in store.queue_entries(kind) if e["admitted_at"]]
    waiting = sum(1 for e in store.queue_entries(kind) if not e["admitted_at"])
    typical = max(running) if running else 1.0
    return round(min(300.0, max(1.0, typical * (1 + waiting / max(1, len(running) or 1)))), 1)
