"""How another program (git's merge driver, Claude Code's hooks) should start this very `wtc`."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path


def wtc_executable() -> str:
    """Shell-quoted: the absolute path of the running `wtc` script, so the caller finds it without a
    virtual environment on its PATH; else `<absolute python> -m worktree_coord` (run as a module,
    or from a test)."""
    argv0 = os.path.abspath(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    if Path(argv0).name in ("wtc", "worktree-coord") and os.path.isfile(argv0) and os.access(argv0, os.X_OK):
        return shlex.quote(argv0)
    return f"{shlex.quote(os.path.abspath(sys.executable))} -m worktree_coord"
