"""`wtc ui`: a small HTTP server (the standard library's, one thread per request) over the store.

Stage: transport. Input: the repository, the run, the bind address, the environment
(`WTC_UI_TOKEN`). Output: a running server until Ctrl-C, serving
- `/` the page and `/static/<file>` its script and style (package data: no build step, no CDN);
- `/api/changes?since=N` what changed since version N (changes.py), read from the store when its
  run version moved (one cheap query per poll while nothing moves);
- `/api/task/<name>` one task's detail, `/api/task/<name>/diff` its changes (task_detail.py).
It is read-only: no route writes the store, the repository or a worktree.

Token rules, as the MCP HTTP server's (mcp/http.py): the default host is 127.0.0.1; any other address
requires a token (`WTC_UI_TOKEN`, else one generated at start and printed once to stderr); with
`WTC_UI_TOKEN` set it is required on loopback too. A browser brings it once as `/?token=...`, which
sets an HttpOnly, SameSite=Strict cookie (a digest of the token) and redirects to `/`; an API client sends
`Authorization: Bearer <token>`. Without a token on loopback, a request whose Host is not a loopback
name is refused (DNS rebinding). Every answer carries a Content-Security-Policy that lets the page
load only its own script and style and talk only to its own origin, and `Cache-Control: no-store`.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import socket
import sys
import threading
import time
from http import cookies
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from ..errors import NotFoundError, UsageError
from ..serving import UI_TOKEN_ENV as TOKEN_ENV, Bind, token_for
from .changes import Versions
from .run_view import read_run
from .task_detail import task_detail, task_diff

COOKIE = "wtc_ui"
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
       "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
STATIC = {"app.js": "text/javascript; charset=utf-8", "app.css": "text/css; charset=utf-8",
          "index.html": "text/html; charset=utf-8"}
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


class LiveRun:
    """The run's state as the page sees it: the store read again only when its version moved."""

    def __init__(self, store: Any, run_id: str) -> None:
        self.store, self.run_id = store, run_id
        self.versions = Versions()
        self._seen: str | None = None
        self._lock = threading.Lock()

    def refresh(self) -> None:
        with self._lock:   # one reader at a time; the others find the version already seen
            version = self.store.run_version(self.run_id)
            if version == self._seen:
                return
            view = read_run(self.store, self.run_id)
            if view is None:
                raise NotFoundError(f"no run {self.run_id!r} in this repository's store",
                                    fix="list runs with `wtc status`, then pass --run ID")
            self._seen = version
            self.versions.put_rows(view.tasks)
            self.versions.put_section("run", view.run)
            self.versions.put_section("conflicts", view.conflicts)
            self.versions.put_section("intents", view.intents)
            self.versions.put_section("merges", view.merges)


def static_file(name: str) -> bytes:
    return resources.files(__package__).joinpath("static", name).read_bytes()


def make_handler(live: LiveRun, repo: str, token: str | None) -> type[BaseHTTPRequestHandler]:
    expected = token.encode() if token else None
    # The cookie holds a digest of the token, not the token: any characters a token holds are safe in
    # it, and the cookie jar of the browser never stores the token itself.
    cookie_value = hashlib.sha256(b"wtc-ui-cookie\0" + expected).hexdigest() if expected else ""

    class Handler(BaseHTTPRequestHandler):
        server_version = "wtc-ui"
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:   # quiet: paths may carry the token
            pass

        def _send(self, status: int, body: bytes, content_type: str, extra: dict[str, str] | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Content-Security-Policy", CSP)
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("Referrer-Policy", "no-referrer")
            self.send_header("Cache-Control", "no-store")
            for key, value in (extra or {}).items():
                self.send_header(key, value)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def _json(self, status: int, value: Any) -> None:
            self._send(status, json.dumps(value).encode(), "application/json")

        def _loopback_host(self) -> bool:
            """The Host header names a loopback address (a page reached through another name is a
            DNS-rebinding attempt: refused when no token guards the server)."""
            host = self.headers.get("Host") or ""
            name = host.split("]")[0] + "]" if host.startswith("[") else host.rsplit(":", 1)[0]
            return name in LOOPBACK_NAMES

        def _authorized(self, query: dict[str, list[str]]) -> bool | None:
            """True, False, or None: the right token came in the query (set the cookie, redirect)."""
            if expected is None:
                return True
            given = query.get("token", [""])[0].encode()
            if given and hmac.compare_digest(given, expected):
                return None
            scheme, _, bearer = (self.headers.get("Authorization") or "").strip().partition(" ")
            if scheme.lower() == "bearer" and hmac.compare_digest(bearer.strip().encode(), expected):
                return True
            jar = cookies.SimpleCookie(self.headers.get("Cookie") or "")
            return COOKIE in jar and hmac.compare_digest(jar[COOKIE].value.encode(), cookie_value.encode())

        def do_HEAD(self) -> None:
            self.do_GET()

        def do_GET(self) -> None:
            url = urlsplit(self.path)
            query = parse_qs(url.query)
            if expected is None and not self._loopback_host():
                self._json(403, {"error": "forbidden", "message": "this wtc ui answers only to a loopback host name "
                                 "(127.0.0.1, localhost, [::1]); to serve other names, set WTC_UI_TOKEN"})
                return
            allowed = self._authorized(query)
            if allowed is None:
                self._send(303, b"", "text/plain", {"Location": "/", "Set-Cookie":
                           f"{COOKIE}={cookie_value}; HttpOnly; SameSite=Strict; Path=/"})
                return
            if not allowed:
                self._json(401, {"error": "unauthorized", "message": "this wtc ui requires its token: open "
                                 "/?token=<token> once (WTC_UI_TOKEN, or the token printed when it started)"})
                return
            try:
                self._route(url.path, query)
            except NotFoundError as error:
                self._json(404, {"error": "not_found", "message": str(error)})
            except (BrokenPipeError, ConnectionResetError):
                pass

        def _route(self, path: str, query: dict[str, list[str]]) -> None:
            if path in ("/", "/index.html"):
                self._send(200, static_file("index.html"), STATIC["index.html"])
            elif path.startswith("/static/") and path[len("/static/"):] in STATIC:
                name = path[len("/static/"):]
                self._send(200, static_file(name), STATIC[name])
            elif path == "/api/changes":
                try:
                    since = int(query.get("since", ["0"])[0])
                except ValueError:
                    self._json(400, {"error": "usage", "message": "since must be a version number (0: everything)"})
                    return
                live.refresh()
                self._json(200, {"schema": "wtc.ui/1", "run_id": live.run_id, "now": time.time()}
                           | live.versions.since(since))
            elif path.startswith("/api/task/") and path.endswith("/diff"):
                name = unquote(path[len("/api/task/"):-len("/diff")])
                diff = task_diff(live.store, repo, live.run_id, name)
                if diff is None:
                    raise NotFoundError(f"no task {name!r} in run {live.run_id!r}")
                self._send(200, diff.encode("utf-8", errors="replace"), "text/plain; charset=utf-8")
            elif path.startswith("/api/task/"):
                detail = task_detail(live.store, repo, live.run_id, unquote(path[len("/api/task/"):]))
                if detail is None:
                    raise NotFoundError(f"no task {path[len('/api/task/'):]!r} in run {live.run_id!r}")
                self._json(200, detail)
            elif path == "/favicon.ico":
                self._send(204, b"", "image/x-icon")
            else:
                raise NotFoundError(f"nothing at {path}")

    return Handler


def serve(repo: str, run_id: str | None, bind: Bind, *, forecast_every: float = 10.0, forecast: bool = True,
          ready: Any = None) -> None:
    """Serve the page of `run_id` (default: the newest open run) until interrupted."""
    from ..coordinator import Coordinator
    from .background import SlowViews

    coordinator = Coordinator(repo)
    try:
        run_id = run_id or _newest_run(coordinator.store)
        live = LiveRun(coordinator.store, run_id)
        live.refresh()   # an unknown run fails here, before listening (exit 5)
        token, generated = token_for(bind, variable=TOKEN_ENV)   # the MCP server's rules, this command's variable
        family = socket.AF_INET6 if ":" in bind.host else socket.AF_INET
        server_class = type("Server", (ThreadingHTTPServer,), {"address_family": family, "daemon_threads": True})
        try:
            httpd = server_class((bind.host, bind.port), make_handler(live, str(coordinator.git.toplevel or repo), token))
        except OSError as error:
            raise UsageError(f"cannot listen on {bind.host}:{bind.port}: {error.strerror or error}",
                             fix="choose another port (--port N), or stop what is listening there") from None
        port = httpd.server_address[1]
        slow = SlowViews(repo, run_id, live.versions, forecast_every=forecast_every, forecast=forecast)
        slow.start()
        shown = f"[{bind.host}]" if ":" in bind.host else bind.host
        sys.stderr.write(f"wtc ui: run {run_id} at http://{shown}:{port}/"
                         + (" (token required: open /?token=<token> once)" if token else " (loopback only, no token)")
                         + "\n")
        if generated:
            sys.stderr.write(f"wtc ui: token (shown once; set {TOKEN_ENV} to choose your own): {token}\n")
        sys.stderr.flush()
        if ready is not None:
            ready(port)
        try:
            httpd.serve_forever(poll_interval=0.2)
        except KeyboardInterrupt:
            pass
        finally:
            slow.stop()
            httpd.server_close()
    finally:
        coordinator.close()


def _newest_run(store: Any) -> str:
    runs = store.list_runs()
    open_runs = [r for r in runs if r.state.value == "open"] or runs
    if not open_runs:
        raise NotFoundError("this repository has no run to show", fix="start one with `wtc run start`, then `wtc ui`")
    return max(open_runs, key=lambda r: r.created_at).run_id
