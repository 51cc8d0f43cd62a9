"""Inside a task's worktree `wtc task check|finish|update|abandon` need neither TASK nor --run (and
`wtc status` shows the task's run): the
worktree's `.wtc/env` names both, from its root or any folder below it. Given and not the worktree's,
they are refused before anything is done (an agent in task a's worktree finishing task b is a
mistake); outside any task's worktree the error names what is missing and how to give it. The quick
path, typer's path and a served call answer alike. Real repositories, the real `wtc` command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import make_repo, write, wtc

FILES = {"pkg/a.py": "a = 1\n", "lib/b.py": "b = 1\n", "docs/guide.md": "guide\n"}
TYPER = {"WTC_NO_FAST": "1"}     # every call through typer: the quick path's reference


def _started(tmp_path: Path, *tasks: tuple[str, str]) -> tuple[Path, dict[str, Path]]:
    repo = make_repo(tmp_path / "repo", FILES)
    assert wtc(repo, "run", "start", "--run", "r")[0] == 0
    worktrees = {}
    for task, own in tasks:
        code, body = wtc(repo, "task", "start", task, "--run", "r", "--own", own)
        assert code == 0, body
        worktrees[task] = Path(body["worktree"])
    return repo, worktrees


def _text(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "worktree_coord", *args], cwd=cwd,
                          env=dict(os.environ, **(env or {})), capture_output=True, text=True, timeout=300)


def test_check_and_finish_in_the_worktree_take_task_and_run_from_it(tmp_path: Path) -> None:
    repo, worktrees = _started(tmp_path, ("api", "pkg/**"))
    worktree = worktrees["api"]
    write(worktree, {"pkg/a.py": "a = 2\n"})
    for env in ({}, TYPER):
        code, body = wtc(worktree, "task", "check", env=env)
        assert (code, body["task"]) == (0, "api"), body
    # From a folder below the worktree's root, and with only one of the two given.
    code, body = wtc(worktree / "pkg", "task", "check", "api", env=TYPER)
    assert (code, body["task"]) == (0, "api"), body
    code, body = wtc(worktree / "pkg", "task", "finish", "--run", "r", "-m", "a is 2")
    assert (code, body["state"]) == (0, "merged"), body
    assert wtc(repo, "status", "--run", "r")[1]["tasks"][0]["state"] == "merged"


def test_update_and_abandon_in_the_worktree_take_task_and_run_from_it(tmp_path: Path) -> None:
    _, worktrees = _started(tmp_path, ("api", "pkg/**"), ("web", "lib/**"))
    code, body = wtc(worktrees["api"], "task", "update")
    assert code == 0 and body["schema"] == "wtc.task.update/1", body
    code, body = wtc(worktrees["web"] / "lib", "task", "abandon")
    assert code == 0 and body["task"] == "web", body
    assert not worktrees["web"].exists()


def test_another_task_named_in_a_worktree_is_refused_before_anything_is_done(tmp_path: Path) -> None:
    repo, worktrees = _started(tmp_path, ("api", "pkg/**"), ("web", "lib/**"))
    write(worktrees["web"], {"lib/b.py": "b = 2\n"})
    for args in (("task", "finish", "web", "--run", "r"), ("task", "finish", "web"),
                 ("task", "check", "web"), ("task", "abandon", "web"), ("task", "update", "--run", "other")):
        for env in ({}, TYPER):
            code, body = wtc(worktrees["api"], *args, env=env)
            assert code == 2 and body["error"]["kind"] == "usage", (args, body)
            message = body["error"]["message"]
            assert "'api'" in message and ("'web'" in message or "'other'" in message), message
            assert "main checkout" in body["error"]["fix"], body
    states = {task["task"]: task["state"] for task in wtc(repo, "status", "--run", "r")[1]["tasks"]}
    assert states == {"api": "started", "web": "started"}
    assert worktrees["web"].is_dir() and worktrees["api"].is_dir()
    # The lead, from the main checkout (or with --repo there), names any task as before.
    code, body = wtc(worktrees["api"], "task", "finish", "web", "--run", "r", "--repo", str(repo))
    assert (code, body["state"]) == (0, "merged"), body


def test_outside_a_worktree_the_error_names_what_is_missing_and_how_to_give_it(tmp_path: Path) -> None:
    repo, _ = _started(tmp_path, ("api", "pkg/**"))
    for args, missing, fix in (
            (("task", "finish"), "missing argument TASK and option --run", "wtc task finish TASK --run RUN"),
            (("task", "check", "api"), "missing option --run", "wtc task check api --run RUN"),
            (("task", "update", "--run", "r"), "missing argument TASK", "wtc task update TASK --run r")):
        texts = []
        for env in ({}, TYPER):
            done = _text(repo, *args, env=env)
            assert done.returncode == 2 and done.stdout == "", done
            assert missing in done.stderr and "not inside a task's worktree" in done.stderr, done.stderr
            assert fix in done.stderr, done.stderr
            texts.append(done.stderr)
            code, body = wtc(repo, *args, env=env)
            assert code == 2 and missing in body["error"]["message"] and fix in body["error"]["fix"], body
        assert texts[0] == texts[1], "the quick path and typer's say the same"


def test_a_copied_env_file_does_not_make_a_folder_a_task_worktree(tmp_path: Path) -> None:
    """`.wtc/env` names its worktree: one copied into another linked worktree is not taken."""
    repo, worktrees = _started(tmp_path, ("api", "pkg/**"))
    other = tmp_path / "other"
    subprocess.run(["git", "worktree", "add", "-q", "--detach", str(other)], cwd=repo, check=True)
    (other / ".wtc").mkdir()
    (other / ".wtc" / "env").write_text((worktrees["api"] / ".wtc" / "env").read_text())
    code, body = wtc(other, "task", "check")
    assert code == 2 and "missing argument TASK and option --run" in body["error"]["message"], body


def test_a_served_call_in_the_worktree_takes_them_too(tmp_path: Path) -> None:
    from tests.serve.test_serve import Served

    repo, worktrees = _started(tmp_path, ("api", "pkg/**"), ("web", "lib/**"))
    server = Served(repo)
    try:
        served = _text(worktrees["api"], "task", "check")
        alone = _text(worktrees["api"], "task", "check", env={"WTC_NO_SERVE": "1"})
        assert served.returncode == 0 and "task api" in served.stdout, served
        assert (served.returncode, served.stdout, served.stderr) == (alone.returncode, alone.stdout, alone.stderr)
        refused = _text(worktrees["api"], "task", "finish", "web")
        assert refused.returncode == 2 and "'web'" in refused.stderr, refused
    finally:
        server.stop()


def test_status_in_a_worktree_shows_its_run(tmp_path: Path) -> None:
    repo, worktrees = _started(tmp_path, ("api", "pkg/**"))
    assert wtc(repo, "run", "start", "--run", "other")[0] == 0
    for env in ({}, TYPER):
        code, body = wtc(worktrees["api"] / "pkg", "status", env=env)
        assert code == 0 and [run["run"] for run in body["runs"]] == ["r"], body
        assert [task["task"] for task in body["tasks"]] == ["api"], body
    code, body = wtc(repo, "status")
    assert code == 0 and sorted(run["run"] for run in body["runs"]) == ["other", "r"], "the main checkout lists the runs"


def test_intent_add_in_the_worktree_takes_task_and_run_from_it(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")          # conftest's monorepo: a root package.json
    assert wtc(repo, "run", "start", "--run", "r")[0] == 0
    code, body = wtc(repo, "task", "start", "api", "--run", "r", "--own", "packages/api/**")
    assert code == 0, body
    worktree = Path(body["worktree"])
    code, body = wtc(worktree / "packages", "intent", "add", "--manifest", "package.json", "--op", "add_dep",
                     "--name", "left-pad", "--spec", "^1.3.0")
    assert code == 0 and body["intent"]["task"] == "api", body
    code, body = wtc(worktree, "intent", "add", "web", "--manifest", "package.json", "--op", "add_dep",
                     "--name", "left-pad", "--spec", "^1.3.0")
    assert code == 2 and "'web'" in body["error"]["message"] and "'api'" in body["error"]["message"], body
    code, body = wtc(repo, "intent", "add", "--manifest", "package.json", "--op", "add_dep", "--name", "x")
    assert code == 2 and "wtc intent add TASK --run RUN" in body["error"]["fix"], body


def _exec(cwd: Path, *args: str) -> tuple[int, dict, str]:
    """`wtc task exec ARGS` with --json before the `--` (what follows it is the command's)."""
    done = _text(cwd, "task", "exec", "--json", *args)
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, (done.stdout, done.stderr)
    return done.returncode, json.loads(lines[0]), done.stderr


def test_exec_in_the_worktree_takes_task_and_run_from_it(tmp_path: Path) -> None:
    """`wtc task exec -- CMD` inside a task's worktree runs CMD for that task: everything after
    `--` is the command (it once took CMD's first word for TASK)."""
    repo, worktrees = _started(tmp_path, ("api", "pkg/**"), ("web", "lib/**"))
    who = "import os, sys; open('pkg/a.py', 'w').write(f'a = {os.environ[\"WTC_TASK\"]!r}\\n')"
    code, body, _ = _exec(worktrees["api"] / "pkg", "--no-finish", "--", sys.executable, "-c", who)
    assert code == 0 and body["start"]["task"] == "api" and body["command"]["exit_code"] == 0, body
    assert body["command"]["argv"] == [sys.executable, "-c", who]
    assert (worktrees["api"] / "pkg" / "a.py").read_text() == "a = 'api'\n"
    # TASK named before `--` still counts, and is the worktree's.
    code, body, _ = _exec(worktrees["api"], "api", "-m", "a is api", "--", "true")
    assert (code, body["finish"]["state"]) == (0, "merged"), body
    code, body, _ = _exec(worktrees["web"], "api", "--", "true")
    assert code == 2 and "'api'" in body["error"]["message"] and "'web'" in body["error"]["message"], body
    states = {task["task"]: task["state"] for task in wtc(repo, "status", "--run", "r")[1]["tasks"]}
    assert states == {"api": "merged", "web": "started"}


def test_exec_outside_a_worktree_says_what_is_missing(tmp_path: Path) -> None:
    repo, _ = _started(tmp_path, ("api", "pkg/**"))
    code, body, _ = _exec(repo, "--", "true")
    assert code == 2 and "missing argument TASK and option --run" in body["error"]["message"], body
    code, body, _ = _exec(repo, "api", "--run", "r")
    assert code == 2 and "command" in body["error"]["message"], body
