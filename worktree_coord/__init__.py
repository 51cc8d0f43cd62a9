"""worktree_coord: coordinate many parallel coding agents on one git repository.

Public API (everything else is private):
    Coordinator                 runs, tasks, boundaries, merging, consolidation, gc
    RunStarted, TaskStarted, TaskFinished, TaskAbandoned, RunStatus, GcReport
                                result dataclasses (`to_json()`, `exit_code`)
    TaskState                   the task state machine
    WtcError and subclasses     errors, each carrying the exit code the CLI maps it to
"""

from __future__ import annotations

__version__ = "0.1.0"

from .coordinator import Coordinator
from .errors import (
    BoundaryViolation,
    BusyError,
    ConflictError,
    NotFoundError,
    StateError,
    UsageError,
    WtcError,
)
from .model import TaskState
from .results import GcReport, RunStarted, RunStatus, TaskAbandoned, TaskFinished, TaskStarted

__all__ = [
    "__version__",
    "BoundaryViolation",
    "BusyError",
    "ConflictError",
    "Coordinator",
    "GcReport",
    "NotFoundError",
    "RunStarted",
    "RunStatus",
    "StateError",
    "TaskAbandoned",
    "TaskFinished",
    "TaskStarted",
    "TaskState",
    "UsageError",
    "WtcError",
]
