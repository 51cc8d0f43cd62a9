"""`wtc task check` while another live task finishes: that task's worktree goes away between the
check listing it and reading its edits. Found driving `wtc fanout` on psf/black at concurrency 16,
each agent calling `wtc task check --json` before it exits (as the README tells agents to): 3 to 8 of
the first wave's checks ended in exit 6, "internal error (a bug in wtc, not in your input):
FileNotFoundError: [Errno 2] No such file or directory: '.../.wtc/worktrees/warm/strings-note-03'",
the worktree of a task that had just finished. The check now reads that task from its branch and
says so, and answers for the agent's own task as it would have.

The race is made deterministic by removing the other task's worktree right after the check listed
it (its real listing, then the removal a concurrent finish makes), not by faking any answer."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.conftest import make_repo, write, wtc_in_process
from worktree_coord.coordinator.forecast import ForecastOperations


def test_a_check_reads_a_task_whose_worktree_went_away_mid_check_from_its_branch(tmp_path: Path, monkeypatch) -> None:
    repo = make_repo(tmp_path / "repo", {"pkg/a.py": "def f():\n    return 1\n", "pkg/b.py": "def g():\n    return 2\n"})
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    worktrees = {}
    for task, path in (("mine", "pkg/a.py"), ("other", "pkg/b.py")):
        code, started = wtc_in_process(repo, "task", "start", task, "--run", "r", "--own", "pkg/**")
        assert code == 0, started
        worktrees[task] = Path(started["worktree"])
        write(worktrees[task], {path: (worktrees[task] / path).read_text() + "# edited\n"})

    listing = ForecastOperations._working_listing

    def listed_then_gone(self, task, worktree):
        found = listing(self, task, worktree)
        if task.task_id == "other" and worktree is not None:
            shutil.rmtree(worktree)    # what `other`'s finish does at this moment
        return found

    monkeypatch.setattr(ForecastOperations, "_working_listing", listed_then_gone)
    code, check = wtc_in_process(worktrees["mine"], "task", "check")
    assert code == 0, check
    assert check["task"] == "mine" and check["files"] == ["pkg/a.py"] and check["clean"], check
    [other] = [row for row in check["not_compared"] if row["task"] == "other"]
    assert "went away while it was read" in other["why"] and "its branch is used instead" in other["why"], check
