"""Where a repository lives, found without opening it: for read-only commands that must start fast.

Stage: before anything else of a read-only command (`wtc status`). Input: a folder. Output: a
`Located` (the main checkout's folder and the git common dir) for the plain layout -- a `.git`
folder in the main checkout, or a linked worktree's `.git` file pointing into it -- or None for
anything else (a bare repository, a separate git dir, `core.worktree`, a submodule), where the
caller opens `GitRepo`, which asks libgit2. Reads a few small files; imports nothing heavy (no
pygit2), runs no git.
"""

from __future__ import annotations

import re
from pathlib import Path

_UNUSUAL_CONFIG = re.compile(r"^\s*(worktree\s*=|bare\s*=\s*true)", re.IGNORECASE | re.MULTILINE)


class Located:
    """The main checkout (`toplevel`, what GitRepo.toplevel is) and its .git folder (`common_dir`,
    what GitRepo.common_dir is). A plain class, not a dataclass: the warm path's client runs this
    before anything else, and `dataclasses` loads `inspect` (issue 36, start-up)."""

    __slots__ = ("toplevel", "common_dir")

    def __init__(self, toplevel: Path, common_dir: Path) -> None:
        self.toplevel = toplevel
        self.common_dir = common_dir

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Located):
            return NotImplemented
        return (self.toplevel, self.common_dir) == (other.toplevel, other.common_dir)

    def __hash__(self) -> int:
        return hash((self.toplevel, self.common_dir))

    def __repr__(self) -> str:
        return f"Located(toplevel={self.toplevel!r}, common_dir={self.common_dir!r})"


def locate_plain(start: str | Path) -> Located | None:
    """The plain layout's folders as GitRepo would find them, or None when the layout is not plain."""
    here = Path(start).resolve()
    if not here.is_dir():
        return None
    for folder in (here, *here.parents):
        if folder.name == ".git":
            return None             # inside a git dir: let libgit2 decide what it is
        dot_git = folder / ".git"
        if dot_git.is_dir():
            common = dot_git
            break
        if dot_git.is_file():
            common = _common_of_linked(dot_git)
            if common is None:
                return None
            break
        if (folder / "HEAD").is_file() and (folder / "objects").is_dir():
            return None             # a bare repository (or a git dir reached from inside)
    else:
        return None
    if common.name != ".git" or not (common / "HEAD").is_file():
        return None
    try:
        config = (common / "config").read_text(errors="replace")
    except OSError:
        return None
    if _UNUSUAL_CONFIG.search(config):
        return None
    return Located(toplevel=common.parent, common_dir=common)


def _common_of_linked(dot_git_file: Path) -> Path | None:
    """A linked worktree's `.git` file says `gitdir: <main>/.git/worktrees/<name>`, whose
    `commondir` file leads back to the main `.git`."""
    try:
        text = dot_git_file.read_text(errors="replace").strip()
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    git_dir = (dot_git_file.parent / text[len("gitdir:"):].strip()).resolve()
    commondir = git_dir / "commondir"
    if not commondir.is_file():
        return None                 # a submodule's git dir, or a separate git dir: not plain
    return (git_dir / commondir.read_text(errors="replace").strip()).resolve()
