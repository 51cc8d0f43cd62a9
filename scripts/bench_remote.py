#!/usr/bin/env python3
"""Benchmark: what a run across machines costs per task, against the local path.

Store half (this script today): on one generated monorepo, `wtc task start` (sparse, one package)
and `wtc task finish` (one edited file, merged into integration) as real CLI processes, with the
store in SQLite (the default, `.git/wtc/state.sqlite3`) and in PostgreSQL (a real server started from
the installed binaries on loopback, `tests/pg_server.py`, reached over TCP with a password like a
shared server). The two stores alternate task by task so the machine's load moves both; it prints
the medians, the spread, and the PostgreSQL/SQLite ratio of the medians per operation.

The remote half (the integration branch on a loopback git remote, and the bytes fetched by a sparse
task start in a 50k-file repository against a full clone) comes with remote runs (issue 16, items 2-3)
and extends this script.

    python scripts/bench_remote.py [--tasks 9] [--packages 40] [--files 50] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT))
from monorepo import generate  # noqa: E402
from tests.pg_server import running_server  # noqa: E402

STORES = ("sqlite", "postgresql")
OPERATIONS = ("start", "finish")


def wtc(repo: Path, env: dict[str, str], *args: str) -> float:
    """Run `wtc ARGS --json` in `repo`; its wall-clock time (a failure stops the benchmark)."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "worktree_coord", *args, "--json"], cwd=repo, env=env,
                          capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"wtc {' '.join(args)} failed ({done.returncode}): {done.stdout or done.stderr}")
    return elapsed


def measure(tasks: int, packages: int, files: int, work: Path) -> dict[str, dict[str, list[float]]]:
    repo = work / "repo"
    generate(repo, packages, files, checkout=True)
    times: dict[str, dict[str, list[float]]] = {store: {op: [] for op in OPERATIONS} for store in STORES}
    with running_server() as server:
        envs = {"sqlite": {k: v for k, v in os.environ.items() if k != "WTC_STORE"},
                "postgresql": dict(os.environ, WTC_STORE=server.url(server.create_database("bench")))}
        for store in STORES:
            wtc(repo, envs[store], "run", "start", "--run", store)
        for index in range(tasks):
            for store in STORES if index % 2 == 0 else reversed(STORES):
                env, task, package = envs[store], f"t{index}", f"packages/p{index % packages:03d}"
                times[store]["start"].append(wtc(repo, env, "task", "start", task, "--run", store,
                                                 "--own", f"{package}/**", "--sparse"))
                worktree = repo / ".wtc" / "worktrees" / store / task
                edited = next(path for path in sorted((worktree / package).rglob("*.py")))
                edited.write_text(edited.read_text() + f"\n\ndef bench_{store}_{index}():\n    return {index}\n")
                times[store]["finish"].append(wtc(repo, env, "task", "finish", task, "--run", store))
            print(f"task {index + 1}/{tasks}: " + ", ".join(
                f"{store} start {times[store]['start'][-1]:.3f} s finish {times[store]['finish'][-1]:.3f} s"
                for store in STORES), flush=True)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=9, help="tasks per store (at least 5)")
    parser.add_argument("--packages", type=int, default=40)
    parser.add_argument("--files", type=int, default=50, help="files per package")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    options = parser.parse_args()
    if options.tasks < 5:
        raise SystemExit("--tasks must be at least 5 for a median worth reading")
    with tempfile.TemporaryDirectory(prefix="wtc-bench-remote-") as work:
        times = measure(options.tasks, options.packages, options.files, Path(work))
    report: dict[str, object] = {"tasks": options.tasks, "files": options.packages * options.files}
    for op in OPERATIONS:
        medians = {store: statistics.median(times[store][op]) for store in STORES}
        report[op] = {store: {"median_s": round(medians[store], 4), "min_s": round(min(times[store][op]), 4),
                              "max_s": round(max(times[store][op]), 4)} for store in STORES}
        report[op]["ratio_postgresql_to_sqlite"] = round(medians["postgresql"] / medians["sqlite"], 2)  # type: ignore[index]
    if options.json:
        print(json.dumps(report))
        return
    print(f"\n{options.tasks} tasks per store, {report['files']} files")
    for op in OPERATIONS:
        row = report[op]
        print(f"task {op:6}  sqlite median {row['sqlite']['median_s']:.3f} s   "  # type: ignore[index]
              f"postgresql median {row['postgresql']['median_s']:.3f} s   "  # type: ignore[index]
              f"ratio {row['ratio_postgresql_to_sqlite']:.2f}")  # type: ignore[index]


if __name__ == "__main__":
    main()
