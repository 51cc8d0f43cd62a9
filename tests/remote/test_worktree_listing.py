"""Listing a clone's worktrees while another process of the clone registers one. A remote run's merge
asks whether a task's branch is checked out here (GitRepo.worktree_on_branch, before fetching the
branch) while the clone's agents start and finish tasks; `git worktree list` dies on an admin entry
caught half written, so the listing waits for the registration lock every add and prune holds."""

from __future__ import annotations

import threading

from tests.conftest import git, make_repo
from worktree_coord.gitrepo import GitRepo


def test_listing_worktrees_waits_for_a_registration_in_flight(tmp_path):
    """Found by a probe running GitRepo.add_worktree/remove_worktree beside worktree_on_branch in other
    processes of one clone: `git worktree list` failed with `fatal: failed to read
    .git/worktrees/<name>/commondir: Success` (git creates that file before it writes it), a GitError
    that ended the merge asking with exit 2."""
    repo = GitRepo(make_repo(tmp_path / "repo"))
    git(repo.toplevel, "worktree", "add", "-q", "-b", "wtc/r/a", str(tmp_path / "wt"), "HEAD")
    commondir = repo.common_dir / "worktrees" / "wt" / "commondir"
    kept = commondir.read_text()
    answer: dict[str, object] = {}

    def ask() -> None:
        try:
            answer["found"] = repo.worktree_on_branch("refs/heads/wtc/r/a")
        except Exception as error:  # the failure this test is about, reported by the assertion below
            answer["error"] = error

    with repo.registration_lock("a registration in flight"):
        commondir.write_text("")   # what `git worktree add`, under this lock, holds for a moment
        asking = threading.Thread(target=ask)
        asking.start()
        asking.join(0.5)
        assert asking.is_alive(), f"the listing did not wait for the registration: {answer}"
        commondir.write_text(kept)
    asking.join(30)
    assert answer == {"found": tmp_path / "wt"}, answer
