"""Edit a git tree by path without an index: rewrite only the directories on the changed paths.

Stage: tree writing (shared by the fast path and by the resolver step). Input: a root tree and a
mapping path -> (blob id, mode) or None (delete). Output: the id of the new root tree. Cost:
O(entries of the directories on the changed paths), never O(files in the repository) -- the whole
point, since pygit2's `Index.write_tree` re-hashes every tree (research/git-layer.md §4).
Invariants: directories left empty are dropped (git never stores empty trees as entries); paths
untouched keep their exact ids, so an unchanged subtree is shared, not copied.
"""

from __future__ import annotations

from typing import Mapping

import pygit2

from ..gitrepo.process_trees import nest_edits

TREE_MODE = pygit2.enums.FileMode.TREE


def update_tree(repo: pygit2.Repository, root: pygit2.Oid | str | None,
                changes: Mapping[str, tuple[pygit2.Oid | str, int] | None]) -> pygit2.Oid:
    """Return the tree `root` with `changes` applied (None deletes; a missing root means empty)."""
    nested = nest_edits(changes)   # shared with the process path (gitrepo/process_trees.py): one set of refusals
    tree = repo[root] if root is not None else None
    return _write(repo, tree, nested)


def _write(repo: pygit2.Repository, tree: pygit2.Tree | None, nested: dict[str, object]) -> pygit2.Oid:
    builder = repo.TreeBuilder(tree) if tree is not None else repo.TreeBuilder()
    for name, change in nested.items():
        existing = tree[name] if tree is not None and name in tree else None
        if isinstance(change, dict):
            subtree = repo[existing.id] if existing is not None and existing.filemode == TREE_MODE else None
            new_id = _write(repo, subtree, change)
            if len(repo[new_id]) == 0:
                if existing is not None:
                    builder.remove(name)
            else:
                builder.insert(name, new_id, TREE_MODE)
        elif change is None:
            if existing is not None:
                builder.remove(name)
        else:
            oid, mode = change  # type: ignore[misc]
            builder.insert(name, pygit2.Oid(hex=oid) if isinstance(oid, str) else oid, mode)
    return builder.write()
