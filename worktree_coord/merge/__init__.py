"""The merge engine: bytes in, bytes out, one file at a time, and a tree-level helper.

Stages (one module each): `line` (diff3 line merge through libgit2), `profiles` (language data
from `grammars/`), `members` (containers cut into members), `structured` (declaration-level merge),
`markers` (conflict blocks read and written), `validate` (strict parsers as a second opinion),
`python_cst` (libcst refinements of Python results: import union, one statement per module),
`cascade` (the order of attempts and the choice of result), `tree` (conflicted index entries of a
tree merge resolved file by file), `symbols` and `semantic` (the post-merge semantic check: names
one side removed that the other side's new code uses, in one file or across a merge's files).
Results are the `result` dataclasses.
"""

from __future__ import annotations

from .cascade import merge_file
from .line import line_merge
from .result import FileMerge, MergeConflict, SemanticFinding, SemanticMode, Strategy
from .semantic import FileVersions, check_file, find_broken_names
from .tree import ResolvedFile, check_tree_merge, resolve_conflicted_files

__all__ = [
    "FileMerge",
    "FileVersions",
    "MergeConflict",
    "ResolvedFile",
    "SemanticFinding",
    "SemanticMode",
    "Strategy",
    "check_file",
    "check_tree_merge",
    "find_broken_names",
    "line_merge",
    "merge_file",
    "resolve_conflicted_files",
]
