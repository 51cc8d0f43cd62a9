"""A run whose pinned commit left the repository (the branch it was pinned from deleted or force-pushed,
the integration branch deleted, then `git gc`): `wtc task start` answered `git ls-tree failed: fatal:
not a tree object` (exit 2, "bad input", naming no run, commit or way out) and left the task recorded
as started with no worktree. Now it says what is missing and what to do (exit 5, not found), and
records nothing."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import commit, git, make_repo, wtc_in_process


def _run_without_its_pin(tmp_path: Path) -> tuple[Path, str]:
    repo = make_repo(tmp_path / "repo", {"a.py": "a = 1\n"})
    git(repo, "checkout", "-q", "-b", "side")
    pin = commit(repo, {"b.py": "b = 1\n"}, "on a side branch")
    git(repo, "checkout", "-q", "main")
    code, body = wtc_in_process(repo, "run", "start", "--run", "r", "--base", "side")
    assert code == 0 and body["base"] == pin, body
    git(repo, "branch", "-q", "-D", "side", "wtc/r/integration")
    git(repo, "reflog", "expire", "--expire=now", "--all")
    git(repo, "gc", "-q", "--prune=now")
    assert git(repo, "cat-file", "-t", pin, check=False) == ""
    return repo, pin


def test_a_task_start_on_a_run_whose_pin_is_gone_says_so(tmp_path: Path) -> None:
    repo, pin = _run_without_its_pin(tmp_path)
    for args in (("--own", "**"), ("--own", "src/**", "--sparse"), ()):
        code, body = wtc_in_process(repo, "task", "start", "t", "--run", "r", *args)
        assert code == 5, body
        error = body["error"]
        assert error["kind"] == "not_found", error
        assert f"run r's pinned commit {pin[:12]} is no longer in this repository" in error["message"], error
        assert "wtc run start" in error["fix"] and "git fetch" in error["fix"], error
        code, status = wtc_in_process(repo, "status", "--run", "r")
        assert code == 0 and status["tasks"] == [], status          # nothing recorded
        assert git(repo, "branch", "--list", "wtc/r/t") == ""
        assert not (repo / ".wtc" / "worktrees" / "r" / "t").exists()


def test_check_of_a_task_whose_runs_pin_is_gone_says_so(tmp_path: Path) -> None:
    """`wtc check --run --task` reads the run's rules at its pin: gone, it says so (a branch that no
    longer descends from its pin, reset by its agent, is what can outlive the pin)."""
    repo = make_repo(tmp_path / "repo", {"a.py": "a = 1\n"})
    git(repo, "checkout", "-q", "-b", "side")
    pin = commit(repo, {"b.py": "b = 1\n"}, "on a side branch")
    git(repo, "checkout", "-q", "main")
    assert wtc_in_process(repo, "run", "start", "--run", "r", "--base", "side")[0] == 0
    code, body = wtc_in_process(repo, "task", "start", "t", "--run", "r", "--own", "**")
    assert code == 0, body
    git(Path(body["worktree"]), "reset", "-q", "--hard", "main")
    git(repo, "branch", "-q", "-D", "side", "wtc/r/integration")
    git(repo, "reflog", "expire", "--expire=now", "--all")
    git(repo, "gc", "-q", "--prune=now")
    assert git(repo, "cat-file", "-t", pin, check=False) == ""

    code, body = wtc_in_process(repo, "check", "--run", "r", "--task", "t", "--target", "main", "--format", "json")
    assert code == 5, body
    assert f"run r's pinned commit {pin[:12]} is not in this repository" in body["error"]["message"], body
