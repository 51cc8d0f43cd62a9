"""The swarm harness's CPU by kind of process (`stress_swarm.py --cpu-by-process`,
scripts/cpu_accounting.py): the git wrapper it puts first on PATH is git to its callers (output,
exit code, death by a signal) and logs each git's CPU by subcommand; a small served swarm reports
every kind with every invariant holding."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import make_repo
from tests.stress.harness import SCRIPTS, load_script

sys.path.insert(0, str(SCRIPTS))
accounting = load_script("cpu_accounting")


def test_the_git_wrapper_is_git_to_its_caller_and_logs_each_call(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.txt": "a\n"})
    env = dict(os.environ, **accounting.install_git_wrapper(tmp_path / "acct"))
    wrapped = str(tmp_path / "acct" / "bin" / "git")
    assert env["PATH"].split(os.pathsep)[0] == str(tmp_path / "acct" / "bin")
    for args in (["-C", str(repo), "rev-parse", "HEAD"], ["-C", str(repo), "rev-parse", "--verify", "-q", "nope"],
                 ["-c", "core.quotepath=off", "-C", str(repo), "ls-files"]):
        real = subprocess.run(["git", *args], capture_output=True)
        through = subprocess.run([wrapped, *args], capture_output=True, env=env)
        assert (through.returncode, through.stdout, through.stderr) == (real.returncode, real.stdout, real.stderr)
    waiting = subprocess.Popen([wrapped, "hash-object", "--stdin"], stdin=subprocess.PIPE, env=env)
    time.sleep(0.5)                            # git is reading its stdin
    waiting.send_signal(signal.SIGTERM)        # forwarded to git; the wrapper ends as git did
    assert waiting.wait(timeout=30) == -signal.SIGTERM
    logged = accounting.read_git_log(env["WTC_ACCT_GIT_LOG"])
    assert logged.calls == {("wtc", "rev-parse"): 2, ("wtc", "ls-files"): 1, ("wtc", "hash-object"): 1}
    assert all(seconds >= 0 for seconds in logged.seconds.values())


@pytest.mark.heavy
@pytest.mark.slow
@pytest.mark.timeout(400)
def test_a_served_swarm_reports_its_cpu_by_kind_of_process(tmp_path: Path) -> None:
    stress = load_script("stress_swarm")
    config = stress.SwarmConfig(workers=4, tasks=8, retry_rate=0.0, kill_rate=0.0, seed=5, packages=8, files=3,
                                sparse_rate=1.0, workdir=str(tmp_path), serve=True, cpu_by_process=True)
    report = stress.run_swarm(config, log=lambda *_: None)
    assert report.ok, [f"{v.name}: {v.detail}" for v in report.verdicts if not v.ok]
    rows = {kind.strip(): (seconds, count) for kind, seconds, count in report.cpu_by_process}
    assert rows["wtc client processes (hand the call over)"][1] >= 16          # a start and a finish a task
    assert rows["served calls' python (forked by wtc serve)"][0] > 0
    assert rows["its start-up (imports, preload: once a server)"][0] > 0
    assert rows["git processes started by wtc"][1] >= 8 * 4                   # worktree add, read-tree, add, commit...
    assert {"git worktree", "git read-tree", "git commit"} <= set(rows)
    # the harness put its environment back: later processes run git itself
    assert str(tmp_path / "acct") not in os.environ.get("PATH", "") and "WTC_ACCT_GIT_LOG" not in os.environ
