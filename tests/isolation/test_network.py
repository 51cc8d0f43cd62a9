"""Issue 41, item 1: every command wtc starts for a task has a network of its own, so test suites
that bind one fixed port (127.0.0.1:8000) in several tasks at once do not collide; with the run's
`network = "shared"` they do, as before.

Each command here is tests/isolation/bind_fixed_port.py: it binds 127.0.0.1:8000, holds it until
its partner task has bound it too (or failed to), then edits its task's files. The partner's files
are the barrier, so the two really hold the port at the same moment, whatever the machine's load.
"""

from __future__ import annotations

import errno
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import GIT_ENV, commit, git, make_repo, wtc
from tests.fanout.helpers import fanout
from worktree_coord.isolation import isolation_support

PORT = "8000"
BIND = str(Path(__file__).resolve().parent / "bind_fixed_port.py")

pytestmark = pytest.mark.skipif(not isolation_support().ok,
                                reason=f"network isolation unavailable here: {isolation_support().why}")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"README.md": "# r\n", "pkg/keep.txt": "keep\n"})


@pytest.fixture
def barrier(tmp_path: Path) -> Path:
    folder = tmp_path / "barrier"
    folder.mkdir()
    return folder


@pytest.fixture
def held_port():
    """127.0.0.1:8000 held on the host's network, as another agent's test server would hold it (when
    something else on this machine holds it already, that holds it just as well)."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        server.bind(("127.0.0.1", int(PORT)))
        server.listen()
    except OSError as error:
        if error.errno != errno.EADDRINUSE:   # held by another process: held just as well; else a real failure
            raise
    try:
        yield
    finally:
        server.close()


def exec_at_once(repo: Path, run: str, barrier: Path) -> dict[str, tuple[int, dict, str]]:
    """`wtc task exec a` and `wtc task exec b` started together, each binding the port."""
    env = dict(os.environ, **GIT_ENV)
    started = {}
    for name, partner in (("a", "b"), ("b", "a")):
        started[name] = subprocess.Popen(
            [sys.executable, "-m", "worktree_coord", "task", "exec", name, "--run", run, "--own", f"pkg/{name}/**",
             "--json", "--", sys.executable, BIND, PORT, str(barrier), name, partner, f"pkg/{name}/server.txt"],
            cwd=repo, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ended = {}
    for name, process in started.items():
        out, err = process.communicate(timeout=300)
        lines = [line for line in out.splitlines() if line.strip()]
        assert len(lines) == 1, (out, err)
        ended[name] = (process.returncode, json.loads(lines[0]), err)
    return ended


def test_two_task_execs_bind_the_same_port_at_once_and_both_merge(repo, barrier):
    assert wtc(repo, "run", "start", "--run", "r1")[0] == 0          # isolated: the default
    ended = exec_at_once(repo, "r1", barrier)
    for name, (code, body, err) in ended.items():
        assert code == 0, (name, body, err)
        assert body["command"]["exit_code"] == 0 and body["command"]["network"] == "isolated"
        assert body["finish"]["state"] == "merged"
        assert git(repo, "show", f"wtc/r1/integration:pkg/{name}/server.txt") == \
            f"{name}: bound 127.0.0.1:{PORT}; partner bound the same port at the same time"


def test_with_a_shared_network_one_of_them_cannot_bind_and_finishes_nothing(repo, barrier):
    code, started = wtc(repo, "run", "start", "--run", "r1", "--network", "shared")
    assert code == 0, started
    ended = exec_at_once(repo, "r1", barrier)
    failed = [name for name, (code, _, _) in ended.items() if code != 0]
    assert failed, "both bound 127.0.0.1:8000 on the host's one network"
    for name in failed:
        code, body, err = ended[name]
        assert code == 1 and body["command"]["exit_code"] == 1 and body["command"]["network"] == "shared"
        assert body["finish"] is None and "cannot bind 127.0.0.1:8000" in err
        assert git(repo, "ls-tree", "--name-only", "-r", "wtc/r1/integration", "pkg").count("server.txt") < 2


def test_two_fanout_agents_bind_the_same_port_at_once_and_both_merge(repo, barrier, tmp_path):
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({
        "agent": {"command": [sys.executable, BIND, PORT, str(barrier), "{task}", "*", "pkg/{task}/server.txt"],
                  "concurrency": 2, "attempts": 1, "network": "isolated"},
        "tasks": [{"name": name, "prompt": f"serve {name}", "own": [f"pkg/{name}/**"]} for name in ("a", "b")]}))
    code, _, summary = fanout(repo, plan, "r1", "--offline", log=tmp_path / "standin.log")
    assert code == 0 and summary is not None, summary
    assert {t["task"]: t["outcome"] for t in summary["tasks"]} == {"a": "merged", "b": "merged"}
    for name in ("a", "b"):
        assert git(repo, "show", f"wtc/r1/integration:pkg/{name}/server.txt") == \
            f"{name}: bound 127.0.0.1:{PORT}; partner bound the same port at the same time"
    assert not any("network isolation unavailable" in note for note in summary["notes"])


REACH = """import pathlib, socket, sys
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5).close()
    said = "reached the host's port"
except OSError as error:
    said = "did not reach: %s" % error
pathlib.Path(sys.argv[2]).parent.mkdir(parents=True, exist_ok=True)
pathlib.Path(sys.argv[2]).write_text(said)
"""


def test_a_fanout_agent_shares_the_host_network_unless_its_plan_asks_isolated(repo, tmp_path, held_port):
    # An agent talks to its model over the network, which its own namespace (loopback only) cannot
    # reach: by default it runs on the host's network, and reaches what listens there.
    plan = tmp_path / "plan.json"
    command = [sys.executable, "-c", REACH, PORT, "pkg/{task}/reach.txt"]
    plan.write_text(json.dumps({
        "agent": {"command": command, "attempts": 1},
        "tasks": [{"name": "default", "prompt": "reach", "own": ["pkg/default/**"]},
                  {"name": "alone", "prompt": "reach", "own": ["pkg/alone/**"], "network": "isolated"}]}))
    code, _, summary = fanout(repo, plan, "r1", "--offline", log=tmp_path / "standin.log")
    assert code == 0 and summary is not None, summary
    assert git(repo, "show", "wtc/r1/integration:pkg/default/reach.txt") == "reached the host's port"
    assert git(repo, "show", "wtc/r1/integration:pkg/alone/reach.txt").startswith("did not reach")


def test_a_verify_command_binds_the_port_another_program_holds(repo, barrier, held_port):
    assert wtc(repo, "run", "start", "--run", "r1")[0] == 0
    verify = f"{sys.executable} {BIND} {PORT} {barrier} verify - served.txt"
    code, started = wtc(repo, "task", "start", "a", "--run", "r1", "--own", "pkg/a/**")
    assert code == 0, started
    (Path(started["worktree"]) / "pkg/a").mkdir(parents=True)
    (Path(started["worktree"]) / "pkg/a/x.txt").write_text("x\n")
    code, finished = wtc(repo, "task", "finish", "a", "--run", "r1", "--verify", verify, env=GIT_ENV)
    assert code == 0 and finished["state"] == "merged", finished
    assert (barrier / "verify.bound").exists()                          # it ran, and bound the port


def test_a_verify_command_of_a_shared_run_cannot_bind_a_held_port(repo, barrier, held_port):
    commit(repo, {".wtc.toml": 'network = "shared"\n'}, "share the network")
    assert wtc(repo, "run", "start", "--run", "r1")[0] == 0          # the configuration's network, recorded
    verify = f"{sys.executable} {BIND} {PORT} {barrier} verify - served.txt"
    code, started = wtc(repo, "task", "start", "a", "--run", "r1", "--own", "pkg/a/**")
    (Path(started["worktree"]) / "pkg/a").mkdir(parents=True)
    (Path(started["worktree"]) / "pkg/a/x.txt").write_text("x\n")
    code, finished = wtc(repo, "task", "finish", "a", "--run", "r1", "--verify", verify, env=GIT_ENV)
    assert code == 1 and finished["state"] == "failed", finished
    assert finished["verification"]["network"]["network"] == "shared"
    assert "cannot bind 127.0.0.1:8000" in finished["verification"]["output_tail"]


def test_the_worktree_setup_command_binds_a_held_port_and_a_run_keeps_the_network_it_started_with(
        repo, barrier, held_port):
    setup = f"{sys.executable} {BIND} {PORT} {barrier} setup - .setup-ran"
    table = f"worktree-setup = {{ run = {json.dumps(setup)}, ports = 0 }}\n"
    commit(repo, {".wtc.toml": table}, "a setup command that serves")
    assert wtc(repo, "run", "start", "--run", "r1")[0] == 0          # isolated, recorded with the run
    commit(repo, {".wtc.toml": 'network = "shared"\n' + table}, "share the network from now on")
    code, started = wtc(repo, "task", "start", "a", "--run", "r1", "--own", "pkg/a/**")
    assert code == 0, started
    assert (Path(started["worktree"]) / ".setup-ran").read_text().startswith("setup: bound 127.0.0.1:8000")
    assert wtc(repo, "run", "start", "--run", "r2")[0] == 0          # takes the configuration's shared
    code, refused = wtc(repo, "task", "start", "b", "--run", "r2", "--own", "pkg/b/**")
    assert code == 1 and refused["error"]["kind"] == "setup_failed", refused
    assert refused["error"]["details"]["network"] == "shared"
    assert "cannot bind 127.0.0.1:8000" in Path(refused["error"]["details"]["log"]).read_text()


def test_exec_no_finish_runs_a_command_isolated_and_exits_with_its_code_leaving_the_task_live(
        repo, barrier, held_port):
    assert wtc(repo, "run", "start", "--run", "r1")[0] == 0
    env = dict(os.environ, **GIT_ENV)
    done = subprocess.run(
        [sys.executable, "-m", "worktree_coord", "task", "exec", "a", "--run", "r1", "--own", "pkg/a/**", "--no-finish",
         "--json", "--", "sh", "-c", '"$@" && exit 7', "sh", sys.executable, BIND, PORT, str(barrier),
         "a", "-", "pkg/a/server.txt"], cwd=repo, env=env, capture_output=True, text=True, timeout=300)
    body = json.loads(done.stdout)
    assert done.returncode == 7 and body["exit_code"] == 7, (body, done.stderr)      # the command's own code
    assert body["finish"] is None and body["command"]["network"] == "isolated"
    assert (barrier / "a.bound").exists()                                  # it bound the held port
    assert (Path(body["start"]["worktree"]) / "pkg/a/server.txt").exists()   # the task is live, its work kept
    code, status = wtc(repo, "status", "--run", "r1")
    assert code == 0 and [t["state"] for t in status["tasks"] if t["task"] == "a"] == ["started"], status


@pytest.mark.skipif(os.geteuid() != 0 or not Path("/usr/bin/setpriv").exists() or not Path("/usr/bin/python3").exists(),
                    reason="needs root, setpriv (to become an unprivileged user) and /usr/bin/python3")
def test_an_unprivileged_user_gets_its_own_loopback_through_a_user_namespace(tmp_path, held_port):
    """What a non-root machine does: the helper run as nobody unshares a user namespace with the
    network one (mapping only its own uid), binds the held port, and keeps its uid."""
    from worktree_coord.isolation import spawn_for

    probe = "import os, socket; s = socket.socket(); s.bind(('127.0.0.1', 8000)); print(os.getuid())"
    done = subprocess.run(["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                           # the system's python: this sandbox refuses a user namespace exec under /work
                           *spawn_for("isolated").argv(["/usr/bin/python3", "-I", "-c", probe])],
                          capture_output=True, text=True, timeout=60, cwd="/")
    if done.returncode == 125 and "unshare" in done.stderr:
        # This kernel refuses user namespaces to unprivileged users. Then the probe wtc runs before it
        # isolates anything must say so for that user too (what follows from its "no" is
        # tests/isolation/test_fallback.py): a probe that said yes where the spawn fails would leave a
        # run's commands failing with exit 125 instead of running shared with a note.
        from worktree_coord.isolation import HELPER, HELPER_FAILED

        probed = subprocess.run(["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                                 "/usr/bin/python3", "-I", "-S", "-c", HELPER, "true"],
                                capture_output=True, text=True, timeout=60, cwd="/")
        assert probed.returncode == HELPER_FAILED and "unshare" in probed.stderr, (probed.returncode, probed.stderr)
        return
    assert done.returncode == 0 and done.stdout.strip() == "65534", (done.stdout, done.stderr)
