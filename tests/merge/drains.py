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
