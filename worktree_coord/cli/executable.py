"""How another program (git's merge driver, Claude Code's hooks) should start this very `wtc`."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path


def _running() -> tuple[str, str]:
    """(the absolute path of the program that runs this wtc, what follows it on a command line): the
    `wtc` script, or the interpreter with `-m worktree_coord` (run as a module, or from a test)."""
    argv0 = os.path.abspath(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    if Path(argv0).name in ("wtc", "worktree-coord") and os.path.isfile(argv0) and os.access(argv0, os.X_OK):
        return argv0, ""
    return os.path.abspath(sys.executable), " -m worktree_coord"


def wtc_executable() -> str:
    """Shell-quoted: the absolute path of the running `wtc` script, so the caller finds it without a
    virtual environment on its PATH; else `<absolute python> -m worktree_coord` (run as a module,
    or from a test)."""
    program, rest = _running()
    return shlex.quote(program) + rest


def portable_executable(project: Path | None) -> str | None:
    """A command that starts this wtc from a committed file on any machine with the project's
    layout, or None: `"$CLAUDE_PROJECT_DIR"/<path>` when the running program lives inside the
    checkout `project` (its own virtual environment; Claude Code sets CLAUDE_PROJECT_DIR for its
    hooks), else plain `wtc` when the `wtc` on PATH is this very script."""
    program, rest = _running()
    resolved = Path(program).resolve()
    if project is not None:
        try:
            inside = Path(program).relative_to(project)
        except ValueError:
            try:
                inside = resolved.relative_to(project.resolve())
            except ValueError:
                inside = None
        if inside is not None:
            return '"$CLAUDE_PROJECT_DIR"/' + shlex.quote(inside.as_posix()) + rest
    found = shutil.which("wtc")
    if not rest and found and Path(found).resolve() == resolved:
        return "wtc"
    return None
