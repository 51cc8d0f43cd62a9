"""Merge one task commit into an integration ref: fast, atomic, without a worktree.

Stage: the merge queue's git engine. Input: a repository, the integration ref, the task commit, the
run's pinned base commit, the merge commit's message and signatures, and optionally a resolver for
conflicted files. Output: an `IntegrationResult` (merged / already merged / conflict), with the old
and new tip, the tree, the path taken and timings per phase. Knows nothing about runs or the store.

One `merge_into` call, in order:
  1. check   the task descends from base (else UsageError); read the tip; if the task is already an
             ancestor of the tip, stop (ALREADY_MERGED): a retry after a crash never merges twice.
  2. merge   fastpath.py when base is the merge base and the task touched only paths integration
             left alone since base; otherwise git merge-tree (mergetree.py).
  3. resolve files git left conflicted go to the resolver (default resolve.line_resolve); clean
             results are written into the tree (trees.py). Anything still conflicted: return
             CONFLICT and leave the ref alone.
     check   with a `check` (the semantic check: merge.check_tree_merge, through the queue), the
             clean tree is checked against the merge base, the tip and the task; its findings
             block the merge (CONFLICT, kind `semantic`, the ref left alone) when `check_blocks`
             (True, or a predicate saying which findings block: the run's modes per kind), else
             they ride along on the MERGED result as `findings`.
  4. commit  `create_commit(None, ...)` writes the merge commit (parents: old tip, task) and moves
             nothing. Crash point `merge.after_commit_written`.
  5. publish compare-and-swap of the ref from the old tip (refs.py), or the caller's `publish` (a
             remote run: a push with a lease, then the local mirror fetched on refusal). If the tip
             moved meanwhile, go back to 1 and merge onto the new tip: never overwrite. Crash point
             `merge.after_ref_moved`.
A `Drain` (Integrator.drain) runs steps 1-4 for consecutive tasks, each onto the commit the last
one wrote, and step 5 once for all of them: a drain of n tasks makes one compare-and-swap, not n.
A drain of at least HOLD_FROM tasks holds the objects it writes in memory and writes them as one
pack before the ref moves (gitrepo/held_objects.py; crash points `merge.before_pack_written` and
`merge.after_pack_written`); any git process started meanwhile gets them written first.
Invariants: the ref only ever moves to a merge commit whose first parent is the value it had; a
conflict or an error leaves it untouched; commits and trees written by an abandoned attempt are
unreachable garbage, never a half-updated ref.
"""

from __future__ import annotations

import atexit
import os
from typing import Callable
import threading
import time

import pygit2

from ..crashpoints import crash_point
from ..errors import BusyError, NotFoundError, UsageError
from ..gitrepo.held_objects import HeldObjects
from ..gitrepo.mergetree import MergeTreeProcess, StagedPath
from ..gitrepo.refs import StaleRef, compare_and_swap, read_ref
from ..merge.result import SemanticFinding
from .fastpath import GITLINK, SYMLINK, TREE, NotFast, fast_merge_trees
from .history import IntegrationHistory, TaskHistory, task_history
from .mergeable import MERGE_IDENTITY
from .resolve import FileToResolve, Resolver, line_resolve
from .result import (
    ConflictedFile,
    IntegrationResult,
    IntegrationState,
    MergePath,
    TreeCheck,
    semantic_conflicts,
)
from .trees import update_tree

MERGE_COMMIT_SEARCH = 1_000

# A drain of this many tasks or more holds its objects in memory and writes one pack at publish
# (docs/architecture.md "Cost of a merge": below it, a pack costs more than the loose files it
# saves, and every pack left is one more place each later object lookup searches).
HOLD_FROM = 4
HOLD_ENV = "WTC_HOLD_OBJECTS"   # "0": never hold; "1": hold whatever the drain's size; unset: HOLD_FROM


def hold_objects(tasks: int) -> bool:
    """Whether a drain expecting `tasks` merges holds its objects in memory (HOLD_FROM, HOLD_ENV)."""
    chosen = os.environ.get(HOLD_ENV, "")
    if chosen in ("0", "1"):
        return chosen == "1"
    return tasks >= HOLD_FROM

# Moves `ref` from `old` to `new` or raises StaleRef (then `ref` holds the tip to merge onto).
Publisher = Callable[[str, pygit2.Oid, pygit2.Oid], None]   # first-parent steps searched to name the commit that merged a task


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000.0


def _is_file_mode(mode: int) -> bool:
    return mode not in (TREE, GITLINK, SYMLINK)


def _oid(repo: pygit2.Repository, rev: pygit2.Oid | str, what: str) -> pygit2.Oid:
    """A commit id from an Oid, a hex id or a revision expression; NotFoundError if it is none."""
    try:
        obj = repo[rev] if isinstance(rev, pygit2.Oid) else repo.revparse_single(str(rev))
        commit = obj.peel(pygit2.Commit)
    except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError):
        raise NotFoundError(f"{what} {rev!s} is not a commit in {repo.path}",
                            fix=f"pass the {what} as a commit id or a branch name that exists") from None
    return commit.id


class Integrator:
    """The engine for one repository: holds the merge-tree process and the history caches.

    Single-threaded: use one Integrator per thread (the module-level `merge_into` does that for
    you). The `MergeTreeProcess` it uses may be shared between Integrators; it is thread safe.
    """

    def __init__(self, repo: pygit2.Repository | str | os.PathLike[str], *,
                 merger: MergeTreeProcess | None = None, fast_path: bool = True,
                 cas_timeout: float = 30.0, max_attempts: int = 1_000):
        self.repo = repo if isinstance(repo, pygit2.Repository) else pygit2.Repository(str(repo))
        self._merger = merger
        self._owns_merger = merger is None
        self.fast_path = fast_path
        self.cas_timeout = cas_timeout
        self.max_attempts = max_attempts
        self._histories: dict[tuple[str, pygit2.Oid], IntegrationHistory] = {}
        self._held: HeldObjects | None = None

    @property
    def merger(self) -> MergeTreeProcess:
        if self._merger is None:
            self._merger = MergeTreeProcess(self.repo.path)
        return self._merger

    def close(self) -> None:
        if self._merger is not None and self._owns_merger:
            self._merger.close()
        self._merger = None

    def __enter__(self) -> "Integrator":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _history(self, ref: str, base: pygit2.Oid) -> IntegrationHistory:
        key = (ref, base)
        if key not in self._histories:
            self._histories[key] = IntegrationHistory(self.repo, base)
        return self._histories[key]

    # -- public ----------------------------------------------------------------------------------
    def already_merged(self, ref: str, task_commit: pygit2.Oid | str,
                       base: pygit2.Oid | str | None = None) -> bool:
        """Is the task commit the tip of `ref` or one of its ancestors? (NotFoundError: no ref.)"""
        tip = self._tip(ref)
        task = _oid(self.repo, task_commit, "task commit")
        if base is None:
            return task == tip or self.repo.descendant_of(tip, task)
        return self._history(ref, _oid(self.repo, base, "base commit")).contains(tip, task)

    def merge_into(self, ref: str, task_commit: pygit2.Oid | str, base: pygit2.Oid | str, *,
                   message: str, author: pygit2.Signature,
                   committer: pygit2.Signature | None = None,
                   resolve: Resolver | None = None, check: TreeCheck | None = None,
                   check_blocks: bool | Callable[[SemanticFinding], bool] = True,
                   publish: Publisher | None = None) -> IntegrationResult:
        """Merge `task_commit` into `ref` (see the module docstring); returns what happened.
        `publish(ref, new, old)` moves the ref instead of the local compare-and-swap (a remote run
        pushes with a lease); it raises StaleRef when the ref moved, after which `ref` must hold
        the new tip to merge onto."""
        started = time.perf_counter()
        timings: dict[str, float] = {}
        task, base_id, history, integration = self._prepare(ref, task_commit, base, message, timings)
        attempts = 0
        while True:
            tip = self._tip(ref)
            outcome = self._merge_onto(ref, tip, task, base_id, history, integration, attempts, started, timings,
                                       message=message, author=author, committer=committer or author,
                                       resolve=resolve or line_resolve, check=check, check_blocks=check_blocks)
            if outcome.state is not IntegrationState.MERGED:
                return outcome
            attempts = outcome.attempts
            commit = pygit2.Oid(hex=outcome.new_tip)
            t = time.perf_counter()
            try:
                if publish is not None:
                    publish(ref, commit, tip)
                else:
                    compare_and_swap(self.repo, ref, commit, tip, message=_reflog_message(message),
                                     signature=committer or author, timeout=self.cas_timeout)
            except StaleRef:
                timings["ref"] = timings.get("ref", 0.0) + _ms(t)
                if attempts >= self.max_attempts:
                    raise BusyError(
                        f"{ref} moved under {attempts} merges of {task} in a row",
                        retry_after=1.0, fix="retry the merge; another merger is very busy") from None
                continue  # the tip moved: merge again onto the new tip, never overwrite
            timings["ref"] = timings.get("ref", 0.0) + _ms(t)
            crash_point("merge.after_ref_moved")
            timings["total"] = _ms(started)
            return outcome

    def drain(self, ref: str, *, publish: Publisher | None = None, message: str = "merge drain",
              signature: pygit2.Signature | None = None, tasks: int = 1) -> "Drain":
        """Consecutive merges onto `ref` that move it once: see `Drain`. `tasks`: how many merges
        the caller expects it to make; from HOLD_FROM on, its objects are held in memory until
        `publish()` (`hold_objects`)."""
        return Drain(self, ref, publish=publish, message=message, signature=signature,
                     held=self._held_objects() if hold_objects(tasks) else None)

    def _held_objects(self) -> HeldObjects:
        # Added once: libgit2 cannot take a backend off a repository, so it stays and writes
        # through to disk whenever no drain holds (held_objects.py).
        if self._held is None:
            held = HeldObjects(self.repo)
            self.repo.odb.add_backend(held, HeldObjects.PRIORITY)
            self._held = held
        return self._held

    def _prepare(self, ref: str, task_commit: pygit2.Oid | str, base: pygit2.Oid | str, message: str,
                 timings: dict[str, float]) -> tuple[pygit2.Oid, pygit2.Oid, TaskHistory, IntegrationHistory]:
        """Step 1's checks that do not depend on the tip: (task, base, the task's history, integration's)."""
        repo = self.repo
        if not message.strip():
            raise UsageError("the merge commit needs a message", fix="name the run and the task in it")
        task = _oid(repo, task_commit, "task commit")
        base_id = _oid(repo, base, "base commit")
        t = time.perf_counter()
        history = task_history(repo, task, base_id)
        if not history.descends:
            raise UsageError(
                f"task commit {task} does not descend from the run's pinned commit {base_id}",
                fix="start the task branch from the pinned commit (or rebase it onto it) and finish again",
            )
        timings["check"] = _ms(t)
        return task, base_id, history, self._history(ref, base_id)

    def _merge_onto(self, ref: str, tip: pygit2.Oid, task: pygit2.Oid, base_id: pygit2.Oid, history: TaskHistory,
                    integration: IntegrationHistory, attempts: int, started: float, timings: dict[str, float], *,
                    message: str, author: pygit2.Signature, committer: pygit2.Signature, resolve: Resolver,
                    check: TreeCheck | None, check_blocks: bool | Callable[[SemanticFinding], bool]
                    ) -> IntegrationResult:
        """Steps 1 (already merged?) to 4 onto `tip`: ALREADY_MERGED, CONFLICT, or MERGED with the
        merge commit written and nothing moved (its `new_tip` is that commit: the caller publishes)."""
        repo = self.repo
        t = time.perf_counter()
        if integration.contains(tip, task):
            timings["check"] += _ms(t)
            timings["total"] = _ms(started)
            return IntegrationResult(
                IntegrationState.ALREADY_MERGED, ref, str(task), str(base_id), str(tip), str(tip),
                self._find_merge_commit(tip, task), None, MergePath.NONE, attempts=attempts,
                timings_ms=timings)
        timings["check"] += _ms(t)
        attempts += 1
        t = time.perf_counter()
        path, tree, reason, conflicted = self._merge_trees(tip, task, base_id, history, integration)
        timings["merge"] = timings.get("merge", 0.0) + _ms(t)
        resolved: tuple[str, ...] = ()
        strategies: tuple[tuple[str, str], ...] = ()
        resolutions: tuple[tuple[str, str], ...] = ()
        if conflicted is not None:
            t = time.perf_counter()
            tree, resolved, remaining, strategies, resolutions = self._resolve(tree, conflicted, resolve)
            timings["resolve"] = timings.get("resolve", 0.0) + _ms(t)
            if remaining:
                timings["total"] = _ms(started)
                return IntegrationResult(
                    IntegrationState.CONFLICT, ref, str(task), str(base_id), str(tip), str(tip),
                    None, str(tree), path, remaining, resolved, attempts, reason, timings, strategies=strategies)
        findings: tuple[SemanticFinding, ...] = ()
        if check is not None:
            t = time.perf_counter()
            # The queue's history already knows the usual answer: a task branch cut from the pin,
            # sharing no commit with integration, has the pin as merge base (no graph walk).
            merge_base = base_id if integration.base_is_merge_base(tip, history) else repo.merge_base(tip, task)
            findings = tuple(check(repo, merge_base, tip, task, tree)) if merge_base else ()
            timings["semantic"] = timings.get("semantic", 0.0) + _ms(t)
            blocking = tuple(f for f in findings if check_blocks(f)) if callable(check_blocks) else \
                findings if check_blocks else ()
            if blocking:
                timings["total"] = _ms(started)
                return IntegrationResult(
                    IntegrationState.CONFLICT, ref, str(task), str(base_id), str(tip), str(tip),
                    None, str(tree), path, semantic_conflicts(repo, tree, blocking), resolved, attempts,
                    reason, timings, findings=blocking, strategies=strategies)
        t = time.perf_counter()
        commit = repo.create_commit(None, author, committer, message, tree, [tip, task])
        timings["commit"] = timings.get("commit", 0.0) + _ms(t)
        crash_point("merge.after_commit_written")
        timings["total"] = _ms(started)
        return IntegrationResult(
            IntegrationState.MERGED, ref, str(task), str(base_id), str(tip), str(commit), str(commit),
            str(tree), path, (), resolved, attempts, reason, timings, findings=findings, strategies=strategies,
            resolutions=resolutions)

    # -- steps -----------------------------------------------------------------------------------
    def _tip(self, ref: str) -> pygit2.Oid:
        if not ref.startswith("refs/"):
            raise UsageError(f"ref {ref!r} is not a full ref name",
                             fix="pass e.g. 'refs/heads/wtc/run1/integration'")
        tip = read_ref(self.repo, ref)
        if tip is None:
            raise NotFoundError(f"{ref} does not exist", fix="start the run first (it creates the integration branch)")
        return tip

    def _merge_trees(self, tip: pygit2.Oid, task: pygit2.Oid, base: pygit2.Oid, history: TaskHistory,
                     integration: IntegrationHistory
                     ) -> tuple[MergePath, pygit2.Oid, str, tuple[ConflictedFile, ...] | None]:
        """(path, tree, fallback reason, conflicted files or None when clean)."""
        repo = self.repo
        if not self.fast_path:
            reason = "fast path disabled"
        elif not integration.base_is_merge_base(tip, history):
            reason = "the pinned commit is not the merge base"
        else:
            try:
                tree = fast_merge_trees(repo, repo[base].tree_id, repo[tip].tree_id, repo[task].tree_id)
                return MergePath.IN_MEMORY, tree, "", None
            except NotFast as exc:
                reason = str(exc)
        outcome = self.merger.merge(str(tip), str(task))
        tree_id = pygit2.Oid(hex=outcome.tree)
        if outcome.clean:
            return MergePath.MERGE_TREE, tree_id, reason, None
        return MergePath.MERGE_TREE, tree_id, reason, tuple(ConflictedFile.from_staged(c) for c in outcome.conflicts)

    def _resolve(self, tree: pygit2.Oid, conflicted: tuple[ConflictedFile, ...], resolve: Resolver
                 ) -> tuple[pygit2.Oid, tuple[str, ...], tuple[ConflictedFile, ...], tuple[tuple[str, str], ...],
                            tuple[tuple[str, str], ...]]:
        """Offer content conflicts to the resolver; write clean results; return the tree, the paths
        made clean, what stays conflicted, the strategy of each file the resolver merged, and, for
        each file made clean, a line saying what its merge did (merge.inventory.resolution_words)."""
        repo = self.repo
        offered: list[FileToResolve] = []
        kinds: dict[str, str] = {}
        for item in conflicted:
            kinds[item.path] = kind = conflict_kind(item)
            if kind in ("content", "add_add"):
                assert item.ours is not None and item.theirs is not None
                offered.append(FileToResolve(
                    item.path,
                    repo[item.base.oid].data if item.base else b"",
                    repo[item.ours.oid].data,
                    repo[item.theirs.oid].data,
                ))
        results = resolve(offered) if offered else {}
        strategies = tuple(sorted((p, r.strategy.value) for p, r in results.items()))
        changes: dict[str, tuple[pygit2.Oid, int]] = {}
        remaining: list[ConflictedFile] = []
        from ..merge.inventory.resolution_words import describe_resolution   # here: loads the grammars' engine

        inputs = {f.path: f for f in offered}
        words: list[tuple[str, str]] = []
        for item in conflicted:
            result = results.get(item.path)
            if result is not None and result.clean:
                changes[item.path] = (repo.create_blob(result.merged), _merged_mode(item))
                given = inputs[item.path]
                words.append((item.path, describe_resolution(given.base, given.ours, given.theirs, result, item.path)))
                continue
            if result is not None:
                text = result.merged
            else:
                text = self._blob_at(tree, item.path)
            remaining.append(ConflictedFile(item.path, item.base, item.ours, item.theirs,
                                            kinds[item.path], text, result))
        if remaining:
            # The tree to hand back with the conflict: resolved files clean, the rest carrying the
            # resolver's markers where it produced any (labelled by the resolver: the side merged into, base, the side merged in) and git's
            # otherwise -- what `wtc task update` checks out for the agent to finish by hand.
            for item in remaining:
                if (item.resolution is not None and item.ours is not None
                        and item.theirs is not None and item.text):
                    changes[item.path] = (repo.create_blob(item.text), _merged_mode(item))
            marked = update_tree(repo, tree, changes) if changes else tree
            resolved_paths = tuple(sorted(p for p in changes if p not in {r.path for r in remaining}))
            return marked, resolved_paths, tuple(remaining), strategies, tuple(words)
        if not conflicted:
            # git said "conflicted" but named no file: never guess, report it.
            return tree, (), (ConflictedFile("", None, None, None, "unlisted",
                                             b"git merge-tree reported a conflict without a path"),), strategies, ()
        return update_tree(repo, tree, changes), tuple(sorted(changes)), (), strategies, tuple(sorted(words))

    def _blob_at(self, tree: pygit2.Oid, path: str) -> bytes:
        try:
            entry = self.repo[tree][path]
        except KeyError:
            return b""
        obj = self.repo[entry.id]
        return obj.data if isinstance(obj, pygit2.Blob) else b""

    def _find_merge_commit(self, tip: pygit2.Oid, task: pygit2.Oid) -> str | None:
        commit = self.repo[tip]
        for _ in range(MERGE_COMMIT_SEARCH):
            parents = commit.parent_ids
            if task in parents[1:]:
                return str(commit.id)
            if not parents:
                return None
            commit = self.repo[parents[0]]
        return None


class Drain:
    """Consecutive merges onto one ref that move it once (`Integrator.drain`): a drain of the
    merge queue merges each task onto the commit the previous one wrote, not onto the ref, and
    `publish()` moves the ref from the tip the drain started from to the last merge commit by one
    compare-and-swap (or the caller's `publish`: a push with a lease). Until then every merge
    commit is unreachable, so a crash before `publish` leaves the ref where it was (crash point
    `merge.after_commit_written`), and one after it leaves the tasks merged but not recorded, as
    a crash after a single merge's move does (`merge.after_ref_moved`): the next drain finds
    them ALREADY_MERGED. When the ref moved meanwhile, `publish` raises StaleRef and moves
    nothing: the caller merges the same tasks again onto the new tip (a new drain, or one
    `merge_into` each). Not thread safe, like its Integrator.

    With `held` (Integrator.drain decides), the objects this thread writes until `publish()` stay
    in memory and are written as one pack first thing in `publish()`, before the ref moves
    (crash points `merge.before_pack_written`, `merge.after_pack_written`); a git process
    started meanwhile gets them written first. `publish()` and `close()` end the holding."""

    def __init__(self, integrator: Integrator, ref: str, *, publish: Publisher | None = None,
                 message: str = "merge drain", signature: pygit2.Signature | None = None,
                 held: HeldObjects | None = None):
        self._integrator = integrator
        self.ref = ref
        self.start = integrator._tip(ref)   # the tip the drain started from: its one compare-and-swap's
        self.tip = self.start               # the last merge commit written (unpublished until publish())
        self._publish = publish
        self._message = message
        self._signature = signature
        self.merged: list[IntegrationResult] = []   # the merges `publish()` will move the ref over
        self._held = held
        if held is not None:
            held.hold(integrator.repo)

    @property
    def pending(self) -> bool:
        """Whether merges wait for `publish()`."""
        return self.tip != self.start

    def merge(self, task_commit: pygit2.Oid | str, base: pygit2.Oid | str, *, message: str,
              author: pygit2.Signature, committer: pygit2.Signature | None = None,
              resolve: Resolver | None = None, check: TreeCheck | None = None,
              check_blocks: bool | Callable[[SemanticFinding], bool] = True) -> IntegrationResult:
        """`merge_into` onto the drain's last commit, moving nothing: a MERGED result's `new_tip`
        is its merge commit, on the ref once `publish()` returns."""
        started = time.perf_counter()
        timings: dict[str, float] = {}
        engine = self._integrator
        task, base_id, history, integration = engine._prepare(self.ref, task_commit, base, message, timings)
        outcome = engine._merge_onto(self.ref, self.tip, task, base_id, history, integration, 0, started, timings,
                                     message=message, author=author, committer=committer or author,
                                     resolve=resolve or line_resolve, check=check, check_blocks=check_blocks)
        if outcome.state is IntegrationState.MERGED:
            self.tip = pygit2.Oid(hex=outcome.new_tip)
            self.merged.append(outcome)
        return outcome

    def publish(self) -> pygit2.Oid:
        """Move the ref from `start` to `tip` (nothing when no merge waits); StaleRef when the ref
        no longer holds `start` (nothing moved). Returns the ref's new tip."""
        if not self.pending:
            self.close()
            return self.tip
        t = time.perf_counter()
        self.close()   # the pack first: the ref never names an object held in memory only
        if self._publish is not None:
            self._publish(self.ref, self.tip, self.start)
        else:
            signature = self._signature or pygit2.Signature(*MERGE_IDENTITY)
            compare_and_swap(self._integrator.repo, self.ref, self.tip, self.start,
                             message=_reflog_message(f"{self._message} ({len(self.merged)} merges)"),
                             signature=signature, timeout=self._integrator.cas_timeout)
        crash_point("merge.after_ref_moved")
        if self.merged:
            self.merged[-1].timings_ms["ref"] = _ms(t)
        self.start, self.merged = self.tip, []
        return self.tip

    def close(self) -> None:
        """Write what the drain holds as one pack and write to disk from now on (idempotent; a
        drain given up without `publish()` leaves unreachable objects, as loose ones would)."""
        held, self._held = self._held, None
        if held is None:
            return
        if held.count:
            crash_point("merge.before_pack_written")
            held.release()
            crash_point("merge.after_pack_written")
        else:
            held.release()


def conflict_kind(item: ConflictedFile | StagedPath) -> str:
    """What git could not merge: modify_delete, type_change, non_file, add_add or content."""
    sides = [s for s in (item.ours, item.theirs) if s is not None]
    if len(sides) < 2:
        return "modify_delete"
    assert item.ours is not None and item.theirs is not None
    modes = [item.ours.mode, item.theirs.mode] + ([item.base.mode] if item.base else [])
    if not all(_is_file_mode(m) for m in modes):
        return "type_change" if len({_is_file_mode(m) for m in modes}) > 1 else "non_file"
    return "content" if item.base is not None else "add_add"


def _merged_mode(item: ConflictedFile) -> int:
    # Standard three-way rule for the mode: a side that changed it wins; ours when both did.
    assert item.ours is not None and item.theirs is not None
    base_mode = item.base.mode if item.base else item.ours.mode
    return item.theirs.mode if item.ours.mode == base_mode else item.ours.mode


def _reflog_message(message: str) -> str:
    first = message.strip().splitlines()[0] if message.strip() else ""
    return f"worktree_coord: {first}"[:200]


# -- module-level API: one Integrator per (process, thread, repository) ------------------------------
_registry: dict[tuple[int, int, str], Integrator] = {}
_mergers: dict[tuple[int, str], MergeTreeProcess] = {}
_registry_lock = threading.Lock()


def _integrator(repo: pygit2.Repository | str | os.PathLike[str]) -> Integrator:
    path = repo.path if isinstance(repo, pygit2.Repository) else pygit2.Repository(str(repo)).path
    path = os.path.realpath(path)
    pid, thread = os.getpid(), threading.get_ident()
    with _registry_lock:
        # Keyed by pid too: a forked child must not share its parent's git pipes.
        merger = _mergers.get((pid, path))
        if merger is None:
            merger = _mergers[(pid, path)] = MergeTreeProcess(path)
        integrator = _registry.get((pid, thread, path))
        if integrator is None:
            integrator = _registry[(pid, thread, path)] = Integrator(path, merger=merger)
    return integrator


def merge_into(repo: pygit2.Repository | str | os.PathLike[str], ref: str, task_commit: pygit2.Oid | str,
               base: pygit2.Oid | str, *, message: str, author: pygit2.Signature,
               committer: pygit2.Signature | None = None, resolve: Resolver | None = None,
               check: TreeCheck | None = None,
               check_blocks: bool | Callable[[SemanticFinding], bool] = True) -> IntegrationResult:
    """Merge `task_commit` into `ref` by compare-and-swap; see `Integrator.merge_into`."""
    return _integrator(repo).merge_into(ref, task_commit, base, message=message, author=author,
                                        committer=committer, resolve=resolve, check=check,
                                        check_blocks=check_blocks)


def already_merged(repo: pygit2.Repository | str | os.PathLike[str], ref: str,
                   task_commit: pygit2.Oid | str) -> bool:
    """Is `task_commit` already the tip of `ref` or an ancestor of it?"""
    return _integrator(repo).already_merged(ref, task_commit)


def close_all() -> None:
    """End every merge-tree process this process started through the module-level API."""
    pid = os.getpid()
    with _registry_lock:
        for key in [k for k in _mergers if k[0] == pid]:
            _mergers.pop(key).close()
        for key in [k for k in _registry if k[0] == pid]:
            del _registry[key]


atexit.register(close_all)
