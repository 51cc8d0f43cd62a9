"""The run's summary says which intents consolidation left and gives its fix, not only a count.

Found driving `wtc fanout` on pallets/click: a task added a dependency to pyproject.toml; the
relock needed packages not cached, and the summary said only "consolidation (offline first):
. needs_network; 1 intent(s) not applied", its next step "(intents left: see consolidation)".
The fix (`wtc consolidate --run r1 --online`) was one `wtc consolidate` away.
"""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import make_repo
from tests.consolidate.test_new_extra_placement import HATCH
from tests.consolidation.test_consolidate_run import NPM_ENV
from tests.fanout.helpers import environment, parse, task, write_plan

ROOT = {"name": "root", "private": True, "version": "1.0.0"}


def test_the_summary_names_each_intent_left_and_the_fix(tmp_path, monkeypatch):
    monkeypatch.setenv("npm_config_cache", str(tmp_path / "npm-cache"))   # empty: nothing is cached
    for key, value in NPM_ENV.items():
        if value:
            monkeypatch.setenv(key, value)
    repo = make_repo(tmp_path / "repo", {"package.json": json.dumps(ROOT, indent=2) + "\n", "pkg/keep.txt": "k\n"})
    subprocess.run(["npm", "install", "--package-lock-only", "--offline", "--ignore-scripts"], cwd=repo, check=True,
                   capture_output=True)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-qm", "lockfile"], cwd=repo, check=True, env=environment(tmp_path / "x.log"))
    wanted = json.dumps(ROOT | {"devDependencies": {"left-pad-not-cached": "^1.3.0"}}, indent=2).replace("\n", "\\n")
    plan = write_plan(tmp_path / "plan.json", [task("dep", f"write package.json {wanted}\\n", own=["package.json"])])
    env = environment(tmp_path / "standin.log")
    done = subprocess.run([sys.executable, "-m", "worktree_coord", "fanout", str(plan), "--run", "r1"],
                          cwd=repo, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, (done.stdout, done.stderr)
    text = done.stdout
    assert "consolidation (offline first): npm root .: needs network; 1 intent(s) not applied:" in text, text
    assert "  dep: dep:package.json:add_dep:devDependencies:left-pad-not-cached (needs network)" in text, text
    assert "--online" in text.split("next:", 1)[1], text
    assert "wtc land" not in text, text   # not before what those tasks declared is applied
    done = subprocess.run([sys.executable, "-m", "worktree_coord", "fanout", str(plan), "--run", "r1", "--json"],
                          cwd=repo, env=env, capture_output=True, text=True, timeout=300)
    _, _, summary = parse(done.returncode, done.stdout, done.stderr)
    assert summary is not None and any("--online" in step for step in summary["next"]), summary


def test_the_summary_names_a_hatch_root_by_its_tool_not_uv(tmp_path, monkeypatch):
    """Found driving `wtc fanout` on psf/black (a hatchling project without a lockfile): a task bumped
    click in pyproject.toml, consolidation committed "consolidate hatch root '.'", and the run's
    summary said "consolidation (offline first): uv root .: applied", sending its reader to a uv.lock
    black never had. (Here a hatch project's idna is given a floor.)"""
    from worktree_coord.fanout import FanoutOptions, load, run_fanout
    from worktree_coord.fanout.summary import render

    repo = make_repo(tmp_path / "repo", {"pyproject.toml": HATCH, "src/fmt/__init__.py": "X = 1\n"})
    wanted = HATCH.replace('"idna",', '"idna>=3.7",').replace("\n", "\\n")
    plan = write_plan(tmp_path / "plan.json", [task("bump", f"write pyproject.toml {wanted}", own=["src/fmt/**"])])
    for key, value in environment(tmp_path / "standin.log").items():
        monkeypatch.setenv(key, value)
    report = run_fanout(repo, load(plan), "r1", FanoutOptions(concurrency=1))
    text = render(report)
    assert "consolidation (offline first): hatch root .: applied" in text, text
    assert "uv root" not in text, text
    assert report.to_json()["consolidation"]["roots"][0]["ecosystem"] == "uv"   # the key stays uv's (project_tool.py)
