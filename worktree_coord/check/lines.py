"""Where in a file a change is: the line ranges a branch changed, in the head version of the file.

Stage: locating findings. Input: two blob ids (either may be None). Output: 1-based inclusive line
ranges in the new version. Annotations and code-scanning results then sit on the changed lines, not
on line 1 of a file. Binary files and deletions have no lines (None: the finding is file-level).
"""

from __future__ import annotations

import pygit2

LineRange = tuple[int, int]


def changed_ranges(repo: pygit2.Repository, old_oid: str | None, new_oid: str | None) -> list[LineRange]:
    """Line ranges of the new blob that differ from the old one (no context lines)."""
    if new_oid is None:
        return []
    new = repo[pygit2.Oid(hex=new_oid)].read_raw()
    if b"\0" in new[:8000]:
        return []
    old = repo[pygit2.Oid(hex=old_oid)].read_raw() if old_oid else None
    if old is None:
        count = new.count(b"\n") + (0 if new.endswith(b"\n") or not new else 1)
        return [(1, max(count, 1))]
    patch = pygit2.Patch.create_from(old, new, context_lines=0)
    ranges = []
    for hunk in patch.hunks:
        if hunk.new_lines:
            ranges.append((hunk.new_start, hunk.new_start + hunk.new_lines - 1))
        else:  # a pure deletion: point at the line after which lines were removed
            line = max(hunk.new_start, 1)
            ranges.append((line, line))
    return ranges


def first_range(repo: pygit2.Repository, old_oid: str | None, new_oid: str | None) -> LineRange | None:
    ranges = changed_ranges(repo, old_oid, new_oid)
    return ranges[0] if ranges else None


def locate_text(haystack: bytes, needle: str) -> LineRange | None:
    """The line range where `needle` first appears whole-line in `haystack` (None if absent or empty)."""
    if not needle.strip():
        return None
    data = needle.encode("utf-8")
    at = haystack.find(data)
    while at > 0 and haystack[at - 1:at] != b"\n":
        at = haystack.find(data, at + 1)
    if at < 0:
        return None
    start = haystack.count(b"\n", 0, at) + 1
    end = start + max(data.rstrip(b"\n").count(b"\n"), 0)
    return (start, end)
