#!/usr/bin/env python3
"""Benchmark: the CPU of one `wtc task start` (user + system, its git processes included) and its
wall time, for each `--src` checkout, the checkouts interleaved call by call.

On a machine shared with other work the wall time is mostly the load; the CPU a call and its
children spend is the figure that compares. Each source gets a repository with one run and a user
state folder of its own (empty, or a copy of `--state-template`: scripts/make_port_state.py), and
one unmeasured start first (an earlier version's port registry is migrated there).

    python scripts/bench_start_cpu.py --src OLD --src NEW [--state-template DIR] [--runs 11]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--src", action="append", required=True, help="a checkout whose worktree_coord to measure")
    parser.add_argument("--state-template", type=Path, help="a user state folder each source starts from (a copy)")
    parser.add_argument("--runs", type=int, default=11)
    args = parser.parse_args()
    envs: dict[str, dict[str, str]] = {}
    repos: dict[str, Path] = {}
    with tempfile.TemporaryDirectory(prefix="wtc-bench-start-cpu-") as tmp_name:
        tmp = Path(tmp_name)
        for index, src in enumerate(args.src):
            state = tmp / f"state-{index}"
            if args.state_template is not None:
                subprocess.run(["cp", "-a", str(args.state_template), str(state)], check=True)  # keeps hard links
            else:
                state.mkdir()
            env = dict(os.environ, WTC_STATE_DIR=str(state), WTC_NO_SERVE="1", PYTHONPATH=src)
            env.pop("PYTHONPROFILEIMPORTTIME", None)
            repo = tmp / f"repo-{index}"
            identity = ["-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
            subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
            (repo / "README.md").write_text("bench\n")
            subprocess.run(["git", *identity, "-C", str(repo), "add", "-A"], check=True)
            subprocess.run(["git", *identity, "-C", str(repo), "commit", "-q", "-m", "init"], check=True)
            for call in (["run", "start", "--run", "r1"], ["task", "start", "warm", "--run", "r1", "--own", "warm/**"]):
                subprocess.run([sys.executable, "-m", "worktree_coord", *call], cwd=repo, env=env, check=True,
                               capture_output=True)
            envs[src], repos[src] = env, repo
        cpu: dict[str, list[float]] = {src: [] for src in args.src}
        wall: dict[str, list[float]] = {src: [] for src in args.src}
        for number in range(args.runs):
            for src in args.src:
                before, started = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
                subprocess.run([sys.executable, "-m", "worktree_coord", "task", "start", f"t{number}", "--run", "r1",
                                "--own", f"p{number}/**", "--json"], cwd=repos[src], env=envs[src], check=True,
                               capture_output=True)
                wall[src].append((time.perf_counter() - started) * 1000)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu[src].append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
    print(f"task start, medians of {args.runs}; state {args.state_template or 'empty'}; load {os.getloadavg()[0]:.1f}")
    for src in args.src:
        print(f"  {src:40} CPU {statistics.median(cpu[src]):7.1f} ms   wall {statistics.median(wall[src]):7.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
