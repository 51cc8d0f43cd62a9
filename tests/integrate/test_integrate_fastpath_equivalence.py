"""The pygit2 fast path and git merge-tree must produce identical trees, over random task shapes.

Seeded random shapes (reproducible; the seed is in the assertion message): each side applies a few
operations -- edit, add, delete, delete a directory, chmod, rename, file<->directory, symlink -- to a
small nested tree, so overlaps, renames and type changes happen often. Whenever the fast path gives
an answer, git merge-tree must be clean and give the same tree id.
"""

from __future__ import annotations

import random

import pytest

from integrate_helpers import REF, SIG, init_repo
from worktree_coord.integrate import (
    IntegrationState,
    Integrator,
    MergePath,
    MergeTreeProcess,
    NotFast,
    fast_merge_trees,
)

import pygit2

Files = dict[str, tuple[bytes, int]]
FILE, EXEC, LINK = 0o100644, 0o100755, 0o120000

BASE_DIRS = ["a", "a/b", "a/b/c", "d", "d/e", "f"]


def _content(rng: random.Random, tag: str) -> bytes:
    return b"".join(b"%s line %d\n" % (tag.encode(), i) for i in range(rng.randint(3, 12)))


def _base_files(rng: random.Random) -> Files:
    files: Files = {"top.txt": (_content(rng, "top"), FILE)}
    for d in BASE_DIRS:
        for i in range(rng.randint(1, 3)):
            files[f"{d}/x{i}.txt"] = (_content(rng, f"{d}{i}"), FILE)
    return files


def _dirs(files: Files) -> list[str]:
    return sorted({p.rsplit("/", 1)[0] for p in files if "/" in p})


def _mutate(rng: random.Random, files: Files, side: str) -> Files:
    out = dict(files)
    for n in range(rng.randint(1, 4)):
        paths = sorted(out)
        if not paths:
            break
        op = rng.choice(["edit", "edit", "edit", "add", "add", "delete", "rmdir", "chmod", "rename",
                         "file_to_dir", "dir_to_file", "symlink"])
        path = rng.choice(paths)
        tag = f"{side}{n}"
        if op == "edit":
            data, mode = out[path]
            lines = data.splitlines(keepends=True) or [b"\n"]
            lines[rng.randrange(len(lines))] = f"{tag} edit\n".encode()
            out[path] = (b"".join(lines), mode)
        elif op == "add":
            folder = rng.choice(_dirs(out) + ["", "new", "a/new"])
            name = f"{folder}/{tag}.txt".lstrip("/")
            if not any(p.startswith(name + "/") for p in out):
                out[name] = (_content(rng, tag), FILE)
        elif op == "delete":
            del out[path]
        elif op == "rmdir" and _dirs(out):
            folder = rng.choice(_dirs(out))
            for p in [p for p in out if p.startswith(folder + "/")]:
                del out[p]
        elif op == "chmod" and out[path][1] != LINK:
            out[path] = (out[path][0], EXEC if out[path][1] == FILE else FILE)
        elif op == "rename":
            folder = rng.choice(_dirs(out) + [""])
            target = f"{folder}/{tag}-moved.txt".lstrip("/")
            if target not in out and not any(p.startswith(target + "/") for p in out):
                out[target] = out.pop(path)
        elif op == "file_to_dir":
            data, _ = out.pop(path)
            out[f"{path}/inner.txt"] = (data, FILE)
        elif op == "dir_to_file" and _dirs(out):
            folder = rng.choice(_dirs(out))
            for p in [p for p in out if p.startswith(folder + "/")]:
                del out[p]
            if not any(p == folder or folder.startswith(p + "/") for p in out):
                out[folder] = (_content(rng, tag), FILE)
        elif op == "symlink":
            name = f"{tag}.link"
            out[name] = (path.encode(), LINK)
    return out


def _package_task(rng: random.Random, files: Files, n: int) -> Files:
    """The common case in a run: a task that edits, adds and deletes inside its own package."""
    out = dict(files)
    pkg = f"pkg{n % 10}"
    out[f"{pkg}/mod.txt"] = (out[f"{pkg}/mod.txt"][0] + f"task {n}\n".encode(), FILE)
    out[f"{pkg}/t{n}.txt"] = (_content(rng, f"t{n}"), FILE)
    if rng.random() < 0.3:
        out.pop(f"{pkg}/t{n - 10}.txt", None)
    return out


def _commit(repo: pygit2.Repository, files: Files, parents: list[pygit2.Oid]) -> pygit2.Oid:
    index = pygit2.Index()
    for path, (data, mode) in files.items():
        index.add(pygit2.IndexEntry(path, repo.create_blob(data), mode))
    return repo.create_commit(None, SIG, SIG, "c", index.write_tree(repo), parents)


def _type_changed(before: Files, after: Files) -> bool:
    """A file became a directory or a directory a file (the fast path always defers those)."""
    for p in _changed(before, after):
        if p in before and any(q.startswith(p + "/") for q in after):
            return True
        if p in after and any(q.startswith(p + "/") for q in before):
            return True
    return False


def _top(path: str) -> str:
    return path.split("/", 1)[0]


def _changed(before: Files, after: Files) -> set[str]:
    return {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}


def test_fast_path_equals_merge_tree_over_random_shapes(tmp_path):
    repo = init_repo(tmp_path / "repo")
    shapes, fast, disjoint = 300, 0, 0
    with MergeTreeProcess(repo.path) as git_merge:
        for seed in range(shapes):
            rng = random.Random(seed)
            base_files = _base_files(rng)
            ours_files = _mutate(rng, base_files, "ours")
            theirs_files = _mutate(rng, base_files, "theirs")
            base = _commit(repo, base_files, [])
            ours = _commit(repo, ours_files, [base])
            theirs = _commit(repo, theirs_files, [base])
            touched_top = {_top(p) for p in _changed(base_files, ours_files)}
            is_disjoint = (not touched_top & {_top(p) for p in _changed(base_files, theirs_files)}
                           and not _type_changed(base_files, theirs_files))
            disjoint += is_disjoint
            try:
                tree = fast_merge_trees(repo, repo[base].tree_id, repo[ours].tree_id, repo[theirs].tree_id)
            except NotFast:
                assert not is_disjoint, f"seed {seed}: fast path refused a disjoint shape"
                continue
            fast += 1
            outcome = git_merge.merge(str(ours), str(theirs))
            assert outcome.clean, f"seed {seed}: fast path merged what git calls a conflict"
            assert str(tree) == outcome.tree, f"seed {seed}: trees differ"
    # The shapes must exercise the fast path often, not only its refusals.
    assert fast >= shapes // 4 and disjoint >= 10, (fast, disjoint)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_queue_of_random_tasks_gives_the_same_history_either_way(tmp_path, seed):
    """Thirty random tasks merged in order into two refs, one engine with the fast path and one
    without: same outcome per task, same tree after every step."""
    rng = random.Random(seed)
    repo = init_repo(tmp_path / "repo")
    base_files = _base_files(rng)
    for i in range(10):   # more room, so most tasks do not collide
        base_files[f"pkg{i}/mod.txt"] = (_content(rng, f"pkg{i}"), FILE)
    base = _commit(repo, base_files, [])
    fast_ref, slow_ref = REF, "refs/heads/wtc/run1/integration-slow"
    repo.references.create(fast_ref, base)
    repo.references.create(slow_ref, base)
    paths = {MergePath.FAST: 0, MergePath.MERGE_TREE: 0}
    with Integrator(repo) as fast, Integrator(repo, fast_path=False) as slow:
        for n in range(30):
            shape = _mutate(rng, base_files, f"t{n}") if n % 2 else _package_task(rng, base_files, n)
            task = _commit(repo, shape, [base])
            a = fast.merge_into(fast_ref, task, base, message=f"t{n}", author=SIG)
            b = slow.merge_into(slow_ref, task, base, message=f"t{n}", author=SIG)
            assert a.state == b.state, f"task {n}"
            assert [c.path for c in a.conflicts] == [c.path for c in b.conflicts]
            assert repo[repo.references[fast_ref].target].tree_id == repo[repo.references[slow_ref].target].tree_id
            if a.state is IntegrationState.MERGED:
                paths[a.path] += 1
    assert paths[MergePath.FAST] >= 5, paths
