"""The merge queue's git engine: merge one task commit into the integration ref, atomically.

Commits and refs in, frozen result dataclasses out; nothing here knows about runs, tasks or the
store. Pipeline of one merge (engine.py has the details and the invariants):

    mergeable.py  the commit of a task that merges: its tip, or a child without its reserved-file edits
    history.py    does the task descend from the pinned commit? is it already merged?
    fastpath.py   pygit2 merge that rewrites only the subtrees the task changed
    (gitrepo)     git merge-tree (persistent --stdin process) when both sides touched a path
    resolve.py    conflicted files -> resolver (default: git's diff3 line merge; `structured_resolver`
                  hands them to the structured merge engine)
    trees.py      write resolved blobs into the merged tree by path
    (gitrepo)     compare-and-swap of the ref
    fastforward.py  fast_forward for `land`

Git itself is run only by the git layer (gitrepo.mergetree, gitrepo.linemerge, gitrepo.refs);
this package decides what a merge means. Their names are re-exported here for callers of the
engine.

Public API:
    merge_into(repo, ref, task_commit, base, *, message, author, committer=None, resolve=None,
               check=None, check_blocks=True) -> IntegrationResult
    already_merged(repo, ref, task_commit) -> bool
    fast_forward(repo, target_ref, new, expected_old, *, message=...) -> FastForwardResult
    Integrator(repo)           the same as methods, for callers that manage their own instances
    Integrator.drain(ref, tasks=1)  a `Drain`: consecutive merges onto the last one's commit, the ref
                               moved once by `publish()` (one compare-and-swap from the tip it started
                               from); from HOLD_FROM tasks its objects wait in memory for one pack
    MergeTreeProcess(repo_path) the persistent `git merge-tree --stdin` client

The resolver contract (`resolve=`): a callable taking a sequence of `FileToResolve` (path, base,
ours, theirs as bytes; ours = integration, theirs = task) and returning a mapping path -> FileMerge
(worktree_coord.merge.result). Paths missing from the mapping, or not clean, stay conflicted.
Only content and add/add conflicts of regular files are offered; modify/delete, type changes and
submodules are reported as conflicts without asking.

The check contract (`check=`): a callable taking (repo, merge base, tip, task commit, merged tree)
and returning semantic findings (worktree_coord.merge.result.SemanticFinding), run on a clean
merged tree before the commit is written: blocking (`check_blocks`) they make the merge a
CONFLICT of kind `semantic`; otherwise they are reported on the MERGED result.

Process model: the module-level functions keep one Integrator per (process, thread, repository)
and one merge-tree process per (process, repository), so a long-lived coordinator pays the git
spawn and the integration-history walk once; a one-shot CLI process pays them once per call
(about 10 ms + 25 ms at 1,000 merged tasks).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy_names import lazy_names

# The names load with their module on first use (PEP 562): `task finish` needs `mergeable_commit`,
# `task check` the tree writer (trees.py), neither the engine, the fast path nor the merge account
# (issue 36, start-up).
_FROM = {
    "FileAccount": ".account", "merge_account": ".account", "Drain": ".engine", "Integrator": ".engine",
    "already_merged": ".engine", "close_all": ".engine", "conflict_kind": ".engine", "merge_into": ".engine",
    "NotFast": ".fastpath", "fast_merge_trees": ".fastpath", "MERGE_IDENTITY": ".mergeable",
    "mergeable_commit": ".mergeable", "signature": ".mergeable", "MergeTreeProcess": "..gitrepo.mergetree",
    "StagedPath": "..gitrepo.mergetree", "StageEntry": "..gitrepo.mergetree",
    "TreeMergeOutcome": "..gitrepo.mergetree", "merge_tree_once": "..gitrepo.mergetree", "StaleRef": "..gitrepo.refs",
    "compare_and_swap": "..gitrepo.refs", "read_ref": "..gitrepo.refs", "fast_forward": ".fastforward",
    "FileToResolve": ".resolve", "Resolver": ".resolve", "labelled_resolver": ".resolve", "line_resolve": ".resolve",
    "structured_resolver": ".resolve", "ConflictedFile": ".result", "FastForwardResult": ".result",
    "IntegrationResult": ".result", "IntegrationState": ".result", "MergePath": ".result", "TreeCheck": ".result",
    "semantic_conflicts": ".result",
}

if TYPE_CHECKING:
    from .account import FileAccount, merge_account
    from .engine import Drain, Integrator, already_merged, close_all, conflict_kind, merge_into
    from .fastpath import NotFast, fast_merge_trees
    from .mergeable import MERGE_IDENTITY, mergeable_commit, signature
    from ..gitrepo.mergetree import MergeTreeProcess, StagedPath, StageEntry, TreeMergeOutcome, merge_tree_once
    from ..gitrepo.refs import StaleRef, compare_and_swap, read_ref
    from .fastforward import fast_forward
    from .resolve import FileToResolve, Resolver, labelled_resolver, line_resolve, structured_resolver
    from .result import (
        ConflictedFile,
        FastForwardResult,
        IntegrationResult,
        IntegrationState,
        MergePath,
        TreeCheck,
        semantic_conflicts,
    )


__getattr__ = lazy_names(globals(), _FROM)


__all__ = [
    "FileAccount",
    "merge_account",
    "MERGE_IDENTITY",
    "ConflictedFile",
    "Drain",
    "FastForwardResult",
    "FileToResolve",
    "IntegrationResult",
    "IntegrationState",
    "Integrator",
    "MergePath",
    "MergeTreeProcess",
    "NotFast",
    "Resolver",
    "StaleRef",
    "StageEntry",
    "StagedPath",
    "TreeCheck",
    "TreeMergeOutcome",
    "already_merged",
    "close_all",
    "conflict_kind",
    "compare_and_swap",
    "fast_forward",
    "fast_merge_trees",
    "line_resolve",
    "merge_into",
    "merge_tree_once",
    "labelled_resolver",
    "mergeable_commit",
    "read_ref",
    "semantic_conflicts",
    "signature",
    "structured_resolver",
]
