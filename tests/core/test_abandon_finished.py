"""A finish killed during its verification leaves its task `finished` (recorded, waiting for its
merge). The lead can abandon such a task: the branch keeps the work, `wtc merge` leaves it alone, and
the killed finish repeated with its key says it was abandoned. Without the abandon, the finish
repeated with its key merges it, verifying again. Real git, real processes (SIGKILL), the real CLI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import git, make_repo, wtc


def _killed_during_verification(tmp_path: Path) -> tuple[Path, Path]:
    """Run r with a verification that, while `arm` exists, SIGKILLs the finish running it; task t's
    finish (key finish-t) killed there. Returns the repository and the arm file."""
    repo = make_repo(tmp_path / "repo", {"a/x.py": "x = 1\n", "b/y.py": "y = 1\n"})
    arm, pidfile = tmp_path / "arm", tmp_path / "finish.pid"
    verify = (f"if [ -e {arm} ]; then while [ ! -s {pidfile} ]; do sleep 0.05; done; "
              f"kill -9 $(cat {pidfile}); sleep 30; fi")
    assert wtc(repo, "run", "start", "--run", "r", "--verify", verify)[0] == 0
    code, started = wtc(repo, "task", "start", "t", "--run", "r", "--own", "a/**")
    assert code == 0, started
    (Path(started["worktree"]) / "a/x.py").write_text("x = 2\n")
    arm.touch()
    finish = subprocess.Popen([sys.executable, "-m", "worktree_coord", "task", "finish", "t", "--run", "r",
                               "--key", "finish-t", "--json"],
                              cwd=repo, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    pidfile.write_text(str(finish.pid))
    assert finish.wait(timeout=120) == -9
    code, status = wtc(repo, "status", "--run", "r")
    assert code == 0 and [(t["task"], t["state"]) for t in status["tasks"]] == [("t", "finished")], status
    return repo, arm


def test_a_task_whose_finish_was_killed_during_verification_can_be_abandoned(tmp_path):
    repo, arm = _killed_during_verification(tmp_path)
    arm.unlink()
    pin = git(repo, "rev-parse", "wtc/r/integration")
    work = git(repo, "rev-parse", "wtc/r/t")
    code, abandoned = wtc(repo, "task", "abandon", "t", "--run", "r")
    assert code == 0 and abandoned["state"] == "abandoned" and abandoned["branch"] == "wtc/r/t", abandoned
    assert git(repo, "rev-parse", "wtc/r/t") == work and git(repo, "show", "wtc/r/t:a/x.py") == "x = 2"
    # `wtc merge` leaves an abandoned task alone: integration stays at the pin.
    code, merged = wtc(repo, "merge", "--run", "r")
    assert code == 0 and merged["tasks"] == [], merged
    assert git(repo, "rev-parse", "wtc/r/integration") == pin
    # The killed finish repeated with its key: the task was abandoned, so it is not finished again.
    code, again = wtc(repo, "task", "finish", "t", "--run", "r", "--key", "finish-t")
    assert code == 2 and again["error"]["kind"] == "state" and "abandoned" in again["error"]["message"], again
    assert git(repo, "rev-parse", "wtc/r/integration") == pin
    code, status = wtc(repo, "status", "--run", "r")
    assert [(t["task"], t["state"]) for t in status["tasks"]] == [("t", "abandoned")], status


def test_the_killed_finish_repeated_with_its_key_verifies_and_merges(tmp_path):
    repo, arm = _killed_during_verification(tmp_path)
    arm.unlink()
    code, again = wtc(repo, "task", "finish", "t", "--run", "r", "--key", "finish-t")
    assert code == 0 and again["state"] == "merged", again
    assert git(repo, "show", "wtc/r/integration:a/x.py") == "x = 2"
    code, refused = wtc(repo, "task", "abandon", "t", "--run", "r")
    assert code == 2 and "its work is in integration" in refused["error"]["fix"], refused


class _Recorder:
    def __init__(self) -> None:
        self.kinds: list[str] = []

    def event(self, kind: str, **data) -> None:
        self.kinds.append(kind)


def test_the_abandon_stage_brackets_the_whole_abandon(repo):
    """The `task.abandon` stage (what progress and tracing see) opens and closes around the abandon,
    the task's closing included, and a refused abandon ends it with its error."""
    from worktree_coord.coordinator import Coordinator
    from worktree_coord.errors import StateError

    recorder = _Recorder()
    with Coordinator(repo, reporter=recorder) as coordinator:
        coordinator.start_run("r")
        coordinator.start_task("r", "t", ["packages/api/**"])
        coordinator.start_task("r", "e", ["docs/**"])
        coordinator.finish_task("r", "e")                   # empty: nothing to abandon
        recorder.kinds.clear()
        coordinator.abandon_task("r", "t")
        stage = [k for k in recorder.kinds if k.startswith("task.abandon") or k == "task.closed"]
        assert stage == ["task.abandon.begin", "task.closed", "task.abandon.end"], recorder.kinds
        recorder.kinds.clear()
        with pytest.raises(StateError):
            coordinator.abandon_task("r", "e")              # empty: refused, and the stage still brackets it
        assert recorder.kinds == ["task.abandon.begin", "task.abandon.end"], recorder.kinds


def test_a_merge_leaves_a_task_abandoned_after_it_listed_it(tmp_path):
    """`wtc merge` lists the finished tasks, then takes each one's lease and reads it again: t2,
    abandoned while t1's verification ran (by that verification, so the order is sure), is reported
    as abandoned and not merged, and the merge goes on."""
    repo = make_repo(tmp_path / "repo", {"a/x.py": "x = 1\n", "b/y.py": "y = 1\n"})
    marker, said = tmp_path / "abandoned-once", tmp_path / "abandon.json"
    verify = (f"if [ ! -e {marker} ]; then touch {marker}; {sys.executable} -m worktree_coord task abandon t2 "
              f"--run r -C {repo} --json > {said}; fi")
    assert wtc(repo, "run", "start", "--run", "r")[0] == 0
    for task, own, path in (("t1", "a/**", "a/x.py"), ("t2", "b/**", "b/y.py")):
        code, started = wtc(repo, "task", "start", task, "--run", "r", "--own", own)
        assert code == 0, started
        (Path(started["worktree"]) / path).write_text("changed = 2\n")
        code, finished = wtc(repo, "task", "finish", task, "--run", "r", "--no-merge")
        assert code == 0 and finished["state"] == "finished", finished
    code, merged = wtc(repo, "merge", "--run", "r", "--verify", verify)
    assert code == 0, merged
    assert '"state": "abandoned"' in said.read_text()
    assert sorted((row["task"], row["state"]) for row in merged["tasks"]) == [("t1", "merged"), ("t2", "abandoned")], \
        merged
    assert git(repo, "show", "wtc/r/integration:b/y.py") == "y = 1"
