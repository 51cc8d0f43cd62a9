"""A cross-process exclusive lock on a file (flock), with a timeout.

Held only around short critical sections: git's registration steps (worktree add/prune, ref
deletion, config writes: the steps that race when 16-64 agents start at once) and the machine's port
registry (store/port_registry.py). The kernel drops the lock when its holder dies, so a crashed
process never leaves it held. Local filesystems only (not NFS). Below both the git layer and the
store, which may not import each other, so it sits with the vocabulary.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import time
from pathlib import Path
from typing import Iterator

from .errors import BusyError


def jitter() -> float:
    """A factor in [0.5, 1.5) for a retry's sleep, so processes waiting on the same lock, lease or ref do
    not retry in step. `random` loads here, on the first wait: every call imports the modules that
    wait (the store's leases, the ref updates), few calls wait (random costs ~1.5 ms a call)."""
    import random

    return 0.5 + random.random()


@contextlib.contextmanager
def exclusive(path: Path, *, timeout: float, what: str,
              fix: str = "retry; many agents are starting or finishing at once (or raise lock_timeout in the "
                         "configuration)") -> Iterator[int]:
    """Hold an exclusive flock on `path` (created if missing) or raise BusyError after `timeout`,
    saying `what` waited and `fix`. Yields the lock's descriptor: a child process handed it
    (`pass_fds`) holds the lock with its holder, past its holder's death, until it ends too."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + timeout
        delay = 0.002
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as error:
                if error.errno not in (errno.EAGAIN, errno.EACCES):
                    raise
            now = time.monotonic()
            if now >= deadline:
                raise BusyError(
                    f"{what}: the lock {path} was held by another process for {timeout:.0f} s",
                    fix=fix, retry_after=1.0,
                )
            # Sleep, growing to 50 ms with jitter, so waiting costs no CPU and waiters do not march in step.
            time.sleep(min(delay, deadline - now) * jitter())
            delay = min(delay * 2, 0.05)
        try:
            yield fd
        finally:
            # Released explicitly: a child still running with the descriptor (one handed it, or one
            # started beside the holder) would otherwise keep the lock after the holder let go. A
            # holder killed here never unlocks: its children hold the lock until they end.
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
