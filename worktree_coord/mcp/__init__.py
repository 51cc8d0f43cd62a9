"""`wtc mcp`: the coordinator as a Model Context Protocol server, for agents that act through tools.

A face, thin over the Python API: every tool parses its arguments, calls one `Coordinator` method and
returns the same `schema`-tagged JSON object `wtc ... --json` prints (plus a short text). It holds
no logic of its own; what it adds is only what a long-lived, concurrent server needs:

    server.py     the assembled server (`build_server`) and the stdio transport
    tools.py      one tool per operation, input schemas with descriptions, output schemas
    approval.py   `land`, which lands only after a person approves through MCP elicitation
    resources.py  wtc:// resources (status, report, a task's conflicts) read without a tool call
    calls.py      how one call runs: a worker thread, its own lease owner, errors with their fix
    http.py       streamable HTTP: loopback by default, a bearer token for any other address

Loaded only by `wtc mcp` (the SDK, starlette and uvicorn cost start-up every other command is spared).
"""

from __future__ import annotations

from .server import build_server, serve_stdio

__all__ = ["build_server", "serve_stdio"]
