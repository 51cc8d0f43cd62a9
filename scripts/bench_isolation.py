#!/usr/bin/env python3
"""Benchmark: what network isolation (worktree_coord/isolation.py) adds to each command wtc starts.

Times, as subprocesses, wall clock, interleaved over `--runs` rounds (default 21): `true` started
plainly (the baseline), `true` started through the shared `Spawn` (the same argv: nothing added),
`true` through the isolated `Spawn` (the helper: a Python start, unshare, loopback up, exec), and
`python -c pass` plainly, for scale. Prints each median and p90, the isolated median minus the
baseline's (the cost per spawn), and its ratio to `python -c pass` measured in the same run (the
machine's load moves both). A command a task starts (a test suite, an agent) runs for seconds to
hours: the cost to compare it with is that, not `true`.

Usage: python scripts/bench_isolation.py [--runs N] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

from worktree_coord.isolation import isolation_support, spawn_for


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    support = isolation_support()
    if not support.ok:
        print(f"network isolation unavailable here: {support.why}", file=sys.stderr)
        return 2
    commands = {
        "true": ["true"],
        "true, shared spawn": spawn_for("shared").argv(["true"]),
        "true, isolated spawn": spawn_for("isolated").argv(["true"]),
        "python -c pass": [sys.executable, "-c", "pass"],
    }
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(max(args.runs, 5)):
        for name, argv in commands.items():      # interleaved: a burst of load touches every command alike
            began = time.perf_counter()
            subprocess.run(argv, check=True, stdin=subprocess.DEVNULL)
            times[name].append((time.perf_counter() - began) * 1000)
    rows = {name: {"median_ms": round(statistics.median(ms), 2),
                   "p90_ms": round(sorted(ms)[int(0.9 * (len(ms) - 1))], 2)} for name, ms in times.items()}
    added = rows["true, isolated spawn"]["median_ms"] - rows["true"]["median_ms"]
    summary = {"runs": max(args.runs, 5), "commands": rows, "isolation_added_ms": round(added, 2),
               "isolation_added_vs_python_start": round(added / rows["python -c pass"]["median_ms"], 2)}
    if args.json:
        print(json.dumps(summary, indent=1))
        return 0
    for name, row in rows.items():
        print(f"{name:24} median {row['median_ms']:8.2f} ms   p90 {row['p90_ms']:8.2f} ms")
    print(f"isolation adds {added:.2f} ms per spawn (median), "
          f"{summary['isolation_added_vs_python_start']:.2f}x a `python -c pass` start measured in the same run")
    return 0


if __name__ == "__main__":
    sys.exit(main())
