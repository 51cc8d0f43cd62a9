"""The check's views of an integration tip's files (merge/tree.py `_tip_views`), kept per tip and
derived from the previous tip's by the paths each merge changed, give the same files with the same
four versions as a full pass over every path the run changed, at every merge of a drain (Python,
TypeScript and Go files, deletions, renames, a mode-only change, a file put back as the tip held
it: tests/merge/test_tip_index.py's drain)."""

from __future__ import annotations

import functools
from pathlib import Path

import pygit2

from tests.merge.test_tip_index import _drain
from worktree_coord.merge.checks.merge_index import MergeIndex
from worktree_coord.merge.tree import _changes, _tip_tables, _tip_views, _tree_files


def _rows(files) -> list[tuple]:
    return [(f.path, tuple(f._ids[name] for name in f._NAMES)) for f in files]


def test_tip_views_equal_a_full_pass_at_every_merge(tmp_path: Path) -> None:
    repo, merges = _drain(tmp_path)
    index = MergeIndex()
    diff = functools.partial(_changes, repo=repo)
    previous = None
    derived = 0
    for merge in merges:
        trees = [repo[x].peel(pygit2.Tree) for x in merge]
        changes = [index.changes(repo, trees[0], trees[1], diff), diff(trees[0], trees[2]),
                   index.advance(repo, trees[0], trees[1], trees[3], diff)]
        _, loose = _tip_tables(repo, index, trees, changes, merge[1], diff)
        views = _tip_views(repo, index, trees[0], trees[1], changes[0])
        got = _tree_files(repo, changes, loose=loose, tip_views=views)
        assert _rows(got) == _rows(_tree_files(repo, changes))              # every path, four versions each
        assert _rows(got) == _rows(_tree_files(repo, changes, loose=loose))  # the pass over the tip's paths
        assert views.paths == sorted(views.paths) and views.views == dict(zip(views.paths, views.files))
        if previous is not None:
            # Derived, not built again: a file no merge since touched keeps its view.
            kept = [path for path in views.paths if previous.views.get(path) is views.views[path]]
            derived += bool(kept)
        previous = views
    assert derived >= len(merges) - 2
    # Asked again (a merge retried against the same tip), the kept views answer.
    last = merges[-1]
    trees = [repo[x].peel(pygit2.Tree) for x in last]
    assert _tip_views(repo, index, trees[0], trees[1], index.changes(repo, trees[0], trees[1], diff)) is not None


def test_tip_views_of_another_repository_object_are_not_used(tmp_path: Path) -> None:
    repo, merges = _drain(tmp_path)
    index = MergeIndex()
    diff = functools.partial(_changes, repo=repo)
    pin, tip = (repo[x].peel(pygit2.Tree) for x in merges[3][:2])
    ours = index.changes(repo, pin, tip, diff)
    first = _tip_views(repo, index, pin, tip, ours)
    other = pygit2.Repository(repo.path)   # views read blobs through their repository: not shared
    second = _tip_views(other, index, other[pin.id], other[tip.id], ours)
    assert second is not first and second.paths == first.paths
    assert all(view._repo is other for view in second.files)


def test_a_tip_merge_is_checked_from_the_tips_files_copied_not_rebuilt(tmp_path: Path, monkeypatch) -> None:
    """A tip's merge hands the check its files by path as a copy of the tip's views with the
    merge's own laid over (tree._tip_files), not a mapping built by a pass over every file the
    run changed (0.5 ms a merge at the end of a 1,000-task drain); the check goes over them in
    the list's order, path order (`_Check.in_order`). And the tip's changes from the pin are handed
    out as kept, not copied at each of a merge's three questions (MergeIndex.changes)."""
    from worktree_coord.merge import tree
    from worktree_coord.merge.checks import semantic
    from worktree_coord.merge.checks.semantic import _Check

    repo, merges = _drain(tmp_path)
    index = MergeIndex()
    seen: list[tuple[list, _Check, dict | None]] = []
    made = _Check.__init__

    def kept(self, files, *args, **kwargs):
        made(self, files, *args, **kwargs)
        seen.append((list(files), self, kwargs.get("by_path")))
    monkeypatch.setattr(semantic._Check, "__init__", kept)
    diff = functools.partial(_changes, repo=repo)
    checked = 0
    for merge in merges:
        trees = [repo[x].peel(pygit2.Tree) for x in merge]
        seen.clear()
        tree.check_tree_merge(repo, *merge, index=index)
        views = index.tip_views(repo, (str(trees[0].id), str(trees[1].id)))
        for files, check, by_path in seen[:1]:
            checked += 1
            assert by_path is not None and check.files is by_path   # handed in, not built from `files`
            assert check.files == {f.path: f for f in files}
            assert [path for path, _ in check.in_order()] == [f.path for f in files] == sorted(f.path for f in files)
            # Shared with the tip's views: a file no side of this merge touched is the tip's own view.
            assert all(check.files[path] is view for path, view in views.views.items() if path in check.files
                       and path not in check.loose)
            assert check.files is not views.views
        ours = index.changes(repo, trees[0], trees[1], diff)
        assert ours is index.changes(repo, trees[0], trees[1], diff) == diff(trees[0], trees[1])
    assert checked >= len(merges) - 2
