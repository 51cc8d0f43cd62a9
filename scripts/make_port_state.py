#!/usr/bin/env python3
"""Benchmark fixture: a user state folder as a machine that ran many repositories leaves it.

Makes `--stores` SQLite stores (real ones, this checkout's schema) under OUT/stores, each with one
run of `--tasks` tasks of which `--live` are still started (the rest merged), and the machine's
port registry as an earlier version wrote it: OUT/state/ports.json with one lease per task (an
earlier version kept an ended task's entry until a start met it, so a busy machine holds them all).
The leases lie from `--port-base` up, 10 ports each, apart from the default 20000 a benchmark's own
repository uses (so they cost a start what they cost to skip, not a block each). A version with a
lease folder migrates the file at its first start (only the live tasks' leases carry over).

Use: `WTC_STATE_DIR=OUT/state` for a command, or `scripts/bench_startup.py --state-template OUT/state`.

With `--port-base 20000 --live-first` the live tasks' ranges sit where a benchmark's repository
starts its own (the default 20000): every start there meets each of them first.

With `--lease-files` the registry is written as this version keeps it (OUT/state/ports/, one
lease file a lease, hard-linked at each of its ports) rather than as a `ports.json` to migrate;
with `--gone 0.9` that share of the stores (their folders) is deleted afterwards, as scratch
repositories of benchmarks and test drives leave a machine: their leases stay until a claim or a
gc meets them. Copy such a state with `cp -a` (it keeps the hard links; shutil.copytree does not).

Usage: python scripts/make_port_state.py OUT [--stores 50] [--tasks 10] [--live 1] [--port-base 30000] [--live-first]
                                         [--lease-files] [--gone 0.0]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import time
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--stores", type=int, default=50)
    parser.add_argument("--tasks", type=int, default=10, help="tasks (and leases) per store")
    parser.add_argument("--live", type=int, default=1, help="of which still live (started)")
    parser.add_argument("--port-base", type=int, default=30000)
    parser.add_argument("--live-first", action="store_true", help="the live tasks' ranges first from --port-base")
    parser.add_argument("--lease-files", action="store_true", help="write ports/ lease files, not a ports.json")
    parser.add_argument("--gone", type=float, default=0.0, help="share of the stores deleted afterwards")
    args = parser.parse_args()
    from worktree_coord.model import Boundary, RunRecord, RunState, TaskRecord, TaskState
    from worktree_coord.store.sqlite import SQLiteStore

    state = args.out / "state"
    state.mkdir(parents=True, exist_ok=True)
    leases = []
    port = args.port_base
    now = time.time()
    for number in range(args.stores):
        folder = args.out / "stores" / f"repo-{number}"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "state.sqlite3"
        store = SQLiteStore(path)
        store.create_run(RunRecord(run_id="r", base="0" * 40, integration_ref="refs/heads/wtc/r/integration",
                                   state=RunState.OPEN, created_at=now))
        for task in range(args.tasks):
            state_of = TaskState.STARTED if task < args.live else TaskState.MERGED
            worktree = folder / "worktrees" / f"t{task}"
            if state_of is TaskState.STARTED:
                worktree.mkdir(parents=True, exist_ok=True)
            store.insert_task(TaskRecord(run_id="r", task_id=f"t{task}", state=state_of, branch=f"wtc/r/t{task}",
                                         worktree=str(worktree), boundary=Boundary(own=(f"t{task}/**",)),
                                         author="bench <bench@example.invalid>", head="0" * 40, created_at=now,
                                         updated_at=now, result={}))
            leases.append({"store": os.path.realpath(path), "run": "r", "task": f"t{task}", "worktree": str(worktree),
                           "first": port, "last": port + 9})
            port += 10
        store.close()
    if args.live_first:
        # The live tasks' ranges first on the port line, one after another: a start meets every one.
        leases.sort(key=lambda lease: Path(lease["worktree"]).is_dir(), reverse=True)
        for number, lease in enumerate(leases):
            lease["first"], lease["last"] = args.port_base + 10 * number, args.port_base + 10 * number + 9
    if args.lease_files:
        _write_lease_files(state / "ports", leases)
    else:
        (state / "ports.json").write_text(json.dumps({"schema": "wtc.port-registry/1", "leases": leases},
                                                     separators=(",", ":")) + "\n")
    gone = round(args.stores * args.gone)
    kept = args.stores - gone      # the kept stores spread over the port line (--gone 0.9: one in ten)
    keep = {number * args.stores // kept for number in range(kept)}
    for number in range(args.stores):
        if number not in keep:
            shutil.rmtree(args.out / "stores" / f"repo-{number}")
    print(f"{state}: {len(leases)} leases of {args.stores} stores ({gone} gone, "
          f"{(args.stores - gone) * args.live} live tasks)")
    return 0


def _write_lease_files(folder: Path, leases: list[dict[str, object]]) -> None:
    """Each lease as a claim leaves it: one file, hard-linked at each of its ports."""
    folder.mkdir(parents=True, exist_ok=True)
    for lease in leases:
        token = os.urandom(8).hex()
        source = folder / f".claim-{token}.tmp"
        source.write_text(json.dumps({"schema": "wtc.port-lease/1", **lease, "token": token},
                                     separators=(",", ":")) + "\n")
        for port in range(int(lease["first"]), int(lease["last"]) + 1):   # type: ignore[call-overload]
            os.link(source, folder / str(port))
        source.unlink()


if __name__ == "__main__":
    raise SystemExit(main())
