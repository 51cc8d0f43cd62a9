"""The forecast of reserved files: would two tasks' edits of one root manifest conflict at consolidation?

Stage: part of the conflict forecast (forecast.py: `wtc forecast`, `wtc task check`). Input: a
reserved manifest's path and its bytes at the base and in each side's current state (a task's
worktree or branch), or one task's state against the run's waiting intents and the integration
tip. Output: predicted conflicts in the forecast's shape (`kind: "consolidation"`, the key as the
declaration, consolidation's own message as the detail).

Why: a reserved file is never text-merged, so the forecast used to list two tasks editing one
root package.json as an overlap only; two tasks setting `scripts.test` (or one dependency's range)
to values that cannot both stand learned it at consolidation, after both had finished. The same
derivation (`derive_intents`) and the same planner (`plan`) consolidation runs decide it here, so
the forecast says exactly what consolidation would.

Invariants: read-only; a file that cannot be derived (it does not parse, a lockfile, a deleted
manifest) predicts nothing here (finish reports it to its task).
"""

from __future__ import annotations

from typing import Any, Iterable

from ..consolidate import Intent, classify_path, derive_intents
from ..consolidate.planning import plan
from ..errors import WtcError


def _derived(path: str, base: bytes | None, new: bytes | None, task: str) -> list[Intent]:
    kind = classify_path(path)
    if kind is None or kind.kind != "manifest" or base is None or new is None or base == new:
        return []
    try:
        return derive_intents(path, base, new, task=task)
    except WtcError:
        return []


def _as_forecast(conflicts: Iterable[Any], path: str, left: str, right: str) -> list[dict[str, Any]]:
    return [{"left": left, "right": right, "path": path, "declaration": conflict.key[4], "kind": "consolidation",
             "start_line": None, "end_line": None,
             "detail": conflict.message + (f"; fix: {conflict.fix}" if conflict.fix else "")}
            for conflict in conflicts]


def between_tasks(path: str, base: bytes | None, left: bytes | None, right: bytes | None, *,
                  left_task: str, right_task: str) -> list[dict[str, Any]]:
    """Conflicts consolidation would report between two tasks' edits of the reserved manifest `path`."""
    intents = _derived(path, base, left, left_task) + _derived(path, base, right, right_task)
    if not intents or len({i.task for i in intents}) < 2:
        return []
    the_plan = plan(intents, lambda wanted: base if wanted == path else None)
    return _as_forecast(the_plan.conflicts, path, left_task, right_task)


def onto_integration(path: str, base: bytes | None, mine: bytes | None, tip: bytes | None, *, task: str,
                     waiting: Iterable[Intent], integration: str) -> list[dict[str, Any]]:
    """Conflicts consolidation would report for the task's edit of `path` against the integration
    tip's manifest and the intents of the run still waiting to be applied (merged tasks')."""
    intents = _derived(path, base, mine, task)
    if not intents:
        return []
    others = [i for i in waiting if i.manifest == path and i.task != task]
    the_plan = plan(intents + others, lambda wanted: tip if wanted == path else None)
    mine_ids = {i.intent_id for i in intents}
    return _as_forecast([c for c in the_plan.conflicts if mine_ids & set(c.intent_ids)], path, integration, task)
