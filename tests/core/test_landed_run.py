"""A run after `wtc land`: it takes no new task (the refusal names the run, what landed where and the
way on), while the tasks a partial land left out go on (start again, finish, merge) and say where their
work goes; calls repeated with their idempotency key answer what they recorded. Real git, the real CLI."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import git, wtc_in_process


def _landed_partially(repo: Path) -> tuple[dict, Path]:
    """Run r: task a merged, task b started and left out by a partial land onto main."""
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    for task, own in (("a", "packages/api/**"), ("b", "packages/web/**")):
        code, started = wtc_in_process(repo, "task", "start", task, "--run", "r", "--own", own, "--key", f"start-{task}")
        assert code == 0, started
    (repo / ".wtc/worktrees/r/a/packages/api/index.js").write_text("export const api = 2;\n")
    code, finished = wtc_in_process(repo, "task", "finish", "a", "--run", "r", "--key", "finish-a")
    assert code == 0 and finished["state"] == "merged", finished
    code, landed = wtc_in_process(repo, "land", "--run", "r", "--onto", "main", "--yes", "--allow-partial")
    assert code == 0 and landed["left_out"]["tasks"] == {"started": ["b"]}, landed
    return landed, repo / ".wtc/worktrees/r/b"


def test_a_landed_run_refuses_a_new_task_naming_what_landed_and_the_way_on(repo):
    landed, _ = _landed_partially(repo)
    code, refused = wtc_in_process(repo, "task", "start", "c", "--run", "r", "--own", "docs/**")
    assert code == 2 and refused["error"]["kind"] == "state", refused
    message, fix = refused["error"]["message"], refused["error"]["fix"]
    assert "run 'r' has landed on main at " + landed["new"][:12] in message and "'c'" in message, message
    assert "wtc run start --run NEW --base main" in fix and "wtc task start c --run NEW" in fix, fix
    # Nothing of the refused task was made: no record, no branch, no worktree.
    code, status = wtc_in_process(repo, "status", "--run", "r")
    assert code == 0 and sorted(t["task"] for t in status["tasks"]) == ["a", "b"], status
    assert git(repo, "branch", "--list", "wtc/r/c") == ""
    assert not (repo / ".wtc/worktrees/r/c").exists()


def test_tasks_a_partial_land_left_out_go_on_and_say_where_their_work_goes(repo):
    landed, worktree = _landed_partially(repo)
    # The left-out task starts again (its worktree as it was) ...
    code, again = wtc_in_process(repo, "task", "start", "b", "--run", "r")
    assert code == 0 and again["existing"] and again["worktree"] == str(worktree), again
    # ... finishes, merges into integration, and is told its work reaches main only by another land.
    (worktree / "packages/web/index.js").write_text("export const web = 3;\n")
    code, finished = wtc_in_process(repo, "task", "finish", "b", "--run", "r")
    assert code == 0 and finished["state"] == "merged", finished
    [note] = [n for n in finished["notes"] if "has landed" in n]
    assert f"run r has landed on main at {landed['new'][:12]} without this task" in note, note
    assert "merged into the integration branch wtc/r/integration" in note and \
        "wtc land --run r --onto main --yes" in note, note
    assert git(repo, "rev-parse", "main") == landed["new"]
    code, second = wtc_in_process(repo, "land", "--run", "r", "--onto", "main", "--yes")
    assert code == 0 and second["new"] == git(repo, "rev-parse", "wtc/r/integration") != landed["new"], second


def test_calls_repeated_with_their_key_after_the_land_answer_what_they_recorded(repo):
    _landed_partially(repo)
    code, finish = wtc_in_process(repo, "task", "finish", "a", "--run", "r", "--key", "finish-a")
    assert code == 0 and finish["replayed"] and finish["state"] == "merged", finish
    assert not any("has landed" in n for n in finish["notes"]), finish
    # A start is never replayed (its outcome is open): repeated, it answers the task's state.
    code, start = wtc_in_process(repo, "task", "start", "a", "--run", "r", "--own", "packages/api/**", "--key", "start-a")
    assert code == 0 and start["state"] == "merged" and start["worktree"] == "", start
    code, start = wtc_in_process(repo, "task", "start", "b", "--run", "r", "--own", "packages/web/**", "--key", "start-b")
    assert code == 0 and start["state"] == "started" and start["worktree"], start
