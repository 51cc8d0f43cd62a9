"""Issue 41 item 3: `wtc status` showed `files 0` for a started task whose worktree had changes, and
one age for every task. A started task's files are now its worktree's (committed since its base,
uncommitted and untracked), and each task shows how long it has been in its own state."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import make_repo, wtc


def test_status_counts_a_started_tasks_worktree_changes_and_each_tasks_own_state_age(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"app/a.py": "a = 1\n", "app/b.py": "b = 1\n"})
    assert wtc(repo, "run", "start", "--run", "r1")[0] == 0
    worktrees = {}
    for task in ("early", "late"):
        code, body = wtc(repo, "task", "start", task, "--run", "r1", "--own", "app/**")
        assert code == 0, body
        worktrees[task] = Path(body["worktree"])
    work = worktrees["early"]
    (work / "app/a.py").write_text("a = 2\n")                 # uncommitted edit
    (work / "app/new.py").write_text("n = 1\n")               # untracked file
    (work / "app/b.py").write_text("b = 2\n")                 # committed in the worktree
    subprocess.run(["git", "-C", str(work), "commit", "-qam", "b"], check=True,
                   env={"GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a",
                        "GIT_COMMITTER_EMAIL": "a@b", "PATH": "/usr/bin:/bin"})
    (worktrees["late"] / "app/a.py").write_text("a = 3\n")
    assert wtc(repo, "task", "finish", "late", "--run", "r1")[0] == 0
    code, body = wtc(repo, "status", "--run", "r1")
    assert code == 0
    rows = {t["task"]: t for t in body["tasks"]}
    assert rows["early"]["files"] == 3 and rows["late"]["files"] == 1
    # The finished task's time in its state runs from its finish, the started one's from its start.
    assert rows["late"]["state_seconds"] <= rows["late"]["age_seconds"]
    assert rows["early"]["state_seconds"] >= rows["late"]["state_seconds"]
    text = subprocess.run([sys.executable, "-m", "worktree_coord", "status", "--run", "r1"], cwd=repo,
                          capture_output=True, text=True, timeout=120).stdout
    header = next(line for line in text.splitlines() if "files" in line)
    assert "in state" in header
    early = next(line for line in text.splitlines() if line.split()[:1] == ["early"])
    assert early.split()[2] == "3", text
