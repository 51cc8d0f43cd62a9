#!/usr/bin/env python3
"""Benchmark: what tracing costs the coordinator, against tracing compiled out.

Modes (each in its own process, since telemetry is decided once per process):

  stripped   tracing compiled out: `events.stage` replaced by a bare context manager and no
             telemetry (the coordinator as it would be without any of it)
  off        the default: nothing configured, so `opentelemetry` is not even imported; stages are
             events to a NullReporter
  noop       the OpenTelemetry API with no SDK and no exporter (what a host that imports
             opentelemetry without configuring it gets): every span is made, as a no-op span
  file       the SDK recording every span to WTC_TRACE_FILE (for scale: the cost of real tracing)

1. The operation loop, a realistic one: in a repository of `--files` files (one folder per task),
   each task is started, three of its files are edited, and it is finished (boundary check, merge
   into integration, per-file account when traced). Each mode runs `--tasks` tasks per round, the
   modes take turns for `--rounds` rounds (so the machine's load moves them alike); the median time
   of one start+finish per mode, and its ratio to `stripped` measured in the same run.
2. The stage itself: the median time of one `with coordinator._stage(...)` (begin and end events,
   and a span when traced) in a tight loop, per mode, in microseconds.
   The stage cost times the spans one task's start + finish makes gives each mode's overhead per
   operation, a figure the noise of a shared machine does not swamp as it does the operation medians.
3. Import: the median time of `python -c "import worktree_coord.coordinator"` and how many
   `opentelemetry` modules it loaded, with nothing configured and with WTC_TRACE_FILE set.

Usage: python scripts/bench_tracing.py [--files N] [--tasks N] [--rounds N] [--json]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Iterator

ROOT = Path(__file__).resolve().parents[1]
MODES = ("stripped", "off", "noop", "file")
IDENTITY = ["-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]


def make_repo(path: Path, files: int, folders: int) -> None:
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True)
    per = max(1, files // folders)
    for folder in range(folders):
        directory = path / "src" / f"pkg{folder:03d}"
        directory.mkdir(parents=True)
        for index in range(per):
            body = "".join(f"def f{index}_{k}(x):\n    return x + {k}\n\n\n" for k in range(6))
            (directory / f"mod{index:03d}.py").write_text(body)
    subprocess.run(["git", *IDENTITY, "-C", str(path), "add", "-A"], check=True)
    subprocess.run(["git", *IDENTITY, "-C", str(path), "commit", "-qm", "init"], check=True)


# ---- one mode's worker (a subprocess) -----------------------------------------------------------

def worker(repo: Path, mode: str, run: str, first: int, tasks: int, stage_loops: int) -> dict[str, Any]:
    if mode == "stripped":
        from worktree_coord.coordinator import base

        @contextlib.contextmanager
        def bare(reporter: Any, name: str, **data: Any) -> Iterator[dict[str, Any]]:
            yield {}

        base.stage = bare   # type: ignore[assignment]
        import worktree_coord.consolidate.root as root
        root.stage = bare   # type: ignore[assignment]
    elif mode == "noop":
        from worktree_coord import telemetry

        telemetry.install()   # the API's no-op tracer and meter: spans made, nothing recorded
    from worktree_coord.coordinator import Coordinator

    times = []
    with Coordinator(repo) as coord:
        if coord.store.get_run(run) is None:
            coord.start_run(run)
        for number in range(first, first + tasks):
            folder = f"src/pkg{number:03d}"
            started = time.perf_counter()
            worktree = Path(coord.start_task(run, f"t{number}", [f"{folder}/**"]).worktree)
            for index in range(3):
                path = worktree / folder / f"mod{index:03d}.py"
                path.write_text(path.read_text().replace("return x + 1\n", f"return x + 1000{number}\n", 1))
            result = coord.finish_task(run, f"t{number}")
            times.append(time.perf_counter() - started)
            assert result.state == "merged", result
        stage_times = []
        for _ in range(5):
            began = time.perf_counter()
            for _ in range(stage_loops):
                with coord._stage("bench", run=run, task="t0") as out:
                    out["files"] = 1
            stage_times.append((time.perf_counter() - began) / stage_loops)
    return {"times": times, "stage": statistics.median(stage_times)}


# ---- the driver -----------------------------------------------------------------------------------

def environment(mode: str, trace_file: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "WTC_TRACE", "WTC_TELEMETRY"))}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    if mode == "file":
        env["WTC_TRACE_FILE"] = str(trace_file)
    return env


def run_worker(repo: Path, mode: str, first: int, tasks: int, stage_loops: int, trace_file: Path) -> dict[str, Any]:
    args = [sys.executable, __file__, "--worker", str(repo), mode, f"run-{mode}", str(first), str(tasks),
            str(stage_loops)]
    done = subprocess.run(args, env=environment(mode, trace_file), capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"worker {mode} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def import_cost(runs: int, trace_file: Path) -> dict[str, Any]:
    code = ("import sys, time; t = time.perf_counter(); import worktree_coord.coordinator as c; "
            "from worktree_coord import telemetry; telemetry.current(); "
            "print(time.perf_counter() - t, sum(1 for m in sys.modules if m.startswith('opentelemetry')))")
    out = {}
    for mode in ("off", "file"):
        seconds, modules = [], 0
        for _ in range(runs):
            done = subprocess.run([sys.executable, "-c", code], env=environment(mode, trace_file),
                                  capture_output=True, text=True, check=True)
            value, modules_text = done.stdout.split()
            seconds.append(float(value))
            modules = int(modules_text)
        out[mode] = {"median_ms": round(statistics.median(seconds) * 1000, 1), "opentelemetry_modules": modules}
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--tasks", type=int, default=8, help="tasks per mode per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--stage-loops", type=int, default=2000)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--worker", nargs=6, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        repo, mode, run, first, tasks, loops = args.worker
        print(json.dumps(worker(Path(repo), mode, run, int(first), int(tasks), int(loops))))
        return 0
    folders = args.tasks * args.rounds
    with tempfile.TemporaryDirectory(prefix="wtc-bench-tracing-") as tmp:
        repo = Path(tmp) / "repo"
        make_repo(repo, args.files, folders)
        trace_file = Path(tmp) / "spans.jsonl"
        times: dict[str, list[float]] = {m: [] for m in MODES}
        stage: dict[str, list[float]] = {m: [] for m in MODES}
        for round_number in range(args.rounds):
            order = MODES[round_number % len(MODES):] + MODES[:round_number % len(MODES)]
            for mode in order:
                found = run_worker(repo, mode, round_number * args.tasks, args.tasks, args.stage_loops, trace_file)
                times[mode] += found["times"]
                stage[mode].append(found["stage"])
        names = [json.loads(line)["name"] for line in trace_file.open()] if trace_file.exists() else []
        spans = len(names)
        # Spans one task's start + finish makes (the run's root and the bench's own stages left out):
        # what the per-stage cost is multiplied by in one operation.
        per_task = sum(1 for n in names if n not in ("wtc.bench", "wtc.run")) / (args.tasks * args.rounds)
        imports = import_cost(max(5, args.rounds), trace_file)
    base = statistics.median(times["stripped"])
    report = {
        "files": args.files, "tasks_per_mode": args.tasks * args.rounds, "rounds": args.rounds,
        "operation": {m: {"median_ms": round(statistics.median(times[m]) * 1000, 2),
                          "ratio": round(statistics.median(times[m]) / base, 3)} for m in MODES},
        "stage_us": {m: round(statistics.median(stage[m]) * 1e6, 2) for m in MODES},
        "spans_written": spans,
        "spans_per_task": round(per_task, 2),
        # The overhead of a mode on one operation from the stage loop (less noisy than the difference
        # of two operation medians on a loaded machine): spans per task x (one stage - stripped's).
        "derived_overhead_ms": {m: round(per_task * (statistics.median(stage[m]) - statistics.median(stage["stripped"]))
                                         * 1000, 3) for m in MODES},
        "import": imports,
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"task start + finish (merge), {args.files} files, {report['tasks_per_mode']} tasks per mode, "
          f"{args.rounds} interleaved rounds:")
    for mode in MODES:
        row = report["operation"][mode]
        print(f"  {mode:9} median {row['median_ms']:8.2f} ms   ratio to stripped {row['ratio']:.3f}   "
              f"one stage {report['stage_us'][mode]:7.2f} us")
    print(f"  spans written by `file`: {spans} ({report['spans_per_task']} per task start + finish)")
    for mode in MODES[1:]:
        derived = report["derived_overhead_ms"][mode]
        print(f"  {mode:9} derived overhead per operation: {derived:.3f} ms "
              f"({derived / report['operation']['stripped']['median_ms'] * 100:.4f}% of stripped's median)")
    for mode, row in imports.items():
        print(f"import worktree_coord.coordinator ({mode}): median {row['median_ms']} ms, "
              f"{row['opentelemetry_modules']} opentelemetry modules")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
