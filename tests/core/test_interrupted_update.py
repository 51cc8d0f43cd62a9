"""A `task update` whose process died after git's merge, and a merge the agent ran itself: the merge's
conflicts are the next update's to report, never committed as the agent's work and landed with
their markers (found by a fanout runner SIGKILLed during an update: the retried update said
"merged cleanly" and the finish merged a file holding conflict markers into integration)."""

from __future__ import annotations

import os
from pathlib import Path

from tests.conftest import git, make_repo, wtc

CRASH = {"WTC_CRASH_AT": "update.after_merge", "WTC_NO_SERVE": "1"}


def _two_tasks_one_file(tmp_path: Path) -> tuple[Path, Path]:
    """Tasks a and b both rewrite shared/c.txt; a merged, b's finish conflicted: (repo, b's worktree)."""
    repo = make_repo(tmp_path / "repo", {"shared/c.txt": "base\n", "README.md": "# r\n"})
    assert wtc(repo, "run", "start", "--run", "r1")[0] == 0
    worktrees = {}
    for name in ("a", "b"):
        code, started = wtc(repo, "task", "start", name, "--run", "r1", "--own", "shared/**")
        assert code == 0, started
        worktrees[name] = Path(started["worktree"])
        (worktrees[name] / "shared/c.txt").write_text(f"line {name}\n")
    assert wtc(repo, "task", "finish", "a", "--run", "r1")[0] == 0
    code, finished = wtc(repo, "task", "finish", "b", "--run", "r1")
    assert code == 1 and finished["state"] == "conflict", finished
    return repo, worktrees["b"]


def _lands_without_markers(repo: Path, worktree: Path) -> None:
    code, finished = wtc(repo, "task", "finish", "b", "--run", "r1")
    assert code == 1 and finished["state"] == "conflict", finished
    assert {c["kind"] for c in finished["conflicts"]} == {"unresolved_markers"}
    (worktree / "shared/c.txt").write_text("line b\nline a\n")
    code, finished = wtc(repo, "task", "finish", "b", "--run", "r1")
    assert code == 0 and finished["state"] == "merged", finished
    assert git(repo, "show", "wtc/r1/integration:shared/c.txt") == "line b\nline a"


def test_an_update_killed_after_its_merge_leaves_the_conflict_to_the_next_update(tmp_path):
    repo, worktree = _two_tasks_one_file(tmp_path)
    killed = wtc_killed(repo, "task", "update", "b", "--run", "r1")
    assert killed == -9
    assert git(worktree, "diff", "--name-only", "--diff-filter=U") == "shared/c.txt"   # git's merge stopped there

    code, updated = wtc(repo, "task", "update", "b", "--run", "r1")
    assert code == 1, updated
    assert updated["conflicted_paths"] == ["shared/c.txt"] and not updated["merged_cleanly"]
    text = (worktree / "shared/c.txt").read_text()
    assert "<<<<<<< task b" in text and ">>>>>>> integration r1" in text    # wtc's labels, as a whole update gives
    assert "a merge taken up" in git(worktree, "log", "-1", "--format=%s")   # not "work before update"
    _lands_without_markers(repo, worktree)


def test_a_merge_the_agent_ran_itself_is_reported_by_update_not_committed(tmp_path):
    repo, _ = _two_tasks_one_file(tmp_path)
    code, updated = wtc(repo, "task", "update", "b", "--run", "r1")
    assert code == 1
    worktree = Path(updated["worktree"])
    (worktree / "shared/c.txt").write_text("line b\n")          # the agent keeps its side and commits ...
    git(worktree, "commit", "-qam", "mine")
    assert wtc(repo, "task", "finish", "b", "--run", "r1")[0] == 0
    # ... a later task conflicts with b's merged line; its agent merges integration by hand.
    code, started = wtc(repo, "task", "start", "c", "--run", "r1", "--own", "shared/**")
    worktree_c = Path(started["worktree"])
    (worktree_c / "shared/c.txt").write_text("line c\n")
    git(worktree_c, "commit", "-qam", "c's line")
    done = git(worktree_c, "merge", "--no-edit", "wtc/r1/integration", check=False)
    assert "CONFLICT" in done or git(worktree_c, "diff", "--name-only", "--diff-filter=U") == "shared/c.txt"

    code, updated = wtc(repo, "task", "update", "c", "--run", "r1")
    assert code == 1 and updated["conflicted_paths"] == ["shared/c.txt"], updated
    code, finished = wtc(repo, "task", "finish", "c", "--run", "r1")
    assert code == 1 and {c["kind"] for c in finished["conflicts"]} == {"unresolved_markers"}, finished
    assert "<<<<<<<" not in git(repo, "show", "wtc/r1/integration:shared/c.txt")


def wtc_killed(cwd: Path, *args: str) -> int:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "worktree_coord", *args, "--json"], cwd=cwd,
                          env=dict(os.environ, **CRASH), capture_output=True, timeout=120)
    return done.returncode
