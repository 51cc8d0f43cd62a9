"""Boundaries: what a task owns, may read, and may not touch; checked at finish, never trusted."""

from .check import BoundaryReport, Violation, check_changes
from .globs import cone_directories, matches, may_overlap, unanchored_name, unmatched_glob_notes, validate_globs
from .manifest import DEFAULT_RESERVED, make_boundary, reserved_patterns

__all__ = [
    "BoundaryReport", "DEFAULT_RESERVED", "Violation", "check_changes", "cone_directories", "make_boundary",
    "matches", "may_overlap", "reserved_patterns", "unanchored_name", "unmatched_glob_notes", "validate_globs",
]
