"""A call killed while git holds one of its lock files, then run again with the same key, ends with
the task's real state (docs/architecture.md, "Locks a killed git leaves").

The kills are real: a `reference-transaction` hook runs inside git while git holds the locks of a ref
update (state `prepared`: the branch's `.lock`, and for a commit the worktree's index.lock and
HEAD.lock), and SIGKILLs the whole process group there (wtc, git, the hook), as a harness's kill of an
agent's group does. A hook that waits instead stands for a git still running when the repeat comes:
its lock must never be removed under it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import git, make_repo, write, wtc_in_process

WTC = [sys.executable, "-m", "worktree_coord"]

KILL_GROUP = """#!/bin/sh
# SIGKILL this process group while git holds the locks of the transaction naming the ref
input=$(cat)
if [ "$1" = prepared ] && printf '%s\\n' "$input" | grep -q " {ref}$"; then
  kill -9 -$(ps -o pgid= $$ | tr -d ' ')
fi
exit 0
"""

WAIT_FOR_RELEASE = """#!/bin/sh
# hold the transaction naming the ref (its locks taken) until {release} exists
input=$(cat)
if [ "$1" = prepared ] && printf '%s\\n' "$input" | grep -q " {ref}$"; then
  touch {reached}
  while [ ! -f {release} ]; do sleep 0.05; done
fi
exit 0
"""


def hook(repo: Path, text: str) -> Path:
    path = repo / ".git" / "hooks" / "reference-transaction"
    path.write_text(text)
    path.chmod(0o755)
    return path


def killed(repo: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    """`wtc ARGS` in a process group of its own (no warm server), which the hook kills."""
    return subprocess.run(WTC + list(args) + ["--json"], cwd=repo, capture_output=True, start_new_session=True,
                          env=dict(os.environ, WTC_NO_SERVE="1"), timeout=120)


def locks(repo: Path) -> list[str]:
    return sorted(str(p.relative_to(repo / ".git")) for p in (repo / ".git").rglob("*.lock"))


@pytest.fixture
def started_run(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path / "repo")
    assert wtc_in_process(repo, "run", "start", "--run", "r1")[0] == 0
    return repo


def test_a_start_killed_while_git_creates_the_branch_is_started_by_its_repeat(started_run: Path) -> None:
    """The swarm's warm-path sweep: `git worktree add -b` killed with its group left
    refs/heads/wtc/stress/t0001.lock, and the repeat answered exit 4 git_locked ("remove it and
    retry") every time: the task stayed started with no worktree."""
    repo = started_run
    hook(repo, KILL_GROUP.format(ref="refs/heads/wtc/r1/t"))
    done = killed(repo, "task", "start", "t", "--run", "r1", "--own", "packages/api/**", "--key", "k1")
    assert done.returncode == -signal.SIGKILL, done
    assert locks(repo) == ["refs/heads/wtc/r1/t.lock"]
    (repo / ".git/hooks/reference-transaction").unlink()

    code, body = wtc_in_process(repo, "task", "start", "t", "--run", "r1", "--own", "packages/api/**", "--key", "k1")
    assert code == 0, body
    worktree = Path(body["worktree"])
    assert (worktree / "packages/api/index.js").is_file() and git(worktree, "status", "--porcelain") == ""
    assert locks(repo) == []
    assert any("refs/heads/wtc/r1/t.lock" in note and "killed git" in note for note in body["notes"]), body["notes"]
    write(worktree, {"packages/api/index.js": "export const api = 2;\n"})
    code, body = wtc_in_process(repo, "task", "finish", "t", "--run", "r1")
    assert (code, body["state"]) == (0, "merged"), body


def test_a_start_whose_git_outlived_its_killed_call_waits_for_it_and_never_removes_its_lock(
        started_run: Path, tmp_path: Path) -> None:
    """Only the wtc process is killed (the agent's harness killed the call, not its group): its
    `git worktree add -b` runs on, holding the branch's lock. The repeat must wait for that git (it
    holds the registration lock it inherited), leave its lock alone, and then build the worktree."""
    repo = started_run
    reached, release = tmp_path / "reached", tmp_path / "release"
    hook(repo, WAIT_FOR_RELEASE.format(ref="refs/heads/wtc/r1/t", reached=reached, release=release))
    first = subprocess.Popen(WTC + ["task", "start", "t", "--run", "r1", "--own", "packages/api/**", "--json"],
                             cwd=repo, env=dict(os.environ, WTC_NO_SERVE="1"), stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not reached.exists():
        assert time.monotonic() < deadline and first.poll() is None, "the first start never reached its branch"
        time.sleep(0.05)
    first.kill()
    first.wait()
    lock = repo / ".git/refs/heads/wtc/r1/t.lock"
    assert lock.exists()

    repeat = subprocess.Popen(WTC + ["task", "start", "t", "--run", "r1", "--own", "packages/api/**", "--json"],
                              cwd=repo, env=dict(os.environ, WTC_NO_SERVE="1"), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    time.sleep(3)
    assert repeat.poll() is None, "the repeat did not wait for the git still running"
    assert lock.exists(), "the lock of a live git was removed"
    release.touch()
    out, err = repeat.communicate(timeout=120)
    assert repeat.returncode == 0, (out, err)
    worktree = repo / ".wtc/worktrees/r1/t"
    assert (worktree / "packages/api/index.js").is_file() and git(worktree, "status", "--porcelain") == ""
    assert locks(repo) == []


def two_tasks_b_behind(repo: Path) -> Path:
    """Tasks a and b started; a merged (integration moved); b's worktree holds an edit."""
    for task, own in (("a", "packages/api/**"), ("b", "packages/web/**")):
        assert wtc_in_process(repo, "task", "start", task, "--run", "r1", "--own", own)[0] == 0
    write(repo / ".wtc/worktrees/r1/a", {"packages/api/index.js": "export const api = 2;\n"})
    assert wtc_in_process(repo, "task", "finish", "a", "--run", "r1")[1]["state"] == "merged"
    worktree = repo / ".wtc/worktrees/r1/b"
    write(worktree, {"packages/web/index.js": "export const web = 3;\n"})
    return worktree


def test_a_finish_killed_inside_its_commit_finishes_on_its_repeat(started_run: Path) -> None:
    """The commit's git killed with its group holds the branch's lock and the worktree's HEAD.lock:
    the repeat (the same key) removed neither for two minutes (exit 4 meanwhile)."""
    repo = started_run
    worktree = two_tasks_b_behind(repo)
    hook(repo, KILL_GROUP.format(ref="refs/heads/wtc/r1/b"))
    done = killed(repo, "task", "finish", "b", "--run", "r1", "--key", "f1")
    assert done.returncode == -signal.SIGKILL, done
    assert locks(repo) == ["refs/heads/wtc/r1/b.lock", "worktrees/b/HEAD.lock"]
    (repo / ".git/hooks/reference-transaction").unlink()

    code, body = wtc_in_process(repo, "task", "finish", "b", "--run", "r1", "--key", "f1")
    assert (code, body["state"]) == (0, "merged"), body
    assert locks(repo) == []
    assert sum("killed git" in note for note in body["notes"]) >= 2, body["notes"]
    assert git(repo, "show", "wtc/r1/integration:packages/web/index.js") == "export const web = 3;"
    assert not worktree.exists()


def test_an_update_killed_inside_its_merge_updates_on_its_repeat(started_run: Path) -> None:
    """`task update`'s merge in the worktree killed with its group: its repeat committed nothing
    and answered exit 4 git_locked, "remove it and retry", every time (update cleared no lock)."""
    repo = started_run
    worktree = two_tasks_b_behind(repo)
    git(worktree, "add", "-A")
    git(worktree, "-c", "user.name=b", "-c", "user.email=b@x", "commit", "-qm", "b's work")
    hook(repo, KILL_GROUP.format(ref="refs/heads/wtc/r1/b"))
    done = killed(repo, "task", "update", "b", "--run", "r1", "--key", "u1")
    assert done.returncode == -signal.SIGKILL, done
    assert "refs/heads/wtc/r1/b.lock" in locks(repo), locks(repo)
    (repo / ".git/hooks/reference-transaction").unlink()

    code, body = wtc_in_process(repo, "task", "update", "b", "--run", "r1", "--key", "u1")
    assert code == 0, body
    assert locks(repo) == []
    assert any("killed git" in note for note in body["notes"]), body["notes"]
    assert (worktree / "packages/api/index.js").read_text() == "export const api = 2;\n"   # a's merge came in
    code, body = wtc_in_process(repo, "task", "finish", "b", "--run", "r1")
    assert (code, body["state"]) == (0, "merged"), body


def test_a_worktree_lock_a_live_git_may_hold_is_busy_and_kept(started_run: Path, monkeypatch) -> None:
    """Two processes: a git still working in the task's worktree (the agent's, or a killed call's
    that runs on) may hold its index.lock: the finish waits a moment, then answers busy naming it,
    and leaves the lock; once that git ends, the same finish removes the lock and merges."""
    from worktree_coord.coordinator import tasks

    monkeypatch.setattr(tasks, "OWN_LOCK_WAIT_SECONDS", 0.5)
    repo = started_run
    worktree = two_tasks_b_behind(repo)
    lock = repo / ".git/worktrees/b/index.lock"
    lock.touch()
    agent_git = subprocess.Popen(["git", "cat-file", "--batch"], cwd=worktree / "packages",
                                 stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    try:     # (Popen returns once git runs: its folder is the worktree's from then on)
        code, body = wtc_in_process(repo, "task", "finish", "b", "--run", "r1")
        assert (code, body["error"]["kind"]) == (4, "busy"), body
        assert str(agent_git.pid) in body["error"]["message"] and str(lock) in body["error"]["message"]
        assert lock.exists()
    finally:
        agent_git.communicate(b"")
    code, body = wtc_in_process(repo, "task", "finish", "b", "--run", "r1")
    assert (code, body.get("state")) == (0, "merged"), body["error"]["message"]
    assert not lock.exists() and any(str(lock) in note for note in body["notes"])


def test_a_lock_younger_than_a_libgit2_write_is_waited_out_then_removed(started_run: Path) -> None:
    """No git works in the worktree, but the lock was made a moment ago (an in-process libgit2
    writer has no git process to see): the finish waits until it is older than any such write."""
    repo = started_run
    two_tasks_b_behind(repo)
    lock = repo / ".git/worktrees/b/HEAD.lock"
    lock.write_text("0" * 40 + "\n")
    code, body = wtc_in_process(repo, "task", "finish", "b", "--run", "r1")
    assert (code, body["state"]) == (0, "merged"), body
    assert not lock.exists() and any(str(lock) in note for note in body["notes"])


def holding_open(lock: Path) -> subprocess.Popen[bytes]:
    """Another live process with `lock` open, as a git or libgit2 writer has while it holds it."""
    lock.parent.mkdir(parents=True, exist_ok=True)
    holder = subprocess.Popen([sys.executable, "-c", "import sys; f = open(sys.argv[1], 'a'); print(flush=True); "
                               "sys.stdin.read()", str(lock)], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert holder.stdout is not None and holder.stdout.readline() == b"\n"
    return holder


def aged(lock: Path, seconds: float = 3600) -> None:
    old = time.time() - seconds
    os.utime(lock, (old, old))


def test_an_integration_ref_lock_is_removed_only_when_stale_and_open_in_no_process(started_run: Path) -> None:
    """Two processes: the integration ref's lock open in a live writer is never removed, however
    old (the compare-and-swap waits, then answers busy); once nobody has it open, the next move
    removes it (it is older than any live write) with a warning, and moves the ref."""
    import pygit2

    from worktree_coord.errors import BusyError
    from worktree_coord.gitrepo import git_locks
    from worktree_coord.gitrepo.refs import compare_and_swap

    repo = started_run
    ref = "refs/heads/wtc/r1/integration"
    lock = repo / ".git" / f"{ref}.lock"
    handle = pygit2.Repository(str(repo))
    tip = handle.references[ref].target
    new = handle.create_commit(None, handle[tip].author, handle[tip].author, "next", handle[tip].tree_id, [tip])
    holder = holding_open(lock)
    try:
        aged(lock)
        with pytest.raises(BusyError):
            compare_and_swap(handle, ref, new, tip, message="test", timeout=0.5)
        assert lock.exists() and git_locks.warnings_given() == []
    finally:
        holder.communicate(b"")
    compare_and_swap(handle, ref, new, tip, message="test", timeout=0.5)
    assert handle.references[ref].target == new and not lock.exists()
    assert [str(lock) in warning for warning in git_locks.warnings_given()] == [True]


def test_a_merge_that_removes_a_stale_integration_lock_warns_on_stderr(started_run: Path) -> None:
    """The command that removed a shared lock says so: stderr names the file (stdout stays the one
    JSON object)."""
    repo = started_run
    assert wtc_in_process(repo, "task", "start", "a", "--run", "r1", "--own", "packages/api/**")[0] == 0
    write(repo / ".wtc/worktrees/r1/a", {"packages/api/index.js": "export const api = 2;\n"})
    assert wtc_in_process(repo, "task", "finish", "a", "--run", "r1", "--no-merge")[0] == 0
    lock = repo / ".git/refs/heads/wtc/r1/integration.lock"
    lock.touch()
    aged(lock)
    done = subprocess.run(WTC + ["merge", "--run", "r1", "--json"], cwd=repo, capture_output=True, text=True,
                          env=dict(os.environ, WTC_NO_SERVE="1"), timeout=120)
    assert done.returncode == 0, done.stderr
    assert "wtc: warning: removed " + str(lock) in done.stderr and "killed git" in done.stderr
    assert not lock.exists()
    assert git(repo, "show", "wtc/r1/integration:packages/api/index.js") == "export const api = 2;"


def test_packed_refs_lock_is_removed_when_stale_and_kept_while_a_live_process_holds_it(started_run: Path) -> None:
    """Two processes: packed-refs.lock (every ref deletion takes it) open in a live git is kept, and
    the deletion waits for it as git does, then fails; a stale one (old, open nowhere: a killed `git
    update-ref -d`) is removed with a warning and the deletion done."""
    from worktree_coord.gitrepo import GitRepo, git_locks

    repo = started_run
    git(repo, "branch", "doomed")
    lock = repo / ".git/packed-refs.lock"
    gitrepo = GitRepo(repo)
    holder = holding_open(lock)
    try:
        aged(lock)
        assert gitrepo.delete_ref("refs/heads/doomed") is False
        assert lock.exists() and git_locks.warnings_given() == []
        assert "packed-refs.lock" not in " ".join(gitrepo.stale_ref_locks(older_than=60, dry_run=True))
    finally:
        holder.communicate(b"")
    assert gitrepo.stale_ref_locks(older_than=60, dry_run=True) == ["packed-refs.lock"]
    assert gitrepo.delete_ref("refs/heads/doomed") is True
    assert not lock.exists() and git(repo, "branch", "--list", "doomed") == ""
    assert [str(lock) in warning for warning in git_locks.warnings_given()] == [True]


@pytest.mark.parametrize("left", ["config.worktree.lock", "info/sparse-checkout.lock"])
def test_a_widen_killed_in_its_sparse_checkout_set_widens_on_its_repeat(started_run: Path, left: str) -> None:
    """`git sparse-checkout set` killed with its group leaves the worktree's config.worktree.lock or
    info/sparse-checkout.lock: the repeat answered git_locked, and for the first its fix said to
    remove the worktree's config.worktree itself (git names the config file, not its lock)."""
    repo = started_run
    code, body = wtc_in_process(repo, "task", "start", "t", "--run", "r1", "--own", "packages/api/**", "--sparse")
    assert code == 0, body
    worktree = Path(body["worktree"])
    assert not (worktree / "packages/web").exists()
    lock = repo / ".git/worktrees/t" / left
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.write_text("")
    code, body = wtc_in_process(repo, "task", "widen", "t", "--run", "r1", "--own", "packages/web/**",
                                "--why", "shared", "--key", "w1")
    assert code == 0, body
    assert (worktree / "packages/web/index.js").is_file() and not lock.exists()
    assert (repo / ".git/worktrees/t/config.worktree").is_file()
    assert any(str(lock) in note for note in body["notes"]), body["notes"]


def test_a_land_killed_inside_the_checkouts_fast_forward_lands_on_a_repeat_once_its_locks_are_stale(
        started_run: Path) -> None:
    """The target is checked out: land's `git merge --ff-only` killed with its group wrote the
    checkout's files and index but left HEAD.lock and main.lock, HEAD at the old tip. The repeat
    answered exit 2 "commit or stash the changes", which would commit the landed files on the old
    tip. The checkout's locks are the user's too (shared): busy while fresh, removed with a warning
    once stale and open in no process, and the land completes."""
    repo = started_run
    assert wtc_in_process(repo, "task", "start", "a", "--run", "r1", "--own", "packages/api/**")[0] == 0
    write(repo / ".wtc/worktrees/r1/a", {"packages/api/index.js": "export const api = 2;\n"})
    assert wtc_in_process(repo, "task", "finish", "a", "--run", "r1")[1]["state"] == "merged"
    before, tip = git(repo, "rev-parse", "main"), git(repo, "rev-parse", "wtc/r1/integration")
    hook(repo, KILL_GROUP.format(ref="refs/heads/main"))
    done = killed(repo, "land", "--run", "r1", "--onto", "main", "--yes", "--key", "l1")
    assert done.returncode == -signal.SIGKILL, done
    assert locks(repo) == ["HEAD.lock", "refs/heads/main.lock"]
    (repo / ".git/hooks/reference-transaction").unlink()

    code, body = wtc_in_process(repo, "land", "--run", "r1", "--onto", "main", "--yes", "--key", "l1")
    assert (code, body["error"]["kind"]) == (4, "git_locked"), body
    assert str(repo / ".git/HEAD.lock") in body["error"]["fix"] and "commit or stash" not in body["error"]["fix"]
    assert git(repo, "rev-parse", "main") == before
    for lock in locks(repo):
        aged(repo / ".git" / lock)
    done = subprocess.run(WTC + ["land", "--run", "r1", "--onto", "main", "--yes", "--key", "l1", "--json"], cwd=repo,
                          capture_output=True, text=True, env=dict(os.environ, WTC_NO_SERVE="1"), timeout=120)
    assert done.returncode == 0, (done.stdout, done.stderr)
    assert git(repo, "rev-parse", "main") == tip and git(repo, "status", "--porcelain") == ""
    assert locks(repo) == [] and done.stderr.count("wtc: warning: removed ") == 2, done.stderr


def test_a_merge_killed_while_its_compare_and_swap_holds_the_integration_lock_merges_on_its_repeat(
        started_run: Path, monkeypatch) -> None:
    """The integration ref is shared (every finish's merge moves it by its own compare-and-swap), so
    its lock is removed only once older than any live write and open in no process: the repeat waits
    that out (STALE_REF_LOCK_SECONDS, shortened here) and merges."""
    from worktree_coord.gitrepo import refs

    monkeypatch.setattr(refs, "STALE_REF_LOCK_SECONDS", 0.5)
    repo = started_run
    assert wtc_in_process(repo, "task", "start", "a", "--run", "r1", "--own", "packages/api/**")[0] == 0
    write(repo / ".wtc/worktrees/r1/a", {"packages/api/index.js": "export const api = 2;\n"})
    assert wtc_in_process(repo, "task", "finish", "a", "--run", "r1", "--no-merge")[0] == 0
    tip = git(repo, "rev-parse", "wtc/r1/integration")
    done = subprocess.run(WTC + ["merge", "--run", "r1", "--key", "m1", "--json"], cwd=repo, capture_output=True,
                          env=dict(os.environ, WTC_NO_SERVE="1", WTC_CRASH_AT="ref.locked"), timeout=120)
    assert done.returncode == -signal.SIGKILL, done
    assert locks(repo) == ["refs/heads/wtc/r1/integration.lock"]
    assert git(repo, "rev-parse", "wtc/r1/integration") == tip

    code, body = wtc_in_process(repo, "merge", "--run", "r1", "--key", "m1")
    assert code == 0 and [row["state"] for row in body["tasks"]] == ["merged"], body
    assert locks(repo) == []
    assert git(repo, "show", "wtc/r1/integration:packages/api/index.js") == "export const api = 2;"
