"""The store's statements and rules, once for every database: runs, tasks, idempotency claims,
leases, heartbeats, admission, intents, the plan, harness sessions, task context and events.

`SQLStore` implements the `Store` protocol (base.py) over a DB-API connection that a backend
provides: `sqlite.py` and `postgres.py` subclass it with what truly differs — connecting, one
transaction (`_transaction`), a read in autocommit (`_fetch`), the locks a decision under contention
takes (`_lock_port_blocks`, `_lock_admission`), migrations, error translation and the integrity
check. Statements are written in PostgreSQL's spelling with named parameters (`:key`) and tables
named `wtc_*`; the backend's `Dialect` (dialect.py) turns them into what its database runs.

Invariants every method keeps, whichever database: one method is one short transaction; a decision
under contention (a claim, a fenced task write, a lease, an admission, a port block) reads and
writes inside that one transaction with the rows it depends on locked (`FOR UPDATE`/`FOR SHARE`
on PostgreSQL; SQLite's `BEGIN IMMEDIATE` holds the whole file); `:now` is the store's clock
(the server's on PostgreSQL), the one that decides who expired.
"""

from __future__ import annotations

import contextlib
import json
import time
from typing import Any, Callable, Iterable, Iterator, Sequence

from ..crashpoints import crash_point
from ..errors import BusyError
from ..model import Boundary, RunRecord, RunState, TaskRecord, TaskState, dumps
from .base import Claim, ClaimStatus, IdempotencyRecord, Lease, TaskWrite, check_fence
from .dialect import Dialect

_LEASE_COLUMNS = "name, owner, acquired_at, expires_at"
# A lease taken when free, renewed when the owner's already, or taken over from `:steal` (an owner
# found dead or expired; NULL: from nobody).
_ACQUIRE = ("INSERT INTO wtc_leases(name, owner, acquired_at, expires_at)"
            " SELECT :name, :owner, now.t, now.t + :ttl FROM (SELECT :now AS t) now WHERE TRUE"
            " ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, acquired_at = excluded.acquired_at,"
            " expires_at = excluded.expires_at"
            " WHERE wtc_leases.owner = excluded.owner OR wtc_leases.owner = :steal")


class Statements:
    """A transaction's cursor that speaks the canonical spelling: `execute` translates the text for
    the dialect and adds the client's clock where the dialect has no server clock."""

    def __init__(self, cursor: Any, dialect: Dialect):
        self._cursor = cursor   # a DB-API cursor whose rows are dicts
        self._dialect = dialect

    def execute(self, sql: str, params: dict[str, Any] | None = None) -> "Statements":
        text, client_clock = self._dialect.prepare(sql)
        if client_clock:
            params = {**(params or {}), "now": time.time()}
        self._cursor.execute(text, params or {})
        return self

    def fetchone(self) -> dict[str, Any] | None:
        return self._cursor.fetchone()

    def fetchall(self) -> list[dict[str, Any]]:
        return list(self._cursor.fetchall())

    @property
    def rowcount(self) -> int:
        return self._cursor.rowcount

    @property
    def lastrowid(self) -> int:
        return int(self._cursor.lastrowid)


def in_list(column: str, name: str, values: Iterable[Any], params: dict[str, Any]) -> str:
    """`column IN (:name0, :name1, ...)` with the values put into `params`; false for no values."""
    values = list(values)
    if not values:
        return "1 = 0"
    for index, value in enumerate(values):
        params[f"{name}{index}"] = value
    return f"{column} IN ({', '.join(f':{name}{index}' for index in range(len(values)))})"


class SQLStore:
    """`Store` on a SQL database; a subclass supplies the connection (see the module docstring)."""

    dialect: Dialect

    # ---- what a backend provides ----------------------------------------------------------------

    def _transaction(self) -> contextlib.AbstractContextManager[Any]:
        """One short write transaction: a DB-API cursor with dict rows, committed on exit."""
        raise NotImplementedError

    def _fetch(self, sql: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        """The rows of one read statement (already in the dialect's spelling)."""
        raise NotImplementedError

    def _lock_port_blocks(self, cursor: Statements) -> None:
        """Make the read of the held port blocks and the write of a new one one step for every
        client (nothing to do where the write transaction already excludes every other writer)."""

    def _lock_admission(self, cursor: Statements, kind: str) -> None:
        """The same for one admission queue: two callers cannot both take its last place."""

    # ---- plumbing -------------------------------------------------------------------------------

    @contextlib.contextmanager
    def _tx(self) -> Iterator[Statements]:
        with self._transaction() as cursor:
            yield Statements(cursor, self.dialect)

    def _read(self, sql: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        text, client_clock = self.dialect.prepare(sql)
        if client_clock:
            params = {**(params or {}), "now": time.time()}
        return self._fetch(text, params or {})

    def _written_row(self, cursor: Statements, sql: str, params: dict[str, Any], columns: str,
                     read_back: str) -> dict[str, Any] | None:
        """The row one INSERT or UPDATE wrote (None when it wrote none): by RETURNING where the
        dialect uses it, else read back with `read_back` in the same transaction."""
        if self.dialect.returning:
            return cursor.execute(f"{sql} RETURNING {columns}", params).fetchone()
        if cursor.execute(sql, params).rowcount != 1:
            return None
        return cursor.execute(read_back, params).fetchone()

    def _inserted_id(self, cursor: Statements, sql: str, params: dict[str, Any], column: str) -> int:
        if self.dialect.returning:
            row = cursor.execute(f"{sql} RETURNING {column}", params).fetchone()
            assert row is not None, "an INSERT with RETURNING returned no row"
            return int(row[column])
        return cursor.execute(sql, params).lastrowid

    # ---- runs -----------------------------------------------------------------------------------

    def create_run(self, run: RunRecord) -> bool:
        with self._tx() as cursor:
            cursor.execute(
                "INSERT INTO wtc_runs(run_id, base, integration_ref, state, created_at, options, trace_id,"
                " root_span_id, remote) VALUES (:run_id, :base, :integration_ref, :state, :created_at, :options,"
                " :trace_id, :root_span_id, :remote) ON CONFLICT (run_id) DO NOTHING",
                {"run_id": run.run_id, "base": run.base, "integration_ref": run.integration_ref,
                 "state": run.state.value, "created_at": run.created_at, "options": dumps(run.options),
                 "trace_id": run.trace_id, "root_span_id": run.root_span_id, "remote": run.remote})
            return cursor.rowcount == 1

    def set_run_trace(self, run_id: str, trace_id: str, root_span_id: str) -> RunRecord | None:
        with self._tx() as cursor:
            cursor.execute("UPDATE wtc_runs SET trace_id = :trace_id, root_span_id = :root_span_id"
                           " WHERE run_id = :run_id AND trace_id IS NULL",
                           {"trace_id": trace_id, "root_span_id": root_span_id, "run_id": run_id})
        return self.get_run(run_id)

    def get_run(self, run_id: str) -> RunRecord | None:
        rows = self._read("SELECT * FROM wtc_runs WHERE run_id = :run_id", {"run_id": run_id})
        return _run(rows[0]) if rows else None

    def list_runs(self) -> list[RunRecord]:
        return [_run(r) for r in self._read("SELECT * FROM wtc_runs ORDER BY created_at, run_id")]

    def set_run_state(self, run_id: str, state: RunState) -> None:
        with self._tx() as cursor:
            cursor.execute("UPDATE wtc_runs SET state = :state WHERE run_id = :run_id",
                           {"state": state.value, "run_id": run_id})

    # ---- tasks ----------------------------------------------------------------------------------

    @staticmethod
    def _insert_event(cursor: Statements, run_id: str, task_id: str | None, event: tuple[str, dict[str, Any]] | None) -> None:
        """An event, in the caller's transaction (a task write's: see `Store.update_task`)."""
        if event is not None:
            cursor.execute("INSERT INTO wtc_events(at, run_id, task_id, kind, data)"
                           " VALUES (:now, :run_id, :task_id, :kind, :data)",
                           {"run_id": run_id, "task_id": task_id, "kind": event[0], "data": dumps(event[1])})

    def insert_task(self, task: TaskRecord, *, event: tuple[str, dict[str, Any]] | None = None,
                    context: dict[str, Any] | None = None) -> bool:
        with self._tx() as cursor:
            cursor.execute(
                "INSERT INTO wtc_tasks(run_id, task_id, state, branch, worktree, boundary, author, head, result,"
                " created_at, updated_at, finished_at) VALUES (:run_id, :task_id, :state, :branch, :worktree,"
                " :boundary, :author, :head, :result, :created_at, :updated_at, :finished_at)"
                " ON CONFLICT (run_id, task_id) DO NOTHING",
                {"run_id": task.run_id, "task_id": task.task_id, "state": task.state.value, "branch": task.branch,
                 "worktree": task.worktree, "boundary": dumps(task.boundary), "author": task.author,
                 "head": task.head, "result": dumps(task.result), "created_at": task.created_at,
                 "updated_at": task.updated_at, "finished_at": task.finished_at})
            inserted = cursor.rowcount == 1
            if inserted:
                self._insert_event(cursor, task.run_id, task.task_id, event)
                if context:
                    self._merge_context(cursor, task.run_id, task.task_id, context)
        if inserted:
            crash_point(f"task.written.{task.state.value}")
        return inserted

    def get_task(self, run_id: str, task_id: str) -> TaskRecord | None:
        rows = self._read("SELECT * FROM wtc_tasks WHERE run_id = :run_id AND task_id = :task_id",
                          {"run_id": run_id, "task_id": task_id})
        return _task(rows[0]) if rows else None

    def list_tasks(self, run_id: str | None = None, states: Iterable[TaskState] | None = None) -> list[TaskRecord]:
        sql, params = "SELECT * FROM wtc_tasks WHERE 1 = 1", {}
        if run_id is not None:
            sql += " AND run_id = :run_id"
            params["run_id"] = run_id
        if states is not None:
            sql += " AND " + in_list("state", "state", [TaskState(s).value for s in states], params)
        return [_task(r) for r in self._read(sql + " ORDER BY run_id, created_at, task_id", params)]

    _TASK_FIELDS = {"state", "worktree", "head", "result", "finished_at", "boundary", "author", "branch"}

    def update_task(self, run_id: str, task_id: str, *, expect: Iterable[TaskState] | None = None,
                    holder: tuple[str, str] | None = None, event: tuple[str, dict[str, Any]] | None = None,
                    **fields: Any) -> bool:
        return self.update_tasks(run_id, [TaskWrite(task_id, fields, holder=holder, event=event, expect=expect)])[0]

    def update_tasks(self, run_id: str, writes: Sequence[TaskWrite]) -> list[bool]:
        prepared = [self._task_update(run_id, write) for write in writes]
        changed = []
        with self._tx() as cursor:
            for write, (sql, params) in zip(writes, prepared):
                if write.holder is not None:
                    # FOR SHARE: a steal of this lease (an UPDATE of the row) waits for this write to end.
                    row = cursor.execute("SELECT owner FROM wtc_leases WHERE name = :name FOR SHARE",
                                         {"name": write.holder[0]}).fetchone()
                    check_fence(write.holder, row["owner"] if row else None)
                cursor.execute(sql, params)
                changed.append(cursor.rowcount == 1)
                if changed[-1]:
                    self._insert_event(cursor, run_id, write.task_id, write.event)
        for write, (_, params), done in zip(writes, prepared, changed):
            if done:
                crash_point("task.written." + (params["set_state"] if "state" in write.fields
                                               else "+".join(sorted(write.fields))))
        return changed

    def _task_update(self, run_id: str, write: TaskWrite) -> tuple[str, dict[str, Any]]:
        """One task write's UPDATE statement and its parameters."""
        unknown = set(write.fields) - self._TASK_FIELDS
        if unknown:
            raise ValueError(f"unknown task fields {sorted(unknown)}")
        params: dict[str, Any] = {}
        for name, value in write.fields.items():
            if name == "state":
                value = TaskState(value).value
            elif name in ("result", "boundary"):
                value = dumps(value)
            params[f"set_{name}"] = value
        sql = ("UPDATE wtc_tasks SET " + "".join(f"{name} = :set_{name}, " for name in write.fields)
               + "updated_at = :now WHERE run_id = :run_id AND task_id = :task_id")
        params |= {"run_id": run_id, "task_id": write.task_id}
        if write.expect is not None:
            sql += " AND " + in_list("state", "expect", [TaskState(s).value for s in write.expect], params)
        return sql, params

    def delete_task(self, run_id: str, task_id: str, *, event: tuple[str, dict[str, Any]] | None = None) -> None:
        with self._tx() as cursor:
            cursor.execute("DELETE FROM wtc_tasks WHERE run_id = :run_id AND task_id = :task_id",
                           {"run_id": run_id, "task_id": task_id})
            self._insert_event(cursor, run_id, task_id, event)
        crash_point("task.deleted")

    # ---- idempotency ----------------------------------------------------------------------------

    def claim(self, key: str, op: str, request_hash: str, request: dict[str, Any], owner: str, ttl: float) -> Claim:
        params = {"key": key, "op": op, "hash": request_hash, "request": dumps(request), "owner": owner, "ttl": ttl}
        read_back = "SELECT * FROM wtc_idempotency WHERE key = :key"
        with self._tx() as cursor:
            for _ in range(8):  # a row deleted between the INSERT and the SELECT: insert again
                row = self._written_row(
                    cursor,
                    "INSERT INTO wtc_idempotency(key, op, request_hash, request, state, owner, created_at, updated_at,"
                    " expires_at) SELECT :key, :op, :hash, :request, 'running', :owner, now.t, now.t, now.t + :ttl"
                    " FROM (SELECT :now AS t) now WHERE TRUE ON CONFLICT (key) DO NOTHING",
                    params, "*", read_back)
                if row is not None:
                    return Claim(ClaimStatus.NEW, _record(row))
                row = cursor.execute("SELECT *, :now AS now FROM wtc_idempotency WHERE key = :key FOR UPDATE",
                                     params).fetchone()
                if row is None:
                    continue
                now = row["now"]
                if row["expires_at"] <= now:  # an expired record is forgotten: a new claim
                    fresh = self._written_row(
                        cursor,
                        "UPDATE wtc_idempotency SET op = :op, request_hash = :hash, request = :request,"
                        " state = 'running', owner = :owner, result = NULL, exit_code = NULL, created_at = :at,"
                        " updated_at = :at, expires_at = :expires WHERE key = :key",
                        params | {"at": now, "expires": now + ttl}, "*", read_back)
                    assert fresh is not None, "the record locked above is gone"
                    return Claim(ClaimStatus.NEW, _record(fresh))
                record = _record(row)
                if record.op != op or record.request_hash != request_hash:
                    return Claim(ClaimStatus.MISMATCH, record)
                if record.state == "done":
                    return Claim(ClaimStatus.DONE, record)
                if record.state == "open":  # a retryable outcome: run again under the new owner
                    again = self._written_row(
                        cursor, "UPDATE wtc_idempotency SET state = 'running', owner = :owner, updated_at = :at"
                        " WHERE key = :key", params | {"at": now}, "*", read_back)
                    assert again is not None, "the record locked above is gone"
                    return Claim(ClaimStatus.NEW, _record(again))
                return Claim(ClaimStatus.RUNNING, record)
        raise BusyError(f"the idempotency key {key!r} kept changing under this call", fix="retry", retry_after=1.0)

    def takeover(self, key: str, old_owner: str | None, new_owner: str) -> bool:
        with self._tx() as cursor:
            cursor.execute("UPDATE wtc_idempotency SET owner = :new, updated_at = :now"
                           " WHERE key = :key AND state = 'running' AND owner IS NOT DISTINCT FROM :old",
                           {"new": new_owner, "key": key, "old": old_owner})
            return cursor.rowcount == 1

    def complete(self, key: str, owner: str, result: dict[str, Any], exit_code: int, *, final: bool) -> bool:
        with self._tx() as cursor:
            cursor.execute("UPDATE wtc_idempotency SET state = :state, result = :result, exit_code = :exit_code,"
                           " updated_at = :now WHERE key = :key AND owner = :owner AND state = 'running'",
                           {"state": "done" if final else "open", "result": dumps(result), "exit_code": exit_code,
                            "key": key, "owner": owner})
            return cursor.rowcount == 1

    def release(self, key: str, owner: str) -> None:
        with self._tx() as cursor:
            cursor.execute("DELETE FROM wtc_idempotency WHERE key = :key AND owner = :owner AND state = 'running'",
                           {"key": key, "owner": owner})

    def get_record(self, key: str) -> IdempotencyRecord | None:
        rows = self._read("SELECT * FROM wtc_idempotency WHERE key = :key", {"key": key})
        return _record(rows[0]) if rows else None

    def delete_expired_records(self, now: float, *, dry_run: bool = False) -> list[str]:
        expired = "FROM wtc_idempotency WHERE expires_at <= :cutoff"
        if dry_run:
            return [r["key"] for r in self._read(f"SELECT key {expired} ORDER BY key", {"cutoff": now})]
        with self._tx() as cursor:
            if self.dialect.returning:
                keys = [r["key"] for r in cursor.execute(f"DELETE {expired} RETURNING key", {"cutoff": now}).fetchall()]
            else:
                keys = [r["key"] for r in cursor.execute(f"SELECT key {expired}", {"cutoff": now}).fetchall()]
                cursor.execute(f"DELETE {expired}", {"cutoff": now})
            cursor.execute("DELETE FROM wtc_heartbeats WHERE expires_at <= :now")  # owners long gone
            return sorted(keys)

    # ---- leases ---------------------------------------------------------------------------------

    def acquire_lease(self, name: str, owner: str, ttl: float, *, steal_from: str | None = None) -> Lease | None:
        """Take the lease when it is free, ours already (renewed), or held by `steal_from`."""
        params = {"name": name, "owner": owner, "ttl": ttl, "steal": steal_from}
        with self._tx() as cursor:
            row = self._written_row(cursor, _ACQUIRE, params, _LEASE_COLUMNS,
                                    f"SELECT {_LEASE_COLUMNS} FROM wtc_leases WHERE name = :name")
            return Lease(**row) if row else None

    def acquire_leases(self, names: Sequence[str], owner: str, ttl: float) -> list[str]:
        taken = []
        with self._tx() as cursor:
            for name in names:
                params = {"name": name, "owner": owner, "ttl": ttl, "steal": None}
                if self._written_row(cursor, _ACQUIRE, params, "name",
                                     "SELECT name FROM wtc_leases WHERE name = :name") is not None:
                    taken.append(name)
        return taken

    def get_lease(self, name: str) -> Lease | None:
        rows = self._read(f"SELECT {_LEASE_COLUMNS} FROM wtc_leases WHERE name = :name", {"name": name})
        return Lease(**rows[0]) if rows else None

    def release_lease(self, name: str, owner: str) -> None:
        self.delete_lease(name, owner)

    def release_leases(self, names: Sequence[str], owner: str) -> None:
        if not names:
            return
        params: dict[str, Any] = {"owner": owner}
        with self._tx() as cursor:
            cursor.execute(f"DELETE FROM wtc_leases WHERE owner = :owner AND {in_list('name', 'name', names, params)}",
                           params)

    def list_leases(self) -> list[Lease]:
        return [Lease(**r) for r in self._read(f"SELECT {_LEASE_COLUMNS} FROM wtc_leases ORDER BY name")]

    def delete_lease(self, name: str, owner: str) -> bool:
        with self._tx() as cursor:
            cursor.execute("DELETE FROM wtc_leases WHERE name = :name AND owner = :owner",
                           {"name": name, "owner": owner})
            return cursor.rowcount == 1

    # ---- heartbeats ------------------------------------------------------------------------------

    def beat(self, owner: str, ttl: float, *, renew: bool) -> bool:
        """Start or renew the owner's heartbeat and stretch its leases; a renewal of a heartbeat
        that already expired fails (others may have taken over meanwhile)."""
        params = {"owner": owner, "ttl": ttl}
        with self._tx() as cursor:
            if renew:
                cursor.execute("UPDATE wtc_heartbeats SET beat_at = :now, expires_at = :now + :ttl"
                               " WHERE owner = :owner AND expires_at > :now", params)
                if cursor.rowcount != 1:
                    return False
            else:
                cursor.execute(
                    "INSERT INTO wtc_heartbeats(owner, started_at, beat_at, expires_at)"
                    " SELECT :owner, now.t, now.t, now.t + :ttl FROM (SELECT :now AS t) now WHERE TRUE"
                    " ON CONFLICT (owner) DO UPDATE SET started_at = excluded.started_at, beat_at = excluded.beat_at,"
                    " expires_at = excluded.expires_at", params)
            cursor.execute("UPDATE wtc_leases SET expires_at = :now + :ttl WHERE owner = :owner", params)
            return True

    def owner_expired(self, owner: str) -> bool:
        rows = self._read("SELECT 1 AS alive FROM wtc_heartbeats WHERE owner = :owner AND expires_at > :now",
                          {"owner": owner})
        return not rows

    def end_beat(self, owner: str) -> None:
        with self._tx() as cursor:
            cursor.execute("DELETE FROM wtc_heartbeats WHERE owner = :owner", {"owner": owner})

    # ---- admission (a fair queue for heavy work) -------------------------------------------------

    def enqueue(self, kind: str, owner: str) -> int:
        with self._tx() as cursor:
            return self._inserted_id(cursor, "INSERT INTO wtc_admission(kind, owner, enqueued_at)"
                                     " VALUES (:kind, :owner, :now)", {"kind": kind, "owner": owner}, "ticket")

    def try_admit(self, ticket: int, kind: str, limit: int) -> bool:
        """Admit `ticket` when fewer than `limit` are running and every ticket ahead of it is
        running too (first come, first served); decided under the queue's lock."""
        params = {"ticket": ticket, "kind": kind}
        with self._tx() as cursor:
            self._lock_admission(cursor, kind)
            row = cursor.execute("SELECT admitted_at FROM wtc_admission WHERE ticket = :ticket", params).fetchone()
            if row is None:
                raise BusyError("this call's place in the work queue was dropped (its owner looked dead)",
                                fix="retry", retry_after=1.0)
            if row["admitted_at"] is not None:
                return True
            counts = cursor.execute(
                "SELECT COUNT(CASE WHEN admitted_at IS NOT NULL THEN 1 END) AS running,"
                " COUNT(CASE WHEN admitted_at IS NULL AND ticket < :ticket THEN 1 END) AS ahead"
                " FROM wtc_admission WHERE kind = :kind", params).fetchone()
            assert counts is not None, "an aggregate returned no row"
            if counts["running"] + counts["ahead"] >= limit:
                return False
            cursor.execute("UPDATE wtc_admission SET admitted_at = :now WHERE ticket = :ticket", params)
            return True

    def leave(self, ticket: int) -> None:
        with self._tx() as cursor:
            cursor.execute("DELETE FROM wtc_admission WHERE ticket = :ticket", {"ticket": ticket})

    def queue_entries(self, kind: str | None = None) -> list[dict[str, Any]]:
        if kind is None:
            return self._read("SELECT * FROM wtc_admission ORDER BY ticket")
        return self._read("SELECT * FROM wtc_admission WHERE kind = :kind ORDER BY ticket", {"kind": kind})

    # ---- intents --------------------------------------------------------------------------------

    _INSERT_INTENT = ("INSERT INTO wtc_intents(intent_id, run_id, task_id, data, state, created_at, updated_at)"
                      " VALUES (:intent_id, :run_id, :task_id, :data, :state, :now, :now)"
                      " ON CONFLICT (run_id, intent_id) DO NOTHING")

    def put_intents(self, run_id: str, task_id: str, intents: list[dict[str, Any]]) -> None:
        """Replace the task's pending intents with `intents` (a re-finish derives them afresh);
        intents already consolidated are never touched."""
        with self._tx() as cursor:
            cursor.execute("DELETE FROM wtc_intents WHERE run_id = :run_id AND task_id = :task_id"
                           " AND state = 'pending'",  # declared intents stay: the agent asked for them directly
                           {"run_id": run_id, "task_id": task_id})
            for intent in intents:
                cursor.execute(self._INSERT_INTENT, {
                    "intent_id": intent["intent_id"], "run_id": run_id, "task_id": task_id, "data": dumps(intent),
                    "state": intent.get("_state", "pending")})

    def add_intent(self, run_id: str, task_id: str, intent: dict[str, Any]) -> bool:
        with self._tx() as cursor:
            cursor.execute(self._INSERT_INTENT, {"intent_id": intent["intent_id"], "run_id": run_id,
                                                 "task_id": task_id, "data": dumps(intent), "state": "declared"})
            return cursor.rowcount == 1

    def list_intents(self, run_id: str, states: Iterable[str] | None = None) -> list[dict[str, Any]]:
        sql, params = "SELECT * FROM wtc_intents WHERE run_id = :run_id", {"run_id": run_id}
        if states is not None:
            sql += " AND " + in_list("state", "state", states, params)
        rows = self._read(sql + " ORDER BY created_at, intent_id", params)
        for row in rows:
            row["data"] = json.loads(row["data"])
            row["detail"] = json.loads(row["detail"])
        return rows

    def set_intent_state(self, run_id: str, intent_id: str, state: str, detail: dict[str, Any],
                         commit_sha: str | None = None) -> None:
        with self._tx() as cursor:
            cursor.execute("UPDATE wtc_intents SET state = :state, detail = :detail, commit_sha = :commit_sha,"
                           " updated_at = :now WHERE run_id = :run_id AND intent_id = :intent_id",
                           {"state": state, "detail": dumps(detail), "commit_sha": commit_sha, "run_id": run_id,
                            "intent_id": intent_id})

    # ---- the plan: boundaries by agent name pattern ------------------------------------------------

    def add_plan_rule(self, run_id: str, pattern: str, boundary: dict[str, Any]) -> int:
        with self._tx() as cursor:
            return self._inserted_id(cursor, "INSERT INTO wtc_plan_rules(run_id, pattern, boundary, created_at)"
                                     " VALUES (:run_id, :pattern, :boundary, :now)",
                                     {"run_id": run_id, "pattern": pattern, "boundary": dumps(boundary)}, "rule_id")

    def list_plan_rules(self, run_id: str | None = None) -> list[dict[str, Any]]:
        if run_id is None:
            rows = self._read("SELECT * FROM wtc_plan_rules ORDER BY rule_id")
        else:
            rows = self._read("SELECT * FROM wtc_plan_rules WHERE run_id = :run_id ORDER BY rule_id",
                              {"run_id": run_id})
        for row in rows:
            row["boundary"] = json.loads(row["boundary"])
        return rows

    def delete_plan_rule(self, rule_id: int) -> bool:
        with self._tx() as cursor:
            cursor.execute("DELETE FROM wtc_plan_rules WHERE rule_id = :rule_id", {"rule_id": rule_id})
            return cursor.rowcount == 1

    # ---- harness sessions and their agents -------------------------------------------------------

    def add_harness_session(self, harness: str, session_id: str, seq: int, run_id: str, base: str) -> bool:
        with self._tx() as cursor:
            cursor.execute("INSERT INTO wtc_harness_sessions(harness, session_id, seq, run_id, base, created_at)"
                           " VALUES (:harness, :session_id, :seq, :run_id, :base, :now) ON CONFLICT DO NOTHING",
                           {"harness": harness, "session_id": session_id, "seq": seq, "run_id": run_id,
                            "base": base})
            return cursor.rowcount == 1

    def harness_sessions(self, *, harness: str | None = None, session_id: str | None = None,
                         run_id: str | None = None) -> list[dict[str, Any]]:
        sql, params = "SELECT * FROM wtc_harness_sessions WHERE 1 = 1", {}
        for column, value in (("harness", harness), ("session_id", session_id), ("run_id", run_id)):
            if value is not None:
                sql += f" AND {column} = :{column}"
                params[column] = value
        return self._read(sql + " ORDER BY harness, session_id, seq", params)

    def claim_agent_task(self, run_id: str, task_id: str, *, harness: str, session_id: str, agent: str,
                         boundary: dict[str, Any], rule: str) -> bool:
        with self._tx() as cursor:
            cursor.execute("INSERT INTO wtc_agent_tasks(run_id, task_id, harness, session_id, agent, boundary, rule,"
                           " created_at) VALUES (:run_id, :task_id, :harness, :session_id, :agent, :boundary, :rule,"
                           " :now) ON CONFLICT DO NOTHING",
                           {"run_id": run_id, "task_id": task_id, "harness": harness, "session_id": session_id,
                            "agent": agent, "boundary": dumps(boundary), "rule": rule})
            return cursor.rowcount == 1

    def agent_tasks(self, run_id: str, *, task_id: str | None = None, harness: str | None = None,
                    session_id: str | None = None, agent: str | None = None) -> list[dict[str, Any]]:
        sql, params = "SELECT * FROM wtc_agent_tasks WHERE run_id = :run_id", {"run_id": run_id}
        for column, value in (("task_id", task_id), ("harness", harness), ("session_id", session_id),
                              ("agent", agent)):
            if value is not None:
                sql += f" AND {column} = :{column}"
                params[column] = value
        rows = self._read(sql + " ORDER BY created_at, task_id", params)
        for row in rows:
            row["boundary"] = json.loads(row["boundary"])
        return rows

    def delete_agent_task(self, run_id: str, task_id: str) -> None:
        with self._tx() as cursor:
            cursor.execute("DELETE FROM wtc_agent_tasks WHERE run_id = :run_id AND task_id = :task_id",
                           {"run_id": run_id, "task_id": task_id})

    # ---- task context: where a task's boundary came from, how its worktree was prepared ------------

    def allocate_port_block(self, run_id: str, task_id: str, limit: int,
                            usable: Callable[[int], bool] | None = None) -> int | None:
        """The lowest block number (0, 1, ...) no task of any run holds (`TaskState.holds_ports`: a
        live one, or a finished one waiting for its merge) and `usable` accepts, now held by this
        task; the task's own block when it has one `usable` accepts. None when all `limit` blocks
        are held."""
        params: dict[str, Any] = {"run_id": run_id, "task_id": task_id}
        with self._tx() as cursor:
            self._lock_port_blocks(cursor)
            row = cursor.execute("SELECT port_block FROM wtc_task_context WHERE run_id = :run_id"
                                 " AND task_id = :task_id", params).fetchone()
            if row is not None and row["port_block"] is not None and (usable is None or usable(int(row["port_block"]))):
                return int(row["port_block"])
            live = in_list("t.state", "live", [s.value for s in TaskState if s.holds_ports], params)
            held = {r["port_block"] for r in cursor.execute(
                "SELECT c.port_block FROM wtc_task_context c JOIN wtc_tasks t"
                " ON t.run_id = c.run_id AND t.task_id = c.task_id"
                f" WHERE c.port_block IS NOT NULL AND {live}", params).fetchall()}
            block = next((n for n in range(limit) if n not in held and (usable is None or usable(n))), None)
            if block is None:
                return None
            cursor.execute("INSERT INTO wtc_task_context(run_id, task_id, port_block, data, updated_at)"
                           " VALUES (:run_id, :task_id, :block, '{}', :now) ON CONFLICT (run_id, task_id) DO UPDATE"
                           " SET port_block = excluded.port_block, updated_at = excluded.updated_at",
                           params | {"block": block})
            return block

    def update_task_context(self, run_id: str, task_id: str, data: dict[str, Any]) -> None:
        """Merge `data` into the task's context (keys given replace the stored ones)."""
        with self._tx() as cursor:
            self._merge_context(cursor, run_id, task_id, data)

    @staticmethod
    def _merge_context(cursor: Any, run_id: str, task_id: str, data: dict[str, Any]) -> None:
        params = {"run_id": run_id, "task_id": task_id}
        # The row first (so two first writers cannot both merge into nothing), then locked, merged.
        cursor.execute("INSERT INTO wtc_task_context(run_id, task_id, data, updated_at)"
                       " VALUES (:run_id, :task_id, '{}', :now) ON CONFLICT DO NOTHING", params)
        row = cursor.execute("SELECT data FROM wtc_task_context WHERE run_id = :run_id AND task_id = :task_id"
                             " FOR UPDATE", params).fetchone()
        assert row is not None, "the row inserted above is gone"
        merged = json.loads(row["data"]) | data
        cursor.execute("UPDATE wtc_task_context SET data = :data, updated_at = :now"
                       " WHERE run_id = :run_id AND task_id = :task_id", params | {"data": dumps(merged)})

    def task_contexts(self, run_id: str, task_id: str | None = None) -> list[dict[str, Any]]:
        sql, params = "SELECT * FROM wtc_task_context WHERE run_id = :run_id", {"run_id": run_id}
        if task_id is not None:
            sql += " AND task_id = :task_id"
            params["task_id"] = task_id
        rows = self._read(sql + " ORDER BY task_id", params)
        for row in rows:
            row["data"] = json.loads(row["data"])
        return rows

    def delete_task_context(self, run_id: str, task_id: str) -> None:
        with self._tx() as cursor:
            cursor.execute("DELETE FROM wtc_task_context WHERE run_id = :run_id AND task_id = :task_id",
                           {"run_id": run_id, "task_id": task_id})

    # ---- events ---------------------------------------------------------------------------------

    def log_event(self, run_id: str, task_id: str | None, kind: str, data: dict[str, Any]) -> None:
        with self._tx() as cursor:
            self._insert_event(cursor, run_id, task_id, (kind, data))

    def events(self, run_id: str, task_id: str | None = None) -> list[dict[str, Any]]:
        sql, params = "SELECT * FROM wtc_events WHERE run_id = :run_id", {"run_id": run_id}
        if task_id is not None:
            sql += " AND task_id = :task_id"
            params["task_id"] = task_id
        rows = self._read(sql + " ORDER BY id", params)
        for row in rows:
            row["data"] = json.loads(row["data"])
        return rows

    def run_version(self, run_id: str) -> str:
        def aggregate(table: str) -> str:
            # Counts and change times, not a counter row: a counter would serialise every task write of
            # a run on one lock (base.Store.run_version). float8 as text loses nothing (PostgreSQL 12+).
            return (f"(SELECT COUNT(*) || '/' || COALESCE(MAX(updated_at), 0) || '/' || COALESCE(SUM(updated_at), 0)"
                    f" FROM {table} WHERE run_id = :run_id)")
        row = self._read(
            "SELECT (SELECT state FROM wtc_runs WHERE run_id = :run_id) AS s,"
            " (SELECT COALESCE(MAX(id), 0) FROM wtc_events WHERE run_id = :run_id) AS e,"
            f" {aggregate('wtc_tasks')} AS t, {aggregate('wtc_intents')} AS i, {aggregate('wtc_task_context')} AS c",
            {"run_id": run_id})[0]
        return f"{row['s']};{row['e']};{row['t']};{row['i']};{row['c']}"

    def _unknown_task_states(self) -> list[str]:
        """The integrity check's part every database shares: tasks in a state this version does not know."""
        known = {s.value for s in TaskState}
        return [f"task {row['run_id']}/{row['task_id']} has unknown state {row['state']!r}"
                for row in self._read("SELECT run_id, task_id, state FROM wtc_tasks") if row["state"] not in known]


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
