"""What reach.py asks of an integration tip's files, kept per tip so a merge reads only its own.

Stage: beside the post-merge semantic check of a drain (tree.check_tree_merge -> reach.py). A drain's
merge k is (pin, integration tip, task, merged tree): the tip's side holds every file the run changed
so far (thousands, late in a run), the task's a few. reach.py pairs the files one side changed with
the files the other side changed that may use them, by paths and by the words the users spell;
without this it passed over every file of the tip on every merge, reading each one's text.

Input: the tip's changes from the pin (merge_index.changes: path -> (pin side, tip side)), the blobs,
and how the check names a file's module (module token, module path, package-wide, re-exports).
Output: a `TipIndex`, for the tip's changed files the check reads (a semantic profile, regular files,
the content changed): inverted tables from a word to the files whose tip version holds it, from a
directory to its files, from a module token / module path / package directory to the files that
existed at the pin (the candidates a tip side removed names from), and the sorted users; from a
key of the module index to the files whose imports are answered from it (`keyed`), the files a
check found closed (their imports reach no file but those at their keys: asked once, then looked
up until a merge changes a file at those keys), the words near each file's changes (`near`), and
the modules the files import at their top level (`imported`: the import-path check reads a task
file's pin version only where the task can have dropped an import of one of them).
It is built once per tip (or derived from the previous tip's by the merge's few changed paths, copy
on write, so the previous tip's stays whole for a merge retried against it) and kept in memory by
merge_index.MergeIndex. What a word lookup answers is checked against the bytes where the old walk
compared bytes (a substring, a whole-word search), so reach.py's answers are the walk's exactly.

Invariants: a TipIndex is never changed once handed out; a path is in it only when the tip's
version differs from the pin's by content (a mode-only change is no change to the check).
"""

from __future__ import annotations

import bisect
import posixpath
import threading
from typing import TYPE_CHECKING, Callable, Iterable, Iterator

from .reach import one_word, standing_words, words

if TYPE_CHECKING:   # pygit2 loads where tables are read back (load): `wtc merge-file` imports this module
    import pygit2

_REGULAR = (0o100644, 0o100755)
MODULES_READ = 16   # users whose modules `importing_modules` reads per question, at most


class PathFacts:
    """How the check names a file (semantic.py's `_Check` methods, pure in the path)."""

    def __init__(self, *, readable: Callable[[str], bool], module_token: Callable[[str], bytes],
                 module_path: Callable[[str], str], package_wide: Callable[[str], bool],
                 barrels: Callable[[str], bool],
                 package_key: Callable[[str], str | None] = lambda path: None,
                 module_keys: Callable[[str, Iterable[str]], set[tuple[str, str]]] = lambda path, names: set(),
                 index_names: Callable[[str], frozenset[str]] = lambda path: frozenset()):
        self.readable = readable          # a semantic profile reads it
        self.module_token = module_token
        self.module_path = module_path
        self.package_wide = package_wide
        self.barrels = barrels
        self.package_key = package_key    # the package a file shares top-level names with (linked.py), or None
        # (path, index names) -> the keys of the module index it stands at (semantic.module_keys)
        self.module_keys = module_keys
        self.index_names = index_names    # path -> its language's index names (`__init__`)


class _Table:
    """key -> set of paths, copied on write: a derived index shares the sets it does not change
    (or, taken over, owns them all: `derived(take=True)`)."""

    def __init__(self, data: dict | None = None, own_all: bool = False):
        self.data: dict = (data if own_all else dict(data)) if data is not None else {}
        self._own: set = set()
        self._own_all = own_all   # every set is this table's: changed in place

    def add(self, key, path: str) -> None:
        found = self.data.get(key)
        if found is None:
            self.data[key] = {path}
            self._own.add(key)
            return
        if not self._own_all and key not in self._own:
            found = self.data[key] = set(found)
            self._own.add(key)
        found.add(path)

    def add_all(self, keys: Iterable, path: str) -> None:
        """add(key, path) for each of `keys` (a file's words: one call, not one a word)."""
        if not self._own_all:
            for key in keys:
                self.add(key, path)
            return
        data, own = self.data, self._own
        for key in keys:
            found = data.get(key)
            if found is None:
                data[key] = {path}
                own.add(key)
            else:
                found.add(path)

    def discard(self, key, path: str) -> None:
        found = self.data.get(key)
        if found is None or path not in found:
            return
        if len(found) == 1:
            del self.data[key]
            self._own.discard(key)
            return
        if not self._own_all and key not in self._own:
            found = self.data[key] = set(found)
            self._own.add(key)
        found.discard(path)

    def get(self, key) -> set:
        return self.data.get(key, _EMPTY)

    def derived(self, take: bool = False) -> "_Table":
        """The next tip's table: copied on write, or (`take`) this one's data itself, which this
        table then no longer answers for (a common word's set holds every file: copying it for
        each merge made a drain's tables cost what the run changed, not what the merge did)."""
        if not take:
            return _Table(self.data)
        out = _Table(self.data, own_all=True)
        self.data = _TAKEN   # type: ignore[assignment]
        return out


_EMPTY: frozenset = frozenset()


class _Taken(dict):
    """What a table taken over by the next tip's holds: any question is an error, never an answer."""

    def _refuse(self, *args, **kwargs):
        raise RuntimeError("these tip tables were taken over by the next tip's (MergeIndex.tip_tables)")

    get = items = keys = values = __getitem__ = __contains__ = __iter__ = __len__ = _refuse


_TAKEN = _Taken()
_UNREAD = object()   # a record's imports, not read yet (TipIndex._read_all_imports)
# path -> (exists at the pin, exists at the tip, the tip's blob id, its words that stand alone, its
# words a digit runs into (`x1F` of `0x1F`), what its imports pass on (`Imports`, None: nothing;
# _UNREAD until a question needs them)).
Record = tuple[bool, bool, "pygit2.Oid | None", frozenset[bytes], frozenset[bytes], "Imports | None"]
# What a file's imports can pass a name through (reexports.ReExports.reached reads nothing else):
# whether it imports a whole module (any name may be read through it), the names it imports, and the
# keys of the module index its imports are answered from (semantic.import_keys; None: not by keys
# alone in its language).
Imports = tuple[bool, frozenset[str], "frozenset[tuple[str, str]] | None"]
# The shape `dump` writes (`load` takes no other): 2 added each file's import keys and the closed files,
# 3 the modules each file imports at its top level, 4 the submodules a file reads through a package
# it imports (`click.utils.f()` after `import click`: symbols.Symbols.spelled_modules) among its keys.
TABLES_FORMAT = 4


class TipIndex:
    """The tip's changed files the check reads (module docstring). Records: path -> (exists at
    the pin, exists at the tip, the tip's blob id, the words of the tip's version)."""

    def __init__(self, facts: PathFacts, read_words: Callable[[pygit2.Oid], tuple[frozenset[bytes], frozenset[bytes]]],
                 read_imports: Callable[[str, pygit2.Oid], "Imports | None"],
                 read_modules: "Callable[[str, pygit2.Oid], frozenset[str]] | None" = None):
        self._facts = facts
        self._read_words = read_words
        self._read_imports = read_imports
        # path, blob -> the modules that version imports at its top level (None: not kept here,
        # and `importing_modules` answers None)
        self._read_modules = read_modules
        # What the barrel users' imports pass on is read on the first question that needs it (a
        # task that removed a name), not for every file of the tip when a process first builds it.
        self._imports_read = False
        self._lock = threading.Lock()
        self.records: dict[str, Record] = {}
        self.words = _Table()            # word -> users whose tip version holds it standing alone
        self.dirty = _Table()            # word -> users holding it only after a digit (`0x1F`)
        self.grams = _Table()            # three bytes -> the words (of either table) holding them (`holding`)
        self.foreign: set[bytes] = set()   # words holding a byte past ASCII
        self.importers = _Table()        # True -> barrel users importing a whole module
        self.bound = _Table()            # name -> barrel users importing it
        self.keyed = _Table()            # a key of the module index -> barrel users whose imports' keys hold it
        # Barrel users whose imports lead only to files at their own keys, each the file defining
        # the name imported from it (reexports.ReExports.closed): they reach no other file of a
        # merge through a re-export, so a merge none of whose files stands at their keys
        # (`module_keys`) asks them nothing but whether they import its files (`keyed`). Learnt
        # by the checks, dropped when a merge changes a file at their keys (`derive`).
        self.closed: set[str] = set()
        self.index_names: set[str] = set()   # the index names of the closed users' languages
        # path -> the words reach.py's step 2 finds near the tip's changes of it against the pin
        # (Reach._tip_near, pure in the two versions): kept while the path is not changed again.
        self.near: dict[str, frozenset[bytes]] = {}
        self.near_words = _Table()       # word -> paths whose `near` holds it
        # The modules each user's tip version imports at its top level (`_UNREAD` until read: a
        # merge reads its own files' new versions, an older tip's are read a few a question), the
        # users importing each module, and the modules by their key word (`module_key`).
        self.module_sets: dict[str, "frozenset[str] | object"] = {}
        self.modules_unread: set[str] = set()
        self.imported = _Table()         # module -> users importing it at their top level
        self.module_words = _Table()     # a module's key word -> the modules imported (importing_modules)
        self.directories = _Table()      # directory -> users
        self.tokens = _Table()           # module token -> candidates (existed at the pin)
        self.modules = _Table()          # module path -> candidates
        self.wide = _Table()             # directory -> candidates of a package-wide language
        self.users: list[str] = []       # sorted: paths that exist at the tip
        self.barrel_users: list[str] = []   # sorted: users of a language with re-exports
        self.user_dirs: list[str] = []   # sorted directories of users
        self.split_tokens: dict[bytes, int] = {}   # tokens that are not one word -> candidates holding it
        self.whole_tokens = 0            # distinct one-word tokens of candidates
        self.candidates = 0              # paths that existed at the pin

    # -- building ---------------------------------------------------------------------------------
    @classmethod
    def build(cls, facts: PathFacts, read_words: Callable[[pygit2.Oid], tuple[frozenset[bytes], frozenset[bytes]]],
              read_imports: Callable[[str, pygit2.Oid], "Imports | None"], changes: dict,
              read_modules: "Callable[[str, pygit2.Oid], frozenset[str]] | None" = None) -> "TipIndex":
        index = cls(facts, read_words, read_imports, read_modules)
        for path in sorted(changes):
            record = index._record(path, changes[path])
            if record is not None:
                index._add(path, record, sort=False)
        index.user_dirs.sort()   # added as met; the users and barrel users are sorted already
        return index

    def dump(self) -> tuple:
        """The records as plain tuples (marshal writes them fast): what `load` builds the tables from."""
        rows = []
        for path, (at_base, at_tip, oid, clean, dirty, imports) in self.records.items():
            kept = 0 if imports is None else 1 if imports is _UNREAD else (
                imports[0], tuple(imports[1]), None if imports[2] is None else tuple(imports[2]))  # type: ignore[index]
            rows.append((path, at_base, at_tip, None if oid is None else oid.raw, tuple(clean), tuple(dirty), kept))
        modules = tuple(sorted((path, tuple(sorted(found))) for path, found in self.module_sets.items()
                               if isinstance(found, frozenset)))
        return (TABLES_FORMAT, self._imports_read, tuple(sorted(rows)), tuple(sorted(self.closed)),
                tuple(sorted(self.index_names)), modules)

    @classmethod
    def load(cls, facts: PathFacts, read_words: Callable[[pygit2.Oid], tuple[frozenset[bytes], frozenset[bytes]]],
             read_imports: Callable[[str, pygit2.Oid], "Imports | None"], value: tuple,
             read_modules: "Callable[[str, pygit2.Oid], frozenset[str]] | None" = None) -> "TipIndex":
        """`dump`'s inverse (a shape it does not write raises TypeError or ValueError: tables
        written by another version are built again, not read as these)."""
        import pygit2

        if not isinstance(value, tuple) or len(value) != 6 or value[0] != TABLES_FORMAT:
            raise ValueError("tables of another format")
        index = cls(facts, read_words, read_imports, read_modules)
        _, imports_read, rows, closed, index_names, modules = value
        index._imports_read = bool(imports_read)
        for path, at_base, at_tip, raw, clean, dirty, kept in rows:
            if not isinstance(path, str) or (raw is not None and not isinstance(raw, bytes)):
                raise ValueError("not a record")
            imports = None if kept == 0 else _UNREAD if kept == 1 else (
                bool(kept[0]), frozenset(kept[1]), None if kept[2] is None else frozenset(tuple(key) for key in kept[2]))
            record = (bool(at_base), bool(at_tip), None if raw is None else pygit2.Oid(raw=raw),
                      frozenset(clean), frozenset(dirty), imports)
            index._add(path, record, sort=False)   # type: ignore[arg-type]
        index.user_dirs.sort()
        index.index_names.update(index_names)
        for path in closed:
            if not index.mark_closed(path):
                raise ValueError("a closed file without its keys")
        if read_modules is not None:
            for path, found in modules:
                if path not in index.modules_unread:
                    raise ValueError("modules of a file the tables do not hold")
                index._take_modules(path, frozenset(found))
        return index

    def derive(self, step: Iterable[str], changes: dict, take: bool = False) -> "TipIndex":
        """The next tip's index: this one with the paths of `step` (those the merge changed)
        taken again from `changes` (the next tip's changes from the pin). This one is not changed,
        unless `take`: then the next one takes its tables over, without copying them, and this one
        answers nothing more (merge_index.MergeIndex.tip_tables takes only a tip of its own drain,
        which no other check holds: an unpublished merge commit's)."""
        out = TipIndex(self._facts, self._read_words, self._read_imports, self._read_modules)
        out._imports_read = self._imports_read
        copy = (lambda value: value) if take else (lambda value: type(value)(value))
        out.records = copy(self.records)
        out.foreign = copy(self.foreign)   # only grows: a superset of the words held keeps lookups exact
        for name in ("words", "dirty", "grams", "importers", "bound", "keyed", "near_words", "directories", "tokens",
                     "modules", "wide", "imported", "module_words"):
            setattr(out, name, getattr(self, name).derived(take))
        out.closed, out.index_names, out.near = copy(self.closed), copy(self.index_names), copy(self.near)
        out.module_sets, out.modules_unread = copy(self.module_sets), copy(self.modules_unread)
        out.users, out.barrel_users, out.user_dirs = copy(self.users), copy(self.barrel_users), copy(self.user_dirs)
        out.split_tokens = copy(self.split_tokens)
        if take:
            self.records = self.module_sets = _TAKEN   # type: ignore[assignment]
            self.users = self.barrel_users = self.user_dirs = None   # type: ignore[assignment]
        out.whole_tokens, out.candidates = self.whole_tokens, self.candidates
        for path in step:
            sides = changes.get(path)
            record = out._record(path, sides) if sides is not None else None
            old = out.records.get(path)
            if old is not None and record is not None and old[0] == record[0] and old[1] and record[1]:
                out._replace(path, old, record)   # an edit: only the words that came or went
                continue
            if old is not None:
                out._remove(path)
            if record is not None:
                out._add(path, record, sort=True)
        if out.closed:
            # A closed user's answer depends on the files at its keys: a path the merge changed
            # there (added, deleted, edited) makes it asked again.
            for path in step:
                out.closed.difference_update(out.importing(path))
        return out

    def _record(self, path: str, sides) -> "Record | None":
        (base_id, base_mode), (tip_id, tip_mode) = sides
        if not self._facts.readable(path):
            return None
        if any(oid is not None and mode not in _REGULAR for oid, mode in sides):
            return None
        if base_id == tip_id:
            return None   # a mode changed, not the content: the check sees no change
        if tip_id is None:
            return (base_id is not None, False, None, frozenset(), frozenset(), None)
        clean, dirty = self._read_words(tip_id)
        imports: Imports | None | object = None
        if self._facts.barrels(path):
            imports = self._read_imports(path, tip_id) if self._imports_read else _UNREAD
        return (base_id is not None, True, tip_id, clean, dirty, imports)

    def _add(self, path: str, record: "Record", sort: bool) -> None:
        facts = self._facts
        self.records[path] = record
        at_base, at_tip, _, clean, dirty, imports = record
        if at_tip:
            held = clean | dirty
            # A table's key maps to a set of at least one path (discard drops an emptied one), so
            # a word no table holds is a word new to the tip's vocabulary.
            known_clean, known_dirty = self.words.data, self.dirty.data
            for word in held:
                if word not in known_clean and word not in known_dirty:
                    for gram in _grams(word):
                        self.grams.add(gram, word)   # type: ignore[arg-type]
            self.words.add_all(clean, path)
            self.dirty.add_all(dirty, path)
            if not b"".join(held).isascii():
                self.foreign.update(word for word in held if not word.isascii())
            if isinstance(imports, tuple):
                self._take_imports(path, imports)
            directory = posixpath.dirname(path)
            if not self.directories.get(directory):
                _insert(self.user_dirs, directory, sort)   # build() sorts them at the end
            self.directories.add(directory, path)
            if (package := facts.package_key(path)) is not None and package != directory:
                self.directories.add(package, path)   # (C's one package: every user of it, linked.py)
            _insert(self.users, path, sort)
            if facts.barrels(path):
                _insert(self.barrel_users, path, sort)
            if self._read_modules is not None:
                self.module_sets[path] = _UNREAD
                self.modules_unread.add(path)
        if at_base:
            self.candidates += 1
            token = facts.module_token(path)
            if not self.tokens.get(token):
                if _whole(token):
                    self.whole_tokens += 1
            self.tokens.add(token, path)
            if not _whole(token):
                self.split_tokens[token] = self.split_tokens.get(token, 0) + 1
            self.modules.add(facts.module_path(path), path)
            if facts.package_wide(path):
                self.wide.add(facts.package_key(path) or "", path)

    def _replace(self, path: str, old: "Record", new: "Record") -> None:
        """`_remove(path)` then `_add(path, new)` for a file at the tip before and after, whose
        existence at the pin did not change (an edit): the tables end the same, but only the
        words the edit took out or brought in are touched, not every word of the file twice
        (most of a drain's table updates were a file's words taken out and put back)."""
        self.records[path] = new
        self.closed.discard(path)
        self._drop_near(path)
        _, _, _, old_clean, old_dirty, old_imports = old
        _, _, _, clean, dirty, imports = new
        for word in old_clean - clean:
            self.words.discard(word, path)
        for word in old_dirty - dirty:
            self.dirty.discard(word, path)
        before, after = old_clean | old_dirty, clean | dirty
        for word in before - after:
            if not self.words.get(word) and not self.dirty.get(word):
                for gram in _grams(word):   # no file holds it any more
                    self.grams.discard(gram, word)   # type: ignore[arg-type]
        for word in after - before:
            if not self.words.get(word) and not self.dirty.get(word):
                for gram in _grams(word):   # a word new to the tip's vocabulary
                    self.grams.add(gram, word)   # type: ignore[arg-type]
        for word in clean - old_clean:
            self.words.add(word, path)
        for word in dirty - old_dirty:
            self.dirty.add(word, path)
        self.foreign.update(word for word in after - before if not word.isascii())
        if old_imports != imports:
            if isinstance(old_imports, tuple):
                self._drop_imports(path, old_imports)
            if isinstance(imports, tuple):
                self._take_imports(path, imports)
        if self._read_modules is not None and old[2] != new[2]:
            self._drop_modules(path)
            self.module_sets[path] = _UNREAD
            self.modules_unread.add(path)

    def _take_imports(self, path: str, imports: Imports) -> None:
        if imports[0]:
            self.importers.add(True, path)
        for name in imports[1]:
            self.bound.add(name, path)
        if imports[2]:
            self.keyed.add_all(imports[2], path)

    def _drop_imports(self, path: str, imports: Imports) -> None:
        self.importers.discard(True, path)
        for name in imports[1]:
            self.bound.discard(name, path)
        for key in imports[2] or ():
            self.keyed.discard(key, path)

    def _take_modules(self, path: str, modules: frozenset[str]) -> None:
        self.module_sets[path] = modules
        self.modules_unread.discard(path)
        for module in modules:
            if not self.imported.get(module):
                self.module_words.add(module_key(module), module)
            self.imported.add(module, path)

    def _drop_modules(self, path: str) -> None:
        found = self.module_sets.pop(path, None)
        self.modules_unread.discard(path)
        if isinstance(found, frozenset):
            for module in found:
                self.imported.discard(module, path)
                if not self.imported.get(module):
                    self.module_words.discard(module_key(module), module)

    def _remove(self, path: str) -> None:
        facts = self._facts
        at_base, at_tip, _, clean, dirty, imports = self.records.pop(path)
        self.closed.discard(path)
        self._drop_near(path)
        if at_tip:
            for word in clean:
                self.words.discard(word, path)
            for word in dirty:
                self.dirty.discard(word, path)
            for word in clean | dirty:
                if not self.words.get(word) and not self.dirty.get(word):
                    for gram in _grams(word):   # no file holds it any more
                        self.grams.discard(gram, word)   # type: ignore[arg-type]
            if isinstance(imports, tuple):
                self._drop_imports(path, imports)
            self._drop_modules(path)
            directory = posixpath.dirname(path)
            self.directories.discard(directory, path)
            if (package := facts.package_key(path)) is not None and package != directory:
                self.directories.discard(package, path)
            if not self.directories.get(directory):
                _delete(self.user_dirs, directory)
            _delete(self.users, path)
            if facts.barrels(path):
                _delete(self.barrel_users, path)
        if at_base:
            self.candidates -= 1
            token = facts.module_token(path)
            self.tokens.discard(token, path)
            if not self.tokens.get(token) and _whole(token):
                self.whole_tokens -= 1
            if not _whole(token):
                left = self.split_tokens[token] - 1
                if left:
                    self.split_tokens[token] = left
                else:
                    del self.split_tokens[token]
            self.modules.discard(facts.module_path(path), path)
            if facts.package_wide(path):
                self.wide.discard(facts.package_key(path) or "", path)

    # -- questions --------------------------------------------------------------------------------
    def holding(self, part: bytes) -> set[str]:
        """Users whose tip version holds a word containing `part`: every user whose bytes hold
        `part` as a substring, when `part` is one word (reach.py's word pattern), and more (the
        caller checks the bytes where the walk did). Looked up by the words' runs of three bytes
        (`grams`, kept as words come and go), not by a scan of the tip's vocabulary."""
        out: set[str] = set()
        if len(part) < _GRAM:   # too short for the index: the vocabulary is scanned
            for table in (self.words, self.dirty):
                for word, paths in table.data.items():
                    if part in word:
                        out |= paths
            return out
        # The words holding every three bytes of `part` (the index), then holding `part` itself.
        found = sorted((self.grams.get(gram) for gram in _grams(part)), key=len)
        for word in found[0].intersection(*found[1:]) if found else ():
            if part in word:
                out |= self.words.get(word) | self.dirty.get(word)   # type: ignore[operator]
        return out

    def holding_word(self, word: bytes) -> set[str]:
        """Users one of whose words (reach.words) is `word`."""
        return self.words.get(word) | self.dirty.get(word)

    def spelling(self, word: bytes) -> tuple[set[str], set[str]]:
        """(users whose bytes surely spell `word` whole, users that may: check their bytes) for
        reach.spelling's search (not after a word character or `$`, nor before one). A word
        standing alone is spelled; one after a digit is not; inside a longer word only where a byte
        past ASCII stands beside it, so only the users of such words are in doubt."""
        sure = set(self.words.get(word))
        maybe: set[str] = set()
        for other in self.foreign:
            if word in other and other != word:
                maybe |= self.words.get(other) | self.dirty.get(other)
        return sure, maybe - sure

    def may_import(self, names: Iterable[bytes], most: int) -> "Passing | None":
        """Barrel users whose imports can pass on one of `names` (reexports.ReExports.reached
        answers nothing for the others, reading nothing); None while more than `most` files'
        imports are unread (a process that has just built or loaded the tables: reading every
        file's would cost more than the walk's cap of users; ask `passes` for those in it)."""
        if not self._imports_read and self._unread() > most:
            return None
        self._read_all_imports()
        return Passing([self.importers.get(True)] + [self.bound.get(name.decode("utf-8", "replace")) for name in names])

    def imports(self, path: str) -> "Imports | None":
        """What the tip's `path` imports can pass on (None: nothing), read now if not yet."""
        with self._lock:
            record = self.records.get(path)
            if record is None:
                return None
            if record[5] is _UNREAD:
                assert record[2] is not None
                self.records[path] = record = record[:5] + (self._read_imports(path, record[2]),)
            return record[5]   # type: ignore[return-value]

    def importing(self, path: str) -> set[str]:
        """The barrel users whose imports' keys hold a key `path` stands at, by the index names of
        the closed users' languages: each closed user that may import `path`, or whose answer a
        change of `path` may change (and more)."""
        found: set[str] = set()
        for key in self._facts.module_keys(path, self.index_names):
            found |= self.keyed.get(key)
        return found

    def mark_closed(self, path: str) -> bool:
        """Note `path` closed (reexports.ReExports.closed answered so in a check of a merge onto
        this tip none of whose own files stands at its keys); False where its keys are not known
        here (its imports unread, or its language answers by more than keys): then it is not."""
        with self._lock:
            record = self.records.get(path)
            imports = record[5] if record is not None else None
            if not isinstance(imports, tuple) or imports[2] is None:
                return False
            if path not in self.closed:
                self.index_names.update(self._facts.index_names(path))
                self.keyed.add_all(imports[2], path)   # (read alone, not yet taken into the tables)
                self.closed.add(path)
            return True

    def stands_at(self, paths: Iterable[str], keys: frozenset[tuple[str, str]], user: str) -> bool:
        """Whether one of `paths` stands at one of `keys` (`user`'s imports' keys), by the index
        names of `user`'s language and the closed users'."""
        names = self.index_names | self._facts.index_names(user)
        return any(not keys.isdisjoint(self._facts.module_keys(path, names)) for path in paths)

    def kept_near(self, path: str, compute: Callable[[], frozenset[bytes]]) -> frozenset[bytes]:
        """`near[path]`, computed and kept (and its words in `near_words`) if not yet."""
        found = self.near.get(path)
        if found is None:
            found = compute()
            with self._lock:
                if path not in self.near:
                    self.near[path] = found
                    self.near_words.add_all(found, path)
        return found

    def _drop_near(self, path: str) -> None:
        for word in self.near.pop(path, ()):
            self.near_words.discard(word, path)

    def import_keys(self, path: str) -> "frozenset[tuple[str, str]] | None":
        """The keys of `path`'s imports (semantic.import_keys), read now if not yet; None: not known."""
        imports = self.imports(path)
        return imports[2] if imports is not None else None

    def passes(self, path: str, names: Iterable[bytes]) -> bool:
        """Whether `path`'s imports can pass on one of `names` (`may_import`, for one file)."""
        imports = self.imports(path)
        return imports is not None and (imports[0] or any(name.decode("utf-8", "replace") in imports[1]
                                                          for name in names))

    def importing_modules(self, held: frozenset[bytes], budget: int = MODULES_READ) -> set[str] | None:
        """The modules some user's tip version imports at its top level whose every word
        (reach.words) `held` holds: every one a text whose words are `held` can import (a module's
        import spells its words, each whole: checked over every import of the fixtures and of
        34,000 imports of seven mirrored projects; a module's spelling is not always whole, as in
        Rust's `use std::{task::Context}`). None while users' modules are unread: `budget` of
        them are read per question (their blobs' kept imports, mostly), so tables built afresh
        answer after a few merges; a merge's own files are read the question after it."""
        if self._read_modules is None:
            return None
        with self._lock:
            unread = self.modules_unread
            while unread and budget > 0:
                path = next(iter(unread))
                record = self.records[path]
                assert record[2] is not None
                self._take_modules(path, self._read_modules(path, record[2]))
                budget -= 1
            if unread:
                return None
            found: set[str] = set()
            for key in (held & self.module_words.data.keys()) | ({b""} if self.module_words.get(b"") else set()):
                found.update(module for module in self.module_words.get(key) if words(module.encode()) <= held)
            return found

    def _unread(self) -> int:
        return sum(1 for record in self.records.values() if record[5] is _UNREAD)

    def _read_all_imports(self) -> None:
        with self._lock:
            if self._imports_read:
                return
            for path, record in list(self.records.items()):
                if isinstance(record[5], tuple) or record[5] is _UNREAD:
                    imports = record[5]
                    if imports is _UNREAD:
                        assert record[2] is not None
                        imports = self._read_imports(path, record[2])
                        self.records[path] = record[:5] + (imports,)
                    if imports is not None:
                        self._take_imports(path, imports)   # type: ignore[arg-type]
            self._imports_read = True

    def under(self, directory: str) -> Iterator[str]:
        """Users in `directory` or below it ("" the root: every user)."""
        if not directory:
            yield from self.users
            return
        yield from self.directories.get(directory)
        prefix = directory + "/"
        at = bisect.bisect_left(self.user_dirs, prefix)
        while at < len(self.user_dirs) and self.user_dirs[at].startswith(prefix):
            yield from self.directories.get(self.user_dirs[at])
            at += 1


class Passing:
    """`may_import`'s answer: the tables' own sets of the users it joins, asked, not copied into
    one (every file of a run that imports a module whole, `import os`, is in the first: a copy a
    merge grew with the run)."""

    __slots__ = ("_sets",)

    def __init__(self, sets: list):
        self._sets = [found for found in sets if found]

    def __contains__(self, path: str) -> bool:
        for found in self._sets:
            if path in found:
                return True
        return False

    def outside(self, paths: "set[str] | frozenset[str]") -> bool:
        """Whether one of the users is not one of `paths` (most often the first met is not)."""
        return any(path not in paths for found in self._sets for path in found)


_whole = one_word
_GRAM = 3


def module_key(module: str) -> bytes:
    """The word a module is looked up by in `module_words`: its longest (b"": it has none, `.`)."""
    found = words(module.encode())
    return max(sorted(found), key=len) if found else b""


def _grams(word: bytes) -> set[bytes]:
    """The runs of three bytes of `word` (none when shorter): what `holding` looks a part up by."""
    return {word[at:at + _GRAM] for at in range(len(word) - _GRAM + 1)}
def _insert(items: list[str], item: str, sort: bool) -> None:
    if sort:
        bisect.insort(items, item)
    else:
        items.append(item)   # build() adds in sorted order


def _delete(items: list[str], item: str) -> None:
    at = bisect.bisect_left(items, item)
    if at < len(items) and items[at] == item:
        del items[at]
