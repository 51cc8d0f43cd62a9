"""Issue 41 item 3: a command run from a folder that no longer exists (an agent's shell still in the
worktree its finish removed) answered exit 6, "internal error (a bug in wtc...)". It is the caller's
situation, not a bug: exit 2, saying the folder is gone and to pass --repo."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import make_repo


def _from_deleted_folder(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    folder.mkdir()
    script = 'cd "$1" && rmdir "$1" && shift && exec "$@"'
    return subprocess.run(["sh", "-c", script, "sh", str(folder), sys.executable, "-m", "worktree_coord", *args],
                          capture_output=True, text=True, timeout=120)


def test_a_command_from_a_deleted_folder_exits_2_and_says_to_pass_repo(tmp_path: Path) -> None:
    done = _from_deleted_folder(tmp_path / "gone", "status", "--json")
    assert done.returncode == 2, (done.stdout, done.stderr)
    body = json.loads(done.stdout)
    assert body["exit_code"] == 2
    assert body["error"]["message"] == "the current folder no longer exists; pass --repo"
    text = _from_deleted_folder(tmp_path / "gone2", "task", "check", "t", "--run", "r1")
    assert text.returncode == 2 and "the current folder no longer exists; pass --repo" in text.stderr, text.stderr
    assert "internal error" not in text.stderr


def test_an_absolute_repo_from_a_deleted_folder_still_works(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"README.md": "# x\n"})
    done = _from_deleted_folder(tmp_path / "gone", "run", "start", "--run", "r1", "--repo", str(repo), "--json")
    assert done.returncode == 0, (done.stdout, done.stderr)
    assert json.loads(done.stdout)["run"] == "r1"


def test_a_removed_worktree_inside_the_checkout_names_the_checkout_in_the_fix(tmp_path: Path) -> None:
    """An agent's shell still in the worktree its finish removed, retrying the finish (same key):
    the fix names the checkout to cd into, so the retry has its command (found driving wtc on pinia)."""
    repo = make_repo(tmp_path / "repo", {"README.md": "# x\n"})
    (repo / ".wtc" / "worktrees" / "r1").mkdir(parents=True)
    done = _from_deleted_folder(repo / ".wtc" / "worktrees" / "r1" / "t1", "task", "finish", "t1", "--run", "r1",
                                "--json")
    assert done.returncode == 2, (done.stdout, done.stderr)
    error = json.loads(done.stdout)["error"]
    assert error["message"] == "the current folder no longer exists; pass --repo"
    assert error["fix"] == (f"run it from the checkout (the deleted folder was that task's worktree; a task's "
                            f"finish removes it): cd {repo} && wtc task finish t1 --run r1 --json")
    # Another folder of the checkout: cd there and run it again.
    (repo / "docs").mkdir()
    done = _from_deleted_folder(repo / "docs" / "old", "status", "--json")
    assert json.loads(done.stdout)["error"]["fix"] == (
        f"cd {repo} (the checkout the deleted folder was in; a task's finish removes its "
        f"worktree) and run the command again, or pass --repo {repo}")


def test_a_task_command_that_took_its_task_from_the_removed_worktree_gets_the_whole_retry(tmp_path: Path) -> None:
    """An agent's `wtc task finish --key k1` (TASK and --run from the worktree), killed after the
    finish removed the worktree and run again there: the fix is the command to run from the
    checkout, TASK and --run named (found driving wtc on Leaflet: "cd the checkout and run it
    again" failed there for want of TASK)."""
    repo = make_repo(tmp_path / "repo", {"README.md": "# x\n"})
    (repo / ".wtc" / "worktrees" / "r1").mkdir(parents=True)
    done = _from_deleted_folder(repo / ".wtc" / "worktrees" / "r1" / "t1", "task", "finish", "--key", "k1")
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert f"cd {repo} && wtc task finish t1 --run r1 --key k1" in done.stderr, done.stderr
