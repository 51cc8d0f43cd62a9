"""The consolidation phase as the API offers it: `consolidate`, and intents declared directly."""

from __future__ import annotations

from typing import Any

from ..store import leases
from typing import TYPE_CHECKING
from ..errors import StateError
from ..store.idempotency import Outcome, default_key, run_once, variant_key
from ..model import TaskState

from .base import CoordinatorBase

if TYPE_CHECKING:
    from .consolidation_phase import ConsolidationReport


class ConsolidationOperations(CoordinatorBase):
    """The consolidation phase and intents declared directly."""

    def consolidate(self, run_id: str, *, offline: bool = True, key: str | None = None) -> ConsolidationReport:
        """Apply the pending intents of merged tasks in dependency-graph order, relock offline first,
        verify, and commit one commit per ecosystem root onto integration. Safe to repeat."""
        from .consolidation_phase import ConsolidationReport, consolidate_run, relock_configs

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

        done = run_once(self.store, key or variant_key(default_key(run_id, "consolidate"), online=not offline),
                        "run.consolidate",
                        {"run": run_id, "offline": offline}, body, ttl=self.config.idempotency_ttl,
                        wait_timeout=self.config.wait_timeout)
        return ConsolidationReport.from_json(done.outcome.result, replayed=done.replayed)

    def add_intent(self, run_id: str, task_id: str, *, manifest: str, op: str, name: str, spec: str | None = None,
                   group: str | None = None, rationale: str = "") -> dict[str, Any]:
        """An intent a task declares directly instead of editing a reserved file."""
        from ..consolidate import declare_intent, find_root
        from ..consolidate.derive import detect_ecosystem

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

