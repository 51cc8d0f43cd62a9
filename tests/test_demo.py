"""`wtc demo` on a fresh scratch repository: every agent ends as the plan says, the same-module
collision is resolved by the structured merge, and consolidation applies the reserved-file edit."""

from __future__ import annotations

import json

from tests.conftest import git
from worktree_coord.cli.demo_scenario import DEMO_TASKS, run_demo, surprises


def test_demo_fans_out_and_every_task_ends_as_planned(tmp_path):
    report = run_demo(tmp_path, parallel=4)
    assert len(report.agents) == len(DEMO_TASKS) >= 8
    assert surprises(report) == []
    by_task = {a["task"]: a for a in report.agents}
    rogue = by_task["ui-rogue"]["finish"]
    assert rogue["state"] == "rejected" and rogue["violations"][0]["path"] == "docs/index.md"
    assert [r["path"] for r in by_task["tools-cli"]["finish"]["reserved"]] == ["package.json"]
    resolved = [p for a in ("api-auth", "api-metrics") for p in (by_task[a]["finish"].get("merge") or {}).get("resolved", [])]
    assert resolved == ["packages/api/src/index.js"], "one of the two appends needed the structured merge"
    repo = tmp_path / "repo"
    module = git(repo, "show", "wtc/demo/integration:packages/api/src/index.js")
    assert "function login" in module and "function metrics" in module
    lock = json.loads(git(repo, "show", "wtc/demo/integration:package-lock.json"))
    assert "tools/cli" in lock["packages"] and "packages/charts" in lock["packages"]
    assert lock["packages"]["packages/web"]["dependencies"]["@demo/charts"] == "1.0.0"
    root = json.loads(git(repo, "show", "wtc/demo/integration:package.json"))
    assert root["workspaces"] == ["packages/*", "tools/*"]
    assert git(repo, "status", "--porcelain") == ""
