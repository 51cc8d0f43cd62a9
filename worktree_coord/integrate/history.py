"""Commit-graph questions the merge queue asks, answered in O(new commits), not O(history).

Stage: pre-merge checks. Input: commit ids (base = the run's pinned commit, a task commit, the
integration tip). Output: whether the task descends from base, the task's own commits, whether the
task is already merged, and whether base is the merge base of tip and task (which licenses the fast
path). Reads objects only.

Why not `repo.descendant_of` / `repo.merge_base` on every merge: libgit2 re-walks the integration
history each time, so the cost grows with every merge landed (the same growth research/git-layer.md
§4 measured for spawned git, 22 -> 75 ms over 1,000 merges). Instead `IntegrationHistory` keeps the
set of commits reachable from the tip but not from base, and extends it from the new tip down to the
commits it already knows each time the tip moves: each merge adds one merge commit plus the task's
own commits.

Invariants: every walk stops at base and is capped; a walk that hits the cap or a root commit other
than base answers "unknown" and callers take the safe path (full git walk, merge-tree fallback).
"""

from __future__ import annotations


import pygit2

from ..frozen import value_class

TASK_WALK_CAP = 5_000
INTEGRATION_WALK_CAP = 200_000


@value_class
class TaskHistory:
    """The commits reachable from the task commit and not from base.

    `closed` is True when every such commit reaches base through its parents only (no root other
    than base, no walk past the cap): then `commits` is exact and `descends` is certain.
    """

    descends: bool
    closed: bool
    commits: frozenset[pygit2.Oid]


def _walk_down(repo: pygit2.Repository, start: pygit2.Oid, base: pygit2.Oid,
               known: frozenset[pygit2.Oid] | set[pygit2.Oid], cap: int,
               hits: set[pygit2.Oid] | None = None) -> tuple[set[pygit2.Oid], bool, bool]:
    """Commits reachable from `start`, stopping at base and at `known`; (seen, saw_base, closed).

    Known commits the walk ran into are added to `hits` when given.
    """
    seen: set[pygit2.Oid] = set()
    stack = [start]
    saw_base = False
    closed = True
    while stack:
        oid = stack.pop()
        if oid == base:
            saw_base = True
            continue
        if oid in known:
            if hits is not None:
                hits.add(oid)
            continue
        if oid in seen:
            continue
        if len(seen) >= cap:
            return seen, saw_base, False
        seen.add(oid)
        parents = repo[oid].parent_ids
        if not parents:
            closed = False  # a root that is not base: history from elsewhere
        stack.extend(parents)
    return seen, saw_base, closed


def task_history(repo: pygit2.Repository, task: pygit2.Oid, base: pygit2.Oid,
                 cap: int = TASK_WALK_CAP) -> TaskHistory:
    """The task's own commits since base, and whether the task descends from base."""
    if task == base:
        return TaskHistory(True, True, frozenset())
    seen, saw_base, closed = _walk_down(repo, task, base, frozenset(), cap)
    if closed:
        return TaskHistory(saw_base, True, frozenset(seen))
    # Unusual shape (foreign roots, very long history): let libgit2 answer the yes/no question.
    return TaskHistory(repo.descendant_of(task, base), False, frozenset(seen))


class IntegrationHistory:
    """Commits reachable from an integration tip and not from base, kept up to date incrementally.

    One instance per (repository, base); not thread safe (one merger thread per instance).
    """

    def __init__(self, repo: pygit2.Repository, base: pygit2.Oid,
                 cap: int = INTEGRATION_WALK_CAP):
        self.repo = repo
        self.base = base
        self.cap = cap
        self._tip: pygit2.Oid | None = None
        self._commits: set[pygit2.Oid] = set()
        self._exact = False

    def commits_at(self, tip: pygit2.Oid) -> set[pygit2.Oid] | None:
        """The set for `tip`, or None when it cannot be known cheaply (the caller takes the slow path)."""
        if tip == self._tip:
            return self._commits if self._exact else None
        incremental = self._exact and self._tip is not None
        hits: set[pygit2.Oid] = set()
        known = self._commits if incremental else frozenset()
        new, _, closed = _walk_down(self.repo, tip, self.base, known, self.cap, hits)
        if closed and incremental and self._tip != self.base and self._tip not in hits:
            # The tip moved to something that does not contain the old tip (a reset, not a merge):
            # the known set may hold commits no longer reachable, so rebuild from scratch.
            incremental = False
            new, _, closed = _walk_down(self.repo, tip, self.base, frozenset(), self.cap)
        if not closed:
            self._tip, self._commits, self._exact = tip, set(), False
            return None
        if incremental:
            self._commits |= new
        else:
            self._commits = new
        self._tip, self._exact = tip, True
        return self._commits

    def contains(self, tip: pygit2.Oid, commit: pygit2.Oid) -> bool:
        """Is `commit` (a descendant of base) an ancestor of `tip` or the tip itself?"""
        if commit == tip or commit == self.base:
            return True
        commits = self.commits_at(tip)
        if commits is None:
            return self.repo.descendant_of(tip, commit)
        return commit in commits

    def base_is_merge_base(self, tip: pygit2.Oid, task: TaskHistory) -> bool:
        """True when base is the best common ancestor of tip and the task (licenses the fast path).

        Common ancestors are base's ancestors plus any task commit the tip already contains; when
        the task's history is closed and shares no commit with the tip, base is the best one.
        """
        if not task.closed or not task.descends:
            return False
        commits = self.commits_at(tip)
        if commits is None:
            return False
        return commits.isdisjoint(task.commits)
