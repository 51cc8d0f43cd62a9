#!/usr/bin/env python3
"""Benchmark: what a start's claim of a port block in the machine's registry costs, per checkout,
on an empty user state folder and on one of a machine with many repositories' leases
(scripts/make_port_state.py), side by side in one run.

Each `--src` checkout runs in a process of its own (its `worktree_coord` first on PYTHONPATH) and
claims `--claims` blocks one after another as a start does (its own store, a real SQLite one, holds
each task live): the earlier registry (`leased_ports`: read under the lock, the block checked,
the holder recorded, written back) or the lease folder (`PortClaim`), whichever the checkout has.
With `--parallel P`, P such processes (each its own store, as P repositories' starts) claim at
once in the one state folder: what a claim costs when starts of a swarm meet. Printed: the median
wall and CPU milliseconds of one claim (over every process's claims), and the ratio to the first
source.

    python scripts/bench_port_claim.py --src OLD --src NEW [--state-template DIR] [--claims 41] [--parallel 1]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

CLAIMS = r"""
import json, os, statistics, sys, time
from pathlib import Path
from worktree_coord.model import Boundary, RunRecord, RunState, TaskRecord, TaskState
from worktree_coord.store.sqlite import SQLiteStore
from worktree_coord.store import port_registry as registry

claims, folder = int(sys.argv[1]), Path(sys.argv[2])
path = folder / "own.sqlite3"
store = SQLiteStore(path)
store.create_run(RunRecord(run_id="r", base="0" * 40, integration_ref="refs/heads/x", state=RunState.OPEN,
                           created_at=time.time()))
location = os.path.realpath(path)
walls, cpus = [], []
mine = set()
for number in range(claims):
    task = f"t{number}"
    store.insert_task(TaskRecord(run_id="r", task_id=task, state=TaskState.STARTED, branch=f"b/{task}",
                                 worktree=str(folder / task), boundary=Boundary(own=("x/**",)), author="a <a@b.c>",
                                 head=None, created_at=time.time(), updated_at=time.time()))
    wall, cpu = time.perf_counter(), time.process_time()
    # As the store's allocation asks: the lowest block its own live tasks do not hold, that the
    # registry gives (other processes of this benchmark are other stores: worker-th of every P).
    candidates = (block for block in range(6000) if block % int(sys.argv[4]) == int(sys.argv[3])
                  and block not in mine)
    if hasattr(registry, "PortClaim"):
        claim = registry.PortClaim(location, "r", task, str(folder / task), timeout=30.0)
        block = next(block for block in candidates if claim.claim(20000 + block * 10, 20009 + block * 10))
        claim.done()
    else:
        with registry.leased_ports(timeout=30.0, store=location) as leases:
            block = next(block for block in candidates if not leases.blocks(location, 20000 + block * 10,
                                                                            20009 + block * 10))
            leases.hold(registry.PortLease(store=location, run="r", task=task, worktree=str(folder / task),
                                           first=20000 + block * 10, last=20009 + block * 10))
    mine.add(block)
    walls.append((time.perf_counter() - wall) * 1000)
    cpus.append((time.process_time() - cpu) * 1000)
print(json.dumps({"wall_ms": walls, "cpu_ms": cpus}))
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--src", action="append", required=True, help="a checkout whose worktree_coord to measure")
    parser.add_argument("--state-template", type=Path, help="a user state folder each source starts from (a copy)")
    parser.add_argument("--claims", type=int, default=41)
    parser.add_argument("--parallel", type=int, default=1, help="processes claiming at once")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="wtc-bench-port-claim-") as tmp:
        for index, src in enumerate(args.src):
            state = Path(tmp) / f"state-{index}"
            if args.state_template is not None:
                # cp -a keeps the lease files' hard links (a lease's one file named at each of its
                # ports); shutil.copytree makes each name a file of its own, a registry no wtc writes.
                subprocess.run(["cp", "-a", str(args.state_template), str(state)], check=True)
            else:
                state.mkdir()
            env = dict(os.environ, WTC_STATE_DIR=str(state),
                       PYTHONPATH=os.pathsep.join([src] + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH")
                                                           else [])))
            processes = []
            for worker in range(args.parallel):
                work = Path(tmp) / f"work-{index}-{worker}"
                work.mkdir()
                processes.append(subprocess.Popen([sys.executable, "-c", CLAIMS, str(args.claims), str(work),
                                                   str(worker), str(args.parallel)], env=env, stdout=subprocess.PIPE,
                                                  text=True))
            walls: list[float] = []
            cpus: list[float] = []
            for process in processes:
                out, _ = process.communicate()
                if process.returncode != 0:
                    raise SystemExit(f"{src}: a claiming process exited {process.returncode}")
                row = json.loads(out)
                walls += row["wall_ms"]
                cpus += row["cpu_ms"]
            rows.append((src, {"wall_ms": statistics.median(walls), "cpu_ms": statistics.median(cpus)}))
    print(f"one claim of a port block, medians of {args.claims} x {args.parallel} process(es); state "
          f"{args.state_template or 'empty'}; load {os.getloadavg()[0]:.1f}")
    base = rows[0][1]
    for src, row in rows:
        print(f"  {src:40} wall {row['wall_ms']:7.2f} ms ({row['wall_ms'] / base['wall_ms']:.2f}x)  "
              f"cpu {row['cpu_ms']:7.2f} ms ({row['cpu_ms'] / base['cpu_ms']:.2f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
