"""Admission control: heavy work (merges, verification, relocks) runs at most `limit` at a time
across every process on one machine; callers beyond that wait in a first-come, first-served queue
kept in the store. The limit guards the machine's cores, so a store shared by several machines
(PostgreSQL) keeps one queue per machine: the queue's kind carries the host (`local_kind`).

Waiting sleeps with growing jittered delays (no busy loop) and purges tickets whose owners died
(on this host, from the pid; elsewhere, from a heartbeat that expired), so a killed process on any
machine never blocks the queue. Past the timeout the caller gets BusyError (exit 4)
with a retry-after hint sized from how long the running work has taken so far.
"""

from __future__ import annotations

import contextlib
import os
import time
from typing import Iterator

from ..errors import BusyError, StoreUnavailable
from . import heartbeat
from ..filelock import jitter
from .base import Store
from .leases import owner_is_dead
from .liveness import current_owner, host_identity


def default_limit() -> int:
    return max(1, os.cpu_count() or 1)


def local_kind(kind: str) -> str:
    """The queue of `kind` work on this machine."""
    return f"{kind}@{host_identity()}"


@contextlib.contextmanager
def admitted(store: Store, kind: str, *, limit: int, timeout: float) -> Iterator[None]:
    """Hold one of `limit` places for `kind` work for the duration of the block."""
    me = str(current_owner())
    kind = local_kind(kind)
    with heartbeat.keeper(store, me).keeping():  # a ticket's owner on another machine shows it is alive
        ticket = store.enqueue(kind, me)
        try:
            _wait_for_place(store, ticket, kind, limit=limit, timeout=timeout)
            yield
        finally:
            with contextlib.suppress(StoreUnavailable):  # the ticket goes with this process's liveness
                store.leave(ticket)


def _wait_for_place(store: Store, ticket: int, kind: str, *, limit: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    delay = 0.005
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
        time.sleep(min(delay, max(0.0, deadline - now)) * jitter())
        delay = min(delay * 2, 0.1)


def _purge_dead(store: Store, kind: str, mine: int) -> None:
    for entry in store.queue_entries(kind):
        if entry["ticket"] != mine and owner_is_dead(store, entry["owner"]):
            store.leave(entry["ticket"])


def _retry_hint(store: Store, kind: str) -> float:
    now = time.time()
    running = [now - e["admitted_at"] for e in store.queue_entries(kind) if e["admitted_at"]]
    waiting = sum(1 for e in store.queue_entries(kind) if not e["admitted_at"])
    typical = max(running) if running else 1.0
    return round(min(300.0, max(1.0, typical * (1 + waiting / max(1, len(running) or 1)))), 1)
