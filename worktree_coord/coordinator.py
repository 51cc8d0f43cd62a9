"""The Python API: runs, tasks in ephemeral worktrees, boundaries checked at finish, garbage collection.

`Coordinator(repo)` is what the CLI, the CI step and custom orchestrators call. Every write goes
through `idempotency.run_once` (a repeat with the same key does nothing) and, for one task, under that
task's lease (two calls on one task never interleave); nothing that matters lives in process memory,
so any process may pick up where a killed one stopped:

- start_run:   pin a commit, create `wtc/<run>/integration` at it (create-only), record the run.
- start_task:  record the task, then create its worktree on `wtc/<run>/<task>` at the pin (sparse
               when asked), verify HEAD == pin, write the boundary manifest into the worktree.
               A retry after a crash finds the record and rebuilds what is missing.
- finish_task: commit everything in the worktree as the task's author, check the diff against the
               pin, then record `finished` (or `rejected` with every violation, or `empty`) and
               remove the worktree. A retry after a crash between commit and record ends the same.
- abandon_task: snapshot uncommitted work onto the branch, remove the worktree, keep the branch.
- gc:          remove what ended or nobody owns, never a branch with unmerged work.
"""

from __future__ import annotations

import contextlib
import json
import os
import posixpath
import tempfile
import time
from pathlib import Path
from typing import Any, Sequence

from . import boundary as boundaries
from . import admission, leases, queue
from .config import Config, load_config
from .consolidate import Intent, declare_intent, discover_workspace, find_root
from .consolidate.intent import Ecosystem
from .consolidate.derive import detect_ecosystem
from .consolidation import ConsolidationReport, consolidate_run, relock_configs
from .crashpoints import crash_point
from .errors import BusyError, NotFoundError, StateError, UsageError, WtcError
from .events import NullReporter, Reporter
from .gitrepo import GitRepo
from .idempotency import Outcome, default_key, run_once
from .intents import derive_task_intents
from .integrate import IntegrationResult, IntegrationState, Integrator, StaleRef, fast_forward
from .model import Boundary, RunRecord, RunState, TaskRecord, TaskState, validate_name
from .results import (GcReport, Landed, MergeReport, RunReport, RunStarted, RunStatus, TaskAbandoned, TaskFinished,
                      TaskStarted, TaskUpdated)
from .store import SQLiteStore, Store
from .verify import VerifyResult, verify_commit

MANIFEST_PATH = ".wtc/task.json"
EXIT_BOUNDARY = 3


class Coordinator:
    """Coordinates the runs and tasks of one git repository (see the module docstring)."""

    def __init__(self, repo: str | os.PathLike[str] = ".", *, store: Store | None = None,
                 config: Config | None = None, reporter: Reporter | None = None):
        self.git = GitRepo(repo)
        self.config = config or load_config(self.git.toplevel, self._read_head_file)
        self.git.lock_timeout = self.config.lock_timeout
        self.git.ensure_setup()
        self.store: Store = store or SQLiteStore(self.git.wtc_dir / "state.sqlite3")
        self.reporter = reporter or NullReporter()
        self._integrator_instance: Integrator | None = None

    def close(self) -> None:
        if self._integrator_instance is not None:
            self._integrator_instance.close()
        self.store.close()

    def __enter__(self) -> "Coordinator":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- runs -------------------------------------------------------------------------------------

    def start_run(self, run_id: str | None = None, base: str = "HEAD", *, verify: str | None = None,
                  key: str | None = None) -> RunStarted:
        """Pin `base` and create the run's integration branch at it. `verify` is a shell command every
        merge candidate must pass (in a scratch worktree) before the integration branch moves."""
        if run_id is None:
            if key is not None:
                existing = self.store.get_record(key)
                if existing is not None and existing.result:
                    run_id = existing.result.get("run")
            run_id = run_id or time.strftime("run-%Y%m%d-%H%M%S-") + os.urandom(2).hex()
        validate_name("run", run_id)
        sha = self.git.resolve_commit(base)
        request = {"run": run_id, "base": sha, "verify": verify}

        def body() -> Outcome:
            integration = f"wtc/{run_id}/integration"
            existing = self.store.get_run(run_id)
            if existing is not None:
                if existing.base != sha:
                    raise UsageError(
                        f"run {run_id!r} exists, pinned at {existing.base[:12]}, not {sha[:12]}",
                        fix="start a run with a new --run id, or omit --base to reuse this run",
                    )
                return Outcome(RunStarted(run=run_id, base=sha, integration=integration).to_json())
            ref = f"refs/heads/{integration}"
            if not self.git.create_ref(ref, sha, f"worktree_coord: run {run_id} pinned"):
                current = self.git.ref_target(ref)
                if current != sha:
                    raise UsageError(
                        f"branch {integration} already exists at {str(current)[:12]} but no run {run_id!r} is recorded",
                        fix=f"choose another --run id, or delete the branch (git branch -D {integration})",
                    )
            options = {"verify": verify} if verify else {}
            self.store.create_run(RunRecord(run_id, sha, integration, RunState.OPEN, time.time(), options))
            self.store.log_event(run_id, None, "run.started", {"base": sha})
            self.reporter.event("run.started", run=run_id, base=sha)
            return Outcome(RunStarted(run=run_id, base=sha, integration=integration).to_json())

        done = run_once(self.store, key or default_key(run_id, "run-start"), "run.start", request, body,
                        ttl=self.config.idempotency_ttl, wait_timeout=self.config.wait_timeout)
        return RunStarted.from_json(done.outcome.result, replayed=done.replayed)

    def _run(self, run_id: str) -> RunRecord:
        validate_name("run", run_id)
        run = self.store.get_run(run_id)
        if run is None:
            raise NotFoundError(f"no run {run_id!r} in {self.git.common_dir}",
                                fix="start it first: wtc run start --run " + run_id)
        return run

    def _task(self, run_id: str, task_id: str) -> TaskRecord:
        validate_name("task", task_id)
        task = self.store.get_task(run_id, task_id)
        if task is None:
            raise NotFoundError(f"no task {task_id!r} in run {run_id!r}",
                                fix=f"start it first: wtc task start {task_id} --run {run_id} --own GLOB")
        return task

    # ---- task start -------------------------------------------------------------------------------

    def start_task(self, run_id: str, task_id: str, own: Sequence[str], read: Sequence[str] = (), *,
                   sparse: bool = False, exclusive: bool = False, author: str | None = None,
                   key: str | None = None) -> TaskStarted:
        """Give a task its branch and ephemeral worktree off the run's pinned commit."""
        run = self._run(run_id)
        validate_name("task", task_id)
        reserved = boundaries.reserved_patterns(self.config.reserved_add, self.config.reserved_remove)
        boundary = boundaries.make_boundary(own, read, reserved=reserved, exclusive=exclusive, sparse=sparse)
        author_name, author_email = _parse_author(author, run_id, task_id)
        request = {"run": run_id, "task": task_id, "own": list(boundary.own), "read": list(boundary.read),
                   "sparse": sparse, "exclusive": exclusive, "author": f"{author_name} <{author_email}>"}

        def body() -> Outcome:
            with leases.hold(self.store, f"task:{run_id}/{task_id}", timeout=self.config.wait_timeout,
                             what=f"task {task_id}"):
                return Outcome(self._start_task_locked(run, task_id, boundary, f"{author_name} <{author_email}>").to_json())

        done = run_once(self.store, key or default_key(run_id, "start", task_id), "task.start", request, body,
                        ttl=self.config.idempotency_ttl, wait_timeout=self.config.wait_timeout)
        return TaskStarted.from_json(done.outcome.result, replayed=done.replayed)

    def _start_task_locked(self, run: RunRecord, task_id: str, boundary: Boundary, author: str) -> TaskStarted:
        branch = f"wtc/{run.run_id}/{task_id}"
        path = self.worktree_path(run.run_id, task_id)
        existing = self.store.get_task(run.run_id, task_id)
        overlaps: list[dict[str, Any]] = []
        if existing is not None:
            if (existing.boundary.own, existing.boundary.read, existing.boundary.sparse, existing.boundary.exclusive) != (
                    boundary.own, boundary.read, boundary.sparse, boundary.exclusive):
                raise UsageError(
                    f"task {task_id!r} already exists in run {run.run_id!r} with another boundary "
                    f"(own {list(existing.boundary.own)})",
                    fix="use a new task name, or repeat the original --own/--read/--sparse flags",
                )
            if not existing.state.live:
                raise StateError(f"task {task_id!r} is {existing.state.value}; it cannot be started again",
                                 fix="start a new task with another name")
            boundary = existing.boundary
            overlaps = existing.result.get("overlaps", [])
        else:
            # Overlap check and insert under one short run-wide lease, so two exclusive tasks that
            # overlap can never both get in.
            with leases.hold(self.store, f"boundaries:{run.run_id}", timeout=self.config.wait_timeout,
                             what=f"run {run.run_id} boundaries"):
                overlaps = self._overlaps(run.run_id, task_id, boundary)
                blocking = [o for o in overlaps if boundary.exclusive or o["exclusive"]]
                if blocking:
                    names = ", ".join(o["task"] for o in blocking)
                    raise BusyError(
                        f"task {task_id!r} would overlap live task(s) {names} and exclusive ownership was asked",
                        fix="retry after those tasks finish, or narrow --own so the globs do not meet",
                        retry_after=30.0,
                        details={"overlaps": blocking},
                    )
                now = time.time()
                self.store.insert_task(TaskRecord(
                    run_id=run.run_id, task_id=task_id, state=TaskState.STARTED, branch=branch,
                    worktree=str(path), boundary=boundary, author=author, head=run.base,
                    created_at=now, updated_at=now, result={"overlaps": overlaps},
                ))
            self.store.log_event(run.run_id, task_id, "task.started", {"own": list(boundary.own)})
        crash_point("start.after_record")
        cone = boundaries.cone_directories(list(boundary.own) + list(boundary.read)) if boundary.sparse else None
        head = self._ensure_worktree(run, task_id, branch, path, cone if boundary.sparse else None)
        manifest = self._write_manifest(run, task_id, branch, path, boundary)
        self.store.update_task(run.run_id, task_id, worktree=str(path))
        self.reporter.event("task.started", run=run.run_id, task=task_id, worktree=str(path))
        return TaskStarted(
            run=run.run_id, task=task_id, worktree=str(path), branch=branch, base=run.base,
            boundary=boundary.to_json(), sparse_cone=list(cone) if cone is not None else None,
            overlaps=overlaps, manifest=str(manifest),
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
                         cone: Sequence[str] | None) -> str:
        """The task's worktree, created or re-created as needed; returns its HEAD (verified)."""
        ref = f"refs/heads/{branch}"
        tip = self.git.ref_target(ref)
        if tip is not None and not self.git.is_ancestor(run.base, tip):
            raise StateError(f"branch {branch} exists but does not descend from the run's pinned commit {run.base[:12]}",
                             fix=f"delete it (git branch -D {branch}) or use another task name")
        if path.exists() and (path / ".git").is_file():
            head, symbolic = self.git.worktree_head(path)
            if head is not None and symbolic == ref:
                return head
            # A half-made worktree (crash during creation): rebuild it.
            self.git.remove_worktree(path)
        elif path.exists():
            self.git.remove_worktree(path)
        expected = tip or run.base
        head = self.git.add_worktree(path, branch, run.base, sparse_dirs=cone)
        if head != expected:
            self.git.remove_worktree(path)
            raise StateError(f"the new worktree's HEAD {head[:12]} is not the expected {expected[:12]}",
                             fix="retry; if it repeats, run `wtc gc` and report a bug")
        return head

    def _write_manifest(self, run: RunRecord, task_id: str, branch: str, path: Path, boundary: Boundary) -> Path:
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
        temporary = manifest.with_suffix(".tmp")
        temporary.write_text(json.dumps(body, indent=2) + "\n")
        temporary.replace(manifest)
        return manifest

    def worktree_root(self) -> Path:
        """Where task worktrees live: `worktree-root` from the configuration, relative to the main
        checkout (excluded from its `git status`); inside the git dir for a bare repository."""
        root = Path(self.config.worktree_root)
        if root.is_absolute():
            return root
        return self.git.toplevel / root if self.git.toplevel else self.git.wtc_dir / "worktrees"

    def worktree_path(self, run_id: str, task_id: str) -> Path:
        return self.worktree_root() / run_id / task_id

    # ---- task finish ------------------------------------------------------------------------------

    def finish_task(self, run_id: str, task_id: str, *, message: str | None = None, merge: bool = True,
                    verify: str | None = None, key: str | None = None) -> TaskFinished:
        """Commit the worktree, check the boundary, record the outcome, remove the worktree, then
        merge the task into the integration branch (unless `merge=False`; `merge()` drains later)."""
        run = self._run(run_id)
        self._task(run_id, task_id)
        request = {"run": run_id, "task": task_id, "message": message, "merge": merge, "verify": verify}

        def body() -> Outcome:
            with leases.hold(self.store, f"task:{run_id}/{task_id}", timeout=self.config.wait_timeout,
                             what=f"task {task_id}"):
                result = self._finish_task_locked(run, task_id, message)
                if merge and result.state in (TaskState.FINISHED.value, TaskState.CONFLICT.value):
                    result = self._merge_task_locked(run, task_id, verify)
            return Outcome(result.to_json(), result.exit_code, final=result.exit_code == 0)

        done = run_once(self.store, key or default_key(run_id, "finish", task_id), "task.finish", request, body,
                        ttl=self.config.idempotency_ttl, wait_timeout=self.config.wait_timeout)
        return TaskFinished.from_json(done.outcome.result, replayed=done.replayed)

    def _finish_task_locked(self, run: RunRecord, task_id: str, message: str | None) -> TaskFinished:
        task = self._task(run.run_id, task_id)
        if task.state in (TaskState.FINISHED, TaskState.MERGED, TaskState.EMPTY) or (
                task.state is TaskState.CONFLICT and not self._has_new_work(task)):
            # Finished earlier (perhaps by a call with another key): clean up what a crash may have
            # left, and return the recorded outcome (the caller goes on to merge a FINISHED task).
            if task.state is not TaskState.CONFLICT:
                self._drop_worktree(task)
            return TaskFinished.from_json(task.result, replayed=task.state is not TaskState.FINISHED)
        if not task.state.live:
            raise StateError(f"task {task_id!r} is {task.state.value} and cannot be finished",
                             fix="start a new task; its branch " + task.branch + " keeps the work")
        ref = f"refs/heads/{task.branch}"
        path = Path(task.worktree) if task.worktree else None
        notes: list[str] = []
        problems: list[dict[str, str]] = []
        if path is not None and path.exists():
            notes += self._recover_branch(run, task, path)
            problems = self._worktree_problems(task, path)
            if not problems:
                name, email = _split_author(task.author)
                self.git.commit_all(path, message or f"wtc: {task_id}", name, email)
        else:
            notes.append("the worktree was gone; checked the branch as it is")
        crash_point("finish.after_commit")
        tip = self.git.ref_target(ref)
        if tip is None:
            raise StateError(f"the task branch {task.branch} was deleted",
                             fix=f"abandon the task (wtc task abandon {task_id} --run {run.run_id}) and start a new one")
        violations = [dict(v) for v in problems]
        changes = []
        reserved = []
        derived: list[Intent] = []
        since = run.base
        if not violations:
            if not self.git.is_ancestor(run.base, tip):
                violations.append({"path": "", "rule": "not_from_base",
                                   "detail": f"the branch no longer descends from the pinned commit {run.base[:12]}"})
            else:
                # The task's own work is what it changed since it last took in integration (the pin,
                # unless `task update` merged the integration branch into it).
                integration_tip = self.git.ref_target(f"refs/heads/{run.integration_ref}") or run.base
                since = self.git.merge_base(tip, integration_tip) \
                    if self.git.is_ancestor(run.base, integration_tip) else run.base
                changes = self.git.changes(since, tip)
                report = boundaries.check_changes(changes, task.boundary, self.git.read_blob)
                violations = [v.to_json() for v in report.violations]
                violations += self._leftover_markers(task, tip)
                reserved = [{"path": c.path, "status": c.status, "base_oid": c.old_oid, "new_oid": c.new_oid}
                            for c in report.reserved]
                if not violations:
                    derived, refused = derive_task_intents(
                        report.reserved, report.owned, task=task_id, since=since, read_blob=self.git.read_blob,
                        tree_paths=lambda: self.git.tree_paths(since))
                    violations += refused
        changed = [{"path": c.path, "status": c.status} for c in changes]
        if violations:
            result = TaskFinished(
                exit_code=EXIT_BOUNDARY, run=run.run_id, task=task_id, state=TaskState.REJECTED.value, commit=tip,
                branch=task.branch, changed=changed, violations=violations, worktree=task.worktree, notes=notes,
            )
            self.store.update_task(run.run_id, task_id, state=TaskState.REJECTED, head=tip, result=result.to_json())
            self.store.log_event(run.run_id, task_id, "task.rejected", {"violations": violations})
            self.reporter.event("task.rejected", run=run.run_id, task=task_id, violations=violations)
            return result
        state = TaskState.EMPTY if not changes else TaskState.FINISHED
        if reserved:
            notes.append("reserved-file edits are kept aside on the branch for the consolidation phase")
        result = TaskFinished(
            run=run.run_id, task=task_id, state=state.value, commit=tip, branch=task.branch, changed=changed,
            reserved=reserved, intents=[i.to_json() for i in derived], worktree=None, notes=notes,
        )
        self.store.put_intents(run.run_id, task_id, [i.to_json() for i in derived])
        mergeable = queue.mergeable_commit(self.git.repo, tip, since, [r["path"] for r in reserved], task_id)
        self.store.update_task(run.run_id, task_id, state=state, head=tip, finished_at=time.time(),
                               result=result.to_json() | {"since": since, "mergeable": mergeable})
        crash_point("finish.after_record")
        self.store.log_event(run.run_id, task_id, f"task.{state.value}", {"commit": tip, "files": len(changed)})
        self._drop_worktree(task)
        self.reporter.event("task.finished", run=run.run_id, task=task_id, state=state.value)
        return result

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

    def _worktree_problems(self, task: TaskRecord, path: Path) -> list[dict[str, str]]:
        """Tampering that makes committing in the worktree unsafe: a rewritten .git file, a switched branch."""
        problems = []
        dot_git = path / ".git"
        text = dot_git.read_text(errors="replace").strip() if dot_git.is_file() else ""
        admin = Path(text[len("gitdir:"):].strip()) if text.startswith("gitdir:") else None
        if admin is None or not admin.is_absolute():
            admin = (path / admin) if admin is not None else None
        worktrees_dir = (self.git.common_dir / "worktrees").resolve()
        if admin is None or admin.resolve().parent != worktrees_dir or not (admin / "gitdir").is_file():
            problems.append({"path": ".git", "rule": "git_dir",
                             "detail": "the worktree's .git file was changed or removed; restore it with `git worktree repair`"})
            return problems
        head, symbolic = self.git.worktree_head(path)
        if symbolic != f"refs/heads/{task.branch}":
            problems.append({"path": "", "rule": "branch_switched",
                             "detail": f"the worktree is on {symbolic or 'a detached HEAD'}, not {task.branch}; "
                                       f"switch back with `git switch {task.branch}`"})
        return problems

    def _drop_worktree(self, task: TaskRecord) -> None:
        if task.worktree and Path(task.worktree).exists():
            self.git.remove_worktree(Path(task.worktree))
        if task.worktree:
            self.store.update_task(task.run_id, task.task_id, worktree=None)

    def _leftover_markers(self, task: TaskRecord, tip: str) -> list[dict[str, str]]:
        """Files `task update` left with conflict markers must not be committed with them."""
        found = []
        for rel in task.result.get("pending_markers", []):
            data = self.git.file_at(tip, rel)
            if data is not None and _has_conflict_markers(data):
                found.append({"path": rel, "rule": "conflict_markers",
                              "detail": "still holds conflict markers from `wtc task update`; resolve them first"})
        return found

    def _has_new_work(self, task: TaskRecord) -> bool:
        """A task in conflict has new work when its worktree holds changes or commits since the
        conflict was recorded (the agent resolved something): then finish runs again."""
        if task.worktree and Path(task.worktree).exists():
            if self.git.has_uncommitted(Path(task.worktree)):
                return True
        tip = self.git.ref_target(f"refs/heads/{task.branch}")
        return tip != task.head

    # ---- merging into integration -----------------------------------------------------------------

    def _integrator(self) -> Integrator:
        if self._integrator_instance is None:
            self._integrator_instance = Integrator(self.git.repo)
        return self._integrator_instance

    def _merge_task_locked(self, run: RunRecord, task_id: str, verify: str | None = None) -> TaskFinished:
        """Merge a finished task into integration (under the task's lease). With a verification
        command, the merge is built on a candidate ref, verified, then fast-forwarded onto
        integration by compare-and-swap; without, it lands directly by compare-and-swap."""
        task = self._task(run.run_id, task_id)
        if task.state is TaskState.MERGED:
            return TaskFinished.from_json(task.result, replayed=True)
        if task.state not in (TaskState.FINISHED, TaskState.CONFLICT):
            raise StateError(f"task {task_id!r} is {task.state.value}; only finished tasks merge")
        self._check_integration(run)
        command = self._verify_command(run, verify)
        if command:
            with leases.hold(self.store, f"integration:{run.run_id}", timeout=self.config.wait_timeout,
                             what=f"run {run.run_id} integration"):
                return self._merge_verified(run, task, command)
        with self._heavy("merge"):
            outcome = self._integrator().merge_into(
                f"refs/heads/{run.integration_ref}", self._mergeable(task), run.base,
                message=self._merge_message(run, task), author=queue.signature(), resolve=queue.structured_resolver)
        if outcome.state is IntegrationState.CONFLICT:
            return self._record_conflict(run, task, outcome)
        return self._record_merged(run, task, outcome.merge_commit, outcome.old_tip, outcome.new_tip,
                                   path=outcome.path.value, resolved=list(outcome.resolved),
                                   already=outcome.state is IntegrationState.ALREADY_MERGED)

    def _heavy(self, what: str):  # type: ignore[no-untyped-def]
        """A place in the machine-wide queue for heavy work (merges, verification, relocks)."""
        return admission.admitted(self.store, "heavy", limit=self.config.max_parallel or admission.default_limit(),
                                  timeout=self.config.wait_timeout)

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

    def _mergeable(self, task: TaskRecord) -> str:
        return task.result.get("mergeable") or task.head or ""

    def _merge_message(self, run: RunRecord, task: TaskRecord) -> str:
        return f"wtc: merge task {task.task_id} into run {run.run_id}\n\nbranch {task.branch}"

    def _verify_command(self, run: RunRecord, explicit: str | None) -> str | None:
        return explicit or run.options.get("verify") or self.config.verify

    def _record_conflict(self, run: RunRecord, task: TaskRecord, outcome: IntegrationResult) -> TaskFinished:
        merged = self.store.list_tasks(run.run_id, [TaskState.MERGED])
        conflicts = queue.conflict_report(outcome, merged)
        base_result = {k: v for k, v in task.result.items() if k not in ("conflicts", "merge")}
        result = TaskFinished.from_json(base_result, state=TaskState.CONFLICT.value, exit_code=1,
                                        conflicts=conflicts, replayed=False,
                                        notes=[f"run `wtc task update {task.task_id} --run {run.run_id}` to get the "
                                               "integration tip into a worktree with conflict markers, resolve, "
                                               "then finish again"])
        self.store.update_task(run.run_id, task.task_id, state=TaskState.CONFLICT,
                               result=result.to_json() | self._carry(task))
        self.store.log_event(run.run_id, task.task_id, "task.conflict",
                             {"paths": sorted({c["path"] for c in conflicts})})
        self.reporter.event("task.conflict", run=run.run_id, task=task.task_id, conflicts=conflicts)
        return result

    def _record_merged(self, run: RunRecord, task: TaskRecord, merge_commit: str | None, old_tip: str,
                       new_tip: str, *, path: str, resolved: list[str], already: bool,
                       verification: dict[str, Any] | None = None) -> TaskFinished:
        merge_info = {"merge_commit": merge_commit, "old_tip": old_tip, "new_tip": new_tip, "path": path,
                      "resolved": resolved, "at": time.time(), "already": already}
        if verification is not None:
            merge_info["verification"] = verification
        base_result = {k: v for k, v in task.result.items() if k not in ("conflicts", "merge")}
        result = TaskFinished.from_json(base_result, state=TaskState.MERGED.value, exit_code=0, merge=merge_info,
                                        conflicts=[], replayed=False)
        self.store.update_task(run.run_id, task.task_id, state=TaskState.MERGED,
                               result=result.to_json() | self._carry(task))
        crash_point("merge.after_record")
        self.store.log_event(run.run_id, task.task_id, "task.merged", merge_info)
        self._drop_worktree(task)
        self.reporter.event("task.merged", run=run.run_id, task=task.task_id, commit=new_tip)
        return result

    def _record_failed_verification(self, run: RunRecord, task: TaskRecord, check: VerifyResult) -> TaskFinished:
        base_result = {k: v for k, v in task.result.items() if k not in ("conflicts", "merge")}
        result = TaskFinished.from_json(
            base_result, state=TaskState.FAILED.value, exit_code=1, conflicts=[], replayed=False,
            notes=[f"ejected: `{check.command}` failed on the merge candidate (exit {check.exit_code}); "
                   f"integration stays green. Fix it after `wtc task update {task.task_id} --run {run.run_id}`."])
        self.store.update_task(run.run_id, task.task_id, state=TaskState.FAILED,
                               result=result.to_json() | self._carry(task)
                               | {"reason": "failed_verification", "verification": check.to_json()})
        self.store.log_event(run.run_id, task.task_id, "task.failed_verification", check.to_json())
        self.reporter.event("task.failed_verification", run=run.run_id, task=task.task_id)
        return TaskFinished.from_json(self._task(run.run_id, task.task_id).result, replayed=False)

    @staticmethod
    def _carry(task: TaskRecord) -> dict[str, Any]:
        """Bookkeeping that follows a task through its states (not part of the public result)."""
        return {k: task.result[k] for k in ("since", "mergeable", "pending_markers") if k in task.result}

    def _candidate_ref(self, run: RunRecord, name: str) -> str:
        return f"refs/wtc/{run.run_id}/candidate/{name}"

    def _verify(self, run: RunRecord, commit: str, command: str) -> VerifyResult:
        self.reporter.event("verify.start", run=run.run_id, commit=commit, command=command)
        with self._heavy("verify"):
            check = verify_commit(self.git, commit, command, self.worktree_root() / run.run_id / ".verify",
                                  timeout=self.config.verify_timeout)
        self.reporter.event("verify.done", run=run.run_id, commit=commit, ok=check.ok)
        return check

    def _merge_verified(self, run: RunRecord, task: TaskRecord, command: str) -> TaskFinished:
        """Candidate merge on a private ref, verification in a scratch worktree, then a CAS of
        integration from the tip the candidate was built on; a moved tip means build again."""
        integration = f"refs/heads/{run.integration_ref}"
        candidate = self._candidate_ref(run, task.task_id)
        integrator = self._integrator()
        try:
            while True:
                tip = self.git.ref_target(integration) or run.base
                if integrator.already_merged(integration, self._mergeable(task), run.base):
                    return self._record_merged(run, task, None, tip, tip, path="none", resolved=[], already=True)
                self.git.set_ref(candidate, tip, f"worktree_coord: candidate for {task.task_id}")
                with self._heavy("merge"):
                    outcome = integrator.merge_into(candidate, self._mergeable(task), run.base,
                                                    message=self._merge_message(run, task), author=queue.signature(),
                                                    resolve=queue.structured_resolver)
                if outcome.state is IntegrationState.CONFLICT:
                    return self._record_conflict(run, task, outcome)
                check = self._verify(run, outcome.new_tip, command)
                if not check.ok:
                    return self._record_failed_verification(run, task, check)
                try:
                    fast_forward(self.git.repo, integration, outcome.new_tip, tip,
                                 message=f"worktree_coord: merge task {task.task_id} (verified)")
                except StaleRef:
                    continue  # integration moved while we verified: build and verify again
                return self._record_merged(run, task, outcome.merge_commit, tip, outcome.new_tip,
                                           path=outcome.path.value, resolved=list(outcome.resolved),
                                           already=False, verification=check.to_json())
        finally:
            self.git.delete_ref(candidate)

    def _merge_batches(self, run: RunRecord, tasks: list[TaskRecord], command: str, size: int) -> list[TaskFinished]:
        """bors-style batches: merge up to `size` tasks speculatively on a candidate ref, verify the
        batch once, fast-forward integration when it passes; when it fails, bisect to the first
        failing prefix, land the passing prefix, eject the culprit and go on with the rest."""
        integration = f"refs/heads/{run.integration_ref}"
        candidate = self._candidate_ref(run, "batch")
        integrator = self._integrator()
        results: list[TaskFinished] = []
        pending = list(tasks)
        try:
            while pending:
                batch, pending = pending[:size], pending[size:]
                tip = self.git.ref_target(integration) or run.base
                self.git.set_ref(candidate, tip, "worktree_coord: batch candidate")
                stack: list[tuple[TaskRecord, IntegrationResult]] = []
                for task in batch:
                    task = self._task(run.run_id, task.task_id)
                    with self._heavy("merge"):
                        outcome = integrator.merge_into(candidate, self._mergeable(task), run.base,
                                                        message=self._merge_message(run, task),
                                                        author=queue.signature(), resolve=queue.structured_resolver)
                    if outcome.state is IntegrationState.CONFLICT:
                        results.append(self._record_conflict(run, task, outcome))
                    elif outcome.state is IntegrationState.MERGED:
                        stack.append((task, outcome))
                if not stack:
                    continue
                checks: dict[int, VerifyResult] = {}

                def passes(count: int) -> bool:
                    if count not in checks:
                        checks[count] = self._verify(run, stack[count - 1][1].new_tip, command)
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
                        fast_forward(self.git.repo, integration, top, tip,
                                     message=f"worktree_coord: merge batch of {good} (verified)")
                    except StaleRef:
                        pending = [t for t, _ in stack] + pending  # integration moved: rebuild this batch
                        continue
                    for task, outcome in stack[:good]:
                        results.append(self._record_merged(
                            run, task, outcome.merge_commit, outcome.old_tip, outcome.new_tip,
                            path=outcome.path.value, resolved=list(outcome.resolved), already=False,
                            verification=checks[len(stack) if culprit is None else good].to_json()))
                if culprit is not None:
                    task, _ = stack[culprit]
                    results.append(self._record_failed_verification(run, task, checks[culprit + 1]))
                    pending = [t for t, _ in stack[culprit + 1:]] + pending
        finally:
            self.git.delete_ref(candidate)
        return results

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
            waiting = queue.drain_order(self.store.list_tasks(run_id, [TaskState.FINISHED]), self._packages(run))
            results: list[TaskFinished] = []
            if batch > 1 and command:
                with leases.hold(self.store, f"integration:{run_id}", timeout=self.config.wait_timeout,
                                 what=f"run {run_id} integration"):
                    with contextlib.ExitStack() as held:
                        for task in waiting:
                            held.enter_context(leases.hold(self.store, f"task:{run_id}/{task.task_id}",
                                                           timeout=self.config.wait_timeout,
                                                           what=f"task {task.task_id}"))
                        live = [self._task(run_id, t.task_id) for t in waiting]
                        results = self._merge_batches(run, [t for t in live if t.state is TaskState.FINISHED],
                                                      command, batch)
            else:
                for task in waiting:
                    with leases.hold(self.store, f"task:{run_id}/{task.task_id}", timeout=self.config.wait_timeout,
                                     what=f"task {task.task_id}"):
                        results.append(self._merge_task_locked(run, task.task_id, verify))
                    self.reporter.event("merge.progress", run=run_id, task=task.task_id,
                                        state=results[-1].state, done=len(results), total=len(waiting))
            for result in results:
                rows.append({"task": result.task, "state": result.state, "conflicts": result.conflicts,
                             "merge_commit": (result.merge or {}).get("merge_commit")})
            tip = self.git.ref_target(f"refs/heads/{run.integration_ref}") or run.base
            code = 1 if any(r["state"] in (TaskState.CONFLICT.value, TaskState.FAILED.value) for r in rows) else 0
            report = MergeReport(exit_code=code, run=run_id, integration=run.integration_ref, tip=tip, tasks=rows)
            return Outcome(report.to_json(), code, final=False)  # a later drain must see later tasks

        done = run_once(self.store, key or default_key(run_id, "merge"), "run.merge",
                        {"run": run_id, "verify": verify, "batch": batch}, body,
                        ttl=self.config.idempotency_ttl, wait_timeout=self.config.wait_timeout)
        return MergeReport.from_json(done.outcome.result, replayed=done.replayed)

    def _packages(self, run: RunRecord) -> list[queue.Package]:
        """Workspace packages at the pinned commit and their dependency edges (npm/yarn workspaces,
        Cargo and uv workspaces), read offline from the manifests alone."""
        wanted = {"package.json", "Cargo.toml", "pyproject.toml", "pnpm-workspace.yaml"}
        with tempfile.TemporaryDirectory(prefix="wtc-packages-") as tmp:
            for path in self.git.tree_paths(run.base):
                if posixpath.basename(path) in wanted and "node_modules/" not in path:
                    data = self.git.file_at(run.base, path)
                    if data is not None:
                        target = Path(tmp) / path
                        target.parent.mkdir(parents=True, exist_ok=True)
                        target.write_bytes(data)
            packages: list[queue.Package] = []
            for ecosystem, manifest in ((Ecosystem.NPM, "package.json"), (Ecosystem.CARGO, "Cargo.toml"),
                                        (Ecosystem.UV, "pyproject.toml")):
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

    # ---- task update --------------------------------------------------------------------------------

    def update_task(self, run_id: str, task_id: str, *, key: str | None = None) -> TaskUpdated:
        """Bring the task's worktree (re-created if needed) onto the integration tip: a merge of the
        integration branch into the task branch, conflicts pre-resolved by the structured merge where
        it can and left as markers where it cannot. Finishing again merges the task."""
        run = self._run(run_id)
        self._task(run_id, task_id)
        tip_now = self.git.ref_target(f"refs/heads/{run.integration_ref}") or run.base
        request = {"run": run_id, "task": task_id, "integration": tip_now}

        def body() -> Outcome:
            with leases.hold(self.store, f"task:{run_id}/{task_id}", timeout=self.config.wait_timeout,
                             what=f"task {task_id}"):
                result = self._update_task_locked(run, task_id)
            return Outcome(result.to_json(), result.exit_code, final=False)

        done = run_once(self.store, key or default_key(run_id, "update", task_id) + "-" + tip_now[:12],
                        "task.update", request, body, ttl=self.config.idempotency_ttl,
                        wait_timeout=self.config.wait_timeout)
        return TaskUpdated.from_json(done.outcome.result, replayed=done.replayed)

    def _update_task_locked(self, run: RunRecord, task_id: str) -> TaskUpdated:
        task = self._task(run.run_id, task_id)
        if task.state is TaskState.FAILED and task.result.get("reason") == "failed_verification":
            # An ejected task comes back to life in its worktree, to be fixed and finished again.
            self.store.update_task(run.run_id, task_id, state=TaskState.CONFLICT)
            task = self._task(run.run_id, task_id)
        if task.state not in (TaskState.STARTED, TaskState.REJECTED, TaskState.CONFLICT):
            raise StateError(f"task {task_id!r} is {task.state.value}; only live tasks can be updated")
        path = self.worktree_path(run.run_id, task_id)
        cone = boundaries.cone_directories(list(task.boundary.own) + list(task.boundary.read)) \
            if task.boundary.sparse else None
        self._ensure_worktree(run, task_id, task.branch, path, cone)
        self.store.update_task(run.run_id, task_id, worktree=str(path))
        task = self._task(run.run_id, task_id)
        name, email = _split_author(task.author)
        if not self._worktree_problems(task, path):
            self.git.commit_all(path, f"wtc: {task_id} work before update", name, email)
        tip = self.git.ref_target(f"refs/heads/{run.integration_ref}") or run.base
        conflicted = self.git.merge_into_worktree(path, tip, f"wtc: update {task_id} onto {run.integration_ref}",
                                                  name, email)
        unresolved = []
        for rel in conflicted:
            merged = self.git.structured_merge_in_worktree(path, rel, queue.structured_resolver)
            if not merged:
                unresolved.append(rel)
        if conflicted and not unresolved:
            self.git.commit_all(path, f"wtc: update {task_id} onto {run.integration_ref} (structured merge)", name, email)
        result = TaskUpdated(exit_code=1 if unresolved else 0, run=run.run_id, task=task_id, state=task.state.value,
                             worktree=str(path), integration_tip=tip, conflicted_paths=unresolved,
                             merged_cleanly=not unresolved)
        self.store.update_task(run.run_id, task_id, result=task.result | {"pending_markers": unresolved})
        self.store.log_event(run.run_id, task_id, "task.updated", {"integration": tip, "conflicts": unresolved})
        return result

    # ---- consolidation --------------------------------------------------------------------------

    def consolidate(self, run_id: str, *, offline: bool = True, key: str | None = None) -> ConsolidationReport:
        """Apply the pending intents of merged tasks in dependency-graph order, relock offline first,
        verify, and commit one commit per ecosystem root onto integration. Safe to repeat."""
        run = self._run(run_id)

        def body() -> Outcome:
            with leases.hold(self.store, f"consolidate:{run_id}", timeout=self.config.wait_timeout,
                             what=f"run {run_id} consolidation"):
                tip = self._check_integration(run)
                report = consolidate_run(
                    self.git, self.store, run, offline=offline, scratch_root=self.worktree_root() / run_id / ".consolidate",
                    configs=relock_configs(self.config.relock), heavy=lambda: self._heavy("relock"),
                    integration_tip=tip)
            self.store.log_event(run_id, None, "run.consolidated",
                                 {"roots": [{"root": r["root"], "state": r["state"], "commit": r["commit"]}
                                            for r in report.roots]})
            self.reporter.event("consolidate.done", run=run_id, roots=len(report.roots))
            return Outcome(report.to_json(), report.exit_code, final=False)  # later merges bring more intents

        done = run_once(self.store, key or default_key(run_id, "consolidate"), "run.consolidate",
                        {"run": run_id, "offline": offline}, body, ttl=self.config.idempotency_ttl,
                        wait_timeout=self.config.wait_timeout)
        return ConsolidationReport.from_json(done.outcome.result, replayed=done.replayed)

    def add_intent(self, run_id: str, task_id: str, *, manifest: str, op: str, name: str, spec: str | None = None,
                   group: str | None = None, rationale: str = "") -> dict[str, Any]:
        """An intent a task declares directly instead of editing a reserved file."""
        run = self._run(run_id)
        task = self._task(run_id, task_id)
        if task.state in (TaskState.ABANDONED, TaskState.EMPTY):
            raise StateError(f"task {task_id!r} is {task.state.value}; its intents would never be consolidated")
        paths = frozenset(self.git.tree_paths(run.base))
        base = self.git.file_at(run.base, manifest)
        root = find_root(manifest, paths)
        intent = declare_intent(manifest, base, task=task_id, op=op, name=name, spec=spec, group=group,
                                root=root, base_commit=run.base, rationale=rationale,
                                ecosystem=detect_ecosystem(manifest, root, paths))
        self.store.add_intent(run_id, task_id, intent.to_json())
        self.store.log_event(run_id, task_id, "intent.declared", {"intent": intent.intent_id})
        return intent.to_json()

    def intents(self, run_id: str) -> list[dict[str, Any]]:
        self._run(run_id)
        return [{"intent": r["intent_id"], "task": r["task_id"], "state": r["state"], "detail": r["detail"],
                 "commit": r["commit_sha"], "data": r["data"]} for r in self.store.list_intents(run_id)]

    # ---- report and land -------------------------------------------------------------------------

    def report(self, run_id: str, *, onto: str | None = None) -> RunReport:
        """The run's change manifest: tasks, files, pending intents, conflicts, verification, and
        (with `onto`) whether the target can be fast-forwarded to the integration tip."""
        run = self._run(run_id)
        tip = self.git.ref_target(f"refs/heads/{run.integration_ref}") or run.base
        tasks, files, pending, conflicts, checks, warnings = [], [], [], [], [], []
        for task in self.store.list_tasks(run_id):
            merge = task.result.get("merge") or {}
            row = {"task": task.task_id, "state": task.state.value, "branch": task.branch, "head": task.head,
                   "merge_commit": merge.get("merge_commit"), "files": [c["path"] for c in task.result.get("changed", [])]}
            tasks.append(row)
            if task.state is TaskState.MERGED:
                files += [{"path": c["path"], "status": c["status"], "task": task.task_id}
                          for c in task.result.get("changed", []) if not _is_reserved_change(c, task)]
                if merge.get("verification"):
                    checks.append({"task": task.task_id} | merge["verification"])
            elif task.state is TaskState.CONFLICT:
                conflicts += [{"task": task.task_id} | c for c in task.result.get("conflicts", [])]
            elif task.state is TaskState.FAILED and task.result.get("verification"):
                checks.append({"task": task.task_id} | task.result["verification"])
            elif task.state is TaskState.FINISHED:
                warnings.append(f"task {task.task_id} is finished but not merged (wtc merge --run {run_id})")
            elif task.state.live:
                warnings.append(f"task {task.task_id} is still {task.state.value}; its work is not in integration")
        pending = [{"task": r["task_id"], "intent": r["intent_id"], "state": r["state"],
                    "manifest": r["data"].get("manifest"), "op": r["data"].get("op"), "name": r["data"].get("name")}
                   for r in self.store.list_intents(run_id, ["pending", "declared", "needs_network", "conflict",
                                                             "rejected", "failed"])]
        if pending:
            warnings.append(f"{len(pending)} intent(s) are not consolidated; landing leaves them out "
                            f"(wtc consolidate --run {run_id})")
        target = None
        if onto is not None:
            target_tip = self.git.ref_target(_branch_ref(onto))
            if target_tip is None:
                raise NotFoundError(f"no branch {onto!r} to land onto", fix="name an existing branch, e.g. --onto main")
            target = {"branch": onto, "tip": target_tip,
                      "fast_forward": self.git.is_ancestor(target_tip, tip),
                      "commits": len(self.git.commits_between(target_tip, tip)) if self.git.is_ancestor(target_tip, tip) else None}
            if not target["fast_forward"]:
                warnings.append(f"{onto} moved since the run was pinned: landing needs the integration branch brought up to date")
        return RunReport(run=run_id, base=run.base, integration=run.integration_ref, tip=tip, tasks=tasks,
                         files=sorted(files, key=lambda f: f["path"]), intents_pending=pending, conflicts=conflicts,
                         verification=checks, target=target, warnings=warnings)

    def land(self, run_id: str, onto: str, *, approved: bool, key: str | None = None) -> Landed:
        """Fast-forward `onto` to the integration tip by compare-and-swap, after approval. Refuses
        when the target moved (not a fast-forward) and says how to bring integration up to date."""
        run = self._run(run_id)
        if not approved:
            raise UsageError("landing needs approval", fix=f"review `wtc report --run {run_id} --onto {onto}`, "
                                                          "then land with --yes (or confirm at the prompt)")
        tip = self.git.ref_target(f"refs/heads/{run.integration_ref}") or run.base
        request = {"run": run_id, "onto": onto, "tip": tip}

        def body() -> Outcome:
            ref = _branch_ref(onto)
            old = self.git.ref_target(ref)
            if old is None:
                raise NotFoundError(f"no branch {onto!r} to land onto", fix="name an existing branch, e.g. --onto main")
            if old == tip or self.git.is_ancestor(tip, old):
                return Outcome(Landed(run=run_id, onto=onto, old=old, new=old, how="already").to_json())
            if not self.git.is_ancestor(old, tip):
                raise StateError(
                    f"{onto} moved to {old[:12]} since the run was pinned at {run.base[:12]}; "
                    f"landing {tip[:12]} would not be a fast-forward",
                    fix=f"bring integration up to date: `wtc sync --run {run_id} --from {onto}` (merges {onto} into "
                        f"the integration branch), check it, then land again",
                    details={"target": old, "integration": tip},
                )
            checked_out = self.git.worktree_on_branch(ref)
            if checked_out is not None:
                # Moving a checked-out branch behind git's back would leave its files stale.
                self.git.fast_forward_worktree(checked_out, tip)
                how = f"git merge --ff-only in {checked_out}"
            else:
                try:
                    fast_forward(self.git.repo, ref, tip, old, message=f"worktree_coord: land run {run_id}")
                except StaleRef:
                    raise BusyError(f"{onto} moved while landing", fix="run land again", retry_after=1.0) from None
                how = "compare-and-swap"
            self.store.set_run_state(run_id, RunState.LANDED)
            self.store.log_event(run_id, None, "run.landed", {"onto": onto, "old": old, "new": tip})
            return Outcome(Landed(run=run_id, onto=onto, old=old, new=tip, how=how).to_json())

        done = run_once(self.store, key or default_key(run_id, "land", onto), "run.land", request, body,
                        ttl=self.config.idempotency_ttl, wait_timeout=self.config.wait_timeout)
        return Landed.from_json(done.outcome.result, replayed=done.replayed)

    def sync(self, run_id: str, source: str, *, key: str | None = None) -> MergeReport:
        """Merge branch `source` (e.g. main, which moved since the pin) into the integration branch,
        so a later land is a fast-forward. Conflicts leave integration untouched and are reported."""
        run = self._run(run_id)
        source_tip = self.git.ref_target(_branch_ref(source))
        if source_tip is None:
            raise NotFoundError(f"no branch {source!r}", fix="name an existing branch, e.g. --from main")
        if not self.git.is_ancestor(run.base, source_tip):
            raise StateError(f"{source} does not descend from the run's pinned commit {run.base[:12]}",
                             fix="start a new run from it instead")
        with leases.hold(self.store, f"integration:{run_id}", timeout=self.config.wait_timeout,
                         what=f"run {run_id} integration"), self._heavy("merge"):
            outcome = self._integrator().merge_into(
                f"refs/heads/{run.integration_ref}", source_tip, run.base,
                message=f"wtc: sync run {run_id} with {source}", author=queue.signature(),
                resolve=queue.structured_resolver)
        row = {"task": f"sync:{source}", "state": outcome.state.value,
               "conflicts": [c.to_json() for c in outcome.conflicts], "merge_commit": outcome.merge_commit}
        self.store.log_event(run_id, None, "run.synced", {"source": source, "state": outcome.state.value})
        return MergeReport(exit_code=1 if outcome.state is IntegrationState.CONFLICT else 0, run=run_id,
                           integration=run.integration_ref, tip=outcome.new_tip, tasks=[row])

    # ---- task abandon -----------------------------------------------------------------------------

    def abandon_task(self, run_id: str, task_id: str, *, key: str | None = None) -> TaskAbandoned:
        """Drop the worktree and keep the branch (with any uncommitted work snapshotted onto it)."""
        self._run(run_id)
        self._task(run_id, task_id)
        request = {"run": run_id, "task": task_id}

        def body() -> Outcome:
            with leases.hold(self.store, f"task:{run_id}/{task_id}", timeout=self.config.wait_timeout,
                             what=f"task {task_id}"):
                task = self._task(run_id, task_id)
                if task.state is TaskState.ABANDONED:
                    return Outcome(TaskAbandoned(run=run_id, task=task_id, branch=task.branch,
                                                 snapshot=task.result.get("snapshot")).to_json())
                if not task.state.live:
                    raise StateError(f"task {task_id!r} is {task.state.value}; only live tasks can be abandoned")
                snapshot = self._snapshot(task, "wtc: abandoned snapshot of uncommitted work")
                result = TaskAbandoned(run=run_id, task=task_id, branch=task.branch, snapshot=snapshot)
                self.store.update_task(run_id, task_id, state=TaskState.ABANDONED, finished_at=time.time(),
                                       result=result.to_json())
                self.store.log_event(run_id, task_id, "task.abandoned", {"snapshot": snapshot})
                self._drop_worktree(task)
                return Outcome(result.to_json())

        done = run_once(self.store, key or default_key(run_id, "abandon", task_id), "task.abandon", request, body,
                        ttl=self.config.idempotency_ttl, wait_timeout=self.config.wait_timeout)
        return TaskAbandoned.from_json(done.outcome.result, replayed=done.replayed)

    def _snapshot(self, task: TaskRecord, message: str) -> str | None:
        """Commit whatever is uncommitted in the task's worktree onto its branch, so nothing is lost."""
        if not task.worktree or not Path(task.worktree).exists():
            return None
        path = Path(task.worktree)
        if self._worktree_problems(task, path):
            return None  # never commit through a tampered .git file or onto another branch
        name, email = _split_author(task.author)
        return self.git.commit_all(path, message, name, email)

    # ---- status -----------------------------------------------------------------------------------

    def status(self, run_id: str | None = None) -> RunStatus:
        """The runs (all, or one) and their tasks at a glance."""
        runs = [self._run(run_id)] if run_id else self.store.list_runs()
        tasks = self.store.list_tasks(run_id) if run_id else []
        counts: dict[str, int] = {}
        now = time.time()
        rows = []
        for task in tasks:
            counts[task.state.value] = counts.get(task.state.value, 0) + 1
            rows.append({
                "task": task.task_id, "state": task.state.value, "branch": task.branch, "worktree": task.worktree,
                "own": list(task.boundary.own), "files": len(task.result.get("changed", [])),
                "violations": len(task.result.get("violations", [])),
                "conflicts": len(task.result.get("conflicts", [])),
                "age_seconds": round(now - task.created_at, 1),
            })
        intents: dict[str, int] = {}
        if run_id:
            for row in self.store.list_intents(run_id):
                intents[row["state"]] = intents.get(row["state"], 0) + 1
        return RunStatus(runs=[r.to_json() for r in runs], tasks=rows, counts=counts, intents=intents)

    # ---- gc ---------------------------------------------------------------------------------------

    def gc(self, *, dry_run: bool = False) -> GcReport:
        """Remove worktrees of ended tasks and folders nobody owns, prune git's admin entries, drop
        leases of dead owners and expired idempotency records. Never deletes unmerged work: uncommitted
        changes in a folder about to go are first committed onto its branch."""
        removed: list[str] = []
        snapshots: list[dict[str, str]] = []
        kept: list[dict[str, str]] = []
        live_paths: set[str] = set()
        for task in self.store.list_tasks():
            if not task.worktree:
                continue
            if task.state.live:
                live_paths.add(str(Path(task.worktree)))
                continue
            if Path(task.worktree).exists():
                removed.append(task.worktree)
                if not dry_run:
                    with leases.hold(self.store, f"task:{task.run_id}/{task.task_id}",
                                     timeout=self.config.wait_timeout, what=f"task {task.task_id}"):
                        snap = self._snapshot(task, "wtc gc: snapshot of uncommitted work")
                        if snap:
                            snapshots.append({"task": f"{task.run_id}/{task.task_id}", "commit": snap})
                        self._drop_worktree(task)
            elif not dry_run:
                self.store.update_task(task.run_id, task.task_id, worktree=None)
        # Folders under the worktree root that no live task owns.
        root = self.worktree_root()
        registered = {str(Path(w.path)): w for w in self.git.list_worktrees()}
        if root.is_dir():
            for run_dir in sorted(p for p in root.iterdir() if p.is_dir()):
                children = sorted(p for p in run_dir.iterdir())
                for folder in children:
                    if str(folder) in live_paths:
                        continue
                    entry = registered.get(str(folder))
                    if entry is not None and entry.branch and not dry_run:
                        snap = self._snapshot_folder(folder, entry.branch)
                        if snap:
                            snapshots.append({"folder": str(folder), "commit": snap})
                    removed.append(str(folder))
                    if not dry_run and folder.is_dir():
                        self.git.remove_worktree(folder)
                    elif not dry_run:
                        folder.unlink()
                if not dry_run and run_dir.exists() and not any(run_dir.iterdir()):
                    run_dir.rmdir()
        pruned = self.git.prune_worktrees(dry_run=dry_run)
        leases_removed = []
        for lease in self.store.list_leases():
            if leases.holder_is_dead(lease.owner) or lease.expires_at <= time.time():
                leases_removed.append(lease.name)
                if not dry_run:
                    self.store.delete_lease(lease.name, lease.owner)
        expired = self.store.delete_expired_records(time.time(), dry_run=dry_run)
        branches = []
        for task in self.store.list_tasks(states=[TaskState.EMPTY]):
            ref = f"refs/heads/{task.branch}"
            tip = self.git.ref_target(ref)
            run = self.store.get_run(task.run_id)
            if tip is None or run is None:
                continue
            if tip == run.base:  # nothing on it: deleting loses nothing
                branches.append(task.branch)
                if not dry_run:
                    self.git.delete_ref(ref, tip)
            else:
                kept.append({"branch": task.branch, "why": "has commits beyond the pinned base"})
        return GcReport(dry_run=dry_run, worktrees_removed=removed, snapshots=snapshots, admin_entries_pruned=pruned,
                        leases_removed=leases_removed, records_expired=expired, branches_deleted=branches, kept=kept)

    def _snapshot_folder(self, folder: Path, branch_ref: str) -> str | None:
        if not branch_ref.startswith("refs/heads/wtc/"):
            return None  # not ours: never commit in someone else's worktree
        try:
            if not self.git.has_uncommitted(folder):
                return None
            return self.git.commit_all(folder, "wtc gc: snapshot of uncommitted work", "worktree_coord gc",
                                       "gc@worktree-coord.invalid")
        except Exception:  # a broken folder: removing it is still right, it has no readable work
            return None

    def _read_head_file(self, name: str) -> bytes | None:
        repo = self.git.repo
        if repo.head_is_unborn:
            return None
        tree = repo.head.peel().tree
        if name not in tree:
            return None
        return repo[tree[name].id].read_raw()


def _branch_ref(name: str) -> str:
    return name if name.startswith("refs/") else f"refs/heads/{name}"


def _is_reserved_change(change: dict[str, Any], task: TaskRecord) -> bool:
    return any(r["path"] == change["path"] for r in task.result.get("reserved", []))


def _has_conflict_markers(data: bytes) -> bool:
    lines = data.split(b"\n")
    return any(line.startswith(b"<<<<<<< ") for line in lines) and any(line.startswith(b">>>>>>> ") for line in lines)


def _parse_author(author: str | None, run_id: str, task_id: str) -> tuple[str, str]:
    if not author:
        return f"wtc task {task_id}", f"{task_id}@{run_id}.wtc.invalid"
    name, email = _split_author(author)
    if not name or not email:
        raise UsageError(f"invalid --author {author!r}", fix='use the form "Name <email@example.com>"')
    return name, email


def _split_author(author: str) -> tuple[str, str]:
    if "<" in author and author.rstrip().endswith(">"):
        name, _, rest = author.partition("<")
        return name.strip(), rest.rstrip().rstrip(">").strip()
    return author.strip(), ""


