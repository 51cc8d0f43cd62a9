"""A tip's tables derived from the previous tip's (tip_index.TipIndex.derive: an edited file's
words that came or went updated in place, a new or deleted file added or removed whole) hold what
tables built from scratch for that tip hold, at every merge of a drain (tests/merge/test_tip_index.py's:
edits, deletions, renames, a mode-only change, barrels whose imports are read), copied on write or
taken over, with the imports unread and read."""

from __future__ import annotations

import functools
from pathlib import Path

import pygit2
import pytest

from tests.merge.test_tip_index import _drain
from worktree_coord.merge.checks.merge_index import MergeIndex
from worktree_coord.merge.checks.semantic import PATH_FACTS
from worktree_coord.merge.checks.tip_index import TipIndex, standing_words
from worktree_coord.merge.tree import _changes, _imports
from worktree_coord.merge.checks.semantic import semantic_profile

_TABLES = ("words", "dirty", "grams", "importers", "bound", "keyed", "directories", "tokens", "modules", "wide")


def _state(tip: TipIndex) -> dict:
    out = {name: {key: set(paths) for key, paths in getattr(tip, name).data.items()} for name in _TABLES}
    out.update(records=dict(tip.records), users=list(tip.users), barrel_users=list(tip.barrel_users),
               user_dirs=list(tip.user_dirs), split_tokens=dict(tip.split_tokens), whole_tokens=tip.whole_tokens,
               candidates=tip.candidates)
    return out


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

    def built(changes: dict) -> TipIndex:
        tip = TipIndex.build(PATH_FACTS, read_words, read_imports, changes)
        if imports_read:
            tip._read_all_imports()
        return tip

    pin = repo[merges[0][0]].peel(pygit2.Tree)
    current = built(index.changes(repo, pin, repo[merges[0][1]].peel(pygit2.Tree), diff))
    for _, tip, _, merged in merges:
        tip_tree, merged_tree = repo[tip].peel(pygit2.Tree), repo[merged].peel(pygit2.Tree)
        after = index.advance(repo, pin, tip_tree, merged_tree, diff)
        step = diff(tip_tree, merged_tree)
        previous = _state(current)
        derived = current.derive(step, after, take)
        if not take:
            assert _state(current) == previous   # copied on write: the older tip's tables are whole
        fresh = built(after)
        assert _state(derived) == _state(fresh)
        assert derived.foreign >= fresh.foreign   # only grows: a superset keeps lookups exact
        current = derived
