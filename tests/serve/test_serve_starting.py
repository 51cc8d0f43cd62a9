"""`wtc serve` takes seconds to load before it listens, and calls run in-process meanwhile. In that
time `wtc serve --status` said "no wtc server is running" (`"running": false` and nothing else), and
`--stop` answered "no wtc server was running" while the server went on to serve. Now the status says
it is starting (`"state": "starting"` with its pid; exit 0 in every state, as docs/cli.md's exit 0
means: answered, nothing for the caller to do), `--stop` stops it, and a second `wtc serve` is told
one is on its way instead of loading for seconds to fail at the socket.

The server is held in its loading deterministically: a grammar wheel it preloads is shadowed (on its
PYTHONPATH only) by a module that waits for a file the test writes, as a slow disk or a loaded machine
would hold a real import."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from tests.serve.test_serve import IN_PROCESS, WTC, Served, run

SLOW_GRAMMAR = '''
import importlib, os, sys, time

# Says it is loading, is held until the test releases it, then the real wheel takes its place.
open(os.environ["WTC_TEST_LOADING"], "w").close()
release = os.environ["WTC_TEST_RELEASE"]
while not os.path.exists(release):
    time.sleep(0.02)
here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:] = [entry for entry in sys.path if os.path.abspath(entry or ".") != here]
del sys.modules[__name__]
sys.modules[__name__] = importlib.import_module(__name__)
'''


def _status(repo: Path) -> tuple[int, dict]:
    done = run(repo, "serve", "--status", "--json", env=IN_PROCESS)
    return done.returncode, json.loads(done.stdout)


def _loading_server(repo: Path, tmp_path: Path) -> tuple[subprocess.Popen[str], Path]:
    """A `wtc serve` held in its preload; returns it and the file that releases it."""
    shadow = tmp_path / "shadow" / "tree_sitter_python"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text(SLOW_GRAMMAR)
    release, loading = tmp_path / "release", tmp_path / "loading"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path / "shadow"), *sys.path]),
               WTC_TEST_RELEASE=str(release), WTC_TEST_LOADING=str(loading))
    process = subprocess.Popen([*WTC, "serve"], cwd=repo, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, start_new_session=True)
    deadline = time.monotonic() + 120
    while not loading.exists():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the server never reached the grammar"
        time.sleep(0.05)
    return process, release


def test_status_says_a_loading_server_is_starting_then_serving(repo: Path, tmp_path: Path) -> None:
    assert _status(repo) == (0, {"schema": "wtc.serve/1", "exit_code": 0, "running": False, "state": "stopped",
                                 "pid": None, "socket": str(repo / ".git" / "wtc" / "serve.sock")})
    process, release = _loading_server(repo, tmp_path)
    try:
        code, body = _status(repo)
        assert code == 0 and body["state"] == "starting" and body["pid"] == process.pid, body
        assert body["running"] is False                        # it serves no call yet: they run in-process
        human = run(repo, "serve", "--status", env=IN_PROCESS)
        assert human.returncode == 0 and f"starting for this repository (pid {process.pid}" in human.stdout

        second = run(repo, "serve", "--json", env=IN_PROCESS)   # a second server is told, at once
        assert second.returncode == 2, second
        assert "already starting" in json.loads(second.stdout)["error"]["message"]

        release.write_text("")
        assert process.stderr is not None and "wtc serve: serving" in process.stderr.readline()
        code, body = _status(repo)
        assert code == 0 and body["state"] == "running" and body["running"] is True, body
        assert not (repo / ".git" / "wtc" / "serve.starting").exists()
    finally:
        release.write_text("")
        process.kill()
        process.wait(timeout=60)


def test_stop_stops_a_server_still_loading(repo: Path, tmp_path: Path) -> None:
    process, release = _loading_server(repo, tmp_path)
    try:
        stopped = run(repo, "serve", "--stop", "--json", env=IN_PROCESS)
        assert json.loads(stopped.stdout) == {"schema": "wtc.serve/1", "exit_code": 0, "running": False,
                                              "stopped": True, "pid": process.pid}
        assert process.wait(timeout=120) == 0
        assert not (repo / ".git" / "wtc" / "serve.starting").exists()
        assert not (repo / ".git" / "wtc" / "serve.sock").exists()
        assert _status(repo)[1]["state"] == "stopped"
    finally:
        release.write_text("")
        if process.poll() is None:
            process.kill()
            process.wait(timeout=60)


def test_a_marker_left_by_a_killed_server_says_stopped(repo: Path, tmp_path: Path) -> None:
    process, release = _loading_server(repo, tmp_path)
    process.kill()                                              # no clean-up: the marker stays behind
    process.wait(timeout=60)
    release.write_text("")
    assert (repo / ".git" / "wtc" / "serve.starting").exists()
    assert _status(repo)[1]["state"] == "stopped"
    server = Served(repo)                                       # and a new server starts over it
    try:
        assert _status(repo)[1]["state"] == "running"
    finally:
        server.stop()
