"""Refs deleted in one batch (what `wtc gc` does with the branches of a run's merged tasks): each ref
is deleted only while it holds the value the caller read, and one that moved meanwhile stays while
the rest of the batch still goes."""

from __future__ import annotations

from tests.conftest import git, make_repo
from worktree_coord.gitrepo import GitRepo


def _branches(repo, count):
    head = git(repo, "rev-parse", "HEAD")
    for index in range(count):
        git(repo, "update-ref", f"refs/heads/b{index}", head)
    return head


def test_a_batch_deletes_every_ref_that_holds_its_expected_value(tmp_path):
    repo = make_repo(tmp_path / "repo", {"a.txt": "1\n"})
    head = _branches(repo, 5)
    gitrepo = GitRepo(repo)
    deleted = gitrepo.delete_refs([(f"refs/heads/b{i}", head) for i in range(5)])
    assert deleted == [f"refs/heads/b{i}" for i in range(5)]
    assert git(repo, "for-each-ref", "--format=%(refname)", "refs/heads/b*") == ""
    assert gitrepo.delete_refs([]) == []


def test_a_ref_that_moved_stays_and_the_others_are_still_deleted(tmp_path):
    repo = make_repo(tmp_path / "repo", {"a.txt": "1\n"})
    head = _branches(repo, 3)
    moved = git(repo, "commit-tree", "-p", head, "-m", "pushed again", f"{head}^{{tree}}")
    git(repo, "update-ref", "refs/heads/b1", moved)        # after the caller read `head` for it
    deleted = GitRepo(repo).delete_refs([(f"refs/heads/b{i}", head) for i in range(3)])
    assert deleted == ["refs/heads/b0", "refs/heads/b2"]
    assert git(repo, "rev-parse", "refs/heads/b1") == moved, "the moved ref keeps its news"
    assert git(repo, "for-each-ref", "--format=%(refname)", "refs/heads/b0", "refs/heads/b2") == ""
