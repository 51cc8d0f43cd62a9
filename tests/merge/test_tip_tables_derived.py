"""A tip's tables derived from the previous tip's (tip_index.TipIndex.derive: an edited file's
words that came or went updated in place, a new or deleted file added or removed whole) hold what
tables built from scratch for that tip hold, at every merge of a drain (tests/merge/test_tip_index.py's:
edits, deletions, renames, a mode-only change, barrels whose imports are read), copied on write or
taken over, with the imports unread and read."""

from __future__ import annotations

import functools
import marshal
from pathlib import Path

import pygit2
import pytest

from tests.merge.test_tip_index import _drain
from worktree_coord.merge.checks.merge_index import MergeIndex
from worktree_coord.merge.checks.semantic import PATH_FACTS
from worktree_coord.merge.checks.reach import words
from worktree_coord.merge.checks.tip_index import TipIndex, standing_words
from worktree_coord.merge.tree import _changes, _imports, _modules
from worktree_coord.merge.checks.semantic import semantic_profile

_TABLES = ("words", "dirty", "grams", "importers", "bound", "keyed", "directories", "tokens", "modules", "wide",
           "imported", "module_words")


def _state(tip: TipIndex) -> dict:
    out = {name: {key: set(paths) for key, paths in getattr(tip, name).data.items()} for name in _TABLES}
    out.update(records=dict(tip.records), users=list(tip.users), barrel_users=list(tip.barrel_users),
               user_dirs=list(tip.user_dirs), split_tokens=dict(tip.split_tokens), whole_tokens=tip.whole_tokens,
               candidates=tip.candidates, module_sets=dict(tip.module_sets), modules_unread=set(tip.modules_unread))
    return out


def _blobs(repo: pygit2.Repository, tree: pygit2.Tree) -> list[pygit2.Oid]:
    return [oid for entry in tree for oid in (
        _blobs(repo, repo[entry.id]) if entry.type_str == "tree" else [entry.id])]


@pytest.mark.parametrize("take", [False, True])
@pytest.mark.parametrize("imports_read", [False, True])
def test_derived_tables_equal_built_ones_over_a_drain(tmp_path: Path, take: bool, imports_read: bool) -> None:
    repo, merges = _drain(tmp_path)
    index = MergeIndex()
    diff = functools.partial(_changes, repo=repo)

    def read_words(oid: pygit2.Oid):
        return standing_words(repo[oid].data)

    def read_imports(path: str, oid: pygit2.Oid):
        return _imports(repo, index, semantic_profile(path), oid, path)

    def read_modules(path: str, oid: pygit2.Oid):
        return _modules(repo, index, semantic_profile(path), oid)

    def built(changes: dict) -> TipIndex:
        tip = TipIndex.build(PATH_FACTS, read_words, read_imports, changes, read_modules)
        if imports_read:
            tip._read_all_imports()
            tip.importing_modules(frozenset(), budget=len(tip.records))   # every file's modules read
        return tip

    answered = False
    pin = repo[merges[0][0]].peel(pygit2.Tree)
    current = built(index.changes(repo, pin, repo[merges[0][1]].peel(pygit2.Tree), diff))
    for _, tip, _, merged in merges:
        tip_tree, merged_tree = repo[tip].peel(pygit2.Tree), repo[merged].peel(pygit2.Tree)
        after = index.advance(repo, pin, tip_tree, merged_tree, diff)
        step = diff(tip_tree, merged_tree)
        previous = _state(current)
        derived = current.derive(step, after, take)
        if imports_read:
            derived.importing_modules(frozenset(), budget=len(step))   # the merge's own files' modules read
        if not take:
            assert _state(current) == previous   # copied on write: the older tip's tables are whole
        fresh = built(after)
        assert _state(derived) == _state(fresh)
        assert derived.foreign >= fresh.foreign   # only grows: a superset keeps lookups exact
        if imports_read:
            # the modules the tip's files import that a text can import, as a pass over the files
            # finds them, for the words of each file of the merged tree; and the same after a
            # write and a read of the tables
            loaded = TipIndex.load(PATH_FACTS, read_words, read_imports, marshal.loads(marshal.dumps(derived.dump())),
                                   read_modules)
            assert _state(loaded) == _state(derived)
            for held in [words(repo[oid].data) for oid in _blobs(repo, merged_tree)] + [frozenset()]:
                every = {module for found in derived.module_sets.values() for module in found  # type: ignore[union-attr]
                         if words(module.encode()) <= held}
                assert derived.importing_modules(held) == loaded.importing_modules(held) == every
                answered = answered or bool(every)
        current = derived
    assert answered or not imports_read, "no file imports a module: the drain no longer tests what it says"
