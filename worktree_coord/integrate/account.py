"""How each file of a merge was merged: one account per file the task changed.

Stage: after `merge_into`, for whoever reports on merges (telemetry's one `merge.file` event per
file). Input: the repository and an `IntegrationResult`. Output: a `FileAccount` per path the task
changed since the merge base (plus any other path left conflicted, e.g. a semantic conflict in a
file only integration touched), naming the strategy:

    trivial     only the task changed the file (or both sides made the same change): taken whole
    line        both sides changed it and git's three-way line merge joined them cleanly
    structured, python, data, line, binary, trivial
                the file went to the resolver (merge/): the cascade stage that produced its result
    <kind>      left conflicted without a resolver result (modify_delete, type_change, ...)

Cost: one tree-to-tree diff (libgit2 skips equal subtrees, so O(changed paths)), three entry
lookups and one object header read per changed path. Nothing is computed unless asked for.
"""

from __future__ import annotations

from typing import Any

import pygit2

from ..frozen import value_class
from .result import IntegrationResult, IntegrationState

BLOB_MODES = (0o100644, 0o100755, 0o120000)   # not trees, not submodules (whose commit is not here)


@value_class
class FileAccount:
    path: str
    strategy: str
    outcome: str      # merged | conflict
    bytes: int        # size of the file in the merged tree (0 when deleted or conflicted)

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "strategy": self.strategy, "outcome": self.outcome, "bytes": self.bytes}


def _entry(tree: pygit2.Tree, path: str) -> tuple[str, int] | None:
    try:
        entry = tree[path]
    except KeyError:
        return None
    return str(entry.id), entry.filemode


def merge_account(repo: pygit2.Repository, result: IntegrationResult) -> list[FileAccount]:
    """The per-file account of one merge (module docstring); empty when nothing was merged."""
    if result.state is IntegrationState.ALREADY_MERGED or result.tree is None:
        return []
    task = repo[pygit2.Oid(hex=result.task_commit)].peel(pygit2.Commit)
    tip = repo[pygit2.Oid(hex=result.old_tip)].peel(pygit2.Commit)
    base_id = repo.merge_base(tip.id, task.id) or pygit2.Oid(hex=result.base)
    base_tree = repo[base_id].peel(pygit2.Commit).tree
    merged_tree = repo[pygit2.Oid(hex=result.tree)].peel(pygit2.Tree)
    strategies = dict(result.strategies)
    conflicted = {c.path: c for c in result.conflicts}
    out: list[FileAccount] = []
    seen: set[str] = set()
    for delta in repo.diff(base_tree, task.tree).deltas:
        path = delta.new_file.path if delta.status != pygit2.enums.DeltaStatus.DELETED else delta.old_file.path
        seen.add(path)
        if path in conflicted:
            out.append(FileAccount(path, strategies.get(path) or conflicted[path].kind, "conflict", 0))
            continue
        if path in strategies:
            strategy = strategies[path]
        else:
            theirs, ours = _entry(task.tree, path), _entry(tip.tree, path)
            strategy = "trivial" if ours in (_entry(base_tree, path), theirs) else "line"
        merged = _entry(merged_tree, path)
        size = repo.odb.read_header(pygit2.Oid(hex=merged[0]))[1] if merged is not None and merged[1] in BLOB_MODES else 0
        out.append(FileAccount(path, strategy, "merged", int(size)))
    for path, item in sorted(conflicted.items()):
        if path not in seen:
            out.append(FileAccount(path, strategies.get(path) or item.kind, "conflict", 0))
    return out
