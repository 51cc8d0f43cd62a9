#!/usr/bin/env python3
"""Where a task's calls spend their work: start, finish (with its merge), `wtc merge`, `wtc gc`,
measured in-process on bench_scale's repository (500 packages x 20 files, 10,001 files).

For each call, over the measured tasks (after a few warm-up tasks, so caches and the merge index
are as a swarm's later calls find them): wall and CPU time, the git processes it started (by
subcommand, with their wall time), the time it waited for and held the registration lock
(`registry.flock`), the store's write transactions (count and time), lease turns. One warm start
and one warm finish are also run under cProfile; the top functions by cumulative time are printed.

    python scripts/profile_task_calls.py [--tasks 10] [--warm 5] [--sparse/--no-sparse] [--profile-top 25]

fsyncs are not counted in-process (git's and SQLite's are in C): run the script under
`strace -f -c -e trace=fsync,fdatasync,msync` for those. A measuring tool, not a benchmark: it runs
one call at a time, so lock waits are 0 here by construction (the swarm's waits are in
stress_swarm.py's figures); the hold times say how long others would wait.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import os
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Iterator

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bytecode import compile_package  # noqa: E402  (scripts/ is not a package)

from bench_scale import build_repo, edit  # noqa: E402  (scripts/ is this script's folder)

RUN = "prof"


class Counters:
    """What one call did, gathered by the wrappers below."""

    def __init__(self) -> None:
        self.git: Counter[str] = Counter()
        self.git_seconds: defaultdict[str, float] = defaultdict(float)
        self.lock_wait = 0.0
        self.lock_hold = 0.0
        self.lock_turns = 0
        self.transactions = 0
        self.transaction_seconds = 0.0
        self.leases = 0

    def row(self) -> dict[str, Any]:
        return {"git": dict(self.git), "git_s": {k: round(v, 4) for k, v in self.git_seconds.items()},
                "lock_turns": self.lock_turns, "lock_wait_s": round(self.lock_wait, 4),
                "lock_hold_s": round(self.lock_hold, 4), "store_writes": self.transactions,
                "store_write_s": round(self.transaction_seconds, 4), "leases": self.leases}


CURRENT: list[Counters] = []


def instrument() -> None:
    """Wrap git's runner, the registration lock, the store's write transaction and leases."""
    from worktree_coord import filelock
    from worktree_coord.gitrepo import running
    from worktree_coord.gitrepo import repository
    from worktree_coord.store import leases, sqlite

    real_run = running.run_to_end

    def counted_run(command, **kwargs):  # type: ignore[no-untyped-def]
        words = [w for w in command[1:] if not w.startswith("-") and "=" not in w]
        name = words[0] if words else "?"
        if name in ("worktree", "sparse-checkout", "update-ref") and len(words) > 1:
            name += " " + words[1]
        began = time.perf_counter()
        try:
            return real_run(command, **kwargs)
        finally:
            if CURRENT:
                CURRENT[-1].git[name] += 1
                CURRENT[-1].git_seconds[name] += time.perf_counter() - began

    repository.run_to_end = counted_run   # the name GitRepo.git calls
    real_exclusive = filelock.exclusive

    @contextlib.contextmanager
    def timed_exclusive(path, **kwargs):  # type: ignore[no-untyped-def]
        began = time.perf_counter()
        with real_exclusive(path, **kwargs):
            got = time.perf_counter()
            try:
                yield
            finally:
                if CURRENT and Path(path).name == "registry.flock":
                    CURRENT[-1].lock_turns += 1
                    CURRENT[-1].lock_wait += got - began
                    CURRENT[-1].lock_hold += time.perf_counter() - got

    filelock.exclusive = timed_exclusive
    real_transaction = sqlite.SQLiteStore._transaction

    @contextlib.contextmanager
    def timed_transaction(self):  # type: ignore[no-untyped-def]
        began = time.perf_counter()
        with real_transaction(self) as cursor:
            yield cursor
        if CURRENT:
            CURRENT[-1].transactions += 1
            CURRENT[-1].transaction_seconds += time.perf_counter() - began

    sqlite.SQLiteStore._transaction = timed_transaction
    real_hold = leases.hold

    @contextlib.contextmanager
    def counted_hold(*args, **kwargs):  # type: ignore[no-untyped-def]
        if CURRENT:
            CURRENT[-1].leases += 1
        with real_hold(*args, **kwargs) as held:
            yield held

    leases.hold = counted_hold


@contextlib.contextmanager
def measured(rows: list[dict[str, Any]], op: str) -> Iterator[None]:
    counters = Counters()
    CURRENT.append(counters)
    wall, cpu = time.perf_counter(), time.process_time()
    children = os.times()
    try:
        yield
    finally:
        after = os.times()
        CURRENT.pop()
        rows.append({"op": op, "wall_s": time.perf_counter() - wall, "cpu_s": time.process_time() - cpu,
                     "children_cpu_s": (after.children_user - children.children_user)
                     + (after.children_system - children.children_system)} | counters.row())


def summary(rows: list[dict[str, Any]]) -> None:
    by_op: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_op[row["op"]].append(row)
    print(f"\n{'call':<14} {'n':>3} {'wall p50':>9} {'cpu p50':>8} {'git cpu':>8} {'git procs':>9} {'git wall':>9} "
          f"{'lock hold':>9} {'store wr':>8} {'wr s':>7} {'leases':>6}")
    for op, group in by_op.items():
        def med(key: str) -> float:
            return statistics.median(r[key] for r in group)
        procs = statistics.median(sum(r["git"].values()) for r in group)
        git_wall = statistics.median(sum(r["git_s"].values()) for r in group)
        print(f"{op:<14} {len(group):>3} {med('wall_s'):>9.3f} {med('cpu_s'):>8.3f} {med('children_cpu_s'):>8.3f} "
              f"{procs:>9.0f} {git_wall:>9.3f} {med('lock_hold_s'):>9.4f} {med('store_writes'):>8.0f} "
              f"{med('store_write_s'):>7.4f} {med('leases'):>6.0f}")
        kinds: Counter[str] = Counter()
        seconds: defaultdict[str, float] = defaultdict(float)
        for r in group:
            kinds.update(r["git"])
            for k, v in r["git_s"].items():
                seconds[k] += v
        shown = ", ".join(f"{k} x{n / len(group):g} ({seconds[k] / n * 1000:.0f} ms)" for k, n in kinds.most_common())
        print(f"{'':<14}     git per call: {shown or 'none'}")


def profile_one(label: str, action, top: int) -> None:  # type: ignore[no-untyped-def]
    profiler = cProfile.Profile()
    profiler.enable()
    action()
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(top)
    text = out.getvalue()
    start = text.find("   ncalls")
    print(f"\n--- cProfile of one warm {label} (top {top} by cumulative time) ---")
    print(text[start:] if start >= 0 else text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--packages", type=int, default=500)
    parser.add_argument("--files", type=int, default=20)
    parser.add_argument("--tasks", type=int, default=10, help="measured tasks")
    parser.add_argument("--warm", type=int, default=5, help="warm-up tasks before measuring")
    parser.add_argument("--sparse", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--profile-top", type=int, default=25, help="cProfile rows (0: no cProfile)")
    parser.add_argument("--fresh", action=argparse.BooleanOptionalAction, default=True,
                        help="a new Coordinator per call, as a CLI process or a served call's fork has "
                             "(--no-fresh: one Coordinator for every call, its caches warm)")
    parser.add_argument("--workdir")
    options = parser.parse_args(argv)
    compile_package()   # bytecode as an install has it, outside the timings (scripts/bytecode.py)

    workdir = Path(options.workdir or tempfile.mkdtemp(prefix="wtc-prof-"))
    repo = workdir / "repo"
    began = time.monotonic()
    files, lines = build_repo(repo, options.packages, options.files)
    print(f"repository: {files} files, {lines} lines (built in {time.monotonic() - began:.1f} s); "
          f"load {os.getloadavg()[0]:.1f}", flush=True)
    instrument()
    from worktree_coord import Coordinator

    shared = Coordinator(repo)
    shared.start_run(RUN)
    rows: list[dict[str, Any]] = []
    sparse = options.sparse

    @contextlib.contextmanager
    def coordinator() -> Iterator[Any]:
        """What a call works with: a Coordinator of its own (opened and closed inside the measured
        call, as a CLI process or a served call's fork has), or the shared one."""
        if not options.fresh:
            yield shared
            return
        with Coordinator(repo) as own:
            yield own

    def start(task: int) -> Path:
        with coordinator() as c:
            started = c.start_task(RUN, f"t{task:04d}", [f"packages/p{task % options.packages:03d}/**"], sparse=sparse)
        return Path(started.worktree)

    def finish(task: int, merge: bool = True) -> str:
        with coordinator() as c:
            return c.finish_task(RUN, f"t{task:04d}", merge=merge).state

    for task in range(options.warm):
        edit(start(task), task, options.packages, options.files)
        finish(task)
    measured_tasks = range(options.warm, options.warm + options.tasks)
    states: Counter[str] = Counter()
    for task in measured_tasks:
        with measured(rows, "task.start"):
            path = start(task)
        edit(path, task, options.packages, options.files)
        with measured(rows, "task.finish"):
            states[finish(task)] += 1
    # `wtc merge` of a few finished tasks, then a gc.
    queued = range(options.warm + options.tasks, options.warm + options.tasks + 5)
    for task in queued:
        edit(start(task), task, options.packages, options.files)
        finish(task, merge=False)
    with measured(rows, "merge (5)"):
        with coordinator() as c:
            c.merge(RUN)
    with measured(rows, "gc"):
        with coordinator() as c:
            c.gc()
    print(f"measured {options.tasks} tasks ({dict(states)}), sparse={sparse}, fresh={options.fresh}, load {os.getloadavg()[0]:.1f}")
    summary(rows)
    if options.profile_top:
        task = options.warm + options.tasks + 10
        holder: list[Path] = []
        profile_one("task start", lambda: holder.append(start(task)), options.profile_top)
        edit(holder[0], task, options.packages, options.files)
        profile_one("task finish", lambda: finish(task), options.profile_top)
        for extra in (task + 1, task + 2):
            edit(start(extra), extra, options.packages, options.files)
            finish(extra, merge=False)

        def drain() -> None:
            with coordinator() as c:
                c.merge(RUN)

        profile_one("wtc merge of 2 finished tasks", drain, options.profile_top)
    shared.close()
    if not options.workdir:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
