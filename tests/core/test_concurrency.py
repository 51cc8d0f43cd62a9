"""Many real `wtc` processes at once: creation races, one key used by many callers, and crashes.

These run the real command line in parallel processes against one repository, as 16-64 agents do.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import git, write, wtc

WTC = [sys.executable, "-m", "worktree_coord"]


def spawn_all(cwd: Path, commands: list[list[str]], env: dict[str, str] | None = None) -> list[tuple[int, dict]]:
    """Start every command at once, wait for all; return (exit code, parsed JSON) per command."""
    full_env = dict(os.environ, **(env or {}))
    procs = [subprocess.Popen(WTC + args + ["--json"], cwd=cwd, env=full_env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for args in commands]
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        lines = [line for line in out.splitlines() if line.strip()]
        results.append((proc.returncode, json.loads(lines[0]) if len(lines) == 1 else {"raw": out, "stderr": err}))
    return results


@pytest.mark.heavy
def test_32_concurrent_task_starts_on_different_tasks_all_succeed(repo):
    assert wtc(repo, "run", "start", "--run", "r1")[0] == 0
    commands = [["task", "start", f"t{i:02d}", "--run", "r1", "--own", f"packages/p{i:02d}/**",
                 *(["--sparse"] if i % 2 else [])] for i in range(32)]
    results = spawn_all(repo, commands)
    failures = [r for r in results if r[0] != 0]
    assert not failures, failures[:3]
    worktrees = git(repo, "worktree", "list", "--porcelain").count("worktree ")
    assert worktrees == 33
    base = git(repo, "rev-parse", "HEAD")
    for code, body in results:
        assert git(Path(body["worktree"]), "rev-parse", "HEAD") == base
    assert not list((repo / ".git").rglob("*.lock")), "no lock file left behind"


@pytest.mark.heavy
def test_16_identical_calls_with_one_key_make_one_worktree_and_one_commit(repo):
    assert wtc(repo, "run", "start", "--run", "r1")[0] == 0
    starts = spawn_all(repo, [["task", "start", "t", "--run", "r1", "--own", "packages/api/**", "--key", "k-start"]] * 16)
    assert {code for code, _ in starts} == {0}
    assert len({body["worktree"] for _, body in starts}) == 1
    # One call made the task; the other 15 answer its state then (a start is never replayed: a repeat
    # after the task merged must not hand out the worktree its finish removed).
    assert sum(body["existing"] for _, body in starts) == 15
    assert git(repo, "worktree", "list", "--porcelain").count("worktree ") == 2
    write(Path(starts[0][1]["worktree"]), {"packages/api/index.js": "changed once\n"})
    finishes = spawn_all(repo, [["task", "finish", "t", "--run", "r1", "--key", "k-finish"]] * 16)
    assert {code for code, _ in finishes} == {0}
    assert len({body["commit"] for _, body in finishes}) == 1
    base = git(repo, "rev-parse", "HEAD")
    assert git(repo, "rev-list", "--count", f"{base}..wtc/r1/t") == "1"


def test_same_key_with_a_different_request_exits_2_and_says_why(repo):
    wtc(repo, "run", "start", "--run", "r1")
    assert wtc(repo, "task", "start", "t", "--run", "r1", "--own", "packages/api/**", "--key", "k")[0] == 0
    code, body = wtc(repo, "task", "start", "u", "--run", "r1", "--own", "packages/web/**", "--key", "k")
    assert code == 2
    assert body["error"]["kind"] == "idempotency_mismatch"
    assert "different request" in body["error"]["message"]


def test_kill_between_commit_and_state_update_then_retry(repo):
    wtc(repo, "run", "start", "--run", "r1")
    _, started = wtc(repo, "task", "start", "t", "--run", "r1", "--own", "packages/api/**")
    wt = Path(started["worktree"])
    write(wt, {"packages/api/index.js": "work\n"})
    killed = subprocess.run(WTC + ["task", "finish", "t", "--run", "r1", "--json"], cwd=repo,
                            env=dict(os.environ, WTC_CRASH_AT="finish.after_commit"), capture_output=True)
    assert killed.returncode == -9
    base = git(repo, "rev-parse", "HEAD")
    assert git(repo, "rev-list", "--count", f"{base}..wtc/r1/t") == "1", "the commit was made before the kill"
    _, status = wtc(repo, "status", "--run", "r1")
    assert status["tasks"][0]["state"] == "started"
    code, retried = wtc(repo, "task", "finish", "t", "--run", "r1")
    assert code == 0 and retried["state"] == "merged" and retried["replayed"] is False
    assert git(repo, "rev-list", "--count", f"{base}..wtc/r1/t") == "1", "no second commit"
    assert not wt.exists()


def test_kill_after_recording_finish_then_retry_cleans_up(repo):
    wtc(repo, "run", "start", "--run", "r1")
    _, started = wtc(repo, "task", "start", "t", "--run", "r1", "--own", "packages/api/**")
    wt = Path(started["worktree"])
    write(wt, {"packages/api/index.js": "work\n"})
    killed = subprocess.run(WTC + ["task", "finish", "t", "--run", "r1", "--json"], cwd=repo,
                            env=dict(os.environ, WTC_CRASH_AT="finish.after_record"), capture_output=True)
    assert killed.returncode == -9 and wt.exists()
    code, retried = wtc(repo, "task", "finish", "t", "--run", "r1")
    assert code == 0 and retried["state"] == "merged"
    assert not wt.exists(), "the retry removed the worktree the crash left"


def test_kill_after_recording_start_then_retry_builds_the_worktree(repo):
    wtc(repo, "run", "start", "--run", "r1")
    killed = subprocess.run(WTC + ["task", "start", "t", "--run", "r1", "--own", "packages/api/**", "--json"],
                            cwd=repo, env=dict(os.environ, WTC_CRASH_AT="start.after_record"), capture_output=True)
    assert killed.returncode == -9
    code, started = wtc(repo, "task", "start", "t", "--run", "r1", "--own", "packages/api/**")
    assert code == 0
    assert git(Path(started["worktree"]), "rev-parse", "HEAD") == git(repo, "rev-parse", "HEAD")


def test_worktree_deleted_by_hand_is_rebuilt_on_start_and_finish_still_works(repo):
    import shutil

    wtc(repo, "run", "start", "--run", "r1")
    _, started = wtc(repo, "task", "start", "t", "--run", "r1", "--own", "packages/api/**", "--key", "a")
    wt = Path(started["worktree"])
    write(wt, {"packages/api/index.js": "one\n"})
    git(wt, "add", "-A")
    git(wt, "commit", "-q", "-m", "agent commit")
    shutil.rmtree(wt)
    code, again = wtc(repo, "task", "start", "t", "--run", "r1", "--own", "packages/api/**", "--key", "b")
    assert code == 0 and (wt / "packages/api/index.js").read_text() == "one\n", "recreated at the branch tip"
    code, finished = wtc(repo, "task", "finish", "t", "--run", "r1")
    assert code == 0 and finished["state"] == "merged"
