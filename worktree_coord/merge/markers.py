"""Conflict marker blocks: finding them in inputs, reading them back from merged text, writing them.

Input: bytes (or text) and a marker size. Output: `MergeConflict` records with 1-based inclusive
line ranges of each whole block in the merged text, or rendered diff3 blocks.
Invariant: rendering a block and parsing it back gives the same three versions.
"""

from __future__ import annotations

import re

from .result import MergeConflict


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
