"""A ref lock left by a writer killed mid-write (SIGKILL inside libgit2's ref update) is removed
once it is older than any live write, so the ref can move again: found by a fanout runner killed
while it wrote a task's merge candidate (`refs/wtc/<run>/candidate/<task>.lock`), after which that
task could never merge and went to the lead as an internal error."""

from __future__ import annotations

import os
import threading
import time

import pygit2

from tests.conftest import make_repo, wtc
from worktree_coord.gitrepo import GitRepo
from worktree_coord.gitrepo.refs import STALE_REF_LOCK_SECONDS, compare_and_swap, read_ref


def _stale(lock, age: float = STALE_REF_LOCK_SECONDS + 5) -> None:
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.write_text("")
    then = time.time() - age
    os.utime(lock, (then, then))


def test_a_private_ref_moves_past_a_lock_a_killed_writer_left(tmp_path):
    git = GitRepo(make_repo(tmp_path / "repo", {"a.txt": "1\n"}))
    head = str(git.repo.head.target)
    lock = git.common_dir / "refs/wtc/r1/candidate/t1.lock"
    _stale(lock)
    git.set_ref("refs/wtc/r1/candidate/t1", head, "candidate")
    assert str(read_ref(git.repo, "refs/wtc/r1/candidate/t1")) == head
    assert not lock.exists()


def test_a_fresh_lock_is_a_live_writer_waited_for_not_removed(tmp_path):
    git = GitRepo(make_repo(tmp_path / "repo", {"a.txt": "1\n"}))
    head = str(git.repo.head.target)
    lock = git.common_dir / "refs/wtc/r1/candidate/t1.lock"
    _stale(lock, age=0)
    removed_by_writer = []

    def writer_ends() -> None:
        time.sleep(0.5)
        removed_by_writer.append(lock.exists())
        lock.unlink()

    threading.Thread(target=writer_ends).start()
    git.set_ref("refs/wtc/r1/candidate/t1", head, "candidate")
    assert removed_by_writer == [True], "the ref moved while a live writer held its lock"


def test_compare_and_swap_moves_past_a_stale_lock_and_still_compares(tmp_path):
    git = GitRepo(make_repo(tmp_path / "repo", {"a.txt": "1\n"}))
    head = git.repo.head.target
    ref = "refs/heads/wtc/r1/integration"
    compare_and_swap(git.repo, ref, head, None, message="create")
    _stale(git.common_dir / f"{ref}.lock")
    empty = git.repo.create_commit(None, git.repo.default_signature, git.repo.default_signature, "next",
                                   git.repo[head].peel(pygit2.Commit).tree_id, [head])
    compare_and_swap(git.repo, ref, empty, head, message="next", timeout=5)
    assert read_ref(git.repo, ref) == empty


def test_a_verified_finish_merges_past_a_candidate_lock_a_killed_runner_left(tmp_path):
    repo = make_repo(tmp_path / "repo", {"README.md": "# r\n"})
    assert wtc(repo, "run", "start", "--run", "r1")[0] == 0
    code, started = wtc(repo, "task", "start", "t1", "--run", "r1", "--own", "pkg/**")
    (tmp_path / "repo" / started["worktree"] / "pkg").mkdir(parents=True)
    (tmp_path / "repo" / started["worktree"] / "pkg" / "x.txt").write_text("x\n")
    _stale(repo / ".git/refs/wtc/r1/candidate/t1.lock")
    code, finished = wtc(repo, "task", "finish", "t1", "--run", "r1", "--verify", "true")
    assert code == 0 and finished["state"] == "merged", finished


def test_a_run_starts_past_an_integration_lock_a_killed_start_left(tmp_path):
    repo = make_repo(tmp_path / "repo", {"README.md": "# r\n"})
    _stale(repo / ".git/refs/heads/wtc/r1/integration.lock")
    code, started = wtc(repo, "run", "start", "--run", "r1")
    assert code == 0, started
    assert (repo / ".git/refs/heads/wtc/r1/integration").exists()
