"""A `wtc` process leaves its SQLite store's connection open to its end (store/sqlite.py,
`SQLiteStore.close`): closing the last connection to a WAL database checkpoints it with an fsync
and deletes the WAL, which every call paid; the process's end is, to SQLite, a killed process's,
which WAL with synchronous=NORMAL survives. A store opened by a library caller still closes."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import make_repo, wtc


def _store(repo: Path) -> Path:
    return repo / ".git" / "wtc" / "state.sqlite3"


def test_a_wtc_call_leaves_its_writes_in_the_wal_for_the_next_call(tmp_path):
    repo = make_repo(tmp_path / "repo")
    assert wtc(repo, "run", "start", "--run", "r")[0] == 0
    code, body = wtc(repo, "task", "start", "api", "--run", "r", "--own", "packages/api/**")
    assert code == 0, body
    wal = Path(str(_store(repo)) + "-wal")
    assert wal.is_file() and wal.stat().st_size > 0, "the call closed its connection (a checkpoint, the WAL deleted)"
    # What the call committed is there for a reader of the file, and for the next call.
    with sqlite3.connect(f"file:{_store(repo)}?mode=ro", uri=True) as reader:
        assert reader.execute("SELECT state FROM tasks WHERE task_id = 'api'").fetchone() == ("started",)
    assert wtc(repo, "status", "--run", "r")[1]["tasks"][0]["task"] == "api"


def test_a_killed_call_and_a_left_connection_lose_nothing_committed(tmp_path):
    """The end a `wtc` process gives its connection is a SIGKILL's to SQLite: a process that commits
    and dies with its connection open leaves every committed row to the next opener."""
    path = tmp_path / "state.sqlite3"
    script = ("import os, signal, sys; from worktree_coord.store.sqlite import SQLiteStore; "
              "s = SQLiteStore(sys.argv[1]); [s.beat(f'o{i}', 30.0, renew=False) for i in range(50)]; "
              "os.kill(os.getpid(), signal.SIGKILL)")
    assert subprocess.run([sys.executable, "-c", script, str(path)]).returncode == -9
    from worktree_coord.store.sqlite import SQLiteStore

    store = SQLiteStore(path)
    try:
        assert store.integrity_check() == []
        assert len(store._fetch("SELECT * FROM heartbeats", {})) == 50
    finally:
        store.close()


def test_a_store_a_library_caller_opens_is_closed(tmp_path):
    from worktree_coord.store.sqlite import SQLiteStore

    store = SQLiteStore(tmp_path / "state.sqlite3")
    store.beat("owner", 30.0, renew=False)
    store.close()
    with pytest.raises(sqlite3.ProgrammingError):
        store._db.execute("SELECT 1")
    assert not (tmp_path / "state.sqlite3-wal").exists(), "the last connection's close checkpoints and deletes it"


def test_a_process_that_lives_on_leaves_only_a_few_connections_open(tmp_path):
    """The entry point says every `wtc` process ends by os._exit; one that lives on (the MCP
    server, fanout) and opens store after store leaves at most MAX_LEFT_OPEN of them open."""
    script = ("import os, sys; from worktree_coord import process_end; from worktree_coord.store import sqlite; "
              "process_end.will_end_by_exit(); "
              "[sqlite.SQLiteStore(os.path.join(sys.argv[1], f's{i}.sqlite3')).close() for i in range(20)]; "
              "print(len(sqlite._left_open), len(os.listdir('/proc/self/fd')))")
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, check=True)
    left, descriptors = (int(word) for word in done.stdout.split())
    from worktree_coord.store.sqlite import MAX_LEFT_OPEN

    assert left == MAX_LEFT_OPEN
    assert descriptors < 40, f"{descriptors} descriptors open after 20 stores closed"
