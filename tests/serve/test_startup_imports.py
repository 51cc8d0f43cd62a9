"""What a `wtc` process imports before it answers (issue 36): start-up is paid by every agent call, so
the cheap answers import only what they print. Asserted on the modules a real process loaded
(`python -X importtime`), never on timings."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from worktree_coord.serve import protocol


def imported(cwd: Path, *args: str) -> set[str]:
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "worktree_coord", *args], cwd=cwd,
                          env=dict(os.environ), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return {m.group(1) for m in re.finditer(r"import time:\s+\d+ \|\s+\d+ \|\s*(\S+)", done.stderr)}


def test_version_builds_no_command_line(repo: Path) -> None:
    modules = imported(repo, "--version")
    assert not modules & {"typer", "click", "socket", "worktree_coord.cli", "worktree_coord.serve.client"}


def test_a_call_with_no_server_running_pays_no_socket_and_status_no_libgit2(repo: Path) -> None:
    assert not (repo / ".git" / "wtc" / protocol.SOCKET_NAME).exists()
    modules = imported(repo, "status")
    assert "worktree_coord.serve.client" in modules      # it looked for a server...
    assert "socket" not in modules                       # ...found no socket file, and connected to nothing
    assert not modules & {"pygit2", "tree_sitter", "rich", "worktree_coord.coordinator.tasks"}
