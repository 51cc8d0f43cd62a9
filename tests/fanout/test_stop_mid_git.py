"""Ctrl-C reaches the runner's whole process group, git children included: a git command a task's
step runs dies with the stop. That task is stopped, as the others, and resumes; it is not left to
the lead as if wtc had failed.

Found driving wtc on networkx: `timeout 600 wtc fanout plan.toml` sent SIGTERM to its group while a
dependent task's preparation ran `git add -A --sparse`; the summary said "needs the lead: fc: error
... git add -A --sparse failed" and told the lead to fix it by hand, though the run again merged it
with nothing to fix.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import make_repo
from tests.fanout.helpers import environment, fanout, parse, task, write_plan

# A git on PATH that is the real one, except once: in task t1's worktree, the first `git add`
# interrupts its own process group (the runner's, as Ctrl-C in a terminal does) and dies with it.
SHIM = """#!{python}
import os, signal, sys
marker = {marker!r}
if "add" in sys.argv[1:] and os.getcwd().endswith("/r1/t1") and not os.path.exists(marker):
    open(marker, "w").close()
    os.killpg(os.getpgid(0), signal.SIGINT)
os.execv({git!r}, [{git!r}, *sys.argv[1:]])
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"README.md": "# r\n", "pkg/keep.txt": "keep\n"})


def test_a_task_whose_git_step_the_stop_killed_is_stopped_and_resumes(repo, tmp_path):
    shim_dir = tmp_path / "shim"
    shim_dir.mkdir()
    shim = shim_dir / "git"
    shim.write_text(SHIM.format(python=sys.executable, marker=str(tmp_path / "interrupted"), git=shutil.which("git")))
    shim.chmod(shim.stat().st_mode | stat.S_IEXEC)
    log = tmp_path / "standin.log"
    plan = write_plan(tmp_path / "plan.json", [
        task("t0", "write pkg/t0/x.txt zero"),
        task("t1", "write pkg/t1/x.txt one", depends_on=["t0"]),
    ], concurrency=2, attempts=1)
    env = environment(log, {"PATH": f"{shim_dir}{os.pathsep}{os.environ['PATH']}"})
    # Its own session: the interrupt reaches the runner's group, not this test's.
    runner = subprocess.run([sys.executable, "-m", "worktree_coord", "fanout", str(plan), "--run", "r1", "--json"],
                            cwd=repo, env=env, capture_output=True, text=True, timeout=300, start_new_session=True)
    code, _, summary = parse(runner.returncode, runner.stdout, runner.stderr)
    assert (tmp_path / "interrupted").exists(), "the shim's interrupt never ran"
    assert code == 130 and summary is not None and summary["stopped"] == "interrupted", (runner.stdout, runner.stderr)
    outcomes = {t["task"]: t["outcome"] for t in summary["tasks"]}
    assert outcomes["t1"] == "stopped", summary["tasks"]
    assert outcomes["t0"] == "merged"

    code, _, summary = fanout(repo, plan, "r1", log=log, env={"PATH": env["PATH"]})
    assert code == 0, summary
    assert {t["task"]: t["outcome"] for t in summary["tasks"]} == {"t0": "merged", "t1": "merged"}


# The race behind the test above's flake: the stop's signal kills the worker's git child, and the
# worker reads the failure before the main thread has run its handler and set `stopping`.
# A git that dies of SIGINT on `add`. In Python, not sh: a shell started in the background of a
# non-interactive one (CI run as `.ci/run &`) inherits SIGINT ignored and cannot take it back, so its
# `kill -INT $$` did nothing and the real git ran (the fresh-clone CI of session 60 failed so).
KILLS_ITSELF = """#!{python}
import os, signal, sys
if "add" in sys.argv[1:]:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGINT)
os.execv({git!r}, [{git!r}] + sys.argv[1:])
"""


def _killed_git_error(repo: Path, tmp_path: Path, monkeypatch) -> Exception:
    from worktree_coord.errors import GitError
    from worktree_coord.gitrepo.repository import GitRepo

    shim_dir = tmp_path / "selfkill"
    shim_dir.mkdir()
    (shim_dir / "git").write_text(KILLS_ITSELF.format(python=sys.executable, git=shutil.which("git")))
    (shim_dir / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{shim_dir}{os.pathsep}{os.environ['PATH']}")
    with pytest.raises(GitError) as caught:
        GitRepo(repo).git("add", "-A", "--", ".", cwd=repo)
    return caught.value


def _driver_of(stopping_after: float | None):
    import threading

    from worktree_coord.fanout.driver import RunContext, TaskDriver

    context = RunContext(repo=Path("."), run="r", plan=None, max_agents=1, agent_timeout=None,
                         agent_slots=threading.Semaphore(1), emit=lambda *a, **k: None,
                         set_phase=lambda *a: None)
    if stopping_after is not None:
        threading.Timer(stopping_after, context.stopping.set).start()
    driver = object.__new__(TaskDriver)   # _stop_ended reads the run's context only
    driver.context = context
    return driver


def test_a_git_killed_by_the_stops_signal_is_the_stops_even_before_the_runner_knows(repo, tmp_path, monkeypatch):
    error = _killed_git_error(repo, tmp_path, monkeypatch)
    assert error.details.get("signal") == 2 and "killed by signal 2" in error.message
    assert _driver_of(stopping_after=0.3)._stop_ended(error) is True


def test_a_git_that_failed_on_its_own_is_the_tasks_error_at_once(repo, tmp_path):
    import time

    from worktree_coord.errors import GitError
    from worktree_coord.gitrepo.repository import GitRepo

    with pytest.raises(GitError) as caught:
        GitRepo(repo).git("add", "--", "no/such/path", cwd=repo)
    assert "signal" not in caught.value.details
    began = time.monotonic()
    assert _driver_of(stopping_after=None)._stop_ended(caught.value) is False
    assert time.monotonic() - began < 1.0   # no wait for a stop that no signal announced
