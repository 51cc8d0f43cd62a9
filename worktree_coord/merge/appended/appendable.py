"""The files every task appends to: which ones (grammars/append/kinds.toml) and their entry merge.

Stage: after the line merge conflicted on a file no tree-sitter profile covers (the cascade's
step 4 for .gitignore, CODEOWNERS, requirements-style lists, AUTHORS, gettext PO, Java
.properties). Input: base, left, right bytes and the file's kind. Output: pieces (bytes or
`pieces.Conflict`) from `keyed_sequence.merge_entries`, or Unmergeable with the reason (the
cascade then keeps the line merge and says why in `notes`).
Order rules that are the file's own: a `.gitignore` negation (`!pattern`) and a CODEOWNERS or
.gitattributes pattern (the last match wins) depend on what comes before them, so both sides
adding entries at one place conflict when one of them is a negation, or when a pattern of one
side may match paths of the other's (`clash`).
"""

from __future__ import annotations

import fnmatch
import functools
import os
import sys
from collections.abc import Sequence
from typing import Any

from ...errors import ConfigError
from ...frozen import value_class
from .entries import TRAILER, Entry, EntryError, cut
from .keyed_sequence import Clash, merge_entries
from ..syntax.members import Unmergeable
from ..syntax.pieces import Conflict, Piece

_FORMATS = ("lines", "po", "properties")
_KEYS = ("line", "first_field", "requirement")
_FIELDS = {"name", "format", "filenames", "globs", "extensions", "comment", "key", "negation", "last_match_wins",
           "skip_guards"}


@value_class
class Kind:
    """One kind of appended-to file (grammars/append/kinds.toml says what each field means)."""

    name: str
    format: str
    filenames: tuple[str, ...] = ()
    globs: tuple[str, ...] = ()
    extensions: tuple[str, ...] = ()
    comment: str = "#"
    key: str = "line"
    negation: str = ""
    last_match_wins: bool = False
    skip_guards: frozenset[str] = frozenset()

    def matches(self, path: str) -> bool:
        name = os.path.basename(path)
        lowered = name.lower()
        return (name in self.filenames or any(fnmatch.fnmatchcase(name, glob) for glob in self.globs)
                or any(lowered.endswith("." + extension) for extension in self.extensions))


def load_kinds(text: str, source: str) -> tuple[Kind, ...]:
    """Kinds from TOML text; ConfigError naming the file and the field when one is wrong."""
    return _kinds_of(_parsed(text, source), source)


def _parsed(text: str, source: str) -> dict[str, object]:
    import tomllib   # here: the shipped kinds are read from their kept parse (`kinds`)

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{source} is not valid TOML: {error}") from error


KINDS_CACHE = "append-kinds-v1"   # folder under the user's state folder (kept_on_disk.py)


def _kinds_of(raw: dict[str, Any], source: str) -> tuple[Kind, ...]:
    found: list[Kind] = []
    for index, table in enumerate(raw.get("kinds", [])):
        where = f"{source} kinds[{index}]"
        unknown = set(table) - _FIELDS
        if unknown:
            raise ConfigError(f"{where} has unknown keys {sorted(unknown)}",
                              fix=f"use only {sorted(_FIELDS)}")
        if table.get("format") not in _FORMATS or table.get("key", "line") not in _KEYS or "name" not in table:
            raise ConfigError(f"{where} needs a name, a format in {list(_FORMATS)} and a key in {list(_KEYS)}",
                              fix="see the comment at the top of grammars/append/kinds.toml")
        found.append(Kind(name=table["name"], format=table["format"], filenames=tuple(table.get("filenames", ())),
                          globs=tuple(table.get("globs", ())), extensions=tuple(table.get("extensions", ())),
                          comment=table.get("comment", "#"), key=table.get("key", "line"),
                          negation=table.get("negation", ""), last_match_wins=bool(table.get("last_match_wins")),
                          skip_guards=frozenset(_guard_names(table.get("skip_guards", []), where))))
    return tuple(found)


def _guard_names(names: list[str], where: str) -> list[str]:
    from ..precision.guards import GUARD_NAMES

    unknown = sorted(set(names) - set(GUARD_NAMES))
    if unknown:
        raise ConfigError(f"{where} skip_guards names unknown guards {unknown}", fix=f"use some of {list(GUARD_NAMES)}")
    return names


@functools.lru_cache(maxsize=1)
def kinds() -> tuple[Kind, ...]:
    """The shipped kinds (worktree_coord.grammars/append/kinds.toml)."""
    import worktree_coord.grammars as grammars

    folders = list(getattr(grammars, "__path__", []))
    if len(folders) == 1 and os.path.isdir(folders[0]):
        # A plain folder (an install, a checkout): a file read, not importlib.resources, which loads
        # tempfile, zipfile, random and shutil (~5 ms of a `wtc merge-file` whose structured stage runs).
        with open(os.path.join(folders[0], "append", "kinds.toml"), encoding="utf-8") as file:
            text = file.read()
    else:
        import importlib.resources   # a zipped or multi-folder package

        text = importlib.resources.files("worktree_coord.grammars").joinpath("append", "kinds.toml").read_text(
            encoding="utf-8")
    from ...kept_on_disk import kept_json, source_of

    source = "grammars/append/kinds.toml"
    code = source_of(__file__)
    if code is None:
        return load_kinds(text, source)
    # Kept as JSON: tomllib's import and parse are ~3 ms of a `wtc merge-file` whose result is clean.
    return _kinds_of(kept_json(KINDS_CACHE, [code, sys.version.encode(), text.encode("utf-8", "surrogateescape")],
                               lambda: _parsed(text, source)), source)


def kind_for_path(path: str) -> Kind | None:
    """The kind that handles `path`, or None."""
    return next((kind for kind in kinds() if kind.matches(path)), None)


def _literal(pattern: str) -> str:
    text = pattern.lstrip("/")
    for at, char in enumerate(text):
        if char in "*?[\\":
            return text[:at]
    return text


def _anchored(pattern: str) -> bool:
    return "/" in pattern.rstrip("/")


def may_overlap(first: str, second: str) -> bool:
    """Whether two path patterns may match one path (conservative: True when unsure)."""
    a, b = _literal(first), _literal(second)
    if not a or not b or a.startswith(b) or b.startswith(a):
        return True
    return (not _anchored(first) and a.rstrip("/") in b) or (not _anchored(second) and b.rstrip("/") in a)


def clash_for(kind: Kind) -> Clash | None:
    """When both sides' new entries at one place cannot be put in either order, for `kind`."""
    if kind.format != "lines" or not (kind.negation or kind.last_match_wins):
        return None

    def clash(left: Sequence[Entry], right: Sequence[Entry]) -> bool:
        mine = [entry.pattern for entry in left if entry.key != TRAILER]
        theirs = [entry.pattern for entry in right if entry.key != TRAILER]
        if kind.negation and any(p.startswith(kind.negation) for p in mine + theirs):
            return True
        return kind.last_match_wins and any(may_overlap(a, b) for a in mine for b in theirs)
    return clash


def merge_appendable(kind: Kind, base: bytes, left: bytes, right: bytes, *, eol: str = "\n",
                     labels: tuple[str, str, str] = ("ours", "base", "theirs")) -> list[Piece]:
    """The entry-level merge of one file of `kind` as pieces; Unmergeable when it cannot be read
    (`labels`, ours, base and theirs, name the versions in its reason)."""
    try:
        versions = [cut(data, kind.format, comment=kind.comment, key=kind.key) for data in (base, left, right)]
    except EntryError as error:
        raise Unmergeable(str(error)) from None
    pieces = merge_entries(*versions, clash=clash_for(kind), labels=labels)
    return _with_line_ends(pieces, eol.encode())


def _with_line_ends(pieces: list[Piece], eol: bytes) -> list[Piece]:
    """An entry that was last in its file without a final newline gets one when more follows it."""
    out: list[Piece] = []
    last = max((index for index, piece in enumerate(pieces) if not isinstance(piece, bytes) or piece), default=-1)
    for index, piece in enumerate(pieces):
        if isinstance(piece, bytes):
            out.append(piece + eol if piece and index < last and not piece.endswith(b"\n") else piece)
        else:
            parts = [part + eol if part and not part.endswith(b"\n") else part
                     for part in (piece.base, piece.ours, piece.theirs)]
            out.append(Conflict(base=parts[0], ours=parts[1], theirs=parts[2], declaration=piece.declaration,
                                kind=piece.kind))
    return out
