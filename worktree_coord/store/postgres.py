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
The statements and rules are the store core's (core.py); this module is what PostgreSQL needs
besides: the pool, the transaction, the advisory locks, migrations and error translation.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any, Iterator
from urllib.parse import parse_qs, unquote, urlsplit

import psycopg
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool, PoolTimeout

from ..config import redact_address
from ..errors import BusyError, InternalError, StoreError, StoreUnavailable
from .core import SQLStore, Statements
from .dialect import POSTGRESQL
from .schema import SCHEMA_VERSION, migrations

# The pool logs failed connection attempts at WARNING; without a handler Python would print them on
# stderr next to our own message about the same failure. An application that configures logging
# still gets them.
logging.getLogger("psycopg").addHandler(logging.NullHandler())

SCHEMA_LOCK = 0x77746373          # advisory lock key ("wtcs") held while migrating
PORT_LOCK = 0x77746370            # advisory lock key ("wtcp") serializing port-block allocation

MIGRATIONS = migrations(POSTGRESQL)   # the schema (schema.py) as PostgreSQL runs it

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


class PostgresStore(SQLStore):
    """`Store` on a PostgreSQL database (see the module docstring)."""

    dialect = POSTGRESQL

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
    def _transaction(self) -> Iterator[psycopg.Cursor[dict[str, Any]]]:
        """One short transaction on a pooled connection."""
        with self._connection() as connection, connection.transaction():
            with connection.cursor(row_factory=dict_row) as cursor:
                yield cursor

    def _fetch(self, sql: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        with self._connection() as connection, connection.cursor(row_factory=dict_row) as cursor:
            cursor.execute(sql, params)
            return list(cursor.fetchall())

    def _lock_port_blocks(self, cursor: Statements) -> None:
        cursor.execute("SELECT pg_advisory_xact_lock(:lock)", {"lock": PORT_LOCK})

    def _lock_admission(self, cursor: Statements, kind: str) -> None:
        cursor.execute("SELECT pg_advisory_xact_lock(hashtextextended('wtc-admission:' || :kind, 0))", {"kind": kind})

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

    def integrity_check(self) -> list[str]:
        problems = []
        with self._connection() as connection:
            version = self._schema_version(connection)
        if version != SCHEMA_VERSION:
            problems.append(f"schema version {version}, expected {SCHEMA_VERSION}")
        return problems + self._unknown_task_states()


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
