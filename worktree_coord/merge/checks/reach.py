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
  the candidates' merged imports, resolved as the checks resolve them, decide; a using file that
  imports the name through a file re-exporting it (`from "../internal"`, reexports.py) spells no
  word of the candidate's module, so for those of the using files whose added lines share a word
  with the candidates' touched lines, the imports are read and followed (at most BARREL_USERS);
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
from typing import Callable, Iterable, Mapping

from ..lines.linediff import hunks, ranges_text, touched_lines
from .merge_index import MergeIndex, hash_bytes
from .versions import Versions

BARREL_USERS = 256        # using files whose imports are read for re-exports (1b), at most
BARREL_CANDIDATES = 64    # changed files whose removed names pick those users (1b), at most
NEAR = 16   # a parameter list's line this far below its definition's name (signatures.py) still counts
_SIDES = ("left", "right")
_NAME_WORDS = re.compile(rb"[A-Za-z_$\x80-\xff][\w$\x80-\xff]*")


def words(text: bytes) -> frozenset[bytes]:
    """The words of `text` a name can be (module docstring)."""
    return frozenset(_NAME_WORDS.findall(text))


def spelling(names: Iterable[bytes]) -> re.Pattern[bytes]:
    """A search for any of `names` as a whole word (not inside a longer name)."""
    return re.compile(rb"(?<![\w$])(?:" + b"|".join(re.escape(name) for name in names) + rb")(?![\w$])")


class Reach:
    """`live(side, path)`: the live words of a file `side` changed (module docstring), computed
    for all the side's files on the first question, and kept."""

    def __init__(self, files: Mapping[str, Versions], *, module_path: Callable[[str], str],
                 module_token: Callable[[str], bytes], package_wide: Callable[[str], bool],
                 imported_files: Callable[[str], frozenset[str]],
                 reexported: Callable[[str, frozenset[bytes]], frozenset[str]] | None = None,
                 barrels: Callable[[str], bool] = lambda path: False, memo: "MergeIndex | None" = None):
        self._files = files
        self._memo = memo   # answers kept across checks (merge_index.MergeIndex.memo)
        self._module_path = module_path
        self._module_token = module_token
        self._package_wide = package_wide
        self._imported_files = imported_files
        self._reexported = reexported   # (user, words) -> candidates its imports reach by re-export
        self._barrels = barrels         # path -> whether its language re-exports (profile module_files)
        self._imported: dict[str, frozenset[str]] = {}
        self._added_cache: dict[tuple[str, str], frozenset[bytes]] = {}
        self._live: dict[str, dict[str, frozenset[bytes]]] = {}

    def live(self, side: str, path: str) -> frozenset[bytes]:
        if side not in self._live:
            self._live[side] = self._compute(side, "right" if side == "left" else "left")
        return self._live[side].get(path, frozenset())

    def _compute(self, side: str, other: str) -> dict[str, frozenset[bytes]]:
        files = self._files
        # A definition is broken only when the other side still has it: where both sides made the
        # same change (a vendored tree bumped on both), neither breaks the other. By blob ids.
        candidates = [path for path, v in files.items()
                      if v.exists("base") and not v.same(side, "base") and not v.same(side, other)]
        users = [path for path, v in files.items()
                 if not v.same(other, "base") and v.exists(other) and v.exists("merged")]
        if not candidates or not users:
            return {}
        # 1. Which using file may reach which candidate, from paths and the module words the using
        #    files spell: nothing of a candidate is read yet (integration's thousands of files,
        #    against a task's few, cost a path lookup each).
        by_token: dict[bytes, list[str]] = {}
        by_module: dict[str, list[str]] = {}
        by_directory: dict[str, list[str]] = {}
        for path in candidates:
            by_token.setdefault(self._module_token(path), []).append(path)
            by_module.setdefault(self._module_path(path), []).append(path)
            if self._package_wide(path):
                by_directory.setdefault(posixpath.dirname(path), []).append(path)
        whole = {token for token in by_token if _NAME_WORDS.fullmatch(token)}
        split = [token for token in by_token if token not in whole]
        candidate_set = set(candidates)
        near_by: dict[str, set[str]] = {}        # candidate -> users that may reach it by path
        imported_by: dict[str, set[str]] = {}    # candidate -> users that may import it
        for user in users:
            versions = files[user]
            text = versions.version(other) or b""
            if not versions.same(other, "merged"):
                text += b"\0" + (versions.merged or b"")
            # An import spells its module's last part as a whole word (`util` in `pkg.util`,
            # `./util.js`, `x/util`); a part holding other characters (`yaml.v2`) is searched as is.
            spelled = (whole & words(text)) if len(whole) > 32 else {t for t in whole if t in text}
            spelled.update(token for token in split if token in text)
            for token in spelled:
                for path in by_token[token]:
                    imported_by.setdefault(path, set()).add(user)
            directory = posixpath.dirname(user)
            for path in by_directory.get(directory, ()):
                near_by.setdefault(path, set()).add(user)
            if user in candidate_set:
                near_by.setdefault(user, set()).add(user)
            while True:   # a relative import without a name reaches the directory's package or one above
                for path in by_module.get(directory, ()):
                    imported_by.setdefault(path, set()).add(user)
                parent = posixpath.dirname(directory)
                if parent == directory:   # "" for a relative path, "/" for an absolute one
                    break
                directory = parent
        # 1b. A using file that imports a name through a file re-exporting it (`import { x } from
        #     "../internal"`, whose `export * from "./utils/utils"` leads to the candidate) spells no
        #     word of the candidate's module: its imports are read, for the users in a language
        #     with re-exports (profile module_files) that spell a word a candidate's touched lines
        #     held and its new version no longer does (a removed name, when the candidates are few:
        #     a task's files against integration's), or for every such user when they are few; else
        #     not (a missed finding, never a false one).
        through: set[tuple[str, str]] = set()   # (candidate, user): the user's import reaches it by re-export
        pool = [user for user in users if self._barrels(user)] if self._reexported is not None else []
        if pool and len(candidates) <= BARREL_CANDIDATES:
            gone_by = {path: _gone_words(files[path].base or b"", files[path].version(side)) for path in candidates}
            gone = frozenset().union(*gone_by.values())
            if len(gone) <= 32:   # a rename or two: a search of each user's text for them, whole words
                spelled = spelling(gone) if gone else None
                pool = [user for user in pool if spelled is not None
                        and spelled.search(files[user].version(other) or b"") is not None]
            for user in pool[:BARREL_USERS]:
                # The use is on a line the user's side added, of a name gone from a candidate that
                # the steps above did not already pair with this user.
                added = self._added(other, user)
                wanted = {path for path, words_gone in gone_by.items() if words_gone & added
                          and user not in imported_by.get(path, ()) and user not in near_by.get(path, ())}
                if wanted:
                    names = frozenset().union(*(gone_by[path] & added for path in wanted))
                    for path in self._reexported(user, names) & wanted:   # type: ignore[misc]
                        imported_by.setdefault(path, set()).add(user)
                        through.add((path, user))
        elif len(pool) <= BARREL_USERS:   # many candidates, few users: each user's imports, read
            for user in pool:
                for path in self._reexported(user, self._added(other, user)) & candidate_set:   # type: ignore[misc]
                    imported_by.setdefault(path, set()).add(user)
                    through.add((path, user))
        # 2. The words, only for the pairs found: a candidate's touched lines against the lines
        #    its reaching users added; an import is confirmed by resolving the user's merged
        #    imports only when they share a word.
        out: dict[str, frozenset[bytes]] = {}
        for path in set(near_by) | set(imported_by):
            near = self._near(side, path)
            live: set[bytes] = set()
            for user in near_by.get(path, ()):
                live |= near & self._added(other, user)
            for user in imported_by.get(path, ()):
                common = near & self._added(other, user)
                if common and not common <= live and ((path, user) in through or path in self._imports_of(user)
                                                      or self._reexports_to(user, common, path)):
                    live |= common
            if live:
                out[path] = frozenset(live)
        return out

    def _reexports_to(self, user: str, names: frozenset[bytes], path: str) -> bool:
        """Whether `user`'s imports of `names` reach `path` through a re-export: a user that spells
        the candidate's word without importing its file (`use utils::parse` where `utils` is a crate
        whose root re-exports util.rs; the word `util` is inside `utils`) was paired by step 1 and
        so not read in 1b."""
        if self._reexported is None or not self._barrels(user):
            return False
        return path in self._reexported(user, names)

    def _imports_of(self, user: str) -> frozenset[str]:
        if user not in self._imported:
            self._imported[user] = self._imported_files(user)
        return self._imported[user]

    def _added(self, side: str, path: str) -> frozenset[bytes]:
        """The words of the lines `side` added to `path` (computed once)."""
        key = (side, path)
        if key not in self._added_cache:
            versions = self._files[path]
            data = versions.version(side) or b""
            base = versions.base or b""

            def compute() -> frozenset[bytes]:
                lines = data.split(b"\n")
                found = [lines[start - 1:start - 1 + count] for _, _, start, count in hunks(base, data) if count]
                return words(b"\n".join(b"\n".join(chunk) for chunk in found))

            # Pure in the two contents: kept across the merges of a drain (merge_index.py), where
            # integration's files are the same from one merge to the next.
            self._added_cache[key] = compute() if self._memo is None else \
                self._memo.memo("added", _pair_key(versions, side, base, data), compute)
        return self._added_cache[key]

    def _near(self, side: str, path: str) -> frozenset[bytes]:
        """`_near_words` of `side`'s version of `path`, kept across checks by the two contents."""
        versions = self._files[path]
        base, new = versions.base or b"", versions.version(side)
        if self._memo is None:
            return _near_words(base, new)
        return self._memo.memo("near", _pair_key(versions, side, base, new), lambda: _near_words(base, new))


def _pair_key(versions: Versions, side: str, base: bytes, data: bytes | None) -> tuple:
    """A key for an answer pure in the base and `side` contents: their git ids when known, else
    their hashes (None: the side has no file)."""
    ids = getattr(versions, "blob_id", None)
    if ids is not None:
        known = (ids("base"), ids(side))
        if known[0] is not None and known[1] is not None:
            return ("id",) + known
    return ("hash", hash_bytes(base), None if data is None else hash_bytes(data))


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


def _gone_words(base: bytes, new: bytes | None) -> frozenset[bytes]:
    """The words of the base lines `new` deleted or changed that `new` no longer holds anywhere: a
    name defined there and renamed or removed (unless `new` still spells it, in a comment say)."""
    if new is None:
        return words(base)
    touched = touched_lines(base, new)
    if not touched:
        return frozenset()
    return words(ranges_text(base, touched)) - words(new)
