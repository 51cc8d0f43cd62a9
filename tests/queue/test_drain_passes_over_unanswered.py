"""A drain passes over a task whose left-behind look gives no answer, and merges the others.

Before, `wtc merge` stopped at such a task (the look's LookUnanswered left the loop): what merged
before it landed, and every task after it waited for a person. A drain now keeps that task
finished, names it in its row with the reason and the fix (`--merge-unchecked`), merges the tasks
after it and exits 6 at the end; once the task is answered (here: approved unchecked), the next
drain merges it.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import finished_unmerged, git, make_repo, wtc
from worktree_coord.coordinator import Coordinator
from worktree_coord.model import TaskState

# The middle task renames a function in each of 101 files: more than the look reads at a merge
# (left_behind.MAX_CHANGED), so it gives no answer for that task.
MANY = {f"big/m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(101)}
FILES = MANY | {"a.py": "A = 1\n", "c.py": "C = 1\n"}


def _three_finished(tmp_path: Path) -> Path:
    """Run r with three finished tasks: first, middle (whose look gives no answer at a merge), last."""
    repo = make_repo(tmp_path / "repo", FILES)
    assert wtc(repo, "run", "start", "--run", "r")[0] == 0
    finished_unmerged(repo, "r", "first", "a.py", {"a.py": "A = 2\n"})
    finished_unmerged(repo, "r", "middle", "big/**", {path: text.replace("def f", "def g") for path, text in MANY.items()})
    finished_unmerged(repo, "r", "last", "c.py", {"c.py": "C = 2\n"})
    return repo


def test_a_drain_merges_the_tasks_around_one_whose_look_gives_no_answer(tmp_path: Path) -> None:
    repo = _three_finished(tmp_path)

    code, body = wtc(repo, "merge", "--run", "r")
    states = {row["task"]: row["state"] for row in body["tasks"]}
    assert code == 6 and states == {"first": "merged", "middle": "unanswered", "last": "merged"}, body
    [middle] = [row for row in body["tasks"] if row["task"] == "middle"]
    assert "task middle is NOT MERGED" in middle["reason"] and "101 files" in middle["reason"], middle
    assert "wtc task finish middle --run r --merge-unchecked" in middle["fix"], middle
    assert git(repo, "show", "wtc/r/integration:c.py") == "C = 2" and \
        git(repo, "show", "wtc/r/integration:big/m0.py") == MANY["big/m0.py"].strip()
    with Coordinator(repo) as coord:
        assert coord.store.get_task("r", "middle").state is TaskState.FINISHED

    # Answered: a person approves it unchecked (kept with the task), and the next drain merges it.
    code, body = wtc(repo, "task", "finish", "middle", "--run", "r", "--merge-unchecked", "--no-merge")
    assert code == 0, body
    code, body = wtc(repo, "merge", "--run", "r")
    assert code == 0 and [(row["task"], row["state"]) for row in body["tasks"]] == [("middle", "merged")], body


def test_a_verified_batch_merges_the_tasks_around_one_whose_look_gives_no_answer(tmp_path: Path) -> None:
    """`wtc merge --batch 3 --verify CMD` (bors-style batches) passes over it too; it stopped there."""
    repo = _three_finished(tmp_path)

    code, body = wtc(repo, "merge", "--run", "r", "--batch", "3", "--verify", "true")
    states = {row["task"]: row["state"] for row in body["tasks"]}
    assert code == 6 and states == {"first": "merged", "middle": "unanswered", "last": "merged"}, body
    [middle] = [row for row in body["tasks"] if row["task"] == "middle"]
    assert "wtc task finish middle --run r --merge-unchecked" in middle["fix"], middle
    assert git(repo, "show", "wtc/r/integration:c.py") == "C = 2" and \
        git(repo, "show", "wtc/r/integration:big/m0.py") == MANY["big/m0.py"].strip()
    with Coordinator(repo) as coord:
        assert coord.store.get_task("r", "middle").state is TaskState.FINISHED
