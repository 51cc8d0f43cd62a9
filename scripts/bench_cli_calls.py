#!/usr/bin/env python3
"""CPU of the swarm's CLI calls, this checkout against another, in one run: real `wtc` processes
(`task start --sparse`, `task finish` with its merge, `status`) on stress_swarm.py's repository,
the two codes alternating task by task; prints the medians and their ratio.

    python scripts/bench_cli_calls.py --baseline DIR [--tasks 8] [--no-merge]

DIR is a copy of the other code (e.g. `git archive main | tar -x -C DIR`); its package is put
first on PYTHONPATH for its calls. CPU is the process's and its git children's (wait4), so the
ratio holds under load; wall times are not reported.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import stress_swarm  # noqa: E402  (scripts/ is not a package)
from bytecode import compiled_baseline  # noqa: E402

KINDS = ("start", "finish", "status")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", required=True, help="a folder holding the other code's worktree_coord/")
    parser.add_argument("--tasks", type=int, default=8, help="tasks per code")
    parser.add_argument("--no-merge", action="store_true",
                        help="finish with --no-merge: the finish alone (its commit, boundary check and the facts "
                             "its later merge reads, check/task_facts.py), as a swarm whose lead drains with `wtc merge`")
    options = parser.parse_args(argv)
    baseline = compiled_baseline(options.baseline)
    workdir = Path(tempfile.mkdtemp(prefix="wtc-bench-cli-"))
    repo = workdir / "repo"
    config = stress_swarm.SwarmConfig(tasks=2 * options.tasks + 2, packages=200, files=8)
    plans = stress_swarm.plan_tasks(config)
    stress_swarm.build_repo(repo, config, plans)
    codes = {"baseline": {"PYTHONPATH": str(baseline)}, "this": {}}

    def call(which: str, *args: str) -> tuple[float, dict[str, Any]]:
        env = dict(os.environ, **codes[which])
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        # cwd: the repository, never this checkout (`python -m` puts the cwd first on sys.path, before
        # PYTHONPATH, and the baseline's calls would run this checkout's code).
        done = subprocess.run([sys.executable, "-m", "worktree_coord", *args, "--repo", str(repo), "--json"],
                              env=env, capture_output=True, text=True, cwd=repo)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode not in (0, 1):
            raise SystemExit(f"{which}: wtc {' '.join(args)} exited {done.returncode}: {done.stdout}{done.stderr}")
        return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, json.loads(done.stdout)

    call("this", "run", "start", "--run", stress_swarm.RUN_ID)
    where = subprocess.run([sys.executable, "-c", "import worktree_coord; print(worktree_coord.__file__)"], cwd=repo,
                           env=dict(os.environ, **codes["baseline"]), capture_output=True, text=True).stdout.strip()
    if not where.startswith(str(baseline)):
        raise SystemExit(f"the baseline's calls would import {where}, not {baseline}")
    cpu: dict[tuple[str, str], list[float]] = {(w, k): [] for w in codes for k in KINDS}
    load = os.getloadavg()[0]
    for i in range(2 * options.tasks):
        which = "baseline" if i % 2 == 0 else "this"
        plan = plans[i]
        own = sum((["--own", g] for g in plan.own), [])
        seconds, body = call(which, "task", "start", plan.task, "--run", stress_swarm.RUN_ID, *own, "--sparse")
        cpu[(which, "start")].append(seconds)
        stress_swarm.apply_edits(Path(body["worktree"]), plan)
        seconds, _ = call(which, "task", "finish", plan.task, "--run", stress_swarm.RUN_ID, "-m", plan.task,
                          *(["--no-merge"] if options.no_merge else []))
        cpu[(which, "finish")].append(seconds)
        seconds, _ = call(which, "status", "--run", stress_swarm.RUN_ID)
        cpu[(which, "status")].append(seconds)
    print(f"{options.tasks} tasks per code, alternating; load {load:.1f} at start, {os.getloadavg()[0]:.1f} at end")
    total = {w: 0.0 for w in codes}
    for kind in KINDS:
        old, new = (statistics.median(cpu[(w, kind)]) for w in ("baseline", "this"))
        if kind != "status":
            total["baseline"] += old
            total["this"] += new
        print(f"{kind:<7} CPU p50: baseline {old * 1000:6.1f} ms, this {new * 1000:6.1f} ms, this/baseline {new / old:.2f}")
    print(f"start + finish: baseline {total['baseline'] * 1000:.0f} ms, this {total['this'] * 1000:.0f} ms, "
          f"this/baseline {total['this'] / total['baseline']:.2f}")
    shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
