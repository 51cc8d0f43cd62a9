"""The merge engine: bytes in, bytes out, one file at a time, and a tree-level helper.

Here, the public face and the pipeline's ends: `result` (what a merge returns: the contract with
every caller), `cascade` (`merge_file`: one file's order of attempts, trivial -> line -> structured
-> the better result, and the checks a result passes), `tree` (a tree merge's conflicted entries
resolved file by file; `check_tree_merge`). Everything else lives in a room named by its job, each
importing only the rooms before it in this list (tests/test_layers.py):
  languages/   the profiles from `grammars/` that make the engine generic, and the few languages
               known as code (Python's libcst refinements, strict parsers, JSON/TOML values)
  lines/       text as lines: git's diff3 line merge, conflict markers, line endings, line diffs
  syntax/      the structured merge over tree-sitter trees: the driver and one module per rule
  precision/   where a clean result is not trusted (guards), and which rule settled each place
  inventory/   beside the merge: the declarations a change touches, what a merge did in words
  appended/    the files every task appends to that no profile covers, merged entry by entry
  ecosystems/  where an import leads: manifests, crates, workspaces, tsconfig paths
  checks/      the post-merge checks: names a clean merge broke, duplicates, reshaped functions
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy_names import lazy_names

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


__getattr__ = lazy_names(globals(), _LAZY)

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
