#!/usr/bin/env python3
"""Where a CLI call's CPU goes after its imports: each call kind of the swarm (start --sparse,
finish, the lead's `wtc merge`, `wtc status`, `wtc gc`) run as the `wtc` process stress_swarm.py
starts, on stress_swarm's repository (200 packages x 8 files by default), one fresh process per call.

Each measured process first imports every module that kind of call loads (the list is taken from an
earlier call of the same kind), so what follows is the call's own CPU, which cProfile (timed by
process CPU) then splits into: opening the repository (GitRepo, its setup check), reading the
configuration, opening the store, the port registry, the store's write transactions (count; their
BEGIN/COMMIT), git subprocesses (count, and their CPU from the process's reaped children) and the
worktree's removal. The interpreter's own start-up (`python -c pass`) and the imports are printed
beside it. Medians over --calls calls of each kind.

    python scripts/profile_cli_calls.py [--calls 5] [--packages 200] [--files 8] [--top 0]

A measuring tool, not a benchmark: one call at a time, nothing competes for the store or the locks.
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
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bytecode import compile_package  # noqa: E402  (scripts/ is not a package)

import stress_swarm  # noqa: E402

RUN = stress_swarm.RUN_ID
LEAVE = True    # end each measured process as entry.py does (--teardown: Python's ordinary exit)

# Run in a fresh interpreter: argv[1] = JSON {"argv": [...], "modules": path|None, "dump": path|None,
# "top": int}. Prints one JSON line on fd 3's stand-in (stderr's last line) with the measures.
DRIVER = r'''
import json, os, sys, time, resource, functools, contextlib, io
t_begin = time.process_time()
spec = json.loads(sys.argv[1])
wtc_argv = spec["argv"]
if spec.get("modules"):
    import importlib
    for name in json.load(open(spec["modules"])):
        try:
            importlib.import_module(name)
        except Exception:
            pass
t_imported = time.process_time()
from worktree_coord.gitrepo import running, repository
from worktree_coord.store import sqlite as wsqlite, address
from worktree_coord import config as wconfig
from worktree_coord.coordinator import base as cbase, worktree_setup
parts = {}
depth = {}
def timed(owner, name, part):
    real = getattr(owner, name)
    @functools.wraps(real)
    def wrapper(*args, **kwargs):
        if depth.get(part):
            return real(*args, **kwargs)
        depth[part] = 1
        began = time.process_time()
        try:
            return real(*args, **kwargs)
        finally:
            depth[part] = 0
            parts[part] = parts.get(part, 0.0) + time.process_time() - began
    setattr(owner, name, wrapper)
    return wrapper
timed(repository.GitRepo, "__init__", "repo_open")
timed(repository.GitRepo, "ensure_setup", "repo_open")
for owner in (cbase, wconfig):
    if hasattr(owner, "load_config"):
        timed(owner, "load_config", "config")
for owner in (cbase, address):
    if hasattr(owner, "open_store"):
        timed(owner, "open_store", "store_open")
timed(worktree_setup.WorktreeSetupMixin if hasattr(worktree_setup, "WorktreeSetupMixin") else
      next(v for v in vars(worktree_setup).values() if isinstance(v, type) and hasattr(v, "_port_block")),
      "_port_block", "port_registry")
timed(repository.GitRepo, "remove_worktree", "worktree_removal")
git_calls = []
real_run = running.run_to_end
def counted_run(command, **kwargs):
    words = [w for w in command[1:] if not w.startswith("-") and "=" not in w]
    name = words[0] if words else "?"
    if name in ("worktree", "sparse-checkout", "update-ref", "config") and len(words) > 1:
        name += " " + words[1]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.process_time()
    try:
        return real_run(command, **kwargs)
    finally:
        own = time.process_time() - began
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        git_calls.append((name, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, own))
repository.run_to_end = counted_run
running.run_to_end = counted_run
transactions = [0]
real_tx = wsqlite.SQLiteStore._transaction
@contextlib.contextmanager
def counted_tx(self):
    transactions[0] += 1
    began = time.process_time()
    with real_tx(self) as cursor:
        parts["tx_begin_commit"] = parts.get("tx_begin_commit", 0.0) + time.process_time() - began
        yield cursor
        began = time.process_time()
    parts["tx_begin_commit"] = parts.get("tx_begin_commit", 0.0) + time.process_time() - began
wsqlite.SQLiteStore._transaction = counted_tx
connects = [0]
import sqlite3
real_connect = sqlite3.connect
def counted_connect(*a, **k):
    connects[0] += 1
    return real_connect(*a, **k)
sqlite3.connect = counted_connect
from worktree_coord.fastcli import prepare
sys.argv = ["wtc", *wtc_argv]
call = prepare(wtc_argv)
if call is None:   # not on the quick path: typer's command line, as entry.py hands it over
    from worktree_coord.cli import main as cli_main
    call = cli_main
profiler = None
if spec.get("top"):
    import cProfile
    profiler = cProfile.Profile(time.process_time)
out = io.StringIO()
code = None
real_stdout = sys.stdout
sys.stdout = out
t_call = time.process_time()
if profiler:
    profiler.enable()
try:
    code = call()
except SystemExit as exc:
    code = exc.code
if profiler:
    profiler.disable()
t_end = time.process_time()
sys.stdout = real_stdout
if spec.get("dump"):
    json.dump(sorted(sys.modules), open(spec["dump"], "w"))
top = []
if profiler:
    import pstats
    s = io.StringIO()
    pstats.Stats(profiler, stream=s).sort_stats("cumulative").print_stats(spec["top"])
    top = s.getvalue().splitlines()
print(json.dumps({"exit": code, "before_imports": t_begin, "imports": t_imported - t_begin,
                  "setup": t_call - t_imported, "call": t_end - t_call, "parts": parts,
                  "git": git_calls, "transactions": transactions[0], "connects": connects[0],
                  "top": top, "body": out.getvalue()}), file=sys.stderr)
if spec.get("leave"):
    from worktree_coord.entry import leave   # the end a `wtc` process has (no interpreter teardown)
    leave(0)
'''


def python_pass_cpu(samples: int = 5) -> float:
    """CPU of an interpreter that does nothing (the floor of every call)."""
    values = []
    for _ in range(samples):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        values.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return statistics.median(values)


def run_call(repo: Path, argv: list[str], *, modules: Path | None, dump: Path | None, top: int,
             cwd: Path | None = None) -> dict[str, Any]:
    spec = {"argv": [*argv, "--repo", str(repo), "--json"], "modules": str(modules) if modules else None,
            "leave": LEAVE,
            "dump": str(dump) if dump else None, "top": top}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([sys.executable, "-c", DRIVER, json.dumps(spec)], cwd=cwd or repo,
                          capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        row = json.loads(done.stderr.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        raise SystemExit(f"{argv} failed:\n{done.stderr}")
    row["process_cpu"] = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return row


def wtc(repo: Path, *args: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", "worktree_coord", *args, "--repo", str(repo), "--json"],
                          capture_output=True, text=True)
    if done.returncode not in (0, 1):
        raise SystemExit(f"wtc {' '.join(args)} failed: {done.stdout}{done.stderr}")
    return json.loads(done.stdout)


def summary(kind: str, rows: list[dict[str, Any]], floor: float) -> None:
    def med(f) -> float:  # type: ignore[no-untyped-def]
        return statistics.median(f(r) for r in rows)

    git_cpu = med(lambda r: sum(g[1] for g in r["git"]))
    own = med(lambda r: r["call"] + r["setup"])
    print(f"\n{kind} (n={len(rows)}, exits {sorted({r['exit'] for r in rows})})")
    whole = med(lambda r: r["process_cpu"])
    imports = med(lambda r: r["imports"])
    print(f"  whole process CPU {whole * 1000:.0f} ms = interpreter ~{floor * 1000:.0f}"
          f" + imports {imports * 1000:.0f} + the call's own {own * 1000:.0f}"
          f" (Python) + git children {git_cpu * 1000:.0f} + exit and the rest {(whole - floor - imports - own - git_cpu) * 1000:.0f}")
    for name in ("repo_open", "config", "store_open", "port_registry", "tx_begin_commit", "worktree_removal"):
        print(f"    {name:<20} {med(lambda r: r['parts'].get(name, 0.0)) * 1000:7.1f} ms")
    print(f"    {'waiting on git':<20} {med(lambda r: sum(g[2] for g in r['git'])) * 1000:7.1f} ms (own CPU around the spawns)")
    print(f"    transactions {med(lambda r: r['transactions']):.0f}, sqlite connects {med(lambda r: r['connects']):.0f},"
          f" git processes {med(lambda r: len(r['git'])):.0f}")
    kinds: dict[str, list[float]] = {}
    for r in rows:
        for name, cpu, _wall in r["git"]:
            kinds.setdefault(name, []).append(cpu)
    for name, cpus in kinds.items():
        print(f"      git {name:<22} x{len(cpus) / len(rows):g}  CPU {statistics.median(cpus) * 1000:.1f} ms each")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=5)
    parser.add_argument("--packages", type=int, default=200)
    parser.add_argument("--files", type=int, default=8)
    parser.add_argument("--top", type=int, default=0, help="cProfile rows of the last call of each kind")
    parser.add_argument("--teardown", action="store_true",
                        help="end each process with Python's ordinary exit (its teardown) instead of entry.leave")
    parser.add_argument("--workdir")
    options = parser.parse_args(argv)
    global LEAVE
    LEAVE = not options.teardown
    compile_package()
    workdir = Path(options.workdir or tempfile.mkdtemp(prefix="wtc-cliprof-"))
    repo = workdir / "repo"
    config = stress_swarm.SwarmConfig(tasks=options.packages * 2, packages=options.packages, files=options.files)
    plans = stress_swarm.plan_tasks(config)
    stress_swarm.build_repo(repo, config, plans)
    wtc(repo, "run", "start", "--run", RUN)
    floor = python_pass_cpu()
    print(f"repository: {options.packages} packages x {options.files} files; load {os.getloadavg()[0]:.1f}")
    lists = {k: workdir / f"modules-{k}.json" for k in ("start", "finish", "merge", "status", "gc")}
    rows: dict[str, list[dict[str, Any]]] = {k: [] for k in lists}
    calls = options.calls + 1 + (1 if options.top else 0)   # the first lists the modules; the last is profiled
    profiled: dict[str, list[str]] = {}
    for i in range(calls):
        plan = plans[i]
        top = options.top if options.top and i == calls - 1 else 0

        def measure(kind: str, argv: list[str]) -> dict[str, Any]:
            row = run_call(repo, argv, modules=lists[kind] if i else None, dump=None if i else lists[kind], top=top)
            if top:
                profiled[kind] = row["top"]
            elif i:
                rows[kind].append(row)
            return row

        own = sum((["--own", g] for g in plan.own), [])
        started = measure("start", ["task", "start", plan.task, "--run", RUN, *own, "--sparse"])
        stress_swarm.apply_edits(Path(json.loads(started["body"])["worktree"]), plan)
        measure("finish", ["task", "finish", plan.task, "--run", RUN, "-m", f"p {plan.task}"])
        measure("merge", ["merge", "--run", RUN])
        measure("status", ["status", "--run", RUN])
        measure("gc", ["gc"])
    print(f"interpreter alone (python -c pass): {floor * 1000:.0f} ms CPU; load {os.getloadavg()[0]:.1f}")
    for kind, group in rows.items():
        summary(kind, group, floor)
        if options.top and profiled.get(kind):
            print("\n".join(profiled[kind][:options.top + 12]))
    if not options.workdir:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
