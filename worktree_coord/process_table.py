"""Which process table a pid belongs to, and whether a pid runs in it: what the store judges its
owners by (store/liveness.py) and what `wtc gc` judges the git layer's scratch folders by
(gitrepo/process_trees.py), so both answer the same question the same way.

`host_identity()` names the process table, not only the machine: the hostname, then `~` and a short
fingerprint of the kernel's boot id and the pid namespace. Two sandboxes that share a hostname
(containers often do) or one machine before and after a reboot are different hosts, so a pid is
never looked up in a process table it does not belong to.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from .digest import sha256


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


def pid_running(host: str, pid: int, start: str) -> bool | None:
    """True/False when `host` is this process table (the process `pid` that started at `start`, ""
    when unknown, runs or not); None when it is another host's (unknown here)."""
    if host != host_identity():
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # exists, owned by another user
    now = process_start_time(pid)
    if start and now and now != start:
        return False  # the pid was reused by another process
    if now == "" and start:
        # /proc vanished between kill() and the read: the process just ended, or it is a zombie.
        return False
    return _not_zombie(pid)


def _not_zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            raw = handle.read().decode("ascii", "replace")
    except OSError:
        return True
    state = raw[raw.rfind(")") + 2 :].split()[:1]
    return state != ["Z"]
