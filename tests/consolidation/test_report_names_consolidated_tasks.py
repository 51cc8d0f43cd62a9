"""The run's report says which task's intent a consolidation applied to each file: it attributed a
consolidated manifest and lockfile to "consolidation uv root ." alone, and the person reviewing the
landing could not tell whose change it was (real uv, offline from a wheel folder)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.conftest import git, make_repo, write
from tests.lead.helpers import tool_env, wheel
from worktree_coord.consolidate.adapters.base import find_tool
from worktree_coord.coordinator import Coordinator

ROOT = ('[project]\nname = "app"\nversion = "0.1.0"\nrequires-python = ">=3.11"\ndependencies = []\n\n'
        '[tool.uv.workspace]\nmembers = ["libs/a"]\n')
MEMBER = '[project]\nname = "a"\nversion = "0.1.0"\nrequires-python = ">=3.11"\ndependencies = [{}]\n'


def test_the_report_names_the_tasks_whose_intents_a_consolidation_applied(tmp_path, monkeypatch):
    for key, value in tool_env(tmp_path).items():
        monkeypatch.setenv(key, value)
    for name in ("lib_b", "lib_c"):
        wheel(tmp_path / "wheels", name, "1.0.0")
    repo = make_repo(tmp_path / "repo", {"pyproject.toml": ROOT, "libs/a/pyproject.toml": MEMBER.format("")})
    subprocess.run([find_tool("uv"), "lock", "--offline", "-q"], cwd=repo, env=dict(os.environ), check=True,
                   capture_output=True)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "lock")
    with Coordinator(repo) as coord:
        coord.start_run("r")
        # t1 edits the reserved root manifest (an add_dep intent on it); t2 its own member's (a relock).
        root_task = Path(coord.start_task("r", "t1", ["docs/**"]).worktree)
        write(root_task, {"pyproject.toml": ROOT.replace("dependencies = []", 'dependencies = ["lib-b>=1"]')})
        assert coord.finish_task("r", "t1").state == "merged"
        member_task = Path(coord.start_task("r", "t2", ["libs/a/**"]).worktree)
        write(member_task, {"libs/a/pyproject.toml": MEMBER.format('"lib-c>=1"')})
        assert coord.finish_task("r", "t2").state == "merged"
        report = coord.consolidate("r")
        assert [root["state"] for root in report.roots] == ["applied"], report.roots
        where = {f["path"]: f["origin"] for f in coord.report("r").files}
    assert where["pyproject.toml"] == "consolidation uv root . for task t1", where
    assert where["libs/a/pyproject.toml"] == "task t2", where
    assert where["uv.lock"] == "consolidation uv root . for tasks t1, t2", where
