"""Which files of a tree hold a word, as `git grep -lwF` answers it, from tables instead of a grep.

Stage: the left-behind check at a merge (check/left_behind.left_behind_at_merge: uses, in code
no side changed, of names the task removed). It asked `git grep -lwF -e name... <merged tree>` on
every merge that removed a name: a pass over every file of the repository, per merge. Here the pin's
files are read once: a `PinWords` holds, for every blob of a tree (regular files and executables,
which git grep searches; not symlinks, not submodules), the words it holds, as word -> file numbers.
A tree that differs from the pin by a few paths (a merged tree: the pin and what the run changed)
is answered from it and those paths' own words.

What git grep calls a word: `-w` matches a fixed string only where it neither follows nor precedes a
word character, ASCII letters, digits and `_` (git's `isalnum` is ASCII only). A fixed string made of
word characters alone therefore matches exactly when a maximal run of word characters in the file
equals it, and that is what is kept. A string holding any other character (`$el`, a non-ASCII name)
is not answered (None: the caller greps), nor is a tree with a path that is not UTF-8.

Cost: building reads every blob of the pin once (what one grep reads); a lookup is the words'
postings and the words of the changed paths (kept per blob by the caller). Held compactly: the
postings of a word are 4-byte file numbers.
"""

from __future__ import annotations

import re
import threading
from array import array
from collections import defaultdict
from typing import Any, Callable, Iterable, Iterator

import pygit2

FORMAT = 1
_ONE_WORD = re.compile(r"[A-Za-z0-9_]+")
# Every byte that is not one of git grep's word characters made a space: the words are then what
# `bytes.split()` cuts (runs of non-space bytes; a word character is never whitespace). Both steps
# run in C: half the CPU of `re.findall(rb"[A-Za-z0-9_]+")`, which the build pays for every file of
# a pin (0.58 -> 0.28 s at 20,000 files).
_WORD_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_SPACED = bytes(byte if byte in _WORD_BYTES else 0x20 for byte in range(256))
_SEARCHED = (0o100644, 0o100755)   # the blobs git grep reads in a tree (not symlinks, not submodules)

Side = tuple[Any, int]


def git_words(data: bytes) -> frozenset[bytes]:
    """The maximal runs of git grep's word characters in `data`."""
    return frozenset(data.translate(_SPACED).split())


class PinWords:
    """word -> the paths of a tree whose blob holds it as git grep's whole word (module docstring)."""

    def __init__(self, paths: tuple[str, ...], postings: dict[bytes, bytes]):
        self.paths = paths          # every searched blob's path, in the tree's order
        self.postings = postings    # word -> array("I") of indexes into `paths`, as bytes

    @classmethod
    def build(cls, repo: pygit2.Repository, tree: pygit2.Tree) -> "PinWords":
        """Every searched blob of `tree` read once (UnicodeDecodeError: a path that is not UTF-8)."""
        paths: list[str] = []
        postings: dict[bytes, list[int]] = defaultdict(list)
        read = repo.odb.read   # (type, bytes): no blob object made (a missing one: KeyError, as repo[oid])
        for path, oid in _blobs(repo, tree, ""):
            number = len(paths)
            paths.append(path)
            for word in git_words(read(oid)[1]):
                postings[word].append(number)
        return cls(tuple(paths), {word: array("I", numbers).tobytes() for word, numbers in postings.items()})

    def dump(self) -> tuple:
        return (FORMAT, self.paths, self.postings)

    @classmethod
    def load(cls, value: Any) -> "PinWords":
        """`dump`'s inverse (ValueError: not what `dump` writes)."""
        if not isinstance(value, tuple) or len(value) != 3 or value[0] != FORMAT \
                or not isinstance(value[1], tuple) or not isinstance(value[2], dict):
            raise ValueError("not a pin word index")
        return cls(value[1], value[2])

    def holding(self, word: bytes) -> list[str]:
        """The paths whose blob holds `word` (one run of word characters) as a whole word."""
        raw = self.postings.get(word)
        if raw is None:
            return []
        numbers = array("I")
        numbers.frombytes(raw)
        return [self.paths[number] for number in numbers]


def keep_pin_words(repo: pygit2.Repository, pin: pygit2.Oid | str, index: Any) -> bool:
    """Build the word index of the pin `pin` (a tree or commit id) that merge.tree.files_mentioning
    reads, and write it where every process that merges onto the pin loads it (`index`, a
    MergeIndex: its folder), unless it is there already: what `run start` does, so the run's first
    merge does not read every file of the pin (a second at 20,000 files). Here, not in merge/tree.py:
    `run start` imports this module alone (merge/tree.py brings the checks' ~90 ms of imports).
    True: built now."""
    tree = repo[pin if isinstance(pin, pygit2.Oid) else pygit2.Oid(hex=pin)].peel(pygit2.Tree)
    try:
        return index.keep_pin_words(tree, lambda: PinWords.build(repo, tree), PinWords.dump)
    except (KeyError, UnicodeDecodeError):
        return False   # (a blob a partial clone lacks, a path that is not UTF-8: the merge greps)


def _blobs(repo: pygit2.Repository, tree: pygit2.Tree, prefix: str) -> Iterator[tuple[str, pygit2.Oid]]:
    for entry in tree:
        if entry.type_str == "tree":
            yield from _blobs(repo, repo[entry.id], f"{prefix}{entry.name}/")
        elif entry.type_str == "blob" and entry.filemode in _SEARCHED:
            yield prefix + entry.name, entry.id


class BlobWords:
    """word -> the ids of the blobs met that hold it: the changed blobs of a run's tips, each read
    once per process; and, for the merged tree asked last, its changed paths by blob. A lookup is
    then the words' blobs and their paths, not a read of each changed blob's words: a drain's tip
    holds every path the run changed, and a pass over them on every merge grew with the run (1 ms
    a merge after 200 tasks). The next merged tree's paths are this one's with the paths its merge
    changed (`step`: MergeIndex.step), taken over, not copied (a tree asked again after the next
    one is built again); without a step they are built from its changes. Shared by threads (a
    server's): one lookup at a time. Bounded: past MAX_BLOBS blobs it starts empty again (a cache:
    what it drops is read again)."""

    MAX_BLOBS = 50_000

    def __init__(self) -> None:
        # Keyed by the ids' raw bytes: a bytes object keeps its hash, an Oid hashes again each time.
        self._met: set[bytes] = set()
        self._holding: dict[bytes, set[bytes]] = defaultdict(set)
        self._lock = threading.Lock()
        self._view: _TreeBlobs | None = None   # the merged tree asked last
        self._started = 0                      # how often it started empty (a view of before is stale)
        self.built = self.derived = 0          # (for the tests: views built from changes, derived by a step)

    def holding(self, key: Any, changes: dict[str, tuple[Side, Side]],
                step: Callable[[], tuple[Any, dict[str, tuple[Side, Side]]] | None],
                words: frozenset[bytes], read_words: Callable[[pygit2.Oid], frozenset[bytes]]) -> set[str]:
        """The paths of `changes` (a merged tree's, from its pin: `key` names both) that git grep
        reads whose blob holds one of `words` (`read_words(oid)`: a blob's words). `step()`: the key
        of the tree before the merge and the merge's changes against it, when known."""
        with self._lock:
            if len(self._met) > self.MAX_BLOBS:
                self._met.clear()
                self._holding.clear()
                self._started += 1
            view = self._view_of(key, changes, step)
            for raw in view.unmet:
                if raw not in self._met:
                    for word in read_words(view.ids[raw]):
                        self._holding[word].add(raw)
                    self._met.add(raw)
            view.unmet.clear()
            found: set[str] = set()
            for word in words:
                for raw in self._holding.get(word, ()):
                    paths = view.paths_of.get(raw)
                    if paths:
                        found |= paths
            return found

    def _view_of(self, key: Any, changes: dict[str, tuple[Side, Side]],
                 step: Callable[[], tuple[Any, dict[str, tuple[Side, Side]]] | None]) -> "_TreeBlobs":
        view = self._view
        if view is not None and view.started == self._started:
            if view.key == key:
                return view
            before = step()
            if before is not None and before[0] == view.key:
                for path in before[1]:
                    view.drop(path)
                    side = changes.get(path)
                    if side is not None:
                        view.add(path, side[1], self._met)
                view.key = key
                self.derived += 1
                return view
        view = self._view = _TreeBlobs(key, self._started)
        for path, (_, after) in changes.items():
            view.add(path, after, self._met)
        self.built += 1
        return view


class _TreeBlobs:
    """One merged tree's changed paths that git grep reads, by blob (BlobWords)."""

    def __init__(self, key: Any, started: int) -> None:
        self.key = key
        self.started = started
        self.raw_of: dict[str, bytes] = {}
        self.paths_of: dict[bytes, set[str]] = {}
        self.ids: dict[bytes, pygit2.Oid] = {}
        self.unmet: set[bytes] = set()   # blobs added whose words are not read yet

    def add(self, path: str, side: Side, met: set[bytes]) -> None:
        oid, mode = side
        if oid is None or mode not in _SEARCHED:
            return
        raw = oid.raw
        self.raw_of[path] = raw
        self.paths_of.setdefault(raw, set()).add(path)
        self.ids[raw] = oid
        if raw not in met:
            self.unmet.add(raw)

    def drop(self, path: str) -> None:
        raw = self.raw_of.pop(path, None)
        if raw is not None:
            paths = self.paths_of[raw]
            paths.discard(path)
            if not paths:
                del self.paths_of[raw]
                del self.ids[raw]


def mentioning(pin: PinWords, changes: dict[str, tuple[Side, Side]], words: Iterable[str],
               read_words: Callable[[pygit2.Oid], frozenset[bytes]],
               blobs: tuple[BlobWords, Any, Callable[[], Any]] | None = None) -> list[str] | None:
    """The paths of a tree that hold one of `words` as a whole word, in path order (what `git grep
    -lwF` lists), where the tree is `pin`'s with `changes` (path -> (pin side, tree side)):
    `pin`'s files the changes leave alone, and the changed paths whose new blob holds one (its
    words: `read_words`; through `blobs` when given: (BlobWords kept by the caller across
    lookups, a key naming the pin and the tree, the merge's step to it: BlobWords.holding)).
    None: a word that is not one run of word characters (grep it)."""
    wanted = list(words)
    if not all(_ONE_WORD.fullmatch(word) for word in wanted):
        return None
    encoded = frozenset(word.encode() for word in wanted)
    found: set[str] = set()
    for word in encoded:
        found.update(path for path in pin.holding(word) if path not in changes)
    if blobs is None:
        for path, (_, (oid, mode)) in changes.items():
            if oid is not None and mode in _SEARCHED and not encoded.isdisjoint(read_words(oid)):
                found.add(path)
    else:
        kept, key, step = blobs
        found |= kept.holding(key, changes, step, encoded, read_words)
    return sorted(found, key=lambda path: path.encode("utf-8", "surrogateescape"))
