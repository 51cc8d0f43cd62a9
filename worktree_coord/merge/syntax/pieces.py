"""The structured merge's output: pieces of merged text and the conflicts left among them.

Stage: shared by every stage of the cascade that merges below the line level (structured.py and
the modules it calls, appendable.py, keyed_sequence.py, cascade.py, which renders them).
Input: merged bytes, or a line merge's diff3 output whose conflict blocks become records.
Output: `Piece`s: bytes, or `Conflict` records rendered with markers only at the end.
Invariants: a conflict starts on a line start and each of its parts ends with a newline
(`check_aligned`); a result that cannot keep this is Unmergeable, never a mid-line marker.
"""

from __future__ import annotations


from ...frozen import value_class
from ..lines.markers import parse_conflicts
from .members import Member, Unmergeable


@value_class
class Conflict:
    """A conflicted region in the output, before it is rendered with markers."""

    base: bytes
    ours: bytes
    theirs: bytes
    declaration: str
    kind: str = "content"
    # Which step of this merge left the conflict, for the cascade's note (what a reader or the
    # eval's `--why-unresolved` census needs to know: a region between members, one member both
    # sides edited, and why that member did not merge through a nested container).
    step: str = ""


Piece = bytes | Conflict


def pick3(base: bytes, left: bytes, right: bytes) -> bytes | None:
    """The trivial three-way pick: the changed side, the common change, or None if both differ."""
    if left == base:
        return right
    if right == base or left == right:
        return left
    return None


def pick_flag(base: bool, left: bool, right: bool) -> bool:
    """`pick3` for a flag (a container's trailing separator): the changed side, else left's."""
    if left == base:
        return right
    return left


def join_declaration(name: str, key: str | None) -> str:
    """The declaration path a conflict names: the container's path, then the member's key."""
    if not key:
        return name
    return f"{name} > {key}" if name else key


def at_line_start(member: Member) -> bool:
    """Whether the member starts its version's line (a conflict inside it may start there)."""
    return member.start == 0 or member.source[member.start - 1:member.start] == b"\n"


def check_aligned(pieces: list[Piece], *, at_line_start: bool) -> None:
    """Every conflict must start on a line start and each of its parts end with a newline."""
    line_start = at_line_start
    for piece in pieces:
        if isinstance(piece, Conflict):
            if not line_start:
                raise Unmergeable("the two sides' edits meet inside one line")
            for part in (piece.base, piece.ours, piece.theirs):
                if part and not part.endswith(b"\n"):
                    raise Unmergeable("the two sides' edits meet inside one line")
            line_start = True
        elif piece:
            line_start = piece.endswith(b"\n")


def pieces_from_markers(merged: bytes, marker_size: int, declaration: str, kind: str = "content",
                        step: str = "") -> list[Piece]:
    """Turn a line merge's diff3 output back into pieces (text and Conflict records)."""
    lines = merged.splitlines(keepends=True)
    blocks = parse_conflicts(merged, marker_size=marker_size, declaration=declaration)
    pieces: list[Piece] = []
    cursor = 0
    for block in blocks:
        pieces.append(b"".join(lines[cursor:block.start_line - 1]))
        pieces.append(Conflict(base=block.base.encode("utf-8", "surrogateescape"),
                               ours=block.ours.encode("utf-8", "surrogateescape"),
                               theirs=block.theirs.encode("utf-8", "surrogateescape"),
                               declaration=declaration, kind=kind, step=step))
        cursor = block.end_line
    pieces.append(b"".join(lines[cursor:]))
    return pieces
