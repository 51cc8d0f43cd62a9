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
    if not (git_dir / "commondir").is_file():
        return None                 # a submodule's git dir, or a separate git dir: not plain
    return common_dir_of(git_dir)


def common_dir_of(git_dir: Path) -> Path:
    """The common git dir of `git_dir`: where its `commondir` file leads (a linked worktree's
    `.git/worktrees/<name>`), else `git_dir` itself. Objects, refs and config live there."""
    commondir = git_dir / "commondir"
    if not commondir.is_file():
        return git_dir
    return (git_dir / commondir.read_text(errors="replace").strip()).resolve()


_SECTION = re.compile(r"^\s*\[([^\]]*)\]")
_WORKTREE_CONFIG_ON = re.compile(r"^\s*worktreeconfig\s*=\s*true\s*$", re.IGNORECASE)


def worktree_config_on(common_dir: Path) -> bool:
    """Whether the repository's own config file plainly turns `extensions.worktreeConfig` on: one
    `worktreeConfig = true` line under `[extensions]`, no other line naming the key, no include and
    no `config.worktree` naming it. False means "not plainly": the caller asks libgit2, which reads
    every level, so a False here costs an import, never a wrong answer (GitRepo.ensure_setup)."""
    try:
        text = (common_dir / "config").read_text(errors="replace")
    except OSError:
        return False
    try:
        worktree_text = (common_dir / "config.worktree").read_text(errors="replace")
    except OSError:
        worktree_text = ""
    if "worktreeconfig" in worktree_text.lower():
        return False
    section, found = "", False
    for line in text.splitlines():
        header = _SECTION.match(line)
        if header:
            section = header.group(1).strip().lower()
            if section.startswith("include"):
                return False
            continue
        if "worktreeconfig" not in line.lower():
            continue
        if section != "extensions" or not _WORKTREE_CONFIG_ON.match(line):
            return False
        found = True
    return found


_LOOSE_REF = re.compile(r"[0-9a-f]{40}\n?|[0-9a-f]{64}\n?")


def _plain_ref_name(name: str) -> bool:
    """A name whose loose file lives under the common dir at that path (no `..`, no per-worktree ref)."""
    return name.startswith("refs/") and ".." not in name and not name.startswith(
        ("refs/bisect/", "refs/worktree/", "refs/rewritten/"))


def read_loose_ref(common_dir: Path, name: str) -> str | None:
    """The object id a loose ref file holds (`refs/heads/...` under the common dir: what git and
    libgit2 read first, a loose ref hiding a packed one), or None when there is no such plain file:
    a packed ref, a symbolic one, a reftable store (its `refs/heads` is a file), a name with `..`
    or a per-worktree ref; the caller then asks libgit2 (GitRepo.ref_target)."""
    if not _plain_ref_name(name):
        return None
    try:
        text = (common_dir / name).read_text(encoding="ascii")
    except (OSError, ValueError):
        return None
    return text.rstrip("\n") if _LOOSE_REF.fullmatch(text) else None


# A name plainly valid for git and libgit2 alike (check-ref-format's rules, conservatively): a name
# outside it is left to libgit2, which refuses a malformed one with its own error.
_SIMPLE_REF_NAME = re.compile(r"refs(/(?!\.)[A-Za-z0-9_.+-]+(?<!\.lock)(?<!\.))+")
_PACKED_LINE = re.compile(r"([0-9a-f]{40}|[0-9a-f]{64}) (\S+)")


def ref_from_files(common_dir: Path, name: str) -> tuple[bool, str | None]:
    """(True, the object id) of a branch-like ref read from git's own files, (True, None) when those
    files plainly say it does not exist, and (False, None) when they do not answer plainly (the
    caller asks libgit2, as for `read_loose_ref`). A loose file hides the packed line; with no loose
    file, `packed-refs` answers: a line `<id> <name>` (its `^<id>` peeled lines are a tag's target,
    not the ref's). A reftable store, a loose path that is not a plain file, a symbolic ref or a
    `packed-refs` line of another shape does not answer plainly. A ref that `git pack-refs` packs
    meanwhile is in `packed-refs` before its loose file goes, so reading the loose file first never
    misses it (libgit2 reads them in that order too)."""
    loose = read_loose_ref(common_dir, name)
    if loose is not None:
        return True, loose
    if not _plain_ref_name(name) or not _SIMPLE_REF_NAME.fullmatch(name) or (common_dir / "reftable").exists():
        return False, None
    try:
        (common_dir / name).lstat()
        return False, None              # a file read_loose_ref did not take (symbolic, odd): libgit2
    except FileNotFoundError:
        pass
    except OSError:
        return False, None              # a file where a folder of the name is (NotADirectoryError), ...
    try:
        packed = (common_dir / "packed-refs").read_text(encoding="utf-8")
    except FileNotFoundError:
        return True, None
    except (OSError, ValueError):
        return False, None
    for line in packed.splitlines():
        if not line or line.startswith(("#", "^")):
            continue
        match = _PACKED_LINE.fullmatch(line)
        if match is None:
            return False, None
        if match.group(2) == name:
            return True, match.group(1)
    return True, None
