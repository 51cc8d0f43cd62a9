"""A drain built in a test repository: each task branch merged onto the previous merge with pygit2,
as the merge queue does, for tests that compare the merge index's answers with a full walk."""

from __future__ import annotations

import pygit2

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
