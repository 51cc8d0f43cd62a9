#!/usr/bin/env python3
"""Benchmark: the largest public agent workflows' scale, through the real `wtc` command line.

A workflow of up to 1,000 agents, 16 at a time, porting a codebase of about 750,000 lines. This
builds a repository of that size (PACKAGES packages x FILES files in four languages: Python,
TypeScript, Go and Rust, about 75 lines a file; 500 x 20 = 10,000 files by default), pins a run,
and lets AGENTS worker threads (the agents) drive TASKS tasks, each through

    wtc task start T --run R --own 'packages/pNNN/**' [--sparse] --json
    (the agent's edit: one function changed in its package, one file added; every 20th task also
     adds a workspace dependency to the reserved root package.json, which finish turns into an intent)
    wtc task finish T --run R --json                 (commits, checks, merges into integration)

then `wtc consolidate` (the intents, relocked by npm offline: workspace dependencies only) and
`wtc report`. Every wtc process is one `subprocess` reaped with `os.wait4`, so its wall time, CPU
time and peak resident memory (ru_maxrss: the process and the children it waited for) are its own.

With `--think SECONDS` each agent also works between its start and its finish, as a real agent
does (reads, edits, runs its tests): a pause sampled uniformly between 0.5x and 1.5x SECONDS per task
(seeded by `--seed`, so a run's pauses are the same on both paths). Without it (the default, 0) the
agents call wtc back to back: saturation, where 16 callers share 2 cores and a call's wall time is
mostly its wait for a core. Both are worth reporting: the saturated figure bounds the coordinator's
throughput, the paced one is the overhead an agent of a real workflow waits for.

Printed: p50/p99 of each command's wall time and peak memory, the coordination overhead per task
(start + finish wall time: what an agent waits for wtc), CPU-seconds per task, the integration
throughput (merges a minute over the whole run), the disk the worktrees took at their peak (sampled)
and the repository's size at the end. Goals (issue 36, item 4): overhead <= 1 s p50 at 16 agents on
2 cores; peak memory per process <= 200 MB.

Usage:
  python scripts/bench_scale.py                              # 1,000 tasks on 10,000 files (long)
  python scripts/bench_scale.py --tasks 100 --packages 100   # a quick look
  python scripts/bench_scale.py --json out.json --keep       # keep the repository, write the figures
  python scripts/bench_scale.py --serve                      # the warm path: a `wtc serve` takes every call
  python scripts/bench_scale.py --tasks 200 --think 15       # agents that work ~15 s between start and finish
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import queue
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bytecode import compile_package  # noqa: E402  (scripts/ is not a package)

ROOT = Path(__file__).resolve().parents[1]
RUN = "scale"
LANGUAGES = ("py", "ts", "go", "rs")
INTENT_EVERY = 20             # every 20th task also declares a dependency through the root package.json


# ---- the repository ---------------------------------------------------------------------------------

def source_text(language: str, package: int, index: int, functions: int = 12) -> str:
    """About 75 lines of one language: FUNCTIONS small functions (the agents edit `f0_<index>`)."""
    out: list[str] = []
    if language == "py":
        out += [f'"""Module {index} of package {package}."""', ""]
        for fn in range(functions):
            out += ["", f"def f{fn}_{index}(x):", f"    y = x * {fn + 1}", f"    y += {package}", "    return y", ""]
    elif language == "ts":
        out += [f"// Module {index} of package {package}.", ""]
        for fn in range(functions):
            out += [f"export function f{fn}_{index}(x: number): number {{", f"  let y = x * {fn + 1};",
                    f"  y += {package};", "  return y;", "}", ""]
    elif language == "go":
        out += [f"// Package p{package:03d} is module {index} of package {package}.", f"package p{package:03d}", ""]
        for fn in range(functions):
            out += [f"func F{fn}_{index}(x int) int {{", f"\ty := x * {fn + 1}", f"\ty += {package}", "\treturn y", "}",
                    ""]
    else:
        out += [f"//! Module {index} of package {package}.", ""]
        for fn in range(functions):
            out += [f"pub fn f{fn}_{index}(x: i64) -> i64 {{", f"    let mut y = x * {fn + 1};", f"    y += {package};",
                    "    y", "}", ""]
    return "\n".join(out).rstrip() + "\n"


def file_path(package: int, index: int) -> str:
    language = LANGUAGES[index % len(LANGUAGES)]
    return f"packages/p{package:03d}/src/sub{index % 5}/mod{index:03d}.{language}"


def build_repo(path: Path, packages: int, files: int) -> tuple[int, int]:
    """The repository, one commit on main via `git fast-import`; returns (files, lines)."""
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True)
    chunks: list[bytes] = [b"commit refs/heads/main\nmark :1\n"
                           b"author bench <bench@example.invalid> 1700000000 +0000\n"
                           b"committer bench <bench@example.invalid> 1700000000 +0000\ndata 7\ninitial\n"]
    count = lines = 0

    def inline(name: str, text: str) -> None:
        nonlocal count, lines
        data = text.encode()
        chunks.append(f"M 100644 inline {name}\ndata {len(data)}\n".encode() + data + b"\n")
        count += 1
        lines += text.count("\n")

    inline("package.json", json.dumps({"name": "scale", "private": True, "workspaces": ["packages/*"]}, indent=2) + "\n")
    for p in range(packages):
        inline(f"packages/p{p:03d}/package.json", json.dumps({"name": f"p{p:03d}", "version": "1.0.0"}, indent=2) + "\n")
        for i in range(files - 1):
            inline(file_path(p, i), source_text(LANGUAGES[i % len(LANGUAGES)], p, i))
    subprocess.run(["git", "fast-import", "--quiet"], cwd=path, input=b"".join(chunks), check=True)
    subprocess.run(["git", "reset", "-q", "--hard", "main"], cwd=path, check=True)
    # The lockfile of the root, as npm writes it offline for workspaces with no outside dependency.
    subprocess.run(["npm", "install", "--package-lock-only", "--offline", "--ignore-scripts", "--no-audit",
                    "--no-fund", "-q"], cwd=path, check=True, capture_output=True)
    subprocess.run(["git", "add", "package-lock.json"], cwd=path, check=True)
    subprocess.run(["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "commit", "-q", "-m",
                    "lockfile"], cwd=path, check=True)
    return count, lines


def edit(worktree: Path, task: int, packages: int, files: int) -> None:
    """The agent's work: one function of its package changed, one file added, sometimes a dependency."""
    package, index = task % packages, (task // packages) % (files - 1)
    target = worktree / file_path(package, index)
    text = target.read_text()
    language = LANGUAGES[index % len(LANGUAGES)]
    old = {"py": "    y = x * 1\n", "ts": "  let y = x * 1;\n", "go": "\ty := x * 1\n", "rs": "    let mut y = x * 1;\n"}[language]
    new = old.replace("* 1", f"* 1 + {task}")
    target.write_text(text.replace(old, new, 1))
    added = worktree / f"packages/p{package:03d}/src/added_t{task:04d}.py"
    added.parent.mkdir(parents=True, exist_ok=True)
    added.write_text(f'"""Added by task {task}."""\n\nVALUE = {task}\n')
    if task % INTENT_EVERY == INTENT_EVERY - 1:
        manifest = worktree / "package.json"
        data = json.loads(manifest.read_text())
        data.setdefault("dependencies", {})[f"p{(task * 7) % packages:03d}"] = "*"
        manifest.write_text(json.dumps(data, indent=2) + "\n")


# ---- calling wtc ------------------------------------------------------------------------------------

@dataclass
class Call:
    op: str
    task: int | None
    exit: int
    seconds: float
    cpu: float
    peak_mb: float


def call(repo: Path, op: str, args: Sequence[str], task: int | None = None) -> tuple[Call, dict[str, Any]]:
    began = time.monotonic()
    process = subprocess.Popen([sys.executable, "-m", "worktree_coord", *args, "--repo", str(repo), "--json"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=repo)
    # Both pipes read before reaping (stderr in a thread, so a chatty process cannot block on a full
    # pipe); reaped with wait4, not Popen.wait, for the process's own rusage.
    errors: list[bytes] = []
    reader = threading.Thread(target=lambda: errors.append(process.stderr.read()))  # type: ignore[union-attr]
    reader.start()
    out = process.stdout.read()  # type: ignore[union-attr]
    reader.join()
    err = errors[0] if errors else b""
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.monotonic() - began
    body: dict[str, Any] = {}
    try:
        body = json.loads(out or b"{}")
    except json.JSONDecodeError:
        body = {"unparsed": out.decode(errors="replace")[-400:]}
    if process.returncode not in (0, 1):
        body.setdefault("stderr", err.decode(errors="replace")[-400:])
    return Call(op, task, process.returncode, seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024), body


def think_seconds(think: float, seed: int, task: int) -> float:
    """How long the agent of `task` works between its start and its finish: uniform in [0.5, 1.5] x
    `think`, the same for a task on every run with the same seed."""
    return think * random.Random(seed * 1_000_003 + task).uniform(0.5, 1.5)


def worktree_kb(repo: Path) -> int:
    folder = repo / ".wtc" / "worktrees"
    if not folder.exists():
        return 0
    done = subprocess.run(["du", "-sk", str(folder)], capture_output=True, text=True)
    return int(done.stdout.split()[0]) if done.returncode == 0 and done.stdout else 0


def pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))] if ordered else 0.0


def run(options: argparse.Namespace) -> dict[str, Any]:
    load_at_start = os.getloadavg()[0]
    workdir = Path(options.workdir or tempfile.mkdtemp(prefix="wtc-scale-"))
    repo = workdir / "repo"
    began = time.monotonic()
    files, lines = build_repo(repo, options.packages, options.files)
    built = time.monotonic() - began
    print(f"repository: {files} files, {lines} lines, {options.packages} packages, 4 languages "
          f"(built in {built:.1f} s) at {repo}", flush=True)
    calls: list[Call] = []
    lock = threading.Lock()
    server = None
    if options.serve:
        from stress_swarm import start_server   # scripts/ is this script's folder (sys.path[0])

        server = start_server(repo)
    first, _ = call(repo, "run.start", ["run", "start", "--run", RUN])
    calls.append(first)
    tasks: queue.Queue[int] = queue.Queue()
    for task in range(options.tasks):
        tasks.put(task)
    outcomes: dict[int, str] = {}
    peak_disk = [0]
    stop = threading.Event()

    def sampler() -> None:
        while not stop.wait(options.disk_every):
            peak_disk[0] = max(peak_disk[0], worktree_kb(repo))

    def agent() -> None:
        while True:
            try:
                task = tasks.get_nowait()
            except queue.Empty:
                return
            name = f"t{task:04d}"
            own = f"packages/p{task % options.packages:03d}/**"
            start_args = ["task", "start", name, "--run", RUN, "--own", own] + (["--sparse"] if options.sparse else [])
            started, body = call(repo, "task.start", start_args, task)
            with lock:
                calls.append(started)
            if started.exit != 0:
                outcomes[task] = f"start exit {started.exit}: {body}"
                continue
            edit(Path(body["worktree"]), task, options.packages, options.files)
            if options.think > 0:
                # The agent's own work between its calls: no wtc process runs for it meanwhile.
                time.sleep(think_seconds(options.think, options.seed, task))
            finished, body = call(repo, "task.finish", ["task", "finish", name, "--run", RUN], task)
            with lock:
                calls.append(finished)
            outcomes[task] = body.get("state", f"exit {finished.exit}: {body}")

    threading.Thread(target=sampler, daemon=True).start()
    swarm_began = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(options.agents) as pool:
        for future in [pool.submit(agent) for _ in range(options.agents)]:
            future.result()
    swarm = time.monotonic() - swarm_began
    stop.set()
    consolidated, consolidation = call(repo, "consolidate", ["consolidate", "--run", RUN])
    reported, report = call(repo, "report", ["report", "--run", RUN])
    calls += [consolidated, reported]
    server_peak_mb = None
    server_cpu = 0.0
    if server is not None:
        from stress_swarm import stop_server

        # The served calls' work runs in children forked from the server (not the callers' children):
        # their pages are the server's, shared; its own peak is the figure that matters.
        status = Path(f"/proc/{server.pid}/status").read_text()
        server_peak_mb = round(int(next(l for l in status.splitlines() if l.startswith("VmHWM")).split()[1]) / 1024, 1)
        # utime, stime, cutime, cstime: the server's own CPU and its reaped children's (every served call)
        fields = Path(f"/proc/{server.pid}/stat").read_text().rsplit(")", 1)[1].split()
        server_cpu = sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")
        stop_server(repo, server)
    git_kb = int(subprocess.run(["du", "-sk", str(repo / ".git")], capture_output=True, text=True).stdout.split()[0])

    by_op: dict[str, list[Call]] = {}
    for one in calls:
        by_op.setdefault(one.op, []).append(one)
    per_task: dict[int, float] = {}
    cpu_task: dict[int, float] = {}
    for one in calls:
        if one.task is not None:
            per_task[one.task] = per_task.get(one.task, 0.0) + one.seconds
            cpu_task[one.task] = cpu_task.get(one.task, 0.0) + one.cpu
    states: dict[str, int] = {}
    for outcome in outcomes.values():
        key = outcome if outcome in ("merged", "conflict", "rejected", "failed", "empty", "finished") else "error"
        states[key] = states.get(key, 0) + 1
    errors = [f"t{t:04d}: {o}" for t, o in sorted(outcomes.items()) if o not in ("merged",)][:5]
    figures = {
        "repository": {"files": files, "lines": lines, "packages": options.packages},
        "tasks": options.tasks, "agents": options.agents, "sparse": options.sparse, "cpus": os.cpu_count(),
        "think_s": options.think, "load_at_start": load_at_start,
        "load_at_end": os.getloadavg()[0],
        "outcomes": states, "first_errors": errors,
        "swarm_seconds": round(swarm, 1),
        "merges_per_minute": round(states.get("merged", 0) / swarm * 60, 1) if swarm else 0.0,
        "overhead_per_task_s": {"p50": round(statistics.median(per_task.values()), 3),
                                "p99": round(pct(list(per_task.values()), 0.99), 3)},
        # on the warm path the callers' own CPU plus the server's (its forked calls), spread over the tasks
        "cpu_seconds_per_task": round(statistics.mean(cpu_task.values()) + server_cpu / max(1, options.tasks), 3),
        "commands": {op: {"n": len(cs), "p50_s": round(pct([c.seconds for c in cs], 0.5), 3),
                          "p99_s": round(pct([c.seconds for c in cs], 0.99), 3),
                          "peak_mb_p50": round(pct([c.peak_mb for c in cs], 0.5), 1),
                          "peak_mb_max": round(max(c.peak_mb for c in cs), 1)} for op, cs in by_op.items()},
        "peak_mb_any_process": round(max(c.peak_mb for c in calls), 1),
        "path": "served" if options.serve else "cli", "server_peak_mb": server_peak_mb,
        "worktrees_peak_mb": round(peak_disk[0] / 1024, 1),
        "git_dir_mb_at_end": round(git_kb / 1024, 1),
        "consolidation": {"exit": consolidated.exit,
                          "applied": sum(len(root.get("applied", [])) for root in consolidation.get("roots", [])),
                          "skipped": len(consolidation.get("skipped", [])),
                          "declared": options.tasks // INTENT_EVERY},
        "report_exit": reported.exit,
        "report_files": len(report.get("files", [])),
    }
    if not options.keep:
        shutil.rmtree(workdir, ignore_errors=True)
    return figures


def print_figures(f: dict[str, Any]) -> None:
    pace = f"agents work {f['think_s']:g} s (0.5-1.5x) between start and finish" if f["think_s"] else \
        "agents call back to back (saturation)"
    print(f"{f['tasks']} tasks, {f['agents']} agents at once, {f['cpus']} CPUs (load {f['load_at_start']:.1f} at the "
          f"start, {f['load_at_end']:.1f} at the end), sparse={f['sparse']}, path={f['path']}; {pace}")
    print(f"outcomes           {f['outcomes']}" + (f"  first errors: {f['first_errors']}" if f["first_errors"] else ""))
    print(f"swarm              {f['swarm_seconds']} s; integration throughput {f['merges_per_minute']} merges/min")
    o = f["overhead_per_task_s"]
    print(f"overhead per task  p50 {o['p50']} s, p99 {o['p99']} s (start + finish wall time; goal p50 <= 1 s)")
    print(f"CPU per task       {f['cpu_seconds_per_task']} s (wtc processes and their children)")
    print(f"{'command':<14}{'n':>6}{'p50 s':>9}{'p99 s':>9}{'MB p50':>9}{'MB max':>9}")
    for op, c in f["commands"].items():
        print(f"{op:<14}{c['n']:>6}{c['p50_s']:>9}{c['p99_s']:>9}{c['peak_mb_p50']:>9}{c['peak_mb_max']:>9}")
    print(f"peak memory        {f['peak_mb_any_process']} MB in the largest wtc process (goal <= 200 MB)"
          + (f"; the server {f['server_peak_mb']} MB (served calls' CPU and memory are its forked children's, "
             "not the callers')" if f["server_peak_mb"] is not None else ""))
    print(f"disk               worktrees at their peak {f['worktrees_peak_mb']} MB; .git at the end "
          f"{f['git_dir_mb_at_end']} MB")
    c = f["consolidation"]
    print(f"consolidation      exit {c['exit']}: {c['applied']} change(s) applied, {c['skipped']} skipped, of "
          f"{c['declared']} intent(s) declared; report exit {f['report_exit']}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=1000)
    parser.add_argument("--agents", type=int, default=16)
    parser.add_argument("--packages", type=int, default=500)
    parser.add_argument("--files", type=int, default=20, help="files per package (one is its package.json)")
    parser.add_argument("--no-sparse", dest="sparse", action="store_false", help="full worktrees (default: --sparse)")
    parser.add_argument("--disk-every", type=float, default=5.0, help="seconds between samples of the worktrees' disk")
    parser.add_argument("--serve", action="store_true", help="the warm path: a `wtc serve` takes every call")
    parser.add_argument("--think", type=float, default=0.0, metavar="SECONDS",
                        help="each agent works this long (sampled 0.5-1.5x) between its start and its finish "
                             "(default 0: back to back, saturation)")
    parser.add_argument("--seed", type=int, default=1, help="seeds the agents' pauses (--think)")
    parser.add_argument("--workdir")
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--json", help="also write the figures to this file")
    options = parser.parse_args(argv)
    compile_package()   # bytecode as an install has it, outside the timings (scripts/bytecode.py)
    if options.think < 0:
        parser.error("--think must be 0 or more seconds")
    figures = run(options)
    print_figures(figures)
    if options.json:
        Path(options.json).write_text(json.dumps(figures, indent=2) + "\n")
    return 0 if set(figures["outcomes"]) <= {"merged"} else 1


if __name__ == "__main__":
    sys.exit(main())
