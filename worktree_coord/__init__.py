"""worktree_coord: coordinate many parallel coding agents on one git repository.

Public API (everything else is private):
    Coordinator       runs, tasks, merging, consolidation, checks
    merge_file        structured three-way merge of one file (bytes in, bytes out)
    errors            exceptions, each carrying the exit code the CLI maps it to
"""

from __future__ import annotations

__version__ = "0.1.0"

from .errors import (
    BoundaryViolation,
    BusyError,
    ConflictError,
    NotFoundError,
    UsageError,
    WtcError,
)

__all__ = [
    "__version__",
    "BoundaryViolation",
    "BusyError",
    "ConflictError",
    "NotFoundError",
    "UsageError",
    "WtcError",
]
