"""What of a task merges: its tip, or a derived commit without its reserved-file edits.

Stage: before the tree merge (the merge queue's and the check's dry run alike). Input: the task's
tip, its base, the reserved paths it edited. Output: a commit id. Reserved-file edits (root
manifests, lockfiles) never reach a target through a merge: they wait for the consolidation phase
as intents, so the commit that merges puts those paths back as they were at the base.

Invariants:
- the derived commit is a child of the tip and is deterministic (fixed identity, the tip's commit
  time), so a retry after a crash derives the same commit and "already merged" recognises it;
- nothing but unreachable objects is written: no ref moves here.
"""

from __future__ import annotations

from typing import Sequence

import pygit2

from .trees import update_tree

MERGE_IDENTITY = ("worktree_coord", "wtc@worktree-coord.invalid")


def signature(when: int = 0) -> pygit2.Signature:
    """The identity of the commits wtc itself writes (merges, derived commits, consolidation steps)."""
    name, email = MERGE_IDENTITY
    return pygit2.Signature(name, email, when, 0) if when else pygit2.Signature(name, email)


def mergeable_commit(repo: pygit2.Repository, tip: str, base: str, reserved_paths: Sequence[str], task: str) -> str:
    """The commit to merge for a task: its tip, or a deterministic child of it with every reserved
    path put back as it was at `base` (deleted if it did not exist there)."""
    if not reserved_paths:
        return tip
    base_tree = repo[pygit2.Oid(hex=base)].peel(pygit2.Tree)
    tip_commit = repo[pygit2.Oid(hex=tip)].peel(pygit2.Commit)
    changes: dict[str, tuple[pygit2.Oid, int] | None] = {}
    for path in reserved_paths:
        try:
            entry = base_tree[path]
            changes[path] = (entry.id, entry.filemode)
        except KeyError:
            changes[path] = None
    tree = update_tree(repo, tip_commit.tree_id, changes)
    when = tip_commit.commit_time  # fixed: the same inputs give the same commit id on a retry
    sig = signature(when)
    message = (f"wtc: {task} without its reserved-file edits\n\n"
               "These paths wait for the consolidation phase:\n" + "".join(f"  {p}\n" for p in reserved_paths))
    return str(repo.create_commit(None, sig, sig, message, tree, [tip_commit.id]))
