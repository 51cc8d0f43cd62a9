"""A workspace's member globs (`packages/*`, `crates/**`, `!packages/old`) expanded to the folders they name.

Who uses it: consolidation reads a workspace's members from a checkout on disk (consolidate/graph.py,
through `disk_subfolders`), and the post-merge semantic check reads a monorepo's packages from a
git tree (merge/ecosystems/workspace_packages.py, through `tree_subfolders`, which `GitRepo.folders_at` serves
too). Why one: both once expanded the same npm/yarn/pnpm/Cargo/uv globs by rules of their own
(Path.glob on disk, a folder walk over git trees), and a folder one found the other did not.
It sits below both (they are sibling capabilities) and imports nothing of the package.

Input: the globs, each relative to one top folder, and a lister of a folder's subfolders (`""` the
top). Output: the folders (relative to the top, `""` the top itself) the globs match, before any
manifest is looked for: whether a folder holds one is the caller's question.
Rules (the package managers'):
- a glob is split at `/`; empty and `.` parts are dropped, so `.` is the top folder; a literal part
  is joined without a listing (the folder need not exist), `..` climbs lexically;
- `*`, `?` and `[...]` match within one folder name, case-sensitively; a `**` part matches any
  number of folders, none included, so a trailing `/**` is the folder and every folder below it;
- a glob starting with `!` removes the folders it matches from what the others found, wherever it
  stands in the list;
- a wildcard never lists a folder `skip` refuses for it (npm, yarn and pnpm: `node_modules`, and a
  dot folder unless the glob part starts with `.` itself, `skipped_by_javascript`); a literal part
  still names one;
- past `budget` listings the answer is `Unsure` (a folder never listed could be a member).
"""

from __future__ import annotations

import fnmatch
import os
import posixpath
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator

if TYPE_CHECKING:
    import pygit2

# folder ("" the top) -> its subfolders' names; None: no such folder. Written without quotes: a quoted
# part is compiled at import (typing's ForwardRef), and a process's first `compile()` builds the `ast`
# module's node classes (~9 million instructions of every `task start`).
Subfolders = Callable[[str], list[str] | None]


class Unsure(Exception):
    """The globs cannot be expanded whole (too many folders to list, or nothing to list them with)."""


def expand(globs: Iterable[str], subfolders: Subfolders, *, skip: Callable[[str, str], bool] | None = None,
           budget: int | None = None) -> set[str]:
    """The folders `globs` name below the top folder `subfolders` lists (module docstring); raises
    `Unsure` when more than `budget` listings would be needed."""
    globs = list(globs)
    walk = _Walk(subfolders, skip or _skip_none, budget)
    found: set[str] = set()
    for glob in globs:
        if not glob.startswith("!"):
            found.update(walk.expand(_parts(glob), ""))
    excluded = [_parts(glob[1:]) for glob in globs if glob.startswith("!")]
    return {folder for folder in found if not any(_matches(parts, folder) for parts in excluded)}


def names(globs: Iterable[str], folder: str) -> bool:
    """Do `globs` name `folder` (relative to their top folder)? The question about one folder needs no
    listing: `expand`'s rules, a `!` glob removing what the others match."""
    globs = list(globs)
    return (any(_matches(_parts(glob), folder) for glob in globs if not glob.startswith("!"))
            and not any(_matches(_parts(glob[1:]), folder) for glob in globs if glob.startswith("!")))


def skipped_by_javascript(name: str, part: str = "*") -> bool:
    """npm, yarn and pnpm never expand the glob part `part` into `node_modules`, nor into a dot
    folder unless `part` asks for a leading dot itself (their glob libraries' `dot: false`: trpc's
    pnpm-workspace.yaml lists `examples/.*/*`, which pnpm 10 and npm 11 both expand into
    `examples/.test/...` while `examples/*` skips it)."""
    if name == "node_modules":
        return True
    return name.startswith(".") and not part.startswith(".")


def disk_subfolders(top: Path) -> Subfolders:
    """The lister of a checkout on disk below `top`. A symlink is not a folder here, as in the git
    tree the checkout came from (where it is a link), and `**` cannot loop through one."""
    def subfolders(folder: str) -> list[str] | None:
        try:
            with os.scandir(top / folder) as entries:
                return [entry.name for entry in entries if entry.is_dir(follow_symlinks=False)]
        except OSError:   # no such folder, or not one
            return None

    return subfolders


def tree_subfolders(tree: pygit2.Tree, folder: str) -> list[str] | None:
    """The names of the subfolders of `folder` ("" the tree itself) in a git tree (None: no such
    folder there). A submodule or a link is not a folder."""
    if folder:
        try:
            found = tree[folder]
        except KeyError:
            return None
        if found.type_str != "tree":
            return None
        tree = found
    return [entry.name for entry in tree if entry.type_str == "tree"]


class _Walk:
    def __init__(self, subfolders: Subfolders, skip: Callable[[str, str], bool], budget: int | None):
        self._subfolders = subfolders
        self._skip = skip
        self._left = budget   # listings still allowed (None: no limit)

    def expand(self, parts: list[str], folder: str) -> Iterator[str]:
        """The folders below `folder` that `parts` match."""
        if not parts:
            yield folder
            return
        head, rest = parts[0], parts[1:]
        if not any(c in head for c in "*?["):
            yield from self.expand(rest, _join(folder, head))   # a literal: no listing
            return
        for name in self._list(folder):
            if self._skip(name, head):
                continue
            if head == "**":
                yield from self.expand(parts, _join(folder, name))
            elif fnmatch.fnmatchcase(name, head):
                yield from self.expand(rest, _join(folder, name))
        if head == "**":
            yield from self.expand(rest, folder)

    def _list(self, folder: str) -> list[str]:
        if self._left is not None:
            if self._left <= 0:
                raise Unsure
            self._left -= 1
        return self._subfolders(folder) or []


def _skip_none(name: str, part: str) -> bool:
    return False


def _parts(glob: str) -> list[str]:
    return [part for part in glob.strip().strip("/").split("/") if part and part != "."]


def _join(folder: str, name: str) -> str:
    if name == "..":
        joined = posixpath.normpath(posixpath.join(folder, name))
        return "" if joined == "." else joined
    return posixpath.join(folder, name) if folder else name


def _matches(parts: list[str], folder: str) -> bool:
    """Does `folder` match the glob split into `parts` (`**` any number of folders)? No listing."""
    names = folder.split("/") if folder else []

    def match(i: int, j: int) -> bool:
        if i == len(parts):
            return j == len(names)
        if parts[i] == "**":
            return any(match(i + 1, k) for k in range(j, len(names) + 1))
        return j < len(names) and fnmatch.fnmatchcase(names[j], parts[i]) and match(i + 1, j + 1)

    return match(0, 0)
