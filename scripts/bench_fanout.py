"""Benchmark: what `wtc fanout` costs on top of its agents.

A plan of N tasks (default 200) whose agent only sleeps S seconds (default 2) and writes one file
of its own package, run with `wtc fanout --concurrency C` (default 16) on a small generated
monorepo. With free cores the wall time could be N x S / C (200 x 2 s / 16 = 25 s); the difference
is the runner's cost: starting each task's worktree, finishing, merging, and the scheduling around
them. Prints the wall time against that ideal, the overhead per task (as wall time: (wall - ideal)
/ N; as a slot sees it: that x C), the agents' own measured time, and the throughput. Exit 1 when a
task did not merge.

`--breakdown` runs the fanout in this process (as the command does, minus its start-up) and adds
where the tasks' pipelines waited: the repository-wide registration lock around `git worktree
add/prune` (gitrepo/filelock.py), the machine's admission queue for merges, the leases; and how long
each stage took (task.start, task.finish, merge, the agent).

    python scripts/bench_fanout.py [--tasks 200] [--sleep 2] [--concurrency 16] [--packages 10]
                                   [--files 3] [--breakdown] [--dir DIR]
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Iterator

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT))
from monorepo import generate  # noqa: E402


def plan_for(work: Path, options: argparse.Namespace) -> Path:
    tasks = []
    for i in range(options.tasks):
        mark = f"packages/p{i % options.packages:03d}/fanout/t{i:04d}.txt"
        tasks.append({"name": f"t{i:04d}", "prompt": f"Write the marker of task {i}.", "own": [mark],
                      "env": {"MARK": mark}})
    command = ["sh", "-c", 'sleep "$1" && mkdir -p "$(dirname "$MARK")" && echo "$2" > "$MARK"', "agent",
               str(options.sleep), "{task}"]
    plan = work / "plan.json"
    plan.write_text(json.dumps({"agent": {"command": command, "concurrency": options.concurrency, "attempts": 1},
                                "tasks": tasks}))
    return plan


def run_command(repo: Path, plan: Path) -> tuple[float, list[dict[str, Any]], int]:
    """`wtc fanout --json` as a user runs it: (wall seconds, its JSON lines, exit code)."""
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "worktree_coord", "fanout", str(plan), "--run", "bench", "--json"],
                          cwd=repo, capture_output=True, text=True)
    wall = time.perf_counter() - began
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    if not lines or lines[-1].get("schema") != "wtc.fanout/1":
        print(done.stdout[-2000:], done.stderr[-2000:])
    return wall, lines, done.returncode


def run_in_process(repo: Path, plan: Path) -> tuple[float, list[dict[str, Any]], int, dict[str, list[float]]]:
    """The same run in this process, with the waits and stages timed."""
    import io

    from worktree_coord import events
    from worktree_coord.fanout import driver, load, run_fanout
    from worktree_coord.fanout.view import JsonView
    from worktree_coord.gitrepo import filelock
    from worktree_coord.store import admission, leases

    waits: dict[str, list[float]] = collections.defaultdict(list)

    def timed(original: Any, label: Any) -> Any:
        @contextlib.contextmanager
        def wrapper(*args: Any, **kwargs: Any) -> Iterator[Any]:
            asked = time.perf_counter()
            with original(*args, **kwargs) as value:
                waits["wait " + label(args, kwargs)].append(time.perf_counter() - asked)
                held = time.perf_counter()
                yield value
            waits["hold " + label(args, kwargs)].append(time.perf_counter() - held)
        return wrapper

    filelock.exclusive = timed(filelock.exclusive, lambda a, k: "registration lock (" + k["what"].split()[0] + ")")
    admission.admitted = timed(admission.admitted, lambda a, k: "admission (heavy work)")
    leases.hold = timed(leases.hold, lambda a, k: "lease " + a[1].split(":")[0])
    original_stage = events.stage

    @contextlib.contextmanager
    def stage(reporter: Any, name: str, **data: Any) -> Iterator[dict[str, Any]]:
        began = time.perf_counter()
        with original_stage(reporter, name, **data) as out:
            yield out
        waits["stage " + name].append(time.perf_counter() - began)

    import worktree_coord.coordinator.base as base

    base.stage = driver.stage = stage
    buffer = io.StringIO()
    began = time.perf_counter()
    report = run_fanout(repo, load(plan), "bench", view=JsonView(buffer))
    wall = time.perf_counter() - began
    lines = [json.loads(line) for line in buffer.getvalue().splitlines()] + [{"schema": "wtc.fanout/1"}
                                                                              | report.to_json()]
    return wall, lines, report.exit_code, waits


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=200)
    parser.add_argument("--sleep", type=float, default=2.0)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--packages", type=int, default=10)
    parser.add_argument("--files", type=int, default=3)
    parser.add_argument("--breakdown", action="store_true")
    parser.add_argument("--dir", type=Path, default=None)
    options = parser.parse_args()
    work = options.dir or Path(tempfile.mkdtemp(prefix="wtc-bench-fanout-"))
    repo = generate(work / "repo", options.packages, options.files, checkout=True)
    plan = plan_for(work, options)
    os.environ.update(GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@example.com", GIT_COMMITTER_NAME="bench",
                      GIT_COMMITTER_EMAIL="bench@example.com")
    waits: dict[str, list[float]] = {}
    if options.breakdown:
        wall, lines, code, waits = run_in_process(repo, plan)
    else:
        wall, lines, code = run_command(repo, plan)
    summary = lines[-1] if lines else {}
    if summary.get("schema") != "wtc.fanout/1":
        return 1
    ends = [e for e in lines if e.get("event") == "agent.end"]
    ideal = options.tasks * options.sleep / options.concurrency
    merged = summary["counts"].get("merged", 0)
    first_end = min((e["elapsed_seconds"] for e in lines if e.get("event") == "task.end"), default=0.0)
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = float("nan")
    print(f"{options.tasks} tasks, agent sleeps {options.sleep} s, concurrency {options.concurrency}, "
          f"{os.cpu_count()} CPUs (load {load:.1f}), {options.packages * options.files} files; {merged} merged, "
          f"exit {code}")
    print(f"wall time      {wall:.1f} s (the runner's own clock: {summary['elapsed_seconds']:.1f} s)")
    print(f"ideal          {ideal:.1f} s ({options.tasks} x {options.sleep} s / {options.concurrency})")
    print(f"ratio          {wall / ideal:.2f}x the ideal")
    print(f"overhead/task  {(wall - ideal) / options.tasks * 1000:.0f} ms of wall time per task "
          f"({(wall - ideal) * options.concurrency / options.tasks:.2f} s of a slot)")
    print(f"agents         {sum(e['seconds'] for e in ends) / max(len(ends), 1):.2f} s each as the runner measured "
          f"them (sleep {options.sleep} s + process start)")
    print(f"first merge    at {first_end:.1f} s; throughput {merged / max(summary['elapsed_seconds'], 1e-9) * 60:.0f} "
          "merges/min")
    for name, values in sorted(waits.items(), key=lambda kv: -sum(kv[1])):
        print(f"  {name:42s} n={len(values):4d} total {sum(values):7.1f} s  mean {sum(values) / len(values) * 1000:6.0f} ms"
              f"  max {max(values) * 1000:6.0f} ms")
    if options.dir is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if merged == options.tasks else 1


if __name__ == "__main__":
    sys.exit(main())
