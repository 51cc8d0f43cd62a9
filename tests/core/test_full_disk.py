"""A full disk is the machine's problem, not a bug in wtc: a command whose output cannot be written
(stdout on /dev/full, a full disk or quota) says so on stderr with the way out, exits 1, and never
prints "internal error" or a traceback, on the quick path and typer's, with and without --json."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import wtc

@pytest.mark.parametrize("typer_path", [False, True], ids=["quick", "typer"])
@pytest.mark.parametrize("json_flag", [False, True], ids=["text", "json"])
def test_output_to_a_full_disk_says_the_disk_is_full(repo, typer_path, json_flag):
    assert wtc(repo, "run", "start", "--run", "r")[0] == 0
    env = dict(os.environ)
    env.pop("WTC_NO_FAST", None)
    if typer_path:
        env["WTC_NO_FAST"] = "1"
    argv = [sys.executable, "-m", "worktree_coord", "status", "--run", "r", *(["--json"] if json_flag else [])]
    with open("/dev/full", "w") as full:
        done = subprocess.run(argv, cwd=repo, env=env, stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert "the disk is full" in done.stderr and "wtc gc" in done.stderr, done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr, done.stderr
