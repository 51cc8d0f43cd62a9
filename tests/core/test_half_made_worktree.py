"""A worktree whose re-creation was interrupted is not the task's work (tasks.py `_commit_worktree`).

Found driving wtc on npm/cli (7,100 files): `wtc task update` re-creates a conflicting task's worktree;
killed mid-checkout, it left a folder whose index held nothing, so every file not yet written was a
staged deletion. `task finish` then committed 6,830 deletions on the task branch (refused only
because the root package.json was among them; in a repository without a reserved root file the
merge would have deleted them from integration), and after two minutes finish removes the stale
index.lock such a kill leaves by itself.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import git, make_repo, wtc_in_process


def test_finish_refuses_a_worktree_whose_update_was_killed_before_its_checkout(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"app.py": "VALUE = 0\n", "docs/a.md": "a\n", "docs/b.md": "b\n"})
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    for task in ("a", "b"):
        code, body = wtc_in_process(repo, "task", "start", task, "--run", "r")
        assert code == 0, body
        (Path(body["worktree"]) / "app.py").write_text(f"VALUE = '{task}'\n")
    assert wtc_in_process(repo, "task", "finish", "a", "--run", "r")[1]["state"] == "merged"
    code, body = wtc_in_process(repo, "task", "finish", "b", "--run", "r")
    assert (code, body["state"]) == (1, "conflict"), body
    tip = git(repo, "rev-parse", "wtc/r/b")

    killed = subprocess.run([sys.executable, "-m", "worktree_coord", "task", "update", "b", "--run", "r"], cwd=repo,
                            env=dict(os.environ, WTC_CRASH_AT="worktree.before_checkout", WTC_NO_SERVE="1"), capture_output=True)
    assert killed.returncode == -9                                      # killed between registration and checkout
    code, body = wtc_in_process(repo, "task", "finish", "b", "--run", "r")
    assert code == 2 and "half-made" in body["error"]["message"], body
    assert "wtc task update b --run r" in body["error"]["fix"]
    assert git(repo, "rev-parse", "wtc/r/b") == tip                     # nothing committed: no mass deletion
    assert git(repo, "ls-tree", "-r", "--name-only", "wtc/r/integration").split() == ["app.py", "docs/a.md", "docs/b.md"]

    code, body = wtc_in_process(repo, "task", "update", "b", "--run", "r")        # the way out: rebuilt, markers to resolve
    assert code == 1, body
    worktree = Path(body["worktree"])
    assert "<<<<<<< task b" in (worktree / "app.py").read_text()
    assert (worktree / "docs/b.md").read_text() == "b\n"
    (worktree / "app.py").write_text("VALUE = 'ab'\n")
    code, body = wtc_in_process(repo, "task", "finish", "b", "--run", "r")
    assert (code, body["state"]) == (0, "merged"), body
    assert git(repo, "ls-tree", "-r", "--name-only", "wtc/r/integration").split() == ["app.py", "docs/a.md", "docs/b.md"]


def test_abandon_snapshots_nothing_from_a_half_made_worktree(tmp_path: Path) -> None:
    """The same killed update, then the lead gives the task up: its kept branch holds its commits,
    not a snapshot deleting every file the checkout had not written."""
    repo = make_repo(tmp_path / "repo", {"app.py": "VALUE = 0\n", "docs/a.md": "a\n"})
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    code, body = wtc_in_process(repo, "task", "start", "b", "--run", "r")
    (Path(body["worktree"]) / "app.py").write_text("VALUE = 'b'\n")
    git(Path(body["worktree"]), "commit", "-qam", "b's work")
    tip = git(repo, "rev-parse", "wtc/r/b")
    git(repo, "worktree", "remove", "--force", body["worktree"])      # its worktree went missing
    killed = subprocess.run([sys.executable, "-m", "worktree_coord", "task", "update", "b", "--run", "r"], cwd=repo,
                            env=dict(os.environ, WTC_CRASH_AT="worktree.before_checkout", WTC_NO_SERVE="1"),
                            capture_output=True)
    assert killed.returncode == -9
    code, body = wtc_in_process(repo, "task", "abandon", "b", "--run", "r")
    assert code == 0, body
    assert git(repo, "rev-parse", "wtc/r/b") == tip
    assert git(repo, "ls-tree", "-r", "--name-only", "wtc/r/b").split() == ["app.py", "docs/a.md"]


def _half_made(tmp_path: Path) -> tuple[Path, str]:
    """Task b's worktree went missing and the `task update` re-creating it was killed mid-checkout."""
    repo = make_repo(tmp_path / "repo", {"app.py": "VALUE = 0\n", **{f"docs/{n}.md": f"{n}\n" for n in range(40)}})
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    code, body = wtc_in_process(repo, "task", "start", "b", "--run", "r")
    assert code == 0, body
    git(repo, "worktree", "remove", "--force", body["worktree"])
    killed = subprocess.run([sys.executable, "-m", "worktree_coord", "task", "update", "b", "--run", "r"], cwd=repo,
                            env=dict(os.environ, WTC_CRASH_AT="worktree.before_checkout", WTC_NO_SERVE="1"),
                            capture_output=True)
    assert killed.returncode == -9 and (Path(body["worktree"]) / ".git").is_file()
    return repo, body["worktree"]


def test_status_says_a_worktree_is_half_made_and_counts_none_of_its_missing_files(tmp_path: Path) -> None:
    """`wtc status` read the killed checkout's missing files as the task's changes (41 here, thousands
    on a real repository); it says the worktree is half made and names the way out instead."""
    repo, _ = _half_made(tmp_path)
    code, body = wtc_in_process(repo, "status", "--run", "r")
    assert code == 0, body
    [row] = body["tasks"]
    assert row["half_made"] is True and row["files"] == 0, row
    assert row["fix"] == "wtc task update b --run r", row
    text = subprocess.run([sys.executable, "-m", "worktree_coord", "status", "--run", "r"], cwd=repo,
                          capture_output=True, text=True, env=dict(os.environ, WTC_NO_SERVE="1"))
    assert text.returncode == 0, text.stderr
    assert "half made" in text.stdout and "wtc task update b --run r" in text.stdout, text.stdout
    assert " 41 " not in text.stdout

    code, body = wtc_in_process(repo, "task", "update", "b", "--run", "r")        # the way out: the row is whole again
    assert code == 0, body
    [row] = wtc_in_process(repo, "status", "--run", "r")[1]["tasks"]
    assert "half_made" not in row and row["files"] == 0, row


def test_task_check_and_the_forecast_read_no_changes_from_a_half_made_worktree(tmp_path: Path) -> None:
    """`wtc task check` said the killed checkout's 41 missing files were the task's changes ("clean",
    every file listed) and the forecast counted them: a check refuses it as finish does, naming the
    way out, and the forecast reads the task's branch instead, saying why."""
    repo, _ = _half_made(tmp_path)
    code, body = wtc_in_process(repo, "task", "check", "b", "--run", "r")
    assert code == 2 and "half-made" in body["error"]["message"], body
    assert "wtc task update b --run r" in body["error"]["fix"], body
    code, body = wtc_in_process(repo, "forecast", "--run", "r")
    [row] = body["tasks"]
    assert code == 0 and row["source"] == "branch" and row["files"] == 0, row
    assert "half made" in row["error"] and "wtc task update b --run r" in row["error"], row
