"""The MCP server of one repository: the tools, `land` behind its approval, the resources.

Stage: assembly. Input: the repository to coordinate. Output: an `MCPServer` (the official SDK's),
ready for a transport (`serve_stdio` here, `http.serve_http`).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

import anyio
from mcp.server.mcpserver import MCPServer

from .. import __version__
from ..errors import NotFoundError
from .approval import build_land
from .calls import Served
from .resources import add_resources
from .tools import build_tools

DEFAULT_MAX_CALLS = 64   # calls running at once; beyond it they wait in order (heavy work queues below too)

INSTRUCTIONS = """\
worktree_coord (wtc) coordinates parallel coding agents on one git repository. A lead calls run_start
once; each agent calls task_start (own globs = what it may change), edits files in the returned
worktree, then task_finish. Conflicts come back in full (path, declaration, three versions): call
task_update, resolve the markers in the worktree, task_finish again. Root manifests and lockfiles are
reserved: declare intent_add instead of editing them; consolidate applies intents. report shows what
landing would bring; land asks the person for approval. Every write is idempotent: retrying a call
(same arguments, same or no idempotency_key) returns the first result. An error's `fix` names a `wtc`
command: call the tool of the same name (`wtc task update` is task_update)."""


def build_server(repo: str | os.PathLike[str] = ".", *, max_calls: int = DEFAULT_MAX_CALLS) -> MCPServer:
    """The server for the repository at `repo` (any path inside it)."""
    served = Served(repo=Path(repo).resolve(), limiter=anyio.CapacityLimiter(max_calls))
    tools = build_tools(served) + [build_land(served)]
    server = MCPServer("wtc", title="worktree_coord", version=__version__, instructions=INSTRUCTIONS,
                       tools=tools, log_level="WARNING")
    add_resources(server, served)
    return server


def check_repository(repo: str | os.PathLike[str]) -> Path:
    """The repository `repo` is in (its main checkout, or the git directory of a bare one), by its
    absolute path; fails before serving (exit 5 or 2, as any command would) when it is no usable
    repository. The fix speaks of `--repo`, which `wtc mcp` takes (the git layer's own fix offers
    `--repo PATH` as if none had been given)."""
    from ..coordinator import Coordinator
    from ..gitrepo import GitRepo

    try:
        GitRepo(repo)
    except NotFoundError as error:
        given = "the current folder" if str(repo) == "." else f"--repo {repo}"
        raise NotFoundError(f"wtc mcp serves the git repository of {given}: {error.message}",
                            fix="give --repo a folder inside a git repository (any folder of its checkout), or start "
                                "`wtc mcp` inside one", details=error.details) from None
    with Coordinator(repo) as coordinator:
        return coordinator.git.toplevel or coordinator.git.common_dir


def serve_stdio(repo: str | os.PathLike[str] = ".", *, max_calls: int = DEFAULT_MAX_CALLS) -> None:
    """Serve over stdin/stdout until the client closes them (`claude mcp add wtc -- wtc mcp`)."""
    located = check_repository(repo)
    quiet_sdk_logs()
    anyio.run(build_server(located, max_calls=max_calls).run_stdio_async)


def quiet_sdk_logs() -> None:
    """The SDK logs every tool call at INFO; a server for agents logs warnings only, plainly, on stderr
    (stdout is the protocol under stdio)."""
    for name in ("mcp", "uvicorn", "uvicorn.error", "uvicorn.access"):
        logging.getLogger(name).setLevel(logging.WARNING)
