"""`wtc serve`, the warm path: a call handed to the repository's server prints the same stdout and
stderr and exits with the same code as the same call in-process (WTC_NO_SERVE=1); a server killed
mid-call leaves what a killed CLI leaves, its stale socket sends calls back in-process, a wrong token
runs nothing, and `wtc serve --stop` stops it. Real repositories, real `wtc` processes."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import commit, make_repo, write

from worktree_coord.serve import protocol

WTC = [sys.executable, "-m", "worktree_coord"]
IN_PROCESS = {protocol.NO_SERVE_ENV: "1"}


def run(repo: Path, *args: str, env: dict[str, str] | None = None, stdin: str | None = None,
        cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*WTC, *args], cwd=cwd or repo, env=dict(os.environ, **(env or {})), input=stdin,
                          capture_output=True, text=True, timeout=300)


class Served:
    """A `wtc serve` process for one repository, started and waited for its start-up line."""

    def __init__(self, repo: Path, env: dict[str, str] | None = None) -> None:
        self.repo = repo
        self.process = subprocess.Popen([*WTC, "serve"], cwd=repo, env=dict(os.environ, **(env or {})),
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                        start_new_session=True)
        assert self.process.stderr is not None
        line = self.process.stderr.readline()     # blocks until it serves (or dies)
        assert "wtc serve: serving" in line, f"server did not start: {line!r} {self.process.stderr.read()!r}"

    def calls(self) -> list[int]:
        """The server's children: the calls it runs right now."""
        path = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        return [int(pid) for pid in path.read_text().split()]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=60)


@pytest.fixture
def served(repo: Path):
    server = Served(repo)
    yield server
    server.stop()


def wait_for(predicate, what: str, timeout: float = 120.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def same(repo: Path, *args: str, stdin: str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    served = run(repo, *args, stdin=stdin, cwd=cwd)
    alone = run(repo, *args, stdin=stdin, cwd=cwd, env=IN_PROCESS)
    assert (served.returncode, served.stdout, served.stderr) == (alone.returncode, alone.stdout, alone.stderr)
    return served


def test_served_calls_print_and_exit_as_in_process(repo: Path, served: Served, tmp_path: Path) -> None:
    assert run(repo, "run", "start", "--run", "r1", "--json").returncode == 0
    assert same(repo, "status", "--run", "r1", "--json").returncode == 0
    assert same(repo, "status", "--run", "r1").returncode == 0
    assert same(repo, "version").stdout.startswith("wtc ")
    assert same(repo, "task", "--help").returncode == 0
    missing = same(repo, "status", "--run", "nope")               # not found: exit 5, the message on stderr
    assert missing.returncode == 5 and "no run 'nope'" in missing.stderr
    assert same(repo, "status", "--run", "bad name!", "--json").returncode == 2
    # Exit 1 with the merged text on stdout: a conflicting three-way merge of one file.
    write(tmp_path, {"b.txt": "one\ntwo\nthree\n", "l.txt": "one\nleft\nthree\n", "r.txt": "one\nright\nthree\n"})
    conflict = same(repo, "merge-file", *(str(tmp_path / name) for name in ("b.txt", "l.txt", "r.txt")))
    assert conflict.returncode == 1 and "<<<<<<<" in conflict.stdout
    # Reads stdin: the Claude Code hook's payload (a payload naming no worktree is refused, exit 2).
    assert same(repo, "hook", "claude", "worktree-create", stdin=json.dumps({"session_id": "s"})).returncode == 2


def test_a_write_served_is_the_write_in_process(repo: Path, served: Served) -> None:
    assert run(repo, "run", "start", "--run", "r1", "--json").returncode == 0
    started = run(repo, "task", "start", "t1", "--run", "r1", "--own", "packages/api/**", "--json")
    assert started.returncode == 0, started.stdout + started.stderr
    worktree = Path(json.loads(started.stdout)["worktree"])
    write(worktree, {"packages/api/index.js": "export function api() {\n  return 10;\n}\n"})
    finished = run(repo, "task", "finish", "t1", "--run", "r1", "--json")
    assert finished.returncode == 0 and json.loads(finished.stdout)["state"] == "merged"
    # A repeat with the same (derived) key replays the stored result, served or not.
    again = run(repo, "task", "finish", "t1", "--run", "r1", "--json", env=IN_PROCESS)
    assert json.loads(again.stdout)["state"] == "merged" and json.loads(again.stdout)["replayed"] is True


def test_a_crash_in_a_served_call_is_a_crash_of_the_cli(tmp_path: Path) -> None:
    """The same crash point, served and in-process: the caller dies by SIGKILL both times and the
    repository is left in the same state, which the same repeat recovers from."""
    outcomes = []
    for name, env in (("served", {}), ("in-process", IN_PROCESS)):
        repo = make_repo(tmp_path / name)
        server = Served(repo) if name == "served" else None
        try:
            assert run(repo, "run", "start", "--run", "r1", "--json", env=env).returncode == 0
            crashed = run(repo, "task", "start", "t1", "--run", "r1", "--own", "packages/api/**", "--json",
                          env={**env, "WTC_CRASH_AT": "start.after_record"})
            assert crashed.returncode == -signal.SIGKILL and crashed.stdout == ""
            after_crash = json.loads(run(repo, "status", "--run", "r1", "--json", env=IN_PROCESS).stdout)
            repeated = run(repo, "task", "start", "t1", "--run", "r1", "--own", "packages/api/**", "--json", env=env)
            assert repeated.returncode == 0, repeated.stdout + repeated.stderr
            outcomes.append(([(t["task"], t["state"]) for t in after_crash["tasks"]], json.loads(repeated.stdout)["task"]))
        finally:
            if server:
                server.stop()
    assert outcomes[0] == outcomes[1]


def _fd0(pid: int) -> str:
    try:
        return os.readlink(f"/proc/{pid}/fd/0")
    except OSError:
        return ""


def test_server_killed_mid_call_then_its_stale_socket_falls_back(repo: Path) -> None:
    server = Served(repo)
    # A call that waits for its stdin (the hook reads its payload to the end): it is running in the
    # server's child while we kill the server, then the child, as a machine-wide kill would.
    caller = subprocess.Popen([*WTC, "hook", "claude", "worktree-create"], cwd=repo, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    child = wait_for(lambda: server.calls(), "the call's process in the server")[0]
    # Running, not only forked: the child has taken the caller's stdin (after its hello and the
    # request). Killed before that, nothing ran and the caller rightly runs the call in-process
    # (a race CI's load once lost: the in-process hook read the closed stdin and exited 2).
    stdin = f"pipe:[{os.fstat(caller.stdin.fileno()).st_ino}]"
    wait_for(lambda: _fd0(child) == stdin, "the call's process reading the caller's stdin")
    server.process.kill()
    server.process.wait(timeout=60)
    os.kill(child, signal.SIGKILL)
    _, err = caller.communicate(timeout=120)
    assert caller.returncode == -signal.SIGKILL                    # what a killed CLI's caller sees
    assert "the wtc server died while running this call" in err
    sock = repo / ".git" / "wtc" / protocol.SOCKET_NAME
    assert sock.is_socket()                                        # stale: nobody listens
    assert same(repo, "status", "--json").returncode == 0          # in-process, silently
    status = run(repo, "serve", "--status", "--json")
    assert json.loads(status.stdout)["running"] is False
    # A new server replaces the stale socket.
    again = Served(repo)
    try:
        assert json.loads(run(repo, "serve", "--status", "--json").stdout)["running"] is True
    finally:
        again.stop()


def test_a_caller_killed_kills_its_served_call(repo: Path, served: Served) -> None:
    caller = subprocess.Popen([*WTC, "hook", "claude", "worktree-create"], cwd=repo, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    child = wait_for(lambda: served.calls(), "the call's process in the server")[0]
    caller.kill()
    caller.wait(timeout=60)
    wait_for(lambda: child not in served.calls(), "the call's process to die with its caller")


def test_a_wrong_token_is_refused_before_anything_runs(repo: Path, served: Served) -> None:
    common = str(repo / ".git")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    with protocol.ShortPath(protocol.socket_path(common)) as short:
        sock.connect(short)
    hello = protocol.receive(sock)
    assert hello is not None and hello["hello"] == protocol.VERSION
    marker = repo / "ran"
    protocol.send(sock, {"token": "x" * 32, "argv": ["run", "start", "--run", "r9"], "cwd": str(repo),
                         "env": dict(os.environ), "umask": 0o022}, [0, 1, 2])
    assert protocol.receive(sock) == {"refused": "wrong token"}
    sock.close()
    assert not marker.exists()
    assert json.loads(run(repo, "status", "--json", env=IN_PROCESS).stdout)["runs"] == []
    # The CLI with a wrong WTC_SERVE_TOKEN is refused too, and runs in-process instead.
    done = run(repo, "status", "--json", env={protocol.TOKEN_ENV: "y" * 32})
    assert done.returncode == 0 and json.loads(done.stdout)["runs"] == []
    token_file = repo / ".git" / "wtc" / protocol.TOKEN_NAME
    assert oct(token_file.stat().st_mode & 0o777) == "0o600"
    assert oct((repo / ".git" / "wtc" / protocol.SOCKET_NAME).stat().st_mode & 0o777) == "0o600"


def test_serve_stop(repo: Path, served: Served) -> None:
    assert json.loads(run(repo, "serve", "--status", "--json").stdout)["running"] is True
    stopped = run(repo, "serve", "--stop", "--json")
    assert json.loads(stopped.stdout) == {"schema": "wtc.serve/1", "exit_code": 0, "running": False,
                                          "stopped": True, "pid": served.process.pid}
    assert served.process.wait(timeout=120) == 0
    assert not (repo / ".git" / "wtc" / protocol.SOCKET_NAME).exists()
    assert not (repo / ".git" / "wtc" / protocol.TOKEN_NAME).exists()
    assert json.loads(run(repo, "serve", "--stop", "--json").stdout)["stopped"] is False
    assert run(repo, "status", "--json").returncode == 0


def test_a_second_server_for_one_repository_is_refused(repo: Path, served: Served) -> None:
    second = run(repo, "serve", "--json")
    assert second.returncode == 2 and "already serves" in json.loads(second.stdout)["error"]["message"]


def test_serve_outside_a_plain_repository_says_so(tmp_path: Path) -> None:
    done = run(tmp_path, "serve", "--json")
    assert done.returncode == 5 and "plain layout" in json.loads(done.stdout)["error"]["message"]


def test_a_server_slow_to_fork_is_waited_for_not_worked_around_in_process(repo: Path, served: Served) -> None:
    """A server that took the connection is alive, only starved (a swarm's load): the caller waits
    for its hello past the connect timeout instead of paying an in-process start-up beside it."""
    from worktree_coord.serve.client import CONNECT_TIMEOUT

    os.kill(served.process.pid, signal.SIGSTOP)       # the accept loop gets no CPU for a while
    try:
        caller = subprocess.Popen([*WTC, "hook", "claude", "worktree-create"], cwd=repo, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(CONNECT_TIMEOUT + 1.0)             # past the old 5 s hello: that caller ran in-process
    finally:
        os.kill(served.process.pid, signal.SIGCONT)
    child = wait_for(lambda: served.calls(), "the call's process in the server")[0]
    # Served, not in-process: the caller still holds its connection to the server (a caller that
    # gave up closed it before running the hook itself, which opens no socket).
    held = [os.readlink(f"/proc/{caller.pid}/fd/{fd}") for fd in os.listdir(f"/proc/{caller.pid}/fd")]
    assert any(target.startswith("socket:") for target in held), held
    assert child in served.calls()
    caller.kill()
    caller.wait(timeout=60)
    wait_for(lambda: child not in served.calls(), "the call's process to die with its caller")


@pytest.mark.parametrize("reads_hello", [False, True], ids=["before-the-hello", "after-the-hello"])
def test_a_client_that_goes_away_mid_call_is_normal(repo: Path, tmp_path: Path, reads_hello: bool) -> None:
    """A client connects, sends a call (a write) and closes without reading the answer. The server
    logged `wtc serve: a call could not start: BrokenPipeError: [Errno 32] Broken pipe` for each: a
    caller that goes away is normal. Now its log holds its start-up line alone, it keeps serving, and
    the call is as a killed CLI leaves it: not run, or run (whole, or killed mid-way) and idempotent."""
    server = Served(repo)
    try:
        token = (repo / ".git" / "wtc" / protocol.TOKEN_NAME).read_text().strip()
        with open(os.devnull) as stdin, open(tmp_path / "out", "w") as out, open(tmp_path / "err", "w") as err:
            for _ in range(5):
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                with protocol.ShortPath(protocol.socket_path(str(repo / ".git"))) as short:
                    sock.connect(short)
                if reads_hello:
                    assert protocol.receive(sock)["hello"] == protocol.VERSION   # type: ignore[index]
                protocol.send(sock, {"token": token, "argv": ["run", "start", "--run", "gone"], "cwd": str(repo),
                                     "env": dict(os.environ), "umask": 0o022}, [stdin.fileno(), out.fileno(), err.fileno()])
                sock.close()
                # A client that connects and leaves without a word.
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                with protocol.ShortPath(protocol.socket_path(str(repo / ".git"))) as short:
                    sock.connect(short)
                sock.close()
        wait_for(lambda: not server.calls(), "the abandoned calls to end")
        done = run(repo, "run", "start", "--run", "gone", "--json")          # served: the next call works
        assert done.returncode == 0, done.stderr
        # The call's process sends its exit code and then exits: its caller can return before
        # the server has reaped it, so it is waited for, not read at once.
        wait_for(lambda: not server.calls(), "the served call's process to be reaped")
        assert server.process.poll() is None
        assert json.loads(run(repo, "status", "--run", "gone", "--json", env=IN_PROCESS).stdout)["runs"][0]["run"] == "gone"
    finally:
        server.stop()
    assert server.process.stderr is not None
    log = server.process.stderr.read()
    assert log == "", log   # no "could not start: BrokenPipeError", no traceback
