"""A task left to the lead for a use left behind: the run's `next` steps give the way out that works.

Found driving `wtc fanout` on psf/black: a task renamed `is_empty_par` in nodes.py, its own file, while
trans.py (outside its boundary) still called it. Its attempts used, the summary's next step said
"fix it in <worktree> and `wtc task finish ...`": updating trans.py there and finishing was refused
(exit 3, outside_own) until the lead widened the task. The step now names the widen command the
finish gave, and following it lands the task. On the way: with its attempts used by a finish that
removed the worktree before the merge found the use, the step sent the lead to "fix it in
<worktree>", a folder no longer there; it now says `wtc task update` brings it back."""

from __future__ import annotations

import shlex

from tests.conftest import git, make_repo, wtc_in_process
from tests.fanout.helpers import environment, task, write_plan

UTIL = "def helper():\n    return 1\n"
MAIN = "from lib.util import helper\n\nprint(helper())\n"


def test_the_next_step_of_a_use_left_behind_widens_and_following_it_merges(tmp_path, monkeypatch):
    from worktree_coord.fanout import FanoutOptions, load, run_fanout
    from worktree_coord.fanout.summary import render

    repo = make_repo(tmp_path / "repo", {"lib/__init__.py": "", "lib/util.py": UTIL, "app/main.py": MAIN})
    plan = write_plan(tmp_path / "plan.json", [
        task("rename", "write lib/util.py def helper2():\\n    return 1", own=["lib/**"])], attempts=1)
    for key, value in environment(tmp_path / "standin.log").items():
        monkeypatch.setenv(key, value)
    report = run_fanout(repo, load(plan), "r1", FanoutOptions(concurrency=1))
    [row] = report.tasks
    assert (row["outcome"], row["reason"]) == ("lead", "left_behind"), row
    [step] = [s for s in report.next if s.startswith("task rename:")]
    assert "keep the old name too (an alias)" in step and "`wtc task widen rename --run r1 --own '/app/main.py'" in step, step
    assert step in render(report), render(report)

    # The lead follows it: widen (with a reason of its own), update the use, run fanout again.
    [command] = [part for part in step.split("`") if part.startswith("wtc task widen")]
    widen = shlex.split(command.replace("'...'", "'the callers move with the rename'"))
    assert widen[:3] == ["wtc", "task", "widen"], widen
    assert wtc_in_process(repo, *widen[1:])[0] == 0
    # The finish that found the use had removed the worktree: the step says how to bring it back.
    assert row["worktree"] is None and "`wtc task update rename --run r1` brings it back" in step, (row, step)
    code, updated = wtc_in_process(repo, "task", "update", "rename", "--run", "r1")
    assert code == 0, updated
    worktree = updated["worktree"]
    with open(f"{worktree}/app/main.py", "w") as handle:
        handle.write(MAIN.replace("helper", "helper2"))
    again = run_fanout(repo, load(plan), "r1", FanoutOptions(concurrency=1))
    assert again.exit_code == 0 and again.tasks[0]["outcome"] == "merged", again.to_json()
    assert git(repo, "show", "wtc/r1/integration:app/main.py") == MAIN.replace("helper", "helper2").rstrip("\n")
