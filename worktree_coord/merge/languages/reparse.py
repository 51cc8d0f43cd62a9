"""A version parsed from the tree of a similar one: tree-sitter's incremental parse, fed by a line diff.

Stage: a helper of `Profile.parse` (profiles.py). Input: an old version's bytes and tree, a new
version's bytes, and the line diff old -> new (git's hunks, zero context lines: `(old start, old
count, new start, new count)`, 1-based; an insertion's old start, or a deletion's new start, is the
line before it). Output: the new version's tree, or None when the hunks do not describe the pair.

Invariant: the tree is the one a fresh parse of the new bytes gives. tree-sitter reuses an old
subtree only outside the edited ranges, so that holds when every byte outside the edits is the same
in both versions; this module checks exactly that (the text between consecutive hunks compared,
in C) before it edits, and answers None otherwise, for the caller to parse afresh. Nothing here is
language-specific.
"""

from __future__ import annotations

from typing import Sequence

import tree_sitter

Hunk = tuple[int, int, int, int]
Point = tuple[int, int]


def _line_starts(data: bytes, upto: int) -> list[int]:
    """Byte offsets of lines 1..upto of `data` (a line past its end starts at len(data))."""
    starts = [0]
    at = 0
    while len(starts) < upto:
        found = data.find(b"\n", at)
        at = len(data) if found < 0 else found + 1
        starts.append(at)
    return starts


def _span(starts: list[int], start: int, count: int) -> tuple[int, int]:
    """The byte range of `count` lines from line `start` (count 0: the empty range after line `start`)."""
    first = start if count else start + 1
    return starts[first - 1], starts[first - 1 + count]


def _advance(point: Point, text: bytes) -> Point:
    """Where `text` ends when it starts at `point` (rows and byte columns, tree-sitter's)."""
    rows = text.count(b"\n")
    if rows:
        return point[0] + rows, len(text) - text.rfind(b"\n") - 1
    return point[0], point[1] + len(text)


def edits(old: bytes, new: bytes, hunks: Sequence[Hunk]) -> list[tuple[int, int, int, Point, Point, Point]] | None:
    """tree-sitter edits (start, old end, new end bytes; their points) turning `old` into `new`,
    in the order to apply them, or None when the text between the hunks differs (they are not
    this pair's diff). Each edit is in the coordinates left by the ones before it: the new text's
    up to its start."""
    if not hunks:
        return [] if old == new else None
    old_starts = _line_starts(old, max(s + c for s, c, _, _ in hunks) + 1)
    new_starts = _line_starts(new, max(s + c for _, _, s, c in hunks) + 1)
    out = []
    old_done = new_done = 0   # the end of the last hunk, in each version
    point: Point = (0, 0)     # the new text's point at new_done
    for old_start, old_count, new_start, new_count in hunks:
        old_from, old_to = _span(old_starts, old_start, old_count)
        new_from, new_to = _span(new_starts, new_start, new_count)
        if old_from < old_done or new_from < new_done or old[old_done:old_from] != new[new_done:new_from]:
            return None
        start_point = _advance(point, new[new_done:new_from])
        out.append((new_from, new_from + old_to - old_from, new_to,
                    start_point, _advance(start_point, old[old_from:old_to]), _advance(start_point, new[new_from:new_to])))
        point = out[-1][5]
        old_done, new_done = old_to, new_to
    if old[old_done:] != new[new_done:]:
        return None
    return out


def reparse(parser: tree_sitter.Parser, old_tree: tree_sitter.Tree, old: bytes, new: bytes,
            hunks: Sequence[Hunk]) -> tree_sitter.Tree | None:
    """`new`'s tree, parsed from `old_tree` (the tree of `old`, edited here in place: pass a copy)
    edited by the diff's hunks; None when the hunks are not the diff of `old` -> `new` (see
    `edits`), or when the tree holds an error or a missing node: tree-sitter's error recovery may
    read text differently from one parse to the next (an incremental parse of a Haskell file with
    a stray `}` recovered at another byte than a fresh parse, in 26 of 33,188 fixture edits, each
    an erroneous tree both ways), and a caller that reads an erroneous tree at all reads it from a
    fresh parse. An error-free tree is the fresh parse's."""
    found = edits(old, new, hunks)
    if found is None:
        return None
    tree = old_tree
    for start, old_end, new_end, start_point, old_end_point, new_end_point in found:
        tree.edit(start_byte=start, old_end_byte=old_end, new_end_byte=new_end,
                  start_point=start_point, old_end_point=old_end_point, new_end_point=new_end_point)
    tree = parser.parse(new, tree)
    return None if tree.root_node.has_error else tree


def inverted(hunks: Sequence[Hunk]) -> list[Hunk]:
    """The hunks of the diff new -> old, from those of old -> new (a zero-context diff names the
    same lines either way)."""
    return [(new_start, new_count, old_start, old_count) for old_start, old_count, new_start, new_count in hunks]
