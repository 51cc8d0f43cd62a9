"""A drain built in a test repository: each task branch merged onto the previous merge with pygit2,
as the merge queue does, for tests that compare the merge index's answers with a full walk."""

from __future__ import annotations

import pygit2

from worktree_coord.merge.checks.merge_index import MergeIndex
from worktree_coord.merge.checks.semantic import _Check, semantic_profile
from worktree_coord.merge.tree import _changes, _Mentions, _tip_tables, _tree_files

SIG = pygit2.Signature("t", "t@x", 1_700_000_000, 0)


def merged_in_order(repo: pygit2.Repository, pin: str, tasks: list[str]) -> list[tuple[str, str, str, str]]:
    """Merge each task onto the tip the previous one made (none may conflict); (pin, tip, task,
    merged tree) for each merge, in order."""
    tip, merges = pin, []
    for task in tasks:
        index = repo.merge_commits(tip, task, flags=pygit2.enums.MergeFlag(0))
        assert not index.conflicts
        tree = index.write_tree(repo)
        merges.append((pin, tip, task, str(tree)))
        tip = str(repo.create_commit(None, SIG, SIG, "merge", tree, [pygit2.Oid(hex=tip), pygit2.Oid(hex=task)]))
    return merges


def tree_of(repo: pygit2.Repository, files: dict[str, str]) -> pygit2.Oid:
    """A tree of `files` (path -> text) written to `repo`."""
    index = pygit2.Index()
    for path, text in sorted(files.items()):
        index.add(pygit2.IndexEntry(path, repo.create_blob(text.encode()), pygit2.enums.FileMode.BLOB))
    return index.write_tree(repo)


def findings_of(found) -> list[tuple]:
    """A check's findings as tuples two checks' answers are compared by."""
    return [(f.problem, f.name, f.definition_path, f.use_path, f.use_line) for f in found]


def drain_of(root, pin_files: dict[str, str], plan: list[list[str]], writes_of) -> tuple[pygit2.Repository, list]:
    """A bare repository at `root` with the pin (`pin_files`) and one task per item of `plan`, each a
    commit off the pin writing each change's files (`writes_of(number, change)`: path -> text, None
    deletes); a change whose files an earlier task wrote is left out, so no two tasks touch one file.
    The repository and `merged_in_order`'s merges."""
    repo = pygit2.init_repository(str(root), bare=True)
    pin = str(repo.create_commit(None, SIG, SIG, "pin", tree_of(repo, pin_files), []))
    taken: set[str] = set()
    tasks = []
    for number, changes in enumerate(plan):
        files = dict(pin_files)
        for change in changes:
            writes = writes_of(number, change)
            if taken & set(writes):
                continue
            taken |= set(writes)
            for path, text in writes.items():
                if text is None:
                    files.pop(path, None)
                else:
                    files[path] = text
        tasks.append(str(repo.create_commit(None, SIG, SIG, f"task {number}", tree_of(repo, files),
                                            [pygit2.Oid(hex=pin)])))
    return repo, merged_in_order(repo, pin, tasks)


def reach_maps(repo: pygit2.Repository, merge: tuple[str, str, str, str], index: MergeIndex, walk: bool) -> dict:
    """Every file's live words on each side of one merge, as check_tree_merge's check computes them:
    from the tip's tables (`index`'s, derived merge by merge) or (`walk`) by a walk over every file."""
    trees = [repo[x].peel(pygit2.Tree) for x in merge]
    changes = [index.changes(repo, trees[0], trees[1], _changes), _changes(trees[0], trees[2]),
               index.advance(repo, trees[0], trees[1], trees[3], _changes)]
    files = [f for f in _tree_files(repo, changes) if semantic_profile(f.path) is not None]
    mentions = _Mentions(repo, trees[0], trees[1], trees[2])
    check = _Check(files, ("ours", "base", "theirs"), {}, True, mentions.file, mentions.folders)
    check.index = index
    if not walk:
        check.tip, check.loose = _tip_tables(repo, index, trees, changes, merge[1])
    return {side: {path: check.live(side, path) for path in check.files} for side in ("left", "right")}
