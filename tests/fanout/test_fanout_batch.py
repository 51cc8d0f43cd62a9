"""`wtc fanout` with `[run] batch = N`: finishes only commit, the runner's drain merges the finished
tasks N at a time (verified once, a failing batch bisected), while agents still work; every way an
attempt goes wrong is repaired as when each finish merges itself (a failed verification in a drain
included), and a runner SIGKILLed as a batch lands, run again, loses no task and merges none twice."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import pytest

from tests.conftest import git, make_repo
from tests.fanout.helpers import count, fanout, task, write_plan
from tests.fanout.test_fanout_run import CHECK, mixed_plan
from worktree_coord.coordinator import Coordinator


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"README.md": "# r\n", "shared/config.txt": "value = 0\n",
                                         "check.py": CHECK, "pkg/keep.txt": "keep\n"})


def batched(plan: Path, batch: int) -> Path:
    import json

    body = json.loads(plan.read_text())
    body["run"]["batch"] = batch
    plan.write_text(json.dumps(body, indent=1))
    return plan


def test_a_batched_fanout_repairs_every_failure_and_merges_the_rest(repo, tmp_path):
    log = tmp_path / "standin.log"
    plan = batched(mixed_plan(tmp_path / "plan.json"), 4)
    code, events, summary = fanout(repo, plan, "r1", log=log)

    assert code == 1 and summary["exit_code"] == 1, summary       # one task needs the lead
    outcomes = {t["task"]: t for t in summary["tasks"]}
    assert {name for name, t in outcomes.items() if t["outcome"] == "merged"} == set(outcomes) - {"hopeless"}
    assert outcomes["hopeless"]["reason"] == "agent_failed"
    # No finish merged its task itself: each answered finished, and the drain merged it.
    assert {e["state"] for e in events if e["event"] == "finish"} <= {"finished", "rejected"}
    assert any(e["event"] == "drain" for e in events)
    repairs = {e["task"]: e["reason"] for e in events if e["event"] == "repair"}
    # The failed verification was found by a drain, and repaired as one found at finish is.
    assert repairs["verify"] == "failed_verification" and repairs["outside"] == "rejected"
    assert "conflict" in {repairs.get("collide-a"), repairs.get("collide-b")}

    tip = "wtc/r1/integration"
    assert sorted(git(repo, "show", f"{tip}:shared/config.txt").splitlines()) == ["value = a", "value = b"]
    assert git(repo, "show", f"{tip}:pkg/verify/v.txt") == "fixed"
    assert git(repo, "show", f"{tip}:pkg/dependent/x.txt") == "after clean-1"
    with Coordinator(repo) as coordinator:
        merged = [e for e in coordinator.store.events("r1") if e["kind"] == "task.merged"]
        assert sorted(e["task_id"] for e in merged) == sorted(set(outcomes) - {"hopeless"})
        assert all(e["data"]["verification"]["ok"] for e in merged)
    # The run's end removed its kept verification worktree.
    assert not (repo / ".wtc/worktrees/r1/.verify/kept").exists()

    before = count(log)
    code, events, again = fanout(repo, plan, "r1", log=log)
    assert code == 1 and again["agent_runs"] == 0 and count(log) == before


def test_a_runner_killed_as_a_batch_lands_loses_no_task_and_merges_none_twice(repo, tmp_path):
    log = tmp_path / "standin.log"
    names = [f"t{i}" for i in range(6)]
    plan = write_plan(tmp_path / "plan.json", [task(name, f"write pkg/{name}/x.txt {name}") for name in names],
                      concurrency=3, run={"verify": f"{sys.executable} check.py", "batch": 4})
    code, _, _ = fanout(repo, plan, "r1", log=log, env={"WTC_CRASH_AT": "merge.batch_advanced"})
    assert code == -signal.SIGKILL
    with Coordinator(repo) as coordinator:
        states = {t.task_id: t.state.value for t in coordinator.store.list_tasks("r1")}
    landed = git(repo, "ls-tree", "-r", "--name-only", "wtc/r1/integration")
    assert any(f"pkg/{n}/x.txt" in landed and states[n] == "finished" for n in names), (states, landed)

    code, events, summary = fanout(repo, plan, "r1", log=log)
    assert code == 0, summary
    assert {t["outcome"] for t in summary["tasks"]} == {"merged"}
    assert count(log) == dict.fromkeys(names, 1)                  # no agent ran twice
    tip = "wtc/r1/integration"
    assert [f for f in git(repo, "ls-tree", "-r", "--name-only", tip).splitlines() if f.startswith("pkg/t")] \
        == [f"pkg/{n}/x.txt" for n in names]
    subjects = git(repo, "log", "--format=%s", tip).splitlines()
    for name in names:   # each task merged by one merge commit
        assert sum(s == f"wtc: merge task {name} into run r1" for s in subjects) == 1, subjects
    with Coordinator(repo) as coordinator:
        merged = [e["task_id"] for e in coordinator.store.events("r1") if e["kind"] == "task.merged"]
    assert sorted(merged) == names
