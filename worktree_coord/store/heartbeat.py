"""Heartbeats: how a process shows the store that it is alive while it holds something.

Stage: infrastructure, under leases, idempotency claims and admission tickets. Input: a store and
this process's owner id. Output: while anything is held, a background thread that extends the
owner's heartbeat (and the expiry of its leases) every third of the time to live; it stops, and the
heartbeat row goes, when the last holder lets go.

Why a thread: a merge, a verification or a relock can outlast any fixed lease, and the process
doing it cannot stop to renew. On its own host an owner's liveness is read from its pid
(`liveness.py`); on another machine only the heartbeat tells, and it lapses by itself when the
process is killed, frozen or cut off from the store.

Invariants:
- the first beat is written before anything is claimed, so nobody sees a claim or a lease whose
  owner has no heartbeat (which reads as dead);
- a renewal the store refuses (the heartbeat had expired, so another process may have taken over),
  or no renewal reaching the store for a whole time to live, marks everything held since the last
  good beat as lost: `Generation.ensure()` raises LeaseLost. The guard that cannot be raced is in
  the store itself: fenced writes (`update_task(holder=...)`, `complete`) are compare-and-set on the
  holder, in the write's own transaction;
- one keeper per (store, owner), safe to share between threads (a server with one store).
"""

from __future__ import annotations

import contextlib
import threading
import time
import weakref
from typing import Iterator

from ..errors import LeaseLost, WtcError
from .base import Store
from .liveness import current_owner

DEFAULT_TTL = 30.0


class Generation:
    """What was held under one unbroken run of beats; lost as a whole when a beat fails."""

    def __init__(self) -> None:
        self._lost = threading.Event()
        self.reason = ""

    @property
    def lost(self) -> bool:
        return self._lost.is_set()

    def lose(self, reason: str) -> None:
        self.reason = reason
        self._lost.set()

    def ensure(self, what: str) -> None:
        """Raise LeaseLost when the heartbeat behind `what` lapsed: stop before writing anything
        that assumes ownership."""
        if self.lost:
            raise LeaseLost(
                f"{what} may have passed to another process: {self.reason}",
                fix="repeat the call with the same key: it returns the other process's result, or resumes",
                retry_after=1.0,
                details={"lost_lease": what},
            )


class Keeper:
    """The heartbeat of one owner in one store (see the module docstring)."""

    def __init__(self, store: Store, owner: str, ttl: float = DEFAULT_TTL):
        self.store = store
        self.owner = owner
        self.ttl = ttl
        self._lock = threading.Lock()
        self._holders = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._generation = Generation()
        self._last_ok = 0.0
        self._fresh = True      # the next beat starts a heartbeat (after a loss) instead of extending one

    @contextlib.contextmanager
    def keeping(self) -> Iterator[Generation]:
        """Keep the heartbeat running for the duration of the block; yields the generation whose
        `ensure()` says whether what the block holds may have been lost."""
        generation = self._enter()
        try:
            yield generation
        finally:
            self._exit()

    def _enter(self) -> Generation:
        with self._lock:
            if self._holders == 0:
                self.store.beat(self.owner, self.ttl, renew=False)  # raises when the store is unreachable
                self._last_ok = time.monotonic()
                self._fresh = False
                self._generation = Generation()
                self._stop = threading.Event()
                self._thread = threading.Thread(target=self._run, args=(self._stop,), daemon=True,
                                                name="wtc-heartbeat")
                self._thread.start()
            self._holders += 1
            return self._generation

    def _exit(self) -> None:
        with self._lock:
            self._holders -= 1
            if self._holders:
                return
            self._stop.set()
            thread, self._thread = self._thread, None
            with contextlib.suppress(WtcError):  # unreachable: the heartbeat lapses by itself
                self.store.end_beat(self.owner)
        if thread is not None and thread is not threading.current_thread():
            thread.join()

    def _run(self, stop: threading.Event) -> None:
        while not stop.wait(self.ttl / 3):
            with self._lock:
                if stop.is_set():
                    return
                self._beat_once()

    def _beat_once(self) -> None:
        """One renewal (called with the lock held, by the thread)."""
        try:
            alive = self.store.beat(self.owner, self.ttl, renew=not self._fresh)
        except WtcError as error:
            # Unreachable: keep trying; once a whole time to live passed without a beat reaching the
            # store, others may take what we hold.
            if time.monotonic() - self._last_ok >= self.ttl and not self._generation.lost:
                self._lose(f"no heartbeat reached the store for {self.ttl:.0f} s ({error.message})")
            return
        if alive and not self._generation.lost:
            self._last_ok = time.monotonic()
            self._fresh = False
            return
        if not alive:
            self._lose(f"the store found this process's heartbeat expired (no beat for over {self.ttl:.0f} s)")
        else:  # a fresh heartbeat after a loss: what is taken from now on is held again
            self._last_ok = time.monotonic()
            self._fresh = False
            self._generation = Generation()

    def _lose(self, reason: str) -> None:
        self._generation.lose(reason)
        self._fresh = True


_KEEPERS: "weakref.WeakKeyDictionary[Store, dict[str, Keeper]]" = weakref.WeakKeyDictionary()
_TTLS: "weakref.WeakKeyDictionary[Store, float]" = weakref.WeakKeyDictionary()
_REGISTRY_LOCK = threading.Lock()


def configure(store: Store, *, ttl: float) -> None:
    """Set the heartbeat's time to live for `store` (the `lease-ttl` setting)."""
    if ttl <= 0:
        raise ValueError("a heartbeat's time to live must be positive")
    with _REGISTRY_LOCK:
        _TTLS[store] = ttl
        for keeper in _KEEPERS.get(store, {}).values():
            keeper.ttl = ttl


def ttl_of(store: Store) -> float:
    with _REGISTRY_LOCK:
        return _TTLS.get(store, DEFAULT_TTL)


def keeper(store: Store, owner: str | None = None) -> Keeper:
    """The keeper of `owner` (default: this process) in `store`, made on first use."""
    name = owner or str(current_owner())
    with _REGISTRY_LOCK:
        keepers = _KEEPERS.setdefault(store, {})
        if name not in keepers:
            keepers[name] = Keeper(store, name, _TTLS.get(store, DEFAULT_TTL))
        return keepers[name]
