"""The command line's contract: exit codes and one JSON object under --json, even for usage errors."""

import json
import subprocess
import sys


def run_wtc(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "worktree_coord", *args], capture_output=True, text=True)


def test_help_lists_commands_and_exits_zero():
    done = run_wtc("--help")
    assert done.returncode == 0, done.stderr
    assert "Usage" in done.stdout


def test_unknown_command_is_a_usage_error_with_one_json_object():
    done = run_wtc("no-such-command", "--json")
    assert done.returncode == 2
    body = json.loads(done.stdout)
    assert body["schema"] == "wtc.error/1"
    assert body["error"]["exit_code"] == 2
