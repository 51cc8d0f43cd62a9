"""`wtc gc` and the verification scratch worktrees (`<root>/<run>/.verify/*`: the run's kept one, where
a finish killed during its verification left its command's debris): kept while the run may still
verify (a task left out of a partial land may finish or merge after it, and that verifies), removed
at once when the run has landed and no task of it may still merge, without waiting out the age rule.
Real git, real processes, the real CLI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import make_repo, wtc


def test_gc_removes_a_killed_verification_of_a_settled_run_at_once(tmp_path):
    repo = make_repo(tmp_path / "repo", {"a/x.py": "x = 1\n", "b/y.py": "y = 1\n"})
    arm, pidfile = tmp_path / "arm", tmp_path / "finish.pid"
    # The verification kills the finish that runs it (SIGKILL: nothing of the finish cleans up),
    # once armed; the first task's passes.
    verify = (f"if [ -e {arm} ]; then while [ ! -s {pidfile} ]; do sleep 0.05; done; "
              f"kill -9 $(cat {pidfile}); sleep 30; fi")
    assert wtc(repo, "run", "start", "--run", "r", "--verify", verify)[0] == 0
    for task, own, path in (("t1", "a/**", "a/x.py"), ("t2", "b/**", "b/y.py")):
        code, started = wtc(repo, "task", "start", task, "--run", "r", "--own", own)
        assert code == 0, started
        (Path(started["worktree"]) / path).write_text("changed = 2\n")
    assert wtc(repo, "task", "finish", "t1", "--run", "r")[1]["state"] == "merged"

    arm.touch()
    finish = subprocess.Popen([sys.executable, "-m", "worktree_coord", "task", "finish", "t2", "--run", "r", "--json"],
                              cwd=repo, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    pidfile.write_text(str(finish.pid))
    assert finish.wait(timeout=120) == -9
    scratch = repo / ".wtc/worktrees/r/.verify"
    [left] = [p for p in scratch.iterdir()]
    assert left.name == "kept"           # the run's kept verification worktree, its command killed

    code, landed = wtc(repo, "land", "--run", "r", "--onto", "main", "--yes", "--allow-partial")
    assert code == 0, landed
    code, kept = wtc(repo, "gc")          # landed, but t2 may still merge, and its merge verifies
    assert code == 0 and str(left) not in kept["worktrees_removed"] and left.is_dir(), kept

    # The killed finish had recorded t2 finished: it waits for a merge, which verifies again.
    arm.unlink()
    code, merged = wtc(repo, "merge", "--run", "r")
    assert code == 0, merged
    assert left.is_dir()                 # the merge verified in the kept worktree, and kept it
    code, listed = wtc(repo, "gc", "--dry-run")
    assert code == 0 and str(left) in listed["worktrees_removed"] and left.is_dir(), listed
    code, done = wtc(repo, "gc")
    assert code == 0 and str(left) in done["worktrees_removed"] and not left.exists(), done
    assert str(left) not in subprocess.run(["git", "worktree", "list"], cwd=repo, capture_output=True,
                                           text=True).stdout
