"""The store's schema, once: numbered migrations in PostgreSQL's spelling, tables named `wtc_*`.

Each entry upgrades the schema by one version; never edit a released entry, append a new one. Both
stores run the same list (`dialect.py` renders it for SQLite: `REAL` for `DOUBLE PRECISION`,
`INTEGER PRIMARY KEY AUTOINCREMENT` for the generated keys, no `wtc_` prefix), so version N has the
same tables in both. The SQLite store records its version in `PRAGMA user_version`, the PostgreSQL
store in the table `wtc_schema` (`sqlite.py`, `postgres.py`: how each applies them).
"""

from __future__ import annotations

from .dialect import Dialect

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


def migrations(dialect: Dialect) -> tuple[str, ...]:
    """The migrations as `dialect` runs them."""
    return tuple(dialect.sql(migration) for migration in MIGRATIONS)
