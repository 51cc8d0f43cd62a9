"""What the post-merge check keeps between merges, so a merge costs what it changes.

Stage: beside the post-merge semantic check over a tree merge (tree.check_tree_merge). A drain of
the merge queue checks merge k as (pin, integration tip, task, merged tree); integration's side is
every file the run changed so far, so without this each merge re-read, re-parsed and re-diffed the
run's whole work. Two things are kept:
- **symbols per blob**: what one file version defines, imports and references (symbols.extract),
  keyed by its content (the blob's git id), the profile and the query's fingerprint. Content-keyed,
  an entry is never stale: the same bytes give the same symbols in any repository and any tip.
- **changes per tip**: path -> (pin side, tip side) for every path the tip differs from the pin on
  (a tree diff). The next merge's tip is this merge's result, whose changes are this tip's updated
  with the small diff tip -> result (the task's files), not a diff of the pin against the new tip.
- **a task's facts**: what a merge reads of the task alone, computed by its finish
  (check/task_facts.py) and written beside the symbols, keyed by content too: the left-behind
  look's own reading of a version (LOOK_DEFINITIONS), a version's module specifiers (SPECIFIERS),
  and per pair of blobs (an edit) the functions it reshaped (`pair_fact`) and reach.py's gone,
  reshaped, added and near words (`memo`, MEMO_KINDS). A merge loads all of its task's at once
  (`prefetch`: one query), so its check and look ask memory only.
Both live in memory (bounded) and, given a folder (`<git common dir>/wtc/merge-index/`, what the
coordinator passes), on disk so another process (each `wtc task finish` merges in its own) finds
them: symbols as rows of one SQLite file (`symbols.sqlite3`: a drain writes hundreds, and a file
each cost more than the check), a tip's changes and tables one file per entry, written to a
temporary name and renamed into place, so a reader sees a whole entry or none. Writes wait for the
end of the check (`settle`), or of a whole drain (`held()`: one transaction for its symbols, and
only the last tip's changes and tables, the only tip the drain publishes). An entry that does not
load (truncated, another format, not ours; a damaged SQLite file is removed) is dropped and
computed again; the disk is a cache, never the truth, so results are those of a full walk.
Invariants: every answer equals what the uncached computation gives (tests/merge/test_merge_index.py
compares them after edits, deletions, renames, a corrupt file and two processes); nothing here
knows about runs or tasks.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import marshal
import os
import tempfile
import threading
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator

from ...digest import sha1_of   # not hashlib's: a finish's few blob ids need no OpenSSL (digest.py)

# sqlite3 and pickle load where an entry is read or written, not with the module: `wtc merge-file`
# imports this module (through reach.py) for every line merge and never opens the index (issue 36);
# pygit2 where ids are read back (_unpack, _oids), not with the module.
if TYPE_CHECKING:
    import sqlite3

    import pygit2

FORMAT = 1              # bump when what an entry holds changes shape
# Symbols (and memo) entries kept in memory per process. A drain keeps each task's facts here as it
# merges it (~8 entries a task, ~8 KB a Symbols of a 77-line file): 8,192 held 65 MB of a 1,000-task
# drain's heap (277 MB resident at 20,000 files, --imports); 2,048 holds the last ~250 tasks' (234 MB,
# the same CPU: what a later merge asks again is a recent task's, or the disk's).
MAX_SYMBOLS = 2048
MAX_TIPS = 16           # tips whose changes are kept in memory
MAX_TIP_FILES = 64      # tips whose changes (and tables) are kept on disk (the oldest are removed past this)
TABLES_EVERY = 8        # a drain writes every 8th tip's tables (tip_index.py) for the next process
MAX_SYMBOL_ROWS = 200_000   # symbols rows kept on disk (`wtc gc` removes the oldest past this)
MAX_ABSENT = 200_000       # keys known absent from the disk kept per process (then forgotten: read again)
MAX_PIN_WORDS = 4          # pins whose word index (pin_words.py) is kept on disk (2 in memory)
# The collector's first threshold while a drain holds the index (`held`): a drain allocates ~250
# containers a merge and keeps most (tip tables, views, symbols), so at Python's 700 its young
# collections kept promoting them and a middle and a full collection walked the tables again:
# 0.4 ms of CPU a merge of bench_merge's 200-task drain at 20,000 files, 0.15 with this.
DRAIN_GC_THRESHOLD = 10_000
# And at the end of each check of a drain, what is alive is frozen (gc.freeze: moved out of the
# collector's generations, never walked again while the drain runs; still freed by its count when
# dropped): what a drain keeps (symbols by content, the tip's tables, ~500 containers a merge) was
# walked by the young and middle collections merge after merge, 0.4-0.6 ms of CPU a merge of
# bench_merge's --imports drain, 7-9% of it. Sound because a drain's merge leaves no cycle for the
# collector (tests/merge/test_drain_leaves_no_cycles.py): a cycle frozen would wait for the drain's end.

Side = tuple[Any, int]   # a path's blob id (None: absent) and mode in one tree
Changes = dict[str, tuple[Side, Side]]


class MergeIndex:
    """The symbols of blobs and the changes of tips (module docstring); `folder` None: memory only."""

    def __init__(self, folder: Path | str | None = None):
        self.folder = Path(folder) if folder is not None else None
        self._symbols: OrderedDict[tuple[str, bytes, bool], Any] = OrderedDict()
        self._tips: OrderedDict[tuple[str, str], Changes] = OrderedDict()
        self._memo: OrderedDict[tuple[str, Any], Any] = OrderedDict()
        self._absent: set[tuple[str, bytes, bool]] = set()   # symbols keys this process found no file for
        self._steps: OrderedDict[tuple[str, str], tuple[str, Changes]] = OrderedDict()   # advance's tip -> result
        self._tip_tables: OrderedDict[tuple[str, str], Any] = OrderedDict()   # tip_index.TipIndex per (pin, tip)
        self._pin_words: OrderedDict[str, Any] = OrderedDict()   # pin_words.PinWords per tree id
        self._saved = 0
        self._lock = threading.Lock()
        # tree._tip_views: the check's views of a tip's changed files, per (pin, tip) and repository
        # (a view reads its blobs through it); the next tip's are derived from this one's.
        self._tip_views: OrderedDict[tuple[str, str], tuple[Any, Any]] = OrderedDict()
        self._held = 0                                   # held(): writes wait for the drain's end
        self._drain = 0                                  # held() blocks entered: which drain a tip is of
        self._holding: dict[int, int] = {}               # thread -> the drain (held block) it is in
        self._drain_tips: dict[tuple[str, str], tuple[int, int]] = {}   # tables a drain derived: (drain, thread)
        self._pending: dict[bytes, Any] = {}             # symbols rows not written yet (row key -> value)
        self._pending_entries: dict[str, tuple[Path, Any]] = {}   # kind -> the last tip entry not written
        self.stats = {"symbols_hit": 0, "symbols_disk": 0, "symbols_miss": 0, "tips_hit": 0, "tips_disk": 0,
                      "tips_miss": 0, "tips_composed": 0, "corrupt": 0, "tables_hit": 0, "tables_derived": 0,
                      "tables_disk": 0, "tables_built": 0,
                      "pinwords_hit": 0, "pinwords_disk": 0, "pinwords_built": 0}
        self._rows = _SymbolRows(self.folder / f"v{FORMAT}" / "symbols.sqlite3", self.stats) \
            if self.folder is not None else None

    # -- symbols per blob -------------------------------------------------------------------------
    def symbols(self, fingerprint: str, data: bytes, uses: bool, compute: Callable[[], Any]) -> Any:
        """`compute()` (the symbols of `data`, or None) once per (fingerprint, content, uses)."""
        key = (fingerprint, _blob_id(data), uses)
        return self._kept_or_computed(key, _row_key(key), compute, write=True)

    def _kept_or_computed(self, key: tuple, row: bytes, compute: Callable[[], Any], *, write: bool) -> Any:
        """The value of `key` (row `row` on disk) in memory, else on disk, else `compute()`d, kept
        in memory and (`write`) pending for the disk."""
        kept = self._get(self._symbols, key)
        if kept is not _MISSING:
            self.stats["symbols_hit"] += 1
            return kept
        if self._rows is None:
            found = _MISSING
        elif key in self._absent:
            # looked for on disk already (known_symbols, prefetch: a task's versions and edits):
            # only what this process wrote since can hold it, not another query.
            with self._lock:
                found = self._pending.get(row, _MISSING)
        else:
            found = self._load_row(row)
        if found is not _MISSING:
            self.stats["symbols_disk"] += 1
            value = found
        else:
            self.stats["symbols_miss"] += 1
            value = compute()
            if write and self._rows is not None:
                with self._lock:
                    self._pending[row] = value
        self._put(self._symbols, key, value, MAX_SYMBOLS)
        return value
    def known_symbols(self, fingerprint: str, blob_id: bytes, uses: tuple[bool, ...]) -> Any:
        """The kept symbols of the blob `blob_id` (raw git id) extracted with one of `uses`, in
        that order, or MISSING: a version whose id is known is answered without reading it."""
        for full in uses:
            kept = self._get(self._symbols, (fingerprint, blob_id, full))
            if kept is not _MISSING:
                self.stats["symbols_hit"] += 1
                return kept
        wanted = [full for full in uses if (fingerprint, blob_id, full) not in self._absent]
        if not wanted:
            return _MISSING   # looked for on disk already by this process: computed when asked
        # Every mode of the blob in one read (its rows share a key prefix), the first of `uses` kept.
        found = self._load_modes(fingerprint, blob_id)
        for full in wanted:
            key = (fingerprint, blob_id, full)
            if full not in found:
                self._absent.add(key)
                continue
            self.stats["symbols_disk"] += 1
            self._put(self._symbols, key, found[full], MAX_SYMBOLS)
            return found[full]
        return _MISSING

    def kept_symbols(self, fingerprint: str, blob_id: bytes, mode: Any) -> Any:
        """The symbols of the blob `blob_id` (raw git id) this process holds in memory for `mode`
        (`symbols`' `uses`), or MISSING; the disk is not read (for lookups that mostly miss)."""
        return self._get(self._symbols, (fingerprint, blob_id, mode))

    def keep_symbols(self, fingerprint: str, blob_id: bytes, mode: Any, value: Any, *, disk: bool = False) -> None:
        """Keep `value` in memory as the symbols of `blob_id` for `mode`: what a reader other than
        the check computed (the left-behind look's definitions, its own mode), for a later question
        of this process; with `disk`, on disk too (written with the rest: `settle`, `flush`): what a
        task's finish computes for the drain that merges it (check/task_facts.py)."""
        key = (fingerprint, blob_id, mode)
        self._put(self._symbols, key, value, MAX_SYMBOLS)
        if disk and self._rows is not None:
            with self._lock:
                self._pending[_row_key(key)] = value
            self._absent.discard(key)

    def pair_fact(self, kind: str, fingerprint: str, old: bytes, new: bytes, compute: Callable[[], Any], *,
                  disk: bool = False) -> Any:
        """`compute()` once per (kind, fingerprint, old blob id, new blob id): a fact pure in two
        versions of a file (PAIR_KINDS: the functions the edit reshaped), kept in memory, found on
        disk where another process wrote it (`prefetch`, else a read), with `disk` written there
        too (a task's finish, for the drain that merges it). The value is shared: not changed."""
        key = (kind, fingerprint, old, new)
        return self._kept_or_computed(key, _pair_row(key), compute, write=disk)

    def prefetch_edits(self, edits: Iterable[tuple[str, bytes | None, bytes | None]]) -> None:
        """`prefetch` of a task's changed files, each as (its profile's fingerprint, old blob id,
        new blob id; None where the file is absent): both versions, and the edit where both are;
        first from the row its finish kept them in together (`keep_task`), else row by row."""
        edits = list(edits)
        blobs, pairs = _edit_keys(edits)
        if blobs:
            self.prefetch(blobs, pairs, task=_task_row(edits))

    def keep_task(self, edits: Iterable[tuple[str, bytes | None, bytes | None]]) -> None:
        """Keep what this process holds in memory of a task's edits (`prefetch_edits`' keys: every
        mode of each version's symbols, each edit's pair facts and memos) as one more row too,
        pending for the next write: a task's finish, after computing them (check/task_facts.py),
        so the drain that merges the task reads one row, not a row per fact, and unpickles it at
        once (each pickle names its classes again, each an import lookup, and its strings: a
        version's names are its other version's too)."""
        if self._rows is None:
            return
        edits = list(edits)
        blobs, pairs = _edit_keys(edits)
        if not blobs:
            return
        rows = {}
        for memo, row, key in _fact_keys(blobs, pairs):
            value = self._get(self._memo if memo else self._symbols, key)
            if value is not _MISSING:
                rows[row] = value
        with self._lock:
            self._pending[_task_row(edits)] = rows

    def prefetch(self, blobs: Iterable[tuple[str, bytes]], pairs: Iterable[tuple[str, bytes, bytes]] = (),
                 task: bytes | None = None) -> None:
        """Load every mode of the symbols the disk keeps of `blobs` ((fingerprint, raw blob id)
        pairs: a task's versions), and every kind of fact of `pairs` ((fingerprint, old blob id,
        new blob id): a task's edits, `pair_fact`), into memory in one query, and mark those it
        does not keep known absent: the merge's check and look then ask memory only, where each of
        their questions read the disk (or, inside a drain, computed it again). What a task's finish
        computed (check/task_facts.py) is found here by the drain that merges it: in the one row
        `task` (`keep_task`) when the finish kept it, which holds everything the finish held of
        those keys (it loaded what the disk kept of them first), so a key it lacks is known absent
        without a second query."""
        if self._rows is None:
            return
        # Every key's memory looked up, and the found ones kept, under one hold of the lock, not
        # a call and a hold per key (~64 keys a merge of bench_merge's drain: 5% of it).
        with self._lock:
            if len(self._absent) > MAX_ABSENT:
                self._absent.clear()   # (a long-lived process: asked of the disk again, never answered wrong)
            symbols, memo_table, absent = self._symbols, self._memo, self._absent
            wanted: dict[bytes, tuple] = {}
            memos: dict[bytes, tuple] = {}
            for memo, row, key in _fact_keys(blobs, pairs):
                if memo:
                    if key not in memo_table:
                        memos[row] = key
                elif key not in absent and key not in symbols:
                    wanted[row] = key
            if not wanted and not memos:
                return
            kept = self._pending.get(task, _MISSING) if task is not None else _MISSING
        if kept is _MISSING and task is not None:
            kept = self._rows.get(task)
        if isinstance(kept, dict):
            with self._lock:
                for row, key in wanted.items():
                    if row in kept:
                        self.stats["symbols_disk"] += 1
                        symbols[key] = kept[row]
                    else:
                        absent.add(key)
                for row, full in memos.items():
                    if row in kept:
                        memo_table[full] = kept[row]
                for table in (symbols, memo_table):
                    while len(table) > MAX_SYMBOLS:
                        table.popitem(last=False)
            return
        with self._lock:
            pending = {row: self._pending[row] for row in wanted.keys() | memos.keys() if row in self._pending}
        found = self._rows.get_many([row for row in wanted.keys() | memos.keys() if row not in pending]) | pending
        for row, key in wanted.items():
            if row in found:
                self.stats["symbols_disk"] += 1
                self._put(self._symbols, key, found[row], MAX_SYMBOLS)
            else:
                self._absent.add(key)
        for row, full in memos.items():
            if row in found:
                self._put(self._memo, full, found[row], MAX_SYMBOLS)

    @property
    def draining(self) -> bool:
        """Whether this thread is inside a drain's `held()` block: its checks put every version
        they extracted in this process's memory, so a lookup of the task's versions on disk, which
        only another process can have written, mostly misses (a SQLite read each)."""
        return threading.get_ident() in self._holding

    def _load_modes(self, fingerprint: str, blob_id: bytes) -> dict[Any, Any]:
        """mode -> the symbols rows of one blob, on disk or pending (`_row_key`'s modes)."""
        if self._rows is None:
            return {}
        prefix = fingerprint[:16].encode() + blob_id
        with self._lock:
            pending = {mode: self._pending[prefix + tag] for mode, tag in _MODES.items() if prefix + tag in self._pending}
        return self._rows.get_prefix(prefix) | pending

    def _load_row(self, row: bytes) -> Any:
        """A row of the disk (or one this process has not written yet), or _MISSING."""
        if self._rows is None:
            return _MISSING
        with self._lock:
            if row in self._pending:
                return self._pending[row]
        return self._rows.get(row)

    # -- when the disk is written ---------------------------------------------------------------
    @contextlib.contextmanager
    def held(self) -> Iterator["MergeIndex"]:
        """Hold the disk writes of the checks inside the block, and write them at its end (a
        drain: its symbols in one transaction, of its tips' changes and tables only the last ones,
        the only tip another process will merge onto). Nests; a crash inside only loses cache.
        Inside it the process reads objects as a drain needs them (`_drain_process`)."""
        me = threading.get_ident()
        _drain_process(+1)
        with self._lock:
            self._held += 1
            self._drain += 1
            outer = self._holding.get(me)
            self._holding[me] = self._drain   # this thread's drain: the tips whose tables it may take over
        try:
            yield self
        finally:
            with self._lock:
                self._held -= 1
                last = self._held == 0
                if outer is None:
                    self._holding.pop(me, None)
                else:
                    self._holding[me] = outer
            try:
                if last:
                    self.flush()
            finally:
                _drain_process(-1)

    def published(self) -> None:
        """The tips this thread's drain made are published (integration moved to them): another
        check may hold their tables now, so none is taken over any more (copied on write)."""
        me = threading.get_ident()
        with self._lock:
            for key in [key for key, token in self._drain_tips.items() if token[1] == me]:
                del self._drain_tips[key]

    def settle(self) -> None:
        """The end of one check: write what it left pending, unless a drain holds the writes (then
        what the check left alive is frozen: DRAIN_GC_THRESHOLD's note)."""
        if not self._held:
            self.flush()
        elif _freezing:
            gc.freeze()

    def flush(self) -> None:
        """Write every pending entry now."""
        with self._lock:
            rows, self._pending = self._pending, {}
            entries, self._pending_entries = self._pending_entries, {}
        if rows and self._rows is not None:
            self._rows.put(rows)
        for path, pack in entries.values():
            self._write_entry(path, pack)

    def prune(self, keep_tips: Iterable[str], max_rows: int = MAX_SYMBOL_ROWS, *,
              dry_run: bool = False) -> dict[str, int]:
        """What `wtc gc` removes: the changes and tables entries of tips (tree ids) not in
        `keep_tips` (the tips a merge may still start from: each open run's integration tip and
        the first parents the next process derives tables from), temporary files writers left, and
        the oldest symbols rows past `max_rows`. Returns how many of each went (would go)."""
        keep = set(keep_tips)
        removed = {"tips": 0, "tables": 0, "symbols": 0}
        if self.folder is None:
            return removed
        for kind in ("tips", "tables"):
            folder = self.folder / f"v{FORMAT}" / kind
            try:
                entries = list(folder.iterdir())
            except OSError:
                continue
            for entry in entries:
                if entry.name.startswith(".tmp-") or entry.name.rsplit("-", 1)[-1] not in keep:
                    removed[kind] += 1
                    if not dry_run:
                        with contextlib.suppress(OSError):
                            entry.unlink()
        if self._rows is not None:
            removed["symbols"] = self._rows.prune(max_rows, dry_run=dry_run)
        return removed

    def prune_pin_words(self, keep_pins: Iterable[str], *, dry_run: bool = False) -> list[str]:
        """What `wtc gc` removes of the pins' word indexes (`pin_words`): the entries of trees not in
        `keep_pins` (the pins an open run's merges still read: its pinned commit's tree, and a
        merge base a live task's `task update` moved) and temporary files writers left. Returns
        their names (tree ids), sorted: what went (would go)."""
        if self.folder is None:
            return []
        keep = set(keep_pins)
        try:
            entries = list((self.folder / f"v{FORMAT}" / "pinwords").iterdir())
        except OSError:
            return []
        removed = []
        for entry in entries:
            if entry.name.startswith(".tmp-") or entry.name not in keep:
                removed.append(entry.name)
                if not dry_run:
                    with contextlib.suppress(OSError):
                        entry.unlink()
        return sorted(removed)

    def memo(self, kind: str, key: Any, compute: Callable[[], Any], *, disk: bool = False) -> Any:
        """`compute()` once per (kind, key) in this process (bounded): for answers pure in `key`,
        such as the words of the lines one version added to another, keyed by both contents. The
        disk is never read here: a kind of MEMO_KINDS keyed by two blob ids, `("id", old, new)`,
        or of BLOB_MEMO_KINDS keyed by one (raw), is loaded from it by `prefetch` (a task's edits
        and versions), and written there with `disk` (what a
        task's finish computes for the drain that merges it)."""
        full = (kind, key)
        kept = self._get(self._memo, full)
        if kept is not _MISSING:
            return kept
        value = compute()
        self._put(self._memo, full, value, MAX_SYMBOLS)
        if disk and self._rows is not None and (row := _memo_row_of(kind, key)) is not None:
            with self._lock:
                self._pending[row] = value
        return value

    def _get(self, table: OrderedDict, key: Any) -> Any:
        """table[key] (marked recently used), or _MISSING; under the lock: a server's worker
        threads share one index."""
        with self._lock:
            found = table.get(key, _MISSING)   # (a key is hashed twice, not three times: ~100 lookups a merge)
            if found is not _MISSING:
                table.move_to_end(key)
            return found

    def _put(self, table: OrderedDict, key: Any, value: Any, limit: int) -> None:
        with self._lock:
            table[key] = value
            while len(table) > limit:
                table.popitem(last=False)

    # -- the words of a pin's files (pin_words.py) ------------------------------------------------
    def pin_words(self, tree: pygit2.Tree, build: Callable[[], Any], dump: Callable[[Any], Any],
                  load: Callable[[Any], Any]) -> Any:
        """A tree's word index (pin_words.PinWords): kept in memory (2), on disk for the next
        process (written when built: the newest MAX_PIN_WORDS stay), else `build()`."""
        key = str(tree.id)
        kept = self._get(self._pin_words, key)
        if kept is not _MISSING:
            self.stats["pinwords_hit"] += 1
            return kept
        path = self._entry("pinwords", "", key)
        found = _load(path, self.stats, raw=True)
        value = _MISSING
        if found is not _MISSING:
            try:
                value = load(found)
                self.stats["pinwords_disk"] += 1
            except (TypeError, ValueError):
                value = _MISSING
        if value is _MISSING:
            value = self._build_pin_words(path, build, dump)
        self._put(self._pin_words, key, value, 2)
        return value

    def keep_pin_words(self, tree: pygit2.Tree, build: Callable[[], Any], dump: Callable[[Any], Any]) -> bool:
        """Build a tree's word index and write it for the processes that merge onto it, unless the
        disk holds it already (not read here: `run start` makes it, off every merge's path, and a
        damaged entry is built again by the merge that finds it). True: built now."""
        path = self._entry("pinwords", "", str(tree.id))
        if path is None or path.is_file():
            return False
        self._build_pin_words(path, build, dump)
        return True

    def _build_pin_words(self, path: Path | None, build: Callable[[], Any], dump: Callable[[Any], Any]) -> Any:
        value = build()
        self.stats["pinwords_built"] += 1
        _store(path, dump(value), raw=True)
        if path is not None:
            with contextlib.suppress(OSError):
                entries = sorted((p for p in path.parent.iterdir() if not p.name.startswith(".tmp-")),
                                 key=lambda p: p.stat().st_mtime, reverse=True)
                for old in entries[MAX_PIN_WORDS:]:
                    old.unlink()
        return value

    # -- the check's views of a tip's files (tree._tip_views) ------------------------------------------
    def tip_views(self, repo: pygit2.Repository, key: tuple[str, str]) -> Any:
        """What `keep_tip_views` kept for (pin, tip) in `repo`, or None."""
        kept = self._get(self._tip_views, key)
        return kept[1] if kept is not _MISSING and kept[0] is repo else None

    def keep_tip_views(self, repo: pygit2.Repository, key: tuple[str, str], views: Any) -> None:
        self._put(self._tip_views, key, (repo, views), MAX_TIPS)

    # -- changes per tip --------------------------------------------------------------------------
    def changes(self, repo: pygit2.Repository, old: pygit2.Tree, new: pygit2.Tree,
                diff: Callable[[pygit2.Tree, pygit2.Tree], Changes]) -> Changes:
        """`diff(old, new)`, from memory or disk when known: the kept mapping itself, to be read,
        never changed (a copy at every call, three a merge, copied every path the run had changed:
        0.3 ms a merge at the end of a 1,000-task drain)."""
        key = (str(old.id), str(new.id))
        kept = self._get(self._tips, key)
        if kept is not _MISSING:
            self.stats["tips_hit"] += 1
            return kept
        path = self._entry("tips", "", f"{key[0]}-{key[1]}")
        found = _load(path, self.stats, raw=True)
        changes = _unpack(found) if found is not _MISSING else None
        if changes is not None:
            self.stats["tips_disk"] += 1
        else:
            self.stats["tips_miss"] += 1
            changes = diff(old, new)
            self._save_tip(path, changes)
        self._remember(key, changes)
        return changes

    def kept_changes(self, old: str, new: str) -> Changes | None:
        """The changes between two trees (ids) this process holds in memory, not copied (to be read,
        never changed), or None: what a merge's reader of its merged tree asks (a path in it is
        one lookup, not a walk down the tree's folders)."""
        kept = self._get(self._tips, (old, new))
        return None if kept is _MISSING else kept

    def advance(self, repo: pygit2.Repository, old: pygit2.Tree, tip: pygit2.Tree, result: pygit2.Tree,
                diff: Callable[[pygit2.Tree, pygit2.Tree], Changes], step: Changes | None = None) -> Changes:
        """`diff(old, result)` from `changes(old, tip)` and the (small) `diff(tip, result)` (`step`
        when the caller knows it: disjoint.py): what the next merge, whose tip `result` is, asks
        for. Kept like `changes`, and like it the kept mapping itself (to be read, never changed)."""
        key = (str(old.id), str(result.id))
        kept = self._get(self._tips, key)
        if kept is not _MISSING:
            self.stats["tips_hit"] += 1
            return kept
        changes = dict(self.changes(repo, old, tip, diff))   # (the tip's own stay as they are)
        step = diff(tip, result) if step is None else step
        self._put(self._steps, key, (str(tip.id), step), MAX_TIPS)
        for path, (before, after) in step.items():
            # `before` is the tip's side; the pin's side is the tip's unless the run changed the path.
            pinned = changes[path][0] if path in changes else before
            if _same(pinned, after):
                changes.pop(path, None)   # back to what the pin holds: no longer a change
            else:
                changes[path] = (pinned, after)
        self.stats["tips_composed"] += 1
        self._save_tip(self._entry("tips", "", f"{key[0]}-{key[1]}"), changes)
        self._remember(key, changes)
        return changes

    def step(self, old: pygit2.Tree, result: pygit2.Tree) -> tuple[str, Changes] | None:
        """(tip id, diff(tip, result)) of the `advance` that composed `result`'s changes in this
        process: the paths the merge changed on the tip's side. None: not known here."""
        kept = self._get(self._steps, (str(old.id), str(result.id)))
        return None if kept is _MISSING else kept

    def tip_tables(self, old: pygit2.Tree, tip: pygit2.Tree, build: Callable[[], Any],
                   derive: Callable[[Any, Changes, bool], Any], *, dump: Callable[[Any], Any] | None = None,
                   load: Callable[[Any], Any] | None = None, ancestors: Iterable[pygit2.Tree] = (),
                   diff: Callable[[pygit2.Tree, pygit2.Tree], Changes] | None = None) -> Any:
        """The tables reach.py reads of a tip's changed files (tip_index.TipIndex): kept in
        memory; derived from the previous tip's by the step `advance` recorded (`derive(previous,
        step)`: a drain asks for the next tip's right after this one's); loaded from disk (`load`
        of what `dump` wrote), for this tip or, derived by `diff(ancestor, tip)`, for one of
        `ancestors` (the tips before it, nearest first: another process wrote them); else
        `build()`. Written to disk when built or loaded through an ancestor, and every
        TABLES_EVERY-th derived tip, so a process that merges once finds a recent one."""
        key = (str(old.id), str(tip.id))
        kept = self._get(self._tip_tables, key)
        if kept is not _MISSING:
            self.stats["tables_hit"] += 1
            return kept
        step = self.step(old, tip)
        previous = self._get(self._tip_tables, (key[0], step[0])) if step is not None else _MISSING
        save = False
        mine = self._drain_token()
        if previous is not _MISSING and step is not None:
            # A tip this drain derived (an unpublished merge commit of its own, which no other
            # check holds): its tables are taken over, not copied. Any other is copied on write.
            take = mine is not None and self._drain_tips.get((key[0], step[0])) == mine
            value = derive(previous, step[1], take)
            if take:
                with self._lock:
                    self._tip_tables.pop((key[0], step[0]), None)
                    self._drain_tips.pop((key[0], step[0]), None)
            self.stats["tables_derived"] += 1
            save = self.stats["tables_derived"] % TABLES_EVERY == 0
        else:
            value = self._load_tables(key[0], key[1], load)
            if value is _MISSING and diff is not None:
                for ancestor in ancestors:
                    found = self._load_tables(key[0], str(ancestor.id), load)
                    if found is not _MISSING:
                        value, save = derive(found, diff(ancestor, tip), False), True
                        break
            if value is _MISSING:
                value, save = build(), True
                self.stats["tables_built"] += 1
        if dump is not None and (save or mine is not None):
            # Held by a drain: the newest tables are the ones written at its end (those before
            # them may have been taken over by then).
            self._save_pruned(self._entry("tables", "", f"{key[0]}-{key[1]}"), lambda: dump(value))
        if mine is not None:
            with self._lock:
                self._drain_tips[key] = mine
        self._put(self._tip_tables, key, value, 4)
        return value

    def _drain_token(self) -> tuple[int, int] | None:
        """Which drain (held block) of this thread asks, or None when this thread holds none (another
        thread's drain holds the writes, not this thread's tables)."""
        me = threading.get_ident()
        drain = self._holding.get(me)
        return None if drain is None else (drain, me)

    def _load_tables(self, old: str, tip: str, load: Callable[[Any], Any] | None) -> Any:
        if load is None:
            return _MISSING
        path = self._entry("tables", "", f"{old}-{tip}")
        found = _load(path, self.stats, raw=True)
        if found is _MISSING:
            return _MISSING
        try:
            value = load(found)
        except (TypeError, ValueError, KeyError, IndexError):   # written by another shape: computed again
            self.stats["corrupt"] += 1
            return _MISSING
        self.stats["tables_disk"] += 1
        return value

    def _remember(self, key: tuple[str, str], changes: Changes) -> None:
        self._put(self._tips, key, changes, MAX_TIPS)

    def _save_tip(self, path: Path | None, changes: Changes) -> None:
        self._save_pruned(path, lambda: _pack(changes))   # `changes` is kept, never changed: packed when written

    def _save_pruned(self, path: Path | None, pack: Callable[[], Any]) -> None:
        """Write a per-tip entry (marshal of what `pack()` gives; held: the last of its kind, packed
        and written at the drain's end) and, now and then, remove its folder's oldest past MAX_TIP_FILES."""
        if path is None:
            return
        if self._held:
            with self._lock:
                self._pending_entries[path.parent.name] = (path, pack)
            return
        self._write_entry(path, pack)

    def _write_entry(self, path: Path, pack: Callable[[], Any]) -> None:
        packed = pack()
        _store(path, packed, raw=True)
        self._saved += 1
        if self._saved % 16:
            return   # the folder is pruned every 16th tip written: listing it costs more than one write
        try:
            entries = sorted(path.parent.iterdir(), key=lambda p: p.stat().st_mtime)
        except OSError:
            return
        for stale in entries[:max(0, len(entries) - MAX_TIP_FILES)]:
            try:
                stale.unlink()
            except OSError:
                pass   # another process removed it first

    def _entry(self, kind: str, fingerprint: str, name: str) -> Path | None:
        if self.folder is None:
            return None
        base = self.folder / f"v{FORMAT}" / kind
        if fingerprint:
            base = base / fingerprint[:16] / name[:2]
        return base / name


def index_folder(repo: pygit2.Repository) -> Path:
    """`<git common dir>/wtc/merge-index` of `repo` (a linked worktree's too)."""
    return _index_folder(repo.path)


@functools.lru_cache(maxsize=64)
def _index_folder(git_path: str) -> Path:
    """index_folder by the git folder's path, kept: a git folder's common folder does not move
    (a linked worktree's `commondir` names it when the worktree is added), and each merge of a
    drain asked it three times (a stat and a read of `commondir` each, and a path resolved)."""
    git_dir = Path(git_path)
    commondir = git_dir / "commondir"
    if commondir.is_file():
        git_dir = (git_dir / commondir.read_text(errors="replace").strip()).resolve()
    return git_dir / "wtc" / "merge-index"


_gc_drains = 0                # held() blocks open in this process (any index, any thread)
_gc_before: tuple[int, ...] = ()
_gc_lock = threading.Lock()
# Whether a drain's checks freeze what they leave alive (settle): only in a process that froze
# nothing itself (`wtc serve` freezes its start-up heap: a drain's unfreeze would thaw it) and whose
# collector is on; everything is unfrozen when the last drain ends.
_freezing = False
# The largest tree object libgit2 keeps in its object cache once a drain has run in the process
# (its default: 4,096 bytes). A drain reads the same trees at every merge (the root, the folders
# above each task's files; a folder of 200 packages is a 7 KB tree), each path lookup, tree walk
# and diff loading them again: inflated and hashed, 16% of the instructions of bench_merge's
# --imports drain. The cache's total stays libgit2's bound (cache_max_size, 256 MB by default),
# so only which trees it may keep changes.
TREE_CACHE_LIMIT = 1 << 20
_trees_cached = False


def _drain_process(step: int) -> None:
    """What a drain sets for the process while any drain holds an index, put back when the last
    one ends: the collector's first threshold raised (DRAIN_GC_THRESHOLD: only how often it runs
    changes, every cycle is still collected, at most that many more containers wait for it), what
    each check leaves alive frozen (`settle`, where the process froze nothing itself), and
    objects read as git reads them, their content not hashed again against their id (libgit2's
    strict hash verification: 11% of the instructions of bench_merge's --imports drain, every blob
    of a merge's files and every tree read for the first time; git's merge-tree, commit-tree and
    cat-file do not hash what they read either; a damaged object's compressed stream is still
    checked as it is inflated). Process-wide: another thread's reads meanwhile are read so too.
    And once, kept: trees cached up to TREE_CACHE_LIMIT (an object cached stays valid: it is read
    by its id)."""
    global _gc_drains, _gc_before, _trees_cached, _freezing
    import pygit2
    from pygit2.enums import ObjectType, Option

    with _gc_lock:
        _gc_drains += step
        if step > 0 and _gc_drains == 1:
            pygit2.option(Option.ENABLE_STRICT_HASH_VERIFICATION, False)
            if not _trees_cached:
                pygit2.option(Option.SET_CACHE_OBJECT_LIMIT, ObjectType.TREE, TREE_CACHE_LIMIT)
                _trees_cached = True
            _freezing = gc.isenabled() and gc.get_freeze_count() == 0
            _gc_before = gc.get_threshold()
            if _gc_before[0] and _gc_before[0] < DRAIN_GC_THRESHOLD:   # 0: the collector is off, left off
                gc.set_threshold(DRAIN_GC_THRESHOLD, *_gc_before[1:])
            else:
                _gc_before = ()
        elif step < 0 and _gc_drains == 0:
            pygit2.option(Option.ENABLE_STRICT_HASH_VERIFICATION, True)
            if _freezing:
                _freezing = False
                gc.unfreeze()   # (into the oldest generation, where what a drain keeps was going)
            if _gc_before:
                gc.set_threshold(*_gc_before)
                _gc_before = ()


_SHARED: dict[str, MergeIndex] = {}
_MEMORY = MergeIndex()


def shared_index(folder: Path | str | None = None) -> MergeIndex:
    """One index per folder per process (None: the in-memory one), so the merges of one drain share it."""
    if folder is None:
        return _MEMORY
    key = str(folder)
    if key not in _SHARED:
        _SHARED[key] = MergeIndex(folder)
    return _SHARED[key]


_MISSING = object()
MISSING = _MISSING   # known_symbols: nothing kept


def hash_bytes(data: bytes) -> bytes:
    """A short key for `data` in memo keys (its SHA-1)."""
    return sha1_of(data)


def _blob_id(data: bytes) -> bytes:
    """The git blob id of `data` (what the repository names it by)."""
    return sha1_of(b"blob %d\0" % len(data) + data)


def _load(path: Path | None, stats: dict[str, int], raw: bool = False) -> Any:
    """An entry's value, or _MISSING (absent; damaged, which is removed and counted)."""
    import pickle
    if path is None:
        return _MISSING
    try:
        data = path.read_bytes()
    except OSError:
        return _MISSING
    try:
        tag, value = marshal.loads(data) if raw else pickle.loads(data)
        if tag != ("wtc-merge-index", FORMAT):
            raise ValueError("another format")
        return value
    except Exception:   # noqa: BLE001 - any damage means: not an entry; compute it again
        stats["corrupt"] += 1
        try:
            path.unlink()
        except OSError:
            pass
        return _MISSING


def _store(path: Path | None, value: Any, raw: bool = False) -> None:
    """Write one entry whole (temporary file renamed into place); a failure only loses the cache."""
    import pickle
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        with os.fdopen(fd, "wb") as fh:
            entry = (("wtc-merge-index", FORMAT), value)
            # marshal for a tip's changes (plain tuples of bytes and ints: several times faster).
            fh.write(marshal.dumps(entry) if raw else pickle.dumps(entry, protocol=pickle.HIGHEST_PROTOCOL))
        os.replace(tmp, path)
    except OSError:
        pass


def _same(a: Side, b: Side) -> bool:
    if a[0] is None or b[0] is None:
        return a[0] is None and b[0] is None
    return a[0] == b[0] and a[1] == b[1]


def _pack(changes: Changes) -> tuple:
    """A tip's changes as flat tuples (marshal writes them fast): path, pin id, mode, tip id, mode."""
    return tuple((path, None if b[0] is None else b[0].raw, int(b[1]), None if a[0] is None else a[0].raw, int(a[1]))
                 for path, (b, a) in changes.items())


def _unpack(value: Any) -> Changes | None:
    """`_pack`'s inverse; None when `value` is not what `_pack` writes."""
    import pygit2

    try:
        oid = pygit2.Oid
        return {path: ((None if b is None else oid(raw=b), bm), (None if a is None else oid(raw=a), am))
                for path, b, bm, a, am in value}
    except (TypeError, ValueError):
        return None


def _raw(sides: tuple[Side, Side]) -> tuple[tuple[bytes | None, int], tuple[bytes | None, int]]:
    return tuple((None if oid is None else oid.raw, mode) for oid, mode in sides)  # type: ignore[return-value]


def _oids(sides: Any) -> tuple[Side, Side]:
    import pygit2

    return tuple((None if raw is None else pygit2.Oid(raw=raw), mode) for raw, mode in sides)  # type: ignore[return-value]


def _row_key(key: tuple[str, bytes, bool]) -> bytes:
    """A symbols entry's row key: the profile's fingerprint, the blob's id, the extraction mode."""
    fingerprint, blob_id, uses = key
    return fingerprint[:16].encode() + blob_id + _MODES[uses]


# Extraction modes (symbols.IMPORTS_ONLY: "imports"; LOOK_DEFINITIONS: the left-behind look's reading
# of a version, which keeps what the parser read of one that does not parse cleanly), each a row of a blob.
LOOK_DEFINITIONS = "look-definitions"
SPECIFIERS = "specifiers"   # not symbols: symbols.module_specifiers of the blob (check/own_imports.py's reading)
_MODES = {True: b"u", False: b"d", "imports": b"i", LOOK_DEFINITIONS: b"l", SPECIFIERS: b"s"}
# The kinds of facts of a pair of versions (pair_fact): signatures.reshaped, as the look asks it.
PAIR_KINDS = {"reshaped": b"r"}


# The kinds of `memo` answers keyed by a pair of blobs that the disk keeps (reach.py's, of an edit:
# the words it took away, of the functions it may have reshaped, of the lines it added, and of the
# lines it touched with those above them).
MEMO_KINDS = {"gone": b"g", "reshaped-words": b"w", "added": b"a", "near": b"n"}
# The kinds of `memo` answers keyed by one blob's raw id that the disk keeps: a task's new version's
# words (reach.standing_words, which the next tip's tables and reach's pairing read of it).
BLOB_MEMO_KINDS = {"words": b"s"}


def _edit_keys(edits: list[tuple[str, bytes | None, bytes | None]]) -> tuple[list[tuple[str, bytes]],
                                                                          list[tuple[str, bytes, bytes]]]:
    """A task's edits ((fingerprint, old blob id, new blob id; None: absent)) as `prefetch`'s
    blobs (each version) and pairs (each edit of a file both versions hold)."""
    blobs, pairs = [], []
    for fingerprint, old, new in edits:
        blobs += [(fingerprint, blob) for blob in (old, new) if blob is not None]
        if old is not None and new is not None:
            pairs.append((fingerprint, old, new))
    return blobs, pairs


def _fact_keys(blobs: Iterable[tuple[str, bytes]], pairs: Iterable[tuple[str, bytes, bytes]]) -> Iterator[tuple[bool, bytes, tuple]]:
    """(memo table or not, row key, memory key) of each fact the disk may keep of `blobs` and
    `pairs` (`prefetch`): every mode of each version's symbols, each edit's pair facts and memos."""
    for fingerprint, blob_id in blobs:
        for mode in _MODES:
            key = (fingerprint, blob_id, mode)
            yield False, _row_key(key), key
        for kind, tag in BLOB_MEMO_KINDS.items():
            yield True, b"\0b" + tag + blob_id, (kind, blob_id)
    for fingerprint, old, new in pairs:
        for kind in PAIR_KINDS:
            pair = (kind, fingerprint, old, new)
            yield False, _pair_row(pair), pair
        for kind in MEMO_KINDS:
            full = (kind, ("id", old, new))
            yield True, _memo_row(*full), full


def _task_row(edits: list[tuple[str, bytes | None, bytes | None]]) -> bytes:
    """The row key of a task's facts kept together (`keep_task`): a NUL and `t`, then a digest of
    its edits in path-independent order (the finish lists them from git's diff, the merge from its
    walk: the same set, compared as a set)."""
    return _TASK_ROW + sha1_of("\n".join(sorted(repr(edit) for edit in edits)).encode())


def _memo_row_of(kind: str, key: Any) -> bytes | None:
    """The row key of a `memo` answer the disk keeps (MEMO_KINDS by two blob ids, BLOB_MEMO_KINDS
    by one), None for one it does not."""
    if kind in MEMO_KINDS and type(key) is tuple and key[0] == "id":
        return _memo_row(kind, key)
    if kind in BLOB_MEMO_KINDS and type(key) is bytes:
        return b"\0b" + BLOB_MEMO_KINDS[kind] + key
    return None


def _memo_row(kind: str, key: tuple[str, bytes, bytes]) -> bytes:
    """A memo answer's row key (MEMO_KINDS; `key`: ("id", old blob id, new blob id)): as _pair_row's."""
    return b"\0m" + MEMO_KINDS[kind] + key[1] + key[2]


def _pair_row(key: tuple[str, str, bytes, bytes]) -> bytes:
    """A pair fact's row key: a NUL first (a symbols row starts with the fingerprint's hex digits,
    so the two never meet, nor does a blob's prefix range, get_prefix, take one), the kind, the
    profile's fingerprint, both blob ids."""
    kind, fingerprint, old, new = key
    return b"\0" + PAIR_KINDS[kind] + fingerprint[:16].encode() + old + new


class _SymbolRows:
    """The symbols entries of a folder, rows of one SQLite file: (key, the pickled entry). Opened
    on first use (again in a forked child); any damage (not a database, malformed) removes the
    file and starts an empty one; a write that cannot get the file (another process writing past
    the timeout) is dropped: a cache. Rows are replaced when written again, so the oldest rows
    (by rowid) are the least recently written: `prune` removes those."""

    def __init__(self, path: Path, stats: dict[str, int]):
        self.path = path
        self._stats = stats
        self._db: sqlite3.Connection | None = None
        self._pid = 0
        self._lock = threading.Lock()
        self._off = False   # unusable here (a read-only folder): the cache stays in memory
        self._retried = False
        self._last_task: tuple[bytes, Any] | None = None   # (row, value) of the task row read last (_resolved)

    def _connect(self) -> sqlite3.Connection | None:
        import sqlite3
        if self._db is not None and self._pid == os.getpid():
            return self._db
        self._db = None   # a forked child never uses its parent's connection
        if self._off:
            return None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(str(self.path), timeout=2.0, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA synchronous=OFF")   # a cache: a torn write is found damaged and rebuilt
            db.execute("CREATE TABLE IF NOT EXISTS symbols (key BLOB PRIMARY KEY, value BLOB NOT NULL)")
        except sqlite3.DatabaseError:
            return self._damaged()
        except (sqlite3.Error, OSError):
            self._off = True
            return None
        self._db, self._pid = db, os.getpid()
        return db

    def _damaged(self) -> sqlite3.Connection | None:
        """Remove a file that is not a whole database and start an empty one (once per process:
        a second failure leaves this process's cache in memory)."""
        import sqlite3
        self._stats["corrupt"] += 1
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
        self._db = None
        for suffix in ("", "-journal", "-wal", "-shm"):
            with contextlib.suppress(OSError):
                os.unlink(str(self.path) + suffix)
        if self._retried:
            self._off = True
            return None
        self._retried = True
        return self._connect()

    def get(self, row: bytes) -> Any:
        import sqlite3
        with self._lock:
            db = self._connect()
            if db is None:
                return _MISSING
            try:
                found = db.execute("SELECT value FROM symbols WHERE key = ?", (row,)).fetchone()
            except sqlite3.DatabaseError:
                self._damaged()
                return _MISSING
            except sqlite3.Error:
                return _MISSING
        return _MISSING if found is None else self._resolved(row, _unpickle(found[0], self._stats))

    def get_many(self, rows: list[bytes]) -> dict[bytes, Any]:
        """row key -> value of those of `rows` the file holds, in one query."""
        import sqlite3
        if not rows:
            return {}
        with self._lock:
            db = self._connect()
            if db is None:
                return {}
            try:
                found = []
                for start in range(0, len(rows), 500):   # (SQLite's limit on a statement's parameters)
                    chunk = rows[start:start + 500]
                    found += db.execute(f"SELECT key, value FROM symbols WHERE key IN ({','.join('?' * len(chunk))})",
                                        chunk).fetchall()
            except sqlite3.DatabaseError:
                self._damaged()
                return {}
            except sqlite3.Error:
                return {}
        out = {}
        for key, data in found:
            value = self._resolved(key, _unpickle(data, self._stats))
            if value is not _MISSING:
                out[key] = value
        return out

    def get_prefix(self, prefix: bytes) -> dict[Any, Any]:
        """mode -> value of the rows whose key is `prefix` and a mode's tag (one blob's)."""
        import sqlite3
        with self._lock:
            db = self._connect()
            if db is None:
                return {}
            try:
                rows = db.execute("SELECT key, value FROM symbols WHERE key >= ? AND key < ?",
                                  (prefix, prefix + b"\xff")).fetchall()
            except sqlite3.DatabaseError:
                self._damaged()
                return {}
            except sqlite3.Error:
                return {}
        tags = {tag: mode for mode, tag in _MODES.items()}
        out: dict[Any, Any] = {}
        for key, data in rows:
            mode = tags.get(key[len(prefix):])
            if mode is not None:
                value = self._resolved(key, _unpickle(data, self._stats))
                if value is not _MISSING:
                    out[mode] = value
        return out

    def _resolved(self, row: bytes, value: Any) -> Any:
        """A row's value: the one its task's row holds where it was written as a reference to it
        (`put`), _MISSING where that row is gone or damaged (computed again)."""
        if type(value) is not _InTask:
            return value
        last = self._last_task
        if last is None or last[0] != value.row:
            last = self._last_task = (value.row, self.get(value.row))
        facts = last[1]
        return facts.get(row, _MISSING) if isinstance(facts, dict) else _MISSING

    def put(self, rows: dict[bytes, Any]) -> None:
        """Write `rows` in one transaction (dropped whole when the file cannot be had)."""
        import pickle
        import sqlite3
        # A fact written with its task's row (MergeIndex.keep_task: the same value, its finish's)
        # is pickled once, there; its own row names that row (a finish pickled every fact twice:
        # +4.6 M instructions a task). A reader of the fact's row alone gets it from the task's.
        inside = {fact: key for key, value in rows.items() if key[:2] == _TASK_ROW and isinstance(value, dict)
                  for fact, held in value.items() if rows.get(fact) is held}
        data = [(key, pickle.dumps((_IN_TASK, inside[key]) if key in inside else (_TAG, value),
                                   protocol=pickle.HIGHEST_PROTOCOL))
                for key, value in rows.items()]
        self._last_task = None
        with self._lock:
            db = self._connect()
            if db is None:
                return
            try:
                with db:
                    db.execute("BEGIN IMMEDIATE")
                    db.executemany("INSERT OR REPLACE INTO symbols (key, value) VALUES (?, ?)", data)
            except sqlite3.DatabaseError as error:
                if not isinstance(error, sqlite3.OperationalError):
                    self._damaged()
            except sqlite3.Error:
                pass

    def prune(self, keep: int, dry_run: bool = False) -> int:
        """Remove the oldest rows past `keep`; how many went (would go)."""
        import sqlite3
        with self._lock:
            if not self.path.exists():
                return 0
            db = self._connect()
            if db is None:
                return 0
            try:
                if dry_run:
                    return max(0, db.execute("SELECT COUNT(*) FROM symbols").fetchone()[0] - keep)
                with db:
                    db.execute("BEGIN IMMEDIATE")
                    done = db.execute("DELETE FROM symbols WHERE rowid NOT IN "
                                      "(SELECT rowid FROM symbols ORDER BY rowid DESC LIMIT ?)", (keep,))
                    return max(0, done.rowcount)
            except sqlite3.DatabaseError as error:
                if not isinstance(error, sqlite3.OperationalError):
                    self._damaged()
                return 0
            except sqlite3.Error:
                return 0



# A symbols row's pickle: (_TAG, its value), or (_IN_TASK, the key of the task's row holding it).
_TAG = ("wtc-merge-index", FORMAT)
_IN_TASK = ("wtc-merge-index-in-task", FORMAT)
_TASK_ROW = b"\0t"   # the prefix of a task's row's key (_task_row)


class _InTask:
    """A row whose value its task's row holds (`_SymbolRows.put`): `row` is that row's key."""

    __slots__ = ("row",)

    def __init__(self, row: bytes):
        self.row = row


def _unpickle(data: bytes, stats: dict[str, int]) -> Any:
    """A symbols row's value (an `_InTask` where its task's row holds it), or _MISSING (damaged:
    counted; computed again)."""
    import pickle
    try:
        tag, value = pickle.loads(data)
        if tag == _IN_TASK and type(value) is bytes and value[:2] == _TASK_ROW:
            return _InTask(value)
        if tag != _TAG:
            raise ValueError("another format")
        return value
    except Exception:   # noqa: BLE001 - any damage means: not an entry; compute it again
        stats["corrupt"] += 1
        return _MISSING
