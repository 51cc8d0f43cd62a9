#!/usr/bin/env python3
"""Benchmark: what a run across machines costs per task, against the local path.

1. Per-task cost: on one generated monorepo, `wtc task start` (sparse, one package) and `wtc task
   finish` (one edited file, merged into integration) as real CLI processes, in three set-ups:
   `sqlite` (the local path: the store in `.git/wtc/state.sqlite3`, integration in the repository),
   `postgresql` (the same repository, the store on a real PostgreSQL server started from the
   installed binaries on loopback, `tests/pg_server.py`, reached over TCP with a password like a
   shared server) and `remote` (a run across machines: a clone of a bare copy served by a real
   `git daemon` on loopback, `wtc run start --remote origin`, the store on the PostgreSQL server;
   start fetches nothing it holds, finish pushes the task branch, fetches integration and pushes the
   merge with a lease). The set-ups take turns task by task so the machine's load moves all of them;
   it prints the medians, the spread, and each one's ratio to the local SQLite path.
2. Fetched bytes (`--fetch-packages`, default 500 x 100 files = 50k files): a bare copy of a generated
   repository served by `git daemon`; a full clone (`git clone --no-checkout`) against a partial
   clone (`--filter=blob:none --no-checkout`, the main checkout sparse at the root files) followed by
   `wtc run start --remote origin` and a sparse `wtc task start` of one package. Bytes are the size of
   each clone's `.git/objects` (what was fetched and stored), with the blob counts.

    python scripts/bench_remote.py [--tasks 9] [--packages 40] [--files 50] [--fetch-packages 500]
                                   [--fetch-files 100] [--json]
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
from tests.remote.remote_helpers import GitDaemon  # noqa: E402

STORES = ("sqlite", "postgresql", "remote")
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


def _serve(work: Path, source: Path) -> GitDaemon:
    served = work / "served"
    served.mkdir()
    subprocess.run(["git", "clone", "-q", "--bare", str(source), str(served / "repo.git")], check=True)
    subprocess.run(["git", "-C", str(served / "repo.git"), "config", "uploadpack.allowFilter", "true"], check=True)
    daemon = GitDaemon(served)
    daemon.start()
    return daemon


def measure(tasks: int, packages: int, files: int, work: Path) -> dict[str, dict[str, list[float]]]:
    repo = work / "repo"
    generate(repo, packages, files, checkout=True)
    daemon = _serve(work, repo)
    clone = work / "clone"
    subprocess.run(["git", "clone", "-q", daemon.url("repo.git"), str(clone)], check=True)
    where = {"sqlite": repo, "postgresql": repo, "remote": clone}
    times: dict[str, dict[str, list[float]]] = {store: {op: [] for op in OPERATIONS} for store in STORES}
    try:
        with running_server() as server:
            plain = {k: v for k, v in os.environ.items() if k != "WTC_STORE"}
            envs = {"sqlite": plain,
                    "postgresql": dict(plain, WTC_STORE=server.url(server.create_database("bench"))),
                    "remote": dict(plain, WTC_STORE=server.url(server.create_database("benchremote")))}
            for store in STORES:
                extra = ("--remote", "origin") if store == "remote" else ()
                wtc(where[store], envs[store], "run", "start", "--run", store, *extra)
            for index in range(tasks):
                order = STORES[index % len(STORES):] + STORES[:index % len(STORES)]
                for store in order:
                    env, task, package = envs[store], f"t{index}", f"packages/p{index % packages:03d}"
                    times[store]["start"].append(wtc(where[store], env, "task", "start", task, "--run", store,
                                                     "--own", f"{package}/**", "--sparse"))
                    worktree = where[store] / ".wtc" / "worktrees" / store / task
                    edited = next(path for path in sorted((worktree / package).rglob("*.py")))
                    edited.write_text(edited.read_text() + f"\n\ndef bench_{store}_{index}():\n    return {index}\n")
                    times[store]["finish"].append(wtc(where[store], env, "task", "finish", task, "--run", store))
                print(f"task {index + 1}/{tasks}: " + ", ".join(
                    f"{store} start {times[store]['start'][-1]:.3f} s finish {times[store]['finish'][-1]:.3f} s"
                    for store in STORES), flush=True)
    finally:
        daemon.stop()
    return times


def _objects_bytes(repo: Path) -> int:
    return sum(p.stat().st_size for p in (repo / ".git" / "objects").rglob("*") if p.is_file())


def _blobs(repo: Path) -> int:
    done = subprocess.run(["git", "cat-file", "--batch-all-objects", "--batch-check=%(objecttype)"], cwd=repo,
                          capture_output=True, text=True, check=True)
    return done.stdout.split().count("blob")


def measure_fetch(packages: int, files: int, work: Path) -> dict[str, object]:
    """Bytes a sparse task start fetches in a partial clone, against a full clone of the same remote."""
    source = work / "big"
    started = time.perf_counter()
    generate(source, packages, files)
    print(f"generated {packages * files} files in {time.perf_counter() - started:.1f} s", flush=True)
    (work / "fetch").mkdir()
    daemon = _serve(work / "fetch", source)
    url = daemon.url("repo.git")
    env = {k: v for k, v in os.environ.items() if k != "WTC_STORE"}
    try:
        full, thin = work / "full", work / "thin"
        t = time.perf_counter()
        subprocess.run(["git", "clone", "-q", "--no-checkout", url, str(full)], check=True)
        full_seconds = time.perf_counter() - t
        t = time.perf_counter()
        subprocess.run(["git", "clone", "-q", "--filter=blob:none", "--no-checkout", url, str(thin)], check=True)
        subprocess.run(["git", "sparse-checkout", "set", "--cone"], cwd=thin, check=True)
        subprocess.run(["git", "checkout", "-q", "main"], cwd=thin, check=True)
        clone_bytes = _objects_bytes(thin)
        wtc(thin, env, "run", "start", "--run", "fetch", "--remote", "origin")
        wtc(thin, env, "task", "start", "one", "--run", "fetch", "--own", "packages/p007/**", "--sparse")
        thin_seconds = time.perf_counter() - t
        worktree_files = sum(1 for p in (thin / ".wtc/worktrees/fetch/one").rglob("*")
                             if p.is_file() and ".wtc" not in p.relative_to(thin / ".wtc/worktrees/fetch/one").parts
                             and p.name != ".git")
        return {"files": packages * files,
                "full_clone": {"bytes": _objects_bytes(full), "blobs": _blobs(full), "seconds": round(full_seconds, 2)},
                "partial_clone_and_sparse_start": {"bytes": _objects_bytes(thin), "clone_bytes": clone_bytes,
                                                   "blobs": _blobs(thin), "worktree_files": worktree_files,
                                                   "seconds": round(thin_seconds, 2)},
                "ratio_bytes_partial_to_full": round(_objects_bytes(thin) / _objects_bytes(full), 4)}
    finally:
        daemon.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=9, help="tasks per store (at least 5)")
    parser.add_argument("--packages", type=int, default=40)
    parser.add_argument("--files", type=int, default=50, help="files per package")
    parser.add_argument("--fetch-packages", type=int, default=500, help="packages of the fetched-bytes repository")
    parser.add_argument("--fetch-files", type=int, default=100, help="files per package there")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    options = parser.parse_args()
    if options.tasks < 5:
        raise SystemExit("--tasks must be at least 5 for a median worth reading")
    with tempfile.TemporaryDirectory(prefix="wtc-bench-remote-") as work:
        times = measure(options.tasks, options.packages, options.files, Path(work))
        fetched = measure_fetch(options.fetch_packages, options.fetch_files, Path(work))
    report: dict[str, object] = {"tasks": options.tasks, "files": options.packages * options.files,
                                 "fetch": fetched}
    for op in OPERATIONS:
        medians = {store: statistics.median(times[store][op]) for store in STORES}
        report[op] = {store: {"median_s": round(medians[store], 4), "min_s": round(min(times[store][op]), 4),
                              "max_s": round(max(times[store][op]), 4)} for store in STORES}
        report[op]["ratio_postgresql_to_sqlite"] = round(medians["postgresql"] / medians["sqlite"], 2)  # type: ignore[index]
        report[op]["ratio_remote_to_sqlite"] = round(medians["remote"] / medians["sqlite"], 2)  # type: ignore[index]
    if options.json:
        print(json.dumps(report))
        return
    print(f"\n{options.tasks} tasks per store, {report['files']} files")
    for op in OPERATIONS:
        row = report[op]
        print(f"task {op:6}  sqlite median {row['sqlite']['median_s']:.3f} s   "  # type: ignore[index]
              f"postgresql median {row['postgresql']['median_s']:.3f} s (x{row['ratio_postgresql_to_sqlite']:.2f})   "  # type: ignore[index]
              f"remote+postgresql median {row['remote']['median_s']:.3f} s (x{row['ratio_remote_to_sqlite']:.2f})")  # type: ignore[index]
    fetch = report["fetch"]
    full, thin = fetch["full_clone"], fetch["partial_clone_and_sparse_start"]  # type: ignore[index]
    print(f"fetched for {fetch['files']} files: full clone {full['bytes'] / 1e6:.2f} MB ({full['blobs']} blobs); "  # type: ignore[index]
          f"partial clone + sparse task start {thin['bytes'] / 1e6:.2f} MB ({thin['blobs']} blobs, "
          f"{thin['worktree_files']} files in the worktree); ratio {fetch['ratio_bytes_partial_to_full']}")  # type: ignore[index]


if __name__ == "__main__":
    main()
