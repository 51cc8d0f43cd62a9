"""trees.update_tree against git's own index: same tree ids, untouched subtrees shared."""

from __future__ import annotations

import pygit2
import pytest

from integrate_helpers import base_repo, commit, tree_of
from worktree_coord.errors import UsageError
from worktree_coord.integrate.trees import update_tree


def test_update_tree_matches_the_index_and_drops_emptied_directories(tmp_path):
    repo, base = base_repo(tmp_path / "repo", packages=3, files=2)
    base_tree = repo[base].tree_id
    blob = repo.create_blob(b"new\n")
    changes = {
        "packages/p00/src/m00.py": (blob, 0o100755),     # replace, and make executable
        "packages/p01/src/m00.py": None,                  # delete...
        "packages/p01/src/m01.py": None,                  # ...the whole directory
        "deep/new/dir/file.txt": (blob, 0o100644),        # create nested directories
        "not/there.txt": None,                             # deleting a missing path is a no-op
    }
    new_tree = update_tree(repo, base_tree, changes)
    expected = tree_of(repo, commit(repo, [base], {
        "packages/p00/src/m00.py": b"new\n", "packages/p01/src/m00.py": None,
        "packages/p01/src/m01.py": None, "deep/new/dir/file.txt": b"new\n",
    }, modes={"packages/p00/src/m00.py": 0o100755}))
    assert new_tree == expected
    tree = repo[new_tree]
    assert "packages/p01" not in tree
    assert tree["packages/p02"].id == repo[base_tree]["packages/p02"].id   # shared, not copied


def test_update_tree_refuses_bad_paths(tmp_path):
    repo, base = base_repo(tmp_path / "repo", packages=1, files=1)
    blob = repo.create_blob(b"x")
    for bad in ("", "/", "a/../b", "./a"):
        with pytest.raises(UsageError):
            update_tree(repo, repo[base].tree_id, {bad: (blob, 0o100644)})
    with pytest.raises(UsageError):
        update_tree(repo, repo[base].tree_id, {"a": (blob, 0o100644), "a/b": (blob, 0o100644)})
    assert isinstance(update_tree(repo, None, {"a/b": (blob, 0o100644)}), pygit2.Oid)
