"""Boundary globs: validation, matching, the sparse cone they need, and whether two may overlap.

Globs are gitignore-style (pathspec's GitIgnoreSpec) and relative to the repository root: `pkg/a/**`,
`/package.json` (root only), `*.md` (anywhere). A leading `/` is gitignore's root anchor for every
name (`/tmp/**` is the repository's own tmp folder); a glob is refused for what it resolves to (out
of the repository through `..`, into `.git`), never for looking like a filesystem path. A bare directory name such as `pkg/a` or `pkg/a/`
means everything under it, as agents usually mean.
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
import warnings
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence

from ..errors import UsageError

# pathspec (its backends, typing_extensions) loads where a glob is read or matched, not with the module:
# every coordinator command imports this module, and `wtc merge` with nothing waiting matches no glob.
if TYPE_CHECKING:
    import pathspec

_GLOB_CHARS = re.compile(r"[*?\[]")
_OPTION_LIKE = re.compile(r"^--?[A-Za-z][A-Za-z0-9-]*(=.*)?$")
_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")     # a Windows drive: an absolute path


def validate_globs(kind: str, globs: Sequence[str]) -> tuple[str, ...]:
    """Normalise and validate a list of globs; UsageError names the first bad one and why."""
    out: list[str] = []
    for raw in globs:
        glob = raw.strip() if isinstance(raw, str) else raw
        why = None
        if not isinstance(glob, str) or not glob:
            why = "it is empty"
        elif "\x00" in glob or "\n" in glob:
            why = "it contains a NUL or newline"
        elif glob.startswith("!"):
            why = "negated globs are not supported in a boundary"
        elif _OPTION_LIKE.match(glob):
            # `--own --json` gives the glob "--json": the value went missing and the next option was
            # taken as it. A file whose name starts with '-' is still reachable: `[-]name`.
            why = (f"it looks like an option, not a path: was the glob left out before {glob.split('=')[0]}? "
                   f"(a file named so is written '[-]{glob[1:]}')")
        elif glob.startswith("~") or _DRIVE.match(glob) or glob.startswith("\\"):
            why = "it is an absolute path"
        elif glob.startswith("//"):
            why = "it is an absolute path"
        else:
            parts = [p for p in glob.strip("/").split("/")]
            resolved = posixpath.normpath(glob.strip("/") or ".")
            if resolved == ".." or resolved.startswith("../"):
                why = "it resolves outside the repository through '..' (boundaries stay inside it)"
            elif any(p == ".." for p in parts):
                why = f"it contains '..' (a glob never matches through '..'; write {resolved!r})"
            elif any(p.lower() == ".git" or p.lower().startswith(".git/") for p in parts):
                why = "it names something under .git"
            elif glob.startswith("/") and glob.strip("/") == "":
                why = "it is the filesystem root"
            else:
                why = pattern_problem(glob)
        if why:
            raise UsageError(
                f"invalid --{kind} glob {raw!r}: {why}",
                fix="use repository-relative gitignore-style globs such as 'packages/api/**' or '/package.json'",
                details={"glob": raw, "kind": kind},
            )
        out.append(_expand_directory(glob))
    return tuple(dict.fromkeys(out))


def pattern_problem(glob: str) -> str | None:
    """Why gitignore's matcher cannot read `glob` as a pattern (it would match nothing, or fail when
    first used), or None. Checked where a boundary is given, so a malformed glob is exit 2 at start,
    widen and plan add, not a boundary that silently owns nothing."""
    if glob.startswith("#"):
        return ("'#' at its start makes it a comment in gitignore syntax, which matches nothing "
                "(write '\\#...' for a name that starts with '#')")
    if _plain_test(glob) is not None:
        return None      # plain names, `*`, `?` and a final `/**`: nothing gitignore could misread
    stripped = glob.rstrip("\\")
    if (len(glob) - len(stripped)) % 2 == 1:
        return "it ends with a lone '\\' (an escape with nothing after it)"
    import pathspec

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # re's FutureWarning on '[[' inside a class: still a valid class
            patterns = pathspec.GitIgnoreSpec.from_lines([glob]).patterns
    except Exception as error:  # noqa: BLE001 - pathspec raises re.error or its own pattern error
        return f"it is not a glob gitignore can read ({error})"
    if any(pattern.regex is None for pattern in patterns):
        if "[" in glob:
            return "its '[' opens a character class that no ']' closes (write '[[]' for a literal '[')"
        return "it is not a glob gitignore can read (it would match nothing)"
    return None


def _expand_directory(glob: str) -> str:
    """`pkg/a/` means the whole folder: `pkg/a/**`. A bare `pkg/a` may be a file or a folder; the
    matcher covers both."""
    if glob.endswith("/") and not _GLOB_CHARS.search(glob):
        return glob + "**"
    return glob


@lru_cache(maxsize=512)
def _spec(globs: tuple[str, ...]) -> pathspec.GitIgnoreSpec:
    import pathspec

    lines: list[str] = []
    for glob in globs:
        lines.append(glob)
        if not _GLOB_CHARS.search(glob) and not glob.endswith("/**"):
            lines.append(glob.rstrip("/") + "/**")  # a plain name also covers a folder of that name
    return pathspec.GitIgnoreSpec.from_lines(lines)


def matches(globs: Sequence[str], path: str) -> bool:
    """Whether the repository-relative file `path` matches any of `globs`."""
    if not globs:
        return False
    return _matcher(tuple(globs))(path)


# The globs boundaries are made of (`packages/api/**`, `/package.json`, `yarn.lock`, `requirements*.txt`)
# matched by string tests with gitignore's answers, without pathspec: importing it and compiling a
# task's ~20 reserved globs into regular expressions cost ~23 ms of CPU in every `task start` and
# `task finish` process (scripts/profile_cli_calls.py). Anything else (brackets, `**` inside, several
# folders with wildcards, escapes, negations) goes to pathspec as before; tests/core/test_glob_matching.py
# holds the two to the same answers.
_PLAIN_NAME = r"[A-Za-z0-9._@+,=%~-]+"
_PLAIN = re.compile(rf"(/?)((?:{_PLAIN_NAME}/)*{_PLAIN_NAME})(/\*\*)?")
_WILD = re.compile(r"(/?)([A-Za-z0-9._@+,=%~*?-]+)")


def _plain_test(glob: str) -> Callable[[str], bool] | None:
    """A string test giving gitignore's answer for `glob`, or None when the glob is not one of the
    plain shapes (`_plain_shape`)."""
    shape = _plain_shape(glob)
    if shape is None:
        return None
    return _Plain([shape]).match


def _plain_shape(glob: str) -> tuple[str, Any] | None:
    """What string test gives gitignore's answer for `glob`: ("under", "a/b/") a path starting so,
    ("at", "a/b") that path or one under it, ("name", "x") a path holding that name at any depth,
    ("wild", "x*.txt") a path holding a name that wildcard (`*`, `?`: never a `/`) matches at any
    depth, ("wild_top", ...) its first name; None when the glob is not one of the plain shapes.
    gitignore's rules used: a glob with a `/` before its end is anchored at the root, one without
    matches a name at any depth, and a matched name is a file or a folder whose whole content then
    matches; `*` and `?` never match `/`."""
    plain = _PLAIN.fullmatch(glob)
    if plain is not None:
        lead, body, all_under = plain.groups()
        if any(name in (".", "..") for name in body.split("/")):
            return None
        if all_under:
            return ("under", body + "/")
        if lead or "/" in body:
            return ("at", body)
        return ("name", body)
    wild = _WILD.fullmatch(glob)
    if wild is None or "**" in glob:
        return None
    lead, name = wild.groups()
    if name in (".", ".."):
        return None
    return ("wild_top" if lead else "wild", name)


class _Plain:
    """The plain globs of one list as one test: a path's prefixes by one `startswith` of a tuple,
    exact paths and names at any depth by set lookups, the wildcard names one test each (a
    boundary's ~20 reserved globs were ~20 calls a path; the queue asks it of every path a task
    changed, at each merge)."""

    def __init__(self, shapes: list[tuple[str, Any]]) -> None:
        self.prefixes = tuple(v for kind, v in shapes if kind == "under") + tuple(v + "/" for kind, v in shapes
                                                                                if kind == "at")
        self.exact = frozenset(v for kind, v in shapes if kind == "at")
        self.names = frozenset(v for kind, v in shapes if kind == "name")
        # The wildcard names as one search: a whole name between slashes (at the start, for a
        # glob anchored at the root), where fnmatch per name and glob was ~25 calls a path.
        wild = [f"(?:^|/)(?:{'|'.join(_wild_name(v) for kind, v in shapes if kind == 'wild')})(?:/|\\Z)"] \
            if any(kind == "wild" for kind, _ in shapes) else []
        wild += [f"^(?:{'|'.join(_wild_name(v) for kind, v in shapes if kind == 'wild_top')})(?:/|\\Z)"] \
            if any(kind == "wild_top" for kind, _ in shapes) else []
        self.wild = re.compile("|".join(wild)).search if wild else None

    def match(self, path: str) -> bool:
        return (path in self.exact or path.startswith(self.prefixes)
                or bool(self.names) and not self.names.isdisjoint(path.split("/"))
                or self.wild is not None and self.wild(path) is not None)


def _wild_name(name: str) -> str:
    """A wildcard name (`_WILD`'s characters) as a regular expression for one name: `*` any run
    and `?` any one character but `/`, the rest literal (fnmatchcase's reading within a name)."""
    return "".join("[^/]*" if ch == "*" else "[^/]" if ch == "?" else re.escape(ch) for ch in name)


@lru_cache(maxsize=512)
def _matcher(globs: tuple[str, ...]) -> Callable[[str], bool]:
    """One test for a list of globs: the plain ones by string tests, the rest by pathspec. A list
    with a negation (`!x`, possible in a configured reserved list) is pathspec's whole: there the
    order of the globs decides."""
    if any(glob.startswith("!") for glob in globs):
        return _spec(globs).match_file
    shapes: list[tuple[str, Any]] = []
    rest: list[str] = []
    for glob in globs:
        shape = _plain_shape(glob)
        if shape is None:
            rest.append(glob)
        else:
            shapes.append(shape)
    plain = _Plain(shapes).match
    if not rest:
        return plain
    spec = _spec(tuple(rest)).match_file

    def match(path: str) -> bool:
        return plain(path) or spec(path)
    return match


def literal_prefix(glob: str) -> str:
    """The folder part of a glob before its first wildcard: `pkg/a/**/*.py` -> `pkg/a`."""
    anchored = glob.lstrip("/")
    parts = anchored.split("/")
    literal: list[str] = []
    for part in parts[:-1]:
        if _GLOB_CHARS.search(part):
            break
        literal.append(part)
    else:
        last = parts[-1]
        if not _GLOB_CHARS.search(last) and "." not in last.lstrip("."):
            literal.append(last)  # a bare folder name
    if not glob.startswith("/") and "/" not in glob.rstrip("/"):
        # gitignore: a pattern without a slash matches at any depth, so no folder bounds it
        return ""
    return "/".join(literal)


def cone_directories(globs: Iterable[str]) -> tuple[str, ...] | None:
    """Folders a cone sparse checkout needs so every glob's files are present; None = everything."""
    dirs: set[str] = set()
    for glob in globs:
        prefix = literal_prefix(glob)
        if not prefix:
            anchored = glob.lstrip("/")
            if glob.startswith("/") and "/" not in anchored and not _GLOB_CHARS.search(anchored):
                continue  # a root-level file: cone mode always includes root files
            return None
        dirs.add(prefix)
    # Drop folders inside other listed folders: cone mode includes them anyway.
    minimal = sorted(d for d in dirs if not any(d != o and d.startswith(o + "/") for o in dirs))
    return tuple(minimal)


def unmatched_glob_notes(kind: str, globs: Sequence[str], paths_under: Callable[[str], Iterable[str]], where: str,
                         *, budget: int = 50_000) -> list[str]:
    """A note per glob that matches no file `paths_under(folder)` yields (the pin's files under the
    glob's literal folder, `""` the whole tree): accepted, since a task may create the files, but
    worth a word in case it is a misspelling. Each walk stops at its first match; one that reads
    more than `budget` paths gives up without a note (not worth the start's time)."""
    notes = []
    for glob in globs:
        seen, found = 0, False
        for path in paths_under(literal_prefix(glob)):
            seen += 1
            if matches([glob], path) or seen > budget:
                found = True
                break
        if not found:
            notes.append(f"--{kind} {glob!r} matches no file at the pin ({where}): fine for files the task creates; "
                         "if it was meant to name existing files, check its spelling (wtc task widen adds a glob)")
    return notes


def unanchored_name(glob: str) -> bool:
    """A plain name with no '/' (`CHANGELOG.md`, `Makefile`): gitignore matches it in every folder,
    which is rarely what a task owning "the" CHANGELOG.md means."""
    return "/" not in glob and not _GLOB_CHARS.search(glob)


def may_overlap(a: Sequence[str], b: Sequence[str]) -> list[tuple[str, str]]:
    """Pairs of globs (one from each list) that could match a common path. Conservative: it may
    report a pair that cannot really meet, never misses one that can."""
    return [(x, y) for x in a for y in b if _glob_pair_may_overlap(x, y)]


def _glob_pair_may_overlap(x: str, y: str) -> bool:
    px, py = _segments(x), _segments(y)
    return _segments_may_meet(tuple(px), tuple(py))


def _segments(glob: str) -> list[str]:
    anchored = glob.startswith("/") or "/" in glob.rstrip("/")
    parts = [p for p in glob.strip("/").split("/") if p]
    if not anchored:
        parts = ["**", *parts]
    if parts and parts[-1] != "**" and not _GLOB_CHARS.search(parts[-1]) and "." not in parts[-1].lstrip("."):
        parts = [*parts, "**"]  # a bare name can be a folder
    return parts


@lru_cache(maxsize=4096)
def _segments_may_meet(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    if not a and not b:
        return True
    if a and a[0] == "**":
        return _segments_may_meet(a[1:], b) or (bool(b) and _segments_may_meet(a, b[1:]))
    if b and b[0] == "**":
        return _segments_may_meet(a, b[1:]) or (bool(a) and _segments_may_meet(a[1:], b))
    if not a or not b:
        return False
    return _segment_may_meet(a[0], b[0]) and _segments_may_meet(a[1:], b[1:])


def _segment_may_meet(x: str, y: str) -> bool:
    gx, gy = bool(_GLOB_CHARS.search(x)), bool(_GLOB_CHARS.search(y))
    if not gx and not gy:
        return x == y
    if gx and gy:
        return True  # two wildcards: assume they can meet
    literal, pattern = (y, x) if gx else (x, y)
    return fnmatch.fnmatchcase(literal, pattern)  # segments hold no "/", so fnmatch agrees with gitignore
