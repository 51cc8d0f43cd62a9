"""Landing: fast-forward a target branch to the integration tip, never over a concurrent update.

Stage: land. Input: the target ref, the integration tip, the target tip the caller checked.
Output: a `FastForwardResult`, or UsageError (not a fast-forward), StaleRef (the target moved since
the caller looked), NotFoundError (no such target). The ref move itself is the git layer's
compare-and-swap (gitrepo.refs), so a land and a merge queue never overwrite each other.
"""

from __future__ import annotations

import pygit2

from ..errors import NotFoundError, UsageError
from ..gitrepo.refs import compare_and_swap, read_ref
from .result import FastForwardResult


def fast_forward(repo: pygit2.Repository, target_ref: str, new: pygit2.Oid | str,
                 expected_old: pygit2.Oid | str, *, message: str = "worktree_coord: land",
                 signature: pygit2.Signature | None = None, timeout: float = 30.0) -> FastForwardResult:
    """Fast-forward `target_ref` from `expected_old` to `new` by compare-and-swap (for `wtc land`).

    Refuses (UsageError) when `new` does not descend from `expected_old` -- that would not be a fast
    forward -- and raises StaleRef when the target moved since the caller looked (the caller says
    how to bring integration up to date). NotFoundError when the target ref does not exist.
    """
    new_oid = pygit2.Oid(hex=str(new)) if not isinstance(new, pygit2.Oid) else new
    old_oid = pygit2.Oid(hex=str(expected_old)) if not isinstance(expected_old, pygit2.Oid) else expected_old
    if read_ref(repo, target_ref) is None:
        raise NotFoundError(f"{target_ref} does not exist", fix="name an existing branch to land onto")
    if new_oid != old_oid and not repo.descendant_of(new_oid, old_oid):
        raise UsageError(
            f"{new_oid} does not descend from {old_oid}: moving {target_ref} there is not a fast-forward",
            fix="merge the target into the integration branch first, then land again",
        )
    compare_and_swap(repo, target_ref, new_oid, old_oid, message=message, signature=signature,
                     timeout=timeout)
    return FastForwardResult(target_ref, str(old_oid), str(new_oid))
