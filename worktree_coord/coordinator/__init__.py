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
    facade.py         the Coordinator class: an operation's module loads on first use of one of its names
    operation_names.py which operation holds each name (generated: scripts/gen_coordinator_names.py)
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

# The operations in the Coordinator's order of bases (its MRO): (module, class).
OPERATION_ORDER: tuple[tuple[str, str], ...] = (
    ("runs", "RunOperations"), ("agents", "AgentOperations"), ("tasks", "TaskOperations"),
    ("merging", "MergeOperations"), ("consolidating", "ConsolidationOperations"), ("landing", "LandingOperations"),
    ("cleanup", "CleanupOperations"), ("snapshot", "SnapshotOperations"), ("forecast", "ForecastOperations"),
)

_composed: dict[str, type] = {}


def __getattr__(name: str) -> Any:
    # The class is made on first use, so a read-only view (status_view.py) can be imported without
    # the base's dependencies (pygit2, the store).
    if name != "Coordinator":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if not _composed:
        from .facade import make_coordinator

        _composed["Coordinator"] = make_coordinator(__name__, OPERATION_ORDER)
        globals()["Coordinator"] = _composed["Coordinator"]
    return _composed["Coordinator"]


def load_operations() -> type:
    """The Coordinator with every operation loaded (a warm server: `wtc serve` pays it once)."""
    coordinator = __getattr__("Coordinator")
    coordinator.load_operations()
    return coordinator


__all__ = ["Coordinator"]
