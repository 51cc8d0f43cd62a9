"""The merge queue's bookkeeping: which commit of a task merges, in what order, and what a conflict
report says. The git work itself (tree merge, merge commit, compare-and-swap of the ref) is
`worktree_coord.integrate`; conflicted files go through the structured merge engine.

Invariants:
- reserved-file edits never reach integration through a merge: a task whose branch edits them is
  merged through a derived commit (child of the task tip) that puts those paths back as they were at
  the task's base; the edits wait for consolidation;
- derived commits are deterministic (fixed identity and time), so a retry after a crash derives the
  same commit and the "already merged" check recognises it;
- the drain order is deterministic: tasks whose owned packages are dependencies of other tasks'
  packages first, then finish time, then name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

import pygit2

from ..boundary import matches
from ..boundary.globs import literal_prefix
from ..integrate import FileToResolve, IntegrationResult
from ..integrate.trees import update_tree
from ..merge.result import FileMerge
from ..model import TaskRecord

MERGE_IDENTITY = ("worktree_coord", "wtc@worktree-coord.invalid")
EXCERPT_LINES = 12


def signature(when: int = 0) -> pygit2.Signature:
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


def structured_resolver(files: Sequence[FileToResolve]) -> Mapping[str, FileMerge]:
    """Resolve conflicted files with the structured merge engine (loaded on first conflict)."""
    from ..merge import merge_file

    return {f.path: merge_file(f.base, f.ours, f.theirs, f.path, labels=("integration", "base", "task"))
            for f in files}


def conflict_report(result: IntegrationResult, merged_tasks: Iterable[TaskRecord]) -> list[dict[str, Any]]:
    """One entry per conflict: path, declaration, lines, the three versions, and which merged tasks
    last changed that file (most recent first)."""
    touched: dict[str, list[str]] = {}
    ordered = sorted(merged_tasks, key=lambda t: (t.result.get("merge", {}).get("at", 0), t.task_id), reverse=True)
    for task in ordered:
        for change in task.result.get("changed", []):
            touched.setdefault(change["path"], []).append(task.task_id)
    report: list[dict[str, Any]] = []
    for item in result.conflicts:
        blocks = item.resolution.conflicts if item.resolution is not None else ()
        base = {"path": item.path, "kind": item.kind, "last_changed_by": touched.get(item.path, [])}
        if not blocks:
            report.append(base | {"declaration": "", "start_line": None, "end_line": None,
                                  "base": "", "ours": "", "theirs": ""})
            continue
        for block in blocks:
            report.append(base | {
                "declaration": block.declaration, "start_line": block.start_line, "end_line": block.end_line,
                "base": _excerpt(block.base), "ours": _excerpt(block.ours), "theirs": _excerpt(block.theirs),
            })
    return report


def _excerpt(text: str) -> str:
    lines = text.splitlines(keepends=True)
    if len(lines) <= EXCERPT_LINES:
        return text
    return "".join(lines[:EXCERPT_LINES]) + f"... ({len(lines) - EXCERPT_LINES} more lines)\n"


@dataclass(frozen=True)
class Package:
    name: str
    path: str
    depends_on: tuple[str, ...]


def drain_order(tasks: Sequence[TaskRecord], packages: Sequence[Package]) -> list[TaskRecord]:
    """Merge order: a task owning a package that another task's package depends on goes first; ties
    (and tasks without packages) by finish time, then name. Cycles fall back to that tie order."""
    import networkx as nx  # only a drain needs the graph

    owners: dict[str, set[str]] = {}
    for task in tasks:
        for package in packages:
            if _owns_package(task, package):
                owners.setdefault(package.name, set()).add(task.task_id)
    graph = nx.DiGraph()
    graph.add_nodes_from(t.task_id for t in tasks)
    by_name = {p.name: p for p in packages}
    for package in packages:
        for dependency in package.depends_on:
            if dependency not in by_name:
                continue
            for first in owners.get(dependency, ()):
                for later in owners.get(package.name, ()):
                    if first != later:
                        graph.add_edge(first, later)
    rank = {t.task_id: (t.finished_at or t.updated_at, t.task_id) for t in tasks}
    while True:
        try:
            order = list(nx.lexicographical_topological_sort(graph, key=lambda n: rank[n]))
            break
        except nx.NetworkXUnfeasible:
            cycle = nx.find_cycle(graph)
            # drop the cycle's latest edge (by the tie order) so the rest of the graph still counts
            graph.remove_edge(*max(cycle, key=lambda edge: (rank[edge[0]], rank[edge[1]]))[:2])
    by_id = {t.task_id: t for t in tasks}
    return [by_id[n] for n in order]


def _owns_package(task: TaskRecord, package: Package) -> bool:
    probe = package.path.rstrip("/") + "/package.json"
    if matches(task.boundary.own, probe) or matches(task.boundary.own, package.path.rstrip("/") + "/x"):
        return True
    return any(literal_prefix(g) and literal_prefix(g).startswith(package.path.rstrip("/") + "/")
               for g in task.boundary.own)
