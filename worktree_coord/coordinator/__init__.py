"""The Python API: `Coordinator(repo)` for runs, tasks in ephemeral worktrees, the merge queue,
consolidation, landing and cleanup.

It is what the CLI, the CI step and custom orchestrators call. Every write goes through
`idempotency.run_once` (a repeat with the same key does nothing) and, for one task, under that task's
lease (two calls on one task never interleave); nothing that matters lives in process memory, so any
process may pick up where a killed one stopped. One module per concern:

    base.py           repository, store, configuration and shared helpers
    runs.py           start_run, status
    tasks.py          start_task, finish_task, update_task, abandon_task
    merging.py        the merge queue: merge on finish, verification gate, batches, drain
    consolidating.py  consolidate, add_intent, intents
    landing.py        check (the CI step), report, land, sync
    cleanup.py        gc
    snapshot.py       snapshot: the run at one instant, read-only (wtc watch)
    forecast.py       forecast, check_task: predicted conflicts of tasks still working, read-only
    plan.py           the plan: boundaries by agent-name pattern, the default boundary
    worktree_setup.py worktrees that run: .worktreeinclude, linked folders, setup command, ports
    agents.py         harness agents (Claude Code hooks, MCP) as tasks: a run per session, task names
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .agents import AgentOperations
    from .cleanup import CleanupOperations
    from .consolidating import ConsolidationOperations
    from .forecast import ForecastOperations
    from .landing import LandingOperations
    from .merging import MergeOperations
    from .runs import RunOperations
    from .snapshot import SnapshotOperations
    from .tasks import TaskOperations

    class Coordinator(RunOperations, AgentOperations, TaskOperations, MergeOperations, ConsolidationOperations,
                      LandingOperations, CleanupOperations, SnapshotOperations, ForecastOperations):
        """Coordinates the runs and tasks of one git repository (see the package docstring)."""

_composed: dict[str, type] = {}


def __getattr__(name: str) -> Any:
    # The class is composed on first use, so a read-only view (status_view.py) can be imported
    # without every operation's dependencies (pygit2, the merge engine, consolidation).
    if name != "Coordinator":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if not _composed:
        from .agents import AgentOperations
        from .cleanup import CleanupOperations
        from .consolidating import ConsolidationOperations
        from .forecast import ForecastOperations
        from .landing import LandingOperations
        from .merging import MergeOperations
        from .runs import RunOperations
        from .snapshot import SnapshotOperations
        from .tasks import TaskOperations

        class Coordinator(RunOperations, AgentOperations, TaskOperations, MergeOperations,  # type: ignore[no-redef]
                          ConsolidationOperations, LandingOperations, CleanupOperations, SnapshotOperations, ForecastOperations):
            """Coordinates the runs and tasks of one git repository (see the package docstring)."""

        Coordinator.__module__, Coordinator.__qualname__ = __name__, "Coordinator"
        _composed["Coordinator"] = Coordinator
        globals()["Coordinator"] = Coordinator
    return _composed["Coordinator"]


__all__ = ["Coordinator"]
