"""`wtc serve`: one warm server per repository, forking a process per call.

Stage: a face's transport. Input: the repository, `WTC_SERVE_TOKEN` (optional). Output: a socket at
`<git common dir>/wtc/serve.sock` until stopped (`wtc serve --stop`, SIGTERM, Ctrl-C).

Design (measured in docs/architecture.md, "The warm path"): the server imports everything a call can
need once (the CLI's command modules and typer's command tree built from them, the coordinator, pygit2, the store, the merge engine and every
language profile with its grammar and its compiled queries), freezes those objects out of the garbage collector (so children
share their pages), then accepts connections and forks a child per call. The child:
  - starts its own session (its own process group: a killed caller takes the call and its git
    children with it, as a process-group kill of a CLI does);
  - says hello, receives the caller's stdin/stdout/stderr as file descriptors, argv, cwd,
    environment and umask, and checks the token (constant time) before anything runs;
  - becomes the caller's process (those fds on 0/1/2, that cwd, that environment) and runs the CLI's
    own `main(argv)`: same output, same exit code, same crash points, a lease owner of its own;
  - sends the exit code. A child killed by a signal is reported by the server, and the caller dies
    by that signal.
A caller that goes away is normal, not an error of the server's: before its call starts, nothing
runs and nothing is logged; after, its call is killed with its process group, as a killed CLI's is.
The server holds nothing of a call: killed at any moment, each call in flight either completes
(its child is a process of its own) or is killed with it, the state a killed CLI leaves. A stop
stops accepting and removes the socket, then waits for the calls in flight; a second signal exits at once.

Code on disk: the server marks the package's files when it starts, and files that stand for the
distributions it requires (pygit2, tree-sitter, the grammar wheels: serve/code_mark.py); a call's
child that finds one changed (an upgrade in place, an edit of the checkout) refuses the call before
its hello, so the caller runs it in-process with the new code and says nothing of it, and has the
server stop (SIGUSR1: the stop a signal asks for, calls in flight finish). The next `wtc serve`
loads the new code.

Invariants: the server never opens the repository or the store itself (nothing a fork could
duplicate: no SQLite connection, no libgit2 handle, no thread); the socket and token are the
owner's alone (0600, under the git dir); a call is refused before it runs when the token is wrong.
"""

from __future__ import annotations

import atexit
import gc
import hmac
import importlib
import io
import os
import pkgutil
import secrets
import selectors
import signal
import socket
import sys
import threading
from pathlib import Path

from ..errors import NotFoundError, UsageError
from ..gitrepo.locate import Located, locate_plain
from . import code_mark, protocol
from .client import PACKAGE_DIR

# Modules a call never needs that are heavy or have their own optional dependencies: the MCP SDK
# (`wtc mcp` is never served), PostgreSQL's driver (loaded when a store address asks for it).
_NOT_PRELOADED = ("worktree_coord.__main__", "worktree_coord.mcp", "worktree_coord.store.postgres", "worktree_coord.cli.demo_scenario")
# Modules outside worktree_coord that calls import as they run (typer's click loads its decorators
# when a command is invoked; a decode in ASCII loads its codec): each served call imported them again.
_IMPORTED_BY_EVERY_CALL = ("typer._click.decorators", "encodings.ascii")
REQUEST_TIMEOUT = 30.0   # seconds a connected caller has to send its call after the hello


def locate(repo: str) -> Located:
    located = locate_plain(repo)
    if located is None:
        raise NotFoundError(f"wtc serve: {repo!r} is not inside a repository with the plain layout (a .git folder, "
                         "or a linked worktree of one)",
                         fix="run it from the main checkout, or pass --repo PATH; bare repositories, separate "
                             "git dirs and core.worktree are served in-process only")
    return located


def preload() -> int:
    """Import what any served call may need, and build once the data its calls read from the package
    (compiled queries, the profiles' index, the line diff's binding); returns how many worktree_coord
    modules are loaded."""
    from ..cli import keep_command_tree
    from ..coordinator import load_operations
    from ..merge.languages.profiles import load_profiles

    keep_command_tree()
    load_operations()   # the Coordinator with every operation, so no call loads one
    package = importlib.import_module("worktree_coord")
    for module in pkgutil.walk_packages(package.__path__, "worktree_coord."):
        if module.name.startswith(_NOT_PRELOADED):
            continue
        try:
            importlib.import_module(module.name)
        except Exception:       # an optional dependency missing: that module loads in the call, if ever
            continue
    from ..merge.checks.symbols import compile_queries
    from ..merge.languages.profile_index import load_index
    from ..merge.lines.line import libgit2_hunks

    for name in _IMPORTED_BY_EVERY_CALL:
        try:
            importlib.import_module(name)
        except ImportError:     # another typer's layout: its calls import what they need
            continue
    load_index()
    libgit2_hunks(b"a\n", b"b\n")   # the line diff's ctypes binding, found and set up (a glob, a CDLL)
    for profile in load_profiles():
        try:
            # Compiled queries are data the calls share like the modules (~1.3 s once, every
            # profile): a served finish or merge otherwise compiled its languages' in each call.
            compile_queries(profile)
        except Exception:       # a query that does not compile: the call that needs it says so
            continue
    return sum(1 for name in sys.modules if name.startswith("worktree_coord"))


def server_token(environ: dict[str, str] | os._Environ[str] = os.environ) -> str:
    given = environ.get(protocol.TOKEN_ENV, "")
    if given and len(given) < protocol.MIN_TOKEN:
        raise UsageError(f"{protocol.TOKEN_ENV} is too short to guard a server ({len(given)} characters)",
                         fix="use at least 16 random characters, e.g. `python -c 'import secrets; "
                             "print(secrets.token_urlsafe(32))'`, or unset it for a generated one")
    return given or secrets.token_urlsafe(32)


def _write_private(path: str, text: str) -> None:
    temporary = f"{path}.{os.getpid()}.tmp"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)
    os.replace(temporary, path)


def running_server(common_dir: str) -> bool:
    """Whether something listens on the repository's socket (a stale socket file says no)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(2.0)
        with protocol.ShortPath(protocol.socket_path(common_dir)) as short:
            sock.connect(short)
        return True
    except OSError:
        return False
    finally:
        sock.close()


def starting_server(common_dir: str) -> int | None:
    """The pid of a `wtc serve` of this repository still loading what it preloads (its marker,
    protocol.STARTING_NAME, names a live process: that pid with that start time), else None."""
    try:
        pid_text, start = Path(protocol.starting_path(common_dir)).read_text().split()
        pid = int(pid_text)
    except (OSError, ValueError):
        return None
    from ..store.liveness import Owner, host_identity, is_alive

    return pid if start and is_alive(Owner(host_identity(), pid, start, "")) else None


def server_state(common_dir: str) -> tuple[str, int | None]:
    """("running", None) when a server listens on the repository's socket; ("starting", pid) while a
    `wtc serve` loads before it listens (calls run in-process until then); ("stopped", None)."""
    if running_server(common_dir):
        return "running", None
    pid = starting_server(common_dir)
    return ("starting", pid) if pid is not None else ("stopped", None)


def stop(repo: str) -> int | None:
    """Ask the repository's server to stop (one still loading: end it with SIGTERM, which it takes
    as a stop); its pid, or None when none was running or starting."""
    from .client import connect, read_token

    common_dir = str(locate(repo).common_dir)
    token = read_token(common_dir)
    sock = connect(common_dir) if token else None
    if sock is None:
        pid = starting_server(common_dir)
        if pid is not None:
            os.kill(pid, signal.SIGTERM)
        return pid
    try:
        protocol.send(sock, {"token": token, "op": "stop"}, [0, 1, 2])
        answer = protocol.receive(sock) or {}
    finally:
        sock.close()
    if "refused" in answer:
        raise UsageError(f"the wtc server of this repository refused to stop: {answer['refused']}",
                         fix=f"use the token it was started with ({protocol.TOKEN_ENV}), or stop its process")
    return int(answer["stopping"]) if "stopping" in answer else None  # type: ignore[call-overload]


class Server:
    """The accept loop (see the module docstring)."""

    def __init__(self, located: Located, token: str, code: code_mark.CodeMark | None = None) -> None:
        self.located = located
        self.token = token
        self.code = code          # the package's files as loaded (None: not compared)
        self.common_dir = str(located.common_dir)
        self.path = protocol.socket_path(self.common_dir)
        self.calls: dict[int, socket.socket] = {}
        self.stopping = 0
        self.listener: socket.socket | None = None
        self.inode: int | None = None

    # -- set-up and tear-down ---------------------------------------------------------------------

    def listen(self) -> None:
        os.makedirs(protocol.state_dir(self.common_dir), exist_ok=True)
        if os.path.lexists(self.path):
            if running_server(self.common_dir):
                raise UsageError(f"a wtc server already serves {self.located.toplevel}",
                                 fix="use it, or stop it first: `wtc serve --stop`")
            os.unlink(self.path)          # stale: its server is gone
        _write_private(protocol.token_path(self.common_dir), self.token + "\n")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        previous = os.umask(0o177)        # the socket file is created 0600: the owner's alone
        try:
            with protocol.ShortPath(self.path) as short:
                listener.bind(short)
        except OSError as error:
            listener.close()
            raise UsageError(f"cannot listen on {self.path}: {error.strerror or error}",
                             fix="stop the other server (`wtc serve --stop`), or remove the file if none runs") from None
        finally:
            os.umask(previous)
        listener.listen(socket.SOMAXCONN)
        self.listener = listener
        self.inode = os.stat(self.path).st_ino

    def close(self) -> None:
        if self.listener is not None:
            self.listener.close()
            self.listener = None
        try:
            if os.stat(self.path).st_ino == self.inode:   # ours, not a newer server's
                os.unlink(self.path)
                os.unlink(protocol.token_path(self.common_dir))
        except OSError:
            pass

    # -- the loop ---------------------------------------------------------------------------------

    def serve(self, ready: "callable[[], None] | None" = None) -> None:  # type: ignore[valid-type]
        assert self.listener is not None
        wake_read, wake_write = os.pipe()
        os.set_blocking(wake_read, False)
        os.set_blocking(wake_write, False)
        previous_wakeup = signal.set_wakeup_fd(wake_write)

        def on_stop(signum: int, frame: object) -> None:
            self.stopping += 1
            if self.stopping > 1:
                raise KeyboardInterrupt   # a second signal: exit now; calls in flight run on alone

        def on_code_changed(signum: int, frame: object) -> None:
            # From a call's child (`_run_call`); several may send it: one stop, never the second
            # signal's exit at once.
            self.stopping = max(self.stopping, 1)

        handlers = {s: signal.signal(s, on_stop) for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)}
        handlers[signal.SIGUSR1] = signal.signal(signal.SIGUSR1, on_code_changed)
        handlers[signal.SIGCHLD] = signal.signal(signal.SIGCHLD, lambda signum, frame: None)
        selector = selectors.DefaultSelector()
        selector.register(self.listener, selectors.EVENT_READ)
        selector.register(wake_read, selectors.EVENT_READ)
        # Everything imported so far lives as long as the server: out of the collector's sight, so
        # no collection in a child writes to (and copies) the pages it shares with the server.
        gc.freeze()
        if ready is not None:
            ready()
        try:
            while not self.stopping:
                for key, _ in selector.select(timeout=5.0):
                    if key.fileobj is self.listener and not self.stopping:
                        self._accept(wake_read, wake_write)
                    elif key.fileobj == wake_read:
                        _drain(wake_read)
                self._reap()
            selector.unregister(self.listener)
            self.close()                  # no new calls: clients fall back in-process from here on
            while self.calls:             # the calls in flight finish (a second signal: at once)
                for key, _ in selector.select(timeout=5.0):
                    _drain(wake_read)
                self._reap()
        except KeyboardInterrupt:
            pass
        finally:
            self.close()
            selector.close()
            signal.set_wakeup_fd(previous_wakeup)
            for signum, handler in handlers.items():
                signal.signal(signum, handler)
            os.close(wake_read)
            os.close(wake_write)

    def _accept(self, wake_read: int, wake_write: int) -> None:
        assert self.listener is not None
        try:
            conn, _ = self.listener.accept()
        except OSError:
            return
        pid = os.fork()
        if pid == 0:                      # the call's process: never returns into this loop
            try:
                self.listener.close()
                for other in self.calls.values():
                    other.close()
                os.close(wake_read)
                os.close(wake_write)
            except BaseException:
                os._exit(70)
            _run_call(conn, self.token, self.code)
        self.calls[pid] = conn

    def _reap(self) -> None:
        while self.calls:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            conn = self.calls.pop(pid, None)
            if conn is None:
                continue
            if os.WIFSIGNALED(status):    # the child could not say it: the caller dies by this signal
                try:
                    protocol.send(conn, {"killed": os.WTERMSIG(status)})
                except OSError:
                    pass
            conn.close()


def _drain(fd: int) -> None:
    try:
        while os.read(fd, 512):
            pass
    except (BlockingIOError, InterruptedError):
        pass


class _StoppedWhileLoading(BaseException):
    """SIGTERM or SIGHUP before the server listens: a stop (BaseException: preload's imports catch
    every Exception of an optional module)."""


def run_server(repo: str, *, announce: bool = True) -> int:
    """`wtc serve`: serve until stopped; the exit code.

    Loading takes seconds (preload), and calls run in-process until the socket exists; meanwhile a
    marker (protocol.STARTING_NAME: this pid and its start time) tells `wtc serve --status` that a
    server is starting and `--stop` which process to stop, and a second `wtc serve` that one is
    coming. It is removed once the server listens, or when it ends before."""
    located = locate(repo)
    token = server_token()
    # Before preload imports anything more: a file changed while it loads reads as changed.
    code = code_mark.take(package_folders(), code_mark.distribution_files(code_mark.required_distributions()))
    common_dir = str(located.common_dir)
    if running_server(common_dir):
        raise UsageError(f"a wtc server already serves {located.toplevel}",
                         fix="use it, or stop it first: `wtc serve --stop`")
    other = starting_server(common_dir)
    if other is not None and other != os.getpid():
        raise UsageError(f"a wtc server is already starting for {located.toplevel} (pid {other})",
                         fix="use it once it serves (`wtc serve --status`), or stop it first: `wtc serve --stop`")

    def stopped(signum: int, frame: object) -> None:
        raise _StoppedWhileLoading

    handlers = {signum: signal.signal(signum, stopped) for signum in (signal.SIGTERM, signal.SIGHUP)}
    marker = _mark_starting(common_dir)
    try:
        try:
            loaded = preload()
            server = Server(located, token, code)
            server.listen()
        finally:
            _unmark_starting(common_dir, marker)

        def ready() -> None:
            if announce:
                sys.stderr.write(f"wtc serve: serving {located.toplevel} at {server.path} (pid {os.getpid()}, "
                                 f"{loaded} modules warm); stop with `wtc serve --stop`\n")
                sys.stderr.flush()

        server.serve(ready)
    except _StoppedWhileLoading:
        pass
    finally:
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
    return 0


def _mark_starting(common_dir: str) -> str:
    """Write this process's starting marker; returns what it holds, to remove only our own."""
    from ..store.liveness import process_start_time

    text = f"{os.getpid()} {process_start_time(os.getpid())}\n"
    os.makedirs(protocol.state_dir(common_dir), exist_ok=True)
    _write_private(protocol.starting_path(common_dir), text)
    return text


def _unmark_starting(common_dir: str, marker: str) -> None:
    path = protocol.starting_path(common_dir)
    try:
        if Path(path).read_text() == marker:   # ours, not a newer server's
            os.unlink(path)
    except OSError:
        pass


# -- the call's process -----------------------------------------------------------------------------

def package_folders() -> list[str]:
    """The folders the package's code and data load from: the package's own and its grammars'
    (an editable install maps `worktree_coord.grammars` to the checkout's grammars/ folder)."""
    from importlib.util import find_spec

    spec = find_spec("worktree_coord.grammars")
    grammars = list(spec.submodule_search_locations or []) if spec is not None else []
    return [PACKAGE_DIR, *grammars]


def _run_call(conn: socket.socket, token: str, loaded: code_mark.CodeMark | None = None) -> None:
    """The forked child: take over the caller's process state, run the CLI, report, exit. Never returns."""
    code = 70
    try:
        os.setsid()
        signal.set_wakeup_fd(-1)
        for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD, signal.SIGUSR1):
            signal.signal(signum, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        gc.unfreeze()
        changed = code_mark.changed(loaded) if loaded is not None else None
        if changed is not None:
            # Not this server's code any more: the caller runs the call in-process (a message in
            # place of the hello), and the server stops; its log says why.
            sys.stderr.write(f"wtc serve: {changed} changed since this server loaded its code; stopping "
                             "(calls run in-process until `wtc serve` starts again with the new code)\n")
            sys.stderr.flush()
            os.kill(os.getppid(), signal.SIGUSR1)
            protocol.send(conn, {"refused": f"the server's code changed ({changed})"})
            os._exit(0)
        protocol.send(conn, {"hello": protocol.VERSION, "package": PACKAGE_DIR, "pid": os.getpid()})
        conn.settimeout(REQUEST_TIMEOUT)
        fds: list[int] = []
        request = protocol.receive(conn, fds)
        conn.settimeout(None)
        if request is None:
            os._exit(0)
        given = str(request.get("token", ""))
        if not hmac.compare_digest(given.encode(), token.encode()):
            protocol.send(conn, {"refused": "wrong token"})
            os._exit(0)
        if request.get("op") == "stop":
            protocol.send(conn, {"stopping": os.getppid()})
            os.kill(os.getppid(), signal.SIGTERM)
            os._exit(0)
        argv = [str(arg) for arg in request["argv"]]  # type: ignore[union-attr]
        _become_caller(request, fds)
    except ConnectionError:
        # The caller went away before its call started (closed its connection, or was killed):
        # normal, as a CLI killed before its first line of work is. Nothing ran; nobody is left to
        # tell, and nothing is wrong with the server, so its log says nothing.
        os._exit(0)
    except BaseException as error:
        # Nothing of the call ran: the caller runs it in-process (and the server's log says why).
        try:
            sys.stderr.write(f"wtc serve: a call could not start: {type(error).__name__}: {error}\n")
            sys.stderr.flush()
            protocol.send(conn, {"refused": f"{type(error).__name__}: {error}"})
        finally:
            os._exit(70)
    finished = threading.Event()
    threading.Thread(target=_watch_caller, args=(conn, finished), daemon=True).start()
    try:
        from ..cli import main

        code = main(argv)
    except SystemExit as done:
        code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
    except KeyboardInterrupt:
        code = 130
    except BaseException:
        code = 6
    try:
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        atexit._run_exitfuncs()           # what an exiting CLI process runs (telemetry flushes...)
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        finished.set()
        protocol.send(conn, {"exit": code})
    except BaseException:
        pass
    os._exit(code)


def _become_caller(request: dict[str, object], fds: list[int]) -> None:
    if len(fds) != 3:
        raise ValueError("stdin, stdout and stderr are needed")
    os.umask(int(request.get("umask", 0o022)))  # type: ignore[call-overload]
    os.chdir(str(request["cwd"]))
    environ = request.get("env")
    if isinstance(environ, dict):
        os.environ.clear()
        os.environ.update({str(k): str(v) for k, v in environ.items()})
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    encoding = (os.environ.get("PYTHONIOENCODING", "").split(":")[0] or getattr(sys.__stdout__, "encoding", None)
                or "utf-8")
    # As the interpreter builds them at start-up: a fresh process's stdio, on the caller's files.
    sys.stdin = sys.__stdin__ = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False)),
                                                 encoding=encoding)
    sys.stdout = sys.__stdout__ = io.TextIOWrapper(io.BufferedWriter(io.FileIO(1, "w", closefd=False)),
                                                   encoding=encoding, line_buffering=os.isatty(1))
    sys.stderr = sys.__stderr__ = io.TextIOWrapper(io.BufferedWriter(io.FileIO(2, "w", closefd=False)),
                                                   encoding=encoding, errors="backslashreplace",
                                                   line_buffering=True, write_through=True)
    sys.argv = ["wtc", *[str(arg) for arg in request["argv"]]]  # type: ignore[union-attr]


def _watch_caller(conn: socket.socket, finished: threading.Event) -> None:
    """Signals the caller forwards are delivered here; the caller gone (killed) kills the call, with
    its process group (git children included), as killing the CLI's process group would."""
    while True:
        try:
            message = protocol.receive(conn)
        except (OSError, ValueError):
            message = None
        if message is None:
            if not finished.is_set():
                os.killpg(0, signal.SIGKILL)
            return
        signum = message.get("signal")
        if isinstance(signum, int):
            os.kill(os.getpid(), signum)
