"""Benchmark: what a merge's verification costs in git before its command runs, on a small and a
large tree: a scratch worktree built and removed for each candidate (before) vs the run's kept
worktree moved to each candidate (after: `reset --hard` + `clean -ffdx`, coordinator/verification.py).

For each tree size (default 482 and 20,001 files, scripts/monorepo.py), a chain of candidate commits
is made, each changing 2 files, as merges onto integration do; each is verified with the command
`true`, alternating the two ways (paired in the same run). Measured per verification: the CPU of
the child processes (getrusage, user + sys: git's, and the `rm` that deletes a removed scratch
worktree's files; the `sh -c true` both run is the same), this process's own CPU and wall time.
Prints medians and the ratios before/after.

    python scripts/bench_verify_worktree.py [--sizes 1x481,80x250] [--rounds 9] [--dir DIR]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from monorepo import generate  # noqa: E402

from worktree_coord.coordinator.verification import verify_commit  # noqa: E402
from worktree_coord.gitrepo import GitRepo  # noqa: E402
from worktree_coord.isolation import spawn_for  # noqa: E402


def candidates(repo: Path, count: int) -> list[str]:
    """`count` commits in a chain from main, each changing 2 files (a merge's usual size)."""
    files = subprocess.run(["git", "ls-tree", "-r", "--name-only", "main"], cwd=repo, check=True,
                           capture_output=True, text=True).stdout.split()
    paths = [f for f in files if f.endswith(".py")]
    commits, parent = [], subprocess.run(["git", "rev-parse", "main"], cwd=repo, check=True, capture_output=True,
                                         text=True).stdout.strip()
    for n in range(count):
        lines = ["commit refs/heads/candidates", "committer bench <b@example.invalid> 1700000000 +0000",
                 "data 4", "cand", f"from {parent}"]
        for path in (paths[(7 * n) % len(paths)], paths[(7 * n + 3) % len(paths)]):
            data = f"# candidate {n}\nx = {n}\n"
            lines += [f"M 100644 inline {path}", f"data {len(data.encode())}", data.rstrip("\n")]
        subprocess.run(["git", "fast-import", "--quiet", "--force"], cwd=repo, check=True,
                       input=("\n".join(lines) + "\n").encode())
        parent = subprocess.run(["git", "rev-parse", "refs/heads/candidates"], cwd=repo, check=True,
                                capture_output=True, text=True).stdout.strip()
        commits.append(parent)
    return commits


def measured(call) -> tuple[float, float, float]:
    """(children's CPU, own CPU, wall) of `call()`, in seconds."""
    children, own = resource.getrusage(resource.RUSAGE_CHILDREN), resource.getrusage(resource.RUSAGE_SELF)
    wall = time.perf_counter()
    call()
    wall = time.perf_counter() - wall
    children2, own2 = resource.getrusage(resource.RUSAGE_CHILDREN), resource.getrusage(resource.RUSAGE_SELF)
    return (children2.ru_utime + children2.ru_stime - children.ru_utime - children.ru_stime,
            own2.ru_utime + own2.ru_stime - own.ru_utime - own.ru_stime, wall)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1x481,80x250", help="PACKAGESxFILES,... (files = 1 + P*F)")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--dir", type=Path, default=None)
    options = parser.parse_args()
    work = options.dir or Path(tempfile.mkdtemp(prefix="wtc-bench-verify-"))
    spawn = spawn_for("shared")   # the command's start is not what is measured
    for size in options.sizes.split(","):
        packages, files = (int(x) for x in size.split("x"))
        repo = generate(work / f"repo-{size}", packages, files)
        git = GitRepo(repo)
        commits = candidates(repo, 2 * options.rounds + 1)
        scratch = work / f"scratch-{size}"
        verify_commit(git, commits[0], "true", scratch, timeout=60, spawn=spawn, kept=True)   # built once
        before: list[tuple[float, float, float]] = []
        after: list[tuple[float, float, float]] = []
        for n, commit in enumerate(commits[1:]):
            kept = n % 2 == 1
            (after if kept else before).append(measured(
                lambda: verify_commit(git, commit, "true", scratch, timeout=60, spawn=spawn, kept=kept)))
        count = 1 + packages * files
        print(f"{count} files, {options.rounds} verifications each way (medians):")
        for label, index in (("git+rm CPU", 0), ("own CPU", 1), ("wall", 2)):
            b = statistics.median(m[index] for m in before)
            a = statistics.median(m[index] for m in after)
            print(f"  {label:10s} scratch worktree {b * 1000:8.1f} ms   kept worktree {a * 1000:8.1f} ms   "
                  f"ratio {b / a if a else float('inf'):6.1f}x")


if __name__ == "__main__":
    main()
