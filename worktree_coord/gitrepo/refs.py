"""Move a ref only if it still points where we think: compare-and-swap with libgit2's ref lock.

The one place wtc moves a ref (the integration branch, a task branch, a land): a remote-backed run
teaches this module about pushes with a lease, and every caller gets it.

Stage: publish. Input: a ref name, the new commit, the commit we expect the ref to hold now.
Output: the ref moved (reflog message written), or `StaleRef` carrying the current value, or
`BusyError` when the lock stayed contended past the timeout. Invariant: the ref is never moved from
a value other than `expected_old`, so a concurrent writer's update is never overwritten.

How: `repo.transaction()` takes `<ref>.lock` (O_EXCL), we compare the ref's current value while
holding it (nobody else can change it then), and set it; leaving the `with` block commits, an
exception frees the lock. libgit2 fails at once on a held lock, unlike git's 100 ms wait, so lock
errors are retried here with jittered exponential backoff (research/git-layer.md §1: 16 processes
x 20 updates, 2,152 lock collisions, no lost update).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

from ..crashpoints import crash_point
from ..errors import BusyError, UsageError
from ..filelock import jitter
from .git_locks import clear_if_stale
from .held import write_held

if TYPE_CHECKING:
    import pygit2


class StaleRef(Exception):
    """The ref no longer holds the expected value; `current` is what it holds (None = missing)."""

    def __init__(self, ref: str, expected: pygit2.Oid | None, current: pygit2.Oid | None):
        super().__init__(f"{ref} is at {current} but {expected} was expected")
        self.ref = ref
        self.expected = expected
        self.current = current


class _SignaturePointer:
    """What pygit2 1.21's `ReferenceTransaction.set_target` actually dereferences.

    It passes `signature._pointer` to libgit2, but `Signature._pointer` is the pointer's bytes, not a
    cffi pointer, so passing a real Signature raises TypeError. This wraps the same pointer as cdata
    (the way pygit2's own filter.py unpacks `Blob._pointer`). The reflog entry gets the signer's
    name and email with the current time.
    """

    def __init__(self, signature: pygit2.Signature):
        import pygit2
        from pygit2._libgit2 import ffi  # pygit2's own cffi handle

        self._signature = pygit2.Signature(signature.name, signature.email)  # now, not commit time
        self._cell = ffi.new("git_signature **")
        ffi.buffer(self._cell)[:] = self._signature._pointer[:]
        self._pointer = self._cell[0]


# A ref's lock is held for the microseconds of one write. One older than this was left by a process
# killed inside the write (SIGKILL, the OOM killer): nothing will ever remove it, and every later
# update of the ref would fail on it (a fanout runner killed while it wrote a task's merge candidate
# left that task unmergeable). Far above any live write, far below a person's patience.
STALE_REF_LOCK_SECONDS = 10.0


def is_lock_error(exc: Exception) -> bool:
    text = str(exc).lower()
    return "lock" in text


def clear_stale_lock(repo: pygit2.Repository, ref: str, *, older_than: float | None = None) -> bool:
    """Remove `<ref>.lock` when it is older than `older_than` seconds and no live process has it
    open (left by a killed writer: a live libgit2 writer keeps it open; git, for the moment between
    its write and its rename); True when it did, with a warning (git_locks.warnings_given)."""
    bound = STALE_REF_LOCK_SECONDS if older_than is None else older_than
    return clear_if_stale(Path(repo.path) / f"{ref}.lock", bound) is not None


def read_ref(repo: pygit2.Repository, ref: str) -> pygit2.Oid | None:
    """The commit a ref points to (peeling a symbolic ref), or None if it does not exist."""
    reference = repo.references.get(ref)
    if reference is None:
        return None
    return reference.resolve().target


def compare_and_swap(repo: pygit2.Repository, ref: str, new: pygit2.Oid,
                     expected_old: pygit2.Oid | None, *, message: str,
                     signature: pygit2.Signature | None = None, timeout: float = 30.0) -> None:
    """Set `ref` to `new` if it holds `expected_old` (None: only if it does not exist yet).

    Raises StaleRef when the ref holds something else, BusyError when its lock stays held by
    others for `timeout` seconds.
    """
    import pygit2
    if not ref.startswith("refs/"):
        raise UsageError(f"ref {ref!r} is not a full ref name", fix="pass e.g. 'refs/heads/wtc/run1/integration'")
    write_held()   # a ref on disk never names an object held in memory only (held.py)
    deadline = time.monotonic() + timeout
    delay = 0.001
    while True:
        try:
            with repo.transaction() as txn:
                txn.lock_ref(ref)
                crash_point("ref.locked")
                current = read_ref(repo, ref)
                if current != expected_old:
                    raise StaleRef(ref, expected_old, current)
                txn.set_target(ref, new, message=message,
                               signature=_SignaturePointer(signature) if signature else None)  # type: ignore[arg-type]
            return
        except StaleRef:
            raise
        except (pygit2.GitError, OSError, ValueError) as exc:
            if not is_lock_error(exc):
                raise
            if clear_stale_lock(repo, ref):
                continue
            if time.monotonic() >= deadline:
                raise BusyError(
                    f"{ref} stayed locked for {timeout:.0f} s ({exc})",
                    retry_after=1.0,
                    fix=f"retry; if no merge is running, remove a stale {ref}.lock in the git dir",
                ) from None
            # Jitter spreads out processes that collided so they do not collide again in lockstep.
            time.sleep(delay * jitter())
            delay = min(delay * 2, 0.05)
