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


def tree_merge_findings(repo, ours: dict[str, str | bytes | None], theirs: dict[str, str | bytes | None], *,
                        renames: bool = True) -> tuple[SemanticFinding, ...]:
    """The tree merge's findings when `ours` (committed on the checked-out branch) and `theirs` (on
    a branch from the same base) merge, which git must call clean; labelled integration / t1. A
    file's None deletes it; `renames=False` merges without rename detection, as the check's own
    diffs see a tree (a move is a deletion and an addition)."""
    import pygit2

    from tests.conftest import commit, git
    from worktree_coord.merge import check_tree_merge

    base = git(repo, "rev-parse", "HEAD")
    left = commit(repo, ours, "ours")
    git(repo, "checkout", "-q", "-b", "theirs", base)
    right = commit(repo, theirs, "theirs")
    handle = pygit2.Repository(str(repo))
    index = handle.merge_commits(left, right, **({} if renames else {"flags": pygit2.enums.MergeFlag(0)}))
    assert not index.conflicts, "git merges it cleanly"
    return check_tree_merge(handle, base, left, right, index.write_tree(handle), labels=("integration", "base", "t1"))
