"""The SQLite store's answer when another process holds its write lock: a BusyError (exit 4) that
says how long this call waited and asks for a retry, and the store still works once the lock goes."""

from __future__ import annotations

import sqlite3
import time

import pytest

from worktree_coord.errors import EXIT_BUSY, BusyError
from worktree_coord.model import RunRecord, RunState
from worktree_coord.store.sqlite import SQLiteStore


def _run(run_id: str) -> RunRecord:
    return RunRecord(run_id, "a" * 40, f"wtc/{run_id}/integration", RunState.OPEN, time.time(), {"verify": None})


def test_a_write_blocked_past_the_busy_timeout_is_busy_and_names_the_wait(tmp_path):
    path = tmp_path / "store.sqlite3"
    store = SQLiteStore(path, busy_timeout=0.5)
    holder = sqlite3.connect(str(path), isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")       # another process in the middle of a write transaction
    try:
        started = time.monotonic()
        with pytest.raises(BusyError) as busy:
            store.create_run(_run("r1"))
        assert time.monotonic() - started >= 0.4, "it waited for the busy timeout before giving up"
        assert busy.value.exit_code == EXIT_BUSY
        assert "stayed locked for" in str(busy.value) and str(path) in str(busy.value)
        assert busy.value.details["retry_after_seconds"] == 1.0
        assert "retry" in busy.value.fix
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    store.create_run(_run("r1"))            # nothing was half-written: the retry succeeds
    assert store.get_run("r1").run_id == "r1"
    store.close()
