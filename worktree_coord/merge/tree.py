"""Tree level: resolve the conflicted entries of a tree merge, file by file, through `merge_file`.

Input: a pygit2 Repository and the conflicted entries of a tree merge, path -> (ancestor, ours,
theirs), each an `IndexEntry` (as in `Index.conflicts`), a blob id (`Oid` or hex string, as parsed
from `git merge-tree` stage lines; mode then defaults to a regular file), an `(id, mode)` pair, or
None when that side has no file. Output: path -> `ResolvedFile`: the `FileMerge` plus the mode to
write, or `mode=None` when the resolution is to delete the path.
Rules: deleted on both sides -> deleted; deleted on one side and unchanged on the other -> deleted;
deleted on one side and modified on the other -> conflict (the modified text is kept, never lost);
added on both sides -> merged against an empty base; symlinks and submodules are never merged
textually; a mode changed on both sides to different values is a conflict.

`check_tree_merge` runs the semantic check (semantic.py) over a finished tree merge: every file
either side changed that a language with a semantic query handles, base/ours/theirs/merged read
from the four trees, so a name one side removed in one file and the other side's new code uses in
another file is found, as well as within one file git merged cleanly and never offered here.
`check_merge` is the same check for a tree merge not written as a tree: the merged bytes of the
paths both sides changed are given, every other path is the side that changed it (the history
eval re-assembles the product's tree merge of a merge commit that way, writing nothing into the
repository it reads).
"""

from __future__ import annotations

import bisect
import functools
import itertools
import re
import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any, Callable, Iterable, Iterator

import pygit2

from ..frozen import value_class
from ..member_globs import tree_subfolders
from .result import FileMerge, MergeConflict, SemanticFinding, SemanticMode, Strategy
from .checks import disjoint
from .checks.import_paths import grouped_modules
from .checks.merge_index import MISSING, TABLES_EVERY, MergeIndex, shared_index
from .checks.pin_words import BlobWords, PinWords, git_words, mentioning
from .checks.module_index import ModuleTables
from .checks.semantic import PATH_FACTS, find_broken_names, kept_import_keys, module_fact, resolved_alone, semantic_profile
from .checks.symbols import IMPORTS_ONLY, extract, fingerprint
from .checks.tip_index import Imports, TipIndex, standing_words
from .checks.versions import MAX_BYTES
from .languages.profiles import Profile

_REGULAR = 0o100644
_READ_MODES = (0o100644, 0o100755)   # the modes the semantic check reads
_SPECIAL = (0o120000, 0o160000)


@value_class
class ResolvedFile:
    """How to write one path after the merge: `mode=None` means delete the path."""

    path: str
    merge: FileMerge
    mode: int | None

    @property
    def clean(self) -> bool:
        return self.merge.clean


def _side(entry: Any) -> tuple[str, int] | None:
    if entry is None:
        return None
    if isinstance(entry, tuple):
        oid, mode = entry
        return str(oid), int(mode)
    if hasattr(entry, "id") and hasattr(entry, "mode"):
        return str(entry.id), int(entry.mode)
    return str(entry), _REGULAR


def _conflict_whole(text: bytes, kind: str, ours: bytes, theirs: bytes, base: bytes, note: str) -> FileMerge:
    lines = max(1, text.count(b"\n"))
    decode = lambda data: data.decode("utf-8", "replace")  # noqa: E731
    conflict = MergeConflict(start_line=1, end_line=lines, kind=kind, base=decode(base), ours=decode(ours),
                             theirs=decode(theirs))
    return FileMerge(merged=text, clean=False, strategy=Strategy.TRIVIAL, conflicts=(conflict,), notes=(note,))


def resolve_conflicted_files(repo: pygit2.Repository, entries: Mapping[str, tuple[Any, Any, Any]], *,
                             labels: tuple[str, str, str] = ("ours", "base", "theirs"), marker_size: int = 7,
                             timeout: float = 10.0,
                             semantic: SemanticMode | str = SemanticMode.OFF) -> dict[str, ResolvedFile]:
    """Resolve every conflicted path; see the module docstring for the rules. The semantic check
    is off file by file by default: `check_tree_merge` over the merged tree sees the whole merge."""
    # Here, not at the module's import: a clean tree merge (most of a swarm's finishes) resolves no
    # file, and the cascade brings its line merge (ctypes), CST and structured stages (~10 ms a call).
    from .cascade import merge_file

    out: dict[str, ResolvedFile] = {}

    def blob(side: tuple[str, int] | None) -> bytes:
        return b"" if side is None else repo[side[0]].data

    for path, (ancestor, ours, theirs) in entries.items():
        a, o, t = _side(ancestor), _side(ours), _side(theirs)
        base_bytes, ours_bytes, theirs_bytes = blob(a), blob(o), blob(t)
        if o is None and t is None:
            out[path] = ResolvedFile(path, FileMerge(b"", True, Strategy.TRIVIAL), None)
            continue
        if o is None or t is None:
            kept, kept_bytes = (t, theirs_bytes) if o is None else (o, ours_bytes)
            if a is not None and kept[0] == a[0]:
                out[path] = ResolvedFile(path, FileMerge(b"", True, Strategy.TRIVIAL,
                                                         notes=("deleted on one side, unchanged on the other",)), None)
            else:
                who = "ours" if o is None else "theirs"
                out[path] = ResolvedFile(path, _conflict_whole(kept_bytes, "delete_modify", ours_bytes, theirs_bytes,
                                                               base_bytes, f"deleted in {who}, modified on the other side"),
                                         kept[1])
            continue
        base_mode = a[1] if a is not None else None
        mode = o[1] if t[1] == base_mode else (t[1] if o[1] == base_mode else (o[1] if o[1] == t[1] else None))
        if any(m in _SPECIAL for m in (o[1], t[1])):
            if o == t or (a is not None and t == a):
                out[path] = ResolvedFile(path, FileMerge(ours_bytes, True, Strategy.TRIVIAL), o[1])
            elif a is not None and o == a:
                out[path] = ResolvedFile(path, FileMerge(theirs_bytes, True, Strategy.TRIVIAL), t[1])
            else:
                out[path] = ResolvedFile(path, _conflict_whole(ours_bytes, "special_file", ours_bytes, theirs_bytes,
                                                               base_bytes, "symlink or submodule changed on both sides"), o[1])
            continue
        result = merge_file(base_bytes, ours_bytes, theirs_bytes, path, marker_size=marker_size, labels=labels,
                            timeout=timeout, semantic=semantic)
        if mode is None:
            conflict = MergeConflict(start_line=1, end_line=1, kind="mode", base=oct(base_mode or 0),
                                     ours=oct(o[1]), theirs=oct(t[1]))
            result = FileMerge(merged=result.merged, clean=False, strategy=result.strategy,
                               conflicts=result.conflicts + (conflict,), language=result.language,
                               notes=result.notes + ("file mode changed differently on both sides; kept ours",))
            mode = o[1]
        out[path] = ResolvedFile(path, result, mode)
    return out


def check_tree_merge(repo: pygit2.Repository, base: pygit2.Oid | str, ours: pygit2.Oid | str,
                     theirs: pygit2.Oid | str, merged: pygit2.Oid | str, *,
                     labels: tuple[str, str, str] = ("ours", "base", "theirs"),
                     index: MergeIndex | None = None, walk: bool = False) -> tuple[SemanticFinding, ...]:
    """The semantic findings of a tree merge: `base`, `ours`, `theirs`, `merged` are trees (or
    commits, peeled). Only regular files are checked; their versions are read when the check asks
    for them, so a big side's files the check never needs (most of integration's, against one task)
    cost a tree lookup and nothing more. `index` (merge_index.py; default: this process's memory)
    keeps symbols by content and each tip's changes from the base: the merge after this one, whose
    `ours` is this `merged`, finds base -> ours known, and files unchanged since, parsed; and the
    tables of ours' changed files (tip_index.py), so the pairing of files (reach.py) reads the
    theirs side's few and looks ours' up. `walk`: pass over every file instead (what tests compare
    the tables against)."""
    index = index if index is not None else shared_index()
    trees = [repo[_oid(x)].peel(pygit2.Tree) for x in (base, ours, theirs, merged)]
    # Three diffs from the base give every version's blob id: a path a diff does not list is as
    # it was at the base (no per-path tree lookups, which cost more than the check on big merges).
    # base -> ours (integration: all the run changed so far) comes from the index, and base ->
    # merged is it plus ours -> merged (the task's few files), kept for the next merge.
    diff = functools.partial(_changes, repo=repo)
    ours_changes, theirs_changes = index.changes(repo, trees[0], trees[1], diff), task_changes(repo, trees[0], trees[2], index)
    # A merge the fast path made (no path changed on both sides): ours -> merged is composed from
    # the two diffs above, not walked (disjoint.py).
    composed = disjoint.step(ours_changes, theirs_changes) \
        if disjoint.known(*(tree.id for tree in trees)) else None
    changes = [ours_changes, theirs_changes, index.advance(repo, trees[0], trees[1], trees[3], diff, step=composed)]
    try:
        tip, loose = (None, set()) if walk else _tip_tables(repo, index, trees, changes, ours, diff)
        views = None if walk else _tip_views(repo, index, trees[0], trees[1], changes[0])
        files, by_path = _tip_files(repo, changes, loose, views) if views is not None \
            else (_tree_files(repo, changes, loose=None if walk else loose), None)
        if not files:
            return ()
        mentions = _Mentions(repo, trees[0], trees[1], trees[2])
        return find_broken_names(files, labels=labels, mentions=mentions, tree_file=mentions.file,
                                 tree_folders=mentions.folders, index=index, tip=tip, loose=loose, readable=True,
                                 modules=None if views is None else views.module_tables, by_path=by_path,
                                 spelled=_spelled_in(repo, trees[0].id, trees[3].id, index))
    finally:
        index.settle()   # what the check computed, on disk for the next process (held by a drain)


def task_changes(repo: pygit2.Repository, base: pygit2.Tree, theirs: pygit2.Tree,
                 index: MergeIndex) -> dict[str, tuple[Side, Side]]:
    """base -> theirs (a task's own changes: path -> its two sides), walked once per pair of trees
    and kept in `index`'s memo: the post-merge check and the left-behind look of one merge both
    read it (check/left_behind.py). Shared, not copied: its readers do not change it. When walked,
    what the index keeps on disk of the task's versions is loaded in one query (`_prefetch`)."""
    def walk() -> dict[str, tuple[Side, Side]]:
        changes = _changes(base, theirs, repo=repo)
        _prefetch(index, changes)
        return changes
    return index.memo("task_changes", (base.id.raw, theirs.id.raw), walk)


def _prefetch(index: MergeIndex, changes: Mapping[str, tuple[Side, Side]]) -> None:
    """The symbols the index keeps on disk of every version of the task's changed files that a
    profile reads, loaded into its memory at once (MergeIndex.prefetch): what the task's finish
    computed (check/task_facts.py), which the check and the look of its merge then read, each
    without a query of its own (or, in a drain, an extraction again)."""
    if index.folder is None:
        return
    index.prefetch_edits((fingerprint(profile), *(None if oid is None else oid.raw for oid, _mode in sides))
                         for path, sides in changes.items() if (profile := semantic_profile(path)) is not None)


def _tip_tables(repo: pygit2.Repository, index: MergeIndex, trees: list[pygit2.Tree],
                changes: list[dict[str, tuple[Side, Side]]], ours: pygit2.Oid | str | None = None,
                diff: Any = None) -> tuple[TipIndex, set[str]]:
    """Ours' tables (tip_index.py) and the paths they do not answer for: those theirs changed
    and those the merge changed on ours' side (conflicts resolved, both sides' edits)."""
    step = index.step(trees[0], trees[3])
    diff = diff or functools.partial(_changes, repo=repo)
    moved = step[1] if step is not None and step[0] == str(trees[1].id) else diff(trees[1], trees[3])

    def read_words(oid: pygit2.Oid) -> tuple[frozenset[bytes], frozenset[bytes]]:
        return index.memo("words", oid.raw, lambda: standing_words(repo[oid].data))

    def read_imports(path: str, oid: pygit2.Oid) -> Imports | None:
        profile = semantic_profile(path)
        assert profile is not None
        return index.memo("imports", (id(profile), oid.raw, path), lambda: _imports(repo, index, profile, oid, path))

    def read_modules(path: str, oid: pygit2.Oid) -> frozenset[str]:
        profile = semantic_profile(path)
        assert profile is not None
        return index.memo("modules", (id(profile), oid.raw), lambda: _modules(repo, index, profile, oid))

    tip = index.tip_tables(trees[0], trees[1],
                           lambda: TipIndex.build(PATH_FACTS, read_words, read_imports, changes[0], read_modules),
                           lambda previous, steps, take: previous.derive(steps, changes[0], take),
                           dump=TipIndex.dump,
                           load=lambda value: TipIndex.load(PATH_FACTS, read_words, read_imports, value, read_modules),
                           ancestors=_first_parents(repo, ours, TABLES_EVERY) if ours is not None else (),
                           diff=diff)
    return tip, set(changes[1]) | set(moved)


def _first_parents(repo: pygit2.Repository, commit: pygit2.Oid | str, count: int) -> Iterator[pygit2.Tree]:
    """The trees of `commit`'s first parents, nearest first, at most `count` (none for a tree):
    the integration tips before this one, whose tables another process may have written."""
    current = repo[_oid(commit)]
    for _ in range(count):
        if not isinstance(current, pygit2.Commit) or not current.parent_ids:
            return
        current = repo[current.parent_ids[0]]
        yield current.peel(pygit2.Tree)


def _imports(repo: pygit2.Repository, index: MergeIndex, profile: Profile, oid: pygit2.Oid,
             path: str) -> Imports | None:
    """What `path`'s version `oid` imports can pass on (tip_index.Imports), from the symbols the
    check reads of it (semantic._Check.imports: kept ones first, else its imports parsed), with the
    keys its imports are answered from where those alone answer them; None: none."""
    found = _import_symbols(repo, index, profile, oid, binary=False)
    if found is None:
        return None
    rules = profile.semantic
    return (any(item.name is None and item.scope is None for item in found.imports),
            frozenset(item.bound for item in found.imports if item.name is not None),
            kept_import_keys(found, path, oid.raw, rules) if resolved_alone(rules) else None)


def _modules(repo: pygit2.Repository, index: MergeIndex, profile: Profile, oid: pygit2.Oid) -> frozenset[str]:
    """The modules `oid` imports at its top level, as the import-path check reads its imports
    (semantic._Check.imports: a file holding a NUL byte is read; none when it does not parse
    cleanly or is too big): tip_index.TipIndex's `imported`."""
    found = _import_symbols(repo, index, profile, oid, binary=True)
    return frozenset() if found is None else frozenset(
        item.module for item in found.imports if item.scope is None and item.module)


def _import_symbols(repo: pygit2.Repository, index: MergeIndex, profile: Profile, oid: pygit2.Oid, *,
                    binary: bool) -> Any:
    """The symbols of `oid` whose imports are whole (kept ones first, else its imports parsed and
    kept by content); None: it does not parse cleanly, is too big, or (`binary` False) holds a NUL
    byte in its first 8,000."""
    key = fingerprint(profile)
    found = index.known_symbols(key, oid.raw, (True, False, IMPORTS_ONLY))
    if found is MISSING:
        data = repo[oid].data
        if len(data) > MAX_BYTES or (not binary and b"\x00" in data[:8000]):
            return None

        def compute() -> Any:
            parsed = profile.parse(data)
            return None if parsed.root_node.has_error else extract(profile, data, parsed, imports_only=True)

        found = index.symbols(key, data, IMPORTS_ONLY, compute)
    return found


def files_mentioning(repo: pygit2.Repository, pin: pygit2.Oid | str, where: pygit2.Oid | str,
                     words: Iterable[str], index: MergeIndex | None = None) -> list[str] | None:
    """The files of `where` (a tree or commit) holding one of `words` as a whole word, in path
    order, as `git grep -lwF` lists them, from the word index of `pin` (built once per pin, kept
    in `index` and on disk: pin_words.py) and the paths `where` changed from it (a merged tree:
    known to the index when the check ran on it). None: not answered here (a word git grep's
    word characters do not make up alone, a path that is not UTF-8, a blob missing from a
    partial clone): grep instead."""
    index = index if index is not None else shared_index()
    trees = [repo[_oid(x)].peel(pygit2.Tree) for x in (pin, where)]
    words = list(words)
    if not words:
        return []
    try:
        table = index.pin_words(trees[0], lambda: PinWords.build(repo, trees[0]), PinWords.dump, PinWords.load)
        changes = index.changes(repo, trees[0], trees[1], functools.partial(_changes, repo=repo))
        # The changed blobs' words kept by word across the drain's lookups (one per process, per index).
        pin_id = str(trees[0].id)

        def step() -> tuple[tuple[str, str], Any] | None:
            found = index.step(trees[0], trees[1])   # (the tip the merge was made onto, its changes)
            return None if found is None else ((pin_id, found[0]), found[1])
        return mentioning(table, changes, words, lambda oid: git_words(repo[oid].data),
                          (index.memo("blob_words", None, BlobWords), (pin_id, str(trees[1].id)), step))
    except (KeyError, UnicodeDecodeError):
        return None


def _spelled_in(repo: pygit2.Repository, base: pygit2.Oid, merged: pygit2.Oid,
                index: MergeIndex) -> Callable[[str], list[str] | None]:
    """`spelled(word)` for the semantic check: the files of the merged tree holding `word`, from the
    base's word index and the paths the merge changed (`files_mentioning`; None where that does not
    answer). Asked only of a removed member a new use names on a receiver of unknown class (the one
    definer's reading, sole_members.py), never a pass of its own over the tree; kept per word."""
    kept: dict[str, list[str] | None] = {}

    def spelled(word: str) -> list[str] | None:
        if word not in kept:
            kept[word] = files_mentioning(repo, base, merged, [word], index=index)
        return kept[word]
    return spelled


def changed_on_both_sides(repo: pygit2.Repository, base: pygit2.Oid | str, ours: pygit2.Oid | str,
                          theirs: pygit2.Oid | str) -> dict[str, tuple[pygit2.Oid | None, pygit2.Oid | None,
                                                                      pygit2.Oid | None]]:
    """path -> (base, ours, theirs) blob ids (None: absent) of every regular file both sides
    changed, to different contents, that the semantic check reads: the paths `check_merge` needs
    merged bytes for."""
    trees = [repo[_oid(x)].peel(pygit2.Tree) for x in (base, ours, theirs)]
    left, right = (_changes(trees[0], tree) for tree in trees[1:])
    out = {}
    for path in sorted(set(left) & set(right)):
        if semantic_profile(path) is None or left[path][1] == right[path][1]:
            continue
        sides = (left[path][0], left[path][1], right[path][1])
        if all(oid is None or mode in (0o100644, 0o100755) for oid, mode in sides):
            out[path] = tuple(oid for oid, _ in sides)
    return out  # type: ignore[return-value]


def check_merge(repo: pygit2.Repository, base: pygit2.Oid | str, ours: pygit2.Oid | str, theirs: pygit2.Oid | str,
                merged: Mapping[str, bytes | None], *,
                labels: tuple[str, str, str] = ("ours", "base", "theirs")) -> tuple[SemanticFinding, ...]:
    """`check_tree_merge` for a merge not written as a tree: `merged` holds the merged bytes (None:
    deleted) of every path `changed_on_both_sides` lists; a path one side changed is that side's
    version, as in any tree merge. A path both sides changed that `merged` lacks is an error."""
    trees = [repo[_oid(x)].peel(pygit2.Tree) for x in (base, ours, theirs)]
    left, right = (_changes(trees[0], tree) for tree in trees[1:])
    merged_sides: dict[str, tuple[Side, Side]] = {}
    given: dict[str, bytes | None] = {}
    for path in set(left) | set(right):
        if path in left and path in right and left[path][1] != right[path][1] and semantic_profile(path) is not None:
            if path not in merged:
                raise ValueError(f"{path}: changed on both sides, and no merged bytes given for it "
                                 "(give every path changed_on_both_sides lists)")
            given[path] = merged[path]
            merged_sides[path] = (left[path][0], (None, 0))   # the merged version is given below
        else:
            merged_sides[path] = left[path] if path in left else right[path]
    files = _tree_files(repo, [left, right, merged_sides], given)
    if not files:
        return ()
    mentions = _Mentions(repo, trees[0], trees[1], trees[2])
    return find_broken_names(files, labels=labels, mentions=mentions, tree_file=mentions.file,
                             tree_folders=mentions.folders)


def _tree_files(repo: pygit2.Repository, changes: list[dict[str, tuple[Side, Side]]],
                given: Mapping[str, bytes | None] | None = None,
                loose: set[str] | None = None, tip_views: "_Views | None" = None) -> list["_TreeFile"]:
    """The semantic check's view of each regular file that ours or theirs changed (`changes`: the
    diffs base -> ours, base -> theirs, base -> merged), in path order; `given`: merged bytes
    known already. `loose` (a tip's merge, _tip_tables): every path of base -> ours outside it is
    as the base on theirs' side and as ours in the merged tree, so its four versions are known
    from one diff: its view is a function of its two sides, and `tip_views` (_tip_views: the
    tip's views, kept from one merge of a drain to the next) gives it, instead of a pass over
    every path the run changed."""
    given = given or {}
    if tip_views is not None and loose is not None:
        return _tip_files(repo, changes, loose, tip_views, given)[0]
    paths = sorted(p for p in set(changes[0]) | set(changes[1]) if semantic_profile(p) is not None)
    if loose is None:
        return _own_files(repo, changes, paths, given)
    ours = changes[0]
    files = []
    for path in paths:
        if path in loose:
            files += _own_files(repo, changes, [path], given)
        elif (view := _view(repo, path, ours[path])) is not None:
            files.append(view)
    return files


def _tip_files(repo: pygit2.Repository, changes: list[dict[str, tuple[Side, Side]]], loose: set[str],
               tip_views: "_Views", given: Mapping[str, bytes | None] | None = None
               ) -> tuple[list["_TreeFile"], dict[str, "_TreeFile"]]:
    """_tree_files of a tip's merge (`loose`, `tip_views`: as there), and the same views by path:
    the tip's views less the merge's own paths, which are made here. Both are the tip's copied
    and edited by the merge's few paths, not a pass over every file the run changed: the list in
    path order, the mapping in no particular order (a copy of the tip's, whose copy is one block
    of memory; a mapping built from the list's 5,000 files at the end of a 1,000-task drain took
    0.5 ms a merge, the copy 0.04). semantic._Check reads files by path from it, and in path order
    from the list's order where it goes over all of them (`_Check.in_order`)."""
    given = given or {}
    paths, files, by_path = list(tip_views.paths), list(tip_views.files), dict(tip_views.views)
    for path in loose:
        if by_path.pop(path, None) is not None:
            at = bisect.bisect_left(paths, path)
            del paths[at], files[at]
    own = sorted(path for path in loose if (path in changes[0] or path in changes[1])
                 and semantic_profile(path) is not None)
    for view in _own_files(repo, changes, own, given):
        at = bisect.bisect_left(paths, view.path)
        paths.insert(at, view.path)
        files.insert(at, view)
        by_path[view.path] = view
    return files, by_path


def _own_files(repo: pygit2.Repository, changes: list[dict[str, tuple[Side, Side]]], paths: Iterable[str],
               given: Mapping[str, bytes | None]) -> list["_TreeFile"]:
    """_tree_files' views of `paths` (in that order), each from the three diffs."""
    files = []
    for path in paths:
        base_side = next((c[path][0] for c in changes if path in c), (None, _REGULAR))
        versions = [base_side] + [c.get(path, (None, base_side))[1] for c in changes]
        if path in given:
            versions[3] = (None, _REGULAR)
        if all(oid is None or mode in (0o100644, 0o100755) for oid, mode in versions):
            files.append(_TreeFile(repo, path, [oid for oid, _ in versions],
                                   merged=given[path] if path in given else _UNSET))
    return files


def _view(repo: pygit2.Repository, path: str, sides: tuple["Side", "Side"]) -> "_TreeFile | None":
    """The view of a tip's file outside the merge's own: the pin's on the base and theirs' side,
    the tip's on ours' and in the merged tree (None: a side the check does not read)."""
    (base_id, base_mode), (ours_id, ours_mode) = sides
    if (base_id is None or base_mode in _READ_MODES) and (ours_id is None or ours_mode in _READ_MODES):
        return _TreeFile(repo, path, [base_id, ours_id, base_id, ours_id])
    return None


class _Views:
    """A tip's views (_tip_views): the paths of the tip's changed files the check reads, in
    order, their views alongside, and path -> view; and, made when a check first asks, the module
    index of those paths per language's rules (module_index.ModuleTables)."""

    __slots__ = ("paths", "files", "views", "modules")

    def __init__(self, paths: list[str], files: list["_TreeFile"], views: dict[str, "_TreeFile"] | None = None,
                 modules: dict[int, tuple[Any, ModuleTables]] | None = None):
        self.paths, self.files = paths, files
        self.views = dict(zip(paths, files)) if views is None else views
        self.modules = {} if modules is None else modules   # id(rules) -> (rules, tables)

    def module_tables(self, rules: Any, facts: Callable[[str], Any]) -> ModuleTables:
        """The module index of these paths by `rules` (`facts`: a path's module under them)."""
        kept = self.modules.get(id(rules))
        if kept is None or kept[0] is not rules:
            kept = self.modules[id(rules)] = (rules, ModuleTables.build(self.paths, facts))
        return kept[1]


def _tip_views(repo: pygit2.Repository, index: MergeIndex, pin: pygit2.Tree, tip: pygit2.Tree,
               ours: dict[str, tuple["Side", "Side"]]) -> _Views:
    """The check's view of each file the tip changed from the pin (`ours`: that diff) that the
    check reads, by path, kept in `index` per (pin, tip): the next tip's are this one's with the
    paths the merge changed (MergeIndex.step) made again, so a merge costs the files it changed,
    not a pass over all the run changed (0.3 ms a merge at the start of a 200-task drain, 0.8 at
    its end, before). A view is a function of its path's two sides, as a full pass makes it."""
    key = (str(pin.id), str(tip.id))
    found = index.tip_views(repo, key)
    if found is not None:
        return found
    step = index.step(pin, tip)
    previous = index.tip_views(repo, (key[0], step[0])) if step is not None else None
    if previous is not None and step is not None:
        paths, files, views = list(previous.paths), list(previous.files), dict(previous.views)
        removed, added = set(), set()
        for path in step[1]:
            if semantic_profile(path) is None:
                continue
            if views.pop(path, None) is not None:
                at = bisect.bisect_left(paths, path)
                del paths[at], files[at]
                removed.add(path)
            view = _view(repo, path, ours[path]) if path in ours else None
            if view is not None:
                at = bisect.bisect_left(paths, path)
                paths.insert(at, path)
                files.insert(at, view)
                views[path] = view
                added.add(path)
        # The module index depends on the paths alone: derived by those that came or went.
        modules = {key: (rules, tables.derived(sorted(removed - added), sorted(added - removed),
                                               functools.partial(module_fact, rules=rules)))
                   for key, (rules, tables) in previous.modules.items()}
        found = _Views(paths, files, views, modules)
    else:
        paths, files = [], []
        for path in sorted(path for path in ours if semantic_profile(path) is not None):
            if (view := _view(repo, path, ours[path])) is not None:
                paths.append(path)
                files.append(view)
        found = _Views(paths, files)
    index.keep_tip_views(repo, key, found)
    return found


Side = tuple[pygit2.Oid | None, int]   # a path's blob id (None: absent) and mode in one tree
_UNSET = object()                       # _TreeFile: the merged version is read from its blob id


def _changes(old: pygit2.Tree, new: pygit2.Tree, repo: pygit2.Repository | None = None
             ) -> dict[str, tuple[Side, Side]]:
    """path -> (its side in `old`, its side in `new`) for every path the trees differ on (a file
    that became a folder: the file deleted, the folder's files added). With `repo` (the trees'),
    walked here, descending only into subtrees whose ids differ: libgit2's `diff_to_tree` (used
    without it) cost grew with the repository (5 ms against 0.6 ms for the same one-package diff
    at 50,000 files against 5,000, in bench_merge's repositories), this walk with what differs
    (0.4 ms). Both list the same paths and sides (tests/merge/test_tip_index.py)."""
    out: dict[str, tuple[Side, Side]] = {}
    if repo is not None:
        _walk_raw(repo, old.id, new.id, "", out)
        return out
    for delta in old.diff_to_tree(new).deltas:
        before = (delta.old_file.id, delta.old_file.mode) if delta.status != pygit2.GIT_DELTA_ADDED else (None, 0)
        after = (delta.new_file.id, delta.new_file.mode) if delta.status != pygit2.GIT_DELTA_DELETED else (None, 0)
        out[delta.new_file.path or delta.old_file.path] = (before, after)
    return out


_NONE: Side = (None, 0)


def _walk_changes(repo: pygit2.Repository, old: pygit2.Tree | None, new: pygit2.Tree | None, prefix: str,
                  out: dict[str, tuple[Side, Side]]) -> None:
    before = {entry.name: entry for entry in old} if old is not None else {}
    after = {entry.name: entry for entry in new} if new is not None else {}
    for name in sorted(before.keys() | after.keys()):
        was, now = before.get(name), after.get(name)
        # Types first: a tree entry's mode is the one a tree has, and reading `filemode` builds an
        # enum (a microsecond an entry, most of a walk over a 200-folder level otherwise).
        was_tree = was is not None and was.type_str == "tree"
        now_tree = now is not None and now.type_str == "tree"
        if was is not None and now is not None and was.id == now.id and (was_tree or was.filemode == now.filemode):
            continue
        path = prefix + name
        if was_tree or now_tree:
            if was is not None and not was_tree:
                out[path] = ((was.id, was.filemode), _NONE)   # a file that became a folder
            if now is not None and not now_tree:
                out[path] = (_NONE, (now.id, now.filemode))   # a folder that became a file
            _walk_changes(repo, repo[was.id] if was_tree else None, repo[now.id] if now_tree else None,  # type: ignore[union-attr]
                          path + "/", out)
        elif was is not None and now is not None and _kind(was.filemode) != _kind(now.filemode):
            # A file that became a symlink (or a submodule): git's diff lists it deleted, then
            # added; the later row is the one kept.
            out[path] = (_NONE, (now.id, now.filemode))
        else:
            out[path] = ((was.id, was.filemode) if was is not None else _NONE,
                         (now.id, now.filemode) if now is not None else _NONE)


_TREE_MODE = 0o040000
_RAW_ENTRY = re.compile(rb"[0-7]+ [^\0]+\0.{20}", re.S)   # one entry of a tree object: mode, name, raw id
_RAW_SETS: "OrderedDict[pygit2.Oid, frozenset[bytes]]" = OrderedDict()
_RAW_KEPT = 512
_raw_lock = threading.Lock()


def _raw_set(repo: pygit2.Repository, tree_id: pygit2.Oid | None) -> frozenset[bytes]:
    """A tree's entries as the bytes the tree object holds them in, kept for the trees walked last
    (by id: the same in any repository; a drain walks the pin's folders and each merge's result,
    the next merge's tip, again)."""
    if tree_id is None:
        return frozenset()
    with _raw_lock:
        found = _RAW_SETS.get(tree_id)
        if found is not None:
            _RAW_SETS.move_to_end(tree_id)
            return found
    found = frozenset(_RAW_ENTRY.findall(repo[tree_id].read_raw()))
    with _raw_lock:
        _RAW_SETS[tree_id] = found
        while len(_RAW_SETS) > _RAW_KEPT:
            _RAW_SETS.popitem(last=False)
    return found


def _raw_rows(entries: Iterable[bytes]) -> dict[str, tuple[int, bytes]]:
    """name -> (mode, raw id) of tree entries' bytes (UnicodeDecodeError: a name not UTF-8)."""
    out = {}
    for entry in entries:
        space = entry.index(b" ")
        out[entry[space + 1:-21].decode("utf-8")] = (int(entry[:space], 8), entry[-20:])
    return out


def _walk_raw(repo: pygit2.Repository, old: pygit2.Oid | None, new: pygit2.Oid | None, prefix: str,
              out: dict[str, tuple[Side, Side]]) -> None:
    """_walk_changes from the tree objects' bytes: the entries both trees hold alike are told apart
    as a set difference, without an entry object each (most of a 200-folder level); the rows are
    the same, in the same order. A name that is not UTF-8 is walked through pygit2's entries."""
    before, after = _raw_set(repo, old), _raw_set(repo, new)
    differ = before ^ after
    if not differ:
        return
    try:
        was_rows, now_rows = _raw_rows(before & differ), _raw_rows(after & differ)
    except UnicodeDecodeError:
        _walk_changes(repo, repo[old] if old is not None else None, repo[new] if new is not None else None, prefix, out)
        return
    oid = pygit2.Oid
    for name in sorted(was_rows.keys() | now_rows.keys()):
        was, now = was_rows.get(name), now_rows.get(name)
        was_tree = was is not None and was[0] == _TREE_MODE
        now_tree = now is not None and now[0] == _TREE_MODE
        path = prefix + name
        if was_tree or now_tree:
            if was is not None and not was_tree:
                out[path] = ((oid(raw=was[1]), was[0]), _NONE)   # a file that became a folder
            if now is not None and not now_tree:
                out[path] = (_NONE, (oid(raw=now[1]), now[0]))   # a folder that became a file
            _walk_raw(repo, oid(raw=was[1]) if was_tree else None, oid(raw=now[1]) if now_tree else None,  # type: ignore[index]
                      path + "/", out)
        elif was is not None and now is not None and _kind(was[0]) != _kind(now[0]):
            out[path] = (_NONE, (oid(raw=now[1]), now[0]))   # a file that became a symlink (git: deleted, added)
        else:
            out[path] = ((oid(raw=was[1]), was[0]) if was is not None else _NONE,
                         (oid(raw=now[1]), now[0]) if now is not None else _NONE)


def _kind(mode: int) -> int:
    return 0o100000 if mode in (0o100644, 0o100755) else mode


# (tree id, path) of paths that hold no regular file in that tree, kept across checks: every check of
# a drain reads the pin's tree as "base", and locating an import's module (reexports.py: `os`,
# `.mod000` from each folder up to the root, each with its source folders and file patterns) tries
# many paths that are no file there, each a failed tree lookup, at every merge, for every user a
# check asks about. A tree id names its content, so an entry is never stale; the set is dropped
# whole past ABSENT_KEPT entries.
_ABSENT: set[tuple[bytes, str]] = set()
ABSENT_KEPT = 1 << 18
# module -> (path, blob id) of a file found naming it (_Mentions): any tree holding that blob at that
# path names it. Dropped whole past WITNESSES_KEPT.
_WITNESSES: dict[str, tuple[str, pygit2.Oid]] = {}
WITNESSES_KEPT = 1 << 16


def _entry(tree: pygit2.Tree, path: str) -> pygit2.Object:
    """`tree`'s entry at `path` (KeyError: none): the one lookup `_Mentions.file` makes."""
    return tree[path]


class _Mentions:
    """`mentions(side, modules)` for the import-path check (import_paths.py): which of the modules
    some file of that side's whole tree (a file a semantic profile reads) names, as a whole word of a
    path (so `javax.servlet` is in `javax.servlet.http.Cookie`, and `example.com/mod` is not in
    `example.com/mod/v2`), or, in a language that groups imports under a `::` path (Rust), inside
    a group (`use std::{io, ops::Deref}` names std::ops: `import_paths.grouped_modules`). One pass
    over the tree answers every module asked at once, and stops as soon as each is found: a side
    that replaced many modules (a vendored tree moved) costs one read of its files, not one per
    module (cortex 531e91f084: 850,000 object reads before). Answers are kept for the next
    question. `file(which, path)` reads one file of the base or a side's tree (the manifests),
    `folders(which, path)` lists one folder's subfolders (a workspace's package folders).
    A module found in a file is kept with that file's path and blob (`_WITNESSES`): a later tree
    holding the same blob at that path names it too, told by one lookup, not a pass (a drain's
    tips, one merge apart, are asked of the same modules at every merge: `os`, the package's own).
    The files a caller names `first` (the importing files: a module a file imports where it did
    before is named there) are read before the pass."""

    def __init__(self, repo: pygit2.Repository, base: pygit2.Tree, ours: pygit2.Tree, theirs: pygit2.Tree):
        self._repo = repo
        self._trees = {"base": base, "left": ours, "right": theirs}
        self._blobs: dict[str, list[tuple[str, pygit2.Oid, str]]] = {}
        self._known: dict[tuple[str, str], bool] = {}
        self._read: dict[tuple[str, str], bytes | None] = {}
        # The base tree by its id: what is answered from it alone may be kept across checks
        # (reexports.ReExports._leads), as the paths it lacks are (_ABSENT).
        self.base_key = base.id.raw

    def __call__(self, side: str, modules: Iterable[str], first: Iterable[str] = ()) -> set[str]:
        """`first`: paths looked at before the pass (the files importing the modules: a module a
        side still imports where it did is found there, not after a pass over the tree)."""
        modules = list(modules)
        wanted = {module for module in modules if (side, module) not in self._known}
        for module in list(wanted):
            witness = _WITNESSES.get(module)
            if witness is not None and self._holds(side, *witness):
                self._known[(side, module)] = True
                wanted.discard(module)
        if wanted:
            patterns = {module: re.compile(rb"(?<![\w/.-])" + re.escape(module.encode()) + rb"(?![\w/-])")
                        for module in wanted}
            for path, oid, separator in itertools.chain(self._firsts(side, first), self._files(side)):
                wanted -= self._look(side, path, oid, separator, wanted, patterns)
                if not wanted:
                    break
            for module in wanted:
                self._known[(side, module)] = False
        return {module for module in modules if self._known[(side, module)]}

    def _look(self, side: str, path: str, oid: pygit2.Oid, separator: str, wanted: set[str],
              patterns: dict[str, re.Pattern[bytes]]) -> set[str]:
        """The modules of `wanted` the side's file names (each kept as known, with its witness)."""
        data = self._repo[oid].data
        found = {module for module in wanted
                 if module.encode() in data and patterns[module].search(data) is not None}
        # `use std::{io, ops::Deref}` mentions std::ops without spelling it.
        found |= grouped_modules(data, wanted - found, separator)
        for module in found:
            self._known[(side, module)] = True
            if len(_WITNESSES) >= WITNESSES_KEPT:
                _WITNESSES.clear()
            _WITNESSES[module] = (path, oid)
        return found

    def _firsts(self, side: str, paths: Iterable[str]) -> Iterator[tuple[str, pygit2.Oid, str]]:
        """`paths` as the side's tree holds them (a file a semantic profile reads), as `_files` lists them."""
        for path in paths:
            profile = semantic_profile(path)
            if profile is None:
                continue
            try:
                entry = _entry(self._trees[side], path)
            except KeyError:
                continue
            if entry.type_str == "blob":
                yield path, entry.id, profile.semantic.module_separator

    def _holds(self, side: str, path: str, oid: pygit2.Oid) -> bool:
        """Whether the side's tree holds blob `oid` at `path` (what the pass would read there)."""
        try:
            entry = _entry(self._trees[side], path)
        except KeyError:
            return False
        return entry.id == oid and entry.type_str == "blob"

    def _files(self, side: str) -> Iterator[tuple[str, pygit2.Oid, str]]:
        """The paths, blob ids (and module separators) of the side's files a semantic profile reads,
        walked lazily (a search that finds its modules early reads a few trees) and kept once walked
        to the end."""
        if side in self._blobs:
            yield from self._blobs[side]
            return
        found: list[tuple[str, pygit2.Oid, str]] = []
        stack: list[tuple[str, pygit2.Tree]] = [("", self._trees[side])]
        while stack:
            prefix, tree = stack.pop()
            for entry in tree:
                path = prefix + entry.name
                if entry.type_str == "tree":
                    stack.append((path + "/", self._repo[entry.id]))
                elif entry.type_str == "blob":
                    profile = semantic_profile(path)
                    if profile is not None:
                        found.append((path, entry.id, profile.semantic.module_separator))
                        yield found[-1]
        self._blobs[side] = found   # only reached when walked to the end

    def file(self, which: str, path: str) -> bytes | None:
        """The bytes of `path` in the base, left or right tree (None: no such regular file there):
        the import-path check reads manifests through it (dependencies.py)."""
        key = (which, path)
        if key not in self._read:
            tree = self._trees[which]
            absent = (tree.id.raw, path)
            if absent in _ABSENT:
                self._read[key] = None
                return None
            try:
                found = self._repo[_entry(tree, path).id]
            except KeyError:
                found = None
            self._read[key] = found.data if isinstance(found, pygit2.Blob) else None
            if self._read[key] is None:
                if len(_ABSENT) >= ABSENT_KEPT:
                    _ABSENT.clear()
                _ABSENT.add(absent)
        return self._read[key]

    def folders(self, which: str, path: str) -> list[str] | None:
        """The names of the subfolders of `path` ("" the root) in the base, left or right tree (None:
        no such folder there): the semantic check expands a workspace's globs through it."""
        tree = self._trees.get(which)
        return None if tree is None else tree_subfolders(tree, path)


class _TreeFile:
    """One file of a tree merge for the semantic check (semantic.Versions), read on first use."""

    _NAMES = ("base", "left", "right", "merged")

    def __init__(self, repo: pygit2.Repository, path: str, ids: list[pygit2.Oid | None],
                 merged: bytes | None | object = _UNSET):
        self.path = path
        self._repo = repo
        self._ids: dict[str, object] = dict(zip(self._NAMES, ids))
        self._data: dict[str, bytes | None] = {}
        if merged is not _UNSET:   # merged bytes given (not in the repository): never compared by id
            self._ids["merged"] = None if merged is None else object()
            self._data["merged"] = merged  # type: ignore[assignment]

    def version(self, which: str) -> bytes | None:
        data = self._data.get(which, _UNSET)
        if data is not _UNSET:
            return data  # type: ignore[return-value]
        if which not in self._data:
            oid = self._ids[which]
            same = next((w for w, known in self._ids.items() if known == oid and w in self._data), None)
            self._data[which] = (self._data[same] if same else self._repo[oid].data) if oid is not None else None
        return self._data[which]

    def exists(self, which: str) -> bool:
        return self._ids[which] is not None

    def blob_id(self, which: str) -> bytes | None:
        """The git id (raw) of one version, None when absent or given as bytes: a key for what is
        kept by content (merge_index.py), known without reading the blob."""
        oid = self._ids[which]
        return oid.raw if isinstance(oid, pygit2.Oid) else None

    def same(self, one: str, other: str) -> bool:
        return self._ids[one] == self._ids[other]

    @property
    def base(self) -> bytes | None:
        return self.version("base")

    @property
    def merged(self) -> bytes | None:
        return self.version("merged")


def _oid(value: pygit2.Oid | str) -> pygit2.Oid:
    return value if isinstance(value, pygit2.Oid) else pygit2.Oid(hex=str(value))
