"""The default store: one SQLite file in the repository's git common dir, shared by every worktree
and process.

WAL mode (readers never block the writer), a busy timeout, and short `BEGIN IMMEDIATE` write
transactions: 64 agents' processes take turns for milliseconds. The schema carries a version
(`PRAGMA user_version`) and upgrades itself through ordered migrations; a file from a newer
worktree_coord, or one that is not a database, is refused with a message that says what to do.
A lock held past the timeout surfaces as BusyError (exit 4), never as a raw sqlite error.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from ..errors import BusyError, StoreError
from ..model import Boundary, RunRecord, RunState, TaskRecord, TaskState, dumps
from .base import Claim, ClaimStatus, IdempotencyRecord, Lease, check_fence

# Each entry upgrades the schema by one version; never edit a released entry, append a new one.
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE runs (
        run_id TEXT PRIMARY KEY,
        base TEXT NOT NULL,
        integration_ref TEXT NOT NULL,
        state TEXT NOT NULL,
        created_at REAL NOT NULL,
        options TEXT NOT NULL DEFAULT '{}'
    );
    CREATE TABLE tasks (
        run_id TEXT NOT NULL REFERENCES runs(run_id),
        task_id TEXT NOT NULL,
        state TEXT NOT NULL,
        branch TEXT NOT NULL,
        worktree TEXT,
        boundary TEXT NOT NULL,
        author TEXT NOT NULL,
        head TEXT,
        result TEXT NOT NULL DEFAULT '{}',
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        finished_at REAL,
        PRIMARY KEY (run_id, task_id)
    );
    CREATE INDEX tasks_by_state ON tasks(run_id, state);
    CREATE TABLE idempotency (
        key TEXT PRIMARY KEY,
        op TEXT NOT NULL,
        request_hash TEXT NOT NULL,
        request TEXT NOT NULL,
        state TEXT NOT NULL,
        owner TEXT,
        result TEXT,
        exit_code INTEGER,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        expires_at REAL NOT NULL
    );
    CREATE INDEX idempotency_by_expiry ON idempotency(expires_at);
    CREATE TABLE leases (
        name TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        acquired_at REAL NOT NULL,
        expires_at REAL NOT NULL
    );
    CREATE TABLE events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at REAL NOT NULL,
        run_id TEXT NOT NULL,
        task_id TEXT,
        kind TEXT NOT NULL,
        data TEXT NOT NULL DEFAULT '{}'
    );
    CREATE INDEX events_by_task ON events(run_id, task_id);
    """,
    """
    CREATE TABLE admission (
        ticket INTEGER PRIMARY KEY AUTOINCREMENT,
        kind TEXT NOT NULL,
        owner TEXT NOT NULL,
        enqueued_at REAL NOT NULL,
        admitted_at REAL
    );
    CREATE INDEX admission_by_kind ON admission(kind, ticket);
    """,
    """
    CREATE TABLE intents (
        intent_id TEXT NOT NULL,
        run_id TEXT NOT NULL,
        task_id TEXT NOT NULL,
        data TEXT NOT NULL,
        state TEXT NOT NULL,
        detail TEXT NOT NULL DEFAULT '{}',
        commit_sha TEXT,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        PRIMARY KEY (run_id, intent_id)
    );
    CREATE INDEX intents_by_state ON intents(run_id, state);
    """,
    """
    CREATE TABLE heartbeats (
        owner TEXT PRIMARY KEY,
        started_at REAL NOT NULL,
        beat_at REAL NOT NULL,
        expires_at REAL NOT NULL
    );
    """,
    """
    CREATE TABLE plan_rules (
        rule_id INTEGER PRIMARY KEY AUTOINCREMENT,
        run_id TEXT NOT NULL DEFAULT '',
        pattern TEXT NOT NULL,
        boundary TEXT NOT NULL,
        created_at REAL NOT NULL
    );
    CREATE TABLE harness_sessions (
        harness TEXT NOT NULL,
        session_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        run_id TEXT NOT NULL,
        base TEXT NOT NULL,
        created_at REAL NOT NULL,
        PRIMARY KEY (harness, session_id, seq)
    );
    CREATE INDEX harness_sessions_by_run ON harness_sessions(run_id);
    CREATE TABLE agent_tasks (
        run_id TEXT NOT NULL,
        task_id TEXT NOT NULL,
        harness TEXT NOT NULL,
        session_id TEXT NOT NULL,
        agent TEXT NOT NULL,
        boundary TEXT NOT NULL,
        rule TEXT NOT NULL,
        created_at REAL NOT NULL,
        PRIMARY KEY (run_id, task_id)
    );
    CREATE INDEX agent_tasks_by_agent ON agent_tasks(run_id, harness, session_id, agent);
    CREATE TABLE task_context (
        run_id TEXT NOT NULL,
        task_id TEXT NOT NULL,
        port_block INTEGER,
        data TEXT NOT NULL DEFAULT '{}',
        updated_at REAL NOT NULL,
        PRIMARY KEY (run_id, task_id)
    );
    CREATE INDEX task_context_by_block ON task_context(port_block);
    """,
    # One trace per run (telemetry/): the trace id and the root span id every process joins.
    """
    ALTER TABLE runs ADD COLUMN trace_id TEXT;
    ALTER TABLE runs ADD COLUMN root_span_id TEXT;
    """,
    # Remote runs (docs/multi-machine.md): the git remote that holds the run's integration branch.
    """
    ALTER TABLE runs ADD COLUMN remote TEXT;
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)

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


class SQLiteStore:
    """`Store` on one SQLite file (see the module docstring)."""

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
    def _write(self) -> Iterator[sqlite3.Cursor]:
        """One short write transaction, taken at once (IMMEDIATE) so it never deadlocks on upgrade."""
        with self._lock:
            began = time.monotonic()
            try:
                cursor = self._db.cursor()
                cursor.execute("BEGIN IMMEDIATE")
                try:
                    yield cursor
                except BaseException:
                    cursor.execute("ROLLBACK")
                    raise
                cursor.execute("COMMIT")
            except sqlite3.Error as error:
                raise self._database_error(error, waited=time.monotonic() - began) from error

    def _read(self, sql: str, params: Iterable[Any] = ()) -> list[sqlite3.Row]:
        with self._lock:
            began = time.monotonic()
            try:
                cursor = self._db.execute(sql, tuple(params))
                names = [d[0] for d in cursor.description or ()]
                return [dict(zip(names, row)) for row in cursor.fetchall()]  # type: ignore[misc]
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
        with self._write() as cursor:
            version = cursor.execute("PRAGMA user_version").fetchone()[0]  # re-read under the lock
            for number in range(version, SCHEMA_VERSION):
                for statement in MIGRATIONS[number].split(";"):
                    if statement.strip():
                        cursor.execute(statement)
                cursor.execute(f"PRAGMA user_version = {number + 1}")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # ---- runs -----------------------------------------------------------------------------------

    def create_run(self, run: RunRecord) -> bool:
        with self._write() as cursor:
            cursor.execute(
                "INSERT OR IGNORE INTO runs(run_id, base, integration_ref, state, created_at, options, trace_id,"
                " root_span_id, remote) VALUES (?,?,?,?,?,?,?,?,?)",
                (run.run_id, run.base, run.integration_ref, run.state.value, run.created_at, dumps(run.options),
                 run.trace_id, run.root_span_id, run.remote),
            )
            return cursor.rowcount == 1

    def set_run_trace(self, run_id: str, trace_id: str, root_span_id: str) -> RunRecord | None:
        with self._write() as cursor:
            cursor.execute("UPDATE runs SET trace_id = ?, root_span_id = ? WHERE run_id = ? AND trace_id IS NULL",
                           (trace_id, root_span_id, run_id))
        return self.get_run(run_id)

    def get_run(self, run_id: str) -> RunRecord | None:
        rows = self._read("SELECT * FROM runs WHERE run_id = ?", (run_id,))
        return _run(rows[0]) if rows else None

    def list_runs(self) -> list[RunRecord]:
        return [_run(r) for r in self._read("SELECT * FROM runs ORDER BY created_at, run_id")]

    def set_run_state(self, run_id: str, state: RunState) -> None:
        with self._write() as cursor:
            cursor.execute("UPDATE runs SET state = ? WHERE run_id = ?", (state.value, run_id))

    # ---- tasks ----------------------------------------------------------------------------------

    def insert_task(self, task: TaskRecord) -> bool:
        with self._write() as cursor:
            cursor.execute(
                "INSERT OR IGNORE INTO tasks(run_id, task_id, state, branch, worktree, boundary, author, head, result,"
                " created_at, updated_at, finished_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    task.run_id, task.task_id, task.state.value, task.branch, task.worktree,
                    dumps(task.boundary), task.author, task.head, dumps(task.result),
                    task.created_at, task.updated_at, task.finished_at,
                ),
            )
            return cursor.rowcount == 1

    def get_task(self, run_id: str, task_id: str) -> TaskRecord | None:
        rows = self._read("SELECT * FROM tasks WHERE run_id = ? AND task_id = ?", (run_id, task_id))
        return _task(rows[0]) if rows else None

    def list_tasks(self, run_id: str | None = None, states: Iterable[TaskState] | None = None) -> list[TaskRecord]:
        sql, params = "SELECT * FROM tasks WHERE 1=1", []
        if run_id is not None:
            sql += " AND run_id = ?"
            params.append(run_id)
        wanted = [s.value for s in states] if states is not None else None
        if wanted is not None:
            sql += f" AND state IN ({','.join('?' * len(wanted))})" if wanted else " AND 0"
            params.extend(wanted)
        return [_task(r) for r in self._read(sql + " ORDER BY run_id, created_at, task_id", params)]

    _TASK_FIELDS = {"state", "worktree", "head", "result", "finished_at", "boundary", "author", "branch"}

    def update_task(self, run_id: str, task_id: str, *, expect: Iterable[TaskState] | None = None,
                    holder: tuple[str, str] | None = None, **fields: Any) -> bool:
        unknown = set(fields) - self._TASK_FIELDS
        if unknown:
            raise ValueError(f"unknown task fields {sorted(unknown)}")
        values: dict[str, Any] = {}
        for name, value in fields.items():
            if name == "state":
                value = TaskState(value).value
            elif name in ("result", "boundary"):
                value = dumps(value)
            values[name] = value
        values["updated_at"] = time.time()
        sql = "UPDATE tasks SET " + ", ".join(f"{k} = ?" for k in values) + " WHERE run_id = ? AND task_id = ?"
        params = [*values.values(), run_id, task_id]
        if expect is not None:
            expected = [TaskState(s).value for s in expect]
            sql += f" AND state IN ({','.join('?' * len(expected))})"
            params.extend(expected)
        with self._write() as cursor:
            if holder is not None:
                row = cursor.execute("SELECT owner FROM leases WHERE name = ?", (holder[0],)).fetchone()
                check_fence(holder, row[0] if row else None)
            cursor.execute(sql, params)
            return cursor.rowcount == 1

    def delete_task(self, run_id: str, task_id: str) -> None:
        with self._write() as cursor:
            cursor.execute("DELETE FROM tasks WHERE run_id = ? AND task_id = ?", (run_id, task_id))

    # ---- idempotency ----------------------------------------------------------------------------

    def claim(self, key: str, op: str, request_hash: str, request: dict[str, Any], owner: str, ttl: float) -> Claim:
        now = time.time()
        with self._write() as cursor:
            row = cursor.execute("SELECT * FROM idempotency WHERE key = ?", (key,)).fetchone()
            record = _record(cursor, row) if row else None
            if record is not None and record.expires_at <= now:
                cursor.execute("DELETE FROM idempotency WHERE key = ?", (key,))
                record = None
            if record is None:
                cursor.execute(
                    "INSERT INTO idempotency(key, op, request_hash, request, state, owner, result, exit_code,"
                    " created_at, updated_at, expires_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                    (key, op, request_hash, dumps(request), "running", owner, None, None, now, now, now + ttl),
                )
                return Claim(ClaimStatus.NEW, self._record_now(cursor, key))
            if record.op != op or record.request_hash != request_hash:
                return Claim(ClaimStatus.MISMATCH, record)
            if record.state == "done":
                return Claim(ClaimStatus.DONE, record)
            if record.state == "open":  # a retryable outcome: run again under the new owner
                cursor.execute(
                    "UPDATE idempotency SET state = 'running', owner = ?, updated_at = ? WHERE key = ?", (owner, now, key)
                )
                return Claim(ClaimStatus.NEW, self._record_now(cursor, key))
            return Claim(ClaimStatus.RUNNING, record)

    def _record_now(self, cursor: sqlite3.Cursor, key: str) -> IdempotencyRecord:
        row = cursor.execute("SELECT * FROM idempotency WHERE key = ?", (key,)).fetchone()
        return _record(cursor, row)

    def takeover(self, key: str, old_owner: str | None, new_owner: str) -> bool:
        with self._write() as cursor:
            cursor.execute(
                "UPDATE idempotency SET owner = ?, updated_at = ? WHERE key = ? AND state = 'running' AND owner IS ?",
                (new_owner, time.time(), key, old_owner),
            )
            return cursor.rowcount == 1

    def complete(self, key: str, owner: str, result: dict[str, Any], exit_code: int, *, final: bool) -> bool:
        with self._write() as cursor:
            cursor.execute(
                "UPDATE idempotency SET state = ?, result = ?, exit_code = ?, updated_at = ?"
                " WHERE key = ? AND owner = ? AND state = 'running'",
                ("done" if final else "open", dumps(result), exit_code, time.time(), key, owner),
            )
            return cursor.rowcount == 1

    def release(self, key: str, owner: str) -> None:
        with self._write() as cursor:
            cursor.execute("DELETE FROM idempotency WHERE key = ? AND owner = ? AND state = 'running'", (key, owner))

    def get_record(self, key: str) -> IdempotencyRecord | None:
        with self._lock:
            cursor = self._db.cursor()
            row = cursor.execute("SELECT * FROM idempotency WHERE key = ?", (key,)).fetchone()
            return _record(cursor, row) if row else None

    def delete_expired_records(self, now: float, *, dry_run: bool = False) -> list[str]:
        keys = [r["key"] for r in self._read("SELECT key FROM idempotency WHERE expires_at <= ? ORDER BY key", (now,))]
        if not dry_run:
            with self._write() as cursor:
                cursor.execute("DELETE FROM idempotency WHERE expires_at <= ?", (now,))
                cursor.execute("DELETE FROM heartbeats WHERE expires_at <= ?", (now,))  # owners long gone
        return keys

    # ---- leases ---------------------------------------------------------------------------------

    def acquire_lease(self, name: str, owner: str, ttl: float, *, steal_from: str | None = None) -> Lease | None:
        now = time.time()
        with self._write() as cursor:
            row = cursor.execute("SELECT owner, expires_at FROM leases WHERE name = ?", (name,)).fetchone()
            if row is None:
                cursor.execute("INSERT INTO leases(name, owner, acquired_at, expires_at) VALUES (?,?,?,?)",
                               (name, owner, now, now + ttl))
            elif row[0] == owner or (steal_from is not None and row[0] == steal_from):
                cursor.execute("UPDATE leases SET owner = ?, acquired_at = ?, expires_at = ? WHERE name = ?",
                               (owner, now, now + ttl, name))
            else:
                return None
            return Lease(name, owner, now, now + ttl)

    def get_lease(self, name: str) -> Lease | None:
        rows = self._read("SELECT * FROM leases WHERE name = ?", (name,))
        return Lease(**rows[0]) if rows else None

    def release_lease(self, name: str, owner: str) -> None:
        with self._write() as cursor:
            cursor.execute("DELETE FROM leases WHERE name = ? AND owner = ?", (name, owner))

    def list_leases(self) -> list[Lease]:
        return [Lease(**r) for r in self._read("SELECT * FROM leases ORDER BY name")]

    def delete_lease(self, name: str, owner: str) -> bool:
        with self._write() as cursor:
            cursor.execute("DELETE FROM leases WHERE name = ? AND owner = ?", (name, owner))
            return cursor.rowcount == 1

    # ---- heartbeats ------------------------------------------------------------------------------

    def beat(self, owner: str, ttl: float, *, renew: bool) -> bool:
        now = time.time()
        with self._write() as cursor:
            if renew:
                cursor.execute("UPDATE heartbeats SET beat_at = ?, expires_at = ? WHERE owner = ? AND expires_at > ?",
                               (now, now + ttl, owner, now))
                if cursor.rowcount != 1:
                    return False
            else:
                cursor.execute("INSERT INTO heartbeats(owner, started_at, beat_at, expires_at) VALUES (?,?,?,?)"
                               " ON CONFLICT(owner) DO UPDATE SET started_at = excluded.started_at,"
                               " beat_at = excluded.beat_at, expires_at = excluded.expires_at",
                               (owner, now, now, now + ttl))
            cursor.execute("UPDATE leases SET expires_at = ? WHERE owner = ?", (now + ttl, owner))
            return True

    def owner_expired(self, owner: str) -> bool:
        rows = self._read("SELECT 1 FROM heartbeats WHERE owner = ? AND expires_at > ?", (owner, time.time()))
        return not rows

    def end_beat(self, owner: str) -> None:
        with self._write() as cursor:
            cursor.execute("DELETE FROM heartbeats WHERE owner = ?", (owner,))

    # ---- admission (a fair queue for heavy work) -------------------------------------------------

    def enqueue(self, kind: str, owner: str) -> int:
        with self._write() as cursor:
            cursor.execute("INSERT INTO admission(kind, owner, enqueued_at) VALUES (?,?,?)", (kind, owner, time.time()))
            return int(cursor.lastrowid)

    def try_admit(self, ticket: int, kind: str, limit: int) -> bool:
        """Admit `ticket` when fewer than `limit` are running and every ticket ahead of it is
        running too (first come, first served)."""
        with self._write() as cursor:
            row = cursor.execute("SELECT admitted_at FROM admission WHERE ticket = ?", (ticket,)).fetchone()
            if row is None:
                raise BusyError("this call's place in the work queue was dropped (its owner looked dead)",
                                fix="retry", retry_after=1.0)
            if row[0] is not None:
                return True
            running = cursor.execute("SELECT COUNT(*) FROM admission WHERE kind = ? AND admitted_at IS NOT NULL",
                                     (kind,)).fetchone()[0]
            ahead = cursor.execute("SELECT COUNT(*) FROM admission WHERE kind = ? AND admitted_at IS NULL AND ticket < ?",
                                   (kind, ticket)).fetchone()[0]
            if running + ahead >= limit:
                return False
            cursor.execute("UPDATE admission SET admitted_at = ? WHERE ticket = ?", (time.time(), ticket))
            return True

    def leave(self, ticket: int) -> None:
        with self._write() as cursor:
            cursor.execute("DELETE FROM admission WHERE ticket = ?", (ticket,))

    def queue_entries(self, kind: str | None = None) -> list[dict[str, Any]]:
        if kind is None:
            return self._read("SELECT * FROM admission ORDER BY ticket")
        return self._read("SELECT * FROM admission WHERE kind = ? ORDER BY ticket", (kind,))

    # ---- intents --------------------------------------------------------------------------------

    def put_intents(self, run_id: str, task_id: str, intents: list[dict[str, Any]]) -> None:
        """Replace the task's pending intents with `intents` (a re-finish derives them afresh);
        intents already consolidated are never touched."""
        now = time.time()
        with self._write() as cursor:
            cursor.execute("DELETE FROM intents WHERE run_id = ? AND task_id = ? AND state = 'pending'",
                           (run_id, task_id))  # declared intents stay: the agent asked for them directly
            for intent in intents:
                cursor.execute(
                    "INSERT OR IGNORE INTO intents(intent_id, run_id, task_id, data, state, created_at, updated_at)"
                    " VALUES (?,?,?,?,?,?,?)",
                    (intent["intent_id"], run_id, task_id, dumps(intent), intent.get("_state", "pending"), now, now))

    def add_intent(self, run_id: str, task_id: str, intent: dict[str, Any]) -> bool:
        now = time.time()
        with self._write() as cursor:
            cursor.execute(
                "INSERT OR IGNORE INTO intents(intent_id, run_id, task_id, data, state, created_at, updated_at)"
                " VALUES (?,?,?,?,?,?,?)", (intent["intent_id"], run_id, task_id, dumps(intent), "declared", now, now))
            return cursor.rowcount == 1

    def list_intents(self, run_id: str, states: Iterable[str] | None = None) -> list[dict[str, Any]]:
        sql, params = "SELECT * FROM intents WHERE run_id = ?", [run_id]
        if states is not None:
            wanted = list(states)
            sql += f" AND state IN ({','.join('?' * len(wanted))})" if wanted else " AND 0"
            params += wanted
        rows = self._read(sql + " ORDER BY created_at, intent_id", params)
        for row in rows:
            row["data"] = json.loads(row["data"])
            row["detail"] = json.loads(row["detail"])
        return rows

    def set_intent_state(self, run_id: str, intent_id: str, state: str, detail: dict[str, Any],
                         commit_sha: str | None = None) -> None:
        with self._write() as cursor:
            cursor.execute("UPDATE intents SET state = ?, detail = ?, commit_sha = ?, updated_at = ?"
                           " WHERE run_id = ? AND intent_id = ?",
                           (state, dumps(detail), commit_sha, time.time(), run_id, intent_id))

    # ---- the plan: boundaries by agent name pattern ------------------------------------------------

    def add_plan_rule(self, run_id: str, pattern: str, boundary: dict[str, Any]) -> int:
        with self._write() as cursor:
            cursor.execute("INSERT INTO plan_rules(run_id, pattern, boundary, created_at) VALUES (?,?,?,?)",
                           (run_id, pattern, dumps(boundary), time.time()))
            return int(cursor.lastrowid)

    def list_plan_rules(self, run_id: str | None = None) -> list[dict[str, Any]]:
        if run_id is None:
            rows = self._read("SELECT * FROM plan_rules ORDER BY rule_id")
        else:
            rows = self._read("SELECT * FROM plan_rules WHERE run_id = ? ORDER BY rule_id", (run_id,))
        for row in rows:
            row["boundary"] = json.loads(row["boundary"])
        return rows

    def delete_plan_rule(self, rule_id: int) -> bool:
        with self._write() as cursor:
            cursor.execute("DELETE FROM plan_rules WHERE rule_id = ?", (rule_id,))
            return cursor.rowcount == 1

    # ---- harness sessions and their agents -------------------------------------------------------

    def add_harness_session(self, harness: str, session_id: str, seq: int, run_id: str, base: str) -> bool:
        with self._write() as cursor:
            cursor.execute("INSERT OR IGNORE INTO harness_sessions(harness, session_id, seq, run_id, base, created_at)"
                           " VALUES (?,?,?,?,?,?)", (harness, session_id, seq, run_id, base, time.time()))
            return cursor.rowcount == 1

    def harness_sessions(self, *, harness: str | None = None, session_id: str | None = None,
                         run_id: str | None = None) -> list[dict[str, Any]]:
        sql, params = "SELECT * FROM harness_sessions WHERE 1=1", []
        for column, value in (("harness", harness), ("session_id", session_id), ("run_id", run_id)):
            if value is not None:
                sql += f" AND {column} = ?"
                params.append(value)
        return self._read(sql + " ORDER BY harness, session_id, seq", params)

    def claim_agent_task(self, run_id: str, task_id: str, *, harness: str, session_id: str, agent: str,
                         boundary: dict[str, Any], rule: str) -> bool:
        with self._write() as cursor:
            cursor.execute("INSERT OR IGNORE INTO agent_tasks(run_id, task_id, harness, session_id, agent, boundary,"
                           " rule, created_at) VALUES (?,?,?,?,?,?,?,?)",
                           (run_id, task_id, harness, session_id, agent, dumps(boundary), rule, time.time()))
            return cursor.rowcount == 1

    def agent_tasks(self, run_id: str, *, task_id: str | None = None, harness: str | None = None,
                    session_id: str | None = None, agent: str | None = None) -> list[dict[str, Any]]:
        sql, params = "SELECT * FROM agent_tasks WHERE run_id = ?", [run_id]
        for column, value in (("task_id", task_id), ("harness", harness), ("session_id", session_id),
                              ("agent", agent)):
            if value is not None:
                sql += f" AND {column} = ?"
                params.append(value)
        rows = self._read(sql + " ORDER BY created_at, task_id", params)
        for row in rows:
            row["boundary"] = json.loads(row["boundary"])
        return rows

    def delete_agent_task(self, run_id: str, task_id: str) -> None:
        with self._write() as cursor:
            cursor.execute("DELETE FROM agent_tasks WHERE run_id = ? AND task_id = ?", (run_id, task_id))

    # ---- task context: where a task's boundary came from, how its worktree was prepared ------------

    def allocate_port_block(self, run_id: str, task_id: str, limit: int,
                            usable: Callable[[int], bool] | None = None) -> int | None:
        """The lowest block number (0, 1, ...) no live task of any run holds and `usable` accepts,
        now held by this task; the task's own block when it has one `usable` accepts. None when
        all `limit` blocks are held."""
        live = [s.value for s in TaskState if s.live]
        marks = ",".join("?" * len(live))
        now = time.time()
        with self._write() as cursor:
            row = cursor.execute("SELECT port_block FROM task_context WHERE run_id = ? AND task_id = ?",
                                 (run_id, task_id)).fetchone()
            if row is not None and row[0] is not None and (usable is None or usable(int(row[0]))):
                return int(row[0])
            held = {r[0] for r in cursor.execute(
                "SELECT c.port_block FROM task_context c JOIN tasks t ON t.run_id = c.run_id AND t.task_id = c.task_id"
                f" WHERE c.port_block IS NOT NULL AND t.state IN ({marks})", live)}
            block = next((n for n in range(limit) if n not in held and (usable is None or usable(n))), None)
            if block is None:
                return None
            cursor.execute("INSERT INTO task_context(run_id, task_id, port_block, data, updated_at) VALUES (?,?,?,?,?)"
                           " ON CONFLICT(run_id, task_id) DO UPDATE SET port_block = excluded.port_block,"
                           " updated_at = excluded.updated_at", (run_id, task_id, block, "{}", now))
            return block

    def update_task_context(self, run_id: str, task_id: str, data: dict[str, Any]) -> None:
        """Merge `data` into the task's context (keys given replace the stored ones)."""
        now = time.time()
        with self._write() as cursor:
            row = cursor.execute("SELECT data FROM task_context WHERE run_id = ? AND task_id = ?",
                                 (run_id, task_id)).fetchone()
            merged = (json.loads(row[0]) if row else {}) | data
            cursor.execute("INSERT INTO task_context(run_id, task_id, data, updated_at) VALUES (?,?,?,?)"
                           " ON CONFLICT(run_id, task_id) DO UPDATE SET data = excluded.data,"
                           " updated_at = excluded.updated_at", (run_id, task_id, dumps(merged), now))

    def task_contexts(self, run_id: str, task_id: str | None = None) -> list[dict[str, Any]]:
        sql, params = "SELECT * FROM task_context WHERE run_id = ?", [run_id]
        if task_id is not None:
            sql += " AND task_id = ?"
            params.append(task_id)
        rows = self._read(sql + " ORDER BY task_id", params)
        for row in rows:
            row["data"] = json.loads(row["data"])
        return rows

    def delete_task_context(self, run_id: str, task_id: str) -> None:
        with self._write() as cursor:
            cursor.execute("DELETE FROM task_context WHERE run_id = ? AND task_id = ?", (run_id, task_id))

    # ---- events ---------------------------------------------------------------------------------

    def log_event(self, run_id: str, task_id: str | None, kind: str, data: dict[str, Any]) -> None:
        with self._write() as cursor:
            cursor.execute("INSERT INTO events(at, run_id, task_id, kind, data) VALUES (?,?,?,?,?)",
                           (time.time(), run_id, task_id, kind, dumps(data)))

    def events(self, run_id: str, task_id: str | None = None) -> list[dict[str, Any]]:
        sql, params = "SELECT * FROM events WHERE run_id = ?", [run_id]
        if task_id is not None:
            sql += " AND task_id = ?"
            params.append(task_id)
        rows = self._read(sql + " ORDER BY id", params)
        for row in rows:
            row["data"] = json.loads(row["data"])
        return rows

    def run_version(self, run_id: str) -> str:
        row = self._read(
            "SELECT (SELECT state FROM runs WHERE run_id = ?) AS s,"
            " (SELECT COALESCE(MAX(id), 0) FROM events WHERE run_id = ?) AS e,"
            " (SELECT COUNT(*) || '/' || COALESCE(MAX(updated_at), 0) || '/' || TOTAL(updated_at)"
            "  FROM tasks WHERE run_id = ?) AS t,"
            " (SELECT COUNT(*) || '/' || COALESCE(MAX(updated_at), 0) || '/' || TOTAL(updated_at)"
            "  FROM intents WHERE run_id = ?) AS i,"
            " (SELECT COUNT(*) || '/' || COALESCE(MAX(updated_at), 0) || '/' || TOTAL(updated_at)"
            "  FROM task_context WHERE run_id = ?) AS c", [run_id] * 5)[0]
        return f"{row['s']};{row['e']};{row['t']};{row['i']};{row['c']}"

    def integrity_check(self) -> list[str]:
        problems = [r["integrity_check"] for r in self._read("PRAGMA integrity_check")]
        problems = [p for p in problems if p != "ok"]
        problems += [f"foreign key violation in {r['table']}" for r in self._read("PRAGMA foreign_key_check")]
        for row in self._read("SELECT run_id, task_id, state FROM tasks"):
            try:
                TaskState(row["state"])
            except ValueError:
                problems.append(f"task {row['run_id']}/{row['task_id']} has unknown state {row['state']!r}")
        return problems


def _run(row: dict[str, Any]) -> RunRecord:
    return RunRecord(
        run_id=row["run_id"], base=row["base"], integration_ref=row["integration_ref"],
        state=RunState(row["state"]), created_at=row["created_at"], options=json.loads(row["options"] or "{}"),
        trace_id=row.get("trace_id"), root_span_id=row.get("root_span_id"), remote=row.get("remote"),
    )


def _task(row: dict[str, Any]) -> TaskRecord:
    return TaskRecord(
        run_id=row["run_id"], task_id=row["task_id"], state=TaskState(row["state"]), branch=row["branch"],
        worktree=row["worktree"], boundary=Boundary.from_json(json.loads(row["boundary"])), author=row["author"],
        head=row["head"], created_at=row["created_at"], updated_at=row["updated_at"],
        finished_at=row["finished_at"], result=json.loads(row["result"] or "{}"),
    )


def _record(cursor: sqlite3.Cursor, row: tuple[Any, ...]) -> IdempotencyRecord:
    data = dict(zip([d[0] for d in cursor.description], row))
    return IdempotencyRecord(
        key=data["key"], op=data["op"], request_hash=data["request_hash"], request=json.loads(data["request"]),
        state=data["state"], owner=data["owner"], result=json.loads(data["result"]) if data["result"] else None,
        exit_code=data["exit_code"], created_at=data["created_at"], updated_at=data["updated_at"],
        expires_at=data["expires_at"],
    )


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
