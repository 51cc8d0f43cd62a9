"""The CLI's side of the warm path: hand this call to a running `wtc serve`, or say there is none.

Stage: the first thing `wtc` does (entry.py), before the command line loads. Input: argv and the
process's cwd, environment, umask and stdin/stdout/stderr. Output: the call's exit code when a server
for this repository ran it, or None, and the caller works in-process as if no server existed.

Invariants:
- None (in-process) whenever the server cannot take the call *before* it is sent: no socket, a stale
  socket (nobody listening: refused at once), no readable token, a server of another checkout of
  worktree_coord or one whose code changed on disk since it started (it answers with a refusal in
  place of its hello, then stops: serve/code_mark.py), no connection within CONNECT_TIMEOUT or no hello within HELLO_TIMEOUT after it
  (a server that took the connection is alive: it is waited for, not worked around), a refused token. A call is sent at most once, so
  falling back never runs it twice.
- once sent, the call's outcome is the child's: its exit code, or its death by a signal, which this
  process reproduces on itself (a caller that waits on it sees what a killed CLI shows). The server
  dying too (no answer at all) is reported on stderr and this process dies by SIGKILL, the state a
  killed CLI leaves.
- signals this process gets (Ctrl-C, SIGTERM, SIGHUP) are forwarded to the call; this process dying
  closes the connection, and the call's process group is killed: a killed caller is a killed call.
- imports only the standard library and `gitrepo/locate.py` (no pygit2).
"""

from __future__ import annotations

import os
import signal
import stat
import sys
TYPE_CHECKING = False   # not typing's: this runs first in every call (issue 36, start-up)

from ..gitrepo.locate import locate_plain
from . import protocol

if TYPE_CHECKING:
    import socket

CONNECT_TIMEOUT = 5.0                      # seconds for a connection to the socket (a full backlog)
# Seconds for the server to fork the call's process once it has the connection. Only a live
# server's listening socket takes a connection (a stale socket refuses at once, a stopping server
# closes its backlog: EOF), and a starved one is slow, not gone: under a swarm's load (run queue
# 15-60 on two cores) 32 callers at once waited over 5 s for their forks, and each that gave up ran
# in-process, a whole interpreter's start-up on the cores the server was short of.
HELLO_TIMEOUT = 60.0
NOT_SERVED = ("serve", "mcp")               # servers themselves, never handed to a server
_FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def repo_argument(args: list[str]) -> str:
    """The `--repo`/`-C` value of a command line (what every command's RepoOption reads), else `.`."""
    repo = "."
    for index, arg in enumerate(args):
        if arg in ("--repo", "-C") and index + 1 < len(args):
            repo = args[index + 1]
        elif arg.startswith("--repo="):
            repo = arg[len("--repo="):]
    return repo


def read_token(common_dir: str) -> str | None:
    given = os.environ.get(protocol.TOKEN_ENV)
    if given:
        return given
    try:
        with open(protocol.token_path(common_dir), encoding="utf-8") as handle:
            return handle.read().strip() or None
    except OSError:
        return None


def connect(common_dir: str) -> "socket.socket | None":
    """A connection to the repository's server that said hello, or None (no server, stale, other code)."""
    path = protocol.socket_path(common_dir)
    try:
        if not stat.S_ISSOCK(os.stat(path).st_mode):
            return None
    except OSError:
        return None
    import socket   # only now: most calls find no server and never pay for it

    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(CONNECT_TIMEOUT)
        with protocol.ShortPath(path) as short:
            sock.connect(short)
        sock.settimeout(HELLO_TIMEOUT)
        hello = protocol.receive(sock)
        # Same code or no deal: a server started from another checkout would answer differently
        # (one whose own files changed since it loaded them sends no hello at all: server._run_call).
        if not hello or hello.get("hello") != protocol.VERSION or hello.get("package") != PACKAGE_DIR:
            sock.close()
            return None
        sock.settimeout(None)
        return sock
    except (OSError, ValueError):
        sock.close()
        return None


def served_call(argv: list[str]) -> int | None:
    """Run `wtc ARGV` in this repository's warm server: its exit code, or None (run it in-process)."""
    if os.environ.get(protocol.NO_SERVE_ENV, "") not in ("", "0"):
        return None
    args = argv[:argv.index("--")] if "--" in argv else argv
    if not args or args[0] in NOT_SERVED:
        return None
    try:
        located = locate_plain(repo_argument(args))
        for fd in (0, 1, 2):
            os.fstat(fd)                    # a closed stdio cannot be passed: in-process then
    except OSError:
        return None
    if located is None:
        return None
    common_dir = str(located.common_dir)
    token = read_token(common_dir)
    if token is None:
        return None
    sock = connect(common_dir)
    if sock is None:
        return None
    umask = os.umask(0o022)
    os.umask(umask)
    request = {"token": token, "argv": list(argv), "cwd": os.getcwd(), "env": dict(os.environ), "umask": umask}
    try:
        protocol.send(sock, request, [0, 1, 2])
    except OSError:
        sock.close()
        return None                         # not sent: nothing ran
    return _await(sock)


def _await(sock: "socket.socket") -> int | None:
    def forward(signum: int, frame: object) -> None:
        try:
            protocol.send(sock, {"signal": signum})
        except OSError:
            pass

    previous = {signum: signal.signal(signum, forward) for signum in _FORWARDED}
    try:
        while True:
            try:
                answer = protocol.receive(sock)
            except (OSError, ValueError):
                answer = None
            if answer is None:
                sys.stderr.write("wtc: error: the wtc server died while running this call; its state is what a "
                                 "killed wtc leaves: run the same command again (every write is idempotent)\n")
                sys.stderr.flush()
                _die_by(signal.SIGKILL)
            if "exit" in answer:
                return int(answer["exit"])  # type: ignore[call-overload]
            if "killed" in answer:
                _die_by(int(answer["killed"]))  # type: ignore[call-overload]
            if "refused" in answer:
                return None                 # refused before it ran: in-process
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        sock.close()


def _die_by(signum: int) -> None:
    """End this process the way the call's process ended: by the same signal."""
    sys.stdout.flush()
    if signum not in (signal.SIGKILL, signal.SIGSTOP):
        signal.signal(signum, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signum])
    os.kill(os.getpid(), signum)
    os._exit(128 + signum)                  # a signal whose default is to ignore it (SIGCHLD...)
