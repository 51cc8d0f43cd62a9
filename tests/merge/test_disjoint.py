"""A merge the fast path made (merge/checks/disjoint.py): the post-merge check composes the merged
tree's changes against ours from the two diffs it has (base -> ours, base -> theirs) instead of
walking ours against the merged tree. Stated as a property of the fast path over random trees
(edits, additions, deletions, mode changes, nested folders, a file and a folder of one name, the
same change on both sides): whenever it merges, the composed changes are the walk's, path for path
and in its order; and over a drain with the fast path's facts noted, the check walks no (tip,
merged) pair and finds what the walk finds."""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.merge.drains import SIG
from worktree_coord.integrate.fastpath import NotFast, fast_merge_trees
from worktree_coord.merge import check_tree_merge, tree
from worktree_coord.merge.checks import disjoint
from worktree_coord.merge.checks.merge_index import MergeIndex

# Paths over few names, so both sides meet in folders and on files, and a name is a file in one
# tree and a folder in another (`a` and `a/x`).
_PATHS = ["x", "y", "a", "a/x", "a/y", "a/b/x", "a/b/y.py", "c/x", "c/d/e/x", "b", "b/x"]
_FILE = 0o100644
_EXEC = 0o100755


def _valid(files: dict[str, tuple[int, int]]) -> bool:
    """No path is a file and, in another path, a folder."""
    return not any(other.startswith(path + "/") for path in files for other in files)


def _write(repo: pygit2.Repository, files: dict[str, tuple[int, int]]) -> pygit2.Oid:
    """A tree of `files` (path -> (content number, mode)), written through nested TreeBuilders."""
    folders: dict[str, dict[str, tuple[pygit2.Oid, int]]] = {"": {}}
    for path, (content, mode) in sorted(files.items()):
        parent, _, name = path.rpartition("/")
        folders.setdefault(parent, {})[name] = (repo.create_blob(f"content {content}\n".encode()), mode)
        while parent:
            grand, _, _ = parent.rpartition("/")
            folders.setdefault(grand, {})
            parent = grand

    def build(folder: str) -> pygit2.Oid:
        builder = repo.TreeBuilder()
        for name, (oid, mode) in folders.get(folder, {}).items():
            builder.insert(name, oid, mode)
        for sub in sorted(f for f in folders if f and f.rpartition("/")[0] == folder):
            builder.insert(sub.rpartition("/")[2], build(sub), pygit2.GIT_FILEMODE_TREE)
        return builder.write()
    return build("")


_side = st.dictionaries(st.sampled_from(_PATHS), st.tuples(st.integers(0, 3), st.sampled_from([_FILE, _EXEC])),
                        max_size=8)


@st.composite
def _three(draw: st.DrawFn) -> tuple[dict, dict, dict]:
    base = draw(_side.filter(_valid))

    def changed() -> dict:
        out = dict(base)
        for path in draw(st.lists(st.sampled_from(_PATHS), max_size=4)):
            if path in out and draw(st.booleans()):
                del out[path]
            else:
                out[path] = (draw(st.integers(0, 3)), draw(st.sampled_from([_FILE, _EXEC])))
        return out
    ours, theirs = changed(), changed()
    if draw(st.booleans()):   # the same change on both sides, beside their own
        for path in draw(st.lists(st.sampled_from(_PATHS), max_size=2)):
            if path in theirs:
                ours[path] = theirs[path]
            else:
                ours.pop(path, None)
    return base, ours, theirs


@pytest.fixture(scope="module")
def bare(tmp_path_factory: pytest.TempPathFactory) -> pygit2.Repository:
    return pygit2.init_repository(str(tmp_path_factory.mktemp("disjoint") / "r.git"), bare=True)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.filter_too_much])
@given(_three())
def test_the_composed_changes_are_the_walk_of_ours_against_the_fast_merge(bare: pygit2.Repository,
                                                                          three: tuple[dict, dict, dict]) -> None:
    base, ours, theirs = three
    if not (_valid(ours) and _valid(theirs)):
        return
    ids = [_write(bare, files) for files in (base, ours, theirs)]
    try:
        merged = fast_merge_trees(bare, *ids)
    except NotFast:
        return
    trees = [bare[oid] for oid in (*ids, merged)]
    assert disjoint.known(*(t.id for t in trees))
    walked = tree._changes(trees[1], trees[3], bare)
    composed = disjoint.step(tree._changes(trees[0], trees[1], bare), tree._changes(trees[0], trees[2], bare))
    assert list(composed.items()) == list(walked.items())
    # and git's own diff lists the same paths and sides
    assert composed == tree._changes(trees[1], trees[3])


def test_the_fast_path_merges_some_of_the_random_trees(bare: pygit2.Repository) -> None:
    """The property above is not vacuous: the fast path merges, with changes on both sides."""
    base = {"a/x": (0, _FILE), "c/x": (1, _FILE), "y": (2, _FILE)}
    ours = dict(base, **{"a/x": (3, _FILE)})
    theirs = {"a/x": (0, _FILE), "c/x": (1, _EXEC), "b/x": (2, _FILE)}
    ids = [_write(bare, files) for files in (base, ours, theirs)]
    merged = fast_merge_trees(bare, *ids)
    trees = [bare[oid] for oid in (*ids, merged)]
    composed = disjoint.step(tree._changes(trees[0], trees[1], bare), tree._changes(trees[0], trees[2], bare))
    assert sorted(composed) == ["b/x", "c/x", "y"] == sorted(tree._changes(trees[1], trees[3], bare))


def test_a_drain_of_fast_merges_walks_no_tip_against_its_merged_tree(tmp_path: Path, monkeypatch) -> None:
    """Each merge of the tip-index drain made by the fast path (each task onto the one before, the
    merged tree noted disjoint), then checked: no walk of the tip against the merged tree, the same
    findings as the check walking every file, and the same changes kept for the next tip."""
    from tests.merge.test_tip_index import _drain, _findings

    repo, merges = _drain(tmp_path)
    pin = merges[0][0]
    tip, fast, noted = pin, [], []
    for _, _, task, _ in merges:
        try:
            merged = fast_merge_trees(repo, repo[pin].peel(pygit2.Tree).id, repo[tip].peel(pygit2.Tree).id,
                                      repo[task].peel(pygit2.Tree).id)
            noted.append(True)
        except NotFast:   # both sides changed a file: git merges it, as the engine falls back to
            index = repo.merge_commits(tip, task, flags=pygit2.enums.MergeFlag(0))
            assert not index.conflicts
            merged = index.write_tree(repo)
            noted.append(False)
        fast.append((pin, tip, task, str(merged)))
        tip = str(repo.create_commit(None, SIG, SIG, "merge", merged, [pygit2.Oid(hex=tip), pygit2.Oid(hex=task)]))
    walked: list[tuple[str, str]] = []
    real = tree._changes

    def recorded(old: pygit2.Tree, new: pygit2.Tree, repo: pygit2.Repository | None = None) -> dict:
        walked.append((str(old.id), str(new.id)))
        return real(old, new, repo)

    monkeypatch.setattr(tree, "_changes", recorded)
    index, found = MergeIndex(), []
    for number, merge in enumerate(fast):
        walked.clear()
        hot = _findings(check_tree_merge(repo, *merge, index=index))
        ids = [str(repo[x].peel(pygit2.Tree).id) for x in merge]
        # base -> theirs is walked; ours -> merged only when the merge was git's
        assert [pair for pair in walked if pair[0] != pair[1]] == \
            [(ids[0], ids[2])] + ([] if noted[number] else [(ids[1], ids[3])]), number
        assert hot == _findings(check_tree_merge(repo, *merge, index=MergeIndex(), walk=True)), number
        found += hot
    assert ("broken", "parse", "pkg/util.py", "pkg/app.py", 5) in found
    assert sum(noted) >= len(merges) - 3 and not all(noted)
    # The tips' changes composed along the drain are the pin's diff to each merged tree.
    trees = [repo[x].peel(pygit2.Tree) for x in (pin, fast[-1][3])]
    assert index.changes(repo, trees[0], trees[1], lambda a, b: {}) == real(trees[0], trees[1], repo)
