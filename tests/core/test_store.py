"""The SQLite store as the coordinator uses it: where it lives, a corrupt file, gc of dead owners' leases.
The store contract both stores keep is tests/store/test_store_contract.py."""

from __future__ import annotations

import sqlite3
import subprocess
import sys

from tests.conftest import wtc
from worktree_coord.coordinator import Coordinator
from worktree_coord.store import SCHEMA_VERSION


def test_store_lives_in_the_git_common_dir_in_wal_mode(repo):
    with Coordinator(repo) as coord:
        coord.start_run("r1")
        path = coord.store.location
    assert path.endswith(".git/wtc/state.sqlite3")
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_corrupt_store_is_refused_with_a_fix(repo):
    store = repo / ".git" / "wtc" / "state.sqlite3"
    store.parent.mkdir(parents=True, exist_ok=True)
    store.write_bytes(b"this is not a database" * 100)
    code, body = wtc(repo, "status")
    assert code == 2
    assert "cannot be used" in body["error"]["message"] and "mv " in body["error"]["fix"]


def test_gc_drops_leases_of_dead_owners(repo):
    with Coordinator(repo) as coord:
        dead = subprocess.run([sys.executable, "-c", "from worktree_coord.store.liveness import current_owner;"
                               "print(current_owner())"], capture_output=True, text=True).stdout.strip()
        assert coord.store.acquire_lease("task:r1/t", dead, ttl=3600) is not None
        report = coord.gc()
        assert "task:r1/t" in report.leases_removed
        assert coord.store.get_lease("task:r1/t") is None


def test_integrity_check_passes_on_a_used_store(repo):
    with Coordinator(repo) as coord:
        coord.start_run("r1")
        coord.start_task("r1", "t", ["packages/api/**"])
        assert coord.store.integrity_check() == []
