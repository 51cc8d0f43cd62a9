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
    try:
        time.sleep(0.2)
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
