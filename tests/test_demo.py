"""`wtc demo` on a fresh scratch repository: every agent ends as the plan says."""

from __future__ import annotations

from tests.conftest import git
from worktree_coord.demo import DEMO_TASKS, run_demo, surprises


def test_demo_fans_out_and_every_task_ends_as_planned(tmp_path):
    report = run_demo(tmp_path, parallel=4)
    assert len(report.agents) == len(DEMO_TASKS) >= 8
    assert surprises(report) == []
    by_task = {a["task"]: a for a in report.agents}
    rogue = by_task["ui-rogue"]["finish"]
    assert rogue["state"] == "rejected" and rogue["violations"][0]["path"] == "docs/index.md"
    assert [r["path"] for r in by_task["api-lodash"]["finish"]["reserved"]] == ["package.json"]
    assert any(o["task"] for o in by_task["api-metrics"]["start"]["overlaps"]) or \
        any(o["task"] for o in by_task["api-auth"]["start"]["overlaps"]), "two tasks on one module overlap"
    assert git(tmp_path / "repo", "status", "--porcelain") == ""
