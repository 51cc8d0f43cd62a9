"""The fast tree merge: when the task only touched paths integration left alone since the base.

Stage: tree merge (the cheap path). Input: three tree ids, base (the pinned commit's tree), ours
(integration tip) and theirs (task). Output: the merged tree id, or `NotFast` with the reason, and
then the caller falls back to git merge-tree. Cost: O(width of the directories on the task's changed
paths): the diff base->theirs recurses only into subtrees whose ids differ, and only those
directories of ours are rewritten (trees.update_tree's nested TreeBuilder idea, applied during the
walk).

Rule per entry the task changed (id or mode differs between base and theirs):
  ours == base   -> take theirs (insert, replace or delete)
  ours == theirs -> keep ours (both made the same change; but NotFast when both deleted it, since
                    one side may have renamed it: git then reports rename/rename or rename/delete)
  all three are directories -> recurse
  anything else  -> NotFast (both sides changed one path: a real three-way merge is needed)
A change of kind (file <-> directory <-> symlink <-> submodule) is also NotFast: git's rename and
directory/file handling decides those. Renames need no special case: a rename is a delete plus an
add, and it only matters to git's rename detection when the other side touched the old path or the
emptied directory, which this rule already sends to the fallback.

The caller must only use this when `base` is the merge base of ours and theirs (see history.py):
with an older base the rule above could re-apply a change integration had reverted.
"""

from __future__ import annotations

import pygit2

from ..merge.checks import disjoint

TREE = 0o040000
GITLINK = 0o160000
SYMLINK = 0o120000

Entry = tuple[pygit2.Oid, int]


class NotFast(Exception):
    """The fast path does not apply; `str(exc)` says why (recorded as the fallback reason)."""


def _kind(mode: int) -> int:
    if mode in (TREE, GITLINK, SYMLINK):
        return mode
    return 0o100000  # regular file, executable or not


def fast_merge_trees(repo: pygit2.Repository, base: pygit2.Oid, ours: pygit2.Oid,
                     theirs: pygit2.Oid) -> pygit2.Oid:
    """Merged tree id of base/ours/theirs, or raise NotFast when both sides touched one path. A
    merged tree is noted as disjoint (merge.checks.disjoint): the post-merge check then composes its
    changes against ours instead of walking the two trees again."""
    if theirs == base or ours == theirs:
        merged = ours
    elif ours == base:
        merged = theirs
    else:
        merged = _merge_dir(repo, repo[base], repo[ours], repo[theirs], "")
    disjoint.note(base, ours, theirs, merged)
    return merged


def _entries(tree: pygit2.Tree) -> dict[str, Entry]:
    return {e.name: (e.id, e.filemode) for e in tree}


def _removes_something(repo: pygit2.Repository, before: pygit2.Tree, after: pygit2.Tree) -> bool:
    """Does going from `before` to `after` remove any path? Recurses only into differing subtrees."""
    after_map = _entries(after)
    for entry in before:
        now = after_map.get(entry.name)
        if now is None:
            return True
        if now[0] == entry.id:
            continue
        if (entry.filemode == TREE) != (now[1] == TREE):
            return True  # a file replaced by a directory or the reverse removes the old path
        if entry.filemode == TREE and _removes_something(repo, repo[entry.id], repo[now[0]]):
            return True
    return False


def _merge_dir(repo: pygit2.Repository, base: pygit2.Tree, ours: pygit2.Tree, theirs: pygit2.Tree,
               prefix: str) -> pygit2.Oid:
    b_objects = {e.name: e for e in base}
    t_objects = {e.name: e for e in theirs}
    builder: pygit2.TreeBuilder | None = None
    for name in b_objects.keys() | t_objects.keys():
        b, t = b_objects.get(name), t_objects.get(name)
        # Equal ids first: a folder's mode is a folder's (reading `filemode` builds an enum, most of
        # a 200-folder level's cost when every entry was read as (id, mode)).
        if b is not None and t is not None and b.id == t.id and (b.type_str == "tree" or b.filemode == t.filemode):
            continue
        be: Entry | None = (b.id, b.filemode) if b is not None else None
        te: Entry | None = (t.id, t.filemode) if t is not None else None
        if be == te:
            continue
        if be is not None and te is not None and _kind(be[1]) != _kind(te[1]):
            raise NotFast(f"type change at {prefix}{name}")
        oe: Entry | None = None
        if name in ours:
            o = ours[name]
            oe = (o.id, o.filemode)
        if oe == te:
            # Both sides made the same change. If that change removed a path, either side may have
            # moved it elsewhere, and git reports rename/rename or rename/delete: only git's rename
            # detection can tell, so defer. (Rare: identical changes on both sides.)
            if te is None or (be is not None and be[1] == TREE and te[1] == TREE
                              and _removes_something(repo, repo[be[0]], repo[te[0]])):
                raise NotFast(f"both sides removed {prefix}{name}" + ("" if te is None else "/..."))
            continue
        if oe == be:
            new: Entry | None = te
        elif (be is not None and te is not None and oe is not None
              and be[1] == TREE and te[1] == TREE and oe[1] == TREE):
            merged = _merge_dir(repo, repo[be[0]], repo[oe[0]], repo[te[0]], f"{prefix}{name}/")
            new = (merged, TREE) if len(repo[merged]) else None
        else:
            raise NotFast(f"both sides changed {prefix}{name}")
        if builder is None:
            builder = repo.TreeBuilder(ours)
        if new is None:
            if oe is not None:
                builder.remove(name)
        else:
            builder.insert(name, new[0], new[1])
    return builder.write() if builder is not None else ours.id
