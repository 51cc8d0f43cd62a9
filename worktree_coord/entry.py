"""The `wtc` script's entry point: catches Ctrl-C from the first moment, before the command line
loads (typer, pygit2: a few hundred milliseconds in which a KeyboardInterrupt would otherwise print
a raw traceback), then hands the call to this repository's warm server when one runs (`wtc serve`: serve/client.py),
else runs it without typer when it is one of the common calls given in full (fastcli.py), else over
to `worktree_coord.cli.main`, which handles it from there on.

Only the standard library is imported before the handler is in place.
"""

from __future__ import annotations

import os
import signal
import sys

EXIT_INTERRUPTED = 130   # worktree_coord.errors.EXIT_INTERRUPTED, not imported: this must load first
# The collector's first threshold in a `wtc` process. A call allocates a few hundred thousand
# containers as its modules load (classes, functions, their dicts and annotations), nearly all of
# them kept to the end: at Python's 700 the young collections ran ~270 times in a merging `task
# finish` and walked each of them again on its way to the oldest generation (~24 million
# instructions, 4% of the call); at this threshold ~20 times (~16 million). Only how often the
# collector runs changes: every cycle is still collected, with at most this many more containers
# waiting for it (merge/checks/merge_index.py raises it alike while a drain holds the index).
CALL_GC_THRESHOLD = 10_000


def _interrupted_while_loading(signum: int, frame: object) -> None:
    message = "interrupted (Ctrl-C) while wtc was starting; nothing was done"
    if "--json" in sys.argv[1:]:
        import json

        body = {"schema": "wtc.error/1", "exit_code": EXIT_INTERRUPTED, "ok": False,
                "error": {"kind": "interrupted", "message": message, "exit_code": EXIT_INTERRUPTED,
                          "fix": "run the same command again"}}
        sys.stdout.write(json.dumps(body) + "\n")
        sys.stdout.flush()
    else:
        sys.stderr.write(f"wtc: error: {message}\n")
        sys.stderr.flush()
    os._exit(EXIT_INTERRUPTED)


def main() -> None:
    """Entry point of the `wtc` and `worktree-coord` scripts and of `python -m worktree_coord`."""
    previous = signal.signal(signal.SIGINT, _interrupted_while_loading)
    collect_less_often()
    if sys.argv[1:] == ["--version"]:
        # Asked before anything else by harnesses checking what is installed: no command line to build.
        from . import __version__

        sys.stdout.write(f"wtc {__version__}\n")
        sys.exit(0)
    if sys.argv[1:] in (["version"], ["version", "--json"], ["--help"]):
        # Answers that read no repository: printed here (fastcli.py) in less than a round trip to a server.
        from .fastcli import prepare

        call = prepare(sys.argv[1:])
        if call is not None:
            signal.signal(signal.SIGINT, previous if callable(previous) else signal.default_int_handler)
            sys.exit(call())
    # A warm server for this repository (`wtc serve`) runs the call with everything imported;
    # without one (or a stale socket) this is a few stat calls and the call runs in-process.
    from .serve.client import served_call

    served = served_call(sys.argv[1:])
    if served is not None:
        sys.exit(served)
    # This process ends by `leave` (os._exit): the store's SQLite connection is left to that end, not
    # closed with a checkpoint and its fsync (store/sqlite.py, `SQLiteStore.close`).
    from .process_end import will_end_by_exit

    will_end_by_exit()
    # pygit2, where the call opens libgit2, loads without the ssl module (gitrepo/lean_pygit2.py).
    from .gitrepo.lean_pygit2 import install

    install()
    # The calls agents make most, when typer's parse would take them as given: run without typer.
    from .fastcli import prepare

    call = prepare(sys.argv[1:])
    if call is not None:
        signal.signal(signal.SIGINT, previous if callable(previous) else signal.default_int_handler)
        leave(call())
    from .cli import main as cli_main

    # From here on Ctrl-C is a KeyboardInterrupt again, inside cli.main's one handler.
    signal.signal(signal.SIGINT, previous if callable(previous) else signal.default_int_handler)
    try:
        cli_main()
    except SystemExit as done:
        if done.code is None or isinstance(done.code, int):
            leave(done.code or 0)
        raise
    leave(0)


def collect_less_often() -> None:
    """Raise the collector's first threshold to CALL_GC_THRESHOLD (a collector switched off, or set
    higher by the caller's environment, is left as it is)."""
    import gc

    first, *rest = gc.get_threshold()
    if 0 < first < CALL_GC_THRESHOLD:
        gc.set_threshold(CALL_GC_THRESHOLD, *rest)


def leave(code: int) -> None:
    """End the process with `code` the way a served call's process ends (serve/server.py): standard
    streams flushed, atexit handlers run (telemetry flushes, the integrator's git processes), then
    `os._exit`, without the interpreter's teardown. That teardown frees every object and module a
    call loaded one by one: ~50 ms of CPU after a `task finish` (the merge engine loaded), a fifth of
    the process, paid by every call of a swarm on the CLI path (scripts/profile_cli_calls.py).
    Nothing a call leaves needs it: the store and the repository are closed by then, and a
    killed call leaves the same state anyway. When a thread that is not a daemon still runs, or a
    stream cannot be flushed, the ordinary exit does what it always did."""
    threading = sys.modules.get("threading")
    if threading is not None and any(t.is_alive() and not t.daemon and t is not threading.main_thread()
                                     for t in threading.enumerate()):
        sys.exit(code)
    if "worktree_coord.gitrepo.git_locks" in sys.modules:    # the quick path's calls end here, not in cli.main
        from .output.tagging import emit_lock_warnings

        emit_lock_warnings()
    try:
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
    except (OSError, ValueError):
        sys.exit(code)          # a closed pipe: Python's own exit reports it as it always did
    import atexit

    atexit._run_exitfuncs()
    try:
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
    except (OSError, ValueError):
        pass
    os._exit(code & 0xFF)
