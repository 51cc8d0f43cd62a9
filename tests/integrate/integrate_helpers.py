"""Real repositories for the integration-engine tests, built with git and pygit2's Index.

Trees here are built through `pygit2.Index` (read_tree/add/remove/write_tree), deliberately not
through worktree_coord.integrate.trees, so the tests do not check the engine with itself.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Mapping

import pygit2

SIG = pygit2.Signature("worktree_coord tests", "tests@worktree-coord.invalid", 1_700_000_000, 0)
REF = "refs/heads/wtc/run1/integration"


def git(repo_path: str | Path, *args: str, input: bytes | None = None) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    proc = subprocess.run(["git", "-C", str(repo_path), *args], input=input, capture_output=True,
                          env=env, check=True)
    return proc.stdout.decode()


def init_repo(path: Path) -> pygit2.Repository:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q")
    return pygit2.Repository(str(path))


def commit(repo: pygit2.Repository, parents: list[pygit2.Oid], changes: Mapping[str, bytes | None],
           message: str = "change", *, modes: Mapping[str, int] | None = None,
           base_tree: pygit2.Oid | None = None) -> pygit2.Oid:
    """A commit whose tree is the first parent's (or base_tree) with `changes` applied."""
    index = pygit2.Index()
    if base_tree is not None:
        index.read_tree(repo[base_tree])
    elif parents:
        index.read_tree(repo[parents[0]].tree)
    for path, data in changes.items():
        if data is None:
            index.remove(path)
        else:
            mode = (modes or {}).get(path, pygit2.enums.FileMode.BLOB)
            index.add(pygit2.IndexEntry(path, repo.create_blob(data), mode))
    tree = index.write_tree(repo)
    return repo.create_commit(None, SIG, SIG, message, tree, parents)


def module_text(name: str, lines: int = 12, tag: str = "") -> bytes:
    body = "".join(f"def {name}_f{i}(x):\n    return x + {i}  {tag}\n\n" for i in range(lines))
    return f"# module {name}\n{body}".encode()


def base_repo(path: Path, packages: int = 6, files: int = 4) -> tuple[pygit2.Repository, pygit2.Oid]:
    """A repository with packages/pNN/src/mMM.py files and a shared README; returns (repo, base)."""
    repo = init_repo(path)
    changes: dict[str, bytes | None] = {"README.md": b"".join(b"line %d\n" % i for i in range(40))}
    for p in range(packages):
        for f in range(files):
            changes[f"packages/p{p:02d}/src/m{f:02d}.py"] = module_text(f"p{p}m{f}")
    base = commit(repo, [], changes, "base")
    repo.references.create(REF, base)
    return repo, base


def tree_of(repo: pygit2.Repository, rev: pygit2.Oid | str) -> pygit2.Oid:
    return repo.revparse_single(str(rev)).peel(pygit2.Commit).tree_id


def first_parent_chain(repo: pygit2.Repository, tip: pygit2.Oid, stop: pygit2.Oid) -> list[pygit2.Commit]:
    out = []
    commit_ = repo[tip]
    while commit_.id != stop:
        out.append(commit_)
        commit_ = repo[commit_.parent_ids[0]]
    return out


# -- workers for multiprocessing (spawn): module level so a fresh interpreter can import them -----
def merge_worker(repo_path: str, ref: str, base: str, tasks: list[str], barrier, results) -> None:
    """Merge `tasks` one after another into `ref`, starting together with the other workers."""
    from worktree_coord.integrate import merge_into

    barrier.wait(timeout=120)
    out = []
    for task in tasks:
        r = merge_into(repo_path, ref, task, base, message=f"merge {task}", author=SIG)
        out.append((task, r.state.value, r.path.value, r.attempts, r.new_tip))
    results.put(out)


def crashing_merge(repo_path: str, ref: str, base: str, task: str, crash_at: str) -> None:
    """Merge one task with the crash point `crash_at` armed: the process SIGKILLs itself there."""
    os.environ["WTC_CRASH_AT"] = crash_at
    from worktree_coord.integrate import merge_into

    merge_into(repo_path, ref, task, base, message=f"merge {task}", author=SIG)
