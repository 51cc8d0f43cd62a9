"""A linked node_modules whose workspace packages are the task worktree's own.

Stage: worktree_setup.py, placing a `link` folder (`worktree-setup = { link = ["node_modules"] }`).
Input: the main checkout, its folder, the worktree. Output: where the folder holds workspace links
(npm and Yarn classic link each package of the workspace into node_modules as a symlink to its
folder: node_modules/socket.io-adapter -> ../packages/socket.io-adapter), a real folder in the
worktree whose entries link to the main checkout's, except those workspace links, which point at
the worktree's own package folders; else nothing (one symlink to the main checkout's folder does).

Why: one symlink to the main checkout's node_modules resolves `require("socket.io-adapter")` through
the main checkout's ../packages/socket.io-adapter: a task's tests ran the main checkout's code of
every other package of the workspace, silently (found driving wtc on socketio/socket.io).

Invariants: nothing in the main checkout is written; a package the worktree does not hold (outside
a sparse cone) keeps the main checkout's link; only the folder's top level and its `@scope` folders
are rebuilt (about a thousand symlinks for socket.io: milliseconds).
"""

from __future__ import annotations

import os
from pathlib import Path


def workspace_links(source: Path, main: Path) -> dict[str, str]:
    """Each symlink among `source`'s entries (and its `@scope` folders' entries) that resolves to a
    folder inside `main` but outside `source`: entry (`socket.io-adapter`, `@scope/x`) -> that
    folder, relative to `main`."""
    root, inside = main.resolve(), source.resolve()
    found: dict[str, str] = {}

    def look(folder: Path, prefix: str) -> None:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.name.startswith("@") and not prefix and entry.is_dir(follow_symlinks=False):
                    look(Path(entry.path), entry.name + "/")
                elif entry.is_symlink():
                    real = Path(os.path.realpath(entry.path))
                    if real.is_dir() and real.is_relative_to(root) and not real.is_relative_to(inside):
                        found[prefix + entry.name] = real.relative_to(root).as_posix()

    look(source, "")
    return found


def place_linked_modules(source: Path, target: Path, main: Path, worktree: Path) -> int | None:
    """Build `target` as described above and return how many workspace links point at the worktree;
    None (nothing done) when `source` holds no workspace link."""
    links = workspace_links(source, main)
    if not links:
        return None

    def link_for(name: str, entry_path: str) -> str:
        own = worktree / links[name] if name in links else None
        return str(own) if own is not None and own.is_dir() else entry_path

    target.mkdir()
    scopes = {name.split("/", 1)[0] for name in links if "/" in name}
    with os.scandir(source) as entries:
        for entry in entries:
            if entry.name in scopes:
                (target / entry.name).mkdir()
                with os.scandir(entry.path) as inner:
                    for item in inner:
                        os.symlink(link_for(f"{entry.name}/{item.name}", item.path), target / entry.name / item.name)
            else:
                os.symlink(link_for(entry.name, entry.path), target / entry.name)
    return sum(1 for name in links if (worktree / links[name]).is_dir())
