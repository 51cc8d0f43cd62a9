"""Landing: the manifest, approval, fast-forward by compare-and-swap, refusal when the target moved."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import git, write, wtc
from worktree_coord.coordinator import Coordinator
from worktree_coord.errors import StateError, UsageError


@pytest.fixture
def coord(repo: Path):
    with Coordinator(repo) as coordinator:
        coordinator.start_run("r1")
        for task in ("api", "web"):
            wt = Path(coordinator.start_task("r1", task, [f"packages/{task}/**"]).worktree)
            write(wt, {f"packages/{task}/index.js": f"// {task} v2\n"})
            coordinator.finish_task("r1", task)
        yield coordinator


def test_report_lists_tasks_files_and_target(repo, coord):
    report = coord.report("r1", onto="main")
    assert {t["task"]: t["state"] for t in report.tasks} == {"api": "merged", "web": "merged"}
    assert [f["path"] for f in report.files] == ["packages/api/index.js", "packages/web/index.js"]
    assert report.target["fast_forward"] is True and report.target["commits"] >= 2


def test_land_needs_approval(repo, coord):
    main_before = git(repo, "rev-parse", "main")
    with pytest.raises(UsageError):
        coord.land("r1", "main", approved=False)
    assert git(repo, "rev-parse", "main") == main_before
    code, body = wtc(repo, "land", "--run", "r1", "--onto", "main")  # --json, no --yes, no terminal
    assert code == 2 and "approval" in body["error"]["message"]
    done = subprocess.run([sys.executable, "-m", "worktree_coord", "land", "--run", "r1", "--onto", "main"],
                          cwd=repo, input="n\n", capture_output=True, text=True)
    assert done.returncode == 2
    assert git(repo, "rev-parse", "main") == main_before


def test_land_fast_forwards_the_checked_out_target_and_its_files(repo, coord):
    tip = git(repo, "rev-parse", "wtc/r1/integration")
    landed = coord.land("r1", "main", approved=True)
    assert landed.new == tip and git(repo, "rev-parse", "main") == tip
    assert (repo / "packages/api/index.js").read_text() == "// api v2\n", "the checkout moved with the branch"
    assert git(repo, "status", "--porcelain") == ""
    again = coord.land("r1", "main", approved=True)
    assert again.replayed


def test_land_onto_a_branch_not_checked_out_uses_compare_and_swap(repo, coord):
    git(repo, "branch", "release", "main")
    landed = coord.land("r1", "release", approved=True)
    assert landed.how == "compare-and-swap"
    assert git(repo, "rev-parse", "release") == git(repo, "rev-parse", "wtc/r1/integration")


def test_land_is_refused_when_the_target_moved_and_sync_fixes_it(repo, coord):
    write(repo, {"docs/guide.md": "moved on main\n"})
    git(repo, "commit", "-qam", "main moved")
    moved = git(repo, "rev-parse", "main")
    with pytest.raises(StateError) as refused:
        coord.land("r1", "main", approved=True)
    assert "wtc sync" in refused.value.fix
    assert git(repo, "rev-parse", "main") == moved
    synced = coord.sync("r1", "main")
    assert synced.exit_code == 0
    landed = coord.land("r1", "main", approved=True)
    assert git(repo, "rev-parse", "main") == landed.new
    assert (repo / "docs/guide.md").read_text() == "moved on main\n"
    assert (repo / "packages/web/index.js").read_text() == "// web v2\n"
