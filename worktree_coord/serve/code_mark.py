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
stat per file and folder already known 0.74 ms. The comparison stats the known files and folders,
in the forked call's process (calls compare in parallel, not one at a time in the accept loop). A
folder that moved is listed (a module added or removed), and only its entries count: its own
modification time also moves when Python first writes its `__pycache__`, which a served call may
do. Measured again (305 files and 31 folders, load average ~17, 100 rounds, medians): a whole
comparison 0.70 ms, a bare stat of every known path 0.58 ms, listing every folder too ~1.7 ms.

What counts as a change: a file whose inode, size or modification time differs (an edit in place
moves the time; a reinstall that writes new files, or links them from a cache with old times,
changes the inode), a folder whose entries differ, one gone, or one that cannot be read. Bytecode
caches (`__pycache__`) are not the code: they follow the sources.

The distributions the package requires (pygit2, tree-sitter and its grammar wheels, libcst, typer,
...; `required_distributions`) are loaded into the server too, so an upgrade of one under a running
server is a change as well. Of each, a few files stand for the whole (`distribution_files`): its
RECORD, which every installer writes anew (pip, uv) and an upgrade removes with its old dist-info
folder, and its compiled modules and libraries (a hand-replaced binary). Not every file: the 38
distributions hold ~3,000, which would have multiplied the per-call comparison; these are 74 (a
comparison of 415 paths 1.56 ms against 1.16 ms for the package's 341, load average 17 on 2 cores).
"""

from __future__ import annotations

import os
import stat

from ..frozen import value_class

TYPE_CHECKING = False   # not typing's: the module loads in every served call
if TYPE_CHECKING:
    from typing import Sequence

_SKIPPED = ("__pycache__",)


@value_class
class CodeMark:
    """Each file's (inode, size, modification time in ns) and each folder's (modification time,
    entries), by path."""

    files: dict[str, tuple[int, int, int]]
    folders: dict[str, tuple[int, frozenset[str]]]


def _identity(info: os.stat_result) -> tuple[int, int, int]:
    return info.st_ino, info.st_size, info.st_mtime_ns


def _entries(folder: str) -> frozenset[str] | None:
    """The folder's entries but bytecode caches (a folder's own modification time moves when Python
    first writes its `__pycache__`: not a change of code). None: it cannot be read."""
    try:
        return frozenset(name for name in os.listdir(folder) if name not in _SKIPPED)
    except OSError:
        return None


def required_distributions(package: str = "worktree-coord") -> list[str]:
    """The distributions `package` requires (its extras' left out), by name; none when its
    metadata is not installed (a checkout on sys.path without an install)."""
    import importlib.metadata as metadata
    import re

    try:
        wanted = metadata.requires(package) or []
    except metadata.PackageNotFoundError:
        return []
    names = []
    for requirement in wanted:
        if "extra" in requirement.partition(";")[2]:
            continue
        found = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement)
        if found and found.group(0) not in names:
            names.append(found.group(0))
    return names


_BINARY = (".so", ".pyd", ".dylib")


def distribution_files(names: list[str]) -> list[str]:
    """Of each installed distribution named, the files that stand for it (see the module's
    docstring): its RECORD and its compiled modules and libraries, as absolute paths. A name
    not installed has none (a call that needs it fails the same with or without a server)."""
    import importlib.metadata as metadata
    import re

    def normal(name: str) -> str:
        return re.sub(r"[-_.]+", "-", name).lower()

    # One pass over sys.path's distributions (the first of a name wins, as `distribution(name)`
    # finds it): a lookup per name searched the path each time, 0.3 s for 38 names.
    wanted = {normal(name) for name in names}
    found: dict[str, metadata.Distribution] = {}
    for distribution in metadata.distributions():
        name = getattr(distribution, "_normalized_name", None) or distribution.metadata["Name"] or ""
        if normal(name) in wanted:
            found.setdefault(normal(name), distribution)
    out: list[str] = []
    for distribution in found.values():
        for entry in distribution.files or []:
            text = str(entry)
            if (text.endswith("/RECORD") and ".dist-info/" in text) or text.endswith(_BINARY) or ".so." in text:
                out.append(os.path.normpath(str(entry.locate())))
    return list(dict.fromkeys(out))


def take(roots: list[str], distribution_paths: Sequence[str] = ()) -> CodeMark:
    """The mark of every file and folder under `roots`, and of the files `distribution_paths`
    (`distribution_files`); one that cannot be read is marked as missing, so it reads as changed
    once it can: never as the same code."""
    files: dict[str, tuple[int, int, int]] = {}
    for path in distribution_paths:
        try:
            files[path] = _identity(os.stat(path))
        except OSError:
            files[path] = (-1, -1, -1)
    folders: dict[str, tuple[int, frozenset[str]]] = {}
    stack = list(dict.fromkeys(roots))
    while stack:
        folder = stack.pop()
        moved = _mtime(folder)     # before the listing: an entry added meanwhile moves it past this
        names = _entries(folder)
        folders[folder] = (moved, names if names is not None else frozenset({"(unreadable)"}))
        for name in sorted(names or ()):
            path = os.path.join(folder, name)
            try:
                info = os.stat(path)
            except OSError:
                files[path] = (-1, -1, -1)
                continue
            if stat.S_ISDIR(info.st_mode):
                stack.append(path)
            else:
                files[path] = _identity(info)
    return CodeMark(files, folders)


def changed(mark: CodeMark) -> str | None:
    """The first file or folder of `mark` that is not as it was when it was taken, else None."""
    for path, identity in mark.files.items():
        try:
            now = _identity(os.stat(path))
        except OSError:
            now = (-1, -1, -1)
        if now != identity:
            return path
    for folder, (moved, names) in mark.folders.items():
        # Listed again only when it moved (mostly: Python wrote its `__pycache__` since).
        if _mtime(folder) != moved and _entries(folder) != names:
            return folder
    return None


def _mtime(path: str) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return -1
