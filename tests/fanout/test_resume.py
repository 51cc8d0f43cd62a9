"""Stopping `wtc fanout` and running it again: Ctrl-C and SIGTERM stop every agent (their process
groups) and answer exit 130; SIGKILL of the runner at random moments leaves its agents running, and
the next runner adopts them. Either way, the resumed run ends with every task merged, no agent that
ended run again (the stand-in's runs counted per task), none begun after its task merged."""

from __future__ import annotations

import random
import signal
import time
from pathlib import Path

import pytest

from tests.conftest import git, make_repo
from tests.fanout.helpers import count, fanout, parse, runs, standins_alive, start_fanout, task, wait_for, write_plan
from worktree_coord.coordinator import Coordinator


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"README.md": "# r\n", "pkg/keep.txt": "keep\n"})


def merge_times(repo: Path, run: str) -> dict[str, float]:
    with Coordinator(repo) as coordinator:
        return {e["task_id"]: e["at"] for e in coordinator.store.events(run) if e["kind"] == "task.merged"}


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_stopped_runner_stops_its_agents_and_resumes_without_counting_them_as_attempts(repo, tmp_path, sig):
    log = tmp_path / "standin.log"
    release = tmp_path / "release"          # the agents wait for it: the stop always finds them running
    plan = write_plan(tmp_path / "plan.json", [task(f"t{i}", f"append pkg/t{i}/runs.txt run", f"wait-file {release}",
                                                    f"write pkg/t{i}/x.txt {i}") for i in range(4)],
                      concurrency=2, attempts=1)
    runner = start_fanout(repo, plan, "r1", log=log)
    wait_for(lambda: len(count(log)) == 2, what="two agents running")
    runner.send_signal(sig)
    out, err = runner.communicate(timeout=60)
    code, events, summary = parse(runner.returncode, out, err)

    assert code == 130 and summary["stopped"] == "interrupted", (out, err)
    assert any(e["event"] == "stopping" for e in events)
    assert standins_alive(log) == []                 # every agent's process group was stopped
    stopped = {t["task"] for t in summary["tasks"] if t["outcome"] == "stopped"}
    assert stopped == {"t0", "t1", "t2", "t3"} and count(log, "end") == {}
    first = set(count(log))
    assert len(first) == 2
    assert git(repo, "ls-tree", "-r", "--name-only", "wtc/r1/integration") == "README.md\npkg/keep.txt"
    for name in first:                               # what a stopped agent wrote stays, uncommitted
        worktree = repo / ".wtc/worktrees/r1" / name
        assert git(worktree, "status", "--porcelain") == f"?? pkg/{name}/"

    # Again: the stopped agents run again (attempts=1, yet not used up: a stop is not an attempt).
    release.touch()
    code, _, summary = fanout(repo, plan, "r1", log=log)
    assert code == 0, summary
    assert {t["task"]: t["outcome"] for t in summary["tasks"]} == {f"t{i}": "merged" for i in range(4)}
    assert all(t["attempts_used"] == 1 for t in summary["tasks"])
    assert count(log, "end") == {f"t{i}": 1 for i in range(4)}
    assert count(log) == {f"t{i}": 2 if f"t{i}" in first else 1 for i in range(4)}
    for i in range(4):                               # the run again continued from that work
        runs_file = git(repo, "show", f"wtc/r1/integration:pkg/t{i}/runs.txt").splitlines()
        assert runs_file == ["run"] * (2 if f"t{i}" in first else 1)
    again = (repo / f".git/wtc/fanout/r1/{sorted(first)[0]}/run-2.prompt.md").read_text()
    assert "an earlier run of this attempt was stopped before it ended" in again


def test_a_runner_killed_at_random_moments_resumes_losing_nothing_and_rerunning_no_finished_agent(repo, tmp_path):
    log = tmp_path / "standin.log"
    shuffle = random.Random(37)
    tasks = [task(f"t{i}", f"sleep {shuffle.choice([0.2, 0.6, 1.2])}", f"write pkg/t{i}/x.txt {i}") for i in range(12)]
    tasks.append(task("late", "require pkg/t3/x.txt", "write pkg/late/x.txt after t3", depends_on=["t3"]))
    plan = write_plan(tmp_path / "plan.json", tasks, concurrency=4)
    kills = 0
    for _ in range(4):
        runner = start_fanout(repo, plan, "r1", log=log)
        time.sleep(shuffle.uniform(0.8, 3.0))
        if runner.poll() is not None:
            break
        runner.kill()                       # SIGKILL: no handler runs, its agents keep running
        runner.wait(timeout=60)
        kills += 1
    assert kills >= 2, "the runner ended before it could be killed twice: make the plan longer"
    code, events, summary = fanout(repo, plan, "r1", log=log)
    assert code == 0, summary
    assert {t["outcome"] for t in summary["tasks"]} == {"merged"}

    names = [t["name"] for t in tasks]
    # Each agent ran exactly once: one that was running when its runner died was adopted (waited
    # for) by the next runner, never started a second time beside or after it.
    assert count(log) == dict.fromkeys(names, 1) and count(log, "end") == dict.fromkeys(names, 1)
    merged = merge_times(repo, "r1")
    assert set(merged) == set(names)
    for line in runs(log):
        assert line["at"] < merged[line["task"]], f"{line['task']} began after it merged"
    files = git(repo, "ls-tree", "-r", "--name-only", "wtc/r1/integration").splitlines()
    assert [f for f in files if f.startswith("pkg/t")] == sorted(f"pkg/t{i}/x.txt" for i in range(12))
    assert git(repo, "show", "wtc/r1/integration:pkg/late/x.txt") == "after t3"


def test_an_agent_killed_by_someone_else_is_a_failed_attempt_and_is_repaired(repo, tmp_path):
    import os

    log = tmp_path / "standin.log"
    plan = write_plan(tmp_path / "plan.json", [task("victim", "@1 sleep 30", "write pkg/victim/x.txt ok")])
    runner = start_fanout(repo, plan, "r1", log=log)
    wait_for(lambda: count(log).get("victim") == 1, what="the agent running")
    os.kill(runs(log)[0]["pid"], signal.SIGKILL)            # the agent alone, not its runner
    out, err = runner.communicate(timeout=120)
    code, events, summary = parse(runner.returncode, out, err)
    assert code == 0, (out, err)
    [victim] = summary["tasks"]
    assert victim["outcome"] == "merged" and victim["attempts_used"] == 2
    ended = [e for e in events if e["event"] == "agent.end"]
    assert ended[0]["exit_code"] == 137 and ended[1]["exit_code"] == 0     # 128 + SIGKILL, then the repair


def test_a_second_runner_on_the_same_run_is_refused_as_busy(repo, tmp_path):
    log = tmp_path / "standin.log"
    release = tmp_path / "release"
    plan = write_plan(tmp_path / "plan.json", [task("slow", f"wait-file {release}", "write pkg/slow/x.txt ok")])
    first = start_fanout(repo, plan, "r1", log=log)
    wait_for(lambda: count(log).get("slow") == 1, what="the first runner's agent")
    code, _, error = fanout(repo, plan, "r1", log=log)
    release.touch()                                    # the first runner's agent may end now
    assert code == 4 and error["schema"] == "wtc.error/1"
    assert "another `wtc fanout` is driving run 'r1'" in error["error"]["message"]
    out, err = first.communicate(timeout=120)
    assert first.returncode == 0, (out, err)
    assert count(log) == {"slow": 1}


def test_a_runner_killed_as_it_stops_an_agent_at_its_timeout_counts_that_run_as_an_attempt(repo, tmp_path):
    # Found by scripts/stress_fanout.py: the next runner took the stopped run for one that never
    # ended and ran attempt 1 again (a hanging agent's timeout paid twice) instead of the repair.
    log = tmp_path / "standin.log"
    plan = write_plan(tmp_path / "plan.json", [task("slow", "@1 hang", "write pkg/slow/x.txt ok", timeout=1)])
    code, _, _ = fanout(repo, plan, "r1", log=log, env={"WTC_CRASH_AT": "fanout.after_timeout_stop"})
    assert code == -signal.SIGKILL
    code, events, summary = fanout(repo, plan, "r1", log=log)
    assert code == 0, summary
    begun = [(line["attempt"], line["repair"]) for line in runs(log) if line["event"] == "begin"]
    assert begun == [(1, False), (2, True)]
    assert summary["tasks"][0]["attempts_used"] == 2
    assert "ran past its timeout of 1 s" in (repo / ".git/wtc/fanout/r1/slow/run-2.prompt.md").read_text()
