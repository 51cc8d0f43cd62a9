"""Progress on a terminal, silence elsewhere; `wtc status` as a table on a terminal."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import git, make_repo, write
from worktree_coord.output.progress import RichProgress, describe, reporter_for, wants_progress
from worktree_coord.output.render import run_status, run_status_table
from worktree_coord.events import NullReporter
from worktree_coord.results import RunStatus

BIN = str(Path(sys.executable).parent)


class FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_rich_progress_draws_steps_and_a_bar():
    stream = io.StringIO()
    display = RichProgress("merge", stream=stream, force_terminal=True).start()
    display.event("merge.progress", run="r", task="api", state="merged", done=1, total=3)
    display.event("merge.progress", run="r", task="web", state="conflict", done=2, total=3)
    display.stop()
    out = stream.getvalue()
    assert "merge progress web conflict" in out and "2/3" in out
    assert display.events_seen == 2


def test_describe_names_the_subject():
    assert describe("task.merged", {"run": "r", "task": "t1", "commit": "x"}) == "task merged t1"
    assert describe("check.stage", {"stage": "merge"}) == "check stage merge"


def test_only_a_terminal_without_json_gets_progress(monkeypatch):
    assert wants_progress(False, stdout=FakeTTY(), stderr=FakeTTY())
    assert not wants_progress(True, stdout=FakeTTY(), stderr=FakeTTY())
    assert not wants_progress(False, stdout=io.StringIO(), stderr=FakeTTY())
    monkeypatch.setenv("TERM", "dumb")
    assert not wants_progress(False, stdout=FakeTTY(), stderr=FakeTTY())
    with reporter_for(json_mode=False) as reporter:  # pytest captures stdout: not a terminal
        assert isinstance(reporter, NullReporter)


def _status() -> RunStatus:
    return RunStatus(runs=[{"run": "r1", "state": "open", "base": "a" * 40, "integration": "wtc/r1/integration"}],
                     tasks=[{"task": "api", "state": "merged", "files": 3, "violations": 0, "conflicts": 0,
                             "age_seconds": 100},
                            {"task": "web", "state": "conflict", "files": 1, "violations": 0, "conflicts": 2,
                             "age_seconds": 5000}],
                     counts={"merged": 1, "conflict": 1})


def test_status_table_has_the_columns_and_rows():
    table = run_status_table(_status(), width=120)
    for word in ("task", "state", "files", "violations", "conflicts", "age", "api", "web", "83m", "1 conflict"):
        assert word in table
    assert "┏" in table and "\x1b[" in table  # a drawn, coloured table
    assert "┏" not in run_status(_status())   # the plain text for pipes stays plain


def test_merge_and_status_on_a_real_terminal(tmp_path):
    assert shutil.which("script"), "util-linux `script` provides the pseudo-terminal"
    repo = make_repo(tmp_path / "repo", {"a/x.txt": "1\n", "b/y.txt": "1\n"})
    env = dict(os.environ, PATH=BIN + os.pathsep + os.environ["PATH"], TERM="xterm", COLUMNS="100")

    def wtc(*args: str) -> str:
        return subprocess.run([sys.executable, "-m", "worktree_coord", *args, "--repo", str(repo)], env=env,
                              capture_output=True, text=True, timeout=120).stdout

    wtc("run", "start", "--run", "r1")
    for task, folder in (("ta", "a"), ("tb", "b")):
        started = wtc("task", "start", task, "--run", "r1", "--own", f"{folder}/**", "--json")
        write(Path(json.loads(started)["worktree"]), {f"{folder}/new.txt": task})
        wtc("task", "finish", task, "--run", "r1", "--no-merge")
    line = f"{sys.executable} -m worktree_coord merge --run r1 --repo {repo}"
    merged = subprocess.run(["script", "-qec", line, "/dev/null"], env=env, capture_output=True, text=True,
                            timeout=120)
    assert merged.returncode == 0, merged.stdout
    assert "merge" in merged.stdout and "2/2" in merged.stdout, merged.stdout  # the live bar was drawn
    assert "ta" in merged.stdout and "merged" in merged.stdout
    status = subprocess.run(["script", "-qec", f"{sys.executable} -m worktree_coord status --run r1 --repo {repo}",
                             "/dev/null"], env=env, capture_output=True, text=True, timeout=120)
    assert "┏" in status.stdout and "violations" in status.stdout
    piped = wtc("merge", "--run", "r1")
    assert "\x1b[" not in piped and "2/2" not in piped  # not a terminal: no progress, no colour
    assert git(repo, "rev-parse", "wtc/r1/integration")
