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
thousands of vendored files parses the few files a new use can reach. In a drain (a tip given,
tip_index.py) the integration tip's files outside the merge's own are looked up in the tip's
tables instead of walked: the same pairs, found in what the task changed; where the walk searched
bytes and a word lookup could over-answer (a word beside a byte past ASCII, a token of several
words), the bytes of those few files decide.
"""

from __future__ import annotations

import functools
import heapq
import posixpath
import re
from itertools import chain, islice
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Mapping

from ..lines.linediff import hunks, ranges_text, touched_lines
from .versions import Versions

# The merge index (with hashlib's OpenSSL) loads with the index a check is given (merge_index.py): a
# one-file check (`wtc merge-file`, once per conflicted file git asks about) has none (start-up).
if TYPE_CHECKING:
    from .merge_index import MergeIndex

BARREL_USERS = 256        # using files whose imports are read for re-exports (1b), at most
BARREL_CANDIDATES = 64    # changed files whose removed names pick those users (1b), at most
CHAINED_WORDS = 256   # words gone from a Java file searched after a call's result (`).put`), at most
NEAR = 16   # a parameter list's line this far below its definition's name (signatures.py) still counts
_SIDES = ("left", "right")
_NAME_WORDS = re.compile(rb"[A-Za-z_$\x80-\xff][\w$\x80-\xff]*")
_WORD_RUNS = re.compile(rb"[\w$\x80-\xff]+")
# A member read of a call's result (`Store.open(k).put`) or of a field (`h.entry.put`): what precedes
# the member's name in a user that reaches it through a declared type it need not spell.
CHAIN_HEAD = rb"(?:\)|[\w$]\s*\.\s*[A-Za-z_$][\w$]*)\s*\.\s*"
_CHAINED = re.compile(CHAIN_HEAD + rb"[A-Za-z_$]")
_IMPORT_LINE = re.compile(rb"^[ \t]*import[ \t]+(?:static[ \t]+)?([\w.]+?)[ \t]*\.[ \t]*(?:\*|\w+)[ \t]*;", re.MULTILINE)
JAVA_PACKAGE = re.compile(rb"^\s*package\s+([\w.\s]+?)\s*;", re.MULTILINE)   # a Java file's `package p.q;`


def _imported_folders(text: bytes) -> frozenset[str]:
    """The folders (`p/q`) of the Java packages `text`'s import lines import from, with each outer
    folder too (`import static p.q.C.m;` spells package p.q through class C)."""
    found: set[str] = set()
    for module in _IMPORT_LINE.findall(text):
        parts = module.decode("ascii", "replace").split(".")
        found.update("/".join(parts[:count]) for count in range(1, len(parts) + 1))
    return frozenset(found)


def one_word(token: bytes) -> bool:
    """Whether `token` is one word (module docstring): then a text holds it exactly when one of
    the text's words holds it (a run of word characters loses only leading digits to the split)."""
    return _NAME_WORDS.fullmatch(token) is not None


def words(text: bytes) -> frozenset[bytes]:
    """The words of `text` a name can be (module docstring): each maximal run of word characters
    less its leading digits (what `_NAME_WORDS.findall` finds), split in C by a byte table: the
    regular expression's scan took 1.2x as long on a 1 KB file, 1.8x on a 64 KB one, and every
    merge of a drain scans each task file's text."""
    runs = set(text.translate(RUN_BYTES).split())
    found = {run for run in runs if run[0] not in _DIGITS}
    if len(found) < len(runs):
        found.update(word for word in (run.lstrip(b"0123456789") for run in runs if run[0] in _DIGITS) if word)
    return frozenset(found)


# Every byte that is no word character (`[\w$\x80-\xff]`) as a space, where bytes.split() splits
# (standing_words splits so too).
RUN_BYTES = bytes(c if _WORD_RUNS.fullmatch(bytes([c])) else 0x20 for c in range(256))
_DIGITS = frozenset(b"0123456789")


def standing_words(data: bytes) -> tuple[frozenset[bytes], frozenset[bytes]]:
    """(the words of `data` (words()) that stand alone, those that stand only after a digit):
    a word standing alone is what spelling() finds. From the maximal runs of word characters,
    in one pass: words() finds one word in each run, the run less its leading digits (a name
    starts with no digit; every other byte of a run continues it), standing alone when the run
    has none. (Three regular-expression passes before, one with a look-behind at every byte:
    45 us against 12 for a 1 KB file, five files a merge of a drain.)"""
    runs = set(data.translate(RUN_BYTES).split())   # the runs, split in C as words() splits them
    clean = {run for run in runs if run[0] not in _DIGITS}
    if len(clean) == len(runs):
        return frozenset(clean), frozenset()
    after = {word for word in (run.lstrip(b"0123456789") for run in runs if run[0] in _DIGITS) if word}
    return frozenset(clean), frozenset(after - clean)


def spelling(names: Iterable[bytes]) -> re.Pattern[bytes]:
    """A search for any of `names` as a whole word (not inside a longer name)."""
    return re.compile(rb"(?<![\w$])(?:" + b"|".join(re.escape(name) for name in names) + rb")(?![\w$])")


class Reach:
    """`live(side, path)`: the live words of a file `side` changed (module docstring), computed
    for all the side's files on the first question, and kept."""

    def __init__(self, files: Mapping[str, Versions], *, module_path: Callable[[str], str],
                 module_token: Callable[[str], bytes], package_wide: Callable[[str], bool],
                 imported_files: Callable[[str], frozenset[str]],
                 may_import: Callable[[str, str], bool] = lambda user, path: True,
                 reexported: Callable[[str, Any], frozenset[str]] | None = None,
                 barrels: Callable[[str], bool] = lambda path: False, memo: "MergeIndex | None" = None,
                 tip: Any = None, loose: Iterable[str] = (),
                 package_of: Callable[[str], str | None] = lambda path: None,
                 unspelled: Callable[[str], frozenset[bytes]] = lambda path: frozenset(),
                 spelled: Callable[[str, frozenset[bytes]], frozenset[bytes]] = lambda path, found: found,
                 star_list: Callable[[str], bytes] = lambda path: b"",
                 reaching: Callable[[str], "tuple[bool, frozenset[bytes]] | None"] = lambda path: None,
                 closed: Callable[[str], bool] = lambda path: False,
                 package_key: Callable[[str], str | None] = lambda path: None):
        self._files = files
        # path -> the package whose top-level names it shares (linked.package_key: Go's folder, the
        # one package of C and C++), None: its own file's. A package-wide candidate reaches its users there.
        self._package_key = package_key
        # path -> the name of the list a star import of it takes (Python's `__all__`; b"": none):
        # a side that writes it anew hides names without touching a line (star_list_added).
        self._star_list = star_list
        # path -> names a definition there may have that a use never spells (a module's default
        # export, `import X from "./m"`): live wherever a user's import of the file is confirmed.
        self._unspelled = unspelled
        # (path, words of its lines) -> those words and the unspelled names they stand for
        # (`module.exports = f` spells no `default`, yet makes the default export)
        self._spelled = spelled
        # With `tip` (a tip_index.TipIndex, which imports this module; `files` then in path
        # order): the tip's changed files outside `loose` are the left side's, which the right
        # side and the merged tree hold as the pin and the tip do; they are looked up, not walked.
        self._tip = tip
        self._loose = frozenset(path for path in loose if path in files)
        self._changed = frozenset(loose)   # the merge's own paths, a file of it or not (one made a symlink)
        self._memo = memo   # answers kept across checks (merge_index.MergeIndex.memo)
        self._module_path = module_path
        self._module_token = module_token
        self._package_wide = package_wide
        self._imported_files = imported_files
        # (user, path) -> False where `imported_files(user)` surely lacks path, asked first: it
        # tells a drain's tip file paired by a module's word without resolving its imports.
        self._may_import = may_import
        self._reexported = reexported   # (user, words or a function of them) -> candidates its imports reach by re-export
        self._barrels = barrels         # path -> whether its language re-exports (profile module_files)
        self._package_of = package_of   # path -> its package where classes need no import (Java), else None
        # user -> (whether an import of a whole module or a star import of it leads to a file, the
        # names its other imports bound from a file are bound to), or None (unknown): `reexported`
        # answers nothing for names none of which is bound so, unless the first holds
        # (reexports.ReExports.reaching). Asked before a pair is confirmed: a drain pairs a task's
        # file with every tip file spelling its module word, and most can reach it by no import.
        self._reaching = reaching
        self._reaching_of: dict[str, "tuple[bool, frozenset[bytes]] | None"] = {}
        # user -> whether `reexported(user, any names)` answers only files at its own imports' keys
        # (reexports.ReExports.closed): a tip's such file is kept closed in its tables (_tip_closed).
        self._closed = closed
        self._closed_of: dict[str, bool] = {}
        self._stale: set[str] | None = None   # the tip's closed users at a key of a loose file (_tip_closed)
        self._imported: dict[str, frozenset[str]] = {}
        self._added_cache: dict[tuple[str, str], frozenset[bytes]] = {}
        self._live: dict[str, dict[str, frozenset[bytes]]] = {}

    def live(self, side: str, path: str) -> frozenset[bytes]:
        return self._side(side).get(path, frozenset())

    def _side(self, side: str) -> dict[str, frozenset[bytes]]:
        if side not in self._live:
            self._live[side] = self._compute(side, "right" if side == "left" else "left")
        return self._live[side]

    def live_paths(self, sides: Iterable[str] = _SIDES) -> list[str]:
        """The files with live words on any of `sides`, in the files' order: the only ones the
        checks read (a merge's thousands of files are not walked again to find them)."""
        found: set[str] = set()
        for side in sides:
            found.update(self._side(side))
        if self._tip is not None:
            return sorted(found)   # the files of a tip's merge are in path order
        return [path for path in self._files if path in found]

    def _compute(self, side: str, other: str) -> dict[str, frozenset[bytes]]:
        if self._tip is not None:
            return self._from_tip(side, other)
        files = self._files
        # A definition is broken only when the other side still has it: where both sides made the
        # same change (a vendored tree bumped on both), neither breaks the other. By blob ids.
        candidates = [path for path, v in files.items() if self._candidate(v, side, other)]
        users = [path for path, v in files.items() if self._user(v, other)]
        if not candidates or not users:
            return {}
        # 1. Which using file may reach which candidate, from paths and the module words the using
        #    files spell: nothing of a candidate is read yet (integration's thousands of files,
        #    against a task's few, cost a path lookup each).
        by = _ByPath(self, candidates)
        near_by: dict[str, set[str]] = {}        # candidate -> users that may reach it by path
        imported_by: dict[str, set[str]] = {}    # candidate -> users that may import it
        for user in users:
            by.pair(user, self._text(user, other), near_by, imported_by)
        self._through_results(side, other, candidates, users, near_by)
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
            gone_by = {path: self._gone(side, path) | self._reshaped(side, path) for path in candidates}
            gone = frozenset().union(*gone_by.values())
            if len(gone) <= 32:   # a rename or two: a search of each user's text for them, whole words
                spelled = spelling(gone) if gone else None
                pool = [user for user in pool if spelled is not None
                        and spelled.search(files[user].version(other) or b"") is not None]
            self._through_few(other, pool[:BARREL_USERS], gone_by, near_by, imported_by, through)
        elif len(pool) <= BARREL_USERS:   # many candidates, few users: each user's imports, read
            self._through_many(other, pool, set(candidates).__contains__, imported_by, through)
        # 2. The words, only for the pairs found.
        return self._pair_words(side, other, near_by, imported_by, through)

    def _candidate(self, versions: Versions, side: str, other: str) -> bool:
        return versions.exists("base") and not versions.same(side, "base") and not versions.same(side, other)

    def _user(self, versions: Versions, other: str) -> bool:
        return not versions.same(other, "base") and versions.exists(other) and versions.exists("merged")

    def _text(self, user: str, other: str) -> bytes:
        """What step 1 searches in a using file: the other side's version, and the merged one when it differs."""
        versions = self._files[user]
        text = versions.version(other) or b""
        if not versions.same(other, "merged"):
            text += b"\0" + (versions.merged or b"")
        return text

    def _through_results(self, side: str, other: str, candidates: Iterable[str], users: list[str],
                         near_by: dict[str, set[str]]) -> None:
        """1, Java: a user of a candidate's package (or one importing from it) that reads a word gone from it through a call's
        result (`Store.open(k).put(v)`, `s.entry().put(v)`: the declared return type leads to the
        candidate's class, declared_types.py) spells no word of its class, and is paired all the
        same. Only users that read a member of a call's result at all (`).`) are searched."""
        if self._package_of is None:
            return
        packages: dict[str, list[str]] = {}
        for user in users:
            package = self._package_of(user)
            if package is not None and _CHAINED.search(self._text(user, other)) is not None:
                packages.setdefault(package, []).append(user)
        if not packages:
            return
        # A user of another package that imports from a candidate's (`import p.Store;`, then
        # `Store.open(k).put(v)`): the call's result may be the candidate's class too. Told by folders
        # (`p` of src/main/java/p/Entry.java), from the users' import lines: no candidate is read.
        imported = {user: _imported_folders(self._text(user, other)) for found in packages.values() for user in found}
        for path in candidates:
            own = self._package_of(path) or ""
            package_users = list(packages.get(own, ()))
            folder = posixpath.dirname(path)
            package_users += [user for key, found in packages.items() if key != own for user in found
                              if any(folder == spelled or folder.endswith("/" + spelled) for spelled in imported[user])]
            if not package_users:
                continue
            gone = sorted(word for word in self._gone(side, path) if one_word(word))
            if not gone or len(gone) > CHAINED_WORDS:
                continue   # (a class deleted whole: its users spell its name, paired by it)
            # Of those, the methods the base declares (`Entry put(`), not every word a touched line
            # lost (`return`, a local): a user is paired, and read, only for a member a call can reach.
            alternation = b"|".join(map(re.escape, gone))
            declared = set(re.findall(rb"[\w>\]]\s+(" + alternation + rb")\s*\(", self._files[path].base or b""))
            if not declared:
                continue
            chained = re.compile(CHAIN_HEAD + rb"(?:" + b"|".join(map(re.escape, sorted(declared))) + rb")\b")
            for user in package_users:
                if user != path and user not in near_by.get(path, ()) and chained.search(self._text(user, other)):
                    near_by.setdefault(path, set()).add(user)

    def _through_few(self, other: str, pool: Iterable[str], gone_by: dict[str, frozenset[bytes]],
                     near_by: dict[str, set[str]], imported_by: dict[str, set[str]],
                     through: set[tuple[str, str]]) -> None:
        """1b with few candidates: each of `pool`'s users whose added lines hold a name gone from a
        candidate that step 1 did not pair with it has its imports of those names read."""
        gone = frozenset().union(*gone_by.values())
        # (not in a one-file merge, `wtc merge-file`'s: asking would make the re-exports' reader for
        # the file's own imports, which the steps below read only when a gone name is added there)
        ask = len(self._files) > 1
        for user in pool:
            if ask and self._reaches_none(user, gone):
                continue   # no import of it leads to a file by a gone name: nothing reached below
            # The use is on a line the user's side added, of a name gone from a candidate that
            # the steps above did not already pair with this user.
            added = self._added(other, user)
            wanted = {path for path, words_gone in gone_by.items() if words_gone & added
                      and user not in imported_by.get(path, ()) and user not in near_by.get(path, ())}
            if wanted:
                names = frozenset().union(*(gone_by[path] & added for path in wanted))
                if ask and self._reaches_none(user, names):
                    continue   # of the gone words, it adds none its imports could pass on (kept above)
                for path in self._reexported(user, names) & wanted:   # type: ignore[misc]
                    imported_by.setdefault(path, set()).add(user)
                    through.add((path, user))

    def _through_many(self, other: str, pool: Iterable[str], is_candidate: Callable[[str], bool],
                      imported_by: dict[str, set[str]], through: set[tuple[str, str]]) -> None:
        """1b with many candidates and few users: each user's imports of what it added, read."""
        for user in pool:
            # The words of what it added only if it imports something (reexports.reached asks).
            added = functools.partial(self._added, other, user)
            for path in self._reexported(user, added):   # type: ignore[misc]
                if is_candidate(path):
                    imported_by.setdefault(path, set()).add(user)
                    through.add((path, user))

    def _near_in_package(self, near_by: dict[str, set[str]], imported_by: dict[str, set[str]]) -> None:
        """Java, the tip's files paired by their tables: a user spelling a candidate's class in the
        candidate's own package uses it unimported, as _ByPath.pair has it for the walked files (its
        `by_package`). Without this a tip file's `Wrap.make()` beside a renamed Wrap.make, or a task's
        new `new Wrap()` beside a Wrap.java the tip deleted, was paired by the word alone and then
        dropped for naming no import (found driving wtc on javapoet). It only widens what step 2 reads."""
        if self._package_of is None:
            return
        for path, users in imported_by.items():
            package = self._package_of(path)
            if package is None:
                continue
            for user in users:
                if user != path and self._package_of(user) == package:
                    near_by.setdefault(path, set()).add(user)

    def _pair_words(self, side: str, other: str, near_by: dict[str, set[str]], imported_by: dict[str, set[str]],
                    through: set[tuple[str, str]]) -> dict[str, frozenset[bytes]]:
        """Step 2: a candidate's touched lines against the lines its reaching users added; an
        import is confirmed by resolving the user's merged imports only when they share a word."""
        out: dict[str, frozenset[bytes]] = {}
        tip_users = self._tip is not None and side == "right"   # users: the tip's files (and loose ones)
        paths = set(near_by) | set(imported_by)
        quiet = self._quiet_candidates(paths, near_by, imported_by, through) if self._tip is not None and side == "left" \
            else None
        for path in paths if quiet is None else quiet.loud:
            near = self._tip_near(side, path) if quiet is not None else self._spelled(path, self._near(side, path))
            if quiet is not None and quiet(path, near):
                continue
            live: set[bytes] = set()
            for user in near_by.get(path, ()):
                live |= near & self._added(other, user)
            hidden = near & self._unspelled(path)
            near_users = near_by.get(path, ())
            users = imported_by.get(path, ())
            if tip_users and users:
                users = self._open_users(path, users, near_users, through)
            for user in users:
                # (a user whose added words were read above is confirmed as before: asking whether its
                # imports reach would make the re-exports' reader for a one-file merge, its own user)
                if (path, user) not in through and user not in near_users and (
                        (tip_users and self._tip_closed(user)) or self._reaches_none(user, near)) \
                        and not self._imports(user, path):
                    continue   # confirmed neither way below (common and hidden are parts of near)
                common = near & self._added(other, user)
                if common and not common <= live and ((path, user) in through or self._imports(user, path)
                                                      or self._reexports_to(user, common, path)):
                    live |= common
                if hidden and not hidden <= live and ((path, user) in through or self._imports(user, path)):
                    live |= hidden
            if live:
                out[path] = frozenset(live)
        return out

    # -- the same, with the integration tip's files answered by its index (tip_index.py) ----------
    def _tip_closed(self, user: str) -> bool:
        """Whether the tip's `user` (outside `loose`) can reach no file of this merge's own through
        its imports but by importing it: `closed` (reexports.ReExports.closed) with no file of
        `loose` at its imports' keys. Asked of the check once per tip and file: kept in the tip's
        tables (TipIndex.closed) while no merge changes a file at those keys, so a drain's later
        merges pass it over by a lookup (`_open_users`), not by asking what its imports reach."""
        tip = self._tip
        assert tip is not None
        found = self._closed_of.get(user)
        if found is not None:
            return found
        if user in self._loose:
            found = False
        elif user in tip.closed:
            found = user not in self._stale_users()
        else:
            keys = tip.import_keys(user)
            found = keys is not None and not tip.stands_at(self._changed, keys, user) \
                and self._closed(user) and tip.mark_closed(user)
        self._closed_of[user] = found
        return found

    def _stale_users(self) -> set[str]:
        """The tip's closed users at a key of a file of `loose`: their kept answer is not this merge's."""
        if self._stale is None:
            tip = self._tip
            assert tip is not None
            self._stale = set().union(*(tip.importing(path) for path in self._changed)) & tip.closed
        return self._stale

    def _open_users(self, path: str, users: set[str], near_users: Iterable[str],
                    through: set[tuple[str, str]]) -> set[str]:
        """`users` (paired with the task's `path`) less the tip's closed ones step 2 passes over:
        those that neither import `path` by their keys (TipIndex.importing) nor stand near it, and
        reach no file of the merge's own through a re-export (`_tip_closed`), told by set
        operations on the tip's tables, not by a question per user (a drain's later merges pair a
        task's `utils.py` with every tip file spelling `utils`)."""
        tip = self._tip
        assert tip is not None
        closed = users & tip.closed
        if not closed:
            return users
        closed -= self._stale_users()
        closed -= tip.importing(path)
        closed.difference_update(near_users)
        closed.difference_update(user for (target, user) in through if target == path)
        return users - closed if closed else users

    def _tip_near(self, side: str, path: str) -> frozenset[bytes]:
        """The spelled near words of `path` (step 2's `near`), for the tip's file outside `loose`
        kept in the tip's tables (`TipIndex.near`: pure in its pin and tip versions)."""
        tip = self._tip
        assert tip is not None
        if path in self._loose:
            return self._spelled(path, self._near(side, path))
        return tip.kept_near(path, lambda: self._spelled(path, self._near(side, path)))

    def _quiet_candidates(self, paths: set[str], near_by: dict[str, set[str]], imported_by: dict[str, set[str]],
                          through: set[tuple[str, str]]) -> "_Quiet":
        """For step 2 with the tip's files as candidates (`paths`) and the task's as users: a test
        of a candidate whose every pair step 2 would pass over (no user stands near it, imports it,
        reached it in 1b, or may reach it through a re-export by a near word of it: `_reaches_none`),
        answered from what this check knows of its few users once, not pair by pair; and the
        candidates it may not pass over (`loud`), found by the tip's table of near words
        (TipIndex.near_words), not by a pass over every candidate a module word pairs."""
        users = set().union(*imported_by.values()) if imported_by else set()
        loose = self._loose
        opened: set[str] = set()
        bound: set[bytes] = set()
        imported: set[str] = set()
        for user in users:
            if user not in loose:
                return _Quiet(paths, lambda path, near: False)   # (users of a tip's merge are its own files)
            found = self._reaching_for(user)
            if found is None or found[0]:
                opened.add(user)
            else:
                bound |= found[1]
            imported |= self._imports_of(user)
        reached = {target for target, _ in through}

        def quiet(path: str, near: frozenset[bytes]) -> bool:
            return path not in loose and path not in near_by and path not in reached and path not in imported \
                and opened.isdisjoint(imported_by.get(path, ())) and bound.isdisjoint(near)
        if opened:
            return _Quiet(paths, quiet)
        tip = self._tip
        assert tip is not None
        loud = paths - tip.near.keys()   # near words not known yet: asked (and kept) below
        loud |= paths & (loose | near_by.keys() | reached | imported)
        for word in bound:
            loud |= paths & tip.near_words.get(word)
        return _Quiet(loud, quiet)

    def _from_tip(self, side: str, other: str) -> dict[str, frozenset[bytes]]:
        """`_compute` where `files` is a tip's merge (tree.check_tree_merge): the paths outside
        `loose` are the tip's changed files the merge left alone (the task's side and the merged
        tree hold them as the pin and the tip do), answered from the tip's tables; `loose` (the
        task's files, and any the merge changed) are walked as `_compute` walks every file. The
        tip is the left side."""
        return self._tip_users(side, other) if side == "right" else self._tip_candidates(side, other)

    def _tip_users(self, side: str, other: str) -> dict[str, frozenset[bytes]]:
        """Candidates are the task's (loose); users are the loose ones and every file of the tip."""
        files, tip, loose = self._files, self._tip, self._loose
        assert tip is not None
        candidates = [path for path in loose if self._candidate(files[path], side, other)]
        users = [path for path in loose if self._user(files[path], other)]
        if not candidates or not (users or any(user not in loose for user in tip.users)):
            return {}
        by = _ByPath(self, candidates)
        near_by: dict[str, set[str]] = {}
        imported_by: dict[str, set[str]] = {}
        for user in users:
            by.pair(user, self._text(user, other), near_by, imported_by)
        self._through_results(side, other, candidates, users, near_by)
        # The tip's users, by its tables: the module words they spell (as bytes, where the walk
        # searched bytes), their directories, the directories below a candidate's module.
        many = len(by.whole) > 32
        for token in by.whole:
            spelled_by = tip.holding_word(token) if many else tip.holding(token)
            _link(by.by_token[token], spelled_by, loose, imported_by)
        for token in by.split:
            _link(by.by_token[token], self._tip_spelling(token, other), loose, imported_by)
        for directory, paths in by.by_directory.items():
            _link(paths, tip.directories.get(directory), loose, near_by)
        for module, paths in by.by_module.items():
            _link(paths, tip.under(module), loose, imported_by)
        # 1b, for the tip's users only those whose imports can pass a gone name on (the rest
        # would read nothing and answer nothing), at their place in the walk's order and cut.
        through: set[tuple[str, str]] = set()
        pool = [user for user in users if self._barrels(user)] if self._reexported is not None else []
        # 1b reads only users of a language with re-exports, the task's (`pool`) or the tip's: with
        # none on either side (a Go or Java run), it reads nothing, and the candidates' gone words
        # (a line diff and word scans of each task file) are not computed for it.
        if self._reexported is not None and (pool or any(user not in loose for user in tip.barrel_users)):
            if len(candidates) <= BARREL_CANDIDATES:
                gone_by = {path: self._gone(side, path) | self._reshaped(side, path) for path in candidates}
                gone = frozenset().union(*gone_by.values())
                # No word gone from the task's files (it added lines, or edited them keeping every
                # word, the swarm's usual finish): the pool below is cut to the users spelling a gone
                # word, none, so 1b finds nothing, and the tip's imports are not read to say so
                # (`may_import` reads every unread one: a parse, and a query compiled for it).
                able = tip.may_import(gone, BARREL_USERS) if gone else None   # (the tables' sets: no pass over them)
                if gone and (pool or able is None or able.outside(loose)):
                    if len(gone) <= 32:
                        pool = self._tip_spelled(pool, gone, other)
                    else:
                        pool = _first(heapq.merge(pool, _tip_head(tip.barrel_users, loose, BARREL_USERS)),
                                      BARREL_USERS)
                    # (a closed tip file reaches none of the task's files by a gone name: passed over;
                    # those the tables hold closed, with no file of this merge's at their keys, are
                    # taken out of the cut window (up to 256, most of them late in a drain) by one
                    # set operation, not by a test each)
                    window = pool[:BARREL_USERS]
                    settled = tip.closed.intersection(window)
                    if settled:
                        settled -= self._stale_users()
                    self._through_few(other, [user for user in window if user in loose or (
                        user not in settled and (user in able if able is not None else tip.passes(user, gone))
                        and not self._tip_closed(user))],
                        gone_by, near_by, imported_by, through)
            else:
                pool = _first(heapq.merge(pool, _tip_head(tip.barrel_users, loose, BARREL_USERS + 1)), BARREL_USERS + 1)
                if len(pool) <= BARREL_USERS:
                    def able_to(user: str) -> bool:
                        return user in loose or (not self._tip_closed(user) and tip.passes(user, self._added(other, user)))
                    self._through_many(other, [user for user in pool if able_to(user)], set(candidates).__contains__,
                                       imported_by, through)
        self._near_in_package(near_by, imported_by)
        return self._pair_words(side, other, near_by, imported_by, through)

    def _tip_spelled(self, pool: list[str], gone: frozenset[bytes], other: str) -> list[str]:
        """The walk's pool cut to the users whose bytes spell a gone word whole: `pool` (loose
        users) by their bytes, the tip's by its tables (their bytes only where in doubt)."""
        tip, loose, files = self._tip, self._loose, self._files
        assert tip is not None
        spelled = spelling(gone) if gone else None
        if spelled is None:
            return []
        sure: set[str] = set()
        maybe: set[str] = set()
        for word in gone:
            found, doubt = tip.spelling(word)
            sure |= found
            maybe |= doubt
        chosen = [user for user in pool if spelled.search(files[user].version(other) or b"") is not None]
        chosen += [user for user in sure if user not in loose and self._barrels(user)]
        chosen += [user for user in maybe - sure if user not in loose and self._barrels(user)
                   and spelled.search(self._tip_text(user, other)) is not None]
        return sorted(chosen)

    def _tip_spelling(self, token: bytes, other: str) -> list[str]:
        """The tip's users (outside `loose`) whose bytes hold `token`, which is not one word
        (`yaml.v2`, `my-lib`, ""): the words they hold pick them, their bytes decide."""
        tip = self._tip
        assert tip is not None
        parts = [part.lstrip(b"0123456789") for part in _WORD_RUNS.findall(token)]
        parts = [part for part in parts if part]
        users: Iterable[str] = tip.holding(max(parts, key=len)) if parts else tip.users
        return [user for user in users if user not in self._loose and token in self._tip_text(user, other)]

    def _tip_text(self, user: str, other: str) -> bytes:
        return self._files[user].version(other) or b""   # the merged version is the same

    def _tip_candidates(self, side: str, other: str) -> dict[str, frozenset[bytes]]:
        """Candidates are the loose ones and every file of the tip that existed at the pin; users
        are the task's (loose): a tip file the task did not touch is the pin's on its side."""
        files, tip, loose = self._files, self._tip, self._loose
        assert tip is not None
        users = [path for path in loose if self._user(files[path], other)]
        if not users:
            return {}
        own = [path for path in loose if self._candidate(files[path], side, other)]
        own_set = set(own)
        records = tip.records

        def tip_candidate(path: str) -> bool:
            record = records.get(path)
            return record is not None and record[0] and path not in loose

        def is_candidate(path: str) -> bool:
            return path in own_set or tip_candidate(path)

        hidden = {path for path in loose if path in records and records[path][0]}   # the tip's, walked as loose
        tip_count = tip.candidates - len(hidden)
        if not own and not tip_count:
            return {}
        by = _ByPath(self, own)

        def tip_paths(paths: Iterable[str]) -> list[str]:
            return [path for path in paths if path not in loose]

        # The tokens of the candidates: the loose ones' and those of the tip a file outside `loose` holds.
        gone_tokens = {self._module_token(path) for path in hidden}
        emptied = {token for token in gone_tokens if all(path in loose for path in tip.tokens.get(token))}
        whole_count = tip.whole_tokens - sum(1 for token in emptied if one_word(token)) \
            + sum(1 for token in by.whole if token in emptied or not tip.tokens.get(token))
        split = set(by.split) | {token for token in tip.split_tokens if token not in emptied}
        near_by: dict[str, set[str]] = {}
        imported_by: dict[str, set[str]] = {}
        spellers: dict[bytes, set[str]] = {}   # a token -> the users spelling it
        whole_few: list[bytes] | None = None
        for user in users:
            text: bytes | None = None
            if whole_count > 32:
                # The words of the text _text() joins (the other side's version, the merged one when
                # it differs; no word runs across the join), by blob (_words_of).
                held = self._words_of(user, other)
                if not files[user].same(other, "merged"):
                    held = held | self._words_of(user, "merged")
                spelled = {token for token in held if token in by.by_token or token in tip.tokens.data}
            else:
                if whole_few is None:   # a token of the tip's whose files are all loose maps to none of them
                    whole_few = [token for token in set(by.whole) | set(tip.tokens.data) if one_word(token)]
                text = self._text(user, other)
                spelled = {token for token in whole_few if token in text}
            if split:
                text = self._text(user, other) if text is None else text
                spelled.update(token for token in split if token in text)
            for token in spelled:
                spellers.setdefault(token, set()).add(user)
            directory = posixpath.dirname(user)
            package = self._package_key(user)
            for path in [*by.by_directory.get(package, ()), *tip_paths(tip.wide.get(package))] if package is not None else ():
                near_by.setdefault(path, set()).add(user)
            if user in own_set:
                near_by.setdefault(user, set()).add(user)
            while True:
                for path in [*by.by_module.get(directory, ()), *tip_paths(tip.modules.get(directory))]:
                    imported_by.setdefault(path, set()).add(user)
                parent = posixpath.dirname(directory)
                if parent == directory:
                    break
                directory = parent
        # (Java: a tip's file of a user's package, read through a call's result; few users, so its
        # records are walked only for a user that reads one at all)
        self._through_results(side, other, chain(own, (path for path in records if tip_candidate(path))), users, near_by)
        pool = [user for user in users if self._barrels(user)] if self._reexported is not None else []
        few = bool(pool) and len(own) + tip_count <= BARREL_CANDIDATES   # 1b below reads imported_by
        # Each file holding a token spelled, linked once to all its spellers (a common module word,
        # `utils`, names a file of every package the run changed: one pass, not one a user); where
        # 1b reads every user's re-exports below, of the tip's files only those a user's merged
        # imports resolve to (`_tip_holders`).
        resolved = not few and len(pool) <= BARREL_USERS
        for token, spelling_users in spellers.items():
            for path in by.by_token.get(token, ()):
                imported_by.setdefault(path, set()).update(spelling_users)
            held = tip.tokens.get(token)
            if not resolved or len(held) <= len(spelling_users):
                for path in held:
                    if path not in loose:
                        imported_by.setdefault(path, set()).update(spelling_users)
                continue
            for user in spelling_users:
                for path in self._tip_holders(user, held):
                    if path not in loose:
                        imported_by.setdefault(path, set()).add(user)
        through: set[tuple[str, str]] = set()
        if few:
            candidates = own + sorted({path for paths in tip.tokens.data.values() for path in paths
                                       if path not in loose})
            gone_by = {path: self._gone(side, path) | self._reshaped(side, path) for path in candidates}
            gone = frozenset().union(*gone_by.values())
            if len(gone) <= 32:
                spelled_gone = spelling(gone) if gone else None
                pool = [user for user in pool if spelled_gone is not None
                        and spelled_gone.search(files[user].version(other) or b"") is not None]
            self._through_few(other, pool[:BARREL_USERS], gone_by, near_by, imported_by, through)
        elif len(pool) <= BARREL_USERS:
            self._through_many(other, pool, is_candidate, imported_by, through)
        self._near_in_package(near_by, imported_by)
        return self._pair_words(side, other, near_by, imported_by, through)

    def _tip_holders(self, user: str, held: set[str]) -> set[str]:
        """Of the tip's files `held` (those whose module token the task's `user` spells: a task's
        `from .utils import x` spells the word of every package's `utils.py`), the ones pairing
        them with `user` can change what step 2 finds, when step 1b reads every user's imports
        through re-exports (`_through_many`): the files its merged imports resolve to, a lookup in
        what `_imports_of` resolved once. Step 2 confirms a pair the token alone made by those
        imports, by 1b's `through` (which 1b links itself) or by `_reexports_to`, whose answer is
        part of 1b's (`reached` of fewer names, in the same check); so any other pair would be
        passed over, after a test per file (`_Quiet`, its near words computed). A user sharing a
        package with files it does not import (Java: `_near_in_package`) keeps every file."""
        if self._package_of(user) is not None:
            return held
        return held & self._imports_of(user)

    def _reexports_to(self, user: str, names: frozenset[bytes], path: str) -> bool:
        """Whether `user`'s imports of `names` reach `path` through a re-export: a user that spells
        the candidate's word without importing its file (`use utils::parse` where `utils` is a crate
        whose root re-exports util.rs; the word `util` is inside `utils`) was paired by step 1 and
        so not read in 1b."""
        if self._reexported is None or not self._barrels(user):
            return False
        return path in self._reexported(user, names)

    def _reaches_none(self, user: str, names: frozenset[bytes]) -> bool:
        """Whether `reexported(user, some of names)` surely answers nothing (`reaching`)."""
        found = self._reaching_for(user)
        return found is not None and not found[0] and found[1].isdisjoint(names)

    def _reaching_for(self, user: str) -> "tuple[bool, frozenset[bytes]] | None":
        if user not in self._reaching_of:
            self._reaching_of[user] = self._reaching(user) if self._reexported is not None else (False, frozenset())
        return self._reaching_of[user]

    def _imports(self, user: str, path: str) -> bool:
        """Whether `user`'s merged imports name `path` (`imported_files`), asked only where the
        cheap look (`may_import`) cannot say no."""
        if user in self._loose or user in self._imported:
            # A task's file (paired with many of the tip's), or one resolved already: its imports,
            # resolved once this check, answer each pair.
            return path in self._imports_of(user)
        return self._may_import(user, path) and path in self._imports_of(user)

    def _imports_of(self, user: str) -> frozenset[str]:
        if user not in self._imported:
            self._imported[user] = self._imported_files(user)
        return self._imported[user]

    def _added(self, side: str, path: str) -> frozenset[bytes]:
        """The words of the lines `side` added to `path` (computed once)."""
        key = (side, path)
        if key not in self._added_cache and not self._files[path].exists("base"):
            # A file the side added: every line of it, so its words, by its blob (_words_of), which
            # the next tip's tables read of the same blob: not diffed against nothing, keyed by hashes.
            self._added_cache[key] = self._words_of(path, side)
        if key not in self._added_cache:
            versions = self._files[path]
            data = versions.version(side) or b""
            base = versions.base or b""

            # Pure in the two contents: kept across the merges of a drain (merge_index.py), where
            # integration's files are the same from one merge to the next, and of a task's edit
            # computed at its finish (MEMO_KINDS "added": check/task_facts.py).
            self._added_cache[key] = added_words(base, data) if self._memo is None else \
                self._memo.memo("added", _pair_key(versions, side, base, data), lambda: added_words(base, data))
        return self._added_cache[key]

    def _gone(self, side: str, path: str) -> frozenset[bytes]:
        """`_gone_words` of `side`'s version of `path`, kept across checks by the two contents: a
        tip's file is a candidate of every merge while the tip's candidates are few (step 1b); the
        words a star list the side wrote anew may leave out (_unlisted); and the words of a line that
        only lost words, an `export` dropped (_unmarked)."""
        versions = self._files[path]
        base, new = versions.base or b"", versions.version(side)
        if self._memo is None:
            return _gone_words(base, new) | self._unlisted(path, base, new) | _unmarked(base, new)
        if new is None:
            return self._words_of(path, "base")   # deleted: every word of the base (_gone_words)
        return self._memo.memo("gone", _pair_key(versions, side, base, new),
                               lambda: gone_in_edit(base, new, self._words_of(path, side))) \
            | self._unlisted(path, base, new)

    def _reshaped(self, side: str, path: str) -> frozenset[bytes]:
        """The names a definition may have whose parameters `side` changed, for step 1b: each function
        defined on the base lines it touched or the NEAR lines above (`fn parse_size(s: &str)` given
        a `binary: bool`), which `_gone` misses since the name stays. A user calling it
        through a re-export or a crate path (ripgrep's `cli::parse_human_readable_size(&s)`, grep-cli
        re-exported by `pub extern crate grep_cli as cli;`) spells no word of its module."""
        versions = self._files[path]
        base, new = versions.base or b"", versions.version(side)
        if new is None or new == base:
            return frozenset()
        if self._memo is None:
            return reshaped_words(base, new)
        # Pure in the two contents, kept by them (merge_index.py: a task's finish computes it).
        return self._memo.memo("reshaped-words", _pair_key(versions, side, base, new), lambda: reshaped_words(base, new))

    def _unlisted(self, path: str, base: bytes, new: bytes | None) -> frozenset[bytes]:
        """Where `new` writes the list a star import takes more often than `base` does (an
        `__all__` inserted into a module that had none: no base line touched, so no word of a diff
        is gone), every word of the base that `new` quotes nowhere: a name the list may leave out,
        gone for a use through a star import. Only such a file pays the scan (words only widen
        the files read; the checks decide)."""
        word = self._star_list(path)
        if not word or new is None or not star_list_added(word, base, new):
            return frozenset()
        return words(base) - words(b"\n".join(_QUOTED.findall(new)))

    def _words_of(self, path: str, which: str) -> frozenset[bytes]:
        """words() of one version of `path`; by its blob id, from the words the merge index keeps
        of that blob ("words": standing_words, which the next tip's tables read of the same blob,
        tree._tip_tables): a task's file is scanned once, not by this merge's steps and again by
        the next merge's tables. Pure in the blob, so never stale."""
        versions = self._files[path]
        data = versions.version(which) or b""
        ids = getattr(versions, "blob_id", None)
        blob = ids(which) if ids is not None else None
        if self._memo is None or blob is None:
            return words(data)
        clean, after = self._memo.memo("words", blob, lambda: standing_words(data))
        return clean | after if after else clean

    def _near(self, side: str, path: str) -> frozenset[bytes]:
        """`near_words` of `side`'s version of `path`, kept across checks by the two contents."""
        versions = self._files[path]
        base, new = versions.base or b"", versions.version(side)
        if self._memo is None:
            return near_words(base, new) | self._unlisted(path, base, new)
        return self._memo.memo("near", _pair_key(versions, side, base, new),
                               lambda: near_words(base, new)) | self._unlisted(path, base, new)


def _pair_key(versions: Versions, side: str, base: bytes, data: bytes | None) -> tuple:
    """A key for an answer pure in the base and `side` contents: their git ids when known, else
    their hashes (None: the side has no file)."""
    from .merge_index import hash_bytes   # loaded already: a key is asked for only with an index's memo

    ids = getattr(versions, "blob_id", None)
    if ids is not None:
        known = (ids("base"), ids(side))
        if known[0] is not None and known[1] is not None:
            return ("id",) + known
    return ("hash", hash_bytes(base), None if data is None else hash_bytes(data))


def star_list_added(word: bytes, base: bytes, new: bytes) -> bool:
    """Whether `new` spells `word` (the name of the list a star import takes: `__all__`) as a word
    more often than `base`: a side that wrote the list (or another write of it) anew, maybe by
    inserted lines alone, which a diff of touched lines does not show."""
    if word not in new:
        return False
    spelled = spelling((word,))
    return len(spelled.findall(new)) > len(spelled.findall(base))


def added_words(base: bytes, data: bytes) -> frozenset[bytes]:
    """The words of the lines `data` added to `base` (step 2's and 1b's `added` of a using file)."""
    lines = data.split(b"\n")
    found = [lines[start - 1:start - 1 + count] for _, _, start, count in hunks(base, data) if count]
    return words(b"\n".join(b"\n".join(chunk) for chunk in found))


def near_words(base: bytes, new: bytes | None) -> frozenset[bytes]:
    """The words of the base lines `new` deleted or changed, and of the `NEAR` lines above each
    change (an insertion included): where a removed or reshaped definition's name stands."""
    if new is None:
        return words(base)   # the file deleted: every definition is gone
    if new == base:
        return frozenset()
    return words(_near_text(base, new))


def _near_text(base: bytes, new: bytes) -> bytes:
    """The base lines `new` deleted or changed, and the `NEAR` lines above each change."""
    lines = base.split(b"\n")
    found = []
    for start, count, _, _ in hunks(base, new):
        last = start + count - 1 if count else start + 1
        found.append(b"\n".join(lines[max(start - 1 - NEAR, 0):last]))
    return b"\n".join(found)


def gone_in_edit(base: bytes, new: bytes, kept: frozenset[bytes] | None = None) -> frozenset[bytes]:
    """Reach._gone's part pure in the two contents (`kept`: words(new), when known): the words of
    the lines the edit took away (_gone_words) and of a line that only lost words (_unmarked).
    The merge index keeps it by the two blobs (MEMO_KINDS "gone"): a task's finish computes it
    for the drain that merges it (check/task_facts.py)."""
    return _gone_words(base, new, kept) | _unmarked(base, new)


def reshaped_words(base: bytes, new: bytes) -> frozenset[bytes]:
    """Reach._reshaped of an edit `base` -> `new` (its docstring), pure in the two contents (kept
    by the merge index as "reshaped-words", as gone_in_edit is)."""
    lines = base.split(b"\n")
    found: set[bytes] = set()
    for start, count, _, _ in hunks(base, new):
        touched = b"\n".join(lines[start - 1:start - 1 + count])
        found.update(_DEFINED_WORD.findall(touched))
        # A change below a definition's header reshapes it only inside its parameter list (a
        # parameter on a line of its own): the header above, its `(` not closed before the change.
        above = b"\n".join(lines[max(start - 1 - NEAR, 0):start - 1 if count else start])
        header = None
        for header in _DEFINED_WORD.finditer(above):
            pass
        if header is not None:
            rest = above[header.end():]
            if rest.count(b"(") + 1 > rest.count(b")"):
                found.add(header.group(1))
    return frozenset(found)


def _gone_words(base: bytes, new: bytes | None, kept: frozenset[bytes] | None = None) -> frozenset[bytes]:
    """The words of the base lines `new` deleted or changed that `new` no longer holds outside its
    comment lines: a name defined there and renamed or removed. A comment still naming it does not
    keep it (pdf.js's content_disposition.js opens with "This getFilenameFromContentDispositionHeader
    function is adapted from": the function removed, its importers through an `export * from` barrel
    were not read and the use left behind went unnamed; found driving wtc on pdf.js). `kept`:
    words(new), when known already."""
    if new is None:
        return words(base)
    touched = touched_lines(base, new)
    if not touched:
        return frozenset()
    text = ranges_text(base, touched)
    # Only code lines' words may be gone for a comment's sake: an edited comment's every word
    # ("the", "a") would make each using file of the merge a candidate (pdf.js merges: 2.5x the check).
    # That is (words(text) - words(new)) | (words(code of text) - words(code of new)); the second
    # part adds only a word `new` holds in comment lines alone, so the code is cut out of either
    # text only for the words `new`'s comment lines hold (most merges: none).
    # A one-line string keeps no name either (headlessui's portal.tsx: `export let Portal =` renamed,
    # `name: 'Portal'` in a call below; the use of Portal through the package's barrel went unnamed).
    held, kept = words(text), words(new) if kept is None else kept
    gone = held - kept
    quoted = _QUOTED.findall(new)
    asides = b"\n".join(_COMMENT_LINES.findall(new)) + b"\n" + b"\n".join(quoted)
    # A name a touched line quoted that `new` still holds but quotes nowhere: dropped from a list
    # of exported names (Python's `__all__`) while still defined, it is gone for a star import of
    # the file (found driving wtc on httpx: `QueryParams` kept as an alias outside `__all__`).
    listed = held & kept & words(b"\n".join(_QUOTED.findall(text)))
    if listed:
        gone |= listed - words(b"\n".join(quoted))
    doubt = (held & kept) & words(asides)
    if doubt:
        doubt &= words(_code(text))
        if doubt:
            gone |= doubt - words(_code(new))
    # A name the touched lines spelled bare (its definition, a call) that `new` spells only after a
    # `.`, as a member of another value: `Object.isFrozen(obj)` written where the removed
    # `isFrozen(obj)` was called keeps no definition of it (immer's utils/common.ts, user-drive13: the
    # users through the `export * from` barrel were not read and the use left behind went unnamed).
    # (Cheapest first: the few words of the touched lines, then a substring search for each, and only
    # for a word `new` does spell after a `.` the scan of all of `new`.)
    if members := (held & kept) - gone:
        # (the substring search first: the touched code's member-less words are made only for a word
        # `new` spells after a `.`, which most edits' kept words are not: 40% of this function's time
        # on a bench_merge task file before)
        members = {word for word in members if b"." + word in new}
        if members:
            members &= words(_MEMBER.sub(b"", _code(text)))
        if members:
            gone |= members - words(_MEMBER.sub(b"", _code(new)))
    return gone


def _unmarked(base: bytes, new: bytes | None) -> frozenset[bytes]:
    """The words of each changed line that only lost words (`export enum MessageType {` made `enum
    MessageType {`, `pub fn parse(` made `fn parse(`): the file still holds its name, but no longer
    exports it, so a use through a barrel (`export * from "./cluster"`) is gone. Found driving wtc
    on socket.io: a task dropped `export` from an enum `socket.io-adapter`'s barrel passed on to
    another workspace package, and no file was read. Only these words widen the users read: the
    check decides whether the definition still answers them."""
    found: set[bytes] = set()
    if new is None:
        return frozenset()   # deleted: _gone_words takes every word
    old_lines: list[bytes] | None = None
    for old_start, old_count, new_start, new_count in hunks(base, new):
        if not old_count or old_count != new_count:
            continue   # a line added or deleted, or a block rewritten: no pair of lines to compare
        if old_lines is None:
            old_lines, new_lines = base.split(b"\n"), new.split(b"\n")
        for offset in range(old_count):
            old_line, new_line = old_lines[old_start - 1 + offset], new_lines[new_start - 1 + offset]
            # A word of the old line is a part of its bytes: a run of the new line whose word
            # (the run less its leading digits: words()) its bytes do not hold means the line
            # gained a word (most edits), and neither line's words are made.
            if any(run.lstrip(b"0123456789") not in old_line for run in new_line.translate(RUN_BYTES).split()):
                continue
            after = words(new_line)
            if after and after < words(old_line):
                found |= after
    return frozenset(found)


def _code(text: bytes) -> bytes:
    """`text` without its comment lines and one-line string literals (an empty string left for each)."""
    return _QUOTED.sub(b"''", _COMMENT_LINES.sub(b"", text))


# A line that is only a comment in the languages with re-exports (`//`, `/*`, ` * ` of a block,
# `#`, `--`): what it spells keeps no name defined. A code line it also takes (a C `#define`)
# only widens the users read, never adds a finding: the check itself decides.
# A function's definition by its keyword (`fn f(`, `fn f<T>(`, `def f(`, `function f(`), in the languages
# whose users step 1b follows through re-exports: a word before any `(` (`Some(`, `Ok(`, `len(`) would
# make nearly every using file's imports be read (ripgrep's last 100 commits: +30% CPU at `wtc check`).
_DEFINED_WORD = re.compile(rb"\b(?:fn|def|function)\s+([A-Za-z_]\w*)\s*(?:<[^(\n]*>)?\s*\(")
_COMMENT_LINES = re.compile(rb"^[ \t]*(?://|/\*|\*|#|--)[^\n]*", re.M)
# A string literal on one line, quoted either way ('Portal', "Portal"): a name there is data, not code.
# (Unrolled, `'[^'\\\n]*(?:\\.[^'\\\n]*)*'`: the same strings as `'(?:[^'\\\n]|\\.)*'`, found 4x as fast.)
_QUOTED = re.compile(rb"'[^'\\\n]*(?:\\.[^'\\\n]*)*'|\"[^\"\\\n]*(?:\\.[^\"\\\n]*)*\"")
# A member's name right after its `.` (`Object.isFrozen`, `o?.isFrozen`): what `new` spells this way
# names a member of another value, never the file's own top-level definition.
_MEMBER = re.compile(rb"(?<=\.)[A-Za-z_$\x80-\xff][\w$\x80-\xff]*")


class _ByPath:
    """Step 1's tables over a list of candidates (module token, module path, package directory),
    and the pairing of one using file with them by its path and the bytes it spells."""

    def __init__(self, reach: Reach, candidates: list[str]):
        self.by_token: dict[bytes, list[str]] = {}
        self.by_module: dict[str, list[str]] = {}
        self.by_directory: dict[str, list[str]] = {}
        self.by_package: dict[str, list[str]] = {}   # Java: a class its package's files use unimported
        self.package_of = reach._package_of
        for path in candidates:
            self.by_token.setdefault(reach._module_token(path), []).append(path)
            self.by_module.setdefault(reach._module_path(path), []).append(path)
            if reach._package_wide(path):
                self.by_directory.setdefault(reach._package_key(path) or "", []).append(path)
            package = reach._package_of(path)
            if package is not None:
                self.by_package.setdefault(package, []).append(path)
        self.whole = {token for token in self.by_token if one_word(token)}
        self.split = [token for token in self.by_token if token not in self.whole]
        self.candidates = set(candidates)
        self.package_key = reach._package_key

    def pair(self, user: str, text: bytes, near_by: dict[str, set[str]], imported_by: dict[str, set[str]]) -> None:
        # An import spells its module's last part as a whole word (`util` in `pkg.util`,
        # `./util.js`, `x/util`); a part holding other characters (`yaml.v2`) is searched as is.
        whole = self.whole
        spelled = (whole & words(text)) if len(whole) > 32 else {t for t in whole if t in text}
        spelled.update(token for token in self.split if token in text)
        for token in spelled:
            for path in self.by_token[token]:
                imported_by.setdefault(path, set()).add(user)
        directory = posixpath.dirname(user)
        for path in self.by_directory.get(self.package_key(user), ()) if self.by_directory else ():
            near_by.setdefault(path, set()).add(user)
        if self.by_package:
            for path in self.by_package.get(self.package_of(user) or "", ()):
                if path != user and any(path in self.by_token[token] for token in spelled):
                    near_by.setdefault(path, set()).add(user)   # `Util.m()` beside Util.java
        if user in self.candidates:
            near_by.setdefault(user, set()).add(user)
        while True:   # a relative import without a name reaches the directory's package or one above
            for path in self.by_module.get(directory, ()):
                imported_by.setdefault(path, set()).add(user)
            parent = posixpath.dirname(directory)
            if parent == directory:   # "" for a relative path, "/" for an absolute one
                break
            directory = parent


class _Quiet:
    """Step 2's candidates to visit (`loud`) and the test of one it passes over (`__call__`)."""

    __slots__ = ("loud", "test")

    def __init__(self, loud: Iterable[str], test: Callable[[str, frozenset[bytes]], bool]):
        self.loud, self.test = loud, test

    def __call__(self, path: str, near: frozenset[bytes]) -> bool:
        return self.test(path, near)


def _link(paths: Iterable[str], users: Iterable[str], loose: frozenset[str], table: dict[str, set[str]]) -> None:
    """table[path] gets each of `users` outside `loose` (those are walked), for each of `paths`."""
    found = set(users)
    found.difference_update(loose)   # (users: the tip's spelling a word, every one late in a drain)
    if found:
        for path in paths:
            table.setdefault(path, set()).update(found)


def _first(items: Iterator[str], count: int) -> list[str]:
    return list(islice(items, count))


def _tip_head(users: list[str], loose: frozenset[str], count: int) -> list[str]:
    """The first `count` of the sorted `users` outside `loose` (all, when fewer): what a merge with
    them takes of the tip's users, sliced in C (not a generator over every one)."""
    return [user for user in users[:count + len(loose)] if user not in loose]
