"""Benchmark: `wtc task start --sparse` for one package vs a plain full `git worktree add`.

Generates a monorepo (default 200 packages x 250 files = 50,000 files), then, in the same run and
alternating the two methods, times:
  baseline  git worktree add -b B PATH main          (full checkout, what most tools do)
  wtc       wtc task start T --run R --own 'packages/p017/**' --sparse   (the real CLI, new process)
Prints medians (at least 5 runs each) and the ratio. Target: wtc at least 20x faster.

    python scripts/bench_worktree.py [--packages 200] [--files 250] [--runs 5] [--dir DIR]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from monorepo import generate  # noqa: E402


def timed(args: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(args, cwd=cwd, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--packages", type=int, default=200)
    parser.add_argument("--files", type=int, default=250)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--dir", type=Path, default=None)
    options = parser.parse_args()
    work = options.dir or Path(tempfile.mkdtemp(prefix="wtc-bench-wt-"))
    repo = work / "repo"
    t0 = time.perf_counter()
    generate(repo, options.packages, options.files)
    print(f"generated {options.packages * options.files} files in {time.perf_counter() - t0:.1f} s at {repo}")
    wtc = [sys.executable, "-m", "worktree_coord"]
    subprocess.run(wtc + ["run", "start", "--run", "bench"], cwd=repo, check=True, capture_output=True)
    full, sparse = [], []
    for i in range(options.runs):
        path = work / f"full-{i}"
        full.append(timed(["git", "worktree", "add", "-q", "-b", f"full-{i}", str(path), "main"], repo))
        shutil.rmtree(path)
        subprocess.run(["git", "worktree", "prune"], cwd=repo, check=True)
        sparse.append(timed(wtc + ["task", "start", f"t{i}", "--run", "bench", "--own",
                                   f"packages/p{17 + i:03d}/**", "--sparse"], repo))
        print(f"run {i + 1}: full {full[-1]:.2f} s, wtc sparse {sparse[-1]:.3f} s", flush=True)
    med_full, med_sparse = statistics.median(full), statistics.median(sparse)
    print(f"median full git worktree add: {med_full:.2f} s")
    print(f"median wtc task start --sparse: {med_sparse:.3f} s (includes Python start-up)")
    print(f"ratio: wtc is {med_full / med_sparse:.1f}x faster (target >= 20x)")
    if options.dir is None:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
