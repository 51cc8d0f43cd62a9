"""Which folder's uv.lock locks a uv project: its own, or its workspace's.

Stage: a question both the finish (which relock an owned member manifest asks for, read from the
task's base tree) and consolidation (where that relock runs, read from its scratch checkout) ask;
one answer, so every face names the root that is actually relocked. Input: a reader of repo-relative
files and the project's folder. Output: the folder whose `uv lock` writes the lockfile covering it.
Invariant: reads only `pyproject.toml` files above the project (no listing, no tool run); kept out of
root.py so the finish does not load consolidation's machinery to ask it.
"""

from __future__ import annotations

import posixpath
import tomllib
from pathlib import Path
from typing import Callable

from worktree_coord import member_globs
from worktree_coord.consolidate.manifests import normalize_member

Reader = Callable[[str], "bytes | None"]   # repo-relative path -> its bytes; None: no such file


def uv_lock_root(read: Reader, root: str) -> str:
    """The folder whose uv.lock locks the project at `root`: the nearest uv workspace above it that
    lists it as a member (uv locks a member with its workspace, whatever lockfile stands in the
    member's own folder), else `root`. `read` gives a repo-relative file's bytes (None: absent), so
    the finish (from the task's base tree) and consolidation (from its scratch checkout) ask the same
    question the same way and name the same root. Found driving wtc on pydantic: pydantic-core, a
    member of the root's workspace, keeps a uv.lock of its own; its relock ran `uv lock` there, which
    wrote the workspace's lock, and the root's uv.lock stayed stale ("unchanged"); then the finish
    still announced the relock of pydantic-core while consolidation relocked the root."""
    probe = root
    while probe:
        probe = posixpath.dirname(probe)
        data = read(posixpath.join(probe, "pyproject.toml") if probe else "pyproject.toml")
        if not data or b"workspace" not in data:
            continue
        try:
            document = tomllib.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, tomllib.TOMLDecodeError):
            continue   # a manifest uv cannot read locks nothing: look further up
        workspace = ((document.get("tool") or {}).get("uv") or {}).get("workspace")
        if not isinstance(workspace, dict):
            continue
        globs = [normalize_member(str(m)) for m in workspace.get("members") or []]
        globs += ["!" + normalize_member(str(e)) for e in workspace.get("exclude") or []]
        if member_globs.names(globs, posixpath.relpath(root, probe or ".")):
            return probe
    return root


def disk_reader(workdir: Path) -> Reader:
    """`uv_lock_root`'s reader of a checkout on disk."""
    def read(path: str) -> bytes | None:
        file = workdir / path
        return file.read_bytes() if file.is_file() else None
    return read
