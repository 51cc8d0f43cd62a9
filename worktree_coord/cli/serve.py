"""`wtc serve`: keep this repository's coordinator warm, so `wtc` calls skip their start-up.

Thin: the server and the client live in `worktree_coord/serve/`; the CLI's entry point hands a call
to a running server before the command line loads (entry.py), and works in-process when none runs.
"""

from __future__ import annotations

import typer

from . import app
from .common import JsonOption, RepoOption
from ..output.tagging import emit


@app.command("serve")
def serve(
    stop: bool = typer.Option(False, "--stop", help="Stop this repository's server (calls in flight finish), or one still "
                              "starting."),
    status: bool = typer.Option(False, "--status", help="Say whether a server serves this repository, is starting "
                                "(loading; calls run in-process until it serves) or is stopped; exit 0 in each "
                                "state."),
    repo: str = RepoOption,
    json_mode: bool = JsonOption,
) -> int:
    """Serve this repository's `wtc` calls from a warm process: no start-up per call.

    Runs in the foreground until stopped (`wtc serve --stop`, SIGTERM or Ctrl-C). While it runs, every
    `wtc` call in this repository is handed to it over a Unix socket in the git dir (owner only, with
    a token) and runs in a process forked from it with everything imported: the same output and exit
    code, the same state after a crash. With no server, calls run in-process. `WTC_NO_SERVE=1` keeps
    a call in-process; `WTC_SERVE_TOKEN` chooses the token (else a random one, in the git dir)."""
    from ..serve import server

    if stop or status:
        common_dir = str(server.locate(repo).common_dir)
        if stop:
            pid = server.stop(repo)
            emit({"running": False, "stopped": pid is not None, "pid": pid}, schema="serve", json_mode=json_mode,
                 human=f"stopped the wtc server (pid {pid})" if pid else "no wtc server was running")
            return 0
        # A status answers whatever the state: exit 0 (docs/cli.md: 0 is done, nothing left to do).
        state, pid = server.server_state(common_dir)
        path = server.protocol.socket_path(common_dir)
        human = {"running": f"a wtc server serves this repository at {path}",
                 "starting": f"a wtc server is starting for this repository (pid {pid}, loading); calls run "
                             "in-process until it serves",
                 "stopped": "no wtc server is running"}[state]
        emit({"running": state == "running", "state": state, "pid": pid, "socket": path}, schema="serve",
             json_mode=json_mode, human=human)
        return 0
    return server.run_server(repo)
