"""Who owns a lease or an in-flight operation, and whether that owner is still alive.

An owner is `host:pid:start:nonce`. The process start time (from /proc) guards against pid reuse:
a recycled pid with another start time is a different, and so dead, owner. On another host we
cannot tell, and the caller falls back to the lease's expiry time.
"""

from __future__ import annotations

import os
import socket
import uuid
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
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


def process_start_time(pid: int) -> str:
    """The kernel's start time of `pid` (clock ticks since boot), or "" when unknown."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            raw = handle.read().decode("ascii", "replace")
    except OSError:
        return ""
    # The command name (field 2) may hold spaces and parentheses: split after the last ')'.
    fields = raw[raw.rfind(")") + 2 :].split()
    return fields[19] if len(fields) > 19 else ""


def current_owner() -> Owner:
    """This process as an owner; one nonce per process so two calls in one process share it."""
    return _owner_of(os.getpid())  # keyed by pid: a forked child is a different owner


@lru_cache(maxsize=None)
def _owner_of(pid: int) -> Owner:
    return Owner(socket.gethostname(), pid, process_start_time(pid), uuid.uuid4().hex[:12])


def is_alive(owner: Owner) -> bool | None:
    """True/False when the owner runs on this host; None when it is on another host (unknown)."""
    if owner.host != socket.gethostname():
        return None
    try:
        os.kill(owner.pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # exists, owned by another user
    start = process_start_time(owner.pid)
    if owner.start and start and start != owner.start:
        return False  # the pid was reused by another process
    if start == "" and owner.start:
        # /proc vanished between kill() and the read: the process just ended, or it is a zombie.
        return False
    return _not_zombie(owner.pid)


def _not_zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            raw = handle.read().decode("ascii", "replace")
    except OSError:
        return True
    state = raw[raw.rfind(")") + 2 :].split()[:1]
    return state != ["Z"]
