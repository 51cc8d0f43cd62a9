"""Who owns a lease or an in-flight operation, and whether that owner is still alive.

An owner is `host:pid:start:nonce`. The process start time (from /proc) guards against pid reuse:
a recycled pid with another start time is a different, and so dead, owner. On another host we
cannot tell, and the caller falls back to the owner's heartbeat in the store (`heartbeat.py`,
`leases.owner_is_dead`).

`host` names the process table a pid belongs to, not only the machine: the hostname, then `~` and
a short fingerprint of the kernel's boot id and the pid namespace. Two sandboxes that share a
hostname (containers often do) or one machine before and after a reboot are different hosts, so a
pid is never looked up in a process table it does not belong to.

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
from pathlib import Path
from typing import Iterator

from ..digest import sha256
from ..frozen import value_class


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


@lru_cache(maxsize=None)
def host_identity() -> str:
    """`hostname~fingerprint`: where a pid means this process table (see the module docstring)."""
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        boot = ""
    try:
        pid_namespace = os.readlink("/proc/self/ns/pid")
    except OSError:
        pid_namespace = ""
    fingerprint = sha256(f"{boot}\0{pid_namespace}".encode()).hexdigest()[:8]
    return f"{os.uname().nodename}~{fingerprint}"   # socket.gethostname()'s answer, without loading socket


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
    if owner.host != host_identity():
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
