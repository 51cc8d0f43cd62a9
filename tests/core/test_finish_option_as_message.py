"""`wtc task finish T -m --json`: the message went missing and `--json` was taken as it (click's rule,
on the quick path and through typer alike). The finish must refuse before it does anything, name the
option and say how to give the message, and leave the task as it was."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import wtc


def _finish(repo, *args: str, fast: bool) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if not fast:
        env["WTC_NO_FAST"] = "1"
    return subprocess.run([sys.executable, "-m", "worktree_coord", "task", "finish", "t", "--run", "r", *args],
                          cwd=repo, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("fast", [True, False], ids=["quick-path", "typer"])
def test_an_option_taken_as_the_message_is_refused_and_nothing_is_finished(repo, fast):
    assert wtc(repo, "run", "start", "--run", "r")[0] == 0
    code, started = wtc(repo, "task", "start", "t", "--run", "r", "--own", "docs/**")
    assert code == 0, started
    worktree = started["worktree"]
    (repo / worktree / "docs").mkdir(exist_ok=True)
    (repo / worktree / "docs" / "note.md").write_text("a note\n")

    done = _finish(repo, "-m", "--json", fast=fast)
    assert done.returncode == 2, (done.stdout, done.stderr)
    said = done.stdout + done.stderr
    assert "the value of --message is '--json', which is one of this command's options" in said, said
    assert "was the value left out before it?" in said and "--message 'what changed'" in said, said

    code, status = wtc(repo, "status", "--run", "r")
    assert [task["state"] for task in status["tasks"]] == ["started"], status
    assert (repo / worktree / "docs" / "note.md").read_text() == "a note\n", "the worktree is untouched"

    # A message that only mentions an option is a message.
    done = _finish(repo, "-m", "--json support for report", "--json", fast=fast)
    assert done.returncode == 0, (done.stdout, done.stderr)
    assert json.loads(done.stdout.strip().splitlines()[-1])["task"] == "t"
