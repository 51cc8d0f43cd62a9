"""`wtc mcp --http [HOST:]PORT`: the server over streamable HTTP, loopback unless a token guards it.

Stage: transport. Input: the bind address and the environment (`WTC_MCP_TOKEN`). Output: a running
uvicorn server at `http://HOST:PORT/mcp`.

Invariants:
- the default host is 127.0.0.1; on a loopback address the SDK's DNS-rebinding protection is on;
- any other address requires a bearer token: `WTC_MCP_TOKEN`, else one generated at start and
  printed once to stderr (the only place it ever appears); when `WTC_MCP_TOKEN` is set it is
  required on loopback too;
- a request without the right `Authorization: Bearer ...` gets 401 and reaches nothing; the scheme
  is matched in any case (RFC 7235), the token exactly, in constant time, and never logged
  (uvicorn's access log is off: it would log paths only, but a quiet server is the default).
"""

from __future__ import annotations

import hmac
import socket
import sys
from typing import Any, Awaitable, Callable, MutableMapping

from ..errors import UsageError
# The address and token rules, shared with `wtc ui` (serving.py: loading them loads no SDK).
from ..serving import DEFAULT_HOST, MCP_TOKEN_ENV as TOKEN_ENV, Bind, parse_bind, token_for

__all__ = ["TOKEN_ENV", "DEFAULT_HOST", "PATH", "Bind", "parse_bind", "token_for", "BearerGate", "serve_http"]

PATH = "/mcp"

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class BearerGate:
    """ASGI middleware: HTTP requests must carry `Authorization: Bearer <token>`; lifespan passes."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = token.encode()

    def authorized(self, header: bytes) -> bool:
        """`Bearer <token>`: the scheme in any case (RFC 7235 2.1: auth-schemes are case-insensitive),
        then whitespace, then the token exactly (compared in constant time)."""
        scheme, _, given = header.strip().partition(b" ")
        return scheme.lower() == b"bearer" and hmac.compare_digest(given.strip(b" \t"), self.expected)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            header = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not self.authorized(header):
                body = (b'{"error": "unauthorized", "message": "this wtc MCP server requires '
                        b'Authorization: Bearer <token> (WTC_MCP_TOKEN, or the token printed when it started)"}')
                await send({"type": "http.response.start", "status": 401,
                            "headers": [(b"content-type", b"application/json"),
                                        (b"www-authenticate", b'Bearer realm="wtc"')]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def serve_http(repo: str, bind: Bind, *, max_calls: int | None = None) -> None:
    """Serve the repository over streamable HTTP until interrupted (see the module docstring)."""
    import anyio
    import uvicorn

    from .server import DEFAULT_MAX_CALLS, build_server, check_repository, quiet_sdk_logs

    located = check_repository(repo)
    token, generated = token_for(bind)
    family = socket.AF_INET6 if ":" in bind.host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((bind.host, bind.port))
    except OSError as error:
        listener.close()
        raise UsageError(f"cannot listen on {bind.host}:{bind.port}: {error.strerror or error}",
                         fix="choose another port (--http HOST:PORT), or stop what is listening there") from None
    # Listening before the start-up line is printed: a client that connects on reading it waits in
    # the backlog until uvicorn accepts, instead of being refused while the server still starts.
    listener.listen(socket.SOMAXCONN)
    port = listener.getsockname()[1]
    server = build_server(located, max_calls=max_calls or DEFAULT_MAX_CALLS)
    app: ASGIApp = server.streamable_http_app(host=bind.host, streamable_http_path=PATH)
    if token is not None:
        app = BearerGate(app, token)
    quiet_sdk_logs()
    shown = f"[{bind.host}]" if ":" in bind.host else bind.host
    sys.stderr.write(f"wtc mcp: serving {located} at http://{shown}:{port}{PATH}"
                     + (" (bearer token required)" if token else " (loopback only, no token)") + "\n")
    if generated:
        sys.stderr.write(f"wtc mcp: bearer token (shown once; set {TOKEN_ENV} to choose your own): {token}\n")
    sys.stderr.flush()
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")
    anyio.run(uvicorn.Server(config).serve, [listener])
