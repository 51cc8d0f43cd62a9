"""git refusing because another process holds its lock file is a busy repository (exit 4, retry),
not bad input: the error names the lock file, and the same call succeeds once the lock is gone."""

from __future__ import annotations

import pytest

from tests.conftest import make_repo, write
from worktree_coord.errors import EXIT_BUSY, GitError, GitLocked
from worktree_coord.gitrepo import GitRepo
from worktree_coord.gitrepo.repository import held_lock_file


def test_a_held_index_lock_is_busy_and_names_the_file(tmp_path):
    repo = make_repo(tmp_path / "repo", {"a.txt": "1\n"})
    git = GitRepo(repo)
    write(repo, {"a.txt": "2\n"})
    lock = repo / ".git" / "index.lock"
    lock.write_text("")
    with pytest.raises(GitLocked) as locked:
        git.git("add", "a.txt")
    assert locked.value.exit_code == EXIT_BUSY
    assert locked.value.details["lock"] == str(lock)
    assert str(lock) in locked.value.fix and "retry" in locked.value.fix
    assert "\n" not in locked.value.message, "git's paragraph of advice is left out of the one-line message"
    lock.unlink()
    git.git("add", "a.txt")                       # the same call, once the lock is gone
    assert "a.txt" in git.git("diff", "--cached", "--name-only").stdout.decode()


def test_other_git_failures_stay_git_errors(tmp_path):
    git = GitRepo(make_repo(tmp_path / "repo", {"a.txt": "1\n"}))
    with pytest.raises(GitError) as failed:
        git.git("rev-parse", "--verify", "no-such-branch")
    assert not isinstance(failed.value, GitLocked)


@pytest.mark.parametrize("message, lock", [
    ("fatal: Unable to create '/r/.git/index.lock': File exists.\n\nAnother git process...", "/r/.git/index.lock"),
    ("fatal: cannot lock ref 'refs/heads/b': Unable to create '/r/.git/refs/heads/b.lock': File exists.",
     "/r/.git/refs/heads/b.lock"),
    # the config's lock, never the config itself (the fix says to remove it)
    ("error: could not lock config file .git/config: File exists", ".git/config.lock"),
    ("fatal: cannot lock ref 'HEAD': is at 1234 but expected 5678", None),   # a lost race, not a held file
])
def test_the_lock_file_is_read_from_gits_words(message, lock):
    assert held_lock_file(message) == lock
