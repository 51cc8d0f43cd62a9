"""Line endings of a merge: one convention for the whole file, the one a side changed it to.

Stage: around the cascade (cascade.merge_file): before it, the three inputs are put in the
convention the result takes; after it, any line break a stage wrote in another (a marker, a
separator) is put in it too.
Input: the three inputs (and then the result). Output: the inputs and the result with every line
break in one convention, or unchanged when there is no rule.
Rule (git's renormalisation, `merge.renormalize`, reads the same way): each input's convention is
LF, CRLF, none (no line break at all) or mixed. A side whose convention differs from the base's
changed the file's endings, and the result takes it (both sides changed it differently only where
the base had none: then left's, the side the markers put first); when neither side changed it,
the base's stands. The inputs are merged in that convention, so a side that converted the file
changed no line by it: its real edits merge with the other side's as if it had not (a conversion
alone merges as the converted file). Without this, a side converting a file to CRLF and adding a
function, merged with the other side's LF addition, gave a file holding both (exit 0). An input
that mixes conventions itself, or is binary, gives no rule and nothing is converted (a file mixing
them on purpose, a parser's test fixture, keeps its bytes).
Invariants: only line breaks change (`\\n` <-> `\\r\\n`), and only where every input is uniform, so
converting is lossless: no other byte moves, and no line is added or removed.
"""

from __future__ import annotations

import re
from dataclasses import replace

from ..result import FileMerge, Strategy

LF, CRLF, MIXED = "lf", "crlf", "mixed"
_BARE_LF = re.compile(rb"(?<!\r)\n")


def convention(data: bytes) -> str | None:
    """LF, CRLF or MIXED for a text's line breaks; None when it holds none."""
    breaks = data.count(b"\n")
    if not breaks:
        return None
    crlf = data.count(b"\r\n")
    return CRLF if crlf == breaks else LF if crlf == 0 else MIXED


def result_convention(base: bytes, left: bytes, right: bytes) -> str | None:
    """The convention the merge of these inputs takes (module docstring), or None: no rule."""
    kinds = [convention(data) for data in (base, left, right)]
    if MIXED in kinds:
        return None
    was, *sides = kinds
    changed = [kind for kind in sides if kind is not None and kind != was]
    if changed:
        return changed[0]   # left's first: both changed differently only when the base had no line break
    return was


def normalized(data: bytes, wanted: str) -> bytes:
    """`data` with every line break in the convention `wanted` (LF or CRLF)."""
    return data.replace(b"\r\n", b"\n") if wanted == LF else _BARE_LF.sub(b"\r\n", data)


def unify(result: FileMerge, wanted: str | None) -> FileMerge:
    """`result` with every line break in the convention `wanted` (None: left as merged)."""
    if wanted is None or result.strategy is Strategy.BINARY or convention(result.merged) in (None, wanted):
        return result
    return replace(result, merged=normalized(result.merged, wanted))
