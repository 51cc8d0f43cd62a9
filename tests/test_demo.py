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


def test_the_demo_closing_commands_run_from_a_shell_whose_path_has_no_wtc(tmp_path):
    """`wtc demo` from a venv that is not activated (`.venv/bin/wtc demo`, as the README's set-up
    line runs it) ended with `wtc status ...`, which such a shell cannot find: the closing commands
    name the wtc that ran the demo by its absolute path."""
    import os
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    script = Path(sys.executable).parent / "wtc"
    bare = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep)
                           if not (Path(p) / "wtc").exists() and p != str(script.parent))
    env = dict(os.environ, PATH=bare)
    assert shutil.which("wtc", path=bare) is None
    done = subprocess.run([str(script), "demo", "--dir", str(tmp_path / "demo"), "--parallel", "4"], env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    explore = next(line for line in done.stdout.splitlines() if line.startswith("explore: "))
    land = next(line for line in done.stdout.splitlines() if line.startswith("land it: "))
    assert land == f"land it: {script} land --run demo --onto main"
    shown = subprocess.run(["bash", "-c", explore.removeprefix("explore: ")], env=env, capture_output=True, text=True,
                           timeout=300)
    assert shown.returncode == 0, shown.stdout + shown.stderr
    assert "api-auth" in shown.stdout and "landing" in shown.stdout.lower()
