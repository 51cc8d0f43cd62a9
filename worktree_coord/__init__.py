"""worktree_coord: coordinate many parallel coding agents on one git repository.

Public API (everything else is private; docs/api.md documents each name):
    Coordinator                 runs, tasks, boundaries, merging, consolidation, gc
    RunStarted, TaskStarted, TaskFinished, TaskUpdated, TaskAbandoned, TaskWidened, TaskCheck,
    MergeReport, ConsolidationReport, RunReport, Landed, RunStatus, GcReport, Forecast
                                result dataclasses (`to_json()`, `exit_code`)
    ViolationRecord, ConflictRecord, SemanticRecord, SkippedRecord, LeftoverRecord
                                typed views of their payloads (`violation_records`, ...)
    TaskState                   the task state machine
    WtcError and subclasses     errors, each carrying the exit code the CLI maps it to
    merge_file, FileMerge       the structured three-way merge of one file
"""

from __future__ import annotations

__version__ = "0.1.0"

# Names load on first use (PEP 562): `wtc` is started by every agent call, and most calls
# need neither the merge engine nor consolidation. Type checkers read __init__.pyi instead, which
# names the real classes (this module's lazy names would read as `object`).
_LAZY = {
    # The errors too: `wtc` runs worktree_coord.entry, which imports this package first, and a call
    # handed to a warm server (serve/client.py) needs none of them.
    **{name: ("worktree_coord.errors", name) for name in (
        "ActionRequired", "BoundaryViolation", "BusyError", "ConfigError", "ConflictError", "IdempotencyMismatch",
        "InternalError", "Interrupted", "LookUnanswered", "NotFoundError", "StateError", "UsageError", "WtcError")},
    "Coordinator": ("worktree_coord.coordinator", "Coordinator"),
    "TaskState": ("worktree_coord.model", "TaskState"),
    "merge_file": ("worktree_coord.merge", "merge_file"),
    "FileMerge": ("worktree_coord.merge", "FileMerge"),
    **{name: ("worktree_coord.results", name) for name in (
        "ConsolidationReport", "Forecast", "GcReport", "Landed", "MergeReport", "RunReport", "RunStarted",
        "RunStatus", "TaskAbandoned", "TaskCheck", "TaskFinished", "TaskStarted", "TaskUpdated", "TaskWidened")},
    **{name: ("worktree_coord.records", name) for name in (
        "ConflictRecord", "LeftoverRecord", "SemanticRecord", "SkippedRecord", "ViolationRecord")},
}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        module, attribute = _LAZY[name]
        value = getattr(importlib.import_module(module), attribute)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'worktree_coord' has no attribute {name!r}")


__all__ = [
    "__version__", "ActionRequired", "BoundaryViolation", "BusyError", "ConfigError", "ConflictError",
    "ConflictRecord", "ConsolidationReport", "Coordinator", "FileMerge", "Forecast", "GcReport",
    "IdempotencyMismatch", "InternalError", "Interrupted", "LookUnanswered", "Landed", "LeftoverRecord", "MergeReport",
    "NotFoundError", "RunReport", "RunStarted", "RunStatus", "SemanticRecord", "SkippedRecord", "StateError",
    "TaskAbandoned", "TaskCheck", "TaskFinished", "TaskStarted", "TaskState", "TaskUpdated", "TaskWidened",
    "UsageError", "ViolationRecord", "WtcError", "merge_file",
]
