"""Who owns a lease or an in-flight operation, and whether that owner is still alive.

An owner is `host:pid:start:nonce`. The process start time (from /proc) guards against pid reuse:
a recycled pid with another start time is a different, and so dead, owner. On another host we
cannot tell, and the caller falls back to the owner's heartbeat in the store (`heartbeat.py`,
`leases.owner_is_dead`).

`host` names the process table a pid belongs to, not only the machine: the hostname, then `~` and
a short fingerprint of the kernel's boot id and the pid namespace. Two sandboxes that share a
hostname (containers often do) or one machine before and after a reboot are different hosts, so a
pid is never looked up in a process table it does not belong to.
"""

from __future__ import annotations

import hashlib
import os
import socket
import uuid
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path


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
    fingerprint = hashlib.sha256(f"{boot}\0{pid_namespace}".encode()).hexdigest()[:8]
    return f"{socket.gethostname()}~{fingerprint}"


def current_owner() -> Owner:
    """This process as an owner; one nonce per process so two calls in one process share it."""
    return _owner_of(os.getpid())  # keyed by pid: a forked child is a different owner


@lru_cache(maxsize=None)
def _owner_of(pid: int) -> Owner:
    return Owner(host_identity(), pid, process_start_time(pid), uuid.uuid4().hex[:12])


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
