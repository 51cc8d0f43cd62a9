"""The shared store: PostgreSQL, for runs whose agents work on several machines.

Chosen by a `postgresql://` address (`WTC_STORE`, or `store` in the configuration; `address.py`).
Same protocol, same schema versions and the same decisions as the SQLite store, made with the
server's tools instead of one file lock:

- psycopg 3 with a small connection pool (psycopg_pool): a command uses one connection, a server
  sharing one store across threads (MCP) up to `max_connections`; every method is one short
  transaction, reads are single statements in autocommit;
- claims are `INSERT ... ON CONFLICT DO NOTHING`, then the row locked (`FOR UPDATE`) to decide;
  leases one `INSERT ... ON CONFLICT DO UPDATE ... WHERE` (free, ours, or the one we may steal);
  admission decides under a transaction-scoped advisory lock per queue, so two callers cannot both
  take the last place; a fenced task write locks the lease row it depends on;
- time that decides liveness (heartbeats, claim and lease expiry) is the server's clock, so machines
  whose clocks disagree still agree on who expired;
- a session may sit idle inside a transaction for 15 s and wait for a lock for 30 s: a client frozen
  or cut off mid-transaction cannot hold row locks that block every other machine;
- schema migrations are numbered like the SQLite store's (the same version means the same tables),
  applied in one transaction under an advisory lock, so two machines starting at once do not race;
  tables are named `wtc_*` in the connection's current schema, so a shared database is safe;
- a server that cannot be reached, restarts, or runs out of connections is StoreUnavailable (exit
  4, retry later: nothing was decided); refused credentials, a missing database or a schema from a
  newer worktree_coord are StoreError (exit 2: the address or the installation must change).
  The address's password appears in no message: `location` and every error show it as `***`.

psycopg is imported by this module only, and this module only when the address asks for it.
"""

from __future__ import annotations

import contextlib
import json
import logging
from typing import Any, Callable, Iterable, Iterator
from urllib.parse import parse_qs, unquote, urlsplit

import psycopg
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool, PoolTimeout

from ..config import redact_address
from ..errors import BusyError, InternalError, StoreError, StoreUnavailable
from ..model import Boundary, RunRecord, RunState, TaskRecord, TaskState, dumps
from .base import Claim, ClaimStatus, IdempotencyRecord, Lease, check_fence

# The pool logs failed connection attempts at WARNING; without a handler Python would print them on
# stderr next to our own message about the same failure. An application that configures logging
# still gets them.
logging.getLogger("psycopg").addHandler(logging.NullHandler())

NOW = "extract(epoch from clock_timestamp())::float8"   # the server's clock, in seconds like time.time()
SCHEMA_LOCK = 0x77746373          # advisory lock key ("wtcs") held while migrating
PORT_LOCK = 0x77746370            # advisory lock key ("wtcp") serializing port-block allocation

# Each entry upgrades the schema by one version, in step with sqlite.MIGRATIONS (version N has the
# same tables in both stores); never edit a released entry, append a new one.
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE wtc_runs (
        run_id TEXT PRIMARY KEY,
        base TEXT NOT NULL,
        integration_ref TEXT NOT NULL,
        state TEXT NOT NULL,
        created_at DOUBLE PRECISION NOT NULL,
        options TEXT NOT NULL DEFAULT '{}'
    );
    CREATE TABLE wtc_tasks (
        run_id TEXT NOT NULL REFERENCES wtc_runs(run_id),
        task_id TEXT NOT NULL,
        state TEXT NOT NULL,
        branch TEXT NOT NULL,
        worktree TEXT,
        boundary TEXT NOT NULL,
        author TEXT NOT NULL,
        head TEXT,
        result TEXT NOT NULL DEFAULT '{}',
        created_at DOUBLE PRECISION NOT NULL,
        updated_at DOUBLE PRECISION NOT NULL,
        finished_at DOUBLE PRECISION,
        PRIMARY KEY (run_id, task_id)
    );
    CREATE INDEX wtc_tasks_by_state ON wtc_tasks(run_id, state);
    CREATE TABLE wtc_idempotency (
        key TEXT PRIMARY KEY,
        op TEXT NOT NULL,
        request_hash TEXT NOT NULL,
        request TEXT NOT NULL,
        state TEXT NOT NULL,
        owner TEXT,
        result TEXT,
        exit_code INTEGER,
        created_at DOUBLE PRECISION NOT NULL,
        updated_at DOUBLE PRECISION NOT NULL,
        expires_at DOUBLE PRECISION NOT NULL
    );
    CREATE INDEX wtc_idempotency_by_expiry ON wtc_idempotency(expires_at);
    CREATE TABLE wtc_leases (
        name TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        acquired_at DOUBLE PRECISION NOT NULL,
        expires_at DOUBLE PRECISION NOT NULL
    );
    CREATE INDEX wtc_leases_by_owner ON wtc_leases(owner);
    CREATE TABLE wtc_events (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        at DOUBLE PRECISION NOT NULL,
        run_id TEXT NOT NULL,
        task_id TEXT,
        kind TEXT NOT NULL,
        data TEXT NOT NULL DEFAULT '{}'
    );
    CREATE INDEX wtc_events_by_task ON wtc_events(run_id, task_id);
    """,
    """
    CREATE TABLE wtc_admission (
        ticket BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        kind TEXT NOT NULL,
        owner TEXT NOT NULL,
        enqueued_at DOUBLE PRECISION NOT NULL,
        admitted_at DOUBLE PRECISION
    );
    CREATE INDEX wtc_admission_by_kind ON wtc_admission(kind, ticket);
    """,
    """
    CREATE TABLE wtc_intents (
        intent_id TEXT NOT NULL,
        run_id TEXT NOT NULL,
        task_id TEXT NOT NULL,
        data TEXT NOT NULL,
        state TEXT NOT NULL,
        detail TEXT NOT NULL DEFAULT '{}',
        commit_sha TEXT,
        created_at DOUBLE PRECISION NOT NULL,
        updated_at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (run_id, intent_id)
    );
    CREATE INDEX wtc_intents_by_state ON wtc_intents(run_id, state);
    """,
    """
    CREATE TABLE wtc_heartbeats (
        owner TEXT PRIMARY KEY,
        started_at DOUBLE PRECISION NOT NULL,
        beat_at DOUBLE PRECISION NOT NULL,
        expires_at DOUBLE PRECISION NOT NULL
    );
    """,
    """
    CREATE TABLE wtc_plan_rules (
        rule_id BIGSERIAL PRIMARY KEY,
        run_id TEXT NOT NULL DEFAULT '',
        pattern TEXT NOT NULL,
        boundary TEXT NOT NULL,
        created_at DOUBLE PRECISION NOT NULL
    );
    CREATE TABLE wtc_harness_sessions (
        harness TEXT NOT NULL,
        session_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        run_id TEXT NOT NULL,
        base TEXT NOT NULL,
        created_at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (harness, session_id, seq)
    );
    CREATE INDEX wtc_harness_sessions_by_run ON wtc_harness_sessions(run_id);
    CREATE TABLE wtc_agent_tasks (
        run_id TEXT NOT NULL,
        task_id TEXT NOT NULL,
        harness TEXT NOT NULL,
        session_id TEXT NOT NULL,
        agent TEXT NOT NULL,
        boundary TEXT NOT NULL,
        rule TEXT NOT NULL,
        created_at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (run_id, task_id)
    );
    CREATE INDEX wtc_agent_tasks_by_agent ON wtc_agent_tasks(run_id, harness, session_id, agent);
    CREATE TABLE wtc_task_context (
        run_id TEXT NOT NULL,
        task_id TEXT NOT NULL,
        port_block INTEGER,
        data TEXT NOT NULL DEFAULT '{}',
        updated_at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (run_id, task_id)
    );
    CREATE INDEX wtc_task_context_by_block ON wtc_task_context(port_block);
    """,
    # One trace per run (telemetry/): the trace id and the root span id every process joins.
    """
    ALTER TABLE wtc_runs ADD COLUMN trace_id TEXT;
    ALTER TABLE wtc_runs ADD COLUMN root_span_id TEXT;
    """,
    # Remote runs (docs/multi-machine.md): the git remote that holds the run's integration branch.
    """
    ALTER TABLE wtc_runs ADD COLUMN remote TEXT;
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)

CONNECT_TIMEOUT_SECONDS = 5.0
IDLE_IN_TRANSACTION_MS = 15_000
LOCK_TIMEOUT_MS = 30_000
RETRY_AFTER_SECONDS = 5.0

# Connection failures that retrying will not fix: the address or the server's set-up must change.
_CONFIGURATION_FAILURES = (
    "password authentication failed", "no password supplied", "no pg_hba.conf entry", "does not exist",
    "authentication failed", "invalid connection option", "invalid URI", "invalid sslmode", "permission denied",
    "invalid integer value",
)


class PostgresStore:
    """`Store` on a PostgreSQL database (see the module docstring)."""

    def __init__(self, url: str, *, connect_timeout: float | None = None, max_connections: int = 4):
        self._url = url
        self._opened = False  # until the first connection: a libpq refusal is about the address
        self.location = redact_address(url)
        self._secrets = _secrets_of(url)
        # libpq's own connect_timeout in the address wins; our waits for the pool follow it.
        given = parse_qs(urlsplit(url).query).get("connect_timeout", [])
        if connect_timeout is None:
            connect_timeout = float(given[0]) if given and given[0].isdigit() and int(given[0]) > 0 \
                else CONNECT_TIMEOUT_SECONDS
        self.connect_timeout = connect_timeout
        kwargs = {"autocommit": True, "prepare_threshold": None, "connect_timeout": max(1, round(connect_timeout))}
        # The first connection is made here, not by the pool: a refused password or a server that is
        # down is known at once and in the server's own words (the pool would retry until its timeout
        # and then say only that it has no connection). It checks and migrates the schema; the pool
        # opens its own connection meanwhile.
        try:
            with psycopg.connect(url, **kwargs) as first:  # type: ignore[arg-type]
                _configure(first)
                self._migrate(first)
        except psycopg.Error as error:
            raise self._translate(error) from None
        self._pool = ConnectionPool(
            url, min_size=1, max_size=max(1, max_connections), open=False, name="wtc",
            # prepare_threshold=None: no server-side prepared statements, so a transaction-mode
            # pgbouncer in front works; a command is too short-lived to gain from them anyway.
            kwargs=kwargs, configure=_configure, check=ConnectionPool.check_connection, timeout=connect_timeout,
            reconnect_timeout=connect_timeout * 6,
        )
        self._pool.open(wait=False)
        self._opened = True
        self._down = False   # set when a call found the server unreachable (see _connection)

    # ---- plumbing -------------------------------------------------------------------------------

    def _scrub(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, "***")
        return text

    def _translate(self, error: psycopg.Error) -> Exception:
        """A psycopg error as the WtcError a caller acts on (module docstring), password removed."""
        if isinstance(error, PoolTimeout):
            reason = self._diagnose()
            if reason is None:
                return StoreUnavailable(
                    f"the PostgreSQL store {self.location} has no free connection after {self.connect_timeout:.0f} s",
                    fix="retry later; if it persists, raise the server's max_connections or put pgbouncer in front",
                    retry_after=RETRY_AFTER_SECONDS, details={"store": self.location})
            error = reason
        text = self._scrub(str(error).strip()) or type(error).__name__
        if isinstance(error, (psycopg.errors.LockNotAvailable, psycopg.errors.DeadlockDetected,
                              psycopg.errors.SerializationFailure, psycopg.errors.QueryCanceled)):
            return BusyError(f"the PostgreSQL store {self.location} was busy: {text}", fix="retry",
                             retry_after=1.0, details={"store": self.location})
        if isinstance(error, psycopg.errors.InsufficientPrivilege) or (
                isinstance(error, psycopg.OperationalError) and any(m in text for m in _CONFIGURATION_FAILURES)):
            return StoreError(
                f"the PostgreSQL store {self.location} refused this connection: {text}",
                fix="check the address in WTC_STORE or `store` (user, host, database), the password (PGPASSWORD or "
                    "~/.pgpass), and that the role may create tables in the database's schema",
                details={"store": self.location})
        if isinstance(error, psycopg.OperationalError):
            return StoreUnavailable(
                f"the PostgreSQL store {self.location} cannot be reached: {text}",
                fix="retry later with the same command and key (nothing was decided); check that the server is up "
                    "and reachable from this machine",
                retry_after=RETRY_AFTER_SECONDS, details={"store": self.location})
        if isinstance(error, psycopg.ProgrammingError) and not self._opened:
            return StoreError(  # libpq refused the address itself (an unknown parameter, a broken host)
                f"the PostgreSQL store address {self.location} cannot be used: {text}",
                fix="correct the address in WTC_STORE or `store` (postgresql://user@host:5432/database?param=value, "
                    "with parameters libpq knows)",
                details={"store": self.location})
        # Anything else is a bug in our SQL: reported as one (exit 6), its text scrubbed like the rest.
        return InternalError(f"the PostgreSQL store {self.location} failed: {type(error).__name__}: {text}",
                             fix="report this as a bug in worktree_coord, with the command that failed")

    def _diagnose(self) -> psycopg.Error | None:
        """Why the pool has no connection: one direct attempt, for the server's own words."""
        try:
            psycopg.connect(self._url, connect_timeout=max(1, round(self.connect_timeout)), autocommit=True).close()
        except psycopg.Error as error:
            return error
        return None

    @contextlib.contextmanager
    def _connection(self) -> Iterator[psycopg.Connection[Any]]:
        """A pooled connection. Once the server was found unreachable, each call first tries one
        direct connection (instant when refused) instead of waiting out the pool's timeout, so a
        command that meets an outage says so in seconds, not after every step's full timeout."""
        if self._down:
            reason = self._diagnose()
            if reason is not None:
                raise self._translate(reason) from None
            self._down = False
        try:
            with self._pool.connection() as connection:
                yield connection
        except psycopg.OperationalError as error:
            self._down = True
            raise self._translate(error) from None
        except psycopg.Error as error:
            raise self._translate(error) from None

    @contextlib.contextmanager
    def _tx(self) -> Iterator[psycopg.Cursor[dict[str, Any]]]:
        """One short transaction on a pooled connection."""
        with self._connection() as connection, connection.transaction():
            with connection.cursor(row_factory=dict_row) as cursor:
                yield cursor

    def _read(self, sql: str, params: Iterable[Any] | dict[str, Any] = ()) -> list[dict[str, Any]]:
        with self._connection() as connection, connection.cursor(row_factory=dict_row) as cursor:
            cursor.execute(sql, params if isinstance(params, dict) else tuple(params))
            return list(cursor.fetchall())

    def _migrate(self, connection: psycopg.Connection[Any]) -> None:
        version = self._schema_version(connection)
        if version == SCHEMA_VERSION:
            return
        with connection.transaction(), connection.cursor(row_factory=dict_row) as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))  # one machine migrates at a time
            cursor.execute("CREATE TABLE IF NOT EXISTS wtc_schema (version INTEGER NOT NULL)")
            cursor.execute("SELECT version FROM wtc_schema")
            row = cursor.fetchone()
            version = row["version"] if row else 0  # re-read under the lock: another may have migrated
            self._refuse_newer(version)
            for number in range(version, SCHEMA_VERSION):
                cursor.execute(MIGRATIONS[number])
            if row is None:
                cursor.execute("INSERT INTO wtc_schema(version) VALUES (%s)", (SCHEMA_VERSION,))
            else:
                cursor.execute("UPDATE wtc_schema SET version = %s", (SCHEMA_VERSION,))

    def _schema_version(self, connection: psycopg.Connection[Any]) -> int:
        with connection.cursor() as cursor:
            cursor.execute("SELECT to_regclass('wtc_schema') IS NOT NULL")
            present = _one_value(cursor)
            if not present:
                return 0
            cursor.execute("SELECT version FROM wtc_schema")
            row = cursor.fetchone()
        version = int(row[0]) if row else 0
        self._refuse_newer(version)
        return version

    def _refuse_newer(self, version: int) -> None:
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"the PostgreSQL store {self.location} has schema version {version}, newer than this "
                f"worktree_coord understands ({SCHEMA_VERSION})",
                fix="upgrade worktree_coord on this machine (pip install -U 'worktree-coord[postgres]') to the "
                    "version the other machines use",
                details={"store": self.location, "version": version})

    def close(self) -> None:
        self._pool.close(timeout=5)

    # ---- runs -----------------------------------------------------------------------------------

    def create_run(self, run: RunRecord) -> bool:
        with self._tx() as cursor:
            cursor.execute(
                "INSERT INTO wtc_runs(run_id, base, integration_ref, state, created_at, options, trace_id, root_span_id,"
                " remote) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s) ON CONFLICT (run_id) DO NOTHING",
                (run.run_id, run.base, run.integration_ref, run.state.value, run.created_at, dumps(run.options),
                 run.trace_id, run.root_span_id, run.remote))
            return cursor.rowcount == 1

    def set_run_trace(self, run_id: str, trace_id: str, root_span_id: str) -> RunRecord | None:
        with self._tx() as cursor:
            cursor.execute("UPDATE wtc_runs SET trace_id = %s, root_span_id = %s WHERE run_id = %s AND trace_id IS NULL",
                           (trace_id, root_span_id, run_id))
        return self.get_run(run_id)

    def get_run(self, run_id: str) -> RunRecord | None:
        rows = self._read("SELECT * FROM wtc_runs WHERE run_id = %s", (run_id,))
        return _run(rows[0]) if rows else None

    def list_runs(self) -> list[RunRecord]:
        return [_run(r) for r in self._read("SELECT * FROM wtc_runs ORDER BY created_at, run_id")]

    def set_run_state(self, run_id: str, state: RunState) -> None:
        with self._tx() as cursor:
            cursor.execute("UPDATE wtc_runs SET state = %s WHERE run_id = %s", (state.value, run_id))

    # ---- tasks ----------------------------------------------------------------------------------

    def insert_task(self, task: TaskRecord) -> bool:
        with self._tx() as cursor:
            cursor.execute(
                "INSERT INTO wtc_tasks(run_id, task_id, state, branch, worktree, boundary, author, head, result,"
                " created_at, updated_at, finished_at) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)"
                " ON CONFLICT (run_id, task_id) DO NOTHING",
                (task.run_id, task.task_id, task.state.value, task.branch, task.worktree, dumps(task.boundary),
                 task.author, task.head, dumps(task.result), task.created_at, task.updated_at, task.finished_at))
            return cursor.rowcount == 1

    def get_task(self, run_id: str, task_id: str) -> TaskRecord | None:
        rows = self._read("SELECT * FROM wtc_tasks WHERE run_id = %s AND task_id = %s", (run_id, task_id))
        return _task(rows[0]) if rows else None

    def list_tasks(self, run_id: str | None = None, states: Iterable[TaskState] | None = None) -> list[TaskRecord]:
        sql, params = "SELECT * FROM wtc_tasks WHERE true", []
        if run_id is not None:
            sql += " AND run_id = %s"
            params.append(run_id)
        if states is not None:
            sql += " AND state = ANY(%s)"
            params.append([TaskState(s).value for s in states])
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
        sql = ("UPDATE wtc_tasks SET " + "".join(f"{k} = %s, " for k in values) + f"updated_at = {NOW}"
               " WHERE run_id = %s AND task_id = %s")
        params = [*values.values(), run_id, task_id]
        if expect is not None:
            sql += " AND state = ANY(%s)"
            params.append([TaskState(s).value for s in expect])
        with self._tx() as cursor:
            if holder is not None:
                # FOR SHARE: a steal of this lease (an UPDATE of the row) waits for this write to end.
                cursor.execute("SELECT owner FROM wtc_leases WHERE name = %s FOR SHARE", (holder[0],))
                row = cursor.fetchone()
                check_fence(holder, row["owner"] if row else None)
            cursor.execute(sql, params)
            return cursor.rowcount == 1

    def delete_task(self, run_id: str, task_id: str) -> None:
        with self._tx() as cursor:
            cursor.execute("DELETE FROM wtc_tasks WHERE run_id = %s AND task_id = %s", (run_id, task_id))

    # ---- idempotency ----------------------------------------------------------------------------

    def claim(self, key: str, op: str, request_hash: str, request: dict[str, Any], owner: str, ttl: float) -> Claim:
        with self._tx() as cursor:
            for _ in range(8):  # a row deleted between the INSERT and the SELECT: insert again
                cursor.execute(
                    "INSERT INTO wtc_idempotency(key, op, request_hash, request, state, owner, created_at, updated_at,"
                    " expires_at) SELECT %(key)s, %(op)s, %(hash)s, %(request)s, 'running', %(owner)s, now.t, now.t,"
                    f" now.t + %(ttl)s FROM (SELECT {NOW} AS t) now ON CONFLICT (key) DO NOTHING RETURNING *",
                    {"key": key, "op": op, "hash": request_hash, "request": dumps(request), "owner": owner, "ttl": ttl})
                row = cursor.fetchone()
                if row is not None:
                    return Claim(ClaimStatus.NEW, _record(row))
                cursor.execute(f"SELECT *, {NOW} AS now FROM wtc_idempotency WHERE key = %s FOR UPDATE", (key,))
                row = cursor.fetchone()
                if row is None:
                    continue
                if row["expires_at"] <= row["now"]:  # an expired record is forgotten: a new claim
                    cursor.execute(
                        "UPDATE wtc_idempotency SET op = %s, request_hash = %s, request = %s, state = 'running',"
                        " owner = %s, result = NULL, exit_code = NULL, created_at = %s, updated_at = %s,"
                        " expires_at = %s WHERE key = %s RETURNING *",
                        (op, request_hash, dumps(request), owner, row["now"], row["now"], row["now"] + ttl, key))
                    return Claim(ClaimStatus.NEW, _record(_one(cursor)))
                record = _record(row)
                if record.op != op or record.request_hash != request_hash:
                    return Claim(ClaimStatus.MISMATCH, record)
                if record.state == "done":
                    return Claim(ClaimStatus.DONE, record)
                if record.state == "open":  # a retryable outcome: run again under the new owner
                    cursor.execute("UPDATE wtc_idempotency SET state = 'running', owner = %s, updated_at = %s"
                                   " WHERE key = %s RETURNING *", (owner, row["now"], key))
                    return Claim(ClaimStatus.NEW, _record(_one(cursor)))
                return Claim(ClaimStatus.RUNNING, record)
        raise BusyError(f"the idempotency key {key!r} kept changing under this call", fix="retry", retry_after=1.0)

    def takeover(self, key: str, old_owner: str | None, new_owner: str) -> bool:
        with self._tx() as cursor:
            cursor.execute(f"UPDATE wtc_idempotency SET owner = %s, updated_at = {NOW}"
                           " WHERE key = %s AND state = 'running' AND owner IS NOT DISTINCT FROM %s",
                           (new_owner, key, old_owner))
            return cursor.rowcount == 1

    def complete(self, key: str, owner: str, result: dict[str, Any], exit_code: int, *, final: bool) -> bool:
        with self._tx() as cursor:
            cursor.execute(f"UPDATE wtc_idempotency SET state = %s, result = %s, exit_code = %s, updated_at = {NOW}"
                           " WHERE key = %s AND owner = %s AND state = 'running'",
                           ("done" if final else "open", dumps(result), exit_code, key, owner))
            return cursor.rowcount == 1

    def release(self, key: str, owner: str) -> None:
        with self._tx() as cursor:
            cursor.execute("DELETE FROM wtc_idempotency WHERE key = %s AND owner = %s AND state = 'running'",
                           (key, owner))

    def get_record(self, key: str) -> IdempotencyRecord | None:
        rows = self._read("SELECT * FROM wtc_idempotency WHERE key = %s", (key,))
        return _record(rows[0]) if rows else None

    def delete_expired_records(self, now: float, *, dry_run: bool = False) -> list[str]:
        if dry_run:
            rows = self._read("SELECT key FROM wtc_idempotency WHERE expires_at <= %s ORDER BY key", (now,))
            return [r["key"] for r in rows]
        with self._tx() as cursor:
            cursor.execute("DELETE FROM wtc_idempotency WHERE expires_at <= %s RETURNING key", (now,))
            keys = sorted(r["key"] for r in cursor.fetchall())
            cursor.execute(f"DELETE FROM wtc_heartbeats WHERE expires_at <= {NOW}")  # owners long gone
            return keys

    # ---- leases ---------------------------------------------------------------------------------

    def acquire_lease(self, name: str, owner: str, ttl: float, *, steal_from: str | None = None) -> Lease | None:
        with self._tx() as cursor:
            cursor.execute(
                "INSERT INTO wtc_leases(name, owner, acquired_at, expires_at)"
                f" SELECT %(name)s, %(owner)s, now.t, now.t + %(ttl)s FROM (SELECT {NOW} AS t) now"
                " ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, acquired_at = excluded.acquired_at,"
                " expires_at = excluded.expires_at"
                " WHERE wtc_leases.owner = excluded.owner OR wtc_leases.owner = %(steal)s"
                " RETURNING name, owner, acquired_at, expires_at",
                {"name": name, "owner": owner, "ttl": ttl, "steal": steal_from})
            row = cursor.fetchone()
            return Lease(**row) if row else None

    def get_lease(self, name: str) -> Lease | None:
        rows = self._read("SELECT name, owner, acquired_at, expires_at FROM wtc_leases WHERE name = %s", (name,))
        return Lease(**rows[0]) if rows else None

    def release_lease(self, name: str, owner: str) -> None:
        self.delete_lease(name, owner)

    def list_leases(self) -> list[Lease]:
        return [Lease(**r) for r in self._read("SELECT name, owner, acquired_at, expires_at FROM wtc_leases"
                                                " ORDER BY name")]

    def delete_lease(self, name: str, owner: str) -> bool:
        with self._tx() as cursor:
            cursor.execute("DELETE FROM wtc_leases WHERE name = %s AND owner = %s", (name, owner))
            return cursor.rowcount == 1

    # ---- heartbeats -----------------------------------------------------------------------------

    def beat(self, owner: str, ttl: float, *, renew: bool) -> bool:
        with self._tx() as cursor:
            if renew:
                cursor.execute(f"UPDATE wtc_heartbeats SET beat_at = {NOW}, expires_at = {NOW} + %s"
                               f" WHERE owner = %s AND expires_at > {NOW}", (ttl, owner))
                if cursor.rowcount != 1:
                    return False
            else:
                cursor.execute(
                    "INSERT INTO wtc_heartbeats(owner, started_at, beat_at, expires_at)"
                    f" SELECT %s, now.t, now.t, now.t + %s FROM (SELECT {NOW} AS t) now"
                    " ON CONFLICT (owner) DO UPDATE SET started_at = excluded.started_at, beat_at = excluded.beat_at,"
                    " expires_at = excluded.expires_at", (owner, ttl))
            cursor.execute(f"UPDATE wtc_leases SET expires_at = {NOW} + %s WHERE owner = %s", (ttl, owner))
            return True

    def owner_expired(self, owner: str) -> bool:
        rows = self._read(f"SELECT 1 FROM wtc_heartbeats WHERE owner = %s AND expires_at > {NOW}", (owner,))
        return not rows

    def end_beat(self, owner: str) -> None:
        with self._tx() as cursor:
            cursor.execute("DELETE FROM wtc_heartbeats WHERE owner = %s", (owner,))

    # ---- admission (a fair queue for heavy work) -------------------------------------------------

    def enqueue(self, kind: str, owner: str) -> int:
        with self._tx() as cursor:
            cursor.execute(f"INSERT INTO wtc_admission(kind, owner, enqueued_at) VALUES (%s, %s, {NOW})"
                           " RETURNING ticket", (kind, owner))
            return int(_one(cursor)["ticket"])

    def try_admit(self, ticket: int, kind: str, limit: int) -> bool:
        """Admit `ticket` when fewer than `limit` are running and every ticket ahead of it is
        running too (first come, first served); decided under the queue's advisory lock."""
        with self._tx() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(hashtextextended('wtc-admission:' || %s, 0))", (kind,))
            cursor.execute("SELECT admitted_at FROM wtc_admission WHERE ticket = %s", (ticket,))
            row = cursor.fetchone()
            if row is None:
                raise BusyError("this call's place in the work queue was dropped (its owner looked dead)",
                                fix="retry", retry_after=1.0)
            if row["admitted_at"] is not None:
                return True
            cursor.execute(
                "SELECT count(*) FILTER (WHERE admitted_at IS NOT NULL) AS running,"
                " count(*) FILTER (WHERE admitted_at IS NULL AND ticket < %s) AS ahead"
                " FROM wtc_admission WHERE kind = %s", (ticket, kind))
            counts = _one(cursor)
            if counts["running"] + counts["ahead"] >= limit:
                return False
            cursor.execute(f"UPDATE wtc_admission SET admitted_at = {NOW} WHERE ticket = %s", (ticket,))
            return True

    def leave(self, ticket: int) -> None:
        with self._tx() as cursor:
            cursor.execute("DELETE FROM wtc_admission WHERE ticket = %s", (ticket,))

    def queue_entries(self, kind: str | None = None) -> list[dict[str, Any]]:
        if kind is None:
            return self._read("SELECT * FROM wtc_admission ORDER BY ticket")
        return self._read("SELECT * FROM wtc_admission WHERE kind = %s ORDER BY ticket", (kind,))

    # ---- intents --------------------------------------------------------------------------------

    def put_intents(self, run_id: str, task_id: str, intents: list[dict[str, Any]]) -> None:
        """Replace the task's pending intents with `intents` (a re-finish derives them afresh);
        intents already consolidated are never touched."""
        with self._tx() as cursor:
            cursor.execute("DELETE FROM wtc_intents WHERE run_id = %s AND task_id = %s AND state = 'pending'",
                           (run_id, task_id))  # declared intents stay: the agent asked for them directly
            for intent in intents:
                cursor.execute(
                    "INSERT INTO wtc_intents(intent_id, run_id, task_id, data, state, created_at, updated_at)"
                    f" VALUES (%s,%s,%s,%s,%s,{NOW},{NOW}) ON CONFLICT (run_id, intent_id) DO NOTHING",
                    (intent["intent_id"], run_id, task_id, dumps(intent), intent.get("_state", "pending")))

    def add_intent(self, run_id: str, task_id: str, intent: dict[str, Any]) -> bool:
        with self._tx() as cursor:
            cursor.execute(
                "INSERT INTO wtc_intents(intent_id, run_id, task_id, data, state, created_at, updated_at)"
                f" VALUES (%s,%s,%s,%s,'declared',{NOW},{NOW}) ON CONFLICT (run_id, intent_id) DO NOTHING",
                (intent["intent_id"], run_id, task_id, dumps(intent)))
            return cursor.rowcount == 1

    def list_intents(self, run_id: str, states: Iterable[str] | None = None) -> list[dict[str, Any]]:
        sql, params = "SELECT * FROM wtc_intents WHERE run_id = %s", [run_id]
        if states is not None:
            sql += " AND state = ANY(%s)"
            params.append(list(states))
        rows = self._read(sql + " ORDER BY created_at, intent_id", params)
        for row in rows:
            row["data"] = json.loads(row["data"])
            row["detail"] = json.loads(row["detail"])
        return rows

    def set_intent_state(self, run_id: str, intent_id: str, state: str, detail: dict[str, Any],
                         commit_sha: str | None = None) -> None:
        with self._tx() as cursor:
            cursor.execute(f"UPDATE wtc_intents SET state = %s, detail = %s, commit_sha = %s, updated_at = {NOW}"
                           " WHERE run_id = %s AND intent_id = %s",
                           (state, dumps(detail), commit_sha, run_id, intent_id))

    # ---- the plan -------------------------------------------------------------------------------

    def add_plan_rule(self, run_id: str, pattern: str, boundary: dict[str, Any]) -> int:
        with self._tx() as cursor:
            cursor.execute("INSERT INTO wtc_plan_rules(run_id, pattern, boundary, created_at)"
                           f" VALUES (%s,%s,%s,{NOW}) RETURNING rule_id", (run_id, pattern, dumps(boundary)))
            return int(cursor.fetchone()["rule_id"])

    def list_plan_rules(self, run_id: str | None = None) -> list[dict[str, Any]]:
        if run_id is None:
            rows = self._read("SELECT * FROM wtc_plan_rules ORDER BY rule_id")
        else:
            rows = self._read("SELECT * FROM wtc_plan_rules WHERE run_id = %s ORDER BY rule_id", (run_id,))
        for row in rows:
            row["boundary"] = json.loads(row["boundary"])
        return rows

    def delete_plan_rule(self, rule_id: int) -> bool:
        with self._tx() as cursor:
            cursor.execute("DELETE FROM wtc_plan_rules WHERE rule_id = %s", (rule_id,))
            return cursor.rowcount == 1

    # ---- harness sessions and their agents -------------------------------------------------------

    def add_harness_session(self, harness: str, session_id: str, seq: int, run_id: str, base: str) -> bool:
        with self._tx() as cursor:
            cursor.execute("INSERT INTO wtc_harness_sessions(harness, session_id, seq, run_id, base, created_at)"
                           f" VALUES (%s,%s,%s,%s,%s,{NOW}) ON CONFLICT DO NOTHING",
                           (harness, session_id, seq, run_id, base))
            return cursor.rowcount == 1

    def harness_sessions(self, *, harness: str | None = None, session_id: str | None = None,
                         run_id: str | None = None) -> list[dict[str, Any]]:
        sql, params = "SELECT * FROM wtc_harness_sessions WHERE TRUE", []
        for column, value in (("harness", harness), ("session_id", session_id), ("run_id", run_id)):
            if value is not None:
                sql += f" AND {column} = %s"
                params.append(value)
        return self._read(sql + " ORDER BY harness, session_id, seq", params)

    def claim_agent_task(self, run_id: str, task_id: str, *, harness: str, session_id: str, agent: str,
                         boundary: dict[str, Any], rule: str) -> bool:
        with self._tx() as cursor:
            cursor.execute("INSERT INTO wtc_agent_tasks(run_id, task_id, harness, session_id, agent, boundary, rule,"
                           f" created_at) VALUES (%s,%s,%s,%s,%s,%s,%s,{NOW}) ON CONFLICT DO NOTHING",
                           (run_id, task_id, harness, session_id, agent, dumps(boundary), rule))
            return cursor.rowcount == 1

    def agent_tasks(self, run_id: str, *, task_id: str | None = None, harness: str | None = None,
                    session_id: str | None = None, agent: str | None = None) -> list[dict[str, Any]]:
        sql, params = "SELECT * FROM wtc_agent_tasks WHERE run_id = %s", [run_id]
        for column, value in (("task_id", task_id), ("harness", harness), ("session_id", session_id),
                              ("agent", agent)):
            if value is not None:
                sql += f" AND {column} = %s"
                params.append(value)
        rows = self._read(sql + " ORDER BY created_at, task_id", params)
        for row in rows:
            row["boundary"] = json.loads(row["boundary"])
        return rows

    def delete_agent_task(self, run_id: str, task_id: str) -> None:
        with self._tx() as cursor:
            cursor.execute("DELETE FROM wtc_agent_tasks WHERE run_id = %s AND task_id = %s", (run_id, task_id))

    # ---- task context: where a task's boundary came from, how its worktree was prepared ------------

    def allocate_port_block(self, run_id: str, task_id: str, limit: int,
                            usable: Callable[[int], bool] | None = None) -> int | None:
        """As SQLiteStore.allocate_port_block; a transaction-scoped advisory lock makes the read of the
        held blocks and the write of the new one one step across every client of the server."""
        live = [s.value for s in TaskState if s.live]
        with self._tx() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", (PORT_LOCK,))
            cursor.execute("SELECT port_block FROM wtc_task_context WHERE run_id = %s AND task_id = %s",
                           (run_id, task_id))
            row = cursor.fetchone()
            if row is not None and row["port_block"] is not None and (usable is None or usable(int(row["port_block"]))):
                return int(row["port_block"])
            cursor.execute("SELECT c.port_block FROM wtc_task_context c JOIN wtc_tasks t"
                           " ON t.run_id = c.run_id AND t.task_id = c.task_id"
                           " WHERE c.port_block IS NOT NULL AND t.state = ANY(%s)", (live,))
            held = {r["port_block"] for r in cursor.fetchall()}
            block = next((n for n in range(limit) if n not in held and (usable is None or usable(n))), None)
            if block is None:
                return None
            cursor.execute("INSERT INTO wtc_task_context(run_id, task_id, port_block, data, updated_at)"
                           f" VALUES (%s,%s,%s,'{{}}',{NOW}) ON CONFLICT (run_id, task_id) DO UPDATE"
                           " SET port_block = excluded.port_block, updated_at = excluded.updated_at",
                           (run_id, task_id, block))
            return block

    def update_task_context(self, run_id: str, task_id: str, data: dict[str, Any]) -> None:
        """Merge `data` into the task's context (keys given replace the stored ones)."""
        with self._tx() as cursor:
            # The row first (so two first writers cannot both merge into nothing), then locked, merged.
            cursor.execute("INSERT INTO wtc_task_context(run_id, task_id, data, updated_at)"
                           f" VALUES (%s,%s,'{{}}',{NOW}) ON CONFLICT DO NOTHING", (run_id, task_id))
            cursor.execute("SELECT data FROM wtc_task_context WHERE run_id = %s AND task_id = %s FOR UPDATE",
                           (run_id, task_id))
            merged = json.loads(cursor.fetchone()["data"]) | data
            cursor.execute(f"UPDATE wtc_task_context SET data = %s, updated_at = {NOW}"
                           " WHERE run_id = %s AND task_id = %s", (dumps(merged), run_id, task_id))

    def task_contexts(self, run_id: str, task_id: str | None = None) -> list[dict[str, Any]]:
        sql, params = "SELECT * FROM wtc_task_context WHERE run_id = %s", [run_id]
        if task_id is not None:
            sql += " AND task_id = %s"
            params.append(task_id)
        rows = self._read(sql + " ORDER BY task_id", params)
        for row in rows:
            row["data"] = json.loads(row["data"])
        return rows

    def delete_task_context(self, run_id: str, task_id: str) -> None:
        with self._tx() as cursor:
            cursor.execute("DELETE FROM wtc_task_context WHERE run_id = %s AND task_id = %s", (run_id, task_id))

    # ---- events ---------------------------------------------------------------------------------

    def log_event(self, run_id: str, task_id: str | None, kind: str, data: dict[str, Any]) -> None:
        with self._tx() as cursor:
            cursor.execute(f"INSERT INTO wtc_events(at, run_id, task_id, kind, data) VALUES ({NOW}, %s, %s, %s, %s)",
                           (run_id, task_id, kind, dumps(data)))

    def events(self, run_id: str, task_id: str | None = None) -> list[dict[str, Any]]:
        sql, params = "SELECT * FROM wtc_events WHERE run_id = %s", [run_id]
        if task_id is not None:
            sql += " AND task_id = %s"
            params.append(task_id)
        rows = self._read(sql + " ORDER BY id", params)
        for row in rows:
            row["data"] = json.loads(row["data"])
        return rows

    def run_version(self, run_id: str) -> str:
        def aggregate(table: str) -> str:
            # float8 sent as text loses nothing (PostgreSQL 12+ prints the shortest exact form).
            return (f"(SELECT COUNT(*) || '/' || COALESCE(MAX(updated_at), 0) || '/' || COALESCE(SUM(updated_at), 0)"
                    f" FROM {table} WHERE run_id = %(r)s)")
        row = self._read(
            "SELECT (SELECT state FROM wtc_runs WHERE run_id = %(r)s) AS s,"
            " (SELECT COALESCE(MAX(id), 0) FROM wtc_events WHERE run_id = %(r)s) AS e,"
            f" {aggregate('wtc_tasks')} AS t, {aggregate('wtc_intents')} AS i, {aggregate('wtc_task_context')} AS c",
            {"r": run_id})[0]
        return f"{row['s']};{row['e']};{row['t']};{row['i']};{row['c']}"

    def integrity_check(self) -> list[str]:
        problems = []
        with self._connection() as connection:
            version = self._schema_version(connection)
        if version != SCHEMA_VERSION:
            problems.append(f"schema version {version}, expected {SCHEMA_VERSION}")
        known = [s.value for s in TaskState]
        for row in self._read("SELECT run_id, task_id, state FROM wtc_tasks WHERE NOT (state = ANY(%s))", (known,)):
            problems.append(f"task {row['run_id']}/{row['task_id']} has unknown state {row['state']!r}")
        return problems


def _configure(connection: psycopg.Connection[Any]) -> None:
    """Bounds for a session, so a client frozen or cut off in the middle of a transaction cannot hold
    its row locks for long: the server ends a transaction idle for IDLE_IN_TRANSACTION_MS, and a wait
    for a lock gives up after LOCK_TIMEOUT_MS (BusyError, exit 4). wtc's transactions run their
    statements back to back, so neither bound touches a healthy call."""
    connection.execute(f"SET idle_in_transaction_session_timeout = {IDLE_IN_TRANSACTION_MS}")
    connection.execute(f"SET lock_timeout = {LOCK_TIMEOUT_MS}")


def _secrets_of(url: str) -> list[str]:
    """The password of a postgresql:// address, as written and decoded, for scrubbing messages."""
    found = []
    try:
        parts = urlsplit(url)
        if parts.password:
            found += [parts.password, unquote(parts.password)]
        found += parse_qs(parts.query).get("password", [])
    except ValueError:  # unreadable (a broken IPv6 host): take what sits between "user:" and "@"
        userinfo = url.partition("//")[2].rpartition("@")[0]
        if ":" in userinfo:
            secret = userinfo.partition(":")[2]
            found += [secret, unquote(secret)]
    return sorted({s for s in found if s}, key=len, reverse=True)


def _one_value(cursor: psycopg.Cursor[Any]) -> Any:
    row = cursor.fetchone()
    assert row is not None, "a SELECT of a value returned no row"
    return row[0]


def _one(cursor: psycopg.Cursor[dict[str, Any]]) -> dict[str, Any]:
    row = cursor.fetchone()
    assert row is not None, "a statement with RETURNING or an aggregate returned no row"
    return row


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


def _record(row: dict[str, Any]) -> IdempotencyRecord:
    return IdempotencyRecord(
        key=row["key"], op=row["op"], request_hash=row["request_hash"], request=json.loads(row["request"]),
        state=row["state"], owner=row["owner"], result=json.loads(row["result"]) if row["result"] else None,
        exit_code=row["exit_code"], created_at=row["created_at"], updated_at=row["updated_at"],
        expires_at=row["expires_at"],
    )
