"""What the live page shows of a run, read from the store alone (cheap: no git, no merge).

Stage: a read-only view. Input: a `Store` and a run id. Output: `RunView`, plain JSON-ready
sections: `run` (its record), `tasks` (one row per task: state, package, phase in a `wtc fanout` plan, the points of its life from
the event log, counts of files, conflicts and violations, the agent's attempt when `wtc fanout`
drives it), `conflicts` (every conflict of a task in state `conflict`: file, declaration, the two
tasks, kind and the fix text the task's finish printed; and each violation of a rejected task, as
kind `boundary`), `intents` (every intent with its state)
and `merges` (each merge's time, for the throughput chart). Counts per state are the page's sum
of the rows, not sent twice.

Invariants: nothing is written; the cost grows with the run's tasks and events, not the
repository; the same store content gives the same view (rows in the store's order).
"""

from __future__ import annotations

from typing import Any

from ..frozen import value_class
from ..model import TaskRecord, TaskState
from ..store.base import Store

# The points of a task's life the timeline draws (the HTML report's list, from the same event log).
PLAN_EVENT = "fanout.plan"   # the stored plan of a run `wtc fanout` drives (fanout/ledger.py)
TIMELINE_KINDS = frozenset({"task.started", "task.finished", "task.merged", "task.conflict", "task.rejected",
                            "task.updated", "task.abandoned", "task.empty", "task.failed",
                            "task.failed_verification", "fanout.agent", "fanout.repair"})


@value_class
class RunView:
    run: dict[str, Any]
    tasks: list[dict[str, Any]]
    conflicts: list[dict[str, Any]]
    intents: list[dict[str, Any]]
    merges: list[dict[str, Any]]


def read_run(store: Store, run_id: str) -> RunView | None:
    """The run as the page shows it, or None when the store holds no such run."""
    run = store.get_run(run_id)
    if run is None:
        return None
    tasks = store.list_tasks(run_id)
    points: dict[str, list[dict[str, Any]]] = {t.task_id: [] for t in tasks}
    plan: dict[str, Any] | None = None
    for event in store.events(run_id):
        if event["task_id"] in points and event["kind"] in TIMELINE_KINDS:
            points[event["task_id"]].append({"at": round(event["at"], 3), "kind": event["kind"].split(".", 1)[1]})
        elif event["task_id"] is None and event["kind"] == PLAN_EVENT:
            plan = event["data"].get("plan")
    phases = phases_of(plan)
    driven = {row["task_id"]: row["data"] for row in store.task_contexts(run_id)}
    rows, conflicts, merges = [], [], []
    for task in tasks:
        rows.append(_task_row(task, points[task.task_id], driven.get(task.task_id, {})))
        if task.task_id in phases:
            rows[-1]["phase"] = phases[task.task_id]
        merge = task.result.get("merge") or {}
        if task.state is TaskState.MERGED and merge.get("at"):
            merges.append({"task": task.task_id, "at": round(merge["at"], 3)})
        if task.state is TaskState.CONFLICT:
            conflicts += _conflicts_of(task)
        elif task.state is TaskState.REJECTED:
            conflicts += _boundary_conflicts_of(task)
    intents = [{"intent": row["intent_id"], "task": row["task_id"], "state": row["state"],
                "manifest": row["data"].get("manifest", ""), "root": row["data"].get("root", ""),
                "ecosystem": row["data"].get("ecosystem", ""), "op": row["data"].get("op", ""),
                "name": row["data"].get("name"), "spec": row["data"].get("spec"),
                "commit": row.get("commit_sha"), "reason": (row.get("detail") or {}).get("reason")}
               for row in store.list_intents(run_id)]
    merges.sort(key=lambda m: (m["at"], m["task"]))
    return RunView(run=run.to_json(), tasks=rows, conflicts=conflicts, intents=intents, merges=merges)


def phases_of(plan: dict[str, Any] | None) -> dict[str, str]:
    """Each task of a `wtc fanout` plan by phase: `phase 1` for tasks that depend on none, `phase
    N+1` for those whose deepest dependency is in phase N (the order the plan can run in)."""
    if not isinstance(plan, dict):
        return {}
    needs = {t["name"]: list(t.get("depends_on", [])) for t in plan.get("tasks", []) if isinstance(t, dict)}
    depth: dict[str, int] = {}

    def of(name: str, seen: frozenset[str] = frozenset()) -> int:
        if name not in depth:   # the plan was validated without loops; `seen` guards a hand-made one
            depth[name] = 1 + max((of(d, seen | {name}) for d in needs.get(name, []) if d in needs and d not in seen),
                                  default=0)
        return depth[name]

    return {name: f"phase {of(name)}" for name in needs}


def group_of(task: TaskRecord, context: dict[str, Any]) -> str:
    """The package of a task on the timeline: the path its first `own` glob names up to the first
    wildcard (at most two folders deep; a single file's folder), else `.`."""
    del context
    own = task.boundary.own[0] if task.boundary.own else ""
    fixed = []
    for part in own.split("/"):
        if any(ch in part for ch in "*?[") or not part:
            break
        fixed.append(part)
    if fixed and fixed == own.split("/"):   # a single file: its folder is the package
        fixed = fixed[:-1]
    return "/".join(fixed[:2]) or "."


def _task_row(task: TaskRecord, points: list[dict[str, Any]], context: dict[str, Any]) -> dict[str, Any]:
    if not any(p["kind"] == "started" for p in points):   # a task recorded before the log kept its start
        points.insert(0, {"at": round(task.created_at, 3), "kind": "started"})
    result = task.result
    row: dict[str, Any] = {
        "task": task.task_id, "state": task.state.value, "group": group_of(task, context),
        "created_at": round(task.created_at, 3), "updated_at": round(task.updated_at, 3),
        "finished_at": round(task.finished_at, 3) if task.finished_at else None,
        "events": points, "files": len(result.get("changed", [])),
        "conflicts": len(result.get("conflicts", [])), "violations": len(result.get("violations", [])),
        "repairs": sum(1 for p in points if p["kind"] == "repair"),
    }
    fanout = context.get("fanout")
    if isinstance(fanout, dict):
        row["agent"] = {"phase": fanout.get("phase", ""), "attempts_used": int(fanout.get("attempts_used", 0)),
                        "attempts": int(fanout.get("attempts", 0))}
    return row


def _boundary_conflicts_of(task: TaskRecord) -> list[dict[str, Any]]:
    """A rejected task's violations as conflicts of kind `boundary`: with its boundary, not a task."""
    fix = " ".join(task.result.get("notes", [])) or (
        f"revert the change in the worktree and finish again, or the lead widens the task "
        f"(wtc task widen {task.task_id} --run {task.run_id} --own GLOB)")
    return [{"task": task.task_id, "other": [], "path": v.get("path", ""), "declaration": "", "kind": "boundary",
             "start_line": None, "why": [f"{v.get('rule', '')}: {v.get('detail', '')}".strip(": ")], "fix": fix}
            for v in task.result.get("violations", [])]


def _conflicts_of(task: TaskRecord) -> list[dict[str, Any]]:
    """A conflicted task's conflicts as the page lists them: `other` is the task (or tasks) whose
    merged change it collides with, `fix` what the finish told the agent to do."""
    fix = " ".join(task.result.get("notes", [])) or f"wtc task update {task.task_id} --run {task.run_id}"
    out = []
    for conflict in task.result.get("conflicts", []):
        # The other side: the task(s) that wrote the integration side of the region (`written_by`);
        # when none is known, the merged tasks that last changed the file (most recent first).
        others = list(dict.fromkeys(conflict.get("written_by") or conflict.get("last_changed_by") or []))
        out.append({"task": task.task_id, "other": others, "path": conflict.get("path", ""),
                    "declaration": conflict.get("declaration", ""), "kind": conflict.get("kind", ""),
                    "start_line": conflict.get("start_line"),
                    "why": conflict.get("why") or [], "fix": conflict.get("fix") or fix})
    return out
