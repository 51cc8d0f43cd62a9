"""The merge engine: bytes in, bytes out, one file at a time, and a tree-level helper.

Stages (one module each): `line` (diff3 line merge through libgit2), `profiles` (language data
from `grammars/`), `members` (containers cut into members), `structured` (declaration-level merge),
`markers` (conflict blocks read and written), `names` (names members bind and new code uses:
lost-binding and duplicate-import checks), `validate` (strict parsers as a second opinion),
`python_cst` (libcst refinements of Python results: import union, one statement per module),
`cascade` (the order of attempts and the choice of result), `tree` (conflicted index entries of a
tree merge resolved file by file). Results are the `result` dataclasses.
"""

from __future__ import annotations

from .cascade import merge_file
from .line import line_merge
from .result import FileMerge, MergeConflict, Strategy
from .tree import ResolvedFile, resolve_conflicted_files

__all__ = [
    "FileMerge",
    "MergeConflict",
    "ResolvedFile",
    "Strategy",
    "line_merge",
    "merge_file",
    "resolve_conflicted_files",
]
