"""The disjoint-range refusal of `task finish` (check/workspace_ranges.py) is said first by the checks
an agent runs before finishing: `wtc task check` and `wtc check --run --task`, in the same words
(real uv, offline from a wheel folder; the real CLI)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import git, wtc, write
from tests.consolidation.test_workspace_disjoint_ranges import _give, member, workspace  # noqa: F401
from worktree_coord.consolidate.adapters.base import find_tool
from worktree_coord.coordinator import Coordinator

pytestmark = pytest.mark.skipif(find_tool("uv") is None, reason="uv comes with the test extras")


def test_task_check_and_wtc_check_refuse_what_finish_refuses_in_its_words(workspace):  # noqa: F811
    with Coordinator(workspace) as coord:
        coord.start_run("r")
        assert _give(coord, "t1", "libs/a", '"packaging>=24"').state == "merged"
        worktree = Path(coord.start_task("r", "t2", ["libs/b/**"]).worktree)
    write(worktree, {"libs/b/pyproject.toml": member("b", '"packaging<20"')})

    code, checked = wtc(workspace, "task", "check", "t2", "--run", "r")      # uncommitted, as agents check
    assert code == 3, checked
    [violation] = checked["violations"]
    assert violation["rule"] == "disjoint_workspace_range" and violation["path"] == "libs/b/pyproject.toml"

    git(worktree, "add", "-A")
    git(worktree, "commit", "-qm", "b wants old packaging")
    code, report = wtc(workspace, "check", "--run", "r", "--task", "t2")
    [finding] = [f for f in report["findings"] if f["rule"] == "disjoint_workspace_range"]
    assert code == 3 and finding["path"] == "libs/b/pyproject.toml", report

    # Outside a run (a CI check of the branch against the integration branch): the same finding,
    # with the branch's own way to bring the target in.
    code, alone = wtc(worktree, "check", "--own", "libs/b/**", "--target", "wtc/r/integration")
    [outside] = [f for f in alone["findings"] if f["rule"] == "disjoint_workspace_range"]
    assert code == 3 and "(changed on the integration branch)" in outside["message"], alone
    assert "merge the target branch into this one" in outside["message"], outside

    with Coordinator(workspace) as coord:
        finished = coord.finish_task("r", "t2")
    assert finished.state == "rejected" and finished.violations == [violation]
    assert finding["message"] == violation["detail"], (finding, violation)
    assert "(set by task t1)" in violation["detail"] and "`wtc task update t2 --run r`" in violation["detail"]
