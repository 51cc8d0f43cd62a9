"""The conflict forecast: which tasks are changing the same files and declarations while they still
work, and whether a structured merge of their current states would conflict right now.

Stage: a read-only view (`Coordinator.forecast`, `Coordinator.check_task`; `wtc forecast`,
`wtc task check`, the forecast column of `wtc status` and `wtc watch`).
Input: the run's tasks from the store; each live task's worktree as it is now (HEAD plus every
uncommitted or untracked-but-not-ignored file, read with `GitRepo.working_edits`: `git status`
without optional locks, so the worktree's index is never written), each finished-but-unmerged
task's branch, and the integration tip.
Output: a `Forecast` (or a `TaskCheck` for one task): per task its state and forecast, per file
two or more tasks change the tasks and declarations (merge.inventory.declarations, from the language
profiles), and each predicted conflict naming both sides, file and declaration.

How: a task's state is a tree (its HEAD's tree with its working files written over it, built with
integrate.update_tree: only the directories on changed paths are rewritten); its changes are the
diff from the merge base of its HEAD and the integration tip (the pin, unless `task update` merged
integration in). Only files two sides both change are merged, each with the engine's `merge_file`
(the same cascade the merge queue runs, semantic check per file included), pairwise and onto the
integration tip; a file one side deleted and the other changed is followed into the file the deleting
side renamed it to, when git's rename detection pairs them (as merge-ort does when the queue
merges), and reported at the new path. Cost: one `git status` per live worktree plus work proportional to the changed
files; a file merge is cached by (path, base blob, left blob, right blob, semantic mode) in memory
and in `<git common dir>/wtc/forecast-cache/`, so an agent calling `task check` every minute pays
for the files that changed since its last call. Every key also holds the engine's fingerprint (the
installed merge engine's and language profiles' files, `engine_fingerprint`), so a wtc upgraded or
edited in place never answers from what an older engine computed.

Invariants: no ref moves (for a run kept on a remote, the local mirror of its integration branch is
fetched first, as `report` does), no worktree file or index is written, the store is not written; the
only writes are unreachable objects (the working files' blobs and the state trees) and the cache.
Cross-file semantic conflicts (a name one side removes from one file and the other's new code uses
in another: what the queue's tree-level check blocks at merge time) are predicted by `task check`,
onto integration and onto each other task, when the semantic check blocks (the run's default): on
a merged tree built from the two states, by the queue's own check, for a pair only when a name whose
definition one side removed is a word new in a file the other changed (a finding needs both); cached like
file merges. The run-wide forecast (`wtc forecast`, the status column) predicts them the same way,
for every such pair (found through an index of removed words, not by trying every pair).
Reserved files (root manifests and lockfiles) are consolidated, never text-merged: they are listed
as overlaps with `reserved: true`, and what consolidation would say of the tasks' intents for a
root manifest (two tasks setting one key to two values, a dependency range no version meets; onto
integration: against the intents merged tasks left waiting and the tip's manifest) is predicted as a
conflict of kind `consolidation` (forecast_intents.py).
"""

from __future__ import annotations

import contextlib
import json
import os
import posixpath
import re
import time
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

from .. import boundary as boundaries
from ..boundary.globs import matches
from ..consolidate import Intent
from ..errors import EXIT_ACTION, EXIT_BOUNDARY, EXIT_INTERNAL, EXIT_OK
from ..frozen import value_class
from ..gitrepo.repository import Change
from ..merge.languages.profile_index import profile_name_for_path
from ..merge.result import SemanticMode
from ..model import PENDING_INTENT_STATES, TaskRecord, TaskState
from ..results import Forecast, TaskCheck
from .base import CoordinatorBase, may_remove_names, staged
from .forecast_column import column_of, read_latest, write_latest
from .worktree_marks import half_made, half_made_error

if TYPE_CHECKING:
    import pygit2

INTEGRATION = "integration"
_WORDS = re.compile(rb"[A-Za-z_$][\w$]*")
CACHE_DIR = "forecast-cache"
# Part of every cache key: bump it when what a merge or a check reports changes (new findings, new
# words in them), so a forecast never answers from an older engine's results.
CACHE_VERSION = 3
# What else a cached outcome depends on: the merge engine's code and the language profiles (rules are
# data in grammars/*.toml, so a rule changes without a code change anywhere), and the forecast itself.
_ENGINE_PARTS = ("merge", "integrate/resolve.py", "coordinator/forecast.py")   # under the package
# The most files a worktree's index holds for `task check` to write its state's tree with git processes
# (read-tree of the whole head, then write-tree) rather than import libgit2: measured on 2 cores under
# load 10 (docs/architecture.md), at 20,000 files the process path still cost less CPU than the
# import (251 against 275 ms a check), and read-tree's share grows with the tree.
PROCESS_TREE_ENTRIES = 25_000
STATUS_THREADS = 4   # `git status` per worktree runs in parallel: it waits on the disk, not the CPU


def engine_fingerprint(roots: Iterable[tuple[Path, Iterable[str]]] | None = None) -> str:
    """A digest of the files whose code or data decides a forecast's outcome: each one's path, size and
    modification time (a stat each, no read), so any reinstall or edit changes it. `roots`: (folder,
    files or folders under it); by default the installed engine's (`_engine_roots`), computed once."""
    if roots is None:
        if not _INSTALLED_ENGINE:
            _INSTALLED_ENGINE.append(engine_fingerprint(_engine_roots()))
        return _INSTALLED_ENGINE[0]
    import hashlib   # here, not at the top: a check with nothing to merge keys nothing (OpenSSL's load)

    digest = hashlib.sha1()
    for folder, parts in roots:
        for part in parts:
            root = folder / part
            files = [root] if root.is_file() else sorted(p for p in root.rglob("*")
                                                         if p.suffix in (".py", ".toml", ".scm", ".so"))
            for file in files:
                try:
                    stat = file.stat()
                except OSError:
                    continue   # gone meanwhile: it decides nothing now
                digest.update(f"{file}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


_INSTALLED_ENGINE: list[str] = []


def _engine_roots() -> list[tuple[Path, Iterable[str]]]:
    """The installed package's engine files, the grammars (beside the package in a source checkout:
    pyproject's package-dir) and tree-sitter's own files (its binding: found, not imported, and no
    importlib.metadata, which costs ~25 ms)."""
    import importlib.util

    import worktree_coord
    import worktree_coord.grammars as grammars

    roots: list[tuple[Path, Iterable[str]]] = [(Path(worktree_coord.__file__).parent, _ENGINE_PARTS),
                                               (Path(grammars.__file__).parent, ["."])]
    spec = importlib.util.find_spec("tree_sitter")
    if spec is not None and spec.origin:
        binding = Path(spec.origin).parent
        roots.append((binding, sorted(p.name for p in binding.iterdir() if p.is_file())))
    return roots


@value_class(frozen=False)
class CurrentState:
    """One task's current state as the forecast sees it."""

    task: TaskRecord
    source: str                       # "worktree" (uncommitted edits included) or "branch"
    head: str
    tree: str
    base: str                         # merge base of head and the integration tip
    uncommitted: int = 0
    changes: dict[str, Change] = field(default_factory=dict)
    error: str | None = None

    @property
    def name(self) -> str:
        return self.task.task_id


class ForecastOperations(CoordinatorBase):
    """The forecast: read-only, callable as often as an agent likes."""

    @staged("forecast")
    def forecast(self, run_id: str) -> Forecast:
        """Every live and finished-but-unmerged task of the run: overlaps and predicted conflicts,
        pairwise and onto the integration tip (see the module docstring)."""
        started = time.monotonic()
        run = self._run(run_id)
        self._sync_integration(run)   # a remote run: the remote's tip is the truth (one ref fetched)
        tip = self.git.ref_target(f"refs/heads/{run.integration_ref}") or run.base
        engine = _Engine(self, self._semantic_mode(run))
        states = self._states(self.store.list_tasks(run_id), tip)
        by_path = _by_path(states)
        overlaps: list[dict[str, Any]] = []
        conflicts: list[dict[str, Any]] = []
        pair_files: dict[tuple[str, str], list[str]] = {}
        for path, holders in sorted(by_path.items()):
            if len(holders) < 2:
                continue
            reserved = any(matches(s.task.boundary.reserved, path) for s in holders)
            overlaps.append({"path": path, "tasks": [s.name for s in holders], "reserved": reserved,
                             "declarations": {s.name: list(engine.declarations(s, path)) for s in holders}})
            if reserved:
                # Never text-merged: what consolidation would say of the two tasks' intents.
                for i, left in enumerate(holders):
                    for right in holders[i + 1:]:
                        conflicts += engine.reserved_pair(left, right, path)
                continue
            for i, left in enumerate(holders):
                for right in holders[i + 1:]:
                    pair_files.setdefault((left.name, right.name), []).append(path)
        named = {s.name: s for s in states}
        for (left_name, right_name), paths in sorted(pair_files.items()):
            conflicts += engine.merge_pair(named[left_name], named[right_name], paths)
        for one, other in engine.pairs_that_may_break_names(states):
            base = one.base if one.base == other.base else self.git.merge_base(one.head, other.head)
            conflicts += engine.names_broken_across(other, one.name, base, one.tree, engine.changes_from(one, base))
        for state in states:
            conflicts += engine.merge_onto_integration(state, tip)
            if state.base != tip:
                conflicts += engine.names_broken_across(state, INTEGRATION, state.base, tip,
                                                        engine.integration_changes[state.base])
        conflicts = _once(conflicts)
        rows = []
        for state in states:
            against = sorted({c["right"] if c["left"] == state.name else c["left"]
                              for c in conflicts if state.name in (c["left"], c["right"])})
            shares = any(state.name in o["tasks"] for o in overlaps)
            rows.append({"task": state.name, "state": state.task.state.value, "source": state.source,
                         "head": state.head, "files": len(state.changes), "uncommitted": state.uncommitted,
                         "forecast": "conflict" if against else ("overlap" if shares else "clean"),
                         "conflicts_with": against} | ({"error": state.error} if state.error else {}))
        result = Forecast(run=run_id, integration_tip=tip, at=time.time(), tasks=rows, overlaps=overlaps,
                          conflicts=conflicts, stats=engine.stats(started, len(states)))
        write_latest(self.git.common_dir, run_id, column_of(rows, result.at, tip))
        return result

    def forecast_column(self, run_id: str, *, max_age: float = 10.0) -> dict[str, Any]:
        """The run's forecast per task (forecast_column.py), as last computed when that is at most
        `max_age` seconds old, else computed now: what `wtc watch` calls on every frame. Cheap on
        repeat: a fresh column is one file read, a recomputation merges only files whose blobs
        changed since the last one (the merge cache)."""
        self._run(run_id)
        latest = read_latest(self.git.common_dir, run_id)
        if latest is not None and time.time() - float(latest.get("at", 0)) <= max_age:
            return latest
        if not any(t.state.live or t.state is TaskState.FINISHED for t in self.store.list_tasks(run_id)):
            # Nothing left that could conflict: no forecast to run (and no span for a view's refresh).
            return {"at": time.time(), "tip": None, "tasks": {}}
        result = self.forecast(run_id)
        return column_of(result.tasks, result.at, result.integration_tip)

    @staged("task.check")
    def check_task(self, run_id: str, task_id: str) -> TaskCheck:
        """Would `task_id`'s current state merge onto the integration tip and onto every other live
        or finished-but-unmerged task? Exit code 1 when a conflict is predicted."""
        started = time.monotonic()
        run = self._run(run_id)
        record = self._task(run_id, task_id)
        if record.state.live and record.worktree and half_made(Path(record.worktree)):
            # Its missing files would read as the task deleting them all: as finish, refuse and say how.
            raise half_made_error(task_id, run_id, Path(record.worktree), done="read")
        self._sync_integration(run)
        tip = self.git.ref_target(f"refs/heads/{run.integration_ref}") or run.base
        engine = _Engine(self, self._semantic_mode(run))
        records = self.store.list_tasks(run_id)
        mine = self._states([record], tip, include_ended=True)
        if not mine:
            from ..errors import StateError
            raise StateError(f"task {task_id!r} is {record.state.value}: it has no state left to check",
                             fix=f"check a live or finished task; `wtc status --run {run_id}` lists them")
        me = mine[0]
        others = self._states([r for r in records if r.task_id != task_id], tip)
        onto = []
        found = engine.merge_onto_integration(me, tip)
        if me.base != tip:
            found += engine.names_broken_across(me, INTEGRATION, me.base, tip, engine.integration_changes[me.base])
        merged = {t.task_id for t in records if t.state is TaskState.MERGED}
        waiting = [Intent.from_json(row["data"]) for row in self.store.list_intents(run_id, PENDING_INTENT_STATES)
                   if row["task_id"] in merged]
        for path in sorted(p for p in me.changes if matches(me.task.boundary.reserved, p)):
            found += engine.reserved_onto_integration(me, path, tip, waiting)
        found = _once(found)
        onto.append({"target": INTEGRATION, "tip": tip, "clean": not found,
                     "files": sorted(engine.integration_overlap(me, tip)), "conflicts": found})
        not_compared = []   # live or finished tasks left out, each with why (a clean verdict covers only the rest)
        for other in others:
            shared = sorted(set(me.changes) & set(other.changes))
            across = engine.may_break_names(me, other)
            if not shared and not across:
                why = "no changes yet" if not other.changes else "no file in common with this task"
                not_compared.append({"task": other.name, "state": other.task.state.value,
                                     "why": why + (f" ({other.error})" if other.error else "")})
                continue
            mergeable = [p for p in shared if not (matches(me.task.boundary.reserved, p)
                                                   or matches(other.task.boundary.reserved, p))]
            found = engine.merge_pair(me, other, mergeable)
            for path in sorted(set(shared) - set(mergeable)):
                found += engine.reserved_pair(me, other, path)
            if across:
                base = me.base if me.base == other.base else self.git.merge_base(me.head, other.head)
                found += engine.names_broken_across(me, other.name, base, other.tree, engine.changes_from(other, base))
            found = _once(found)
            onto.append({"target": other.name, "state": other.task.state.value, "clean": not found,
                         "files": shared, "reserved": sorted(set(shared) - set(mergeable)),
                         "declarations": {p: {me.name: list(engine.declarations(me, p)),
                                              other.name: list(engine.declarations(other, p))} for p in shared},
                         "conflicts": found})
        clean = all(row["clean"] for row in onto)
        # The boundary finish checks first (exit 3 there): an agent that checks before finishing
        # learns it here, while it can still put the path back (found driving wtc on mobxjs/mobx:
        # check said "merges cleanly everywhere", the finish was rejected).
        report = boundaries.check_changes_following_moves(list(me.changes.values()), record.boundary, self.git.read_blob,
                                                          lambda: self.git.submodule_paths(me.head),
                                                          self._moves_taken_in(run, me.base))
        violations = [v.to_json() for v in report.violations]
        violations += self._refused_at_finish(run, task_id, me, report, tip, violations)
        from .stray_files import add_stray_file_fixes

        add_stray_file_fixes(violations, me.changes.values(), record.worktree if me.source == "worktree" else None,
                             self.git.common_dir / "info" / "exclude", committed=False,
                             renames=lambda: self.git.renames(me.base, me.tree))
        mode = self._left_behind_mode(run)
        failed: list[str] = []   # the left-behind look gave no answer (failed inside, or too large): unanswered
        left_behind = self._left_behind(run_id, task_id, me, tip, failed) if mode is not SemanticMode.OFF else []
        from ..check.names_unread import names_unread
        from ..check.unrelocked_lockfiles import unrelocked_notes

        # The changed files of a language no check reads: their removed names were not looked for.
        unread = names_unread(me.changes.values(), self.git.read_blob) if mode is not SemanticMode.OFF else None
        # The merge refuses a task that leaves uses of a name it removed (the run's left-behind mode).
        blocked = mode is SemanticMode.BLOCK and any("use_path" in row for row in left_behind)
        # Intents declared with `wtc intent add` are the task's work too: the agent sees them, with
        # their states, before it finishes (finish lists them the same way).
        intents = [{"intent_id": row["intent_id"], "op": row["data"].get("op"), "name": row["data"].get("name"),
                    "spec": row["data"].get("spec"), "manifest": row["data"].get("manifest"), "state": row["state"]}
                   for row in self.store.list_intents(run_id) if row["task_id"] == task_id]
        # A look that failed is not a clean answer: exit 6 (EXIT_INTERNAL, what the finish's own look
        # ends in), after what the agent can act on (its boundary, its conflicts).
        exit_code = EXIT_BOUNDARY if violations else EXIT_ACTION if not clean or blocked \
            else EXIT_INTERNAL if failed else EXIT_OK
        return TaskCheck(exit_code=exit_code, run=run_id, task=task_id,
                         state=record.state.value, source=me.source, clean=clean, files=sorted(me.changes),
                         violations=violations, onto=onto, not_compared=not_compared, intents=intents,
                         left_behind=left_behind, left_behind_blocks=blocked,
                         left_behind_unchecked=failed[0] if failed else "",
                         names_unread=unread.to_json() if unread else {},
                         notes=unrelocked_notes(me.changes), stats=engine.stats(started, 1 + len(others)))

    def _refused_at_finish(self, run: Any, task_id: str, me: CurrentState, report: Any, tip: str,
                           violations: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """What finish refuses of the task's reserved-file and member-manifest edits, in its words,
        read from the task's current state while the agent can still change them, when the boundary
        itself is kept: first its reserved edits no intent can carry (reserved_edits.py:
        `reserved_unexpressible`, `reserved_invalid`; check said "merges cleanly" of an edit to an
        editable-install line of requirements.txt, which finish then rejected, found driving wtc on
        httpx), then, when none is, the member ranges no version can meet
        (base._disjoint_member_ranges). One derivation, with the owned changes, as finish does:
        owned member manifests only add relock intents (no refusal comes of them), so the refusals
        are the reserved edits' alone."""
        from ..consolidate.lockfile_names import is_manifest

        owned_manifests = any(is_manifest(c.path) for c in report.owned)
        if violations or not (report.reserved or owned_manifests):
            return []
        from ..check.reserved_edits import derive_task_intents

        derived, refused = derive_task_intents(
            report.reserved, report.owned, task=task_id, since=me.base, read_blob=self.git.read_blob,
            tree_paths=lambda: self.git.tree_paths(me.base), read_path=lambda name: self.git.file_at(me.base, name))
        if refused or not owned_manifests:
            return refused
        return self._disjoint_member_ranges(run, task_id, report.owned, derived, tip)

    def _left_behind(self, run_id: str, task_id: str, me: CurrentState, tip: str,
                     failed: list[str]) -> list[dict[str, Any]]:
        """The uses, in code this task did not change, of names it removed or renamed, that its merge
        would find (left_behind.py): read in the integration tip's tree, as the merge reads them (a
        merged task that updated a file took its use out; one that made an export list an `export *`
        barrel passed the name on to importers the base's tree never led to: found driving wtc on
        socket.io, where `task check` was clean and the finish was refused). A look that failed
        inside puts its reason in `failed` (look_for_uses) beside its note."""
        if not may_remove_names(me.changes.values()):
            # Nothing removed from a file a profile reads (left_behind.readable_changes is empty), so
            # nothing to look for: the semantic check (tree-sitter, the profiles' rules) stays unloaded.
            return []
        from ..check.left_behind import look_for_uses

        unread: list[str] = []   # the star lists the task changed that the look cannot read (a computed `__all__`)
        partial: list[str] = []  # more files mentioning a removed name than the look reads: read in part
        found, not_looked = look_for_uses(self.git, me.changes.values(), tip, failed=failed, unread=unread,
                                          partial=partial)
        if not_looked and not failed:
            # Too many changed files to look at (LookupTooLarge) is no answer either: not clean (exit 6).
            failed.append(not_looked)
        # A use in a file the task owns already (widened to it): the note says to update it there,
        # not to ask for a widen (`owned`: the text of `task check` groups the rows by it too).
        own = tuple(me.task.boundary.own)
        rows = [f.to_json() | {"note": f.note(task_id, run_id, own), "owned": matches(own, f.use_path)} for f in found]
        if partial and not failed:
            # Files left unread may hold a use: no answer either (exit 6), as the merge refuses for it.
            failed.append(partial[0])
            return [{"note": f"uses of removed names were looked for in part, so the merge will not take this task "
                             f"without --merge-unchecked: {partial[0]}"}] + rows
        if not_looked:
            return [{"note": f"uses of removed names were not looked for: {not_looked}"}]
        return [{"note": f"uses of removed names were looked for in part: {line}"} for line in unread] + rows

    # ---- each task's state now -----------------------------------------------------------------

    def _states(self, records: Iterable[TaskRecord], tip: str, *, include_ended: bool = False) -> list[CurrentState]:
        """The current state of each live task (its worktree) and each finished-but-unmerged task
        (its branch); with `include_ended`, any task whose branch still exists."""
        chosen: list[tuple[TaskRecord, Path | None]] = []
        for task in records:
            worktree = Path(task.worktree) if task.worktree else None
            if task.state.live and worktree is not None and worktree.is_dir():
                chosen.append((task, worktree))
            elif task.state.live or task.state is TaskState.FINISHED or include_ended:
                chosen.append((task, None))
        if len(chosen) <= 1:
            # One task (a check's own state, or one other task): no thread, as status_view does.
            listed = [self._working_listing(*item) for item in chosen]
        else:
            # Not concurrent.futures: it loads logging (~3-5 ms of a `task check`'s start-up).
            from .in_threads import map_in_threads

            listed = map_in_threads(lambda item: self._working_listing(*item), chosen, workers=STATUS_THREADS)
        states = []
        for (task, worktree), (head, paths, error) in zip(chosen, listed):
            if head is None:
                continue   # no branch to read (a task whose branch was deleted)
            try:
                states.append(self._state(task, worktree, head, paths, tip, error))
            except Exception as problem:   # noqa: BLE001 - narrowed next: pygit2's class exists only once loaded
                if worktree is not None and isinstance(problem, OSError) and not worktree.is_dir():
                    # Gone between its listing and its reading: the task finished (finish removes
                    # the worktree) or was abandoned while this looked. Its branch holds what it made.
                    branch = self.git.ref_target(f"refs/heads/{task.branch}")
                    if branch is not None:
                        states.append(self._state(task, None, branch, [], tip, (
                            f"worktree {worktree} went away while it was read (the task finished or was "
                            f"abandoned meanwhile); its branch is used instead")))
                    continue
                if not isinstance(problem, (KeyError, ValueError) + _libgit2_errors()):
                    raise
                states.append(CurrentState(task, "branch", head, "", tip, error=f"unreadable: {problem}"))
        return states

    def _working_listing(self, task: TaskRecord, worktree: Path | None) -> tuple[str | None, list[str], str | None]:
        if worktree is None and task.state.live and task.worktree:
            # Recorded but gone (moved or deleted by hand): say so, and forecast from the branch.
            return self.git.ref_target(f"refs/heads/{task.branch}"), [], (
                f"worktree {task.worktree} is missing; its branch is used instead (uncommitted edits unseen)")
        if worktree is not None and half_made(worktree):
            return self.git.ref_target(f"refs/heads/{task.branch}"), [], (
                f"worktree {worktree} is half made (a start or update was interrupted); its branch is used "
                f"instead: rebuild it with wtc task update {task.task_id} --run {task.run_id}")
        if worktree is not None:
            try:
                head, paths = self.git.working_changes(worktree)
                generated = tuple(self._generated_paths(worktree)) if paths else ()
                if generated:  # what finish will not commit is not the task's change (and may be 10,000 files)
                    paths = [p for p in paths if not p.startswith(generated)]
                if head is not None:
                    return head, paths, None
            except Exception as problem:  # noqa: BLE001 - a broken worktree must not hide the others
                return self.git.ref_target(f"refs/heads/{task.branch}"), [], (
                    f"worktree unreadable ({problem}); its branch is used instead")
        return self.git.ref_target(f"refs/heads/{task.branch}"), [], None

    def _state(self, task: TaskRecord, worktree: Path | None, head: str, paths: list[str], tip: str,
               error: str | None) -> CurrentState:
        # Without libgit2 loaded, git processes write the edits' tree (read-tree, update-index,
        # write-tree: the head's tree is read by read-tree, so not asked first); with it, or where
        # git could not, libgit2 does. The same tree either way (tests/core/test_process_trees.py).
        # read-tree and write-tree cost what the tree holds: past PROCESS_TREE_ENTRIES files the
        # import (then O(changed folders)) costs less.
        entries = self.git.index_entries(worktree) if worktree is not None else None
        by_git = not self.git.libgit2_loaded and (entries or 0) <= PROCESS_TREE_ENTRIES
        head_tree = None if by_git else self.git.tree_id(head)
        tree, source, uncommitted = head_tree, "branch", 0
        if worktree is not None and error is None:
            source = "worktree"
            edits = self.git.working_blobs(worktree, paths)
            uncommitted = len(edits)
            if edits:
                tree = self.git.tree_with_edits(head, edits) if by_git else None
                if tree is None:
                    from ..integrate.trees import update_tree

                    tree = str(update_tree(self.git.repo, head_tree or self.git.tree_id(head), edits))
        if tree is None:
            tree = self.git.tree_id(head)
        base = self.git.merge_base(head, tip)
        merging = self.git.merge_head(worktree) if source == "worktree" and worktree is not None else None
        if merging is not None:
            # A `task update` left its merge of integration open (markers to resolve): the commit
            # finish makes has that tip as a parent, so the files it brought in are not the task's
            # changes (measured from them, they were "outside the boundary" and "both changed").
            pending = self.git.merge_base(merging, tip)
            if self.git.is_ancestor(base, pending):
                base = pending
        state = CurrentState(task, source, head, tree, base, uncommitted, error=error)
        state.changes = {c.path: c for c in self.git.changes(base, tree)}
        return state


class _Engine:
    """The file merges and declaration inventories of one forecast, with their caches."""

    def __init__(self, coordinator: CoordinatorBase, semantic: SemanticMode):
        self.git = coordinator.git
        self.semantic = semantic
        self.cache_dir = coordinator.git.wtc_dir / CACHE_DIR
        self.memory: dict[str, dict[str, Any]] = {}
        self.declared: dict[tuple[str, str | None, str | None], tuple[str, ...]] = {}
        self.integration_changes: dict[str, dict[str, Change]] = {}
        self.word_sets: dict[str, tuple[set[bytes], set[bytes]]] = {}
        self.file_words: dict[str, set[bytes]] = {}
        self.undefined: dict[tuple[str, str | None], set[bytes]] = {}
        self.renamed: dict[tuple[str, str], dict[str, str]] = {}
        self.merged = self.hits = self.pairs = 0

    def stats(self, started: float, tasks: int) -> dict[str, Any]:
        return {"tasks": tasks, "pairs_merged": self.pairs, "files_merged": self.merged,
                "cache_hits": self.hits, "seconds": round(time.monotonic() - started, 4)}

    # -- declarations each side changes

    def declarations(self, state: CurrentState, path: str) -> tuple[str, ...]:
        from ..merge.inventory.declarations import changed_declarations

        change = state.changes[path]
        key = (path, change.old_oid, change.new_oid)
        if key not in self.declared:
            self.declared[key] = changed_declarations(self._blob(change.old_oid), self._blob(change.new_oid), path)
        return self.declared[key]

    # -- merges

    def merge_pair(self, left: CurrentState, right: CurrentState, paths: list[str]) -> list[dict[str, Any]]:
        """Conflicts predicted when `left`'s and `right`'s current states merge (files in `paths`)."""
        if not paths:
            return []
        self.pairs += 1
        base = left.base if left.base == right.base else self.git.merge_base(left.head, right.head)
        found = []
        for path in paths:
            base_oid = self._entry(base, path)
            shown, left_oid, right_oid = self._follow_renames(path, base_oid, left.changes[path].new_oid,
                                                              right.changes[path].new_oid,
                                                              (base, left.tree), (base, right.tree))
            outcome = self._merge(shown, base_oid, left_oid, right_oid, trees=(left.tree, right.tree))
            found += [{"left": left.name, "right": right.name, "path": shown} | _sides_named(c, f"task {left.name}",
                                                                                             f"task {right.name}")
                      for c in outcome["conflicts"]]
        return found

    def reserved_pair(self, left: CurrentState, right: CurrentState, path: str) -> list[dict[str, Any]]:
        """What consolidation would say of both tasks' edits of the reserved file `path`."""
        from . import forecast_intents   # consolidation's parsers (yaml, tomlkit, packaging): only here

        base = left.base if left.base == right.base else self.git.merge_base(left.head, right.head)
        return forecast_intents.between_tasks(
            path, self._blob(self._entry(base, path)), self._blob(left.changes[path].new_oid),
            self._blob(right.changes[path].new_oid), left_task=left.name, right_task=right.name)

    def reserved_onto_integration(self, state: CurrentState, path: str, tip: str,
                                  waiting: list[Any]) -> list[dict[str, Any]]:
        """What consolidation would say of the task's edit of `path` after the intents waiting on
        integration (merged tasks'), against the integration tip's manifest."""
        from . import forecast_intents

        return forecast_intents.onto_integration(
            path, self._blob(self._entry(state.base, path)), self._blob(state.changes[path].new_oid),
            self._blob(self._entry(tip, path)), task=state.name, waiting=waiting, integration=INTEGRATION)

    def integration_overlap(self, state: CurrentState, tip: str) -> set[str]:
        if state.base == tip:
            return set()
        if state.base not in self.integration_changes:
            self.integration_changes[state.base] = {c.path: c for c in self.git.changes(state.base, tip)}
        return {p for p in set(state.changes) & set(self.integration_changes[state.base])
                if not matches(state.task.boundary.reserved, p)}

    def merge_onto_integration(self, state: CurrentState, tip: str) -> list[dict[str, Any]]:
        """Conflicts predicted when the task's current state merges onto the integration tip."""
        found = []
        for path in sorted(self.integration_overlap(state, tip)):
            ours = self.integration_changes[state.base][path]
            shown, left_oid, right_oid = self._follow_renames(path, ours.old_oid, ours.new_oid,
                                                              state.changes[path].new_oid,
                                                              (state.base, tip), (state.base, state.tree))
            outcome = self._merge(shown, ours.old_oid, left_oid, right_oid, trees=(tip, state.tree))
            found += [{"left": INTEGRATION, "right": state.name, "path": shown}
                      | _sides_named(c, INTEGRATION, f"task {state.name}") for c in outcome["conflicts"]]
        return found

    # -- renames: a file one side moved (and maybe edited) while the other edited it in place merges
    # -- into the moved file, as git's rename detection does at merge time (merge-ort, in the queue)

    def _follow_renames(self, path: str, base_oid: str | None, left_oid: str | None, right_oid: str | None,
                        left_from: tuple[str, str], right_from: tuple[str, str]) -> tuple[str, str | None, str | None]:
        """(path to report, left blob, right blob) for a file the two sides share: when one side
        deleted `path` that the other changed, and the deleting side renamed it (git's similarity
        rules), its version is the renamed file's and the path reported is the new one."""
        if base_oid is None or (left_oid is None) == (right_oid is None):
            return path, left_oid, right_oid
        mover, kept_oid = (left_from, right_oid) if left_oid is None else (right_from, left_oid)
        new_path = self._renames(*mover).get(path)
        if new_path is None or kept_oid is None:
            return path, left_oid, right_oid
        moved_oid = self._entry(mover[1], new_path)
        return (new_path, moved_oid, right_oid) if left_oid is None else (new_path, left_oid, moved_oid)

    def _renames(self, base: str, tree: str) -> dict[str, str]:
        """Old path -> new path for every file git's rename detection pairs between `base` and `tree`
        (commits or trees); computed once per pair, only when a shared file was deleted on one side."""
        if (base, tree) not in self.renamed:
            self.renamed[(base, tree)] = self.git.renames(base, tree)
        return self.renamed[(base, tree)]

    # -- names one side removes and the other's new code uses, across files

    def may_break_names(self, one: CurrentState, other: CurrentState) -> bool:
        """Whether a name whose definition one task removed from a file appears new in a file the
        other changed: a cross-file semantic finding needs both (a definition gone, a use on an
        added line), so a pair without one is never checked."""
        return self._may_break(self._words(one.tree + one.base, one.changes),
                               self._words(other.tree + other.base, other.changes))

    def pairs_that_may_break_names(self, states: list[CurrentState]) -> list[tuple[CurrentState, CurrentState]]:
        """Every pair of tasks `may_break_names` holds for, in the states' order, found through an
        index of the names whose definitions each task removed (so a run of 1,000 tasks is not
        500,000 set intersections): only pairs sharing a name are returned."""
        if self.semantic is not SemanticMode.BLOCK:
            return []
        words = [self._words(s.tree + s.base, s.changes) for s in states]
        gone_by: dict[bytes, list[int]] = {}
        for index, (gone, _new) in enumerate(words):
            for word in gone:
                gone_by.setdefault(word, []).append(index)
        pairs: set[tuple[int, int]] = set()
        for index, (_gone, new) in enumerate(words):
            for word in new:
                for other in gone_by.get(word, ()):
                    if other != index:
                        pairs.add((min(index, other), max(index, other)))
        return [(states[i], states[j]) for i, j in sorted(pairs)]

    @staticmethod
    def _may_break(one: tuple[set[bytes], set[bytes]], other: tuple[set[bytes], set[bytes]]) -> bool:
        return bool(one[0] & other[1] or other[0] & one[1])

    def _words(self, key: str, changes: dict[str, Change]) -> tuple[set[bytes], set[bytes]]:
        """(names whose definition is gone from, words of the lines added to) the changed files that
        have a semantic check. Gone is read from definitions, not words: a deleted or rewritten file
        loses every word it had (`return`, `self`, `err`), and pairing it with every task that writes
        a new file would check hundreds of pairs that cannot hold a finding. New is read from the
        added lines, not from words the file did not hold: a second call of a name the file already
        calls is a new use (found driving wtc on mobxjs/mobx: `task check` said clean, finish then
        reported the semantic conflict)."""
        if key not in self.word_sets:
            gone: set[bytes] = set()
            new: set[bytes] = set()
            for change in changes.values():
                if profile_name_for_path(change.path) is None:
                    continue   # no profile reads it (a text file): the semantic check stays unloaded
                # here: a task with no changes of code loads no semantic check (tree-sitter, the profiles)
                from ..merge.checks.semantic import semantic_profile

                profile = semantic_profile(change.path)
                if profile is None:
                    continue
                gone |= self._undefined(profile, change.old_oid, change.new_oid)
                new |= self._added_words(change.old_oid, change.new_oid)
            self.word_sets[key] = (gone, new)
        return self.word_sets[key]

    def _undefined(self, profile: Any, old: str | None, new: str | None) -> set[bytes]:
        """Names the old version of a file defines that the new one no longer binds in the same
        place (top level or the same container): the semantic check's removals, read the same way
        (symbols.extract), without the check's narrowing to the lines the other side touched."""
        if old is None or old == new:
            return set()
        if (old, new) not in self.undefined:
            from ..merge.checks.symbols import Symbols, extract

            before = extract(profile, self._blob(old) or b"", uses=False)
            after = extract(profile, self._blob(new) or b"", uses=False) if new is not None else Symbols()
            # A Go import binds in its own file only, though the directory's files share every other
            # top-level name: a file that drops `import "io"` breaks no other file. (A Python or JS
            # import can be a re-export other modules use, so there it counts.)
            file_local = {"import"} if profile.semantic.package == "directory" else set()
            self.undefined[(old, new)] = {d.name.encode("utf-8", "surrogateescape") for d in before.definitions
                                          if d.kind not in file_local and not after.binds(d.container, d.name)}
        return self.undefined[(old, new)]

    def _added_words(self, old: str | None, new: str | None) -> set[bytes]:
        """The words of the lines `new` adds to `old` (every line of a new file)."""
        if new is None or old == new:
            return set()
        key = f"{old}..{new}"
        if key not in self.file_words:
            from ..merge.lines.linediff import added_text

            data = self._blob(new) or b""
            self.file_words[key] = set(_WORDS.findall(data if old is None else added_text(self._blob(old) or b"", data)))
        return self.file_words[key]

    def names_broken_across(self, state: CurrentState, target: str, base: str, target_tree: str,  # tree or commit
                            target_changes: dict[str, Change]) -> list[dict[str, Any]]:
        """Semantic conflicts the merge of `state` onto `target_tree` (both from `base`) would have
        across its files: the check the merge queue runs on a tree merge (`check_tree_merge`), on a
        merged tree built here: the target's tree with the task's changes written over it, and for
        a file both change, the structured merge of it (or the target's version when that conflicts:
        its conflict is predicted already). Blocking mode only: in warn mode the queue merges."""
        if self.semantic is not SemanticMode.BLOCK:
            return []
        mine = self.changes_from(state, base)
        if not self._may_break(self._words(state.tree + base, mine), self._words(target_tree + base, target_changes)):
            return []
        import hashlib

        key = hashlib.sha256(json.dumps([CACHE_VERSION, engine_fingerprint(), "across", base, target_tree, state.tree, target, state.name])
                             .encode()).hexdigest()
        return self._cached(key, lambda: {"conflicts": self._names_broken_now(state, target, base, target_tree,
                                                                              target_changes, mine)})["conflicts"]

    def changes_from(self, state: CurrentState, base: str) -> dict[str, Change]:
        """The task's changes measured from `base` (its own, unless the pair's merge base differs)."""
        return state.changes if base == state.base else {c.path: c for c in self.git.changes(base, state.tree)}

    def _names_broken_now(self, state: CurrentState, target: str, base: str, target_tree: str,
                          target_changes: dict[str, Change], mine: dict[str, Change]) -> list[dict[str, Any]]:
        from ..integrate.trees import update_tree
        import pygit2
        from ..merge import check_tree_merge, merge_file

        repo = self.git.repo
        edits: dict[str, tuple[str, int] | None] = {}
        for path, change in mine.items():
            theirs = target_changes.get(path)
            if theirs is None:
                edits[path] = None if change.new_oid is None else (change.new_oid, change.new_mode or 0o100644)
            elif theirs.new_oid is not None and change.new_oid is not None and theirs.new_oid != change.new_oid:
                merged = merge_file(self._blob(change.old_oid) or b"", self._blob(theirs.new_oid) or b"",
                                    self._blob(change.new_oid) or b"", path, semantic=SemanticMode.OFF)
                if merged.clean:
                    edits[path] = (str(repo.create_blob(merged.merged)), theirs.new_mode or 0o100644)
        if not edits:
            return []
        merged_tree = update_tree(repo, repo[pygit2.Oid(hex=target_tree)].peel(pygit2.Tree).id, edits)
        self.pairs += 1
        findings = check_tree_merge(repo, base, target_tree, state.tree, merged_tree,
                                    labels=(target, "base", state.name))
        return [{"left": target, "right": state.name, "path": f.use_path, "declaration": f.declaration,
                 "kind": "semantic", "start_line": f.use_line, "end_line": f.use_line, "detail": f.message}
                for f in findings]

    def _merge(self, path: str, base: str | None, left: str | None, right: str | None, *,
               trees: tuple[str, str]) -> dict[str, Any]:
        # A file of a language whose folders are packages (Go): the semantic check reads the
        # package's other files in both trees (a name one side moved there is not gone), so their
        # folders are part of what the outcome depends on.
        folders = self._package_folders(path, trees)
        import hashlib

        key = hashlib.sha256(json.dumps([CACHE_VERSION, engine_fingerprint(), path, base, left, right, self.semantic.value, *folders])
                             .encode()).hexdigest()
        return self._cached(key, lambda: self._merge_now(path, base, left, right, trees))

    def _package_folders(self, path: str, trees: tuple[str, str]) -> list[str | None]:
        """The ids of `path`'s folder in both trees when its language's folders are packages, else []."""
        import pygit2
        from ..merge.checks.semantic import semantic_profile

        profile = semantic_profile(path)
        if profile is None or profile.semantic.package != "directory":
            return []
        folder = posixpath.dirname(path)
        out: list[str | None] = []
        for tree in trees:
            root = self.git.repo[pygit2.Oid(hex=tree)].peel(pygit2.Tree)
            try:
                out.append(str(root[folder].id) if folder else str(root.id))
            except KeyError:
                out.append(None)
        return out

    def _package_files(self, trees: tuple[str, str]) -> Callable[[str], list[tuple[str, bytes]]]:
        """merge.checks.semantic.PackageFiles over both trees: the other files of a file's folder in each."""
        import pygit2
        def files(path: str) -> list[tuple[str, bytes]]:
            folder, found = posixpath.dirname(path), []
            for tree in trees:
                root = self.git.repo[pygit2.Oid(hex=tree)].peel(pygit2.Tree)
                try:
                    listing = root[folder] if folder else root
                except KeyError:
                    continue
                for entry in listing:
                    if entry.type_str == "blob" and entry.name.endswith(posixpath.splitext(path)[1]):
                        found.append((posixpath.join(folder, entry.name), self._blob(str(entry.id)) or b""))
            return found
        return files

    def _cached(self, key: str, compute: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """`compute()`'s outcome, from memory, the cache folder, or computed and stored there."""
        if key in self.memory:
            self.hits += 1
            return self.memory[key]
        file = self.cache_dir / key[:2] / key[2:]
        try:
            outcome = json.loads(file.read_text())
            self.hits += 1
            with contextlib.suppress(OSError):
                os.utime(file)   # in use: `wtc gc` prunes only files no open run read or wrote (forecast_column.prune)
        except (OSError, ValueError):
            outcome = compute()
            self.merged += 1
            _write_atomically(file, json.dumps(outcome))
        self.memory[key] = outcome
        return outcome

    def _merge_now(self, path: str, base: str | None, left: str | None, right: str | None,
                   trees: tuple[str, str]) -> dict[str, Any]:
        if left == right or left == base:
            return {"clean": True, "conflicts": []}
        if right == base:
            return {"clean": True, "conflicts": []}
        if left is None or right is None:
            return {"clean": False, "conflicts": [{"declaration": "", "kind": "delete_modify",
                                                   "start_line": None, "end_line": None,
                                                   "detail": "one side deletes the file, the other changes it"}]}
        from ..merge import merge_file
        from ..check.unrelocked_lockfiles import merge_reasons

        result = merge_file(self._blob(base) or b"", self._blob(left) or b"", self._blob(right) or b"", path,
                            semantic=self.semantic, package_files=self._package_files(trees))
        conflicts = [{"declaration": c.declaration, "kind": c.kind, "start_line": c.start_line,
                      "end_line": c.end_line}
                     | ({"detail": c.finding.message} if c.finding is not None else {})
                     for c in result.conflicts]
        if not result.clean and not conflicts:
            conflicts = [{"declaration": "", "kind": "content", "start_line": None, "end_line": None}]
        why = merge_reasons(path, result.notes)
        for conflict in conflicts if why else ():
            conflict["why"] = why   # what the merge could not do there, and what to do (as finish says it)
        if base is None and not result.clean:
            for conflict in conflicts:   # a file both added: one declaration both wrote, or the whole file
                conflict["kind"] = "add_add" if conflict["kind"] in ("content", "insert_insert") else conflict["kind"]
        return {"clean": result.clean, "conflicts": conflicts}

    def _entry(self, commit: str, path: str) -> str | None:
        import pygit2
        tree = self.git.repo[pygit2.Oid(hex=commit)].peel(pygit2.Tree)
        try:
            return str(tree[path].id)
        except KeyError:
            return None

    def _blob(self, oid: str | None) -> bytes | None:
        return None if oid is None else self.git.read_blob(oid)


def _libgit2_errors() -> tuple[type[BaseException], ...]:
    """pygit2's error class when pygit2 is loaded (only then can a libgit2 call have raised it)."""
    import sys

    pygit2 = sys.modules.get("pygit2")
    return (pygit2.GitError,) if pygit2 is not None else ()


def _by_path(states: list[CurrentState]) -> dict[str, list[CurrentState]]:
    found: dict[str, list[CurrentState]] = {}
    for state in states:
        for path in state.changes:
            found.setdefault(path, []).append(state)
    return found


def _sides_named(conflict: dict[str, Any], ours: str, theirs: str) -> dict[str, Any]:
    """`conflict` with its why naming the two sides as the pair does (`task a`, `integration`): the
    outcome is cached by blobs, whoever's they are, so it was merged under git's neutral labels."""
    if not conflict.get("why"):
        return conflict
    why = [w.replace("`ours`", f"`{ours}`").replace("`theirs`", f"`{theirs}`") for w in conflict["why"]]
    return conflict | {"why": why}


def _write_atomically(file: Path, text: str) -> None:
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        temporary = file.with_name(f".{file.name}.{os.getpid()}.tmp")
        temporary.write_text(text)
        os.replace(temporary, file)
    except OSError:
        pass   # a cache that cannot be written only costs the next call a merge


def _once(conflicts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each semantic conflict once: a use in a file both tasks change is found by the file's merge
    and by the tree-level check across files (whose prefilter reads the added lines' words), with
    the pair in either order."""
    seen: set[tuple[Any, ...]] = set()
    out = []
    for conflict in conflicts:
        if conflict.get("kind") == "semantic":
            key = (conflict.get("path"), conflict.get("start_line"), frozenset((conflict.get("left"), conflict.get("right"))))
            if key in seen:
                continue
            seen.add(key)
        out.append(conflict)
    return out
