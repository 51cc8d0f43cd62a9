"""The mixed plan at scale (tests/fanout/mixed.py): 48 tasks at concurrency 16, the runner SIGKILLed
twice and run again; every task ends as its kind must (merged, or left to the lead), each agent
begun exactly as often as its kind needs, none after its task merged. scripts/stress_fanout.py runs
the same with 200 tasks and more kills (figures in docs/fanout.md)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.conftest import git, make_repo
from tests.fanout.helpers import fanout, start_fanout, wait_for, write_plan, count
from tests.fanout.mixed import VERIFY, check, mixed_tasks
from worktree_coord.coordinator import Coordinator


@pytest.mark.heavy
def test_a_48_task_mixed_plan_at_concurrency_16_survives_two_kills_and_ends_as_planned(tmp_path):
    repo = make_repo(tmp_path / "repo", {"README.md": "# r\n", "pkg/keep.txt": "keep\n"})
    tasks, expected = mixed_tasks(48, seed=11)
    plan = write_plan(tmp_path / "plan.json", tasks, concurrency=16, run={"verify": VERIFY})
    log = tmp_path / "standin.log"
    for begun in (8, 30):                       # kill once early, once when many agents have run
        runner = start_fanout(repo, plan, "r1", log=log)
        wait_for(lambda: sum(count(log).values()) >= begun, timeout=240, what=f"{begun} agent runs")
        time.sleep(0.3)
        assert runner.poll() is None, "the runner ended before it was killed: make the plan longer"
        runner.kill()
        runner.wait(timeout=60)
    code, _, summary = fanout(repo, plan, "r1", log=log, timeout=600)
    assert code == 1 and summary["exit_code"] == 1          # the hopeless tasks are the lead's
    with Coordinator(repo) as coordinator:
        merged_at = {e["task_id"]: e["at"] for e in coordinator.store.events("r1") if e["kind"] == "task.merged"}
    assert check(summary, expected, log, merged_at) == []
    files = git(repo, "ls-tree", "-r", "--name-only", "wtc/r1/integration").splitlines()
    merged = [name for name, want in expected.items() if want.outcome == "merged" and want.kind != "collide"]
    assert all(f"pkg/{name}/x.txt" in files for name in merged)
    assert not any(f.startswith("pkg/elsewhere-") for f in files)       # every step outside was undone
