"""A task's life: start (branch and worktree off the pin, boundary recorded), finish (commit
everything, check the boundary, derive intents, record, remove the worktree), update (bring the
integration tip into the worktree) and abandon (snapshot, keep the branch).

Every operation runs through `run_once` under the task's lease, and each is written to be re-run:
a retry after a crash finds the record and rebuilds what is missing (a half-made worktree, a
deleted branch whose worktree still holds the work) and never commits twice.
"""

from __future__ import annotations

import json
import shlex
import stat
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

from .. import boundary as boundaries
from ..boundary.generated import left_out_note
from ..frozen import value_class
from .stray_files import add_stray_file_fixes
from ..store import leases
from ..crashpoints import crash_point
from ..errors import BusyError, GitError, StateError, UsageError
from ..gitrepo import GIT_MODE_GITLINK, GitRepo
from ..store.idempotency import Outcome, default_key, run_once, variant_key
from ..model import UNAPPLIED_INTENT_STATES, Boundary, RunRecord, RunState, TaskRecord, TaskState, validate_name
from ..results import (TaskAbandoned, TaskFinished, TaskWidened,
                      TaskStarted, TaskUpdated)

from .base import MANIFEST_PATH, EXIT_BOUNDARY, _parse_author, _split_author, half_made, may_remove_names, staged
from .worktree_marks import half_made_error
from .plan import PlanOperations
from .worktree_setup import WorktreeSetupOperations

if TYPE_CHECKING:
    from ..integrate import Resolver

# SemanticMode (merge/result.py) is imported where a mode is compared: a start compares none.


STALE_INDEX_LOCK_SECONDS = 120.0   # without a process list: a worktree lock this old is a killed git's
OWN_LOCK_SETTLE_SECONDS = 2.0      # a worktree lock younger than this may be a libgit2 write in flight
OWN_LOCK_WAIT_SECONDS = 10.0       # how long a call waits for a git still working in the task's worktree
OWN_MESSAGE_DEPTH = 64   # commits of a task's own line read for the message a finish without -m keeps


class TaskOperations(WorktreeSetupOperations, PlanOperations):
    """Start, finish, update and abandon tasks."""

    @staged("task.start")
    def start_task(self, run_id: str, task_id: str, own: Sequence[str] = (), read: Sequence[str] = (), *,
                   sparse: bool = False, exclusive: bool = False, author: str | None = None,
                   key: str | None = None, boundary_from: str | None = None) -> TaskStarted:
        """Give a task its branch and ephemeral worktree off the run's pinned commit, prepared to run
        (worktree_setup.py). With no `own` globs the plan decides the boundary by the task's name
        (plan.py); `boundary_from` names where given globs came from (shown by `wtc status`)."""
        run = self._run(run_id)
        validate_name("task", task_id)
        existing = None if own else self.store.get_task(run_id, task_id)
        if existing is not None:
            # No --own for a task that exists (`wtc task exec "$WTC_TASK" --no-finish -- npm test`, a
            # start again by name): the task as it is, not the plan's boundary compared with its own.
            own, read = existing.boundary.own, tuple(read) or existing.boundary.read
            sparse, exclusive = sparse or existing.boundary.sparse, exclusive or existing.boundary.exclusive
        elif not own:
            planned, boundary_from = self.boundary_for(run_id, task_id)
            own, read, sparse = planned["own"], planned["read"], sparse or planned["sparse"]
        rules = self._run_rules(run)   # the reserved files as committed at the pin, never a working file
        reserved = boundaries.reserved_patterns(rules.reserved_add, rules.reserved_remove)
        boundary = boundaries.make_boundary(own, read, reserved=reserved, exclusive=exclusive, sparse=sparse)
        author_name, author_email = _parse_author(author, run_id, task_id)
        request = {"run": run_id, "task": task_id, "own": list(boundary.own), "read": list(boundary.read),
                   "sparse": sparse, "exclusive": exclusive, "author": f"{author_name} <{author_email}>"}

        def body() -> Outcome:
            with leases.hold(self.store, leases.task_lease(run_id, task_id), timeout=self.config.wait_timeout,
                             what=f"task {task_id}"):
                started = self._start_task_locked(run, task_id, boundary, f"{author_name} <{author_email}>",
                                                  boundary_from or "--own")
            # Never final: a repeat answers the task's state then (merged, its worktree re-created),
            # not what this call saw. Harnesses re-run agents on resume; that is the normal path.
            return Outcome(started.to_json(), started.exit_code, final=False)

        # The derived key serializes identical starts; a start is never replayed (its outcome is
        # open), so another boundary is another request (checked against the task itself), not a
        # misuse of one key: a re-run agent's original flags after the lead widened its task.
        done = run_once(self.store, key, "task.start", request, body,
                        ttl=self.config.idempotency_ttl, wait_timeout=self.config.wait_timeout,
                        derived=variant_key(default_key(run_id, "start", task_id), boundary=request))
        return TaskStarted.from_json(done.outcome.result, replayed=done.replayed)

    def _start_task_locked(self, run: RunRecord, task_id: str, boundary: Boundary, author: str,
                           boundary_from: str) -> TaskStarted:
        branch = f"wtc/{run.run_id}/{task_id}"
        path = self.worktree_path(run.run_id, task_id)
        existing = self.store.get_task(run.run_id, task_id)
        overlaps: list[dict[str, Any]] = []
        if existing is not None:
            # The same flags again, or the flags it started with after the lead widened it (a harness
            # re-running its agent passes what it passed the first time): the task as it is now.
            old = existing.boundary
            if not (set(boundary.own) <= set(old.own) and set(boundary.read) <= set(old.read) | set(old.own)
                    and (boundary.sparse, boundary.exclusive) == (old.sparse, old.exclusive)):
                raise UsageError(
                    f"task {task_id!r} already exists in run {run.run_id!r} with another boundary "
                    f"(own {list(existing.boundary.own)})",
                    fix="use a new task name, or repeat the original --own/--read/--sparse flags",
                )
            if existing.state is TaskState.ABANDONED:
                raise StateError(f"task {task_id!r} was abandoned; it cannot be started again",
                                 fix=f"its branch {existing.branch} keeps the work: start a new task with another "
                                     f"name (from there: git -C <its worktree> merge {existing.branch})")
            if not existing.state.live:
                return self._ended_task(run, existing)
            boundary = existing.boundary
            overlaps = existing.result.get("overlaps", [])
        else:
            # Overlap check and insert under one short run-wide lease, so two exclusive tasks that
            # overlap can never both get in.
            with leases.hold(self.store, f"boundaries:{run.run_id}", timeout=self.config.wait_timeout,
                             what=f"run {run.run_id} boundaries"):
                # Read again here: a land may have ended the run since this call read it. What a
                # landed run still does is for the tasks it has (left out of a partial land).
                if (self.store.get_run(run.run_id) or run).state is RunState.LANDED:
                    raise self._landed_run_takes_no_task(run, task_id)
                overlaps = self._overlaps(run.run_id, task_id, boundary)
                blocking = [o for o in overlaps if boundary.exclusive or o["exclusive"]]
                if blocking:
                    raise _exclusive_overlap(task_id, blocking, boundary.exclusive, widening=False)
                now = time.time()
                self.store.insert_task(TaskRecord(
                    run_id=run.run_id, task_id=task_id, state=TaskState.STARTED, branch=branch,
                    worktree=str(path), boundary=boundary, author=author, head=run.base,
                    created_at=now, updated_at=now, result={"overlaps": overlaps},
                ), event=("task.started", {"own": list(boundary.own)}), context={"boundary_from": boundary_from})
        crash_point("start.after_record")
        try:
            self._fetch_pin(run)   # a remote run's pin, when this clone lacks it (its failure names the remote)
            folders = [boundaries.literal_prefix(glob) for glob in boundary.own]
            try:
                if existing is not None and self.git.ref_target(f"refs/heads/{branch}") is None:
                    self._fetch_task(run, existing)   # started on another machine and pushed there: resume it here
                cone = self._task_cone(run, boundary)
                # A new task's listing of the pin (one `git ls-tree`, for the notes) runs beside its
                # worktree's registration and checkout: two processes on two cores. A failure of
                # either is answered as the listing's first, as when it ran first; a task that
                # exists lists first, so a failure leaves its worktree as it was.
                listing = self.git.paths_under_each(run.base, folders, now=existing is None)
                glob_notes = [] if existing is None else self._glob_notes(run, boundary, listing)
            except GitError as error:
                # The pin's tree is read first here: a failure is most likely a pin no longer held.
                raise self._pin_gone(run) or error from None
            sparse_notes = []
            if boundary.sparse and cone is None:
                wide = [g for g in list(boundary.own) + list(boundary.read) if boundaries.cone_directories([g]) is None]
                sparse_notes.append(f"--sparse asked, but {', '.join(repr(g) for g in wide)} may match files in any "
                                    "folder, so the worktree is a full checkout; give globs under a folder (e.g. "
                                    "'docs/**/*.rst') for a sparse one")
            kept = existing is not None and (path / ".git").is_file() and (path / MANIFEST_PATH).is_file()
            cleared: list[str] = []     # locks a killed git left on the task's branch, removed
            try:
                self._ensure_worktree(run, task_id, branch, path, cone, cleared)
            except BaseException:
                if existing is None:
                    self._glob_notes(run, boundary, listing)   # the listing's failure first, as before
                raise
            if existing is None:
                glob_notes = self._glob_notes(run, boundary, listing)
            notes = _unanchored_overlap_notes(overlaps) + glob_notes + sparse_notes + cleared
            # No manifest: the worktree was (re-)made just now and is not prepared yet.
            fresh = not (path / MANIFEST_PATH).is_file()
            prepared = self._prepare_worktree(run, task_id, path) if fresh else self._prepared(run.run_id, task_id)
        except BaseException as error:
            if existing is None:  # this call made the task: nobody has its path, nothing is lost
                self._roll_back_start(run, task_id, branch, path, error)
            raise
        manifest = self._write_manifest(run, task_id, branch, path, boundary, prepared)
        self.store.update_task(run.run_id, task_id, worktree=str(path))
        self.reporter.event("task.started", run=run.run_id, task=task_id, worktree=str(path))
        context = self.store.task_contexts(run.run_id, task_id)
        exit_code = 0
        if existing is not None:
            notes = _live_again_notes(existing, str(path), kept, run.run_id) + notes
            # A conflict asks the caller to act (update, resolve, finish again), as its finish did.
            exit_code = 1 if existing.state is TaskState.CONFLICT else 0
        return TaskStarted(
            exit_code=exit_code, run=run.run_id, task=task_id, state=existing.state.value if existing else "started",
            worktree=str(path), branch=branch, base=run.base,
            boundary=boundary.to_json(), sparse_cone=list(cone) if cone is not None else None,
            overlaps=overlaps, manifest=str(manifest), notes=notes,
            boundary_from=context[0]["data"].get("boundary_from", "") if context else "", prepared=prepared,
            existing=existing is not None,
            last_finish=_public_result(existing.result) if existing is not None and existing.finished_at else None,
        )

    def _glob_notes(self, run: RunRecord, boundary: Boundary, listing: Callable[[str], Iterator[str]]) -> list[str]:
        """The notes of --own globs that match no file at the pin, from `listing` (the pin's paths
        under each glob's folder); a failure to list is the pin's error when the pin is gone."""
        try:
            return boundaries.unmatched_glob_notes("own", boundary.own, listing, run.base[:12])
        except GitError as error:
            raise self._pin_gone(run) or error from None

    def _ended_task(self, run: RunRecord, task: TaskRecord) -> TaskStarted:
        """What a start of a task that has ended answers: its state, never a worktree (a merged
        task's folder was removed when it merged, and nothing is left to do in one). A folder a
        killed finish left behind is removed first, as its finish would have."""
        if task.state in (TaskState.MERGED, TaskState.EMPTY, TaskState.FINISHED):
            self._drop_worktree(task, ended=task.state is not TaskState.FINISHED)
        result = task.result
        merge = result.get("merge") or {}
        if task.state is TaskState.MERGED:
            tip = merge.get("new_tip") or ""
            files = [c["path"] for c in result.get("changed", [])]
            shown = ", ".join(files[:10]) + (f" and {len(files) - 10} more" if len(files) > 10 else "")
            notes = [f"task {task.task_id} already merged into {run.integration_ref}"
                     + (f" as {tip[:12]}" if tip else "") + (f": {shown}" if shown else "")
                     + "; nothing to do (its worktree was removed when it merged)"]
            exit_code = 0
        elif task.state is TaskState.EMPTY:
            notes = [f"task {task.task_id} already finished with no change; nothing to do"]
            exit_code = 0
        elif task.state is TaskState.FINISHED:
            notes = [f"task {task.task_id} is finished and waits to merge: `wtc merge --run {run.run_id}` merges it"]
            exit_code = 0
        else:   # FAILED: its verification failed; update brings the worktree back to fix it
            notes = [f"task {task.task_id} failed verification; its work is on {task.branch}: "
                     f"`wtc task update {task.task_id} --run {run.run_id}` brings its worktree back onto the "
                     f"integration tip, fix it there, then `wtc task finish {task.task_id} --run {run.run_id}`"]
            exit_code = 1
        return TaskStarted(
            exit_code=exit_code, run=run.run_id, task=task.task_id, state=task.state.value, worktree="",
            branch=task.branch, base=run.base, boundary=task.boundary.to_json(), notes=notes, existing=True,
            last_finish=_public_result(result),
        )

    def _overlaps(self, run_id: str, task_id: str, boundary: Boundary) -> list[dict[str, Any]]:
        found = []
        for other in self.store.list_tasks(run_id, [TaskState.STARTED, TaskState.REJECTED, TaskState.CONFLICT]):
            if other.task_id == task_id:
                continue
            pairs = boundaries.may_overlap(boundary.own, other.boundary.own)
            if pairs:
                found.append({"task": other.task_id, "exclusive": other.boundary.exclusive,
                              "globs": [list(p) for p in pairs]})
        return found

    def _ensure_worktree(self, run: RunRecord, task_id: str, branch: str, path: Path,
                         cone: Sequence[str] | None, notes: list[str]) -> str:
        """The task's worktree, created or re-created as needed; returns its HEAD (verified). Called
        under the task's lease: a lock of its branch a killed git left is removed (a note in `notes`)."""
        ref = f"refs/heads/{branch}"
        tip = self.git.ref_target(ref)
        if tip is not None and not self.git.is_ancestor(run.base, tip):
            raise StateError(f"branch {branch} exists but does not descend from the run's pinned commit {run.base[:12]}",
                             fix=f"delete it (git branch -D {branch}) or use another task name")
        if path.exists() and (path / ".git").is_file():
            head, symbolic = self.git.worktree_head(path)
            if head is not None and symbolic == ref and (path / MANIFEST_PATH).is_file():
                return head  # complete: the manifest is written last
            # A half-made worktree (a start killed between registration and checkout): nobody was
            # handed its path yet, so rebuilding it loses nothing; its branch keeps any commits.
            self.git.remove_worktree(path)
        elif path.exists():
            self.git.remove_worktree(path)
        expected = tip or run.base
        head = self.git.add_worktree(path, branch, run.base, sparse_dirs=cone, cleared=notes)
        if head != expected:
            self.git.remove_worktree(path)
            raise StateError(f"the new worktree's HEAD {head[:12]} is not the expected {expected[:12]}",
                             fix="retry; if it repeats, run `wtc gc` and report a bug")
        return head

    def _write_manifest(self, run: RunRecord, task_id: str, branch: str, path: Path, boundary: Boundary,
                        prepared: dict[str, Any] | None = None) -> Path:
        manifest = path / MANIFEST_PATH
        manifest.parent.mkdir(parents=True, exist_ok=True)
        body = {
            "schema": "wtc.task-manifest/1",
            "run": run.run_id,
            "task": task_id,
            "branch": branch,
            "base": run.base,
            "own": list(boundary.own),
            "read": list(boundary.read),
            "reserved": list(boundary.reserved),
            "note": "Change only paths matching `own`. Edits to `reserved` files become intents for the "
                    "consolidation phase. When done: wtc task finish " + task_id + " --run " + run.run_id,
        }
        if prepared:
            body["env_file"] = prepared.get("env_file")
            if prepared.get("ports"):
                body["ports"] = prepared["ports"]
        context = self.store.task_contexts(run.run_id, task_id)
        if context and context[0]["data"].get("earlier"):   # a re-run agent (agents.py): what it ran before
            body["earlier"] = context[0]["data"]["earlier"]
        temporary = manifest.with_suffix(".tmp")
        temporary.write_text(json.dumps(body, indent=2) + "\n")
        temporary.replace(manifest)
        return manifest

    @staged("task.finish")
    def finish_task(self, run_id: str, task_id: str, *, message: str | None = None, merge: bool = True,
                    verify: str | None = None, key: str | None = None, merge_unchecked: bool = False) -> TaskFinished:
        """Commit the worktree, check the boundary, record the outcome, remove the worktree, then
        merge the task into the integration branch (unless `merge=False`; `merge()` drains later).
        The merge refuses (LookUnanswered, exit 6) while the look for uses of names the task removed
        gives no answer, unless `merge_unchecked` (kept with the task: a later `merge()` takes it too)."""
        run = self._run(run_id)
        self._task(run_id, task_id)
        request = {"run": run_id, "task": task_id, "message": message, "merge": merge, "verify": verify} \
            | ({"merge_unchecked": True} if merge_unchecked else {})

        def body() -> Outcome:
            with leases.hold(self.store, leases.task_lease(run_id, task_id), timeout=self.config.wait_timeout,
                             what=f"task {task_id}"):
                result = self._finish_task_locked(run, task_id, message)
                if merge_unchecked:
                    self._allow_unchecked_merge(run_id, task_id)
                mergeable = result.state in (TaskState.FINISHED.value, TaskState.CONFLICT.value) \
                    and not _unresolved_markers(result.conflicts)
                # What the merge reads of this task alone, read now, before any merge lock: kept in
                # memory for the merge below, on disk for a later `wtc merge` (task_facts.py).
                facts = self._keep_task_facts(run, task_id) if mergeable and not result.replayed else None
                try:
                    if merge and mergeable:
                        result = self._merge_task_locked(run, task_id, verify)
                finally:
                    if facts is not None:
                        facts.settle()   # (written with the merge's own, or alone for --no-merge)
                if result.state != TaskState.EMPTY.value and \
                        (self.store.get_run(run_id) or run).state is RunState.LANDED:
                    import dataclasses

                    note = self._after_landing_note(run, merged=result.state == TaskState.MERGED.value)
                    result = dataclasses.replace(result, notes=[*result.notes, note])
            # A task left finished (--no-merge) may still fail its verification in a later `wtc merge`,
            # and be updated and finished again: that finish must run, not replay this answer (it
            # left the repaired work uncommitted, the task started, and `wtc merge` found nothing).
            # Run again on a finished task, a finish answers from its record (`_finished_earlier`).
            final = result.exit_code == 0 and result.state != TaskState.FINISHED.value
            return Outcome(result.to_json(), result.exit_code, final=final)

        # A finish again with or without --verify (after a failed verification, say), or with or
        # without a message (a first finish with -m ended in a conflict; the fix says to run `wtc task
        # finish` again), is another request, not a misuse of the first one's key.
        done = run_once(self.store, key,
                        "task.finish", request, body,
                        ttl=self.config.idempotency_ttl, wait_timeout=self.config.wait_timeout,
                        derived=variant_key(default_key(run_id, "finish", task_id), verify=verify, no_merge=not merge,
                                            message=message, merge_unchecked=merge_unchecked or None))
        return TaskFinished.from_json(done.outcome.result, replayed=done.replayed)

    def _keep_task_facts(self, run: RunRecord, task_id: str) -> Any:
        """The facts of the task's own change that its merge's checks read (check/task_facts.py),
        computed into the repository's merge index; returns that index (None: the run's checks
        are off, nothing to read). A failure only loses the cache: the merge computes them."""
        from ..merge.languages.profile_index import profile_name_for_path

        task = self._task(run.run_id, task_id)
        if not any(profile_name_for_path(row["path"]) for row in task.result.get("changed", ())):
            return None   # before the imports: no profile reads a changed file (nothing to extract)
        from ..merge.result import SemanticMode

        if self._semantic_mode(run) is SemanticMode.OFF and self._left_behind_mode(run) is SemanticMode.OFF:
            return None
        commit = task.result.get("mergeable") or task.head
        base = task.result.get("since") or run.base
        if not commit or not base:
            return None
        from ..check.task_facts import keep_task_facts
        from ..merge.checks.merge_index import index_folder, shared_index

        kept = shared_index(index_folder(self.git.repo))
        try:
            keep_task_facts(self.git, base, commit, kept)
        except Exception:   # noqa: BLE001 - a cache: the merge computes what is missing, and says any error itself
            pass
        return kept

    def _allow_unchecked_merge(self, run_id: str, task_id: str) -> None:
        """Record on a finished task that a person said to merge it without the look for uses of
        the names it removed (`--merge-unchecked`): its merge, now or at `wtc merge`, reads it."""
        task = self._task(run_id, task_id)
        if task.state in (TaskState.FINISHED, TaskState.CONFLICT) and not task.result.get("merge_unchecked"):
            self.store.update_task(run_id, task_id, result=task.result | {"merge_unchecked": True},
                                   holder=self._fence(run_id, task_id))

    def _left_behind_notes(self, run: RunRecord, changes: list, task_id: str) -> list[str]:
        """Uses, in code the task did not change, of names it removed are checked when it merges, on
        the merged tree (left_behind.left_behind_at_merge: a use another task updated meanwhile is
        not one); a task that changed more files than that check reads is told it cannot be, and
        that its merge needs `--merge-unchecked` (with the run's mode at block)."""
        if not changes:
            return []   # before the imports: merge/result.py, and left_behind.py's semantic check (tree-sitter)
        from ..merge.result import SemanticMode

        if self._left_behind_mode(run) is SemanticMode.OFF:
            return []   # before the import: left_behind.py loads the semantic check (tree-sitter, the profiles)
        if not may_remove_names(changes):
            return []   # readable_changes is empty (no profile reads a changed file): no count to give
        from ..check.left_behind import MAX_CHANGED, readable_changes

        count = len(readable_changes(changes))
        if count <= MAX_CHANGED:
            return []
        if self._left_behind_mode(run) is not SemanticMode.BLOCK:
            return [f"uses of removed names in code outside this task's changes are not looked for at its merge: "
                    f"it changed {count} files with a semantic check, more than the {MAX_CHANGED} read; `wtc report "
                    f"--run {run.run_id}` looks across the run before landing"]
        return [f"uses of removed names in code outside this task's changes cannot be looked for at its merge: it "
                f"changed {count} files with a semantic check, more than the {MAX_CHANGED} read, so the merge refuses "
                f"it (exit 6): split the task, or check those uses by hand and merge it without the look: "
                f"`wtc task finish {task_id} --run {run.run_id} --merge-unchecked`"]

    def _names_unread(self, run: RunRecord, changes: list) -> Any:
        """The task's changed files of a language no check reads names in (check/names_unread.py),
        with the run's left-behind mode not off; falsy when none."""
        from ..check.names_unread import NamesUnread, names_unread

        if not changes:
            return NamesUnread()    # before merge/result.py's import: a finish with nothing loads no merge code
        from ..merge.result import SemanticMode

        if self._left_behind_mode(run) is SemanticMode.OFF:
            return NamesUnread()
        return names_unread(changes, self.git.read_blob)

    def _syntax_notes(self, changes: list) -> list[str]:
        """A note per file the task left unparseable (merge/checks/syntax.py): the merge and its checks
        read such a version as nothing, so it would merge without a word and the landed tree not load."""
        from ..merge.languages.profile_index import profile_name_for_path

        readable = [c for c in changes if c.new_oid is not None and profile_name_for_path(c.path) is not None]
        if not readable:
            return []   # before the imports: the profiles and tree-sitter load only for a file one reads
        from ..merge.checks.syntax import broken_syntax

        added = {c.path for c in readable if c.old_oid is None}
        found = broken_syntax((c.path, None if c.old_oid is None else self.git.read_blob(c.old_oid),
                               self.git.read_blob(c.new_oid)) for c in readable)
        return [f"{b.path}:{b.line}:{b.column}: does not parse as {b.language} "
                f"({'a file this task added' if b.path in added else 'it did before this task'}): the merge and "
                "its checks read nothing of it, and it will not load as it is: fix the syntax there (before this "
                "task merges, in its worktree; after, in a task that owns the file), unless it is syntax newer "
                "than wtc's grammar for the language"
                for b in found]

    def _finish_task_locked(self, run: RunRecord, task_id: str, message: str | None) -> TaskFinished:
        """Finish one task under its lease, one step after another: a finish already done answers as it
        did; the worktree's work is committed; the branch is checked from where it last took in
        integration; what the check found is recorded: conflict blocks left, a rejection with the way
        out, or the task finished (or empty) with its intents, its worktree dropped."""
        task = self._task(run.run_id, task_id)
        earlier = self._finished_earlier(task, task_id)
        if earlier is not None:
            return earlier
        notes, problems = self._commit_worktree(run, task, task_id, message)
        crash_point("finish.after_commit")
        tip = self._task_tip(run, task, task_id)
        found = self._check_branch(run, task, task_id, tip, problems)
        changed = [{"path": c.path, "status": c.status} for c in found.changes]
        if found.markers and not found.violations:
            return self._refuse_markers(run, task, tip, found.markers, changed, notes)
        if found.violations:
            return self._reject(run, task, task_id, tip, found, changed, notes)
        return self._record_finished(run, task, task_id, tip, found, changed, notes)

    def _finished_earlier(self, task: TaskRecord, task_id: str) -> TaskFinished | None:
        """The answer of a finish already done (or of a verification that failed since), None when
        the task is live and has work to finish; a task that ended another way cannot be finished."""
        if task.state in (TaskState.FINISHED, TaskState.MERGED, TaskState.EMPTY) or (
                task.state is TaskState.CONFLICT and not _unresolved_markers(task.result.get("conflicts", []))
                and not self._has_new_work(task)):
            # Finished earlier (perhaps by a call with another key): clean up what a crash may have
            # left, and return the recorded outcome (the caller goes on to merge a FINISHED task).
            if task.state is not TaskState.CONFLICT:
                self._drop_worktree(task, ended=task.state is not TaskState.FINISHED)
            return TaskFinished.from_json(task.result, replayed=task.state is not TaskState.FINISHED)
        if task.state is TaskState.FAILED and task.result.get("reason") == "failed_verification":
            # Nothing changed since verification failed: the same answer, with the way out (update,
            # fix, finish again), not "start a new task".
            return TaskFinished.from_json(task.result, replayed=True)
        if not task.state.live:
            raise StateError(f"task {task_id!r} is {task.state.value} and cannot be finished",
                             fix="start a new task; its branch " + task.branch + " keeps the work")
        return None

    def _commit_worktree(self, run: RunRecord, task: TaskRecord, task_id: str, message: str | None
                         ) -> tuple[list[str], list[dict[str, str]]]:
        """The worktree's work committed on the task's branch, unless its state forbids it (a problem
        each: another branch checked out, stashed work, large files); without a worktree here, the
        branch as pushed or as it is. Returns (notes for the agent, problems)."""
        path = Path(task.worktree) if task.worktree else None
        notes: list[str] = []
        problems: list[dict[str, str]] = []
        if path is not None and path.exists() and self._is_ours(path):
            if half_made(path):
                raise half_made_error(task_id, run.run_id, path, done="committed")
            notes += self._clear_stale_locks(path, task.branch)
            notes += self._recover_branch(run, task, path)
            problems = self._worktree_problems(task, path)
            stashed = self.git.stashes_made_on(task.branch)
            if stashed and not problems:
                # Work the commit would not hold, in a place every other agent's `git stash pop`
                # reaches: the agent decides (apply or drop), finish never leaves it behind silently.
                problems.append({"path": "", "rule": "stashed_work",
                                 "detail": _stash_note(task.branch, task.worktree, stashed)})
            if not problems:
                generated = self._generated(path)
                # Checked before the commit: once committed, a file is in the history landing pushes.
                problems = self._large_working_files(run, task, path, [folder for folder, _ in generated])
            if not problems:
                name, email = _split_author(task.author)
                self.git.commit_all(path, message or self._own_message(run, task) or f"wtc: {task_id}", name, email,
                                    leave_out=[folder for folder, _ in generated])
                if generated:
                    notes.append(left_out_note(generated))
        else:
            if run.remote and self._fetch_task(run, task):
                notes.append(f"the worktree is not on this machine; finished the branch as pushed to {run.remote}")
            else:
                notes.append("the worktree was gone; checked the branch as it is")
        return notes, problems

    def _own_message(self, run: RunRecord, task: TaskRecord) -> str | None:
        """The newest message the task's own line holds that wtc did not write (a finish's `-m`, the
        agent's own commit): what a finish without `-m` commits under, so the work a `task update`
        brought back for a fix keeps the task's words (not `wtc: TASK`). None on a branch still at
        the pin, or one whose every commit wtc named."""
        tip = self.git.ref_target(f"refs/heads/{task.branch}")
        if tip is None or tip == run.base:
            return None   # nothing committed yet: no walk, no libgit2
        # Bounded: a branch rewritten off the pin (not_from_base) would walk the whole history.
        line = self.git.first_parent_line(tip, run.base, limit=OWN_MESSAGE_DEPTH)
        return next((message.rstrip("\n") for _, _, message in line if not message.startswith("wtc: ")), None)

    def _task_tip(self, run: RunRecord, task: TaskRecord, task_id: str) -> str:
        """The task branch's commit; a branch gone (or never pushed from another machine) is an error
        with the way out."""
        ref = f"refs/heads/{task.branch}"
        tip = self.git.ref_target(ref)
        if tip is None:
            if run.remote:
                raise StateError(f"the task branch {task.branch} is neither in this clone nor on {run.remote}: its "
                                 "worktree is on another machine and was never pushed",
                                 fix=f"finish it on the machine that holds {task.worktree}, or abandon it "
                                     f"(wtc task abandon {task_id} --run {run.run_id}) and start a new one")
            raise StateError(f"the task branch {task.branch} was deleted",
                             fix=f"abandon the task (wtc task abandon {task_id} --run {run.run_id}) and start a new one")
        return tip

    def _check_branch(self, run: RunRecord, task: TaskRecord, task_id: str, tip: str,
                      problems: list[dict[str, str]]) -> _BranchChecked:
        """The branch's own changes (since it last took in integration) checked: it descends from the
        pin, stays in its boundary, holds no conflict blocks `task update` left or large files, and
        its reserved edits become intents; the worktree's problems come first."""
        with self._stage("boundary_check", run=run.run_id, task=task_id) as checked:
            violations = [dict(v) for v in problems]
            changes = []
            reserved = []
            markers: list[dict[str, Any]] = []   # blocks `task update` left unresolved
            derived: list = []  # consolidation Intents, derived only when reserved files or manifests changed
            followed: tuple[tuple[str, str], ...] = ()   # owned files the run moved, owned where they went
            since = run.base
            if not violations:
                if not self.git.is_ancestor(run.base, tip):
                    where = task.worktree or "the task's worktree"
                    violations.append({"path": "", "rule": "not_from_base",
                                       "detail": f"the branch no longer descends from the pinned commit {run.base[:12]} "
                                                 f"(its history was rewritten, e.g. rebased elsewhere); put the work back "
                                                 f"on the pin: `git -C {where} rebase {run.base[:12]}` (or reset to it "
                                                 f"and commit the changes again), then finish again"})
                else:
                    # The task's own work is what it changed since it last took in integration (the pin,
                    # unless `task update` merged the integration branch into it).
                    integration_tip = self.git.ref_target(f"refs/heads/{run.integration_ref}") or run.base
                    since = self.git.merge_base(tip, integration_tip) \
                        if self.git.is_ancestor(run.base, integration_tip) else run.base
                    changes = self.git.changes(since, tip)
                    report = boundaries.check_changes_following_moves(
                        changes, task.boundary, self.git.read_blob, lambda: self.git.submodule_paths(tip),
                        self._moves_taken_in(run, since))
                    violations = [v.to_json() for v in report.violations]
                    followed = report.followed
                    add_stray_file_fixes(violations, changes, task.worktree, self.git.common_dir / "info" / "exclude",
                                         committed=True, renames=lambda: self.git.renames(since, tip))
                    markers = self._leftover_markers(task, tip)
                    violations += self._large_committed_files(run, task, since, tip)
                    reserved = [{"path": c.path, "status": c.status, "base_oid": c.old_oid, "new_oid": c.new_oid}
                                for c in report.reserved]
                    # by name alone (lockfile_names.py): the intent records load only for a manifest edited
                    from ..consolidate.lockfile_names import is_manifest

                    if not violations and (report.reserved or any(is_manifest(c.path) for c in report.owned)):
                        from ..check.reserved_edits import derive_task_intents

                        derived, refused = derive_task_intents(
                            report.reserved, report.owned, task=task_id, since=since, read_blob=self.git.read_blob,
                            tree_paths=lambda: self.git.tree_paths(since),
                            read_path=lambda name: self.git.file_at(since, name))
                        violations += refused
                        if not violations and report.owned:
                            violations += self._disjoint_member_ranges(run, task_id, report.owned, derived,
                                                                       integration_tip)
            checked.update(violations=violations, files=len(changes), reserved=len(reserved))
        return _BranchChecked(violations=violations, changes=changes, reserved=reserved, markers=markers,
                              derived=derived, since=since, followed=followed)

    def _reject(self, run: RunRecord, task: TaskRecord, task_id: str, tip: str, found: _BranchChecked,
                changed: list[dict[str, str]], notes: list[str]) -> TaskFinished:
        """The task recorded rejected, with the way out in its notes."""
        violations, since = found.violations, found.since
        # The way out travels in the JSON too (an agent reading `--json` or an MCP result has no
        # text renderer): fix the paths where they are, finish again.
        # A worktree's state, not its paths, is what is wrong: say what to put right.
        state_fixes = {"branch_switched": f"put the worktree back on {task.branch}",
                       "stashed_work": "pop or drop the stash"}
        rules = {v.get("rule") for v in violations}
        if rules <= state_fixes.keys():
            notes.append(f"{' and '.join(state_fixes[r] for r in sorted(rules))} as the violation says, and run "
                         f"`wtc task finish {task_id} --run {run.run_id}` again")
        else:
            notes.append(f"fix the paths in {task.worktree} and run `wtc task finish {task_id} --run {run.run_id}` again")
        outside = sorted({v["path"] for v in violations
                          if v.get("rule") in ("outside_own", "symlink_outside_own", "symlink_outside_repo") and v["path"]})
        if outside and task.worktree:
            # The edits are committed on the branch by now: the exact way to give them up (after
            # keeping them, for the lead or the task that owns those paths) saves an agent a guess.
            paths = " ".join(shlex.quote(p) for p in outside)
            notes.append(f"to give up the changes outside the boundary (keep them first: `git -C {task.worktree} "
                         f"diff {since[:12]} HEAD -- {paths} > outside.patch`): `git -C {task.worktree} restore "
                         f"--source={since[:12]} --staged --worktree -- {paths}`, then finish again; or, when the "
                         f"task had good reason to change them, the lead widens its boundary: `wtc task widen "
                         f"{task_id} --run {run.run_id} {' '.join('--own ' + shlex.quote('/' + p) for p in outside)} "
                         f"--why '...'`, then finish again")
        result = TaskFinished(
            exit_code=EXIT_BOUNDARY, run=run.run_id, task=task_id, state=TaskState.REJECTED.value, commit=tip,
            branch=task.branch, changed=changed, violations=violations, worktree=task.worktree, notes=notes,
        )
        self.store.update_task(run.run_id, task_id, state=TaskState.REJECTED, head=tip, result=result.to_json(),
                               holder=self._fence(run.run_id, task_id), event=("task.rejected", {"violations": violations}))
        self.reporter.event("task.rejected", run=run.run_id, task=task_id, violations=violations)
        return result

    def _relock_tool(self, intent: Any, tip: str) -> dict[str, str]:
        """`tool` of a relock of a pyproject root: what the project uses, as consolidation names it
        (consolidate/project_tool.py: a setuptools project beside another tool's lockfile is no uv
        root), read from the task's commit; {} for any other intent (the ecosystem names it)."""
        if intent.op.value != "relock" or intent.ecosystem.value != "uv":
            return {}
        from ..consolidate.project_tool import project_tool

        return {"tool": project_tool(lambda name: self.git.file_at(tip, name),
                                     lambda name: self.git.file_at(tip, name) is not None, intent.root)}

    def _record_finished(self, run: RunRecord, task: TaskRecord, task_id: str, tip: str, found: _BranchChecked,
                         changed: list[dict[str, str]], notes: list[str]) -> TaskFinished:
        """The task recorded finished (or empty: no change and no declared intent) with its intents,
        its commits published for a remote run, its worktree dropped."""
        changes, reserved, derived, since = found.changes, found.reserved, found.derived, found.since
        # Intents declared with `wtc intent add` are the task's work as much as its files: a task
        # whose only change is its intents merges (an empty merge) so that they apply.
        declared = [row for row in self.store.list_intents(run.run_id, ("declared",)) if row["task_id"] == task_id]
        state = TaskState.FINISHED if changes or declared else TaskState.EMPTY
        if declared:
            names = ", ".join(f"{row['data'].get('op')} {row['data'].get('name')} in {row['data'].get('manifest')}"
                              for row in declared[:5]) + (f" and {len(declared) - 5} more" if len(declared) > 5 else "")
            notes.append(f"{len(declared)} intent(s) declared with `wtc intent add` ({names}) apply once the task "
                         f"has merged, at `wtc consolidate --run {run.run_id}`")
        notes += [f"{new}: owned as {old}, which the run moved there (a merge this task took in with `task update`)"
                  for old, new in found.followed]
        notes += self._left_behind_notes(run, changes, task_id)
        unread = self._names_unread(run, changes)
        notes += [unread.note()] if unread else []
        notes += self._syntax_notes(changes)
        from ..consolidate.lockfile_names import is_manifest

        if any(is_manifest(c.path) for c in changes):
            from ..check.reserved_edits import unreadable_manifest_notes

            notes += unreadable_manifest_notes(changes, self.git.read_blob)
        if any(c.path.endswith((".gradle", ".gradle.kts")) for c in changes):
            from ..check.gradle_builds import gradle_build_notes

            notes += gradle_build_notes(changes, self.git.read_blob)
        from ..check.unrelocked_lockfiles import unrelocked_notes

        notes += unrelocked_notes(c.path for c in changes)
        if reserved:
            notes.append("reserved-file edits are kept aside on the branch for the consolidation phase")
            carried = {i.manifest for i in derived}
            for path in sorted({r["path"] for r in reserved} - carried):
                # Its edit asks for nothing consolidation applies (e.g. a Go module required again with
                # the version it already has, comments, order): say so rather than "kept aside" alone.
                notes.append(f"{path}: the edit changes no dependency, member, version or override that "
                             "consolidation applies, so no intent carries it (the relock decides the rest)")
            from ..check.uncarried_edits import uncarried_layout

            for change in changes:
                if change.path in carried and (note := uncarried_layout(
                        change.path, self.git.read_blob(change.old_oid) if change.old_oid else None,
                        self.git.read_blob(change.new_oid) if change.new_oid else None, derived)):
                    notes.append(note)
        result = TaskFinished(
            run=run.run_id, task=task_id, state=state.value, commit=tip, branch=task.branch, changed=changed,
            reserved=reserved, worktree=None, notes=notes, names_unread=unread.to_json() if unread else {},
            intents=[i.to_json() | self._relock_tool(i, tip) for i in derived]
            + [row["data"] | {"state": row["state"]} for row in declared],
        )
        self.store.put_intents(run.run_id, task_id, [i.to_json() for i in derived])
        # integrate/mergeable.py alone (what merge_queue re-exports): a finish needs neither the merge
        # queue nor the engine's results and resolvers (start-up, issue 36)
        if reserved:
            from ..integrate import mergeable_commit

            mergeable = mergeable_commit(self.git.repo, tip, since, [r["path"] for r in reserved], task_id)
        else:
            mergeable = tip     # mergeable_commit's answer without reserved edits, without opening libgit2
        if state is TaskState.FINISHED:
            # Pushed before it is recorded: a finished task's commits are on the remote for any machine.
            self._publish_task(run, task_id, task.branch, tip, mergeable)
            crash_point("finish.after_push")
        self.store.update_task(run.run_id, task_id, state=state, head=tip, finished_at=time.time(),
                               holder=self._fence(run.run_id, task_id),
                               result=result.to_json() | {"since": since, "mergeable": mergeable}
                               | {k: task.result[k] for k in ("verify_command", "pending_semantic") if k in task.result},
                               event=(f"task.{state.value}", {"commit": tip, "files": len(changed)}))
        crash_point("finish.after_record")
        self._drop_worktree(task, ended=state is TaskState.EMPTY)   # finished: its merge may bring it back
        self.reporter.event("task.finished", run=run.run_id, task=task_id, state=state.value)
        if state is TaskState.EMPTY:   # an end: nothing will merge
            self.reporter.event("task.closed", run=run.run_id, task=task_id, state=state.value,
                                started_at=task.created_at, files=0)
        return result

    def _clear_stale_locks(self, path: Path, branch: str) -> list[str]:
        """An index.lock, HEAD.lock or branch lock a killed git left blocks every commit in the task's
        worktree (finish's, update's merge): removed when nobody can hold it, with a note each.

        The proof: this call holds the task's lease, so no other wtc call on the task runs; any git
        that takes one of these locks works in the worktree, and git moves into the worktree's top
        before it takes them, so with no git process in the worktree (git_locks.git_processes_in) no
        git holds them: not the agent's own, not one a killed call of ours left running on. A lock
        younger than OWN_LOCK_SETTLE_SECONDS is waited out first (a libgit2 tool of the agent's writes
        in microseconds and has no git process). A git that still works there is waited for a moment
        (a killed call's git ends by itself), then busy, naming it. Where the system cannot list
        processes, the old rule: a lock older than STALE_INDEX_LOCK_SECONDS is stale, a younger one busy."""
        from ..gitrepo import git_locks

        notes: list[str] = []
        deadline = time.monotonic() + OWN_LOCK_WAIT_SECONDS
        while True:
            ages = {lock: age for lock in self.git.worktree_locks(path, branch)
                    if (age := git_locks.lock_age(lock)) is not None}
            if not ages:
                return notes
            working = git_locks.git_processes_in(path)
            if working is None:
                return notes + self._clear_old_locks(ages)
            settling = [age for age in ages.values() if age < OWN_LOCK_SETTLE_SECONDS]
            if not working and not settling:
                for lock in ages:
                    note = git_locks.remove(lock, "no git process works in the task's worktree and the task's "
                                                  "lease is this call's")
                    if note is not None:
                        notes.append(note)
                continue     # anything the removal raced with is looked at again
            if not working:     # settling: at most OWN_LOCK_SETTLE_SECONDS more
                time.sleep(OWN_LOCK_SETTLE_SECONDS - min(settling))
                continue
            if time.monotonic() >= deadline:
                lock = max(ages, key=lambda item: ages[item])
                raise BusyError(f"git's {lock.name} is held for the task's worktree ({lock}): git process(es) "
                                f"{', '.join(map(str, working))} work in {path}",
                                fix="wait for the git command running in the worktree to end, then run the same "
                                    "call again", retry_after=1.0)
            time.sleep(0.1)

    def _clear_old_locks(self, ages: dict[Path, float]) -> list[str]:
        """Without a list of processes: locks older than STALE_INDEX_LOCK_SECONDS were left by a
        killed git (a SIGKILL to the agent's or the call's process group kills its git too) and are
        removed; a fresh one may be the agent's own git command: busy, with a retry."""
        from ..gitrepo import git_locks

        fresh = [(lock, age) for lock, age in ages.items() if age < STALE_INDEX_LOCK_SECONDS]
        if fresh:
            lock, age = max(fresh, key=lambda item: item[1])
            youngest = min(age for _, age in fresh)
            raise BusyError(f"git's {lock.name} is held for the task's worktree ({lock}, {age:.0f} s old)",
                            fix="wait for the git command running in the worktree to end, then finish again; "
                                f"if none runs, remove {' and '.join(str(item) for item, _ in fresh)}",
                            retry_after=max(1.0, STALE_INDEX_LOCK_SECONDS - youngest))
        return [note for lock in ages
                if (note := git_locks.remove(lock, f"older than {STALE_INDEX_LOCK_SECONDS:.0f} s")) is not None]

    def _recover_branch(self, run: RunRecord, task: TaskRecord, path: Path) -> list[str]:
        """A task branch deleted by hand while its worktree still holds the work: recreate the branch
        at the worktree's HEAD (when that descends from the pin) and put the worktree back on it."""
        ref = f"refs/heads/{task.branch}"
        if self.git.ref_target(ref) is not None:
            return []
        head, symbolic = self.git.worktree_head(path)
        if head is None or symbolic not in (None, ref) or not self.git.is_ancestor(run.base, head):
            return []
        self.git.git("checkout", "-q", "-B", task.branch, cwd=path)
        return [f"the branch {task.branch} was deleted by hand; recreated it at the worktree's HEAD {head[:12]}"]

    def _large_working_files(self, run: RunRecord, task: TaskRecord, path: Path,
                             leave_out: list[str]) -> list[dict[str, str]]:
        """Files finish would commit that are over the run's max-file-size (boundary/large_files.py),
        by their size on disk; a file the worktree's HEAD already holds that large is left to the
        check of the task's commits."""
        from ..boundary.large_files import too_large

        limit = self._run_rules(run).max_file_size
        if not limit:
            return []
        head, paths = self.git.working_changes(path)
        sizes = []
        for rel in paths:
            if leave_out and rel.startswith(tuple(leave_out)):
                continue
            try:
                info = (path / rel).lstat()
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode) and info.st_size > limit:
                sizes.append((rel, info.st_size))
        found = too_large(sizes, limit, lambda rel: self._size_at(head, rel))
        return [large.violation(limit, task.worktree, committed=False) for large in found]

    def _large_committed_files(self, run: RunRecord, task: TaskRecord, since: str, tip: str) -> list[dict[str, str]]:
        """Files over the run's max-file-size in any of the task's own commits since `since` (the agent
        committed them itself), by blob size from the object header: a file a later commit removed
        is still in the history the merge would bring in. Merge commits (`task update`) bring other
        tasks' files and are skipped; a file already that large in the commit before is the
        project's own."""
        limit = self._run_rules(run).max_file_size
        if not limit or since == tip:
            return []   # no commit of its own (an empty finish): before the imports, libgit2's above all
        from ..boundary.large_files import too_large

        import pygit2   # here, not at the top: `wtc status` imports this module and must not load libgit2

        blobs = (pygit2.GIT_FILEMODE_BLOB, pygit2.GIT_FILEMODE_BLOB_EXECUTABLE)
        walker = self.git.repo.walk(pygit2.Oid(hex=tip))
        walker.hide(pygit2.Oid(hex=since))
        found: dict[str, Any] = {}
        for commit in walker:
            if len(commit.parents) != 1:
                continue
            # The walk into differing subtrees only (gitrepo's `changes`): libgit2's whole-tree diff
            # cost ~40 ms a finish in a 10,000-file repository, most of a warm finish's own CPU.
            sizes, old = [], {}
            for change in self.git.changes(str(commit.parents[0].id), str(commit.id)):
                if change.new_mode in blobs and change.new_oid is not None:
                    sizes.append((change.path, self._blob_size(change.new_oid)))
                    old[change.path] = change.old_oid if change.old_mode in blobs else None
            for large in too_large(sizes, limit, lambda rel: self._blob_size(old.get(rel))):
                found.setdefault(large.path, large)
        return [large.violation(limit, task.worktree, committed=True, since=since)
                for _, large in sorted(found.items())]

    def _blob_size(self, oid: str | None) -> int | None:
        import pygit2

        if not oid:
            return None
        try:
            return int(self.git.repo.odb.read_header(pygit2.Oid(hex=oid))[1])
        except (KeyError, ValueError, pygit2.GitError):
            return None

    def _size_at(self, commit: str | None, rel: str) -> int | None:
        import pygit2

        if not commit:
            return None
        try:
            entry = self.git.repo[pygit2.Oid(hex=commit)].peel(pygit2.Tree)[rel]
        except KeyError:
            return None
        return self._blob_size(str(entry.id))

    def _leftover_markers(self, task: TaskRecord, tip: str) -> list[dict[str, Any]]:
        """The conflict blocks `task update` left that are still in the task's files: not a boundary
        problem but a conflict the agent has not resolved yet, one row per block (kind
        `unresolved_markers`, its lines and both sides, as a merge conflict's row)."""
        found: list[dict[str, Any]] = []
        for rel in _pending_markers(task.result):
            data = self.git.file_at(tip, rel)
            if data is None:
                continue
            # the merge engine's own marker reader, loaded only where `task update` left markers
            from ..merge.lines.markers import has_markers, parse_conflicts

            blocks = parse_conflicts(data, kind="unresolved_markers")
            for block in blocks:
                found.append({"path": rel, "kind": block.kind, "declaration": "", "start_line": block.start_line,
                              "end_line": block.end_line, "base": block.base, "ours": block.ours,
                              "theirs": block.theirs})
            if not blocks and has_markers(data):   # a block left half-removed: no whole block to show
                found.append({"path": rel, "kind": "unresolved_markers", "declaration": "", "start_line": None,
                              "end_line": None, "base": "", "ours": "", "theirs": ""})
        return found

    def _refuse_markers(self, run: RunRecord, task: TaskRecord, tip: str, markers: list[dict[str, Any]],
                        changed: list[dict[str, str]], notes: list[str]) -> TaskFinished:
        """A finish with conflict markers `task update` left: exit 1, the task in conflict with its
        worktree kept (the commit stays on its branch), each block named with the way on."""
        where = ", ".join(f"{m['path']} lines {m['start_line']}-{m['end_line']}" if m["start_line"] else m["path"]
                          for m in markers[:8]) \
            + (f" and {len(markers) - 8} more" if len(markers) > 8 else "")
        notes = notes + [f"`wtc task update` left conflict markers that are still there ({where}): in each block "
                         f"keep what both sides need (under <<<<<<< the task's own version, above >>>>>>> what "
                         f"integration holds, between ||||||| and ======= the base), remove the markers, then "
                         f"`wtc task finish {task.task_id} --run {run.run_id}` again"]
        result = TaskFinished(exit_code=1, run=run.run_id, task=task.task_id, state=TaskState.CONFLICT.value,
                              commit=tip, branch=task.branch, changed=changed, conflicts=markers,
                              worktree=task.worktree, notes=notes)
        self.store.update_task(run.run_id, task.task_id, state=TaskState.CONFLICT, head=tip,
                               holder=self._fence(run.run_id, task.task_id),
                               result={**task.result, **result.to_json()},
                               event=("task.conflict", {"paths": sorted({m["path"] for m in markers}),
                                                        "unresolved_markers": True}))
        self.reporter.event("task.conflict", run=run.run_id, task=task.task_id, conflicts=markers)
        return result

    def _has_new_work(self, task: TaskRecord) -> bool:
        """A task in conflict has new work when its worktree holds changes or commits since the
        conflict was recorded (the agent resolved something): then finish runs again."""
        if task.worktree and Path(task.worktree).exists() and self._is_ours(Path(task.worktree)):
            if self.git.has_uncommitted(Path(task.worktree)):
                return True
        tip = self.git.ref_target(f"refs/heads/{task.branch}")
        return tip != task.head

    @staged("task.update")
    def update_task(self, run_id: str, task_id: str, *, key: str | None = None) -> TaskUpdated:
        """Bring the task's worktree (re-created if needed) onto the integration tip: a merge of the
        integration branch into the task branch, conflicts pre-resolved by the structured merge where
        it can and left as markers where it cannot. Finishing again merges the task."""
        run = self._run(run_id)
        self._task(run_id, task_id)
        self._sync_integration(run)
        tip_now = self.git.ref_target(f"refs/heads/{run.integration_ref}") or run.base
        request = {"run": run_id, "task": task_id, "integration": tip_now}

        def body() -> Outcome:
            with leases.hold(self.store, leases.task_lease(run_id, task_id), timeout=self.config.wait_timeout,
                             what=f"task {task_id}"):
                result = self._update_task_locked(run, task_id)
            return Outcome(result.to_json(), result.exit_code, final=False)

        done = run_once(self.store, key,
                        "task.update", request, body, ttl=self.config.idempotency_ttl,
                        wait_timeout=self.config.wait_timeout,
                        derived=default_key(run_id, "update", task_id) + "-" + tip_now[:12])
        return TaskUpdated.from_json(done.outcome.result, replayed=done.replayed)

    def _update_task_locked(self, run: RunRecord, task_id: str) -> TaskUpdated:
        task = self._task(run.run_id, task_id)
        if task.state is TaskState.FAILED and task.result.get("reason") == "failed_verification":
            # An ejected task comes back to life in its worktree, to be fixed and finished again:
            # in conflict, said by its event in the same write (a kill before the update's own
            # `task.updated` leaves a conflict the log tells, not a failure it no longer is).
            self.store.update_task(run.run_id, task_id, state=TaskState.CONFLICT,
                                   holder=self._fence(run.run_id, task_id),
                                   event=("task.conflict", {"reason": "failed_verification", "revived": True}))
            task = self._task(run.run_id, task_id)
        if task.state not in (TaskState.STARTED, TaskState.REJECTED, TaskState.CONFLICT):
            raise StateError(f"task {task_id!r} is {task.state.value}; only live tasks can be updated")
        self._sync_integration(run)
        if self.git.ref_target(f"refs/heads/{task.branch}") is None:
            self._fetch_task(run, task)   # a remote run's task that finished (in conflict) on another machine
        path = self.worktree_path(run.run_id, task_id)
        cone = self._task_cone(run, task.boundary)
        self.store.update_task(run.run_id, task_id, worktree=str(path))  # recorded before it exists
        cleared: list[str] = []     # locks a killed git left on the task's branch or in its worktree, removed
        self._ensure_worktree(run, task_id, task.branch, path, cone, cleared)
        cleared += self._clear_stale_locks(path, task.branch)   # an update killed inside its commit or merge
        fresh = not (path / MANIFEST_PATH).is_file()
        prepared = self._prepare_worktree(run, task_id, path) if fresh else self._prepared(run.run_id, task_id)
        self._write_manifest(run, task_id, task.branch, path, task.boundary, prepared)
        task = self._task(run.run_id, task_id)
        name, email = _split_author(task.author)
        # Markers an earlier update left and the agent has not resolved yet: the commit below takes
        # them onto the branch, so they stay pending (finish refuses them) until they are gone.
        pending_markers = _pending_markers(task.result)
        still_marked = [rel for rel in pending_markers if _has_markers(path / rel)]
        unresolved: list[str] = []
        whys: dict[str, list[str]] = {}   # the files this update's merge leaves to the agent, and why
        from . import merge_queue as queue
        from ..merge.result import SemanticMode

        resolver = queue.update_resolver(run.run_id, task_id)  # ours = this task, theirs = integration
        # A merge git stopped in that no update recorded (an update killed after its `git merge`, or
        # the agent's own merge): its conflicts are this update's, merged from the index's stages
        # like any and reported, never committed below as the agent's own work.
        resumed = [rel for rel in self.git.unmerged_paths(path) if rel not in pending_markers]
        head_before = self.git.ref_target(f"refs/heads/{task.branch}")
        for rel in resumed:
            merged, why = _structured_merge_in_worktree(self.git, path, rel, resolver)
            if not merged:
                unresolved.append(rel)
                whys[rel] = why
        if not self._worktree_problems(task, path):
            # With a merge taken up, this commit concludes it (the agent's work since is in it too).
            message = f"wtc: update {task_id} onto {run.integration_ref} (a merge taken up after an interruption)" \
                if resumed else f"wtc: {task_id} work before update"
            self.git.commit_all(path, message, name, email,
                                leave_out=self._generated_paths(path))
        tip = self.git.ref_target(f"refs/heads/{run.integration_ref}") or run.base
        # The merge this update checks starts from the branch before the resumed merge's commit.
        before = head_before if resumed else self.git.ref_target(f"refs/heads/{task.branch}")
        conflicted = self.git.merge_into_worktree(path, tip, f"wtc: update {task_id} onto {run.integration_ref}",
                                                  name, email)
        crash_point("update.after_merge")
        carried: list[str] = []   # reserved manifests merged as the task's intents onto integration's version
        for rel in conflicted:
            if before is not None and boundaries.matches(task.boundary.reserved, rel):
                from .reserved_update import carry_reserved_edit

                note = carry_reserved_edit(self.git, path, rel, task=task_id, base=self.git.merge_base(before, tip),
                                           ours=before, theirs=tip)
                if note is not None:
                    carried.append(note)
                    continue
            merged, why = _structured_merge_in_worktree(self.git, path, rel, resolver)
            if not merged:
                unresolved.append(rel)
                whys[rel] = why
        if conflicted and not unresolved:
            self.git.commit_all(path, f"wtc: update {task_id} onto {run.integration_ref} (structured merge)", name, email,
                                leave_out=self._generated_paths(path))
        unresolved = sorted(set(unresolved) | set(still_marked))
        findings, pending = ([], []) if unresolved else self._update_findings(run, task, before, tip)
        blocking = bool(findings) and self._semantic_mode(run) is SemanticMode.BLOCK
        from ..check.left_behind import uses_outside_boundary
        notes = cleared + carried + uses_outside_boundary(task_id, run.run_id, task.boundary.own, findings)
        notes += [f"{rel} keeps conflict markers because {'; '.join(why)}" for rel, why in whys.items() if why]
        # Markers an earlier update left, still there: said again with their why (a second update
        # listed the file and nothing more, where the first had said what to do with it).
        notes += [f"{rel} still holds the conflict markers an earlier `wtc task update` left, because "
                  f"{'; '.join(pending_markers[rel])}" for rel in still_marked if rel not in whys and pending_markers[rel]]
        moved = self.git.ref_target(f"refs/heads/{task.branch}") != before
        if pending and not findings and not moved:
            notes.append("nothing new to merge; " + (
                "the names an earlier update found broken resolve now" if any(m.get("found") for m in pending)
                else "the merge you resolved by hand breaks no name and declares nothing twice"))
        result = TaskUpdated(exit_code=1 if unresolved or blocking else 0, run=run.run_id, task=task_id,
                             state=task.state.value, worktree=str(path), integration_tip=tip,
                             conflicted_paths=unresolved, merged_cleanly=not unresolved,
                             markers=update_markers(run.run_id, task_id), semantic=findings,
                             notes=notes)
        kept = dict(task.result)
        merges = queue.pending_merges(kept.pop("pending_semantic", None))
        if moved and blocking:   # a new merge broke names: the queue checks it again at the next finish
            merges += [m for m in pending if m not in merges]
        if whys and self._semantic_mode(run) is not SemanticMode.OFF and before is not None:
            # The agent resolves this merge's markers by hand, and the lines outside them are git's
            # line merge: the finish checks that resolution like any merge (a name it breaks, an
            # import both sides added that it now holds twice), which its own three-way view, based
            # on integration's tip once the branch holds the merge, cannot see.
            merges.append({"base": str(self.git.merge_base(before, tip)), "ours": before, "theirs": tip,
                           "found": False, "paths": sorted(whys)})
        if merges:
            # The newest few: each is checked again at every finish (a tree merge's check), and an
            # agent that updates often would make a finish slow; the report's run-wide checks
            # (left_behind, declared_twice) still look at what older ones might have left.
            kept["pending_semantic"] = merges[-MAX_PENDING_MERGES:]
        self.store.update_task(run.run_id, task_id, result=kept | {"pending_markers": {
            rel: whys.get(rel) or pending_markers.get(rel) or [] for rel in unresolved}},
            event=("task.updated", {"integration": tip, "conflicts": unresolved}))
        return result

    def _update_findings(self, run: RunRecord, task: TaskRecord, before: str | None, tip: str
                         ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The semantic check of the merge `task update` just committed (the task's branch before it,
        integration's tip, the merge): a name integration removed that the task's new code uses, or
        the other way round. The merge stays; the agent fixes the use (exit 1 when blocking). Also
        the merges to keep in `pending_semantic` so the queue checks them again at the next finish
        (queue.semantic_check): this one, or with nothing new to merge the ones already pending."""
        from . import merge_queue as queue
        from ..merge.result import SemanticMode

        after = self.git.ref_target(f"refs/heads/{task.branch}")
        pending = queue.pending_merges(task.result.get("pending_semantic"))
        if self._semantic_mode(run) is SemanticMode.OFF or before is None or after is None or \
                (after == before and not pending):
            return [], []
        from ..merge import check_tree_merge

        if after == before:
            # Nothing new to merge, but an earlier update's merge broke names or was left to the
            # agent to resolve: check those merges again with what the branch holds now (the
            # agent's fix, committed above), so an update says whether the fix holds instead of
            # "merged cleanly" while the next finish would refuse.
            found = queue.recheck_pending(self.git.repo, self.git, task.task_id, pending, after)
        else:
            base = self.git.merge_base(before, tip)
            found = list(check_tree_merge(self.git.repo, base, before, tip, after,
                                          labels=(task.task_id, "base", "integration")))
            pending = [{"base": str(base), "ours": before, "theirs": tip, "found": bool(found)}]
        merged = self.store.list_tasks(run.run_id, [TaskState.MERGED])
        report = queue.semantic_report(found, task.task_id, merged, queue.added_lines_reader(self.git.repo, run.base, merged))
        return report, pending

    def _drop_abandoned_intents(self, run_id: str, task_id: str) -> None:
        """Mark the abandoned task's intents not applied as `dropped` (kept, with the reason), under
        the run's intents lease like `wtc intent drop`; a repeat after a kill finishes the job. An
        abandoned task never merges, so these would wait for ever; applied and closed ones stay."""
        with leases.hold(self.store, f"intents:{run_id}", timeout=self.config.wait_timeout,
                         what=f"run {run_id} intents"):
            for row in self.store.list_intents(run_id, UNAPPLIED_INTENT_STATES):
                if row["task_id"] != task_id:
                    continue
                self.store.set_intent_state(run_id, row["intent_id"], "dropped",
                                            {"was": row["state"], "reason": f"its task {task_id} was abandoned",
                                             "previous": row["detail"]})
                self.store.log_event(run_id, task_id, "intent.dropped",
                                     {"intent": row["intent_id"], "reason": "task abandoned"})

    @staged("task.abandon")
    def abandon_task(self, run_id: str, task_id: str, *, key: str | None = None) -> TaskAbandoned:
        """Drop the worktree and keep the branch (with any uncommitted work snapshotted onto it). A
        task not merged yet may be abandoned: live, failed verification, or finished and waiting
        for its merge (`finish --no-merge`, or a finish killed during its verification)."""
        self._run(run_id)
        self._task(run_id, task_id)
        request = {"run": run_id, "task": task_id}

        def body() -> Outcome:
            with leases.hold(self.store, leases.task_lease(run_id, task_id), timeout=self.config.wait_timeout,
                             what=f"task {task_id}"):
                task = self._task(run_id, task_id)
                if task.state is TaskState.ABANDONED:
                    self._drop_worktree(task)  # what a killed abandon may have left (never read)
                    self._drop_abandoned_intents(run_id, task_id)
                    return Outcome(TaskAbandoned.from_json(task.result).to_json())
                # A task whose verification failed, or a finished one waiting for its merge, is given
                # up the same way (its worktree is gone; its branch keeps the work): the lead may decide
                # it is not worth fixing, or not wanted. A merge takes the task's lease and reads its
                # state under it, so an abandoned task is never merged after this.
                if not task.state.live and task.state not in (TaskState.FAILED, TaskState.FINISHED):
                    raise StateError(f"task {task_id!r} is {task.state.value}; only tasks not merged yet (live, "
                                     "finished and waiting for their merge, or failed verification) can be abandoned",
                                     fix="nothing to abandon: " + (
                                         "its work is in integration; undo it with a new task that reverts it"
                                         if task.state is TaskState.MERGED else "it changed nothing"))
                snapshot, missing = self._snapshot(task, "wtc: abandoned snapshot of uncommitted work")
                notes = [_missing_note(missing)] if missing else []
                stashed = self.git.stashes_made_on(task.branch)
                if stashed:  # the worktree goes: the stash stays, applicable in any checkout of the branch
                    notes.append(_stash_note(task.branch, None, stashed))
                waiting = [r["intent_id"] for r in self.store.list_intents(run_id, UNAPPLIED_INTENT_STATES)
                           if r["task_id"] == task_id]
                if waiting:
                    notes.append(f"its {len(waiting)} intent(s) not applied were dropped (intents apply once their "
                                 f"task merges, and this one never will); declare again with `wtc intent add` to keep one")
                result = TaskAbandoned(run=run_id, task=task_id, branch=task.branch, snapshot=snapshot, notes=notes,
                                       dropped_intents=waiting)
                self.store.update_task(run_id, task_id, state=TaskState.ABANDONED, finished_at=time.time(),
                                       result=result.to_json(), holder=self._fence(run_id, task_id),
                                       event=("task.abandoned", {"snapshot": snapshot}))
                self._drop_abandoned_intents(run_id, task_id)
                self._drop_worktree(task)
                self.reporter.event("task.closed", run=run_id, task=task_id, state=TaskState.ABANDONED.value,
                                    started_at=task.created_at)
                return Outcome(result.to_json())

        done = run_once(self.store, key, "task.abandon", request, body,
                        ttl=self.config.idempotency_ttl, wait_timeout=self.config.wait_timeout,
                        derived=default_key(run_id, "abandon", task_id))
        return TaskAbandoned.from_json(done.outcome.result, replayed=done.replayed)

    @staged("task.widen")
    def widen_task(self, run_id: str, task_id: str, own: Sequence[str] = (), read: Sequence[str] = (), *,
                   why: str = "", key: str | None = None) -> TaskWidened:
        """The lead widens a live task's boundary (more globs it may change or read), e.g. after a finish
        was rejected for a path the task had good reason to touch. Recorded with `why` (an event the
        report shows); the new globs are checked for overlaps like `task start`'s (an exclusive task
        they meet refuses, exit 4); the worktree's `.wtc/task.json` and sparse cone follow."""
        run = self._run(run_id)
        self._task(run_id, task_id)
        if not own and not read:
            raise UsageError("nothing to widen: give --own GLOB (what the task may also change) or --read GLOB",
                             fix=f"e.g. wtc task widen {task_id} --run {run_id} --own 'docs/index.md' --why '...'")
        added_own = list(boundaries.validate_globs("own", own))
        added_read = list(boundaries.validate_globs("read", read))
        request = {"run": run_id, "task": task_id, "own": added_own, "read": added_read, "why": why}

        def body() -> Outcome:
            with leases.hold(self.store, leases.task_lease(run_id, task_id), timeout=self.config.wait_timeout,
                             what=f"task {task_id}"):
                return Outcome(self._widen_locked(run, self._task(run_id, task_id), added_own, added_read,
                                                  why).to_json())

        done = run_once(self.store, key, "task.widen", request, body,
                        ttl=self.config.idempotency_ttl, wait_timeout=self.config.wait_timeout,
                        derived=variant_key(default_key(run_id, "widen", task_id), own=added_own, read=added_read))
        return TaskWidened.from_json(done.outcome.result, replayed=done.replayed)

    def _widen_locked(self, run: RunRecord, task: TaskRecord, own: list[str], read: list[str],
                      why: str) -> TaskWidened:
        if not task.state.live and task.state is not TaskState.FAILED:
            raise StateError(f"task {task.task_id!r} is {task.state.value}: only a live task (or one that failed "
                             "verification) can be widened",
                             fix="start a new task with the boundary it needs")
        old = task.boundary
        new_own = [g for g in own if g not in old.own]
        new_read = [g for g in read if g not in old.read and g not in old.own]
        boundary = Boundary(own=tuple(old.own) + tuple(new_own), read=tuple(old.read) + tuple(new_read),
                            reserved=old.reserved, exclusive=old.exclusive, sparse=old.sparse)
        overlaps = task.result.get("overlaps", [])
        met: list[dict[str, Any]] = []
        if new_own or new_read:
            # Overlap check and write under the run's boundary lease, as start's insert is.
            with leases.hold(self.store, f"boundaries:{run.run_id}", timeout=self.config.wait_timeout,
                             what=f"run {run.run_id} boundaries"):
                met = self._overlaps(run.run_id, task.task_id, Boundary(own=tuple(new_own))) if new_own else []
                blocking = [o for o in met if old.exclusive or o["exclusive"]]
                if blocking:
                    raise _exclusive_overlap(task.task_id, blocking, old.exclusive, widening=True)
                known = {o["task"] for o in overlaps}
                overlaps = overlaps + [o for o in met if o["task"] not in known]
                self.store.update_task(run.run_id, task.task_id, boundary=boundary,
                                       result={**task.result, "overlaps": overlaps}, holder=self._fence(run.run_id, task.task_id),
                                       event=("task.widened", {"own": new_own, "read": new_read, "why": why}))
        notes = _unanchored_overlap_notes(met)
        notes += boundaries.unmatched_glob_notes(
            "own", new_own, self.git.paths_under_each(run.base, [boundaries.literal_prefix(glob) for glob in new_own]),
            run.base[:12])
        cone = None
        worktree = Path(task.worktree) if task.worktree else None
        if worktree is not None and (worktree / MANIFEST_PATH).is_file():
            # The agent reads its boundary from .wtc/task.json; a sparse worktree must now hold the new folders.
            self._write_manifest(run, task.task_id, task.branch, worktree, boundary, self._prepared(run.run_id, task.task_id))
            if boundary.sparse:
                cone = self._task_cone(run, boundary)
                notes += self._clear_stale_locks(worktree, task.branch)   # a widen killed in its sparse-checkout set
                self.git.set_sparse(worktree, cone)
                if cone is None:
                    notes.append("a new glob may match files in any folder: the worktree is now a full checkout")
        elif worktree is not None and task.state.live:
            notes.append(f"the worktree {worktree} is not on this machine: the new boundary holds at finish, but "
                         "its .wtc/task.json and sparse cone are as they were")
        if not new_own and not new_read:
            notes.append("the boundary already held every glob given: nothing changed")
        # The answer names the live tasks the new globs meet (the result's contract), not every task
        # the boundary met at start, merged ones too, that the record keeps (found driving wtc on
        # javapoet: one file widened, "overlaps live task a, b, c, e, f", all of them merged).
        return TaskWidened(run=run.run_id, task=task.task_id, state=task.state.value, boundary=boundary.to_json(),
                           added_own=new_own, added_read=new_read, why=why, overlaps=met,
                           sparse_cone=list(cone) if cone is not None else None, notes=notes)


def _unresolved_markers(conflicts: Sequence[dict[str, Any]]) -> bool:
    """Did a finish stop at conflict markers `task update` left (nothing to merge until resolved)?"""
    return any(c.get("kind") == "unresolved_markers" for c in conflicts)


def _pending_markers(result: dict[str, Any]) -> dict[str, list[str]]:
    """The files `task update` left conflict markers in, each with why it could not merge them
    (a record written before the why was kept holds the paths alone)."""
    pending = result.get("pending_markers") or {}
    return dict.fromkeys(pending, []) if isinstance(pending, list) else pending


def _public_result(result: dict[str, Any]) -> dict[str, Any]:
    """A task's recorded result without the bookkeeping that follows it through its states."""
    return {k: v for k, v in result.items()
            if k not in ("overlaps", "since", "mergeable", "pending_markers", "pending_semantic", "verify_command")}


def _live_again_notes(task: TaskRecord, worktree: str, kept: bool, run_id: str) -> list[str]:
    """What a start of a live task that exists says: its worktree is the task's own (kept as it
    was, uncommitted work included, or re-created from its branch), and what stopped its last
    finish, with the way on."""
    where = (f"its worktree {worktree} is as it was (uncommitted work kept)" if kept else
             f"its worktree {worktree} was re-created from {task.branch} (the commits are in it; the folder was gone)")
    notes = [f"task {task.task_id} already exists ({task.state.value}): {where}"]
    finish = f"`wtc task finish {task.task_id} --run {run_id}`"
    if task.state is TaskState.REJECTED:
        broken = "; ".join(f"{v.get('path') or '-'}: {v.get('rule')}" for v in task.result.get("violations", [])[:5])
        notes.append(f"its last finish was rejected ({broken}): fix that in the worktree, then {finish} again")
    elif task.state is TaskState.CONFLICT:
        paths = ", ".join(sorted({c.get("path", "") for c in task.result.get("conflicts", [])})) or "its files"
        notes.append(f"its last finish conflicted with the integration branch in {paths}; the worktree holds the "
                     f"task's own work: `wtc task update {task.task_id} --run {run_id}` brings the integration tip "
                     f"in (markers where it cannot merge), resolve, then {finish} again")
    return notes


def _missing_note(missing: list[str]) -> str:
    shown = ", ".join(missing[:10]) + (f" and {len(missing) - 10} more" if len(missing) > 10 else "")
    return (f"{len(missing)} tracked file(s) missing from the worktree were not recorded as deleted "
            f"(a snapshot never takes a missing file for work; `git rm` stages a deletion that is kept): {shown}")


def update_markers(run_id: str, task_id: str) -> list[dict[str, str]]:
    """What each conflict marker of `task update` stands for (the labels `queue.update_resolver`
    writes): the block under `<<<<<<<` is the task's own version, the one above `>>>>>>>` is what
    the integration branch holds."""
    return [
        {"marker": "<<<<<<<", "label": f"task {task_id}", "side": "ours",
         "holds": f"this task's own version (branch wtc/{run_id}/{task_id})"},
        {"marker": "|||||||", "label": "base", "side": "base", "holds": "the version both sides started from"},
        {"marker": ">>>>>>>", "label": f"integration {run_id}", "side": "theirs",
         "holds": "what the integration branch holds: other tasks' merged work, to keep unless this task "
                  "replaces it on purpose"},
    ]


def _has_markers(path: Path) -> bool:
    from ..merge.lines.markers import has_markers

    return path.is_file() and has_markers(path.read_bytes())


MAX_PENDING_MERGES = 8   # update merges a finish checks again (pending_semantic), the newest kept


def _structured_merge_in_worktree(git: GitRepo, path: Path, rel: str, resolver: Resolver) -> tuple[bool, list[str]]:
    """Re-merge one conflicted file of `task update`'s in-progress merge with `resolver`, from its
    index stages; write the result into the file, staging it when clean. Returns whether it is
    clean, and why the structured merge kept conflicts (a guard's sentence, a fallback's reason)."""
    base, ours, theirs = (git.index_stage(path, rel, number) for number in (1, 2, 3))
    if ours is None or theirs is None:
        return False, []  # delete/modify: leave git's own state for the agent
    from ..integrate import FileToResolve

    result = resolver([FileToResolve(rel, base or b"", ours, theirs)])[rel]
    (path / rel).write_bytes(result.merged)
    if result.clean:
        git.stage_path(path, rel)
    from ..check.unrelocked_lockfiles import merge_reasons

    return result.clean, merge_reasons(rel, result.notes)


def _stash_note(branch: str, worktree: str | None, stashes: list[tuple[str, str]]) -> str:
    """What stash entries made on a task's branch are, and the commands that keep or drop them
    (the newest first: dropping stash@{n} renumbers the older ones, so one at a time)."""
    where = f"git -C {shlex.quote(worktree)}" if worktree else "git"
    refs = ", ".join(ref for ref, _ in stashes)
    newest = stashes[0][0]
    return (f"{refs} hold{'s' if len(stashes) == 1 else ''} work stashed on {branch} that no commit includes (the "
            f"stash is shared by every worktree, where another agent's stash pop can take it); keep it with "
            f"`{where} stash pop {newest}`, or give it up with `{where} stash drop {newest}`, then finish again")


def _exclusive_overlap(task_id: str, blocking: list[dict[str, Any]], exclusive: bool, *, widening: bool) -> BusyError:
    """The refusal of an overlap exclusive ownership forbids, saying whose exclusivity it is: the
    live task(s) met (started with --exclusive), this task's own --exclusive, or both."""
    names = [o["task"] for o in blocking]
    holders = [o["task"] for o in blocking if o["exclusive"]]
    reasons = []
    if holders:
        reasons.append(f"{', '.join(holders)} {'holds its' if len(holders) == 1 else 'hold their'} globs exclusively "
                       "(started with --exclusive)")
    if exclusive:
        reasons.append(f"task {task_id!r} " + ("holds its globs exclusively (started with --exclusive)" if widening
                                               else "asks for exclusive ownership (--exclusive)"))
    fixes = [f"retry after {', '.join(names)} {'finishes' if len(names) == 1 else 'finish'}"]
    if exclusive and not widening:
        fixes.append("start it without --exclusive")
    fixes.append("widen by narrower globs" if widening else "narrow --own so the globs do not meet")
    return BusyError(f"{'widening task' if widening else 'task'} {task_id!r} would overlap live task(s) "
                     f"{', '.join(names)}: {' and '.join(reasons)}",
                     fix=", or ".join(fixes), retry_after=30.0, details={"overlaps": blocking})


def _unanchored_overlap_notes(overlaps: list[dict[str, Any]]) -> list[str]:
    """Why a plain name such as `CHANGELOG.md` overlaps `pkg/**`: it owns that name in every folder."""
    names = dict.fromkeys(own for o in overlaps for own, _ in o["globs"] if boundaries.unanchored_name(own))
    return [f"--own {name!r} has no '/', so it owns every {name} in any folder (gitignore rules), which is why "
            f"it may overlap; write '/{name}' for the one at the repository root" for name in names]


@value_class
class _BranchChecked:
    """What finish's check found on a task's branch (`_check_branch`)."""

    violations: list[dict[str, Any]]   # the worktree's problems, else the boundary's and the branch's
    changes: list                      # the branch's own changes, since it last took in integration
    reserved: list[dict[str, Any]]     # its edits to reserved files
    markers: list[dict[str, Any]]      # conflict blocks `task update` left unresolved
    derived: list                      # consolidation Intents from its reserved and manifest edits
    since: str                         # where its own changes start: the pin, or its merge base with integration
    followed: tuple[tuple[str, str], ...] = ()   # (old, new): owned files the run moved, owned at the new path
