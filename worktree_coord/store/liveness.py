"""Who owns a lease or an in-flight operation, and whether that owner is still alive.

An owner is `host:pid:start:nonce`. The process start time (from /proc) guards against pid reuse:
a recycled pid with another start time is a different, and so dead, owner. On another host we
cannot tell, and the caller falls back to the owner's heartbeat in the store (`heartbeat.py`,
`leases.owner_is_dead`).

`host` names the process table a pid belongs to, not only the machine (process_table.py, shared
with `wtc gc`'s judgement of the git layer's scratch folders): two sandboxes that share a hostname
or one machine before and after a reboot are different hosts, so a pid is never looked up in a
process table it does not belong to.

One process is one owner, except inside `separate_owner()`: a server that runs many calls at once
in one process (`wtc mcp`) gives each call its own nonce, so two calls on one task serialize on its
lease exactly as two `wtc` processes do (a lease is re-entrant for its own owner). Liveness is still
the process's: when the server dies, every call it ran is dead with it (on another machine each
call owner beats its own heartbeat, `heartbeat.keeper` being per owner, and they lapse together).
"""

from __future__ import annotations

import contextlib
import contextvars
import os
from dataclasses import replace
from functools import lru_cache
from typing import Iterator

from ..frozen import value_class
from ..process_table import host_identity, pid_running, process_start_time


@value_class
class Owner:
    host: str
    pid: int
    start: str
    nonce: str

    def __str__(self) -> str:
        return f"{self.host}:{self.pid}:{self.start}:{self.nonce}"

    @classmethod
    def parse(cls, text: str) -> "Owner":
        host, pid, start, nonce = text.rsplit(":", 3)
        return cls(host, int(pid), start, nonce)


_call_owner: contextvars.ContextVar[Owner | None] = contextvars.ContextVar("wtc_call_owner", default=None)


def current_owner() -> Owner:
    """This process as an owner; one nonce per process so two calls in one process share it, unless
    the caller runs inside `separate_owner()`."""
    process = _owner_of(os.getpid())  # keyed by pid: a forked child is a different owner
    call = _call_owner.get()
    return call if call is not None and call.pid == process.pid else process


@contextlib.contextmanager
def separate_owner() -> Iterator[Owner]:
    """Inside the block (this thread or task: a context variable), `current_owner()` is a new owner
    of its own: this process's host, pid and start time with a fresh nonce. For a server running
    concurrent calls in one process; each call's leases and in-flight keys are then its own."""
    owner = replace(_owner_of(os.getpid()), nonce=_nonce())
    token = _call_owner.set(owner)
    try:
        yield owner
    finally:
        _call_owner.reset(token)


@lru_cache(maxsize=None)
def _owner_of(pid: int) -> Owner:
    return Owner(host_identity(), pid, process_start_time(pid), _nonce())


def _nonce() -> str:
    """12 random hex digits: what `uuid.uuid4().hex[:12]` gave (a version-4 uuid's first 48 bits are
    random; its version digit is the 13th), without uuid, which loads platform (~3 ms a call)."""
    return os.urandom(6).hex()


def is_alive(owner: Owner) -> bool | None:
    """True/False when the owner runs on this host; None when it is on another host (unknown)."""
    return pid_running(owner.host, owner.pid, owner.start)
