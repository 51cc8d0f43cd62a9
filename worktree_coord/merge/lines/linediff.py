"""Line diffs the post-merge checks read: which lines of a version one side touched or added, and
where a line of one version stands in another (git's xdiff: libgit2's line diff, zero context lines,
through the line merge's ctypes binding, lines/line.py; pygit2 where that binding is unavailable).

Stage: a helper of the post-merge checks (semantic.py, signatures.py). Input: two versions' bytes.
Output: 1-based line numbers and ranges. No parsing, nothing language-specific.
"""

from __future__ import annotations

import bisect
import functools
import sys
from typing import Iterable

DIFF_FORCE_TEXT = 1 << 20   # GIT_DIFF_FORCE_TEXT (line.py passes the same to its binding)

HUNKS_KEPT = 128         # the diffs of the version pairs met last (hunks)
HUNKS_KEPT_BYTES = 1 << 16   # ... of pairs this small at most (the kept pairs' bytes stay alive: 8 MB)


def hunks(old: bytes, new: bytes) -> list[tuple[int, int, int, int]]:
    """(old start, old count, new start, new count) of each hunk of the line diff `old` -> `new`,
    zero context lines. Kept for the pairs met last: the post-merge checks ask one pair for the
    lines it touched (reach._gone_words, touched_lines) and the lines it added (reach._added), so a
    drain diffed each task's files twice (1,801 diffs of 799 pairs over bench_merge's 200 merges)."""
    if len(old) + len(new) > HUNKS_KEPT_BYTES:
        return list(_diff(old, new))
    return list(_hunks(old, new))


@functools.lru_cache(maxsize=HUNKS_KEPT)
def _hunks(old: bytes, new: bytes) -> tuple[tuple[int, int, int, int], ...]:
    return _diff(old, new)


def _diff(old: bytes, new: bytes) -> tuple[tuple[int, int, int, int], ...]:
    pygit2 = sys.modules.get("pygit2")
    if pygit2 is None:
        # Not loaded (a `wtc merge-file`: ~40 ms to import, more than its own work): the same
        # libgit2 call as pygit2's, through the line merge's ctypes binding.
        from .line import libgit2_hunks

        found = libgit2_hunks(old, new)
        if found is not None:
            return found
        import pygit2
    # Loaded (a drain, a finish): pygit2 reads the hunks in C; the binding pays ctypes calls and a
    # struct read per hunk (3x pygit2's time for a file with 24 hunks, bench_merge's task edits).
    # As text (DIFF_FORCE_TEXT): libgit2 calls a version holding a NUL byte binary and gives it no
    # hunks, so a use in a source file holding one was never a new line (`from pkg.u import parse`
    # missed); the files a profile reads are source whatever bytes they hold.
    patch = pygit2.Patch.create_from(old, new, flag=DIFF_FORCE_TEXT, context_lines=0)
    return tuple((h.old_start, h.old_lines, h.new_start, h.new_lines) for h in patch.hunks)


def touched_lines(old: bytes, new: bytes | None) -> list[tuple[int, int]]:
    """The line ranges (first, last) of `old` that `new` deletes or changes (all of it when None)."""
    if new is None:
        return [(1, old.count(b"\n") + 1)]
    if new == old:
        return []
    return [(start, start + count - 1) for start, count, _, _ in hunks(old, new) if count]


def added_lines(old: bytes, new: bytes) -> list[int]:
    """Line numbers (1-based) of `new` that a line diff from `old` marks added or changed."""
    out: list[int] = []
    for _, _, new_start, new_lines in hunks(old, new):
        out.extend(range(new_start, new_start + new_lines))
    return out


def lines_text(data: bytes, numbers: Iterable[int]) -> bytes:
    """The lines `numbers` (1-based) of `data`, joined by newlines (a number past its end is skipped)."""
    lines = data.split(b"\n")
    return b"\n".join(lines[n - 1] for n in numbers if 0 < n <= len(lines))


def ranges_text(data: bytes, ranges: Iterable[tuple[int, int]]) -> bytes:
    """The lines of `data` in the (first, last) ranges, joined by newlines."""
    lines = data.split(b"\n")
    return b"\n".join(b"\n".join(lines[first - 1:last]) for first, last in ranges)


def added_text(old: bytes, new: bytes) -> bytes:
    """The lines `new` adds to (or changes from) `old`: where a new use of a name stands."""
    return lines_text(new, added_lines(old, new))


def follow(old: bytes, new: bytes, lines: list[int]) -> set[int]:
    """Where `lines` of `old` stand in `new` (lines the diff leaves untouched; the others are gone)."""
    found = hunks(old, new)
    ends: list[int] = []      # for each hunk, the last old line it touches (inserts: the line before)
    shifts: list[int] = []    # the shift of old lines after it
    shift = 0
    for old_start, old_lines, _, new_lines in found:
        shift += new_lines - old_lines
        ends.append(old_start + old_lines - 1 if old_lines else old_start)
        shifts.append(shift)
    out: set[int] = set()
    for line in lines:
        if any(old_lines and old_start <= line < old_start + old_lines for old_start, old_lines, _, _ in found):
            continue
        index = bisect.bisect_left(ends, line)   # hunks ending before `line`
        out.add(line + (shifts[index - 1] if index else 0))
    return out


def edited_lines(old: bytes, new: bytes) -> list[tuple[int, int]]:
    """The line ranges (first, last) of `old` that `new` changes, deletes or inserts between (an
    insertion after line n is (n, n + 1)): a parameter added on a line of its own is an insertion."""
    if old == new:
        return []
    return [(start, start + count - 1) if count else (start, start + 1) for start, count, _, _ in hunks(old, new)]
