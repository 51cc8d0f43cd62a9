"""Benchmark: the conflict forecast over many live tasks in a large repository.

Generates a monorepo (default 80 packages x 250 files = 20,000 files), starts 64 tasks (sparse
worktrees: own package plus the shared package p000, as a monorepo task is started), and gives each
uncommitted edits: two modules of its own package, and one module of the shared package, edited by
pairs of tasks (tasks 2j and 2j+1 edit module j of p000: one function for even j, a conflict;
different functions for odd j, clean). Sizes run smallest first, tasks added up to each (16, 32,
64 live tasks); at each size it times:

  baseline   `git status --porcelain` in every live worktree, one after another: the read every
             forecast must do, and its floor
  cold       Coordinator.forecast(run) with the merge cache emptied first
  warm       Coordinator.forecast(run) again (files merged: 0; the cache answers)
  check      `wtc task check t0 --run bench --json` as an agent runs it (a new process, warm cache)

Prints medians (--runs each, default 5), the growth from 16 to 64 tasks, and checks the answer:
every even pair predicted in conflict and named, every odd pair predicted clean.

    python scripts/bench_forecast.py [--packages 80] [--files 250] [--tasks 16,32,64] [--runs 5] [--dir DIR]
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
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from monorepo import generate  # noqa: E402

from worktree_coord import Coordinator  # noqa: E402

RUN = "bench"


def edit(worktree: Path, task: int) -> None:
    """Task i: two modules of its own package, and module i//2 of the shared package p000."""
    own = worktree / f"packages/p{task + 1:03d}/src"
    for index in (0, 1):
        file = own / f"sub{index % 10}" / f"mod{index:03d}.py"
        file.write_text(file.read_text().replace("return x * 1 +", f"return x * 1 + {task} +"))
    pair = task // 2
    shared = worktree / f"packages/p000/src/sub{pair % 10}/mod{pair:03d}.py"
    # Even pair: both tasks edit f0 (a conflict). Odd pair: one edits f0, the other f2 (clean).
    function = 0 if (pair % 2 == 0 or task % 2 == 0) else 2
    text = shared.read_text()
    old = f"    return x * {function + 1} + 0\n"
    assert old in text, (shared, old)
    shared.write_text(text.replace(old, f"    return x * {function + 1} + 0 + {task + 1000}\n"))


def timed(function) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--packages", type=int, default=80)
    parser.add_argument("--files", type=int, default=250)
    parser.add_argument("--tasks", default="16,32,64")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--dir", type=Path, default=None)
    options = parser.parse_args()
    sizes = [int(n) for n in options.tasks.split(",")]
    if max(sizes) + 1 > options.packages:
        parser.error("--packages must exceed the largest task count (one package per task, plus p000)")
    work = options.dir or Path(tempfile.mkdtemp(prefix="wtc-bench-forecast-"))
    repo = work / "repo"
    t0 = time.perf_counter()
    generate(repo, options.packages, options.files, checkout=True)
    print(f"generated {options.packages * options.files} files in {time.perf_counter() - t0:.1f} s at {repo}")
    results: dict[int, dict[str, float]] = {}
    with Coordinator(repo) as coordinator:
        coordinator.start_run(RUN)
        started = 0
        warmed = False
        for size in sizes:
            t0 = time.perf_counter()
            while started < size:
                worktree = Path(coordinator.start_task(
                    RUN, f"t{started}", [f"packages/p{started + 1:03d}/**", "packages/p000/**"], sparse=True).worktree)
                edit(worktree, started)
                started += 1
            print(f"{size} live tasks ready ({time.perf_counter() - t0:.1f} s to start the new ones)", flush=True)
            worktrees = [Path(t.worktree) for t in coordinator.store.list_tasks(RUN) if t.worktree]
            cache = coordinator.git.wtc_dir / "forecast-cache"
            baseline, cold, warm, check = [], [], [], []
            forecast = None
            if not warmed:   # first use loads the grammars and the merge engine: not what is measured
                coordinator.forecast(RUN)
                warmed = True
            for _ in range(options.runs):
                baseline.append(timed(lambda: [subprocess.run(["git", "status", "--porcelain"], cwd=w, check=True,
                                                              capture_output=True, env={"GIT_OPTIONAL_LOCKS": "0",
                                                                                        "PATH": "/usr/bin:/bin"})
                                               for w in worktrees]))
                shutil.rmtree(cache, ignore_errors=True)
                cold.append(timed(lambda: coordinator.forecast(RUN)))
                holder: list = []
                warm.append(timed(lambda: holder.append(coordinator.forecast(RUN))))
                forecast = holder[0]
                assert forecast.stats["files_merged"] == 0, forecast.stats
                check.append(timed(lambda: subprocess.run(
                    [sys.executable, "-m", "worktree_coord", "task", "check", "t0", "--run", RUN, "--json"],
                    cwd=repo, capture_output=True)))
            verify(forecast, size)
            results[size] = {name: statistics.median(values) for name, values in
                             (("baseline", baseline), ("cold", cold), ("warm", warm), ("check", check))}
            r = results[size]
            print(f"{size:>3} tasks: git status x{size} {r['baseline']:.3f} s | forecast cold {r['cold']:.3f} s "
                  f"({r['cold'] / r['baseline']:.1f}x the status floor), warm {r['warm']:.3f} s "
                  f"({r['warm'] / r['baseline']:.1f}x) | wtc task check (new process) {r['check']:.3f} s", flush=True)
    low, high = min(sizes), max(sizes)
    for name in ("baseline", "cold", "warm", "check"):
        print(f"growth {low} -> {high} tasks ({high / low:.0f}x tasks), {name}: "
              f"{results[high][name] / results[low][name]:.2f}x")
    if options.dir is None:
        shutil.rmtree(work, ignore_errors=True)


def verify(forecast, size: int) -> None:
    """The answer, not only the time: even pairs in conflict with each other, odd pairs clean."""
    conflicts = {(c["left"], c["right"]) for c in forecast.conflicts}
    for pair in range(size // 2):
        a, b = f"t{2 * pair}", f"t{2 * pair + 1}"
        predicted = (a, b) in conflicts or (b, a) in conflicts
        assert predicted == (pair % 2 == 0), (pair, a, b, sorted(conflicts))
    assert len(forecast.tasks) == size and all(row["source"] == "worktree" for row in forecast.tasks)


if __name__ == "__main__":
    main()
