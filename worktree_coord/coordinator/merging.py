"""The merge queue: finished tasks into `wtc/<run>/integration`, one merge commit each.

Without a verification command a task merges directly (compare-and-swap of the ref, merging again
onto a moved tip). With one, the merge is built on a private candidate ref, verified in a scratch
worktree, then integration is fast-forwarded to it by compare-and-swap. `merge` drains every finished
task in dependency order; batches verify several at once and bisect a failing batch to its culprit.
A conflict or a failed verification leaves integration untouched and the task with a report.

On a remote run (docs/multi-machine.md) the same holds across machines: the candidate is built and
verified in this clone, onto the integration tip it fetched, and the remote's ref moves only after
verification passed, by a push with a lease on that tip. A lost race (another machine moved the
ref meanwhile) fetches the new tip, merges and verifies again, at most VERIFIED_RACES times.
"""

from __future__ import annotations

import contextlib
import json
import os
import posixpath
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable


from ..boundary.globs import matches
from ..store import leases
from ..store.base import TaskWrite
from ..crashpoints import crash_point
from ..errors import EXIT_INTERNAL, BusyError, ConfigError, LookUnanswered, StateError, UsageError, WtcError
from ..events import wants
from ..store.idempotency import Outcome, default_key, run_once, variant_key
from ..model import RunRecord, TaskRecord, TaskState
from ..results import (MergeReport, TaskFinished)

from .base import CoordinatorBase, outcome_of, staged

if TYPE_CHECKING:
    from . import merge_queue as queue
    from .verification import VerifyResult
    from ..gitrepo.repository import Change
    from ..integrate import IntegrationResult
    from ..merge.result import SemanticFinding

# How many times a verified merge (or batch) is built and verified again because integration moved
# while it was verified, before giving up with exit 4: each round costs a whole verification.
VERIFIED_RACES = 8
# The root manifests a workspace of packages is read from (npm/yarn/pnpm, Cargo, uv), in that order.
_WORKSPACE_ROOTS = ("package.json", "Cargo.toml", "pyproject.toml")
PACKAGES_CACHE = "packages-v1"   # <wtc dir>/cache/packages-v1-<pin>.json: a pin's workspace packages (`_packages`)

# Notes a conflict writes (below): a finish after `task update` carries its earlier result's notes,
# and these are not repeated from there.
_CONFLICT_NOTE_STARTS = ("run `wtc task update", "a semantic conflict has no markers")


class MergeOperations(CoordinatorBase):
    """Merging finished tasks into the integration branch."""

    def _merge_task_locked(self, run: RunRecord, task_id: str, verify: str | None = None) -> TaskFinished:
        """Merge a finished task into integration (under the task's lease). With a verification
        command, the merge is built on a candidate ref, verified, then fast-forwarded onto
        integration by compare-and-swap; without, it lands directly by compare-and-swap."""
        with self._stage("merge", run=run.run_id, task=task_id) as out:
            result = self._merge_one(run, task_id, verify, out)
            out.update(outcome_of(result))
            return result

    def _report_merge(self, outcome: IntegrationResult, out: dict[str, Any]) -> None:
        """What a merge did, for the stage's end (path, attempts, bytes) and, when a reporter wants
        them, one `merge.file` event per file naming the strategy that merged it."""
        from ..integrate import merge_account
        out.update(merge_path=outcome.path.value, attempts=outcome.attempts)
        if not wants(self.reporter, "merge.file"):
            return
        files = merge_account(self.git.repo, outcome)
        for account in files:
            self.reporter.event("merge.file", **account.to_json())
        out.update(bytes=sum(f.bytes for f in files), merged_files=len(files))

    def _merge_one(self, run: RunRecord, task_id: str, verify: str | None, out: dict[str, Any]) -> TaskFinished:
        task = self._task(run.run_id, task_id)
        done = self._before_merge(run, task)
        if done is not None:
            return done
        # A task that failed verification is verified again with the same command when it comes
        # back, even if this finish does not repeat --verify.
        command = self._verify_command(run, verify) or task.result.get("verify_command")
        if command:
            # Verified merges go one at a time (each is verified on the tip the last one left): the
            # wait for that turn is said (`wtc.integration_wait_s` on the merge's span), or a swarm's
            # finish that waited half a minute behind others' verifications shows no wait at all.
            asked = time.monotonic()
            with leases.hold(self.store, f"integration:{run.run_id}", timeout=self.config.wait_timeout,
                             what=f"run {run.run_id} integration"):
                self.reporter.event("integration.held", run=run.run_id, task=task.task_id,
                                    wait_s=round(time.monotonic() - asked, 6))
                return self._merge_verified(run, task, command, out)
        return self._merge_direct(run, task, out)

    def _merge_direct(self, run: RunRecord, task: TaskRecord, out: dict[str, Any]) -> TaskFinished:
        """The task merged onto integration by its own compare-and-swap, then recorded."""
        from . import merge_queue as queue
        with self._heavy("merge"):
            outcome = self._integrator().merge_into(
                f"refs/heads/{run.integration_ref}", self._mergeable(task), run.base,
                message=self._merge_message(run, task), author=queue.signature(),
                resolve=queue.integration_resolver(run.run_id, task.task_id),
                publish=self._publisher(run), **self._semantic(run, task))
        self._report_merge(outcome, out)
        return self._record_outcome(run, task, outcome)

    def _before_merge(self, run: RunRecord, task: TaskRecord, *, sync: bool = True,
                      onto: str | None = None) -> TaskFinished | None:
        """What a merge checks first: a task merged already (its stored result), in no state to
        merge (StateError), or whose commits leave its boundary (recorded rejected); None: merge
        it. `sync`: integration fetched (a remote run) and checked (a drain does it once, at its
        start); `onto`: the commit it merges onto when not integration's tip (a drain's last)."""
        if task.state is TaskState.MERGED:
            return TaskFinished.from_json(task.result, replayed=True)
        if task.state not in (TaskState.FINISHED, TaskState.CONFLICT):
            raise StateError(f"task {task.task_id!r} is {task.state.value}; only finished tasks merge")
        self._drop_finished_worktree(task)
        if sync:
            self._sync_integration(run)   # a remote run: the remote's tip is the truth
            self._check_integration(run)
        if run.remote:
            self._prepare_remote_merge(run, task, onto)
        violations = self._boundary_again(run, task)
        if violations:
            return self._record_rejected_at_merge(run, task, violations)
        return None

    def _record_outcome(self, run: RunRecord, task: TaskRecord, outcome: IntegrationResult, *,
                        ports_released: bool = False) -> TaskFinished:
        """A direct merge's outcome recorded (once the ref holds it, for a merge); `ports_released`:
        a merged task's ports were given back already (a drain gives back all of its at once)."""
        from ..integrate import IntegrationState
        if outcome.state is IntegrationState.CONFLICT:
            return self._record_conflict(run, task, outcome)
        return self._record_merged(run, task, outcome.merge_commit, outcome.old_tip, outcome.new_tip,
                                   path=outcome.path.value, resolved=list(outcome.resolved),
                                   resolutions=dict(outcome.resolutions),
                                   already=outcome.state is IntegrationState.ALREADY_MERGED,
                                   findings=self._findings(run, task, outcome), ports_released=ports_released)

    def _prepare_remote_merge(self, run: RunRecord, task: TaskRecord, onto: str | None = None) -> None:
        """What merging a remote run's task needs in this clone: the task's commits (finished on
        another machine, they come from its pushed branch) and, in a partial clone, the blobs the
        merge reads (both sides' changed files at the merge base and the two tips), in one fetch.
        `onto`: the commit it merges onto (default: the integration mirror's tip)."""
        mergeable = self._mergeable(task)
        if not mergeable or not self.git.has_commit(mergeable):
            if not self._fetch_task(run, task) or not self.git.has_commit(mergeable):
                raise StateError(
                    f"task {task.task_id!r} is recorded finished at {mergeable[:12]}, but {run.remote} has no such "
                    f"commit on {task.branch}",
                    fix=f"finish it again on the machine that holds its worktree (wtc task finish {task.task_id} "
                        f"--run {run.run_id}): it pushes the branch before it records the finish")
        remote = self._remote(run)
        if remote is not None and remote.is_partial():
            tip = onto or self.git.ref_target(f"refs/heads/{run.integration_ref}") or run.base
            remote.fetch_objects(self.git.merge_blobs(tip, mergeable), what=f"fetching the files task {task.task_id} merges")

    def _boundary_again(self, run: RunRecord, task: TaskRecord) -> list[dict[str, Any]]:
        """The task's boundary checked again from git objects by whoever merges it (never the
        finishing sandbox's word): what the recorded commit changed since its recorded base."""
        from .. import boundary as boundaries

        head, since = task.head, task.result.get("since")
        if not head or not since or not self.git.has_commit(head):
            return []
        report = boundaries.check_changes_following_moves(self._task_changes(run, task, since, head), task.boundary,
                                                          self.git.read_blob, lambda: self.git.submodule_paths(head),
                                                          self._moves_taken_in(run, since))
        return [v.to_json() for v in report.violations]

    def _task_changes(self, run: RunRecord, task: TaskRecord, since: str, head: str) -> list[Change]:
        """`git.changes(since, head)`: what the task changed. When those are the two commits the
        merge's checks walk (the pin and the commit that merges: no reserved edits, no update taken
        in) and a check runs, from that walk, made now and kept in the merge index for them
        (check.left_behind.task_changes_kept): one walk of the task's trees a merge, not two."""
        from ..merge.result import SemanticMode

        try:
            checked = self._semantic_mode(run) is not SemanticMode.OFF or self._left_behind_mode(run) is not SemanticMode.OFF
        except ConfigError:
            checked = False   # the pin's rules do not read: the merge says so itself, after this check
        if since != run.base or head != self._mergeable(task) or not checked:
            return self.git.changes(since, head)
        from ..check.left_behind import task_changes_kept
        from ..merge.checks.merge_index import index_folder, shared_index

        return task_changes_kept(self.git, since, head, shared_index(index_folder(self.git.repo)))

    def _record_rejected_at_merge(self, run: RunRecord, task: TaskRecord,
                                  violations: list[dict[str, Any]]) -> TaskFinished:
        base_result = {k: v for k, v in task.result.items() if k not in ("conflicts", "merge", "verification", "reason")}
        result = TaskFinished.from_json(
            base_result, state=TaskState.REJECTED.value, exit_code=3, violations=violations, conflicts=[],
            replayed=False,
            notes=[f"the merge checked the task's boundary again from its commits and refused them: fix the paths, "
                   f"then `wtc task finish {task.task_id} --run {run.run_id}` again"])
        self.store.update_task(run.run_id, task.task_id, state=TaskState.REJECTED, result=result.to_json() | self._carry(task),
                               holder=self._fence(run.run_id, task.task_id),
                               event=("task.rejected", {"violations": violations, "at": "merge"}))
        self.reporter.event("task.rejected", run=run.run_id, task=task.task_id, violations=violations)
        return result

    def _check_integration(self, run: RunRecord) -> str:
        """The integration tip, refusing (and saying how to repair) when someone deleted it or moved
        it to history that does not descend from the run's pinned commit."""
        ref = f"refs/heads/{run.integration_ref}"
        tip = self.git.ref_target(ref)
        if tip is not None and self.git.is_ancestor(run.base, tip):
            return tip
        merged = [e for e in self.store.events(run.run_id) if e["kind"] == "task.merged" and e["data"].get("new_tip")]
        last = merged[-1]["data"]["new_tip"] if merged else run.base
        what = "was deleted" if tip is None else f"was moved to {tip[:12]}, which does not descend from the pin {run.base[:12]}"
        raise StateError(
            f"the integration branch {run.integration_ref} {what}; no task is merged until it is repaired",
            fix=f"restore it to its last recorded tip: git update-ref {ref} {last}" + (f" {tip}" if tip else "")
                + f", then run `wtc merge --run {run.run_id}`",
            details={"last_recorded_tip": last},
        )

    def _drop_finished_worktree(self, task: TaskRecord) -> None:
        """A finished task whose finish was killed while removing its worktree may still have the
        folder: remove it before the merge, because a conflict makes the task live again and its
        update, finish or abandon would otherwise take that leftover for the agent's work."""
        if task.state is TaskState.FINISHED and task.worktree:
            self._drop_worktree(task, ended=False)

    def _mergeable(self, task: TaskRecord) -> str:
        return task.result.get("mergeable") or task.head or ""

    def _merge_message(self, run: RunRecord, task: TaskRecord) -> str:
        return f"wtc: merge task {task.task_id} into run {run.run_id}\n\nbranch {task.branch}"

    def _verify_command(self, run: RunRecord, explicit: str | None) -> str | None:
        """The call's `--verify`, else the run's, else `verify` as committed at the run's pin
        (`_run_rules`): never the main checkout's working file, which would swap a run's gate."""
        return explicit or run.options.get("verify") or self._run_rules(run).verify

    def _semantic(self, run: RunRecord, task: TaskRecord) -> dict[str, Any]:
        """The check arguments of `merge_into` for this run: the semantic check and the left-behind
        check, each blocking, warning or off by the run's mode for it (none when both are off)."""
        from ..merge.result import SemanticMode
        from . import merge_queue as queue
        semantic, left_behind = self._semantic_mode(run), self._left_behind_mode(run)
        if semantic is SemanticMode.OFF and left_behind is SemanticMode.OFF:
            return {}

        def blocks(finding: SemanticFinding) -> bool:
            mode = left_behind if finding.problem == "left_behind" else semantic
            return mode is SemanticMode.BLOCK
        return {"check": queue.semantic_check(task.task_id, task.result.get("pending_semantic"), self.git,
                                              semantic=semantic is not SemanticMode.OFF,
                                              left_behind=left_behind is not SemanticMode.OFF,
                                              unanswered=None if task.result.get("merge_unchecked")
                                              or left_behind is not SemanticMode.BLOCK
                                              else self._unanswered(run, task)),
                "check_blocks": blocks}

    @staticmethod
    def _unanswered(run: RunRecord, task: TaskRecord) -> Callable[[str], Exception]:
        """The refusal of a merge whose look for uses of the task's removed names gave no answer
        (`reason`): exit 6, as `task check` exits for it and `land` refuses (`--land-unchecked`)."""
        from ..errors import LookUnanswered

        def refuse(reason: str) -> Exception:
            return LookUnanswered(
                f"task {task.task_id} is NOT MERGED: the look for uses of names it removed, in code outside its "
                f"changes, gave no answer ({reason})",
                fix=f"split the task into smaller ones, or check those uses by hand and merge it without the look: "
                    f"wtc task finish {task.task_id} --run {run.run_id} --merge-unchecked",
                details={"left_behind_unchecked": reason, "task": task.task_id})
        return refuse

    def _findings(self, run: RunRecord, task: TaskRecord, outcome: IntegrationResult) -> list[dict[str, Any]]:
        """Non-blocking semantic findings of a merge, with both tasks named where known."""
        from . import merge_queue as queue
        if not outcome.findings:
            return []
        merged = self.store.list_tasks(run.run_id, [TaskState.MERGED])
        return queue.semantic_report(outcome.findings, task.task_id, merged, self._added_lines_reader(run, merged))

    def _record_conflict(self, run: RunRecord, task: TaskRecord, outcome: IntegrationResult) -> TaskFinished:
        from ..merge.result import SemanticMode, problem_words
        from . import merge_queue as queue
        merged = self.store.list_tasks(run.run_id, [TaskState.MERGED])
        conflicts = queue.conflict_report(outcome, merged, task.task_id, self._added_lines_reader(run, merged))
        base_result = {k: v for k, v in task.result.items() if k not in ("conflicts", "merge", "verification", "reason")}
        # The finish's own notes stay (uses its rename leaves behind, folders left out of the commit,
        # reserved edits kept aside): a conflict adds what to do about it, it does not erase them.
        # The notes an earlier conflict added (`conflict_notes`) are that conflict's: this one says
        # what stands now (a finish again of a task whose worktree is gone reuses the stored result,
        # and kept them: repeated advice, a "not merged yet" about a task that has since merged).
        earlier = set(task.result.get("conflict_notes", ()))
        notes = list(dict.fromkeys(n for n in base_result.get("notes", [])
                                   if n not in earlier and not n.startswith(_CONFLICT_NOTE_STARTS)))
        own_notes = len(notes)
        if any(c["kind"] not in ("semantic", "left_behind") for c in conflicts):
            notes.append(f"run `wtc task update {task.task_id} --run {run.run_id}` to get the "
                         "integration tip into a worktree with conflict markers, resolve, then finish again")
        problems = {(c.get("semantic") or {}).get("problem", "broken") for c in conflicts if c["kind"] == "semantic"}
        update = f"`wtc task update {task.task_id} --run {run.run_id}`"
        if problems:
            notes.append("a semantic conflict has no markers: the merge is clean line by line, but " + "; ".join(
                problem_words(p).note.format(update=update) for p in sorted(problems)) + ", then finish again")
            from ..check.left_behind import uses_outside_boundary
            notes += uses_outside_boundary(task.task_id, run.run_id, task.boundary.own,
                                           [c["semantic"] for c in conflicts if c.get("semantic")
                                            and c["kind"] == "semantic"])
        left = [c for c in conflicts if c["kind"] == "left_behind"]
        if left:
            notes += self._left_behind_conflict_notes(run, task, left)
            if not (task.worktree and Path(task.worktree).is_dir()):
                # The finish removed it before merging: the alias, or the uses after a widen, are
                # written in a worktree `task update` brings back (found driving wtc on spf13/cobra).
                notes.append(f"the worktree went with this finish: `wtc task update {task.task_id} --run "
                             f"{run.run_id}` brings it back (with the integration tip) to make the change in")
        elif any(c["kind"] not in ("semantic", "left_behind") for c in conflicts) and task.head \
                and task.result.get("since") and self._left_behind_mode(run) is not SemanticMode.OFF:
            # The merge stopped before the merged tree could be checked: name what the task's removals
            # leave behind now, so the agent learns it while it resolves, not at its next finish.
            from ..check.left_behind import advice_notes

            since = task.result["since"]
            notes += [n for n in advice_notes(self.git, self.git.changes(since, task.head), since, task.task_id,
                                              run.run_id) if n not in notes]
        # A finish again after a refusal carries the last one's notes: the same note is said once
        # (the finish's own first, so notes[own_notes:] stays this conflict's).
        notes = notes[:own_notes] + [n for n in dict.fromkeys(notes[own_notes:]) if n not in notes[:own_notes]]
        if own_notes < len(notes):   # the semantic and the left-behind notes of this merge: one widen command
            from ..check.left_behind import widen_once

            notes = notes[:own_notes] + widen_once(notes[own_notes:], task.task_id, run.run_id)
        result = TaskFinished.from_json(base_result, state=TaskState.CONFLICT.value, exit_code=1,
                                        conflicts=conflicts, replayed=False, notes=notes)
        self.store.update_task(run.run_id, task.task_id, state=TaskState.CONFLICT,
                               result=result.to_json() | self._carry(task) | {"conflict_notes": notes[own_notes:]},
                               holder=self._fence(run.run_id, task.task_id),
                               event=("task.conflict", {"paths": sorted({c["path"] for c in conflicts})}))
        self.reporter.event("task.conflict", run=run.run_id, task=task.task_id, conflicts=conflicts)
        return result

    def _left_behind_conflict_notes(self, run: RunRecord, task: TaskRecord,
                                    conflicts: list[dict[str, Any]]) -> list[str]:
        """The ways out of a merge that would leave uses of a removed name behind: one note per
        name (its files and lines, keep the old name or the lead widens the task), and for each
        use in a file a live task owns, that task (it may be updating the use right now: let it
        finish first, then finish this task again). Each conflict row gains `owned_by` (the live
        tasks whose boundary owns the use's file)."""
        from ..check.left_behind import (MAX_NOTES, OWN_IMPORT, LeftBehind, deleted_unanswered, grouped_notes,
                                         left_kind, moved_files, moved_names)

        live = [t for t in self.store.list_tasks(run.run_id, [TaskState.STARTED, TaskState.REJECTED,
                                                             TaskState.CONFLICT, TaskState.FINISHED])
                if t.task_id != task.task_id]
        uses: dict[tuple[str, str], list[int]] = {}
        rows: dict[tuple[str, str], dict[str, Any]] = {}
        owners: dict[str, list[str]] = {}
        for conflict in conflicts:
            finding = conflict["semantic"]
            path = finding["use_path"]
            owners[path] = [t.task_id for t in live if matches(t.boundary.own, path)]
            conflict["owned_by"] = owners[path]
            uses.setdefault((path, finding["name"]), []).append(finding["use_line"])
            rows.setdefault((path, finding["name"]), finding)
        # A file the task moved (its definitions went to a file it added) is advised as moved: the
        # old path keeps a re-export, rather than each name an alias.
        since, head = task.result.get("since"), task.head
        task_changes = self.git.changes(since, head) if since and head else []
        moved = moved_files(task_changes, self.git.read_blob, {row["definition_path"] for row in rows.values()})
        # (a name moved alone, its file staying, is advised as moved too)
        went = moved_names(task_changes, self.git.read_blob,
                           {(row["definition_path"], name) for (_, name), row in rows.items()
                            if row["definition_path"] not in moved and row.get("kind") not in ("module", "signature")})
        deleted = deleted_unanswered(task_changes)   # a name gone with its file: said so, not "renamed"
        found = []
        for (path, name), lines in uses.items():
            where = rows[(path, name)]["definition_path"]
            row = rows[(path, name)]
            if row.get("kind") == OWN_IMPORT:   # the task's own file: its own import to fix
                found.append(LeftBehind(path, tuple(sorted(lines)), name, where, "", "", OWN_IMPORT,
                                        moved_from=row.get("definition", "")))
                continue
            moved_to = "" if row.get("kind") == "signature" else moved.get(where) or went.get((where, name), "")
            found.append(LeftBehind(path, tuple(sorted(lines)), name, where, row.get("replacement", ""),
                                    moved_to, left_kind(row.get("kind") or "", where, moved_to, deleted),
                                    row.get("star_list", ""), row.get("arguments", 0),
                                    star_line="" if moved_to else row.get("star_line", ""), keyword=row.get("keyword", "")))
        notes = [note if note.startswith("and ") else note + ", then finish again"
                 for note in grouped_notes(found, task.task_id, run.run_id, MAX_NOTES, task.boundary.own)]
        for owner in sorted({o for names in owners.values() for o in names}):
            paths = sorted(p for p, names in owners.items() if owner in names)
            notes.append(f"task {owner} owns {', '.join(paths)} and is not merged yet: it may be updating those uses; "
                         f"let it finish first, then `wtc task finish {task.task_id} --run {run.run_id}` again merges "
                         "this task once no use is left behind")
        return notes

    def _added_lines_reader(self, run: RunRecord, merged: list[TaskRecord]) -> queue.TaskLines:
        from . import merge_queue as queue
        return queue.added_lines_reader(self.git.repo, run.base, merged)

    def _record_merged(self, run: RunRecord, task: TaskRecord, merge_commit: str | None, old_tip: str,
                       new_tip: str, *, path: str, resolved: list[str], already: bool,
                       resolutions: dict[str, str] | None = None,
                       verification: dict[str, Any] | None = None,
                       findings: list[dict[str, Any]] | None = None, ports_released: bool = False) -> TaskFinished:
        result, write = self._merged_write(run, task, merge_commit, old_tip, new_tip, path=path, resolved=resolved,
                                           already=already, resolutions=resolutions, verification=verification,
                                           findings=findings)
        self.store.update_tasks(run.run_id, [write])
        self._merged_recorded(run, task, new_tip, ports_released=ports_released)
        return result

    def _record_merges(self, run: RunRecord, merged: list[tuple[TaskRecord, IntegrationResult]]) -> list[TaskFinished]:
        """A drain's merges that one move of integration published (none with findings to name),
        recorded in one store transaction: each task's record and its `task.merged` event, in the
        drain's order, all or none. The ref is the truth: a kill before this write leaves the tasks
        finished with their merges on integration, which the next drain finds merged
        (`already`), as a kill right after the move always did; one write is also one fence
        read a task and one commit for the drain, where each record was a transaction of its own.
        Their ports were given back already (the drain gives back all of its at once)."""
        from ..integrate import IntegrationState
        written = [self._merged_write(run, task, outcome.merge_commit, outcome.old_tip, outcome.new_tip,
                                      path=outcome.path.value, resolved=list(outcome.resolved),
                                      resolutions=dict(outcome.resolutions),
                                      already=outcome.state is IntegrationState.ALREADY_MERGED)
                   for task, outcome in merged]
        if written:
            self.store.update_tasks(run.run_id, [write for _, write in written])
        for (task, outcome), _ in zip(merged, written):
            self._merged_recorded(run, task, outcome.new_tip, ports_released=True)
        return [result for result, _ in written]

    def _merged_write(self, run: RunRecord, task: TaskRecord, merge_commit: str | None, old_tip: str,
                      new_tip: str, *, path: str, resolved: list[str], already: bool,
                      resolutions: dict[str, str] | None = None, verification: dict[str, Any] | None = None,
                      findings: list[dict[str, Any]] | None = None) -> tuple[TaskFinished, TaskWrite]:
        """A merged task's result and the store write that records it (the record and its
        `task.merged` event, fenced by the task's lease)."""
        merge_info = {"merge_commit": merge_commit, "old_tip": old_tip, "new_tip": new_tip, "path": path,
                      "resolved": resolved, "at": time.time(), "already": already}
        if resolutions:
            # Per resolved file, what its merge did in a line (merge.inventory.resolution_words).
            merge_info["resolutions"] = resolutions
        if verification is not None:
            merge_info["verification"] = verification
        if findings:
            merge_info["semantic"] = findings   # warnings (the run's semantic check is `warn`)
        base_result = {k: v for k, v in task.result.items() if k not in ("conflicts", "merge", "verification", "reason")}
        earlier = set(task.result.get("conflict_notes", ()))   # the advice of a conflict this merge ends
        notes = [n for n in base_result.get("notes", []) if n not in earlier] + [
            f"{'left behind' if f.get('problem') == 'left_behind' else 'semantic'} warning: {f['message']}"
            for f in findings or []]
        result = TaskFinished.from_json(base_result, state=TaskState.MERGED.value, exit_code=0, merge=merge_info,
                                        conflicts=[], replayed=False, notes=notes)
        # The event in the record's own transaction, as every task write's: a process killed between two
        # writes left a task merged with no `task.merged` (found under load in tests/fanout/test_resume.py's
        # SIGKILLed runner: the timeline and the integration branch's last recorded tip read those events).
        stored = result.to_json(copy=False) | self._carry(task)   # serialised by the write, not kept
        return result, TaskWrite(task.task_id, {"state": TaskState.MERGED, "result": stored},
                                 holder=self._fence(run.run_id, task.task_id), event=("task.merged", merge_info))

    def _merged_recorded(self, run: RunRecord, task: TaskRecord, new_tip: str, *, ports_released: bool) -> None:
        """What follows a merged task's record: its worktree removed (and its ports given back,
        unless they were), the events said."""
        crash_point("merge.after_record")
        self._drop_worktree(task, ended=not ports_released)
        self.reporter.event("task.merged", run=run.run_id, task=task.task_id, commit=new_tip)
        self.reporter.event("task.closed", run=run.run_id, task=task.task_id, state=TaskState.MERGED.value,
                            started_at=task.created_at, files=len(task.result.get("changed", [])), commit=new_tip)

    def _record_failed_verification(self, run: RunRecord, task: TaskRecord, check: VerifyResult) -> TaskFinished:
        base_result = {k: v for k, v in task.result.items() if k not in ("conflicts", "merge", "verification", "reason")}
        result = TaskFinished.from_json(
            base_result, state=TaskState.FAILED.value, exit_code=1, conflicts=[], replayed=False,
            verification=check.to_json(),
            notes=[f"ejected: `{check.command}` failed on the merge candidate (exit {check.exit_code}); "
                   f"integration stays green. Fix it in place: `wtc task update {task.task_id} --run {run.run_id}` "
                   f"brings its worktree back, fix it there, then `wtc task finish {task.task_id} --run {run.run_id}` "
                   "verifies again."] + ([check.network["note"]] if check.network and check.network.get("note") else []))
        self.store.update_task(run.run_id, task.task_id, state=TaskState.FAILED,
                               holder=self._fence(run.run_id, task.task_id), result=result.to_json() | self._carry(task)
                               | {"reason": "failed_verification", "verify_command": check.command},
                               event=("task.failed_verification", check.to_json()))
        self.reporter.event("task.failed_verification", run=run.run_id, task=task.task_id)
        return TaskFinished.from_json(self._task(run.run_id, task.task_id).result, replayed=False)

    @staticmethod
    def _carry(task: TaskRecord) -> dict[str, Any]:
        """Bookkeeping that follows a task through its states (not part of the public result)."""
        return {k: task.result[k] for k in ("since", "mergeable", "pending_markers", "pending_semantic", "verify_command")
                if k in task.result}

    def _candidate_ref(self, run: RunRecord, name: str) -> str:
        return f"refs/wtc/{run.run_id}/candidate/{name}"

    def _verify(self, run: RunRecord, commit: str, command: str, *, kept: bool = False) -> VerifyResult:
        """`command` run on `commit` in a scratch worktree. `kept`: in the run's kept verification
        worktree, moved to `commit` (only while the run's integration lease is held: the merge
        queue's verifications); else in one built for it and removed."""
        from .verification import verify_commit
        self.reporter.event("verify.start", run=run.run_id, commit=commit, command=command)
        scratch = self.worktree_root() / run.run_id / ".verify"
        with self._stage("verify", run=run.run_id, commit=commit, command=command) as out:
            with self._heavy("verify"):
                try:
                    check = verify_commit(self.git, commit, command, scratch, timeout=self.config.verify_timeout,
                                          spawn=self._spawn(run), kept=kept)
                finally:
                    with contextlib.suppress(OSError):
                        scratch.rmdir()  # only when empty: another verification may be using it
            out.update(ok=check.ok, command_exit_code=check.exit_code)
        self.reporter.event("verify.done", run=run.run_id, commit=commit, ok=check.ok)
        return check

    def drop_kept_verification(self, run_id: str) -> bool:
        """The run's kept verification worktree removed, at the run's end (a land, a fanout done),
        when no verification is using it: the run's integration lease is taken without waiting
        (busy: it stays, for the merge that holds it, and gc removes it once the run settles).
        True when removed or absent."""
        from .verification import KEPT
        path = self.worktree_root() / run_id / ".verify" / KEPT
        if not (path.exists() or path.is_symlink()):
            return True
        try:
            with leases.hold(self.store, f"integration:{run_id}", timeout=0, what=f"run {run_id} integration"):
                self.git.remove_worktree(path)
        except BusyError:
            return False
        with contextlib.suppress(OSError):
            path.parent.rmdir()   # only when empty
        return True

    def _advance_verified(self, run: RunRecord, new: str, old: str, message: str) -> None:
        """Move integration from `old` to the verified `new` (a fast-forward): the local
        compare-and-swap, or on a remote run a push with a lease on `old` (StaleRef when another
        machine moved it; the mirror then holds the remote's new tip)."""
        from ..integrate import fast_forward
        integration = f"refs/heads/{run.integration_ref}"
        publish = self._publisher(run)
        if publish is None:
            fast_forward(self.git.repo, integration, new, old, message=message)
            return
        if new != old and not self.git.is_ancestor(old, new):
            raise UsageError(f"{new} does not descend from {old}: moving {integration} there is not a fast-forward")
        publish(integration, new, old)

    @staticmethod
    def _raced_out(run: RunRecord, what: str) -> BusyError:
        return BusyError(f"{what}: integration of run {run.run_id} moved under {VERIFIED_RACES} verifications in a "
                         "row (other merges landed while each one ran)", retry_after=1.0,
                         fix="repeat the same command: nothing was recorded for the tasks not merged")

    def _merge_verified(self, run: RunRecord, task: TaskRecord, command: str, out: dict[str, Any]) -> TaskFinished:
        """Candidate merge on a private ref, verification in a scratch worktree, then a CAS of
        integration from the tip the candidate was built on (on a remote run, a push with a lease);
        a moved tip means build and verify again, at most VERIFIED_RACES times."""
        from . import merge_queue as queue
        from ..integrate import IntegrationState, StaleRef
        integration = f"refs/heads/{run.integration_ref}"
        candidate = self._candidate_ref(run, task.task_id)
        integrator = self._integrator()
        try:
            for _round in range(VERIFIED_RACES):
                tip = self.git.ref_target(integration) or run.base
                if run.remote:
                    self._prepare_remote_merge(run, task, tip)
                if integrator.already_merged(integration, self._mergeable(task), run.base):
                    return self._record_merged(run, task, None, tip, tip, path="none", resolved=[], already=True)
                self.git.set_ref(candidate, tip, f"worktree_coord: candidate for {task.task_id}")
                with self._heavy("merge"):
                    outcome = integrator.merge_into(candidate, self._mergeable(task), run.base,
                                                    message=self._merge_message(run, task), author=queue.signature(),
                                                    resolve=queue.integration_resolver(run.run_id, task.task_id),
                                                    **self._semantic(run, task))
                self._report_merge(outcome, out)
                if outcome.state is IntegrationState.CONFLICT:
                    return self._record_conflict(run, task, outcome)
                check = self._verify(run, outcome.new_tip, command, kept=True)   # under integration's lease
                if not check.ok:
                    return self._record_failed_verification(run, task, check)
                try:
                    self._advance_verified(run, outcome.new_tip, tip,
                                           f"worktree_coord: merge task {task.task_id} (verified)")
                except StaleRef:
                    continue  # integration moved while we verified: build and verify again
                return self._record_merged(run, task, outcome.merge_commit, tip, outcome.new_tip,
                                           path=outcome.path.value, resolved=list(outcome.resolved),
                                   resolutions=dict(outcome.resolutions),
                                           already=False, verification=check.to_json(),
                                           findings=self._findings(run, task, outcome))
            raise self._raced_out(run, f"task {task.task_id} was verified {VERIFIED_RACES} times")
        finally:
            self.git.delete_ref(candidate)

    def _merge_batches(self, run: RunRecord, tasks: list[TaskRecord], command: str, size: int,
                       rows: list[dict[str, Any]]) -> list[TaskFinished]:
        """bors-style batches: merge up to `size` tasks speculatively on a candidate ref, verify the
        batch once, fast-forward integration when it passes; when it fails, bisect to the first
        failing prefix, land the passing prefix, eject the culprit and go on with the rest. A task
        whose left-behind look gives no answer is passed over (a row in `rows`), as a drain does."""
        from . import merge_queue as queue
        from ..integrate import IntegrationState, StaleRef
        integration = f"refs/heads/{run.integration_ref}"
        candidate = self._candidate_ref(run, "batch")
        integrator = self._integrator()
        results: list[TaskFinished] = []
        pending = list(tasks)
        races = 0
        try:
            while pending:
                batch, pending = pending[:size], pending[size:]
                self._sync_integration(run)   # a remote run: the remote's tip is the truth
                tip = self.git.ref_target(integration) or run.base
                self.git.set_ref(candidate, tip, "worktree_coord: batch candidate")
                stack: list[tuple[TaskRecord, IntegrationResult]] = []
                for task in batch:
                    task = self._task(run.run_id, task.task_id)
                    self._drop_finished_worktree(task)
                    if run.remote:   # finished on another machine: its pushed commits; in a partial clone, blobs
                        self._prepare_remote_merge(run, task, self.git.ref_target(candidate))
                    violations = self._boundary_again(run, task)
                    if violations:
                        results.append(self._record_rejected_at_merge(run, task, violations))
                        continue
                    if integrator.already_merged(integration, self._mergeable(task), run.base):
                        # A batch killed after integration moved, before its records: merged, recorded
                        # now (merged again onto the candidate it would be left out, finished for ever).
                        results.append(self._record_merged(run, task, None, tip, tip, path="none", resolved=[],
                                                           already=True))
                        continue
                    # Onto the batch's candidate: the merge lands when the batch verifies.
                    try:
                        with self._stage("merge", run=run.run_id, task=task.task_id, batch=True) as out, \
                                self._heavy("merge"):
                            outcome = integrator.merge_into(candidate, self._mergeable(task), run.base,
                                                            message=self._merge_message(run, task),
                                                            author=queue.signature(),
                                                            resolve=queue.integration_resolver(run.run_id, task.task_id),
                                                            **self._semantic(run, task))
                            self._report_merge(outcome, out)
                            out.update(state="candidate" if outcome.state is IntegrationState.MERGED
                                       else outcome.state.value, conflicts=[{"kind": c.kind} for c in outcome.conflicts])
                    except LookUnanswered as unanswered:
                        rows.append(_unanswered_row(task.task_id, unanswered))   # passed over: the others merge
                        continue
                    if outcome.state is IntegrationState.CONFLICT:
                        results.append(self._record_conflict(run, task, outcome))
                    elif outcome.state is IntegrationState.MERGED:
                        stack.append((task, outcome))
                if not stack:
                    continue
                checks: dict[int, VerifyResult] = {}

                def passes(count: int) -> bool:
                    if count not in checks:
                        checks[count] = self._verify(run, stack[count - 1][1].new_tip, command, kept=True)
                    return checks[count].ok

                good = len(stack) if passes(len(stack)) else 0
                culprit = None
                if good == 0:
                    low, high = 0, len(stack)      # tip + 0 tasks passes (integration is green); all fail
                    while high - low > 1:
                        middle = (low + high) // 2
                        if passes(middle):
                            low = middle
                        else:
                            high = middle
                    good, culprit = low, high - 1
                if good:
                    top = stack[good - 1][1].new_tip
                    try:
                        self._advance_verified(run, top, tip, f"worktree_coord: merge batch of {good} (verified)")
                    except StaleRef:
                        races += 1
                        if races >= VERIFIED_RACES:
                            raise self._raced_out(run, f"a batch of {len(stack)} was verified {races} times") from None
                        pending = [t for t, _ in stack] + pending  # integration moved: rebuild this batch
                        continue
                    crash_point("merge.batch_advanced")
                    for task, outcome in stack[:good]:
                        results.append(self._record_merged(
                            run, task, outcome.merge_commit, outcome.old_tip, outcome.new_tip,
                            path=outcome.path.value, resolved=list(outcome.resolved),
                                   resolutions=dict(outcome.resolutions), already=False,
                            verification=checks[len(stack) if culprit is None else good].to_json(),
                            findings=self._findings(run, task, outcome)))
                if culprit is not None:
                    task, _ = stack[culprit]
                    results.append(self._record_failed_verification(run, task, checks[culprit + 1]))
                    pending = [t for t, _ in stack[culprit + 1:]] + pending
        finally:
            self.git.delete_ref(candidate)
        return results

    @staged("merge_queue")
    def merge(self, run_id: str, *, verify: str | None = None, batch: int = 1,
              key: str | None = None) -> MergeReport:
        """Merge every finished, unmerged task (after a crash, or after `finish --no-merge`), in
        dependency order. Safe to repeat: merged tasks are skipped. With a verification command
        (here, at run start or in the configuration) each candidate is verified before integration
        moves; `batch` > 1 verifies that many at once and bisects a failing batch."""
        run = self._run(run_id)
        if batch < 1:
            raise UsageError(f"--batch must be at least 1, not {batch}")
        command = self._verify_command(run, verify)
        if batch > 1 and not command:
            raise UsageError("--batch needs a verification command", fix="pass --verify CMD (or set it at run start)")

        def body() -> Outcome:
            rows = []
            waiting = self.store.list_tasks(run_id, [TaskState.FINISHED])
            if len(waiting) > 1:   # an order to find: the workspace's packages (consolidate/) and a graph (networkx)
                from . import merge_queue as queue   # and the merge engine (integrate/, pygit2): not for none waiting

                waiting = queue.drain_order(waiting, self._packages(run))
            results: list[TaskFinished] = []
            if batch > 1 and command:
                with leases.hold(self.store, f"integration:{run_id}", timeout=self.config.wait_timeout,
                                 what=f"run {run_id} integration"):
                    with contextlib.ExitStack() as held:
                        for task in waiting:
                            held.enter_context(leases.hold(self.store, leases.task_lease(run_id, task.task_id),
                                                           timeout=self.config.wait_timeout,
                                                           what=f"task {task.task_id}"))
                        live = [self._task(run_id, t.task_id) for t in waiting]
                        results = self._merge_batches(run, [t for t in live if t.state is TaskState.FINISHED],
                                                      command, batch, rows)
            elif not command:
                results = self._drain(run, waiting, rows)
            else:
                for task in waiting:
                    try:
                        with leases.hold(self.store, leases.task_lease(run_id, task.task_id), timeout=0,
                                         what=f"task {task.task_id}"):
                            gone = _no_longer_waiting(self._task(run_id, task.task_id))
                            if gone is not None:
                                rows.append(gone)
                                continue
                            results.append(self._merge_task_locked(run, task.task_id, verify))
                    except BusyError as busy:
                        rows.append(_in_progress_row(task.task_id, busy))
                        continue
                    except LookUnanswered as unanswered:
                        rows.append(_unanswered_row(task.task_id, unanswered))   # passed over: the others merge
                        continue
                    self.reporter.event("merge.progress", run=run_id, task=task.task_id,
                                        state=results[-1].state, done=len(results), total=len(waiting))
            for result in results:
                rows.append({"task": result.task, "state": result.state, "conflicts": result.conflicts,
                             "merge_commit": (result.merge or {}).get("merge_commit")})
            tip = self.git.ref_target(f"refs/heads/{run.integration_ref}") or run.base
            # A task passed over because its look gave no answer: no verdict on it, exit 6 (after a
            # conflict, which asks the agent for work first), as its own finish exits.
            code = 1 if any(r["state"] in (TaskState.CONFLICT.value, TaskState.FAILED.value) for r in rows) \
                else EXIT_INTERNAL if any(r["state"] == UNANSWERED for r in rows) else 0
            report = MergeReport(exit_code=code, run=run_id, integration=run.integration_ref, tip=tip, tasks=rows)
            return Outcome(report.to_json(), code, final=False)  # a later drain must see later tasks

        done = run_once(self.store, key, "run.merge",
                        {"run": run_id, "verify": verify, "batch": batch}, body,
                        ttl=self.config.idempotency_ttl, wait_timeout=self.config.wait_timeout,
                        derived=variant_key(default_key(run_id, "merge"), verify=verify,
                                            batch=batch if batch != 1 else None))
        return MergeReport.from_json(done.outcome.result, replayed=done.replayed)

    def _drain(self, run: RunRecord, waiting: list[TaskRecord], rows: list[dict[str, Any]]) -> list[TaskFinished]:
        """`wtc merge` without verification: the waiting tasks merged in order, each onto the commit
        the one before wrote (integrate.Drain), integration moved once for all of them by one
        compare-and-swap from the tip the drain started from, then each task recorded, in order.
        Each task's lease is held from its merge to its record; a task whose lease another process
        holds (its own finish is merging it) is reported `in_progress` and skipped. A task that
        must be verified (it failed verification before) goes alone, after what was merged before
        it is published. When integration moved during the drain (a finish landed), nothing of
        it was published: each of its tasks is merged again by its own compare-and-swap, as a
        drain did before. A crash before the one move leaves integration and every task as they
        were; after it, the tasks not yet recorded are found merged by the next drain. The merge
        index writes what the drain's checks computed at its end (MergeIndex.held)."""
        if not waiting:
            return []   # the store's answer: nothing to merge, so no merge engine, index or libgit2 to load
        from . import merge_queue as queue
        from ..integrate import IntegrationState, StaleRef
        from ..merge.checks.merge_index import index_folder, shared_index

        results: list[TaskFinished] = []
        ref = f"refs/heads/{run.integration_ref}"
        built: list[tuple[TaskRecord, IntegrationResult]] = []
        drain = None
        # The merge index's disk writes (merge_index.py) wait for the drain's end: one transaction
        # for the symbols its checks parsed, and the last tip's changes and tables only.
        index = shared_index(index_folder(self.git.repo))
        # The drain's place in the machine's queue for heavy work: taken at its first merge and held
        # over the merges that follow, given back when what they built is published (before the
        # records, and before a task merged alone takes its own). One place for the run of merges
        # a drain is, not one a merge: each taking is three store writes (enqueue, admit, leave).
        heavy = contextlib.ExitStack()

        def publish() -> None:
            nonlocal drain
            heavy.close()
            if drain is None:
                return
            try:
                drain.publish()
                index.published()   # its tips' tables may be another check's now: copied, not taken over
                outcomes = [(task, outcome, None) for task, outcome in built]
            except StaleRef:
                outcomes = [(task, None, task) for task, _ in built]   # integration moved: each alone
            built.clear()
            drain = None
            # The merged tasks' ports go back to the machine in one taking of its registry's lock,
            # before their records (as each task's own release goes before its record).
            self._release_ports(run.run_id, *(task.task_id for task, outcome, _ in outcomes
                                              if outcome is not None and outcome.state is not IntegrationState.CONFLICT))
            merges: list[tuple[TaskRecord, IntegrationResult]] = []   # consecutive merges: recorded in one write

            def said(task: TaskRecord, result: TaskFinished) -> None:
                results.append(result)
                self.reporter.event("merge.progress", run=run.run_id, task=task.task_id, state=result.state,
                                    done=len(results), total=len(waiting))

            def record_merges() -> None:
                for (task, _), result in zip(merges, self._record_merges(run, merges)):
                    said(task, result)
                merges.clear()

            for task, outcome, again in outcomes:
                if again is None and outcome is not None and outcome.state is not IntegrationState.CONFLICT \
                        and not outcome.findings:
                    merges.append((task, outcome))
                    continue
                record_merges()   # the merges before this task first, in the drain's order
                if again is not None:
                    with self._stage("merge", run=run.run_id, task=task.task_id) as out:
                        result = self._merge_direct(run, again, out)
                        out.update(outcome_of(result))
                else:
                    # A conflict, or a merge whose warnings name the merged tasks they met (read
                    # from the store: the merges before it are recorded first).
                    assert outcome is not None
                    result = self._record_outcome(run, task, outcome, ports_released=True)
                said(task, result)
            record_merges()

        with contextlib.ExitStack() as held, index.held():
            held.enter_context(heavy)
            # Every waiting task's lease that is free taken at once (one store write for all, and
            # one to give them back at the drain's end, when each was given back before); a lease
            # another process holds is asked for alone, as before: taken from a dead holder, else
            # the task is in progress elsewhere.
            names = [leases.task_lease(run.run_id, task.task_id) for task in waiting]
            free = set(held.enter_context(leases.hold_free(self.store, names)))
            # The tasks whose lease the drain holds now, read again in one query: no write to a task
            # happens without its lease (`_fence`), so what this read finds stays so until the drain
            # gives the lease back. A task it does not find finished is read alone (it moved on).
            now_finished = {t.task_id: t for t in self.store.list_tasks(run.run_id, [TaskState.FINISHED])} \
                if free else {}
            try:
                for number, task in enumerate(waiting):
                    try:
                        if names[number] not in free:
                            held.enter_context(leases.hold(self.store, names[number], timeout=0,
                                                           what=f"task {task.task_id}"))
                    except BusyError as busy:
                        rows.append(_in_progress_row(task.task_id, busy))
                        continue
                    fresh = now_finished.get(task.task_id) if names[number] in free else None
                    task = fresh if fresh is not None else self._task(run.run_id, task.task_id)
                    gone = _no_longer_waiting(task)
                    if gone is not None:
                        rows.append(gone)
                        continue
                    if task.state is TaskState.MERGED or task.result.get("verify_command"):
                        publish()   # what merged before it lands first, in the drain's order
                        try:
                            results.append(self._merge_task_locked(run, task.task_id))
                        except LookUnanswered as unanswered:
                            rows.append(_unanswered_row(task.task_id, unanswered))
                            continue
                        self.reporter.event("merge.progress", run=run.run_id, task=task.task_id,
                                            state=results[-1].state, done=len(results), total=len(waiting))
                        continue
                    try:
                        with self._stage("merge", run=run.run_id, task=task.task_id, drain=True) as out:
                            done = self._before_merge(run, task, sync=drain is None,
                                                      onto=str(drain.tip) if drain is not None else None)
                            if done is not None:
                                out.update(outcome_of(done))
                            else:
                                if drain is None:
                                    heavy.enter_context(self._heavy("merge"))
                                    drain = self._integrator().drain(ref, publish=self._publisher(run),
                                                                     message=f"wtc: merge drain of run {run.run_id}",
                                                                     signature=queue.signature(),
                                                                     tasks=len(waiting) - number)
                                outcome = drain.merge(self._mergeable(task), run.base,
                                                      message=self._merge_message(run, task), author=queue.signature(),
                                                      resolve=queue.integration_resolver(run.run_id, task.task_id),
                                                      **self._semantic(run, task))
                                self._report_merge(outcome, out)
                                out.update(state="candidate" if outcome.state is IntegrationState.MERGED
                                           else outcome.state.value, conflicts=[{"kind": c.kind} for c in outcome.conflicts])
                                built.append((task, outcome))
                    except LookUnanswered as unanswered:
                        # No answer for this task: it is passed over (kept finished, the reason and
                        # the fix in its row; the drain's tip never moved for it), the ones after merge.
                        rows.append(_unanswered_row(task.task_id, unanswered))
                        continue
                    if done is not None:
                        results.append(done)
                        self.reporter.event("merge.progress", run=run.run_id, task=task.task_id, state=done.state,
                                            done=len(results), total=len(waiting))
            except BaseException:
                if isinstance(sys.exc_info()[1], Exception):
                    publish()   # an error in one task: what merged before it still lands and is recorded
                elif drain is not None:
                    drain.close()   # objects held in memory go to disk before the index names them
                raise
            publish()
        self.git.combine_packs()   # a drain holding its objects left one pack: bound how many pile up
        return results

    def _packages(self, run: RunRecord) -> list[queue.Package]:
        """Workspace packages at the pinned commit and their dependency edges (npm/yarn workspaces,
        Cargo and uv workspaces), read offline from the manifests alone. They depend on the pin
        only, so they are kept beside the store, one file per pinned commit: reading 500 packages'
        manifests cost a drain 1.1 s at 10,000 files, every drain."""
        from . import merge_queue as queue
        kept = self.git.wtc_dir / "cache" / f"{PACKAGES_CACHE}-{run.base}.json"
        try:
            return [queue.Package(name, path, tuple(depends)) for name, path, depends in json.loads(kept.read_text())]
        except (OSError, ValueError, TypeError):
            pass    # none yet, or unreadable (a torn write cannot happen: written by rename): read them again
        packages = self._read_packages(run)
        kept.parent.mkdir(parents=True, exist_ok=True)
        temporary = kept.with_name(f"{kept.name}.{os.getpid()}.tmp")
        temporary.write_text(json.dumps([[p.name, p.path, list(p.depends_on)] for p in packages]))
        temporary.replace(kept)
        return packages

    def _read_packages(self, run: RunRecord) -> list[queue.Package]:
        if not any(self.git.file_id_at(run.base, root) for root in _WORKSPACE_ROOTS):
            # No workspace's root manifest at the top: no packages, so the tree is not listed (a
            # `git ls-tree -r` of 20,000 paths and their parse, ~50 ms of a first drain), consolidate/
            # (and networkx, ~0.8 s) is not imported and no manifest is copied out. Three lookups
            # in the root tree, which the drain's merges read anyway.
            return []
        wanted = {"package.json", "Cargo.toml", "pyproject.toml", "pnpm-workspace.yaml"}
        manifests = [path for path in self.git.tree_paths(run.base)
                     if posixpath.basename(path) in wanted and "node_modules/" not in path]
        import tempfile
        from . import merge_queue as queue
        from ..consolidate import discover_workspace
        from ..consolidate.intent import Ecosystem

        with tempfile.TemporaryDirectory(prefix="wtc-packages-") as tmp:
            for path in manifests:
                data = self.git.file_at(run.base, path)
                if data is not None:
                    target = Path(tmp) / path
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(data)
            packages: list[queue.Package] = []
            for ecosystem, manifest in zip((Ecosystem.NPM, Ecosystem.CARGO, Ecosystem.UV), _WORKSPACE_ROOTS):
                if not (Path(tmp) / manifest).is_file():
                    continue
                try:
                    workspace = discover_workspace(Path(tmp), ecosystem, "")
                except WtcError:
                    continue  # an unreadable manifest only costs the ordering hint
                for name, directory in sorted(workspace.members.items()):
                    if directory:
                        packages.append(queue.Package(name, directory, tuple(sorted(workspace.graph.successors(name)))))
        return packages


def _no_longer_waiting(task: TaskRecord) -> dict[str, Any] | None:
    """The drain's row for a task listed as finished that, read again under its lease, is not
    waiting to merge any more (abandoned meanwhile): reported as it is, not merged. None: merge it."""
    if task.state in (TaskState.FINISHED, TaskState.CONFLICT, TaskState.MERGED):
        return None
    return {"task": task.task_id, "state": task.state.value, "conflicts": [], "merge_commit": None}


UNANSWERED = "unanswered"   # a drain's row state: the task's look gave no answer, it waits (still finished)


def _unanswered_row(task_id: str, unanswered: LookUnanswered) -> dict[str, Any]:
    """The drain's row for a task whose look for uses of the names it removed gave no answer: passed
    over, kept finished, with the reason and the fix (`--merge-unchecked`); the drain exits 6."""
    return {"task": task_id, "state": UNANSWERED, "conflicts": [], "merge_commit": None,
            "reason": unanswered.message, "fix": unanswered.fix}


def _in_progress_row(task_id: str, busy: BusyError) -> dict[str, Any]:
    """The drain's row for a task whose lease another process holds: its own finish is merging it
    right now, so it is reported, not queued behind. A BusyError that is not about that lease
    (the store, the integration lock) is the drain's own failure and goes on up."""
    if "lease" not in busy.details:
        raise busy
    return {"task": task_id, "state": "in_progress", "conflicts": [], "merge_commit": None}
