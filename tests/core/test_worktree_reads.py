"""What the git layer answers in-process about a linked worktree (its HEAD, a merge in progress, the
new commit after a commit, its admin entry dropped on removal) agrees with what git answers: a
finish used to ask git nine times, and each answer read from the files must be git's own."""

from __future__ import annotations

import pytest

from tests.conftest import git, make_repo, write
from worktree_coord.errors import GitLocked
from worktree_coord.gitrepo import GitRepo


@pytest.fixture
def linked(tmp_path):
    repo = make_repo(tmp_path / "repo", {"a.txt": "1\n", "b.txt": "2\n"})
    path = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", "-b", "topic", str(path))
    return GitRepo(repo), repo, path


def _git_head(path):
    head = git(path, "rev-parse", "--verify", "-q", "HEAD", check=False) or None
    symbolic = git(path, "symbolic-ref", "-q", "HEAD", check=False) or None
    return head, symbolic


def test_head_on_a_branch_detached_and_on_a_deleted_branch_is_gits_answer(linked):
    gitrepo, repo, path = linked
    assert gitrepo.worktree_head(path) == _git_head(path) == (git(repo, "rev-parse", "topic"), "refs/heads/topic")
    git(path, "checkout", "-q", "--detach")
    assert gitrepo.worktree_head(path) == _git_head(path)
    assert gitrepo.worktree_head(path)[1] is None
    git(path, "checkout", "-q", "topic")
    git(path, "update-ref", "-d", "refs/heads/topic")         # deleted by hand under the worktree
    assert gitrepo.worktree_head(path) == _git_head(path) == (None, "refs/heads/topic")
    assert gitrepo.worktree_head(repo) == _git_head(repo)       # the main worktree: .git is a folder


def test_commit_all_returns_the_new_commit_or_none_when_nothing_changed(linked):
    gitrepo, repo, path = linked
    before = git(path, "rev-parse", "HEAD")
    assert gitrepo.commit_all(path, "nothing", "A", "a@example.invalid") is None
    assert git(path, "rev-parse", "HEAD") == before
    write(path, {"a.txt": "changed\n", "new.txt": "x\n"})
    made = gitrepo.commit_all(path, "work", "A", "a@example.invalid")
    assert made == git(path, "rev-parse", "HEAD") == git(repo, "rev-parse", "topic") != before
    assert git(path, "status", "--porcelain") == ""


def test_a_merge_to_conclude_is_committed_even_with_the_tree_unchanged(linked):
    gitrepo, repo, path = linked
    write(repo, {"b.txt": "main\n"})
    git(repo, "commit", "-qam", "main moves")
    write(path, {"a.txt": "topic\n"})
    git(path, "commit", "-qam", "topic moves")
    git(path, "merge", "--no-commit", "-q", "main", check=False)
    git(path, "checkout", "HEAD", "--", "b.txt")                 # keep our side whole: tree == HEAD's
    assert gitrepo.merge_in_progress(path)
    made = gitrepo.commit_all(path, "merge kept ours", "A", "a@example.invalid")
    assert made == git(path, "rev-parse", "HEAD")
    assert len(git(path, "rev-list", "--parents", "-n", "1", "HEAD").split()) == 3, "a merge commit"
    assert not gitrepo.merge_in_progress(path)


def test_a_held_index_lock_is_still_busy(linked):
    gitrepo, repo, path = linked
    write(path, {"a.txt": "changed\n"})
    git(path, "add", "a.txt")
    lock = gitrepo.worktree_git_dir(path) / "index.lock"
    lock.write_text("")
    with pytest.raises(GitLocked):
        gitrepo.commit_all(path, "work", "A", "a@example.invalid")
    lock.unlink()
    assert gitrepo.commit_all(path, "work", "A", "a@example.invalid") == git(path, "rev-parse", "HEAD")


def test_removing_a_worktree_drops_its_admin_entry_and_leaves_a_locked_ones_to_git(linked, tmp_path):
    gitrepo, repo, path = linked
    admin = gitrepo.worktree_git_dir(path)
    gitrepo.remove_worktree(path)
    assert not path.exists() and not admin.exists()
    assert str(path) not in git(repo, "worktree", "list", "--porcelain")
    git(repo, "worktree", "add", "-q", str(path), "topic")      # the branch and the path are free again
    other = tmp_path / "kept"
    git(repo, "worktree", "add", "-q", "--lock", "-b", "other", str(other))
    held = gitrepo.worktree_git_dir(other)
    gitrepo.remove_worktree(other)
    assert not other.exists() and held.exists(), "a locked entry is git's to keep (prune skips it)"
