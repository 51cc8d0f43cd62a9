"""A new task's start lists the pin's files under its --own folders (one `git ls-tree`, for the
"matches no file" notes) beside its worktree's registration and checkout, not before them: two
processes on two cores. Its notes, its errors and what a failed start leaves are as when the
listing ran first (a failure of the listing is still the start's error, with nothing left)."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

from tests.conftest import git, make_repo, wtc

# git, with marks for the test: `worktree add` leaves one as it starts; `ls-tree` waits for it (at
# most 10 s, so a start that lists first still ends) and writes down whether it came, then both run
# the real git. With LS_TREE_FAILS set, ls-tree fails as git does.
SHIM = """#!/bin/sh
case " $* " in
  *" worktree add "*) : > "$MARKS/add-started" ;;
  *" ls-tree "*)
    i=0
    while [ ! -e "$MARKS/add-started" ] && [ $i -lt "${WAIT_TENTHS:-100}" ]; do sleep 0.1; i=$((i+1)); done
    if [ -e "$MARKS/add-started" ]; then echo beside >> "$MARKS/ls-tree"; else echo alone >> "$MARKS/ls-tree"; fi
    if [ -n "$LS_TREE_FAILS" ]; then echo "fatal: unable to read tree (a test's failure)" >&2; exit 128; fi ;;
esac
exec "$REAL_GIT" "$@"
"""


def _shimmed(tmp_path: Path, **extra: str) -> tuple[Path, dict[str, str]]:
    folder, marks = tmp_path / "bin", tmp_path / "marks"
    folder.mkdir()
    marks.mkdir()
    shim = folder / "git"
    shim.write_text(SHIM)
    shim.chmod(shim.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    real = shutil.which("git")
    assert real is not None
    env = {"PATH": f"{folder}{os.pathsep}{os.environ['PATH']}", "MARKS": str(marks), "REAL_GIT": real,
           "WTC_NO_SERVE": "1", **extra}
    return marks, env


def test_a_new_tasks_listing_runs_beside_its_worktree_add(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    assert wtc(repo, "run", "start", "--run", "r")[0] == 0
    marks, env = _shimmed(tmp_path)
    code, body = wtc(repo, "task", "start", "t", "--run", "r", "--own", "packages/api/**", "--own", "nowhere/**",
                     env=env)
    assert code == 0, body
    assert (marks / "ls-tree").read_text().split() == ["beside"]
    assert [n for n in body["notes"] if "matches no file" in n] == [
        f"--own 'nowhere/**' matches no file at the pin ({body['base'][:12]}): fine for files the task creates; "
        "if it was meant to name existing files, check its spelling (wtc task widen adds a glob)"]
    assert (Path(body["worktree"]) / "packages" / "api" / "index.js").is_file()


def test_a_listing_that_fails_beside_a_worktree_add_leaves_no_task(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    assert wtc(repo, "run", "start", "--run", "r")[0] == 0
    marks, env = _shimmed(tmp_path, LS_TREE_FAILS="1")
    code, body = wtc(repo, "task", "start", "t", "--run", "r", "--own", "packages/api/**", env=env)
    assert code != 0 and "unable to read tree (a test's failure)" in body["error"]["message"], body
    code, status = wtc(repo, "status", "--run", "r")
    assert code == 0 and status["tasks"] == [], status
    assert git(repo, "branch", "--list", "wtc/r/t") == ""
    assert not (repo / ".wtc" / "worktrees" / "r" / "t").exists()
    assert "wtc/r/t" not in git(repo, "worktree", "list", "--porcelain")


def test_a_started_tasks_start_again_lists_before_touching_its_worktree(tmp_path: Path) -> None:
    """A start of a task that exists keeps listing first: a failure then leaves its worktree as it was."""
    repo = make_repo(tmp_path / "repo")
    assert wtc(repo, "run", "start", "--run", "r")[0] == 0
    code, first = wtc(repo, "task", "start", "t", "--run", "r", "--own", "packages/api/**")
    assert code == 0, first
    marks, env = _shimmed(tmp_path, WAIT_TENTHS="5")
    code, again = wtc(repo, "task", "start", "t", "--run", "r", "--own", "packages/api/**", env=env)
    assert code == 0 and again["existing"], again
    assert not (marks / "add-started").exists() and (marks / "ls-tree").read_text().split() == ["alone"]
