#!/usr/bin/env python3
"""Benchmark: the CPU of one `wtc gc` (user + system, its git processes included) over a user state
folder holding many leftover port leases, for each `--src` checkout, the checkouts interleaved call
by call.

Each call gets a fresh copy of `--state-template` (scripts/make_port_state.py `--lease-files`,
copied with `cp -a`, which keeps the lease files' hard links): gc reclaims the leftovers there, so a
second call over the same folder would measure an empty sweep. The copy's CPU is not counted.

    python scripts/bench_gc_cpu.py --src OLD --src NEW --state-template DIR [--runs 7]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path


def _cpu_ms() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (usage.ru_utime + usage.ru_stime) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--src", action="append", required=True, help="a checkout whose worktree_coord to measure")
    parser.add_argument("--state-template", type=Path, required=True, help="a user state folder (copied each call)")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--warm", action="store_true",
                        help="one unmeasured gc on each copy first: the cost of a gc over the leases that stay")
    args = parser.parse_args()
    cpu: dict[str, list[float]] = {src: [] for src in args.src}
    left: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="wtc-bench-gc-cpu-") as tmp_name:
        tmp = Path(tmp_name)
        repo = tmp / "repo"
        identity = ["-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
        subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
        (repo / "README.md").write_text("bench\n")
        subprocess.run(["git", *identity, "-C", str(repo), "add", "-A"], check=True)
        subprocess.run(["git", *identity, "-C", str(repo), "commit", "-q", "-m", "init"], check=True)
        # A repository with a store: gc has nothing to sweep (and skips the registry) in one without.
        subprocess.run([sys.executable, "-m", "worktree_coord", "run", "start", "--run", "r1"], cwd=repo, check=True,
                       capture_output=True, env=dict(os.environ, WTC_STATE_DIR=str(tmp / "setup-state"),
                                                     WTC_NO_SERVE="1", PYTHONPATH=args.src[0]))
        for number in range(args.runs):
            for src in args.src:
                state = tmp / "state"
                shutil.rmtree(state, ignore_errors=True)
                subprocess.run(["cp", "-a", str(args.state_template), str(state)], check=True)
                env = dict(os.environ, WTC_STATE_DIR=str(state), WTC_NO_SERVE="1", PYTHONPATH=src)
                env.pop("PYTHONPROFILEIMPORTTIME", None)
                if args.warm:
                    subprocess.run([sys.executable, "-m", "worktree_coord", "gc"], cwd=repo, env=env, check=True,
                                   capture_output=True)
                before = _cpu_ms()
                subprocess.run([sys.executable, "-m", "worktree_coord", "gc"], cwd=repo, env=env, check=True,
                               capture_output=True)
                cpu[src].append(_cpu_ms() - before)
                left[src] = sum(1 for name in os.listdir(state / "ports") if name.isdigit())
    print(f"wtc gc{' (warm)' if args.warm else ''}, medians of {args.runs}; state {args.state_template}; load {os.getloadavg()[0]:.1f}")
    for src in args.src:
        print(f"  {src:40} CPU {statistics.median(cpu[src]):7.1f} ms   port names left {left[src]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
