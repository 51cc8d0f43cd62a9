"""Test helper: the post-merge checks' findings on a merge git's line merge calls clean."""

from __future__ import annotations

from worktree_coord.merge import FileVersions, find_broken_names, line_merge
from worktree_coord.merge.result import SemanticFinding


def clean_merge(base: bytes, left: bytes, right: bytes) -> bytes:
    result = line_merge(base, left, right)
    assert result.clean, "the fixture must be a merge git calls clean"
    return result.merged


def findings(problem: str, path: str, base: bytes, left: bytes, right: bytes) -> list[SemanticFinding]:
    """The findings of kind `problem` on the clean line merge of one file."""
    merged = clean_merge(base, left, right)
    found = find_broken_names([FileVersions(path, base, left, right, merged)], complete=False)
    return [f for f in found if f.problem == problem]
