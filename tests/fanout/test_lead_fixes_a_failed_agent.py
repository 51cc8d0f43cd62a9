"""A task whose agent failed its last attempt is left to the lead with what the agent wrote. Running
fanout again must not merge that unseen; once the lead has fixed the worktree, running fanout again
(what the summary's `next` says) finishes it, with no agent run.

Found driving wtc on pydantic: the lead resolved the markers a failed agent left and ran fanout
again; it answered "agent_failed" again, finishing nothing, until `wtc task finish` by hand."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import git, make_repo
from tests.fanout.helpers import count, fanout, task, write_plan


def test_a_failed_agents_task_is_finished_again_only_after_the_lead_changed_its_worktree(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"README.md": "# r\n", "pkg/keep.txt": "keep\n"})
    log = tmp_path / "standin.log"
    plan = write_plan(tmp_path / "plan.json", [task("broken", "write pkg/broken/x.txt half done", "crash 9",
                                                    attempts=1),
                                               task("fine", "write pkg/fine/x.txt ok")])
    code, _, summary = fanout(repo, plan, "r1", log=log)
    outcomes = {t["task"]: t for t in summary["tasks"]}
    assert code == 1 and outcomes["broken"]["outcome"] == "lead", summary
    assert outcomes["broken"]["reason"] == "agent_failed" and outcomes["fine"]["outcome"] == "merged"
    worktree = Path(outcomes["broken"]["worktree"])
    assert any("after fixing" in step for step in summary["next"]), summary["next"]

    # Again, nothing changed: what the crashed agent left is not merged, and no agent runs.
    code, _, again = fanout(repo, plan, "r1", log=log)
    assert code == 1 and again["agent_runs"] == 0, again
    assert {t["task"]: t["outcome"] for t in again["tasks"]}["broken"] == "lead"
    assert "pkg/broken/x.txt" not in git(repo, "ls-tree", "-r", "--name-only", "wtc/r1/integration")

    # The lead fixes the worktree and runs fanout again: it finishes and merges, still no agent run.
    (worktree / "pkg/broken/x.txt").write_text("fixed by the lead\n")
    code, _, fixed = fanout(repo, plan, "r1", log=log)
    assert code == 0 and fixed["agent_runs"] == 0, fixed
    assert {t["task"]: t["outcome"] for t in fixed["tasks"]} == {"broken": "merged", "fine": "merged"}
    assert git(repo, "show", "wtc/r1/integration:pkg/broken/x.txt") == "fixed by the lead"
    assert count(log) == {"broken": 1, "fine": 1}
