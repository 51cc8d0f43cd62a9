"""`wtc task exec TASK --run ID [--own GLOB...] -- CMD ARGS...`: start (or resume), run CMD in the
worktree with the task's environment, finish, exit with the finish's code; a CMD that fails finishes
nothing; a task that merged runs nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import GIT_ENV, git, make_repo, wtc

WRITE = "import os, sys, pathlib; p = pathlib.Path(sys.argv[1]); p.parent.mkdir(parents=True, exist_ok=True); " \
        "p.write_text(sys.argv[2] + '\\n'); open(os.environ['COUNT'], 'a').write(os.environ['WTC_TASK'] + '\\n')"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "repo", {"README.md": "# r\n", "pkg/keep.txt": "keep\n"})
    assert wtc(root, "run", "start", "--run", "r1")[0] == 0
    return root


def exec_json(repo: Path, *args: str, counter: Path) -> tuple[int, dict, str]:
    import os

    done = subprocess.run([sys.executable, "-m", "worktree_coord", "task", "exec", *args], cwd=repo,
                          env=dict(os.environ, **GIT_ENV, COUNT=str(counter)), capture_output=True, text=True,
                          timeout=120)
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, (done.stdout, done.stderr)
    return done.returncode, json.loads(lines[0]), done.stderr


def test_exec_runs_the_command_in_the_worktree_finishes_and_a_second_exec_runs_nothing(repo, tmp_path):
    counter = tmp_path / "count"
    args = ["api", "--run", "r1", "--own", "pkg/api/**", "--json", "--", sys.executable, "-c", WRITE,
            "pkg/api/x.txt", "hello"]
    code, body, _ = exec_json(repo, *args, counter=counter)
    assert code == 0 and body["schema"] == "wtc.task.exec/1" and body["exit_code"] == 0
    assert body["command"]["exit_code"] == 0 and body["finish"]["state"] == "merged"
    assert git(repo, "show", "wtc/r1/integration:pkg/api/x.txt") == "hello"
    assert counter.read_text() == "api\n"            # WTC_TASK in its environment

    code, body, _ = exec_json(repo, *args, counter=counter)
    assert code == 0 and body["command"] is None and body["start"]["state"] == "merged"
    assert "was not run" in body["notes"][0]
    assert counter.read_text() == "api\n"            # never run again


def test_a_failing_command_finishes_nothing_and_the_next_exec_resumes_its_worktree(repo, tmp_path):
    counter = tmp_path / "count"
    fail = WRITE + "; sys.exit(3)"
    code, body, _ = exec_json(repo, "web", "--run", "r1", "--own", "pkg/web/**", "--json", "--", sys.executable, "-c",
                              fail, "pkg/web/a.txt", "first", counter=counter)
    assert code == 1 and body["command"]["exit_code"] == 3 and body["finish"] is None
    assert "was not finished" in body["notes"][0]
    worktree = Path(body["start"]["worktree"])
    assert (worktree / "pkg/web/a.txt").read_text() == "first\n"      # kept, uncommitted
    code, body, _ = exec_json(repo, "web", "--run", "r1", "--own", "pkg/web/**", "--json", "--", sys.executable,
                              "-c", WRITE, "pkg/web/b.txt", "second", counter=counter)
    assert code == 0 and body["start"]["existing"] is True and body["finish"]["state"] == "merged"
    assert git(repo, "show", "wtc/r1/integration:pkg/web/a.txt") == "first"
    assert git(repo, "show", "wtc/r1/integration:pkg/web/b.txt") == "second"


def test_exec_exits_with_the_finish_code_and_stops_a_command_at_its_timeout(repo, tmp_path):
    counter = tmp_path / "count"
    code, body, _ = exec_json(repo, "docs", "--run", "r1", "--own", "docs/**", "--json", "--", sys.executable, "-c",
                              WRITE, "pkg/outside.txt", "no", counter=counter)
    assert code == 3 and body["finish"]["state"] == "rejected"                 # the finish's own code
    code, body, _ = exec_json(repo, "slow", "--run", "r1", "--own", "pkg/slow/**", "--timeout", "1", "--json", "--",
                              sys.executable, "-c", "import time; time.sleep(60)", counter=counter)
    assert code == 1 and body["command"]["timed_out"] is True and body["command"]["seconds"] < 30


def test_the_command_output_goes_to_the_terminal_and_text_says_what_ran(repo, tmp_path):
    import os

    done = subprocess.run([sys.executable, "-m", "worktree_coord", "task", "exec", "say", "--run", "r1", "--own",
                           "pkg/say/**", "--", "sh", "-c", "echo said > pkg/said.txt; mkdir -p pkg/say; "
                           "echo hi > pkg/say/x.txt; echo from-the-command"],
                          cwd=repo, env=dict(os.environ, **GIT_ENV), capture_output=True, text=True, timeout=120)
    assert done.returncode == 3, done.stdout + done.stderr        # pkg/said.txt is outside its boundary
    assert "from-the-command" in done.stdout
    assert "$ sh -c" in done.stdout and "exit 0" in done.stdout and "rejected" in done.stdout
    code, _ = wtc(repo, "task", "exec", "none", "--run", "r1")
    assert code == 2                                               # no command given


def test_a_json_flag_after_the_double_dash_is_the_command_s_not_wtc_s(repo, tmp_path):
    import os

    done = subprocess.run([sys.executable, "-m", "worktree_coord", "task", "exec", "t", "--run", "no-such-run",
                           "--", "tool", "--json"], cwd=repo, env=dict(os.environ, **GIT_ENV),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 5
    assert done.stdout == "" and "wtc: error: no run 'no-such-run'" in done.stderr     # text, as asked


def test_exec_without_own_on_a_task_started_with_its_own_boundary_runs_in_it(repo, tmp_path):
    """Found driving wtc on npm/cli: docs/fanout.md's wrapper for an agent's own test run,
    `wtc task exec "$WTC_TASK" --run "$WTC_RUN" --no-finish -- CMD`, on a task started with
    `--own ... --sparse` answered exit 2 "already exists ... with another boundary" (the plan's
    default boundary, own everything, compared with the task's). No --own: the task as it is."""
    code, started = wtc(repo, "task", "start", "api", "--run", "r1", "--own", "pkg/api/**", "--sparse")
    assert code == 0, started
    counter = tmp_path / "count"
    code, body, _ = exec_json(repo, "api", "--run", "r1", "--no-finish", "--json", "--", sys.executable, "-c", WRITE,
                              "pkg/api/x.txt", "hello", counter=counter)
    assert code == 0, body
    assert body["start"]["existing"] is True and body["start"]["worktree"] == started["worktree"]
    assert body["start"]["boundary"]["own"] == ["pkg/api/**"] and body["finish"] is None
    assert (Path(started["worktree"]) / "pkg/api/x.txt").read_text() == "hello\n"
    code, again = wtc(repo, "task", "start", "api", "--run", "r1")    # a start again by name: the same task
    assert code == 0 and again["existing"] is True and again["boundary"]["own"] == ["pkg/api/**"], again
    code, other = wtc(repo, "task", "start", "api", "--run", "r1", "--own", "pkg/web/**")
    assert code == 2 and "another boundary" in other["error"]["message"], other
