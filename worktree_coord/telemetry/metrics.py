"""Metrics from the coordinator's events: merges, conflicts, violations, merge latency and
admission wait, as OpenTelemetry counters and histograms.

Input: the data of a stage's end event (`merge`, `boundary_check`) and of the point events
`admission.admitted` and `task.closed`. Output: measurements on the meter the process records with
(the API's no-op meter when no metrics exporter is configured). Attribute values are few and fixed
(outcome, path, kind, rule, work): no run or task names, which would make a series per task.

| instrument | kind | unit | attributes |
|---|---|---|---|
| `wtc.merges` | counter | {merge} | `wtc.outcome` (merged, conflict, failed; candidate: onto a batch's candidate or a drain's chain, which the drain publishes in one move), `wtc.merge.path` |
| `wtc.merge.duration` | histogram | s | `wtc.outcome` |
| `wtc.conflicts` | counter | {conflict} | `wtc.conflict.kind` (content, semantic, modify_delete, ...) |
| `wtc.violations` | counter | {violation} | `wtc.violation.rule` |
| `wtc.admission.wait` | histogram | s | `wtc.work` (merge, verify, relock) |
| `wtc.tasks.ended` | counter | {task} | `wtc.state` (merged, empty, abandoned) |
"""

from __future__ import annotations

from typing import Any

from opentelemetry.metrics import Meter


class Instruments:
    """The instruments of the module docstring on one meter."""

    def __init__(self, meter: Meter):
        self.merges = meter.create_counter("wtc.merges", unit="{merge}", description="task merges into integration, by outcome")
        self.merge_duration = meter.create_histogram("wtc.merge.duration", unit="s",
                                                     description="time to merge one task (tree merge, resolve, verify, ref update)")
        self.conflicts = meter.create_counter("wtc.conflicts", unit="{conflict}", description="conflicts reported by merges")
        self.violations = meter.create_counter("wtc.violations", unit="{violation}",
                                               description="boundary violations found when tasks finished")
        self.admission_wait = meter.create_histogram("wtc.admission.wait", unit="s",
                                                     description="time heavy work waited for a place in the machine-wide queue")
        self.tasks_ended = meter.create_counter("wtc.tasks.ended", unit="{task}", description="tasks that reached an end state")

    def stage_ended(self, name: str, data: dict[str, Any], seconds: float) -> None:
        if name == "merge":
            outcome = str(data.get("state") or ("error" if data.get("error") is not None else "unknown"))
            self.merges.add(1, {"wtc.outcome": outcome, "wtc.merge.path": str(data.get("merge_path") or "none")})
            self.merge_duration.record(seconds, {"wtc.outcome": outcome})
            for conflict in _rows(data.get("conflicts")):
                self.conflicts.add(1, {"wtc.conflict.kind": str(conflict.get("kind") or "content")})
        elif name == "boundary_check":
            for violation in _rows(data.get("violations")):
                self.violations.add(1, {"wtc.violation.rule": str(violation.get("rule") or "unknown")})

    def admitted(self, data: dict[str, Any]) -> None:
        wait = data.get("wait_s")
        if isinstance(wait, (int, float)):
            self.admission_wait.record(float(wait), {"wtc.work": str(data.get("work") or "heavy")})

    def task_ended(self, data: dict[str, Any]) -> None:
        self.tasks_ended.add(1, {"wtc.state": str(data.get("state") or "unknown")})


def _rows(value: Any) -> list[dict[str, Any]]:
    return [row for row in value if isinstance(row, dict)] if isinstance(value, (list, tuple)) else []
