#!/usr/bin/env python3
"""Benchmark: from how many tasks does a drain gain by holding its objects in memory, and what
do the packs such drains leave cost every later object lookup?

Two measurements on bench_merge.py's generated repository (20,000 files by default):
  drains   a drain of n tasks (the engine, no check) with its objects held and written as one
           pack (WTC_HOLD_OBJECTS=1) against the same drain writing loose objects (=0); each
           pair on fresh copies, back to back, alternating which goes first; printed: the
           median wall and CPU of the drain (publish included) and their ratios held / loose.
  packs    what k extra packs (each a held drain's: 3 objects a merge) cost later readers:
           `git cat-file --batch-check` of 2,000 ids and libgit2 reading 2,000 trees in a fresh
           Repository, with 0 and k packs besides the repository's own; medians, ratio.
The threshold in integrate/engine.py (HOLD_FROM) and docs/architecture.md "Cost of a merge"
come from these numbers.

Usage:
  python scripts/bench_hold_threshold.py --drains 1,2,4,8,16 --repeat 5 --packs 10,50
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pygit2

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import bench_merge as bm  # noqa: E402
from worktree_coord.integrate import Integrator  # noqa: E402
from worktree_coord.integrate.engine import HOLD_ENV  # noqa: E402


def drain(work: Path, n: int, hold: str, first: int = 0) -> tuple[float, float]:
    """(wall s, cpu s) of one drain of tasks first..first+n-1, publish included."""
    os.environ[HOLD_ENV] = hold
    repo = pygit2.Repository(str(work))
    base = repo.references["refs/heads/main"].target
    tip = repo.references[bm.INTEG].target if bm.INTEG in repo.references else base
    if bm.INTEG not in repo.references:
        repo.references.create(bm.INTEG, base)
    tasks = [repo.references[f"refs/heads/task/{i:04d}"].target for i in range(first, first + n)]
    cpu0, wall0 = bm._cpu(), time.perf_counter()
    with Integrator(repo) as engine:
        batch = engine.drain(bm.INTEG, signature=bm.SIG, tasks=n)
        for i, task in enumerate(tasks):
            batch.merge(task, base, message=f"merge {first + i}", author=bm.SIG)
        batch.publish()
    assert repo.references[bm.INTEG].target != tip
    return time.perf_counter() - wall0, bm._cpu() - cpu0


def fresh(gen: Path, work: Path) -> Path:
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(gen, work)
    return work


def measure_drains(gen: Path, root: Path, sizes: list[int], repeat: int) -> None:
    print("drains: n, held wall ms, loose wall ms, held/loose wall, held cpu ms, loose cpu ms, held/loose cpu")
    for n in sizes:
        walls: dict[str, list[float]] = {"1": [], "0": []}
        cpus: dict[str, list[float]] = {"1": [], "0": []}
        for rep in range(repeat):
            for hold in (("1", "0") if rep % 2 == 0 else ("0", "1")):
                wall, cpu = drain(fresh(gen, root / "work"), n, hold)
                walls[hold].append(wall)
                cpus[hold].append(cpu)
        ratio_w = statistics.median(a / b for a, b in zip(walls["1"], walls["0"]))
        ratio_c = statistics.median(a / b for a, b in zip(cpus["1"], cpus["0"]))
        print(f"  {n:4d}  {1000 * statistics.median(walls['1']):8.1f}  {1000 * statistics.median(walls['0']):8.1f}  "
              f"{ratio_w:5.2f}  {1000 * statistics.median(cpus['1']):8.1f}  {1000 * statistics.median(cpus['0']):8.1f}  "
              f"{ratio_c:5.2f}  load {os.getloadavg()[0]:.1f}", flush=True)


def lookups(work: Path, ids: list[str], repeat: int) -> tuple[float, float]:
    """Median ms of git cat-file --batch-check over `ids`, and of libgit2 reading them fresh."""
    git_ms, lib_ms = [], []
    batch = "".join(f"{i}\n" for i in ids).encode()
    for _ in range(repeat):
        t = time.perf_counter()
        subprocess.run(["git", "-C", str(work), "cat-file", "--batch-check"], input=batch, check=True,
                       capture_output=True)
        git_ms.append(1000 * (time.perf_counter() - t))
        repo = pygit2.Repository(str(work))
        t = time.perf_counter()
        for i in ids:
            repo.odb.read_header(i)   # not libgit2's object cache: a fresh odb each repetition
        lib_ms.append(1000 * (time.perf_counter() - t))
    return statistics.median(git_ms), statistics.median(lib_ms)


def measure_packs(gen: Path, root: Path, counts: list[int], repeat: int, per_pack: int) -> None:
    print(f"packs: k extra packs of {per_pack} merges each; git cat-file ms, libgit2 ms (2,000 trees), ratios to k=0")
    work = fresh(gen, root / "packs")
    repo = pygit2.Repository(str(work))
    tree_ids: list[str] = []
    walk = [repo.revparse_single("main").peel(pygit2.Tree)]
    while walk and len(tree_ids) < 2000:
        tree = walk.pop()
        for entry in tree:
            if entry.type_str == "tree":
                tree_ids.append(str(entry.id))
                walk.append(repo[entry.id])
    ids = tree_ids[:2000]
    base_git, base_lib = lookups(work, ids, repeat)
    print(f"  k=0  {base_git:7.1f}  {base_lib:7.1f}")
    made, first = 0, 0
    for k in counts:
        while made < k:
            drain(work, per_pack, "1", first)
            first += per_pack
            made += 1
        g, lib = lookups(work, ids, repeat)
        packs = len(list((work / "objects" / "pack").glob("*.pack")))
        print(f"  k={k:<3d} {g:7.1f}  {lib:7.1f}   {g / base_git:5.2f}  {lib / base_lib:5.2f}   ({packs} packs)  "
              f"load {os.getloadavg()[0]:.1f}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=100, help="files per package (x200 packages)")
    parser.add_argument("--drains", default="1,2,4,8,16", help="drain sizes to compare held against loose")
    parser.add_argument("--packs", default="10,50", help="extra pack counts to measure lookups with")
    parser.add_argument("--per-pack", type=int, default=4, help="merges in each extra pack's drain")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--workdir", help="keep the generated repository here (default: a temp dir)")
    args = parser.parse_args()
    root = Path(args.workdir or tempfile.mkdtemp(prefix="wtc-bench-hold-"))
    sizes = [int(s) for s in args.drains.split(",") if s]
    counts = [int(s) for s in args.packs.split(",") if s]
    tasks = max(sizes + [max(counts, default=0) * args.per_pack])
    gen = root / f"gen-{args.files}-{tasks}"
    try:
        if not gen.exists():
            bm.generate(gen, args.files, tasks)
        print(f"# bench_hold_threshold: {args.files * bm.PACKAGES} files, load {os.getloadavg()[0]:.1f}", flush=True)
        if sizes:
            measure_drains(gen, root, sizes, args.repeat)
        if counts:
            measure_packs(gen, root, counts, args.repeat, args.per_pack)
    finally:
        os.environ.pop(HOLD_ENV, None)
        if not args.workdir:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
