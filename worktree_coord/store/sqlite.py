"""The default store: one SQLite file in the repository's git common dir, shared by every worktree
and process.

WAL mode (readers never block the writer), a busy timeout, and short `BEGIN IMMEDIATE` write
transactions: 64 agents' processes take turns for milliseconds. The schema carries a version
(`PRAGMA user_version`) and upgrades itself through ordered migrations; a file from a newer
worktree_coord, or one that is not a database, is refused with a message that says what to do.
A lock held past the timeout surfaces as BusyError (exit 4), never as a raw sqlite error.

The statements and rules are the store core's (core.py); this module is what SQLite needs besides:
the connection and its pragmas, the write transaction, migrations by `user_version`, error
translation and SQLite's own integrity check.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Iterable, Iterator

from .. import process_end
from ..errors import BusyError, StoreError
from .core import SQLStore
from .dialect import SQLITE
from .schema import SCHEMA_VERSION, migrations

MIGRATIONS = migrations(SQLITE)   # the schema (schema.py) as SQLite runs it

BUSY_TIMEOUT_SECONDS = 30.0


@contextlib.contextmanager
def _opening(path: Path) -> Iterator[None]:
    """An exclusive flock on `<store>.open.flock` while a connection is set up (see __init__)."""
    fd = os.open(f"{path}.open.flock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)   # closing the descriptor releases the lock


def _dict_row(cursor: sqlite3.Cursor, row: tuple[Any, ...]) -> dict[str, Any]:
    return dict(zip([d[0] for d in cursor.description], row))


WAL_AUTOCHECKPOINT_PAGES = 256
MAX_LEFT_OPEN = 4       # connections one process leaves to its end (`SQLiteStore.close`)

# Connections a `wtc` process leaves open to its end (see `SQLiteStore.close`); referenced here so
# no garbage collection closes them before.
_left_open: list[sqlite3.Connection] = []


class SQLiteStore(SQLStore):
    """`Store` on one SQLite file (see the module docstring)."""

    dialect = SQLITE

    def __init__(self, path: str | Path, *, busy_timeout: float = BUSY_TIMEOUT_SECONDS):
        self.path = Path(path)
        self.location = str(self.path)
        self.busy_timeout = busy_timeout
        self._lock = threading.RLock()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            # Opening is serialised across processes: the first opener of a new file turns it to WAL
            # and migrates it, and 8 harness hooks starting at once on a fresh repository once met a
            # "database is locked" there that the busy timeout did not absorb. Held for the few
            # milliseconds of the pragmas, never for a transaction of the store's work.
            with _opening(self.path):
                self._db = sqlite3.connect(
                    str(self.path), timeout=busy_timeout, isolation_level=None, check_same_thread=False
                )
                self._db.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
                mode = self._db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                if str(mode).lower() != "wal":
                    raise StoreError(f"the store {self.path} refused WAL mode (journal_mode={mode})")
                self._db.execute("PRAGMA synchronous = NORMAL")  # WAL + NORMAL survives process crashes
                # A `wtc` process leaves its connection open to its end (`close`): the next opener then
                # rebuilds the WAL's index from the WAL, ~1 ms a MB; a writer checkpointing past 256
                # pages (~8 task starts) instead of SQLite's 1,000 bounds that to ~1 MB.
                self._db.execute(f"PRAGMA wal_autocheckpoint = {WAL_AUTOCHECKPOINT_PAGES}")
                self._db.execute("PRAGMA foreign_keys = ON")
                self._migrate()
        except sqlite3.DatabaseError as error:
            raise self._database_error(error) from error

    # ---- plumbing -------------------------------------------------------------------------------

    def _database_error(self, error: sqlite3.Error, *, waited: float | None = None) -> Exception:
        text = str(error)
        if "locked" in text or "busy" in text:
            # SQLite may give up before its busy timeout (a lock it cannot wait for, such as another
            # connection's WAL recovery): say how long this call waited, not what it was allowed to.
            if waited is None or waited >= self.busy_timeout * 0.9:
                how_long = f"stayed locked for {self.busy_timeout:g} s"
            else:
                how_long = (f"was locked; SQLite gave up after {waited:.1f} s, before the "
                            f"{self.busy_timeout:g} s busy timeout")
            return BusyError(
                f"the store {self.path} {how_long} ({text})",
                fix="retry; if it persists, look for a hung wtc process holding the store",
                retry_after=1.0,
            )
        if isinstance(error, StoreError):
            return error
        return StoreError(
            f"the store {self.path} cannot be used: {text}",
            fix=f"move it aside (mv {self.path} {self.path}.bad) and retry; runs recorded in it are then forgotten, "
            "but branches and worktrees stay in git and `wtc gc --dry-run` lists them",
        )

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Cursor]:
        """One short write transaction, taken at once (IMMEDIATE) so it never deadlocks on upgrade."""
        with self._lock:
            began = time.monotonic()
            try:
                cursor = self._db.cursor()
                cursor.row_factory = _dict_row
                cursor.execute("BEGIN IMMEDIATE")
                try:
                    yield cursor
                except BaseException:
                    cursor.execute("ROLLBACK")
                    raise
                cursor.execute("COMMIT")
            except sqlite3.Error as error:
                raise self._database_error(error, waited=time.monotonic() - began) from error

    def _fetch(self, sql: str, params: dict[str, Any] | Iterable[Any]) -> list[dict[str, Any]]:
        with self._lock:
            began = time.monotonic()
            try:
                cursor = self._db.cursor()
                cursor.row_factory = _dict_row
                return cursor.execute(sql, params if isinstance(params, dict) else tuple(params)).fetchall()
            except sqlite3.Error as error:
                raise self._database_error(error, waited=time.monotonic() - began) from error

    def _migrate(self) -> None:
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"the store {self.path} has schema version {version}, newer than this worktree_coord "
                f"understands ({SCHEMA_VERSION})",
                fix="upgrade worktree_coord (pip install -U worktree-coord) to the version that wrote it",
            )
        if version == SCHEMA_VERSION:
            return
        with self._transaction() as cursor:
            version = cursor.execute("PRAGMA user_version").fetchone()["user_version"]  # re-read under the lock
            for number in range(version, SCHEMA_VERSION):
                for statement in MIGRATIONS[number].split(";"):
                    if statement.strip():
                        cursor.execute(statement)
                cursor.execute(f"PRAGMA user_version = {number + 1}")

    def close(self) -> None:
        """Close the connection; in a process that ends by `os._exit` right after its call (a `wtc`
        process: process_end.py), leave it open to that end. Closing the last connection to a WAL
        database checkpoints it, with an fsync, and deletes the WAL, which the next call creates
        again: 16-18 ms of every writing `wtc` call under load (~1.5 ms quiet, ext4). Left open,
        the process's end is, to SQLite, a killed process's, which WAL with `synchronous = NORMAL`
        survives by its rules: every committed transaction is in the WAL (its frames checksummed),
        the next opener rebuilds the WAL's index from it, and a writer checkpoints once the WAL
        passes `wal_autocheckpoint` pages (WAL_AUTOCHECKPOINT_PAGES). A process that ends by Python's ordinary exit
        instead (a thread still running) closes it in its teardown. A process that lives on after
        all (the MCP server, `wtc fanout`, started by the same entry point) closes every store past
        the first MAX_LEFT_OPEN: what it leaves open stays bounded."""
        with self._lock:
            if process_end.ends_by_exit and len(_left_open) < MAX_LEFT_OPEN:
                _left_open.append(self._db)
                return
            self._db.close()

    def integrity_check(self) -> list[str]:
        problems = [r["integrity_check"] for r in self._fetch("PRAGMA integrity_check", {})]
        problems = [p for p in problems if p != "ok"]
        problems += [f"foreign key violation in {r['table']}" for r in self._fetch("PRAGMA foreign_key_check", {})]
        return problems + self._unknown_task_states()


def live_tasks_at(path: str | Path, states: Iterable[str]) -> set[tuple[str, str]] | None:
    """The (run, task) pairs of the SQLite store at `path` whose state is one of `states`, read as
    `task_states_at` reads (read-only, nothing written): a start that meets several leases of one
    other store asks it once. None when the file cannot be read as a store of this schema."""
    wanted = list(states)
    try:
        db = sqlite3.connect(f"file:{Path(path)}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_SECONDS)
    except sqlite3.Error:
        return None
    try:
        marks = ", ".join("?" for _ in wanted)
        rows = db.execute(f"SELECT run_id, task_id FROM tasks WHERE state IN ({marks})", wanted).fetchall()
        return {(str(run), str(task)) for run, task in rows}
    except sqlite3.Error:
        return None
    finally:
        db.close()


def task_states_at(path: str | Path, tasks: Iterable[tuple[str, str]]) -> dict[tuple[str, str], str] | None:
    """The states of `tasks` ((run, task) pairs) in the SQLite store at `path`, read without
    opening it as a store (read-only: no migration, no WAL switch, nothing written): how another
    repository's store is asked whether its task still holds a machine-wide port block
    (port_registry.py). A task it does not hold is absent; None when the file cannot be read as a
    store of this schema (then nothing can be said about its tasks)."""
    try:
        db = sqlite3.connect(f"file:{Path(path)}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_SECONDS)
    except sqlite3.Error:
        return None
    try:
        found: dict[tuple[str, str], str] = {}
        for run_id, task_id in tasks:
            row = db.execute("SELECT state FROM tasks WHERE run_id = ? AND task_id = ?", (run_id, task_id)).fetchone()
            if row is not None:
                found[(run_id, task_id)] = str(row[0])
        return found
    except sqlite3.Error:
        return None
    finally:
        db.close()
