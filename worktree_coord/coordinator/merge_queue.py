"""The merge queue's bookkeeping: in what order tasks merge, and what a conflict report says.

The git work itself is `worktree_coord.integrate`: which commit of a task merges
(`mergeable_commit`: reserved-file edits never reach integration through a merge, they wait for
consolidation), the tree merge, the merge commit, the compare-and-swap of the ref; conflicted
files go through `structured_resolver` (the structured merge engine). Those names are re-exported
here because the coordinator reaches the queue's vocabulary as `merge_queue.X`.

Invariants:
- the drain order is deterministic: tasks whose owned packages are dependencies of other tasks'
  packages first, then finish time, then name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Sequence

from ..boundary import matches
from ..boundary.globs import literal_prefix
from ..frozen import value_class
from ..integrate import IntegrationResult, Resolver, labelled_resolver
from ..integrate import MERGE_IDENTITY, mergeable_commit, signature, structured_resolver  # noqa: F401 (re-exported)
from ..merge.result import SemanticFinding, name_word
from ..model import TaskRecord

if TYPE_CHECKING:
    import pygit2

    from ..gitrepo.repository import GitRepo
    from ..integrate import TreeCheck

EXCERPT_LINES = 12


def integration_resolver(run: str, task: str) -> Resolver:
    """Merging task `task` into run `run`'s integration branch: ours = integration, theirs = the task."""
    return labelled_resolver(f"integration {run}", f"task {task}")


def update_resolver(run: str, task: str) -> Resolver:
    """`task update`, integration merged into the task's branch: ours = the task, theirs = integration."""
    return labelled_resolver(f"task {task}", f"integration {run}")


def semantic_check(task: str, pending: Any = None, git: GitRepo | None = None, *, semantic: bool = True,
                   left_behind: bool = False, unanswered: Callable[[str], Exception] | None = None) -> TreeCheck:
    """The checks of a task's merge into integration. `semantic`: the post-merge semantic check
    (merge.check_tree_merge), the sides labelled `integration` and the task's name. `pending`
    (`pending_merges`) are the merges `wtc task update` made into the task's branch that are
    checked again here: one it found names broken in, and one it left conflict markers in, which
    the agent resolved by hand. Once the task's branch holds such a merge, integration's side of it
    is behind the merge base and the queue's own three-way view no longer sees it, so each is
    checked again with the queue's merged tree as its result (what the agent fixed or resolved
    since is in it): `recheck_pending`. `left_behind` (with `git`): uses the merged tree keeps, in
    code no side changed, of names the task removed (left_behind.left_behind_at_merge); a use
    the semantic check already names is not named twice; `unanswered(reason)` is raised when that
    look gives no answer (too many files to read), None: the merge goes on without it."""
    import pygit2
    merges = pending_merges(pending)

    def check(repo: pygit2.Repository, base: pygit2.Oid, tip: pygit2.Oid, task_commit: pygit2.Oid,
              tree: pygit2.Oid) -> tuple[SemanticFinding, ...]:
        from ..merge import check_tree_merge

        found: list[SemanticFinding] = []
        if semantic:
            from ..merge.checks.merge_index import index_folder, shared_index

            # Kept per integration tip and by content, on disk for the next process (merge_index.py).
            index = shared_index(index_folder(repo))
            found = list(check_tree_merge(repo, base, tip, task_commit, tree, labels=("integration", "base", task),
                                          index=index))
            found = _unseen(found, recheck_pending(repo, git, task, merges, str(tree)))
        if left_behind and git is not None:
            from ..check.left_behind import left_behind_at_merge

            found = _unseen(found, left_behind_at_merge(git, str(base), str(task_commit), str(tree), task,
                                                        unanswered=unanswered))
        return tuple(found)
    return check


def recheck_pending(repo: pygit2.Repository, git: GitRepo | None, task: str, merges: list[dict[str, Any]],
                    tree: str) -> list[SemanticFinding]:
    """Each pending update merge checked again with `tree` (a tree or commit id) as its result: the
    names it broke that `tree` still does not resolve, and for one the agent resolved by hand (its
    `paths`: the files it left markers in), a definition the integration side held that the
    resolution dropped while `tree` still uses it (left_behind.dropped_by_resolution)."""
    from ..merge import check_tree_merge
    from ..check.left_behind import dropped_by_resolution

    found: list[SemanticFinding] = []
    for merge in merges:
        found = _unseen(found, check_tree_merge(repo, merge["base"], merge["ours"], merge["theirs"], tree,
                                                labels=(task, "base", "integration")))
        if git is not None and merge.get("paths"):
            found = _unseen(found, dropped_by_resolution(git, merge, merge["paths"], tree, task))
    return found


def _unseen(found: list[SemanticFinding], more: Iterable[SemanticFinding]) -> list[SemanticFinding]:
    """`found` and the findings of `more` at a place and name `found` does not hold yet."""
    seen = {(f.use_path, f.use_line, f.name) for f in found}
    out = list(found)
    for finding in more:
        if (finding.use_path, finding.use_line, finding.name) not in seen:
            seen.add((finding.use_path, finding.use_line, finding.name))
            out.append(finding)
    return out


def pending_merges(pending: Any) -> list[dict[str, str]]:
    """The update merges a task's `pending_semantic` holds ({base, ours, theirs} commits each, and
    `found`: whether names broke in it, else the agent resolved its markers): a list, or the one
    mapping a task recorded before there could be several (always a merge that broke names)."""
    if not pending:
        return []
    return [{"found": True} | dict(m) for m in ([pending] if isinstance(pending, Mapping) else pending)]


def semantic_report(findings: Iterable[SemanticFinding], task: str, merged_tasks: Iterable[TaskRecord],
                    added_lines: TaskLines | None = None) -> list[dict[str, Any]]:
    """Each finding with the two tasks named where known: `used_by_task`/`removed_by_task` is the
    task being merged on its side; on the integration side, the merged task whose own change added
    the line that side wrote (the new use; a duplicate's declaration line) when `added_lines` can
    tell; for a removal, which leaves no line to look for, the merged tasks whose own version of the
    file no longer names it; else the merged task that last changed the file."""
    touched = _last_changed(merged_tasks)
    out = []
    for finding in findings:
        row = finding.to_json()
        for role, path in (("removed_by", finding.definition_path), ("used_by", finding.use_path)):
            side = getattr(finding, role)
            if side == task:
                row[f"{role}_task"] = task
                continue
            if role == "used_by" and finding.problem == "left_behind":
                row["used_by_task"] = None   # code no side changed: nobody of this run wrote the use
                continue
            candidates = touched.get(path) or []
            if role == "removed_by" and finding.problem != "duplicate" and len(candidates) > 1 and added_lines:
                # Of the tasks that changed the definition's file, the ones whose own change took
                # the name out removed it (trpc: a task that moved formatter.ts, not the one that
                # later edited the moved file, which was named for being the last to touch it).
                gone = [name for name in candidates if added_lines.removed(name, path, finding.name)]
                candidates = gone or candidates
            # What that side wrote: the use; for a duplicate, the declaration's first line (both
            # copies usually share it, and a merged task's change added it).
            line = finding.use if role == "used_by" else \
                (finding.definition.splitlines()[0] if finding.problem == "duplicate" and finding.definition else "")
            wrote = _written_by(line, "", path, candidates, added_lines) if line.strip() else []
            row[f"{role}_task"] = (wrote or candidates or [None])[0]
        out.append(row)
    return out


def _last_changed(merged_tasks: Iterable[TaskRecord]) -> dict[str, list[str]]:
    """path -> the merged tasks that changed it, most recent merge first."""
    touched: dict[str, list[str]] = {}
    ordered = sorted(merged_tasks, key=lambda t: (t.result.get("merge", {}).get("at", 0), t.task_id), reverse=True)
    for task in ordered:
        for change in task.result.get("changed", []):
            touched.setdefault(change["path"], []).append(task.task_id)
    return touched


def _written_by(integration_side: str, base: str, path: str, candidates: list[str],
                added_lines: Callable[[str, str], set[str]] | None) -> list[str]:
    """The merged tasks whose own change added a line of the integration side of one conflict
    block (a line of `integration_side` not in `base`): who to ask about that side, rather than every task
    that touched the file. Empty when unknown (no reader, or that side only deletes)."""
    if added_lines is None:
        return []
    wanted = {line.strip() for line in integration_side.splitlines()} - {line.strip() for line in base.splitlines()} - {""}
    return [name for name in candidates if wanted & added_lines(name, path)] if wanted else []


def conflict_report(result: IntegrationResult, merged_tasks: Iterable[TaskRecord], task: str = "",
                    added_lines: TaskLines | None = None) -> list[dict[str, Any]]:
    """One entry per conflict: path, declaration, lines, the three versions, which merged tasks
    last changed that file (`last_changed_by`, most recent first) and, when `added_lines(task,
    path)` can say which lines a merged task's own change added, which of them wrote the
    integration side of that block (`written_by`); a semantic conflict also carries its finding
    (`semantic`: the name, the definition's old place, the new use, and both tasks)."""
    merged_tasks = list(merged_tasks)
    touched = _last_changed(merged_tasks)
    report: list[dict[str, Any]] = []
    for item in result.conflicts:
        blocks = item.resolution.conflicts if item.resolution is not None else ()
        # Why the structured merge kept git's conflict (a guard's sentence, a fallback's reason): an
        # agent resolving it reads whether the two sides really overlap or the engine could not tell.
        from ..check.unrelocked_lockfiles import merge_reasons

        why = merge_reasons(item.path, item.resolution.notes if item.resolution is not None else ())
        base = {"path": item.path, "kind": item.kind, "last_changed_by": touched.get(item.path, []), "why": why}
        if item.kind == "semantic":
            findings = [b.finding for b in blocks if b.finding is not None]
            for block, row in zip(blocks, semantic_report(findings, task, merged_tasks, added_lines)):
                # A use no side changed of a name the task removed is a finding of its own kind.
                kind = "left_behind" if row.get("problem") == "left_behind" else item.kind
                report.append(base | {"kind": kind, "declaration": block.declaration, "start_line": block.start_line,
                                      "end_line": block.end_line, "base": _excerpt(block.base), "ours": "",
                                      "theirs": block.theirs, "semantic": row})
            continue
        if not blocks:
            report.append(base | {"declaration": "", "start_line": None, "end_line": None,
                                  "base": "", "ours": "", "theirs": ""})
            continue
        for block in blocks:
            # git names the file's conflict ("content"); the structured merge names each block's
            # (delete_modify: one side deleted the member the other changed), as `task check` does.
            kind = block.kind if item.kind == "content" and block.kind else item.kind
            report.append(base | {
                "kind": kind, "declaration": block.declaration, "start_line": block.start_line, "end_line": block.end_line,
                "base": _excerpt(block.base), "ours": _excerpt(block.ours), "theirs": _excerpt(block.theirs),
                # The queue merges the task (theirs) onto the integration tip (ours).
                "written_by": _written_by(block.ours, block.base, item.path, touched.get(item.path, []),
                                          added_lines),
            })
    return report


def added_lines_reader(repo: pygit2.Repository, base: str, merged: Iterable[TaskRecord]) -> "TaskLines":
    """What the merged tasks' own commits hold (`TaskLines`), read from objects this clone holds
    (never a fetch: an unknown task or blob gives nothing)."""
    return TaskLines(repo, base, {t.task_id: t.result.get("commit") for t in merged})


class TaskLines:
    """What merged tasks' own commits hold (`added_lines_reader`): called as `(task, path)`, the
    lines that task added to path; `removed(task, path, name)`, whether its own change took the
    name out. A task that ran `wtc task update` merged the integration tip into its branch: the
    versions it took that way (the other parents of the merges on its branch) are not its own
    change, so what they added or removed is not put down to it (vue: a task that updated after
    another task renamed `looseToNumber` was named as the one that removed it)."""

    def __init__(self, repo: pygit2.Repository, base: str, commits: Mapping[str, str | None]):
        self._repo = repo
        self._base = base
        self._commits = dict(commits)
        # Kept per question (the pin's version is read once, whichever task asks) in plain dicts:
        # functools.cache over a bound method held this object in a cycle, left to the collector at
        # every conflict of a drain, which freezes what is alive (merge_index.settle)
        self._lines_of: dict[tuple[str | None, str], frozenset[str]] = {}
        self._taken_of: dict[str, tuple[str, ...]] = {}

    def _lines(self, commit: str | None, path: str) -> frozenset[str]:
        found = self._lines_of.get((commit, path))
        if found is None:
            found = self._lines_of[(commit, path)] = self._read_lines(commit, path)
        return found

    def _taken(self, commit: str) -> tuple[str, ...]:
        found = self._taken_of.get(commit)
        if found is None:
            found = self._taken_of[commit] = self._taken_in(commit)
        return found

    def _read(self, commit: str | None, path: str) -> bytes | None:
        import pygit2
        repo = self._repo
        try:
            entry = repo[commit].peel(pygit2.Tree)[path] if commit and commit in repo else None
        except KeyError:
            return None
        if entry is None or entry.type_str != "blob" or entry.id not in repo:
            return None
        return repo[entry.id].read_raw()

    def _read_lines(self, commit: str | None, path: str) -> frozenset[str]:
        data = self._read(commit, path)
        return frozenset() if data is None else \
            frozenset(line.strip() for line in data.decode("utf-8", "replace").splitlines())

    def _taken_in(self, commit: str) -> tuple[str, ...]:
        """The commits a task's branch merged in (`task update`), latest first: the other parents
        of the merge commits on its first-parent line, back to the pin."""
        taken: list[str] = []
        repo, seen = self._repo, 0
        current = repo.get(commit)
        while current is not None and str(current.id) != self._base and seen < 10_000:
            parents = list(current.parent_ids)
            taken.extend(str(p) for p in parents[1:])
            current = repo.get(parents[0]) if parents and parents[0] in repo else None
            seen += 1
        return tuple(taken)

    def __call__(self, task_id: str, path: str) -> set[str]:
        commit = self._commits.get(task_id)
        lines = set(self._lines(commit, path) - self._lines(self._base, path))
        for taken in self._taken(commit) if commit and commit in self._repo else ():
            lines -= self._lines(taken, path)
        return lines

    def _names(self, commit: str | None, path: str, name: str) -> bool:
        from ..merge.checks.reach import spelling   # here: the semantic check's module loads with its use

        data = self._read(commit, path)
        return data is not None and spelling([name_word(name).encode()]).search(data) is not None

    def removed(self, task_id: str, path: str, name: str) -> bool | None:
        """Did the task's own change take `name` (its last part, as a word) out of `path`: the
        version it last started from (the pin, or the integration tip it last merged in) names it
        and its own version does not. None: its commit is not known here."""
        commit = self._commits.get(task_id)
        if not commit or commit not in self._repo:
            return None
        taken = self._taken(commit)
        return self._names(taken[0] if taken else self._base, path, name) and not self._names(commit, path, name)


def _excerpt(text: str) -> str:
    lines = text.splitlines(keepends=True)
    if len(lines) <= EXCERPT_LINES:
        return text
    return "".join(lines[:EXCERPT_LINES]) + f"... ({len(lines) - EXCERPT_LINES} more lines)\n"


@value_class
class Package:
    name: str
    path: str
    depends_on: tuple[str, ...]


def drain_order(tasks: Sequence[TaskRecord], packages: Sequence[Package]) -> list[TaskRecord]:
    """Merge order: a task owning a package that another task's package depends on goes first; ties
    (and tasks without packages) by finish time, then name. Cycles fall back to that tie order."""
    owners: dict[str, set[str]] = {}
    for task in tasks:
        for package in packages:
            if _owns_package(task, package):
                owners.setdefault(package.name, set()).add(task.task_id)
    by_name = {p.name: p for p in packages}
    edges = [(first, later) for package in packages for dependency in package.depends_on if dependency in by_name
             for first in owners.get(dependency, ()) for later in owners.get(package.name, ()) if first != later]
    rank = {t.task_id: (t.finished_at or t.updated_at, t.task_id) for t in tasks}
    if not edges:   # the tie order alone: what the sort below gives a graph without edges, without networkx
        return sorted(tasks, key=lambda t: rank[t.task_id])
    import networkx as nx  # only a drain whose tasks' packages depend on each other needs the graph

    graph = nx.DiGraph()
    graph.add_nodes_from(t.task_id for t in tasks)
    graph.add_edges_from(edges)
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
    root = package.path.rstrip("/")
    prefixes = [literal_prefix(g).strip("/") for g in task.boundary.own]
    if prefixes and all(prefixes) and not any(root == p or root.startswith(p + "/") or p.startswith(root + "/")
                                              for p in prefixes):
        # Every glob is anchored under a folder unrelated to the package's: no path of it can match.
        # A string test instead of two gitignore matches: a drain asks this for every task and
        # package pair (2 tasks x 500 packages cost 0.3 s in pathspec).
        return False
    probe = root + "/package.json"
    if matches(task.boundary.own, probe) or matches(task.boundary.own, root + "/x"):
        return True
    return any(literal_prefix(g) and literal_prefix(g).startswith(package.path.rstrip("/") + "/")
               for g in task.boundary.own)
