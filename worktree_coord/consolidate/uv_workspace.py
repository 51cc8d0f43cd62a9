"""Which folder's uv.lock locks a uv project: its own, or its workspace's.

Stage: a question both the finish (which relock an owned member manifest asks for, read from the
task's base tree) and consolidation (where that relock runs, read from its scratch checkout) ask;
one answer, so every face names the root that is actually relocked. Input: a reader of repo-relative
files and the project's folder. Output: the folder whose `uv lock` writes the lockfile covering it.
Invariant: reads only `pyproject.toml` files above the project (no listing, no tool run); kept out of
root.py so the finish does not load consolidation's machinery to ask it. `uv_member_manifests`
answers the finish's other question, which manifests that lock covers, over a lister of folders.
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


def _workspace_table(read: Reader, root: str) -> dict | None:
    """The `[tool.uv.workspace]` table of the pyproject.toml at `root`; None: none there."""
    data = read(posixpath.join(root, "pyproject.toml") if root else "pyproject.toml")
    if not data or b"workspace" not in data:
        return None
    try:
        document = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None   # a manifest uv cannot read locks nothing
    workspace = ((document.get("tool") or {}).get("uv") or {}).get("workspace")
    return workspace if isinstance(workspace, dict) else None


def uv_member_manifests(read: Reader, subfolders: member_globs.Subfolders, root: str) -> list[str]:
    """The repo-relative pyproject.toml of every project the uv.lock at `root` covers: the root's own
    and each workspace member's that exists (`subfolders` lists a folder's subfolders, relative to
    the repository; raises `member_globs.Unsure` past its listing budget)."""
    manifests = [posixpath.join(root, "pyproject.toml") if root else "pyproject.toml"]
    workspace = _workspace_table(read, root)
    if workspace is None:
        return manifests
    globs = [normalize_member(str(m)) for m in workspace.get("members") or []]
    globs += ["!" + normalize_member(str(e)) for e in workspace.get("exclude") or []]
    prefix = f"{root}/" if root else ""
    below = lambda folder: subfolders(prefix + folder if folder else root)   # noqa: E731 (a lister of root's folders)
    for folder in sorted(member_globs.expand(globs, below, budget=2000)):
        manifest = f"{prefix}{folder}/pyproject.toml" if folder else manifests[0]
        if manifest not in manifests and read(manifest) is not None:
            manifests.append(manifest)
    return manifests


def disk_reader(workdir: Path) -> Reader:
    """`uv_lock_root`'s reader of a checkout on disk."""
    def read(path: str) -> bytes | None:
        file = workdir / path
        return file.read_bytes() if file.is_file() else None
    return read
