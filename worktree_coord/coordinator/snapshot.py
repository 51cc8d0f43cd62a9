"""The run at one instant, for `wtc watch` and any other live view: read-only.

`snapshot(run)` reads the store (the run, its tasks, intents and the admission queue) and the
integration ref, and nothing else: no lease, no idempotency key, no write, so a view refreshing
every second never makes an agent wait (SQLite in WAL mode: readers never block the writer). For a
run kept on a git remote the integration ref is fetched first (one ref, one short try); when the
remote does not answer the view shows the last fetched tip with `tip_fresh` false and why.
Its cost grows with the number of tasks, not with the repository.
"""

from __future__ import annotations

import time
from typing import Any

from ..model import PENDING_INTENT_STATES, TaskState
from ..results import RunSnapshot
from ..store import admission

from .base import CoordinatorBase

RECENT_MERGES = 10
MAX_CONFLICT_ROWS = 50


class SnapshotOperations(CoordinatorBase):
    """Read-only views of a run."""

    def snapshot(self, run_id: str, *, forecast_age: float | None = None) -> RunSnapshot:
        """The run now (see RunSnapshot): tasks by state with their age, the latest merges, each
        conflict with its declaration, the admission queue, intents, throughput. With
        `forecast_age`, each task also gets its forecast (`forecast_column`: the last one when at most
        that many seconds old, else one computed now, which reads the live worktrees: still no
        lease and no write an agent could wait on)."""
        run = self._run(run_id)
        column = self.forecast_column(run_id, max_age=forecast_age) if forecast_age is not None else None  # type: ignore[attr-defined]
        now = time.time()
        tasks = self.store.list_tasks(run_id)
        # What a runner driving the tasks recorded (`wtc fanout`'s ledger in the task's context): its
        # phase and agent attempt, so a live view shows repairs, not just states.
        driven = {row["task_id"]: row["data"]["fanout"] for row in self.store.task_contexts(run_id)
                  if isinstance(row["data"].get("fanout"), dict)}
        counts: dict[str, int] = {}
        rows = []
        merges = []
        conflicts: list[dict[str, Any]] = []
        for task in tasks:
            counts[task.state.value] = counts.get(task.state.value, 0) + 1
            result = task.result
            rows.append({
                "task": task.task_id, "state": task.state.value, "age_seconds": round(now - task.created_at, 1),
                "idle_seconds": round(now - task.updated_at, 1), "own": list(task.boundary.own),
                "files": len(result.get("changed", [])), "violations": len(result.get("violations", [])),
                "conflicts": len(result.get("conflicts", [])),
                **({"forecast": column["tasks"][task.task_id]} if column and task.task_id in column["tasks"]
                   and (task.state.live or task.state is TaskState.FINISHED) else {}),
                **({"agent": _agent_column(driven[task.task_id])} if task.task_id in driven else {}),
            })
            merge = result.get("merge") or {}
            if task.state is TaskState.MERGED and merge.get("at"):
                merges.append({"task": task.task_id, "at": merge["at"], "ago_seconds": round(now - merge["at"], 1),
                               "merge_commit": merge.get("merge_commit"), "path": merge.get("path"),
                               "resolved": list(merge.get("resolved", [])), "files": len(result.get("changed", []))})
            if task.state is TaskState.CONFLICT:
                for conflict in result.get("conflicts", []):
                    conflicts.append({"task": task.task_id, "path": conflict.get("path", ""),
                                      "declaration": conflict.get("declaration", ""),
                                      "kind": conflict.get("kind", ""),
                                      "start_line": conflict.get("start_line"),
                                      "last_changed_by": list(conflict.get("last_changed_by", [])),
                                      "written_by": list(conflict.get("written_by", []))})
        merges.sort(key=lambda m: (-m["at"], m["task"]))
        intents: dict[str, int] = {}
        for row in self.store.list_intents(run_id):
            intents[row["state"]] = intents.get(row["state"], 0) + 1
        queue = self.store.queue_entries("heavy")
        running = [e for e in queue if e["admitted_at"]]
        waiting = [e for e in queue if not e["admitted_at"]]
        view = self._view_integration(run)   # a remote run: the remote's tip now, or the last one, stale
        tip = view.tip if view is not None else self.git.ref_target(f"refs/heads/{run.integration_ref}")
        recent = [m["at"] for m in merges]
        return RunSnapshot(
            at=now,
            run=run.to_json() | {"tip": tip, "age_seconds": round(now - run.created_at, 1)}
            | (view.to_json() if view is not None else {}),
            counts=counts, tasks=rows, merges=merges[:RECENT_MERGES],
            conflicts=conflicts[:MAX_CONFLICT_ROWS],
            admission={"running": len(running), "waiting": len(waiting),
                       "limit": self.config.max_parallel or admission.default_limit(),
                       "longest_wait_seconds": round(max((now - e["enqueued_at"] for e in waiting), default=0.0), 1)},
            intents=intents, pending_intents=sum(intents.get(s, 0) for s in PENDING_INTENT_STATES),
            throughput={"merged": counts.get(TaskState.MERGED.value, 0),
                        "last_minute": sum(1 for at in recent if now - at <= 60),
                        "last_10_minutes": sum(1 for at in recent if now - at <= 600),
                        "per_minute": round(sum(1 for at in recent if now - at <= 600) / 10.0, 2)},
            forecast_at=float(column["at"]) if column else None,
        )


def _agent_column(ledger: dict[str, Any]) -> dict[str, Any]:
    """A fanout-driven task's agent: its phase, the attempt it is on (or ended on), of how many."""
    used, allowed = int(ledger.get("attempts_used", 0)), int(ledger.get("attempts", 0))
    running = ledger.get("step") == "agent" and ledger.get("phase") in ("running", "repairing", "waiting")
    return {"phase": ledger.get("phase", ""), "attempt": used + 1 if running else max(used, 1),
            "attempts": allowed, "runs": int(ledger.get("runs", 0))}
