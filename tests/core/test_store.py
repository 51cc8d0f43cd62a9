"""The SQLite store: schema versions, bad files, idempotency records, leases, expiry."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time

import pytest

from tests.conftest import wtc
from worktree_coord.coordinator import Coordinator
from worktree_coord.errors import StoreError
from worktree_coord.store import SCHEMA_VERSION, ClaimStatus, SQLiteStore


def test_store_lives_in_the_git_common_dir_in_wal_mode(repo):
    with Coordinator(repo) as coord:
        coord.start_run("r1")
        path = coord.store.location
    assert path.endswith(".git/wtc/state.sqlite3")
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_store_from_a_newer_version_is_refused_with_a_fix(tmp_path):
    path = tmp_path / "state.sqlite3"
    SQLiteStore(path).close()
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(StoreError) as refused:
        SQLiteStore(path)
    assert "newer" in refused.value.message and refused.value.fix


def test_corrupt_store_is_refused_with_a_fix(repo):
    store = repo / ".git" / "wtc" / "state.sqlite3"
    store.parent.mkdir(parents=True, exist_ok=True)
    store.write_bytes(b"this is not a database" * 100)
    code, body = wtc(repo, "status")
    assert code == 2
    assert "cannot be used" in body["error"]["message"] and "mv " in body["error"]["fix"]


def test_claims_decide_who_runs(tmp_path):
    store = SQLiteStore(tmp_path / "s.sqlite3")
    first = store.claim("k", "op", "h1", {"a": 1}, "me", ttl=60)
    assert first.status is ClaimStatus.NEW
    assert store.claim("k", "op", "h1", {"a": 1}, "other", ttl=60).status is ClaimStatus.RUNNING
    assert store.claim("k", "op", "h2", {"a": 2}, "other", ttl=60).status is ClaimStatus.MISMATCH
    store.complete("k", "me", {"ok": True}, 0, final=True)
    done = store.claim("k", "op", "h1", {"a": 1}, "other", ttl=60)
    assert done.status is ClaimStatus.DONE and done.record.result == {"ok": True}
    store.claim("open", "op", "h", {}, "me", ttl=60)
    store.complete("open", "me", {"state": "rejected"}, 3, final=False)
    assert store.claim("open", "op", "h", {}, "other", ttl=60).status is ClaimStatus.NEW


def test_expired_records_are_reclaimed_and_collected(tmp_path):
    store = SQLiteStore(tmp_path / "s.sqlite3")
    store.claim("k", "op", "h", {}, "me", ttl=0.01)
    store.complete("k", "me", {}, 0, final=True)
    time.sleep(0.02)
    assert store.delete_expired_records(time.time(), dry_run=True) == ["k"]
    assert store.get_record("k") is not None
    assert store.claim("k", "op", "other-hash", {}, "me", ttl=60).status is ClaimStatus.NEW


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


def test_lease_takeover_rules(tmp_path):
    from worktree_coord.store import leases
    from worktree_coord.store.liveness import current_owner

    store = SQLiteStore(tmp_path / "s.sqlite3")
    me = str(current_owner())
    # a live holder on this host keeps its lease even past the expiry time (a long verification)
    assert leases.may_take_over(me, time.time() - 10) is False
    # a dead holder loses it at once, however long its lease had to run
    dead = subprocess.run([sys.executable, "-c", "from worktree_coord.store.liveness import current_owner;"
                           "print(current_owner())"], capture_output=True, text=True).stdout.strip()
    assert leases.may_take_over(dead, time.time() + 3600) is True
    store.acquire_lease("task:r/t", dead, ttl=3600)
    with leases.hold(store, "task:r/t", timeout=5):
        assert store.get_lease("task:r/t").owner == me
    # a holder on another host, whose liveness we cannot see: only once its lease expired
    foreign = "some-other-host:1:1:abc"
    assert leases.may_take_over(foreign, time.time() + 60) is False
    assert leases.may_take_over(foreign, time.time() - 1) is True
