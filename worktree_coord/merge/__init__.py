"""The merge engine: bytes in, bytes out, one file at a time, and a tree-level helper.

Stages (one module each): `line` (diff3 line merge through libgit2), `profiles` (language data
from `grammars/`), `members` (containers cut into members), `structured` (declaration-level merge: the
driver, with `member_diff`, `group_rules`, `statement_forms`, `insertion_order`, `insertion_layout`,
`name_loss` for its rules and `pieces` for its output),
`markers` (conflict blocks read and written), `names` (names members bind and new code uses:
lost-binding and duplicate-import checks), `validate` (strict parsers as a second opinion),
`python_cst` (libcst refinements of Python results: import union, one statement per module),
`guards` (shapes where the inputs cannot tell the right merge: a clean resolution of git's
conflicts there is not trusted), `appendable` + `entries` + `keyed_sequence` (the files every task
appends to and no profile covers: line lists, PO and .properties catalogs, merged entry by entry), `cascade` (the order of attempts and the choice of result), `line_endings` (one line-ending convention per result: the one a side changed the file to), `tree`
(conflicted index entries of a tree merge resolved file by file), `symbols` and `semantic` (the
post-merge semantic check: names one side removed that the other side's new code uses, in one file
or across a merge's files; `reach` picks, before any parse, the files a new use can reach). Results are the `result` dataclasses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

# The names load on first use (PEP 562): `merge.result` is imported wherever a FileMerge travels
# (integrate/, the check, the coordinator), and importing it must not load tree-sitter and libcst.
_LAZY = {
    "merge_file": "cascade",
    "line_merge": "lines.line",
    "FileMerge": "result",
    "MergeConflict": "result",
    "Strategy": "result",
    "ResolvedFile": "tree",
    "resolve_conflicted_files": "tree",
    "check_tree_merge": "tree",
    "SemanticFinding": "result",
    "SemanticMode": "result",
    "FileVersions": "checks.semantic",
    "check_file": "checks.semantic",
    "find_broken_names": "checks.semantic",
}

if TYPE_CHECKING:
    from .cascade import merge_file
    from .lines.line import line_merge
    from .result import FileMerge, MergeConflict, SemanticFinding, SemanticMode, Strategy
    from .checks.semantic import FileVersions, check_file, find_broken_names
    from .tree import ResolvedFile, check_tree_merge, resolve_conflicted_files


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

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
