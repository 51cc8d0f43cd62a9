"""Which files of a merge the post-merge checks must parse: decided before they parse anything.

Stage: the first step of the post-merge checks over a merge (semantic.py's broken names and
signatures.py's reshaped functions ask it), before any file is parsed. Input: the merge's files
(base, left, right, merged versions), how the checks name a file's module (its module path, the
last part of it, whether its directory is its package) and, for the few files that need it, which
files the merged version's imports resolve to. Output: for a side and a file it changed, the `live`
words: the words of the base lines that side touched (or up to `NEAR` lines above a change) that
lines the other side added, in a file that can reach this one, also hold. A definition is read
only when its name is one of them; a file without any is not parsed.

Why it finds the same things: a finding is a definition one side removed or reshaped (its name's
line touched, or near a change of its parameters), that the other side still has, and a use of
it on a line the other side added, in a file whose use resolves to the definition's file. So:
- a file both sides changed alike (a vendored tree bumped on both) holds nothing to find: the
  other side does not keep what one side removed there;
- the checks resolve a use only to its own file, a file of its directory (a language whose
  directories are packages, Go) or a file one of its merged imports names (`_Check.targets`);
  an import of a file spells the last part of its module (`util` of `from pkg.util import x`,
  `./util.js`, `github.com/x/util`) or, relative without a name (`from . import x`), names the
  using file's directory or one above it. The words and directories pick the candidates cheaply;
  the candidates' merged imports, resolved as the checks resolve them, decide;
- the use's name is a word of an added line: words are runs of ASCII word characters, `$` and
  any non-ASCII byte, so a name the checks accept (`[A-Za-z_$][\\w$]*`, Unicode) is one word.
One shape is not kept: a use through an alias (`from m import a as b`, a call of `b`) whose
original name `a` no added line of a reaching file holds, where `b` is also a name the using
side's candidates removed (only then did the unpruned check read the reference at all).

Cost: one line diff per changed file and side, a word scan of the touched and added lines, a
substring search of the candidates' module words in the using files that share a word with some
touched line, and the merged imports of those that spell one. A merge where both sides changed
thousands of vendored files parses the few files a new use can reach.
"""

from __future__ import annotations

import posixpath
import re
from typing import Callable, Mapping

from .linediff import hunks
from .versions import Versions

NEAR = 16   # a parameter list's line this far below its definition's name (signatures.py) still counts
_SIDES = ("left", "right")
_NAME_WORDS = re.compile(rb"[A-Za-z_$\x80-\xff][\w$\x80-\xff]*")


def words(text: bytes) -> frozenset[bytes]:
    """The words of `text` a name can be (module docstring)."""
    return frozenset(_NAME_WORDS.findall(text))


class Reach:
    """`live(side, path)`: the live words of a file `side` changed (module docstring), computed
    for all the side's files on the first question, and kept."""

    def __init__(self, files: Mapping[str, Versions], *, module_path: Callable[[str], str],
                 module_token: Callable[[str], bytes], package_wide: Callable[[str], bool],
                 imported_files: Callable[[str], frozenset[str]]):
        self._files = files
        self._module_path = module_path
        self._module_token = module_token
        self._package_wide = package_wide
        self._imported_files = imported_files
        self._imported: dict[str, frozenset[str]] = {}
        self._live: dict[str, dict[str, frozenset[bytes]]] = {}

    def live(self, side: str, path: str) -> frozenset[bytes]:
        if side not in self._live:
            self._live[side] = self._compute(side, "right" if side == "left" else "left")
        return self._live[side].get(path, frozenset())

    def _compute(self, side: str, other: str) -> dict[str, frozenset[bytes]]:
        users = self._added_words(other)
        if not users:
            return {}
        added_anywhere = frozenset().union(*users.values())
        touched: dict[str, frozenset[bytes]] = {}
        for path, versions in self._files.items():
            # A definition is broken only when the other side still has it: where both sides
            # made the same change (a vendored tree bumped on both), neither breaks the other.
            if versions.same(side, "base") or versions.same(side, other) or not versions.exists("base"):
                continue
            near = _near_words(versions.base or b"", versions.version(side)) & added_anywhere
            if near:
                touched[path] = near
        if not touched:
            return {}
        # The using files that share a word with some touched line, and the module words of the
        # touched files each one spells (a substring search, as the checks' own first test).
        touched_anywhere = frozenset().union(*touched.values())
        by_token: dict[bytes, list[str]] = {}
        for path in touched:
            by_token.setdefault(self._module_token(path), []).append(path)
        spelled: dict[bytes, list[str]] = {}
        by_directory: dict[str, list[str]] = {}
        under: dict[str, list[str]] = {}
        for user, added in users.items():
            if not added & touched_anywhere:
                continue
            versions = self._files[user]
            text = versions.version(other) or b""
            if not versions.same(other, "merged"):
                text += b"\0" + (versions.merged or b"")
            for token in by_token:
                if token in text:
                    spelled.setdefault(token, []).append(user)
            directory = posixpath.dirname(user)
            by_directory.setdefault(directory, []).append(user)
            while True:   # the using file's directory and every one above it
                under.setdefault(directory, []).append(user)
                if not directory:
                    break
                directory = posixpath.dirname(directory)
        out: dict[str, frozenset[bytes]] = {}
        for path, near in touched.items():
            reaching = {path} if path in users else set()
            if self._package_wide(path):
                reaching.update(by_directory.get(posixpath.dirname(path), ()))
            # Through an import: the words and directories say which using files may import this
            # one; their merged imports, resolved as the checks resolve them, say which do.
            for user in set(spelled.get(self._module_token(path), ())) | set(under.get(self._module_path(path), ())):
                if user not in reaching and path in self._imports_of(user):
                    reaching.add(user)
            live: set[bytes] = set()
            for user in reaching:
                live |= near & users[user]
            if live:
                out[path] = frozenset(live)
        return out

    def _imports_of(self, user: str) -> frozenset[str]:
        if user not in self._imported:
            self._imported[user] = self._imported_files(user)
        return self._imported[user]

    def _added_words(self, side: str) -> dict[str, frozenset[bytes]]:
        """path -> the words of the lines `side` added to it, for every file whose added lines a
        check reads for uses (changed by that side, present on it and in the merged result)."""
        out: dict[str, frozenset[bytes]] = {}
        for path, versions in self._files.items():
            if versions.same(side, "base") or not versions.exists(side) or not versions.exists("merged"):
                continue
            data = versions.version(side) or b""
            lines = data.split(b"\n")
            found = [lines[start - 1:start - 1 + count] for _, _, start, count in hunks(versions.base or b"", data)
                     if count]
            text = b"\n".join(b"\n".join(chunk) for chunk in found)
            if text:
                out[path] = words(text)
        return out


def _near_words(base: bytes, new: bytes | None) -> frozenset[bytes]:
    """The words of the base lines `new` deleted or changed, and of the `NEAR` lines above each
    change (an insertion included): where a removed or reshaped definition's name stands."""
    if new is None:
        return words(base)   # the file deleted: every definition is gone
    if new == base:
        return frozenset()
    lines = base.split(b"\n")
    found = []
    for start, count, _, _ in hunks(base, new):
        last = start + count - 1 if count else start + 1
        found.append(b"\n".join(lines[max(start - 1 - NEAR, 0):last]))
    return words(b"\n".join(found))
