"""Boundaries: what a task owns, may read, and may not touch; checked at finish, never trusted."""

from typing import TYPE_CHECKING

from ..lazy_names import lazy_names

# The names load with their module on first use (PEP 562): `boundary.globs` is imported by every
# coordinator command (`wtc merge` matches paths with it), which need not load the check and the
# manifest's lockfile names (consolidate/names.py, consolidate/intent.py) with it.
_FROM = {
    "BoundaryReport": "check", "Violation": "check", "check_changes": "check", "check_changes_following_moves": "check",
    "cone_directories": "globs", "literal_prefix": "globs", "matches": "globs", "may_overlap": "globs",
    "unanchored_name": "globs", "unmatched_glob_notes": "globs", "validate_globs": "globs",
    "DEFAULT_RESERVED": "manifest", "make_boundary": "manifest", "reserved_patterns": "manifest",
}

if TYPE_CHECKING:
    from .check import BoundaryReport, Violation, check_changes, check_changes_following_moves
    from .globs import (cone_directories, literal_prefix, matches, may_overlap, unanchored_name, unmatched_glob_notes,
                        validate_globs)
    from .manifest import DEFAULT_RESERVED, make_boundary, reserved_patterns


__getattr__ = lazy_names(globals(), _FROM)


__all__ = [
    "BoundaryReport", "DEFAULT_RESERVED", "Violation", "check_changes", "check_changes_following_moves", "cone_directories", "literal_prefix",
    "make_boundary", "matches", "may_overlap", "reserved_patterns", "unanchored_name", "unmatched_glob_notes",
    "validate_globs",
]
