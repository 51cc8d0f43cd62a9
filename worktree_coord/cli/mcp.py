"""`wtc mcp`: serve this repository's coordinator to MCP clients (over stdio, or streamable HTTP).

Thin: the server lives in `worktree_coord/mcp/`, loaded only when this command runs.
"""

from __future__ import annotations

from typing import Optional

import typer

from . import app
from .common import RepoOption


@app.command("mcp")
def mcp(
    http: Optional[str] = typer.Option(None, "--http", help="Serve streamable HTTP on [HOST:]PORT (default host "
                                       "127.0.0.1) instead of stdio; any non-loopback host requires a bearer token "
                                       "(WTC_MCP_TOKEN, or one generated and printed once)."),
    max_calls: int = typer.Option(64, "--max-calls", min=1, help="Tool calls running at once; more wait in order."),
    repo: str = RepoOption,
    json_mode: bool = typer.Option(False, "--json", help="Report an error that stops the server from starting "
                                   "as one JSON object on stdout (once serving, stdio is the protocol)."),
) -> int:
    """Serve the coordinator as an MCP server: every operation a tool, land behind the person's approval.

    For Claude Code: `claude mcp add wtc -- wtc mcp` (stdio). See docs/mcp.md for the tools."""
    del json_mode  # cli.main reads --json from the command line to render a start-up error
    if http is None:
        from ..mcp.server import serve_stdio

        serve_stdio(repo, max_calls=max_calls)
        return 0
    from ..mcp.http import parse_bind, serve_http

    serve_http(repo, parse_bind(http), max_calls=max_calls)
    return 0
