"""`wtc ui` as a person starts it: the real command line in its own process, and the address it prints.
Shared by tests/ui and scripts/ui_screenshots.py (the screenshots are taken by this code path)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator


@contextmanager
def wtc_ui(repo: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 90.0) -> Iterator[str]:
    """Start `wtc ui --port 0 ARGS` in `repo`; yield its base URL (`http://127.0.0.1:PORT`) once it
    listens; stop it (SIGTERM, then SIGKILL) at the end."""
    log = repo.parent / f"wtc-ui-{os.getpid()}-{time.monotonic_ns()}.log"
    full_env = dict(os.environ) | (env or {})
    with log.open("w") as err:
        process = subprocess.Popen([sys.executable, "-m", "worktree_coord", "ui", "--port", "0", *args], cwd=repo,
                                   env=full_env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
    try:
        deadline = time.monotonic() + timeout
        while True:
            found = re.search(r"at (http://127\.0\.0\.1:\d+)/", log.read_text())
            if found:
                break
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"wtc ui did not start (exit {process.poll()}): {log.read_text()}")
            time.sleep(0.05)
        yield found.group(1)
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=20)
