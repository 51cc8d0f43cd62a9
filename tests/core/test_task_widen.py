"""`wtc task widen`: the lead gives a live task more of the repository, after which a finish that
was rejected for those paths merges; overlaps are checked like start's, the change is recorded
with its reason and shown by the report, and the worktree's manifest and sparse cone follow."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import git, write, wtc_in_process
from worktree_coord.coordinator import Coordinator
from worktree_coord.errors import BusyError, StateError, UsageError


@pytest.fixture
def coord(repo: Path):
    with Coordinator(repo) as coordinator:
        coordinator.start_run("r1")
        yield coordinator


def test_a_rejected_task_widened_by_the_lead_finishes_and_the_report_says_why(repo, coord):
    wt = Path(coord.start_task("r1", "api", ["packages/api/**"]).worktree)
    write(wt, {"packages/api/index.js": "export function api() {\n  return 10;\n}\n", "docs/guide.md": "api guide\n"})
    rejected = coord.finish_task("r1", "api")
    assert rejected.state == "rejected"
    assert any("wtc task widen api --run r1 --own /docs/guide.md" in note for note in rejected.notes)
    widened = coord.widen_task("r1", "api", ["/docs/guide.md"], why="the API guide documents the new return value")
    assert widened.added_own == ["/docs/guide.md"] and widened.boundary["own"] == ["packages/api/**", "/docs/guide.md"]
    manifest = json.loads((wt / ".wtc/task.json").read_text())
    assert manifest["own"] == ["packages/api/**", "/docs/guide.md"], "the agent reads its boundary there"
    done = coord.finish_task("r1", "api")
    assert done.state == "merged", done.violations
    assert git(repo, "show", "wtc/r1/integration:docs/guide.md") == "api guide"
    [row] = [t for t in coord.report("r1").tasks if t["task"] == "api"]
    assert row["widened"] == [{"own": ["/docs/guide.md"], "read": [], "why": "the API guide documents the new return value"}]
    from worktree_coord.output.render import run_report

    assert "widened   task api: own /docs/guide.md (why: the API guide documents" in run_report(coord.report("r1"))


def test_widening_into_an_exclusive_tasks_globs_waits_and_overlaps_are_named(repo, coord):
    coord.start_task("r1", "web", ["packages/web/**"], exclusive=True)
    coord.start_task("r1", "core", ["packages/core/**"])
    coord.start_task("r1", "api", ["packages/api/**"])
    with pytest.raises(BusyError) as caught:
        coord.widen_task("r1", "api", ["packages/web/index.js"])
    assert caught.value.exit_code == 4 and "web" in caught.value.message
    assert coord.store.get_task("r1", "api").boundary.own == ("packages/api/**",), "nothing changed"
    shared = coord.widen_task("r1", "api", ["packages/core/lib.py"])
    assert [o["task"] for o in shared.overlaps] == ["core"]


def test_a_widen_names_the_live_tasks_its_new_globs_meet_not_those_met_at_start(repo, coord):
    """javapoet: tasks a and h both owned src/main/java/**; a merged; widening h by one test file said
    "overlaps live task a" (the overlaps recorded at h's start, merged tasks among them)."""
    wt = Path(coord.start_task("r1", "a", ["packages/core/**"]).worktree)
    coord.start_task("r1", "h", ["packages/core/**"])
    write(wt, {"packages/core/lib.py": "x = 2\n"})
    assert coord.finish_task("r1", "a").state == "merged"
    widened = coord.widen_task("r1", "h", ["docs/guide.md"], why="its docs")
    assert widened.overlaps == []
    coord.start_task("r1", "docs", ["docs/**"])
    assert [o["task"] for o in coord.widen_task("r1", "h", ["docs/index.md"]).overlaps] == ["docs"]


def test_only_live_tasks_are_widened_and_globs_are_validated(repo, coord):
    wt = Path(coord.start_task("r1", "api", ["packages/api/**"]).worktree)
    with pytest.raises(UsageError):
        coord.widen_task("r1", "api")                    # nothing to widen
    with pytest.raises(UsageError):
        coord.widen_task("r1", "api", ["../outside"])    # not a repository-relative glob
    write(wt, {"packages/api/index.js": "x\n"})
    assert coord.finish_task("r1", "api").state == "merged"
    with pytest.raises(StateError) as caught:
        coord.widen_task("r1", "api", ["docs/**"])
    assert caught.value.exit_code == 2


def test_a_sparse_worktree_gets_the_new_folder(repo, coord):
    wt = Path(coord.start_task("r1", "api", ["packages/api/**"], sparse=True).worktree)
    assert not (wt / "docs/guide.md").exists(), "outside the sparse cone"
    write(wt, {"packages/api/index.js": "edited, not committed\n"})
    widened = coord.widen_task("r1", "api", read=["docs/**"])
    assert widened.added_read == ["docs/**"] and "docs" in (widened.sparse_cone or [])
    assert (wt / "docs/guide.md").read_text() == "guide\n"
    assert (wt / "packages/api/index.js").read_text() == "edited, not committed\n", "the agent's edit stays"


def test_the_cli_widens_once_per_request_and_says_so_in_json(repo):
    assert wtc_in_process(repo, "run", "start", "--run", "r1")[0] == 0
    assert wtc_in_process(repo, "task", "start", "t", "--run", "r1", "--own", "packages/api/**")[0] == 0
    code, first = wtc_in_process(repo, "task", "widen", "t", "--run", "r1", "--own", "docs/**", "--why", "docs")
    assert code == 0 and first["schema"] == "wtc.task.widen/1" and first["added_own"] == ["docs/**"]
    code, again = wtc_in_process(repo, "task", "widen", "t", "--run", "r1", "--own", "docs/**", "--why", "docs")
    assert code == 0 and again["replayed"] is True
    code, more = wtc_in_process(repo, "task", "widen", "t", "--run", "r1", "--own", "docs/**", "--own", "README.md")
    assert code == 0 and more["added_own"] == ["README.md"], "a glob already held is not added twice"
    code, empty = wtc_in_process(repo, "task", "widen", "t", "--run", "r1")
    assert code == 2 and "nothing to widen" in empty["error"]["message"]
