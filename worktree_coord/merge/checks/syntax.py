"""Files a change left unparseable: a version that does not parse where the one before it did.

Stage: when a task finishes (coordinator/tasks.py), beside the left-behind notes, and over a run's
pin and integration tip at `report` and `land` (coordinator/landing.py). Input: each changed
file's path and its two versions (before the task, after it; None where absent). Output: a
`BrokenSyntax` per file whose new version the language profile's grammar does not parse cleanly
(an ERROR or a missing node) while its old version parsed cleanly or did not exist, with the line
and column of the first place the parse fails.

Why: the merge engine and every semantic check read a version that does not parse as nothing (no
names, no uses: never guessed, semantic.py), so a task that leaves a syntax error merges without a
word, and the landed tree does not import. Found driving wtc on click: a fanout agent wrote
`def fo-c_marker()`, the task merged clean, `import click` failed. At finish a note, never a block:
a grammar may lag its language (new syntax the wheel does not know yet), which the old version
parsing cleanly makes unlikely but not impossible; the run's `verify` command is the gate there.
At land a refusal: the note alone reached no screen (found on pydata/xarray: a fanout said
"merged", `wtc report` "nothing left out", and land would ship a tree whose import failed), so
`wtc report` lists each such file of the tip (`unparsed`) and `wtc land` refuses while one remains
that a person did not approve by path (`--allow-unparsed`: the grammar-lag case is what it is for).

Nothing here is language-specific: the profiles (grammars/*.toml) say which grammar reads a path.
"""

from __future__ import annotations

from typing import Iterable

import tree_sitter

from ...frozen import value_class
from ..languages.profiles import profile_for_path
from .versions import MAX_BYTES


@value_class
class BrokenSyntax:
    """`path`'s new version does not parse under `language`'s grammar, from `line`:`column` (1-based)."""

    path: str
    language: str
    line: int
    column: int


def broken_syntax(changes: Iterable[tuple[str, bytes | None, bytes | None]]) -> list[BrokenSyntax]:
    """Each (path, old, new) whose `new` does not parse cleanly where `old` did (or was absent), in
    the order given. A path no profile reads, a deleted file, a binary or over-large version: nothing."""
    found: list[BrokenSyntax] = []
    for path, old, new in changes:
        if new is None or not _readable(new):
            continue
        profile = profile_for_path(path, new)
        if profile is None:
            continue
        place = first_error(profile.parse(new).root_node)
        if place is None:
            continue
        if old is not None and (not _readable(old) or profile.parse(old).root_node.has_error):
            continue   # it did not parse before the change either: the grammar's gap, or an old error
        found.append(BrokenSyntax(path, profile.name, place[0] + 1, place[1] + 1))
    return found


def _readable(data: bytes) -> bool:
    return len(data) <= MAX_BYTES and b"\x00" not in data[:8000]


def first_error(root: tree_sitter.Node) -> tuple[int, int] | None:
    """(row, column) of the first ERROR or missing node, in document order, the innermost one: where
    the grammar stopped reading, not where an ERROR wrapping it begins (a grammar that cannot read an
    interface's member wraps the whole interface, or the whole file, in one ERROR node: immer's
    types-external.ts was named at line 1, its unread token at line 182); None when it parses cleanly."""
    if not root.has_error:
        return None
    node = root
    while not node.is_missing:
        child = next((c for c in node.children if c.has_error or c.is_missing), None)
        if child is None:
            break          # the error is this node's own (tree-sitter marks it, no child holds it)
        node = child
    return node.start_point.row, node.start_point.column
