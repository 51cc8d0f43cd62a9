"""gitrepo/remote.py over a real `git daemon`: the lease is a compare-and-swap on the remote's ref,
a refused lease is RemoteStale (never retried there), an unreachable remote is retried a bounded
number of times and then RemoteUnavailable (exit 4 with retry-after), other refusals are GitError."""

from __future__ import annotations

import time

import pytest

from tests.conftest import git, make_repo
from tests.remote.remote_helpers import cleanup, serve
from worktree_coord.errors import GitError, UsageError
from worktree_coord.gitrepo import GitRepo
from worktree_coord.gitrepo.remote import Remote, RemoteStale, RemoteUnavailable

REF = "refs/heads/wtc/r/integration"


@pytest.fixture
def clone(tmp_path):
    daemon, url = serve(tmp_path, make_repo(tmp_path / "source"))
    git(tmp_path, "clone", "-q", url, str(tmp_path / "clone"))
    yield GitRepo(tmp_path / "clone"), daemon, daemon.root / "repo.git"
    cleanup(daemon)


def test_push_with_lease_is_a_compare_and_swap_on_the_remote(clone):
    repo, _, bare = clone
    remote = Remote(repo, "origin")
    one = git(repo.toplevel, "rev-parse", "HEAD")
    git(repo.toplevel, "commit", "-q", "--allow-empty", "-m", "two")
    two = git(repo.toplevel, "rev-parse", "HEAD")
    remote.push_with_lease(REF, one, None, what="create")
    assert git(bare, "rev-parse", REF) == one
    with pytest.raises(RemoteStale):
        remote.push_with_lease(REF, two, None, what="create again")   # exists: create-only refused
    with pytest.raises(RemoteStale):
        remote.push_with_lease(REF, two, two, what="wrong expectation")
    assert git(bare, "rev-parse", REF) == one, "a refused lease moved nothing"
    remote.push_with_lease(REF, two, one, what="move")
    assert git(bare, "rev-parse", REF) == two
    assert remote.remote_refs([REF, "refs/heads/nope"]) == {REF: two}
    remote.fetch([f"+{REF}:{REF}"], what="mirror")
    assert repo.ref_target(REF) == two


def test_an_unreachable_remote_is_retried_then_exit_4(clone):
    repo, daemon, _ = clone
    daemon.stop()
    remote = Remote(repo, "origin", attempts=3, first_delay=0.05)
    started = time.monotonic()
    with pytest.raises(RemoteUnavailable) as caught:
        remote.fetch(["+refs/heads/main:refs/remotes/origin/main"], what="fetching main")
    assert caught.value.exit_code == 4 and caught.value.details["retry_after_seconds"] > 0
    assert "3 tries" in str(caught.value) and time.monotonic() - started >= 0.05 * 0.5 + 0.1 * 0.5
    daemon.start()
    remote.fetch(["+refs/heads/main:refs/remotes/origin/main"], what="fetching main")


def test_other_refusals_are_errors_with_gits_words(clone, tmp_path):
    repo, _, bare = clone
    hook = bare / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'wtc refs are protected here' >&2\nexit 1\n")
    hook.chmod(0o755)
    with pytest.raises(GitError) as caught:
        Remote(repo, "origin").push_refs({"refs/heads/wtc/r/t": git(repo.toplevel, "rev-parse", "HEAD")}, what="push")
    assert "refused push" in str(caught.value)
    with pytest.raises(UsageError, match="no git remote 'upstream'"):
        Remote(repo, "upstream").url()
    with pytest.raises(UsageError):
        Remote(repo, "--upload-pack=evil")


def test_a_worktree_head_caught_half_written_is_retried_not_an_error(clone, tmp_path):
    """Found by the remote stress test: a fetch while another process of the clone adds or removes a
    task's worktree failed with `fatal: bad object worktrees/t0010/HEAD` (exit 2, a git error). It is
    that moment's state, so it is retried; one left broken for good ends as RemoteUnavailable."""
    repo, _, _ = clone
    git(repo.toplevel, "worktree", "add", "-q", str(tmp_path / "wt"), "HEAD")
    head = repo.common_dir / "worktrees" / "wt" / "HEAD"
    kept = head.read_text()
    head.write_text("1234567890123456789012345678901234567890\n")
    remote = Remote(repo, "origin", attempts=2, first_delay=0.05)
    with pytest.raises(RemoteUnavailable, match="2 tries"):
        remote.fetch(["+refs/heads/main:refs/remotes/origin/main"], what="fetching main")
    head.write_text(kept)
    remote.fetch(["+refs/heads/main:refs/remotes/origin/main"], what="fetching main")


def test_a_worktree_admin_file_caught_empty_is_retried_not_an_error(clone, tmp_path):
    """After the HEAD above was retried, a probe fetching beside GitRepo.add_worktree/remove_worktree in
    other processes of the clone found the next file of the same moment: `git worktree add` creates the
    entry's `commondir` before it writes it, and a fetch listing the clone's worktrees then dies with
    `fatal: failed to read .git/worktrees/<task>/commondir: Success` (exit 2, a git error). It is that
    moment's state, so it is retried; one left empty for good ends as RemoteUnavailable."""
    repo, _, _ = clone
    git(repo.toplevel, "worktree", "add", "-q", str(tmp_path / "wt"), "HEAD")
    commondir = repo.common_dir / "worktrees" / "wt" / "commondir"
    kept = commondir.read_text()
    commondir.write_text("")   # what a concurrent `git worktree add` holds between creating and writing it
    remote = Remote(repo, "origin", attempts=2, first_delay=0.05)
    with pytest.raises(RemoteUnavailable, match="2 tries"):
        remote.fetch(["+refs/heads/main:refs/remotes/origin/main"], what="fetching main")
    commondir.write_text(kept)
    remote.fetch(["+refs/heads/main:refs/remotes/origin/main"], what="fetching main")
