"""Provenance of a merge: for each place where git's line merge conflicts, which rule settled it.

Stage: measurement, after the cascade (nothing in the product reads it). Input: base, left, right
and the `FileMerge` the cascade returned, whose `trace` holds what the structured merge recorded:
(rule, base start byte, base end byte) for each place both sides edited that a rule settled (a
union of members, a line merge between members, one member's lead and body, ...), or (rule, -1, -1)
for a rule of the whole file (Python's import union, an appendable file's entry merge).
Output: one `Region` per git conflict region (base lines both sides changed, differently), with the
rules whose base range meets it and the region's input shape (what each side did to those lines).

A git conflict region is computed here as diff3 does (libgit2's diff of base to each side, hunks
of the two sides that overlap or touch, where the sides' new lines differ): it may be wider than
the marker block git prints (git trims lines both sides agree on), never narrower. A region no
recorded rule meets was settled by member-level bookkeeping alone: each side changed different
members, which is named "separate members"; one where both sides edited one member whose nested
container (a class body, a function's statements) merged with no rule needed inside is named by
the structured merge's record "both edited one member: merged inside".

Invariants: reads the inputs and the trace only; cheap (two line diffs), run on demand.
"""

from __future__ import annotations

import bisect
import difflib

from ...frozen import value_class
from ..result import FileMerge
from ..syntax.structured import INSIDE

SEPARATE = "separate members"


@value_class
class Region:
    """Base lines [start, end) (0-based; start == end: an insertion point) both sides changed."""

    start: int
    end: int
    ours: tuple[str, ...]       # the sides' lines for the region
    theirs: tuple[str, ...]
    base: tuple[str, ...]
    rules: tuple[str, ...]      # the rules that settled it (SEPARATE when none was recorded)

    @property
    def shape(self) -> str:
        """What the sides did to the region: "insert/insert" (both only added lines), "delete
        next to insert" (one only removed lines where the other only added), else "edit/edit"."""
        did = [_did(self.base, side) for side in (self.ours, self.theirs)]
        if did == [{"insert"}, {"insert"}]:
            return "insert/insert"
        if sorted(did, key=sorted) == [{"delete"}, {"insert"}]:
            return "delete next to insert"
        return "edit/edit"


def _did(base: tuple[str, ...], side: tuple[str, ...]) -> set[str]:
    """The kinds of line edits (insert, delete, replace) that turn base into side."""
    matcher = difflib.SequenceMatcher(None, base, side, autojunk=False)
    return {tag for tag, *_ in matcher.get_opcodes() if tag != "equal"}


def _hunks(base: bytes, side: bytes) -> list[tuple[int, int, int, int]]:
    """(base start, base end, side start, side end), 0-based half-open, for each changed run."""
    import pygit2   # here: `wtc merge-file` of a clean line merge never asks, and pygit2 is ~40 ms to import

    out = []
    for hunk in pygit2.Patch.create_from(base, side, context_lines=0).hunks:
        start = hunk.old_start - 1 if hunk.old_lines else hunk.old_start
        side_start = hunk.new_start - 1 if hunk.new_lines else hunk.new_start
        out.append((start, start + hunk.old_lines, side_start, side_start + hunk.new_lines))
    return out


def _side_range(hunks: list[tuple[int, int, int, int]], start: int, end: int) -> tuple[int, int]:
    """Where base lines [start, end) of a chunk went in the side, given the side's hunks (each
    either inside the chunk or wholly before or after it, not touching it)."""
    def delta(h: tuple[int, int, int, int]) -> int:
        return (h[3] - h[2]) - (h[1] - h[0])
    before = sum(delta(h) for h in hunks if h[1] < start)
    inside = sum(delta(h) for h in hunks if start <= h[0] and h[1] <= end)
    return start + before, end + before + inside


def conflict_regions(base: bytes, left: bytes, right: bytes) -> list[tuple[int, int, tuple[str, ...], tuple[str, ...], tuple[str, ...]]]:
    """diff3's conflicting chunks: (base start, base end, base lines, ours lines, theirs lines)."""
    lh, rh = _hunks(base, left), _hunks(base, right)
    events = sorted([(h[0], h[1], "L") for h in lh] + [(h[0], h[1], "R") for h in rh])
    chunks: list[list[int | set[str]]] = []
    for start, end, side in events:
        # Overlapping or touching changes of the two sides are one chunk (as in xdiff's merge).
        if chunks and start <= chunks[-1][1]:  # type: ignore[operator]
            chunks[-1][1] = max(chunks[-1][1], end)  # type: ignore[call-overload]
            chunks[-1][2].add(side)  # type: ignore[union-attr]
        else:
            chunks.append([start, end, {side}])
    texts = [data.decode("utf-8", "replace").splitlines() for data in (base, left, right)]
    out = []
    for start, end, sides in chunks:
        if len(sides) < 2:  # type: ignore[arg-type]
            continue
        lo, hi = _side_range(lh, start, end)  # type: ignore[arg-type]
        ro, rhi = _side_range(rh, start, end)  # type: ignore[arg-type]
        ours, theirs = tuple(texts[1][lo:hi]), tuple(texts[2][ro:rhi])
        if ours != theirs:
            out.append((start, end, tuple(texts[0][start:end]), ours, theirs))  # type: ignore[misc]
    return out


def regions(base: bytes, left: bytes, right: bytes, result: FileMerge) -> list[Region]:
    """Each git conflict region of the inputs with the rules of `result.trace` that settled it."""
    starts = [0]
    for index, byte in enumerate(base):
        if byte == 10:
            starts.append(index + 1)

    def line_of(offset: int) -> int:
        return bisect.bisect_right(starts, offset) - 1

    spans = []
    whole = tuple(rule for rule, start, _end in result.trace if start < 0)
    for rule, start, end in result.trace:
        if start < 0:
            continue
        first = line_of(start)
        if end == start and base[starts[first]:start].strip():
            first += 1   # a point after a member's last text: an insertion before the next line
        spans.append((rule, first, line_of(end - 1) + 1 if end > start else first))
    out = []
    for start, end, base_lines, ours, theirs in conflict_regions(base, left, right):
        met = []
        for rule, first, last in spans:
            point = first == last or start == end
            if (first <= end and start <= last) if point else (first < end and start < last):
                met.append(rule)
        # A member merged inside is named by the rules that settled its inner edits, if any did.
        inner = [rule for rule in met if not rule.endswith(INSIDE)]
        rules = tuple(dict.fromkeys(inner or met)) or whole or (SEPARATE,)
        out.append(Region(start, end, ours, theirs, base_lines, rules))
    return out
