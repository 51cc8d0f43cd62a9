"""The end of a run: the change manifest (`report`), `land` after approval (a compare-and-swap
fast-forward of the target, or `merge --ff-only` where it is checked out), and `sync` for a target
that moved since the pin.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from . import merge_queue as queue
from ..store import leases
from ..errors import BusyError, NotFoundError, StateError, UsageError
from ..store.idempotency import Outcome, default_key, run_once
from ..integrate import IntegrationState, StaleRef, fast_forward
from ..model import RunState, TaskRecord, TaskState
from ..results import Landed, MergeReport, RunReport

from .base import CoordinatorBase

if TYPE_CHECKING:
    from ..check import CheckReport


class LandingOperations(CoordinatorBase):
    """The change manifest, landing and syncing."""

    def check(self, *, head: str | None = None, base: str | None = None, target: str | None = None,
              own: Sequence[str] = (), read: Sequence[str] = (), run: str | None = None, task: str | None = None,
              manifest: str | None = None, merge: bool = True) -> "CheckReport":
        """The CI pre-merge check of a branch (boundary, reserved files, dry-run structured merge),
        read-only; the same as `wtc check` and `worktree_coord.check.check`."""
        from ..check import check

        return check(self.git.toplevel or self.git.common_dir, head=head, base=base, target=target, own=own,
                     read=read, run=run, task=task, manifest=manifest, merge=merge, config=self.config,
                     reporter=self.reporter)

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


def _branch_ref(name: str) -> str:
    return name if name.startswith("refs/") else f"refs/heads/{name}"


def _is_reserved_change(change: dict[str, Any], task: TaskRecord) -> bool:
    return any(r["path"] == change["path"] for r in task.result.get("reserved", []))

