"""Where a wtc server listens and when it needs a token: the rules `wtc mcp --http` and `wtc ui` share.

Stage: vocabulary (no I/O but the environment). Input: an address text and the environment.
Output: a `Bind` and the token a server requires.

Invariants: the default host is 127.0.0.1; any address that is not loopback requires a token (the
server's variable, else one generated for the person, shown once); a token set in the variable is
required on loopback too, and is at least 16 characters. Importing this module loads no server
library (the MCP SDK, uvicorn): `wtc ui` uses it without them.
"""

from __future__ import annotations

import ipaddress
import os
import secrets
from typing import MutableMapping

from .errors import UsageError
from .frozen import value_class

DEFAULT_HOST = "127.0.0.1"
MCP_TOKEN_ENV = "WTC_MCP_TOKEN"
UI_TOKEN_ENV = "WTC_UI_TOKEN"


@value_class
class Bind:
    host: str
    port: int

    @property
    def loopback(self) -> bool:
        if self.host == "localhost":
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return False   # a host name other than localhost may resolve anywhere


def parse_bind(text: str, *, option: str = "--http") -> Bind:
    """`8765`, `:8765`, `127.0.0.1:8765`, `0.0.0.0:8765` or `[::1]:8765`; port 0 picks a free one."""
    host, port = DEFAULT_HOST, text.strip()
    if port.startswith("["):
        inside, _, rest = port[1:].partition("]")
        host, port = inside, rest.removeprefix(":")
    elif ":" in port:
        host, _, port = port.rpartition(":")
        host = host or DEFAULT_HOST
    if not port.isdigit() or not 0 <= int(port) <= 65535 or not host:
        raise UsageError(f"{option} {text!r} is not an address to listen on",
                         fix=f"use PORT, HOST:PORT or [IPv6]:PORT, e.g. {option} 127.0.0.1:8765")
    return Bind(host, int(port))


def token_for(bind: Bind, environ: MutableMapping[str, str] | None = None, *,
              variable: str = MCP_TOKEN_ENV) -> tuple[str | None, bool]:
    """The token the server requires (None: none, on loopback without `variable` set) and whether
    it was generated here (then it must be shown to the person once)."""
    environ = os.environ if environ is None else environ
    given = environ.get(variable, "")
    if given:
        if len(given) < 16:
            raise UsageError(f"{variable} is too short to guard a server ({len(given)} characters)",
                             fix="use at least 16 random characters, e.g. `python -c 'import secrets; "
                                 "print(secrets.token_urlsafe(32))'`")
        return given, False
    if bind.loopback:
        return None, False
    return secrets.token_urlsafe(32), True
