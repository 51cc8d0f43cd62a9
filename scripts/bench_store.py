#!/usr/bin/env python3
"""Benchmark: the store core on its own dialect table against the same core run through SQLAlchemy
Core, the measurement behind the choice written in docs/architecture.md ("The store's core").

Two costs decide it, both paid by every agent call:

- import: a `wtc` call is a fresh interpreter; this times `python -c pass`, importing the SQLite
  store (`worktree_coord.store.sqlite`), and importing SQLAlchemy Core (`create_engine`, `text`) as
  subprocesses, `--runs` times each, and prints medians and the ratio to `python -c pass`;
- operations: one agent's store traffic for one write (claim a key, take the task's lease, a
  fenced task update, an event, complete the key, release the lease), `--cycles` times on a fresh
  SQLite file, by `SQLiteStore` and by the same core with its statements executed through a
  SQLAlchemy engine (`text()` with the same SQL: the least SQLAlchemy could cost; table constructs
  would add compilation). Medians over `--repeats` runs, and the ratio.

SQLAlchemy is not a dependency: without it installed the SQLAlchemy rows say so. Times are wall
clock on a loaded machine: compare the ratios measured in one run, not absolute figures.

Usage: python scripts/bench_store.py [--runs N] [--cycles N] [--repeats N] [--json]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Iterator

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from worktree_coord.model import Boundary, RunRecord, RunState, TaskRecord, TaskState  # noqa: E402
from worktree_coord.store.core import SQLStore  # noqa: E402
from worktree_coord.store.dialect import SQLITE  # noqa: E402
from worktree_coord.store.sqlite import SQLiteStore  # noqa: E402

IMPORTS = {
    "python -c pass": "pass",
    "import the SQLite store": "import worktree_coord.store.sqlite",
    "import SQLAlchemy Core": "from sqlalchemy import create_engine, text",
}


def time_import(code: str, runs: int) -> float | None:
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True)
        if done.returncode != 0:
            return None
        times.append(time.perf_counter() - began)
    return statistics.median(times)


class SQLAlchemyStore(SQLStore):
    """The same core, its statements executed by a SQLAlchemy engine on the same SQLite file."""

    dialect = SQLITE

    def __init__(self, path: Path):
        from sqlalchemy import create_engine, text

        SQLiteStore(path).close()   # the schema, migrated by the real store
        self._text = text
        self._engine = create_engine(f"sqlite:///{path}", isolation_level="AUTOCOMMIT")
        self._connection = self._engine.connect()
        self._connection.exec_driver_sql("PRAGMA journal_mode = WAL")
        self._connection.exec_driver_sql("PRAGMA synchronous = NORMAL")

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[Any]:
        self._connection.exec_driver_sql("BEGIN IMMEDIATE")
        try:
            yield _Cursor(self._connection, self._text)
        except BaseException:
            self._connection.exec_driver_sql("ROLLBACK")
            raise
        self._connection.exec_driver_sql("COMMIT")

    def _fetch(self, sql: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        return [dict(row) for row in self._connection.execute(self._text(sql), params).mappings()]

    def close(self) -> None:
        self._connection.close()
        self._engine.dispose()


class _Cursor:
    def __init__(self, connection: Any, text: Any):
        self._connection, self._text, self._result = connection, text, None

    def execute(self, sql: str, params: dict[str, Any]) -> None:
        self._result = self._connection.execute(self._text(sql), params)

    def fetchone(self) -> dict[str, Any] | None:
        row = self._result.mappings().fetchone()
        return dict(row) if row is not None else None

    def fetchall(self) -> list[dict[str, Any]]:
        return [dict(row) for row in self._result.mappings().fetchall()]

    @property
    def rowcount(self) -> int:
        return self._result.rowcount

    @property
    def lastrowid(self) -> int:
        return self._result.lastrowid


def cycles(store: SQLStore, count: int) -> float:
    """Seconds per agent write cycle (the module docstring) over `count` cycles."""
    store.create_run(RunRecord(run_id="r", base="b" * 40, integration_ref="wtc/r/integration",
                               state=RunState.OPEN, created_at=time.time()))
    now = time.time()
    for n in range(count):
        store.insert_task(TaskRecord(run_id="r", task_id=f"t{n}", state=TaskState.STARTED, branch=f"wtc/r/t{n}",
                                     worktree=None, boundary=Boundary(own=("**",)), author="bench", head=None,
                                     created_at=now, updated_at=now))
    began = time.perf_counter()
    for n in range(count):
        key, owner, lease = f"k{n}", f"o{n}", f"task:r/t{n}"
        store.claim(key, "task.finish", "h", {"task": n}, owner, ttl=60)
        store.acquire_lease(lease, owner, ttl=60)
        store.update_task("r", f"t{n}", holder=(lease, owner), expect=[TaskState.STARTED], state=TaskState.FINISHED)
        store.log_event("r", f"t{n}", "finished", {"n": n})
        store.complete(key, owner, {"state": "merged"}, 0, final=True)
        store.release_lease(lease, owner)
    return (time.perf_counter() - began) / count


def time_cycles(kind: str, count: int, repeats: int) -> float | None:
    times = []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "state.sqlite3"
            try:
                store: SQLStore = SQLiteStore(path) if kind == "core" else SQLAlchemyStore(path)
            except ImportError:
                return None
            try:
                times.append(cycles(store, count))
            finally:
                store.close()
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="subprocesses per import (median)")
    parser.add_argument("--cycles", type=int, default=200, help="agent write cycles per repeat")
    parser.add_argument("--repeats", type=int, default=5, help="repeats of the cycles (median)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    imports = {name: time_import(code, args.runs) for name, code in IMPORTS.items()}
    baseline = imports["python -c pass"]
    report: dict[str, Any] = {"imports_ms": {}, "cycle_ms": {}}
    print(f"import cost (median of {args.runs} subprocesses; ratio to python -c pass)")
    for name, seconds in imports.items():
        if seconds is None:
            print(f"  {name:28s}  not installed")
            continue
        report["imports_ms"][name] = round(seconds * 1000, 1)
        print(f"  {name:28s}  {seconds * 1000:7.1f} ms  x{seconds / baseline:.2f}  (+{(seconds - baseline) * 1000:.1f} ms)")
    core = time_cycles("core", args.cycles, args.repeats)
    alchemy = time_cycles("sqlalchemy", args.cycles, args.repeats)
    print(f"one agent write cycle on SQLite (6 store calls; median of {args.repeats} x {args.cycles} cycles)")
    print(f"  {'store core, dialect table':28s}  {core * 1000:7.3f} ms")
    report["cycle_ms"]["core"] = round(core * 1000, 3)
    if alchemy is None:
        print(f"  {'store core via SQLAlchemy':28s}  not installed")
    else:
        report["cycle_ms"]["sqlalchemy"] = round(alchemy * 1000, 3)
        print(f"  {'store core via SQLAlchemy':28s}  {alchemy * 1000:7.3f} ms  x{alchemy / core:.2f} of the core's")
    if args.json:
        print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
