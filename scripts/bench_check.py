"""Benchmark `wtc check` (worktree_coord.check.check) against the git commands it stands in for.

Builds a synthetic monorepo (scripts/monorepo.py, no checkout), a feature branch that edits FILES
modules of one package plus one file of another package (a boundary violation), and moves `main`
in a third package so the dry-run merge is a real three-way merge. Then times, each REPEAT times:

  check     worktree_coord.check.check(repo, head="feature", own=["packages/p001/**"])  (in process)
  baseline  `git diff --name-only main...feature` + `git merge-tree --write-tree main feature`
            (two git spawns: the bare minimum a shell script would run for the same questions)

and prints medians and the ratio check / baseline.

    python scripts/bench_check.py [--packages 200] [--files-per-package 250] [--files 20] [--repeat 7]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pygit2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from monorepo import generate  # noqa: E402

from worktree_coord.ci import check  # noqa: E402
from worktree_coord.integrate.trees import update_tree  # noqa: E402


def commit_changes(repo: pygit2.Repository, parent: str, changes: dict[str, bytes], message: str) -> str:
    parent_commit = repo[pygit2.Oid(hex=parent)]
    entries = {path: (repo.create_blob(data), pygit2.enums.FileMode.BLOB) for path, data in changes.items()}
    tree = update_tree(repo, parent_commit.tree_id, entries)
    sig = pygit2.Signature("bench", "bench@example.invalid", 1700000100, 0)
    return str(repo.create_commit(None, sig, sig, message, tree, [parent_commit.id]))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--packages", type=int, default=200)
    parser.add_argument("--files-per-package", type=int, default=250)
    parser.add_argument("--files", type=int, default=20, help="modules the branch edits")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="wtc-bench-check-"))
    path = generate(root / "repo", args.packages, args.files_per_package)
    repo = pygit2.Repository(str(path))
    base = str(repo.references["refs/heads/main"].target)

    def module(package: int, index: int) -> str:
        return f"packages/p{package:03d}/src/sub{index % 10}/mod{index:03d}.py"

    def edited(rel: str) -> bytes:
        tree = repo[pygit2.Oid(hex=base)].peel(pygit2.Tree)
        return repo[tree[rel].id].data + b"\n\ndef added():\n    return 1\n"

    try:
        feature_changes = {module(1, i): edited(module(1, i)) for i in range(args.files)}
    except KeyError as missing:
        raise SystemExit(f"the generated repo has no {missing}: check scripts/monorepo.py's layout")
    feature_changes[module(2, 0)] = edited(module(2, 0))
    feature = commit_changes(repo, base, feature_changes, "feature")
    main_tip = commit_changes(repo, base, {module(3, 0): edited(module(3, 0))}, "main moves")
    repo.references.create("refs/heads/feature", pygit2.Oid(hex=feature), force=True)
    repo.references["refs/heads/main"].set_target(pygit2.Oid(hex=main_tip))

    check_times, git_times = [], []
    for _ in range(args.repeat):
        started = time.perf_counter()
        report = check(path, head="feature", target="main", own=["packages/p001/**"])
        check_times.append(time.perf_counter() - started)
        started = time.perf_counter()
        subprocess.run(["git", "-C", str(path), "diff", "--name-only", "main...feature"], check=True,
                       capture_output=True)
        subprocess.run(["git", "-C", str(path), "merge-tree", "--write-tree", "main", "feature"],
                       capture_output=True)
        git_times.append(time.perf_counter() - started)
    assert len(report.violations) == 1 and report.merge.clean, report.to_json()
    files = args.packages * args.files_per_package
    check_ms, git_ms = statistics.median(check_times) * 1000, statistics.median(git_times) * 1000
    print(f"repo: {files} files; branch edits {args.files + 1} files; main moved 1 file; repeat {args.repeat}")
    print(f"check    median {check_ms:8.1f} ms")
    print(f"baseline median {git_ms:8.1f} ms  (git diff --name-only + git merge-tree --write-tree)")
    print(f"ratio check/baseline {check_ms / git_ms:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
