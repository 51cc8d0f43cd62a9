#!/usr/bin/env python3
"""Swarm stress across machines: the agents of scripts/stress_swarm.py spread over several clones of
one git remote (a real `git daemon` with receive-pack on loopback), one shared store, the run's
integration branch on the remote; the swarm's invariants read from the remote.

Stage: reliability harness (issue 16, item 3); not part of the product. Input: the flags below.
Output: the swarm's report (throughput, latency, the verdict of every invariant) plus one verdict of
its own, "nothing left behind on any clone"; exit 1 when an invariant fails.

What one run does:
  1. stress_swarm.build_repo makes the repository; a bare copy of it is served by `git daemon`;
  2. CLONES clones of it stand for machines (own folders); the store is one shared PostgreSQL
     database (default: a server of our own started the way the tests start theirs,
     tests/pg_server.py, unprivileged as the `postgres` user when we are root; or --pg-url for one
     you run), or with --store sqlite one SQLite file inside the bare repository's `wtc/` folder;
  3. `wtc run start --remote origin` on the first clone;
  4. WORKERS agents take the planned tasks, task i on clone i % CLONES, and drive each through
     `wtc task start` -> edit -> `wtc task finish` with RETRY_RATE repeats under one key and KILL_RATE
     SIGKILLs (stress_swarm.Caller: the same plan for the same seed); the lead drains with
     `wtc merge` and runs `wtc gc` from the first clone meanwhile;
  5. a final `wtc merge` from the last clone (another machine than the lead's), `wtc gc` on each;
  6. stress_swarm.check_invariants against the bare repository (the remote is the truth: every
     finished task merged exactly once, each change present once, the tree equals a sequential
     replay, one commit per task branch, no lease or running claim left, store counts agree with git),
     and each clone checked for leftover worktrees.

    python scripts/stress_remote.py [--clones 3] [--workers 48] [--tasks 48] [--retry-rate 0.2]
                                    [--kill-rate 0.05] [--seed 1] [--keep]
                                    [--store postgresql|sqlite] [--pg-url postgresql://...]
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import dataclasses
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Iterator

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT))
import stress_swarm as swarm  # noqa: E402  (scripts/ is not a package)
from tests.remote.remote_helpers import GitDaemon  # noqa: E402


@dataclasses.dataclass(frozen=True)
class RemoteConfig:
    swarm: swarm.SwarmConfig
    clones: int = 3
    store: str = "postgresql"     # or "sqlite"
    pg_url: str | None = None     # an existing database; None: start a server of our own


def postgres_leftovers(url: str) -> Callable[[Path], tuple[list, list, list]]:
    """The swarm's store check against the PostgreSQL store: the schema is at the version this
    worktree_coord writes (its stand-in for SQLite's integrity check), no lease is held, no
    idempotency claim is still running."""
    import psycopg

    from worktree_coord.store.postgres import SCHEMA_VERSION

    def read(_admin: Path) -> tuple[list, list, list]:
        with psycopg.connect(url, autocommit=True) as db:
            version = db.execute("SELECT max(version) FROM wtc_schema").fetchone()[0]
            leases = db.execute("SELECT name, owner FROM wtc_leases").fetchall()
            running = db.execute("SELECT key, owner FROM wtc_idempotency WHERE state = 'running'").fetchall()
        integrity = [("ok",)] if version == SCHEMA_VERSION else [(f"schema version {version}, expected {SCHEMA_VERSION}",)]
        return integrity, leases, running

    return read


@contextlib.contextmanager
def shared_store(config: RemoteConfig, bare: Path) -> Iterator[tuple[str, Callable[[Path], tuple[list, list, list]] | None]]:
    """The store every clone shares: (WTC_STORE, the invariants' reader of its leftovers)."""
    if config.store == "sqlite":
        (bare / "wtc").mkdir(exist_ok=True)
        yield f"sqlite:{bare / 'wtc' / 'state.sqlite3'}", None
        return
    if config.pg_url:
        yield config.pg_url, postgres_leftovers(config.pg_url)
        return
    from tests.pg_server import running_server

    with running_server() as server:
        url = server.url(server.create_database("wtc_stress"))
        yield url, postgres_leftovers(url)


def _drive(repo: str, config: swarm.SwarmConfig, plan: swarm.TaskPlan) -> swarm.TaskOutcome:
    return swarm.drive_task(repo, config, plan)


def clone_leftovers(clones: list[Path]) -> swarm.Verdict:
    """No clone keeps a worktree folder, an admin entry or a lock file once the run is drained."""
    left = []
    for clone in clones:
        root = clone / ".wtc" / "worktrees"
        if root.exists():
            left += [f"{clone.parent.name}: worktree folder {p.relative_to(root)}" for p in root.rglob("*")
                     if p.is_dir() and p.parent != root]
        admin = clone / ".git"
        if (admin / "worktrees").exists():
            left += [f"{clone.parent.name}: admin entry {p.name}" for p in (admin / "worktrees").iterdir()]
        left += [f"{clone.parent.name}: lock file {p.relative_to(admin)}" for p in admin.rglob("*.lock")]
    return swarm.Verdict("nothing left behind on any clone", not left, f"{len(left)} leftovers on "
                         f"{len(clones)} clones", tuple(left[:10]))


def run_remote_swarm(config: RemoteConfig, log: Any = print) -> swarm.SwarmReport:
    settings = config.swarm
    plans = swarm.plan_tasks(settings)
    workdir = Path(settings.workdir) if settings.workdir else Path(tempfile.mkdtemp(prefix="wtc-stress-remote-"))
    source = workdir / "source"
    pin = swarm.build_repo(source, settings, plans)
    served = workdir / "served"
    served.mkdir(parents=True, exist_ok=True)
    bare = served / "repo.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(source), str(bare)], check=True)
    subprocess.run(["git", "-C", str(bare), "config", "uploadpack.allowFilter", "true"], check=True)
    daemon = GitDaemon(served)
    daemon.start()
    saved_store = os.environ.get("WTC_STORE")
    held = contextlib.ExitStack()   # the shared store (a PostgreSQL server of our own: stopped at the end)
    try:
        store_url, store_leftovers = held.enter_context(shared_store(config, bare))
        os.environ["WTC_STORE"] = store_url
        clones = []
        for number in range(config.clones):
            clone = workdir / f"machine{number}" / "repo"
            clone.parent.mkdir(parents=True)
            subprocess.run(["git", "clone", "-q", daemon.url("repo.git"), str(clone)], check=True)
            clones.append(clone)
        log(f"remote {daemon.url('repo.git')}, {config.clones} clones, store {store_url.split('@')[-1]}, "
            f"pin {pin[:12]}")
        setup = swarm.Caller(clones[0], settings, random.Random(settings.seed), None)
        started = setup.run("run.start", ["run", "start", "--run", swarm.RUN_ID, "--remote", "origin"], "k-run-start")
        if started.exit != 0:
            raise SystemExit(f"wtc run start failed: {swarm._brief(started)}")
        lead = swarm.Lead(clones[0], settings)
        outcomes: dict[str, swarm.TaskOutcome] = {}
        swarm_start = time.monotonic()
        lead.start()
        with concurrent.futures.ProcessPoolExecutor(max_workers=settings.workers) as pool:
            futures = {pool.submit(_drive, str(clones[plan.index % config.clones]), settings, plan): plan
                       for plan in plans}
            for done, future in enumerate(concurrent.futures.as_completed(futures), 1):
                plan = futures[future]
                try:
                    outcomes[plan.task] = future.result()
                except Exception as exc:  # the harness failed for this task: report, never hide
                    outcomes[plan.task] = swarm.TaskOutcome(plan.task, [], [], problems=[f"harness error: {exc!r}"])
                if done % max(1, len(plans) // 10) == 0:
                    log(f"  {done}/{len(plans)} tasks done after {time.monotonic() - swarm_start:.0f} s")
        swarm_seconds = time.monotonic() - swarm_start
        lead.join()
        drain_start = time.monotonic()
        final = swarm.Caller(clones[-1], settings, random.Random(settings.seed + 1), None)
        drained = final.run("merge", ["merge", "--run", swarm.RUN_ID], "k-merge-final", compare=False)
        gcs = [swarm.Caller(clone, settings, random.Random(settings.seed + 2 + i), None)
               for i, clone in enumerate(clones)]
        for caller in gcs:
            caller.run("gc", ["gc"], None, compare=False)
        drain_seconds = time.monotonic() - drain_start
        all_calls = (setup.calls + lead.caller.calls + lead.gc_caller.calls + final.calls
                     + [c for caller in gcs for c in caller.calls] + [c for o in outcomes.values() for c in o.calls])
        for row in (drained.body or {}).get("tasks", []):
            if row.get("task") in outcomes:
                outcomes[row["task"]].final_state = row.get("state")
        swarm.write_call_log(workdir / "calls.jsonl", all_calls)
        verdicts = swarm.check_invariants(bare, pin, plans, outcomes, all_calls, workdir / "no-worktrees-on-the-remote",
                                          store_leftovers)
        verdicts.append(clone_leftovers(clones))
        counts = {
            "calls": len(all_calls),
            "killed": sum(1 for c in all_calls if c.killed in ("process", "group")),
            "crash_points": sum(1 for c in all_calls if c.killed == "crash-point"),
            "hangs": sum(1 for c in all_calls if c.killed == "hang"),
            "repeats": sum(1 for c in all_calls if c.role.startswith("repeat")),
            "busy": sum(1 for c in all_calls if c.exit == swarm.BUSY),
            "lead_merge_rounds": lead.rounds,
            "clones": config.clones,
        }
        ended = sum(1 for o in outcomes.values() if o.final_state in ("merged", "conflict", "finished"))
        report = swarm.SwarmReport(
            ok=all(v.ok for v in verdicts), verdicts=verdicts, tasks=len(plans), workers=settings.workers,
            swarm_seconds=swarm_seconds, drain_seconds=drain_seconds,
            tasks_per_minute=ended / ((swarm_seconds + drain_seconds) / 60.0) if swarm_seconds else 0.0,
            latency=swarm.latency_table(all_calls), counts=counts, repo=str(bare),
        )
    finally:
        daemon.stop()
        held.close()
        if saved_store is None:
            os.environ.pop("WTC_STORE", None)
        else:
            os.environ["WTC_STORE"] = saved_store
    if not settings.keep and report.ok and not settings.workdir:
        shutil.rmtree(workdir, ignore_errors=True)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clones", type=int, default=3)
    parser.add_argument("--workers", type=int, default=48)
    parser.add_argument("--tasks", type=int, default=48)
    parser.add_argument("--retry-rate", type=float, default=0.20)
    parser.add_argument("--kill-rate", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--packages", type=int, default=24)
    parser.add_argument("--files", type=int, default=5)
    parser.add_argument("--drain-interval", type=float, default=5.0)
    parser.add_argument("--workdir")
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--store", choices=("postgresql", "sqlite"), default="postgresql",
                        help="the shared store: a PostgreSQL database (default) or one SQLite file")
    parser.add_argument("--pg-url", help="a PostgreSQL database to use (default: start a server of our own)")
    ns = parser.parse_args(argv)
    settings = swarm.SwarmConfig(workers=ns.workers, tasks=ns.tasks, retry_rate=ns.retry_rate, kill_rate=ns.kill_rate,
                                 seed=ns.seed, packages=ns.packages, files=ns.files, drain_interval=ns.drain_interval,
                                 workdir=ns.workdir, keep=ns.keep)
    config = RemoteConfig(settings, clones=ns.clones, store=ns.store, pg_url=ns.pg_url)
    report = run_remote_swarm(config)
    swarm.print_report(report, settings)
    print(f"clones: {ns.clones}; store: {ns.store}; remote: {report.repo}")
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
