"""Conflict marker blocks: finding them in inputs, reading them back from merged text, writing them.

Input: bytes (or text) and a marker size. Output: `MergeConflict` records with 1-based inclusive
line ranges of each whole block in the merged text, rendered diff3 blocks, or diff3 blocks
rewritten in git's other conflict styles (`restyle`: `merge` drops the base section, `zdiff3`
moves lines both sides share at a block's start and end out of it, as git's xdiff does).
Invariant: rendering a block and parsing it back gives the same three versions.
"""

from __future__ import annotations

import re

from ..result import MergeConflict


def _opening(marker_size: int) -> re.Pattern[bytes]:
    return re.compile(rb"^(<{%d}|>{%d}|\|{%d})(?:[ \t]|\r?$)" % (marker_size, marker_size, marker_size),
                      re.MULTILINE)


def has_markers(data: bytes, marker_size: int = 7) -> bool:
    """True when `data` already holds a line that starts like a conflict marker of this size."""
    return _opening(marker_size).search(data) is not None


def _kind(line: bytes, marker_size: int) -> str | None:
    body = line.rstrip(b"\r\n")
    for char, kind in ((b"<", "ours"), (b"|", "base"), (b"=", "theirs"), (b">", "end")):
        head = char * marker_size
        if body.startswith(head) and (len(body) == marker_size or body[marker_size:marker_size + 1] in (b" ", b"\t")):
            if kind == "theirs" and len(body) != marker_size:
                return None
            return kind
    return None


def parse_conflicts(merged: bytes, *, marker_size: int = 7, declaration: str = "",
                    kind: str = "content") -> list[MergeConflict]:
    """Every diff3 (or merge-style) block in `merged`, with its line range and three versions."""
    lines = merged.splitlines(keepends=True)
    found: list[MergeConflict] = []
    index = 0
    while index < len(lines):
        if _kind(lines[index], marker_size) != "ours":
            index += 1
            continue
        start = index
        parts: dict[str, list[bytes]] = {"ours": [], "base": [], "theirs": []}
        section = "ours"
        index += 1
        closed = False
        while index < len(lines):
            marker = _kind(lines[index], marker_size)
            if marker in ("base", "theirs") and section != "theirs":
                section = marker
            elif marker == "end" and section == "theirs":
                closed = True
                break
            else:
                parts[section].append(lines[index])
            index += 1
        if not closed:
            break
        found.append(MergeConflict(
            start_line=start + 1, end_line=index + 1, declaration=declaration, kind=kind,
            base=b"".join(parts["base"]).decode("utf-8", "replace"),
            ours=b"".join(parts["ours"]).decode("utf-8", "replace"),
            theirs=b"".join(parts["theirs"]).decode("utf-8", "replace"),
        ))
        index += 1
    return found


def render_block(base: str, ours: str, theirs: str, *, marker_size: int, labels: tuple[str, str, str],
                 eol: str = "\n") -> str:
    """One diff3 block as git writes it (labels: ours, base, theirs); each part ends with `eol`."""
    def closed(text: str) -> str:
        return text if not text or text.endswith("\n") else text + eol

    def marker(char: str, label: str) -> str:
        return char * marker_size + (f" {label}" if label else "") + eol

    return (marker("<", labels[0]) + closed(ours) + marker("|", labels[1]) + closed(base)
            + "=" * marker_size + eol + closed(theirs) + marker(">", labels[2]))


STYLES = ("merge", "diff3", "zdiff3")   # git's merge.conflictStyle values


class Block:
    """One diff3 block of a merged text as `restyle` rewrote it: its 1-based inclusive lines in the
    new text and what stayed inside its ours and theirs sections."""

    def __init__(self, start_line: int, end_line: int, ours: bytes, theirs: bytes) -> None:
        self.start_line, self.end_line, self.ours, self.theirs = start_line, end_line, ours, theirs


def restyle(merged: bytes, *, style: str, marker_size: int = 7) -> tuple[bytes, list[Block]] | None:
    """The diff3 blocks of `merged` in git's conflict `style`: `diff3` as they are; `zdiff3` with
    the lines ours and theirs share at the block's start and end moved out of it (the base section
    stays whole); `merge` the same without the base section (`|||||||` and the base lines), as
    `git merge-file` writes it. Returns the text and each block's new place, or None when a block
    is not a whole diff3 block (nothing is rewritten then)."""
    lines = merged.splitlines(keepends=True)
    out: list[bytes] = []
    blocks: list[Block] = []
    index = 0
    while index < len(lines):
        if _kind(lines[index], marker_size) != "ours":
            out.append(lines[index])
            index += 1
            continue
        sections: dict[str, list[bytes]] = {"ours": [], "base": [], "theirs": []}
        markers = [lines[index]]
        section = "ours"
        index += 1
        while index < len(lines):
            kind = _kind(lines[index], marker_size)
            expected = {"ours": "base", "base": "theirs", "theirs": "end"}[section]
            if kind == expected:
                markers.append(lines[index])
                if kind == "end":
                    break
                section = kind
            elif kind is not None:
                return None          # a merge-style block, or markers out of order: not diff3
            else:
                sections[section].append(lines[index])
            index += 1
        if len(markers) != 4:
            return None              # an unclosed block
        index += 1
        ours, base, theirs = sections["ours"], sections["base"], sections["theirs"]
        # Lines both sides share at the edges (never the last line of the longer side: a block
        # keeps something to show).
        head = tail = 0
        if style != "diff3":
            longer = max(len(ours), len(theirs))
            while head < min(len(ours), len(theirs)) and ours[head] == theirs[head] and head + 1 < longer:
                head += 1
            while tail < min(len(ours), len(theirs)) - head and ours[-1 - tail] == theirs[-1 - tail] \
                    and head + tail + 1 < longer:
                tail += 1
        out.extend(ours[:head])
        start = len(out) + 1
        kept_ours, kept_theirs = ours[head:len(ours) - tail], theirs[head:len(theirs) - tail]
        out.append(markers[0])
        out.extend(kept_ours)
        if style != "merge":
            out.append(markers[1])
            out.extend(base)
        out.append(markers[2])
        out.extend(kept_theirs)
        out.append(markers[3])
        blocks.append(Block(start, len(out), b"".join(kept_ours), b"".join(kept_theirs)))
        out.extend(ours[len(ours) - tail:])
    return b"".join(out), blocks
