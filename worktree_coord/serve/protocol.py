"""The warm server's wire protocol and files: shared by the client (which must import nothing heavy:
it runs before the CLI loads) and the server.

Stage: transport. Standard library only.

Files, in `<git common dir>/wtc/`:
  serve.sock   the Unix socket (mode 0600); a socket with nobody listening is stale: clients fall back
  serve.token  the token a caller must present (mode 0600): `WTC_SERVE_TOKEN` when the server was
               started with it, else random; a caller sends `WTC_SERVE_TOKEN` when set, else this file
  serve.starting  `PID START` of a server still loading what it preloads (before its socket
               exists): what `wtc serve --status` and `--stop` read; removed once it listens

Messages are JSON objects, each prefixed by its length (4 bytes, big-endian):
  server -> client  {"hello": 1, "package": DIR, "pid": N}        the call's child is ready
  client -> server  {"token", "argv", "cwd", "env", "umask"}      + stdin/stdout/stderr (SCM_RIGHTS)
                    {"token", "op": "stop"}                          stop the server
  client -> server  {"signal": N}                                   forward a signal the caller got
  server -> client  {"exit": CODE} | {"killed": SIGNAL} | {"refused": MESSAGE} | {"stopping": PID}
"""

from __future__ import annotations

import os
import struct
TYPE_CHECKING = False   # not typing's: this runs first in every call (issue 36, start-up)

if TYPE_CHECKING:   # socket loads only when a server's socket file exists: every call checks for one
    import socket

VERSION = 1
TOKEN_ENV = "WTC_SERVE_TOKEN"
NO_SERVE_ENV = "WTC_NO_SERVE"        # set to 1: never hand a call to a server (the in-process path)
SOCKET_NAME = "serve.sock"
TOKEN_NAME = "serve.token"
STARTING_NAME = "serve.starting"
MAX_MESSAGE = 1 << 24
MIN_TOKEN = 16
_UNIX_PATH_MAX = 100                 # sun_path holds 108 bytes; longer paths go through /proc/self/fd


def state_dir(common_dir: str) -> str:
    return os.path.join(common_dir, "wtc")


def socket_path(common_dir: str) -> str:
    return os.path.join(state_dir(common_dir), SOCKET_NAME)


def token_path(common_dir: str) -> str:
    return os.path.join(state_dir(common_dir), TOKEN_NAME)


def starting_path(common_dir: str) -> str:
    return os.path.join(state_dir(common_dir), STARTING_NAME)


class ShortPath:
    """A path short enough for sun_path: itself, or `/proc/self/fd/N/NAME` over an open folder
    (a repository in a deep temp folder easily passes 108 bytes)."""

    def __init__(self, path: str) -> None:
        self.fd: int | None = None
        self.path = path
        if len(os.fsencode(path)) > _UNIX_PATH_MAX:
            folder, name = os.path.split(path)
            self.fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            self.path = f"/proc/self/fd/{self.fd}/{name}"

    def __enter__(self) -> str:
        return self.path

    def __exit__(self, *exc: object) -> None:
        if self.fd is not None:
            os.close(self.fd)


def send(sock: "socket.socket", message: dict[str, object], fds: list[int] | None = None) -> None:
    import json   # only once a server's socket answers: most calls find none

    data = json.dumps(message).encode()
    frame = struct.pack(">I", len(data)) + data
    if fds:
        import socket

        socket.send_fds(sock, [frame], fds)
    else:
        sock.sendall(frame)


def _exactly(sock: "socket.socket", size: int, fds: list[int] | None) -> bytes | None:
    chunks, got = [], 0
    while got < size:
        if fds is not None and not got:
            import socket

            data, received, _flags, _addr = socket.recv_fds(sock, size, 8)
            fds.extend(received)
        else:
            data = sock.recv(size - got)
        if not data:
            return None
        chunks.append(data)
        got += len(data)
    return b"".join(chunks)


def receive(sock: "socket.socket", fds: list[int] | None = None) -> dict[str, object] | None:
    """The next message, or None at end of stream; file descriptors that came with it go into `fds`."""
    head = _exactly(sock, 4, fds)
    if head is None:
        return None
    (size,) = struct.unpack(">I", head)
    if size > MAX_MESSAGE:
        raise ValueError(f"message of {size} bytes")
    body = _exactly(sock, size, None) if size else b""
    if body is None:
        return None
    import json

    value = json.loads(body)
    if not isinstance(value, dict):
        raise ValueError("message is not an object")
    return value
