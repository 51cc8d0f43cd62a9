"""A test suite's server in miniature, as the suites of issue 41 had: bind one fixed port on 127.0.0.1
(no SO_REUSEADDR, as a test server binds), hold it while the partner task tries the same, then edit
the task's files.

    python bind_fixed_port.py PORT BARRIER NAME PARTNER PATH

Binds 127.0.0.1:PORT and writes BARRIER/NAME.bound, or writes BARRIER/NAME.failed and exits 1 when
the port is taken ("address already in use" on stderr). Holding the port, it waits until the partner
has bound it or failed (BARRIER/PARTNER.bound or .failed; PARTNER `*`: any other name, `-`: no
partner; at most 120 s),
then writes PATH (relative to its working folder: the task's worktree) saying what it saw.
"""

from __future__ import annotations

import socket
import sys
import time
from pathlib import Path


def main(port: str, barrier: str, name: str, partner: str, path: str) -> int:
    folder = Path(barrier)
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        server.bind(("127.0.0.1", int(port)))
    except OSError as error:
        (folder / f"{name}.failed").write_text(str(error))
        print(f"{name}: cannot bind 127.0.0.1:{port}: {error}", file=sys.stderr)
        return 1
    server.listen()
    (folder / f"{name}.bound").write_text("bound\n")
    saw = "no partner"
    if partner != "-":
        deadline = time.monotonic() + 120
        saw = "partner did not start"
        while time.monotonic() < deadline:
            if _seen(folder, name, partner, "bound"):
                saw = "partner bound the same port at the same time"
                break
            if _seen(folder, name, partner, "failed"):
                saw = "partner failed to bind"
                break
            time.sleep(0.05)
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(f"{name}: bound 127.0.0.1:{port}; {saw}\n")
    server.close()
    return 0


def _seen(folder: Path, name: str, partner: str, what: str) -> bool:
    if partner != "*":
        return (folder / f"{partner}.{what}").exists()
    return any(found.stem != name for found in folder.glob(f"*.{what}"))


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:6]))
