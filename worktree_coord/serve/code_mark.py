"""Whether a warm server still runs the code on disk: a mark of the package's files taken when
`wtc serve` starts, compared before each call it takes.

Stage: transport (serve/server.py). Input: the folders the package's code and data load from.
Output: a `CodeMark`, and the first file found changed since it was taken (or None).

Why: a server imports everything once and forks each call from that image; after an in-place
upgrade or an edit of the checkout it would go on running the old code for every call, while the
CLI that handed it the call (same package folder, same protocol) is the new one. The server, not
the client, compares: it knows what it loaded, and the client would have to stat the package per
call before it even knows a server runs. Measured (304 files and folders under worktree_coord/ and
grammars/, load average ~4.8 on 2 cores, 50 rounds, medians): walking the folders 1.41 ms, one
stat per file and folder already known 0.74 ms. The comparison stats the known paths, in the
forked call's process (calls compare in parallel, not one at a time in the accept loop); a file
added or removed moves its folder's modification time, so folders are in the mark too.

What counts as a change: a file or folder whose inode, size or modification time differs (an edit
in place moves the time; a reinstall that writes new files, or links them from a cache with old
times, changes the inode), one gone, or one that cannot be read. Bytecode caches (`__pycache__`)
are not the code: they follow the sources.
"""

from __future__ import annotations

import os

from ..frozen import value_class

_SKIPPED = ("__pycache__",)


@value_class
class CodeMark:
    """Each file's and folder's (inode, size, modification time in ns), by path."""

    files: dict[str, tuple[int, int, int]]


def _identity(info: os.stat_result) -> tuple[int, int, int]:
    return info.st_ino, info.st_size, info.st_mtime_ns


def take(roots: list[str]) -> CodeMark:
    """The mark of every file and folder under `roots` (a root that cannot be read is marked as
    missing, so it reads as changed once it can: never as the same code)."""
    files: dict[str, tuple[int, int, int]] = {}
    stack = list(dict.fromkeys(roots))
    while stack:
        folder = stack.pop()
        try:
            files[folder] = _identity(os.stat(folder))
            entries = list(os.scandir(folder))
        except OSError:
            files[folder] = (-1, -1, -1)
            continue
        for entry in entries:
            if entry.name in _SKIPPED:
                continue
            try:
                if entry.is_dir(follow_symlinks=True):
                    stack.append(entry.path)
                    continue
                files[entry.path] = _identity(entry.stat(follow_symlinks=True))
            except OSError:
                files[entry.path] = (-1, -1, -1)
    return CodeMark(files)


def changed(mark: CodeMark) -> str | None:
    """The first file or folder of `mark` that is not as it was when it was taken, else None."""
    for path, identity in mark.files.items():
        try:
            now = _identity(os.stat(path))
        except OSError:
            now = (-1, -1, -1)
        if now != identity:
            return path
    return None
