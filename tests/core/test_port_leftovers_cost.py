"""What leftover leases cost (store/port_registry.py): a lease whose store is gone is judged by a
stat of its store and read once, not once per port; a live store is opened at most once by a gc,
however many of its leases there are. Real lease folders (each test's own user state folder) and
real SQLite stores; the reads and opens are counted by wrapping the real functions."""

from __future__ import annotations

import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from worktree_coord.model import Boundary, RunRecord, RunState, TaskRecord, TaskState
from worktree_coord.store import port_registry
from worktree_coord.store.port_registry import PortClaim, reclaim_leftovers, recorded_leases
from worktree_coord.store.sqlite import SQLiteStore


@pytest.fixture
def counted(monkeypatch):
    """Counts of lease-file reads (by lease token) and of SQLite opens, the real functions doing
    the work."""
    reads: Counter[str] = Counter()
    opens: list[str] = []
    read_lease, read_from, connect = (port_registry._read_lease, port_registry._read_lease_from,
                                      sqlite3.connect)

    def read_name(name):
        found = read_lease(name)
        reads[found.token if found is not None else "-"] += 1
        return found

    def read_descriptor(descriptor):
        found = read_from(descriptor)
        reads[found.token if found is not None else "-"] += 1
        return found

    def open_store(*args, **kwargs):
        opens.append(str(args[0]))
        return connect(*args, **kwargs)

    monkeypatch.setattr(port_registry, "_read_lease", read_name)
    monkeypatch.setattr(port_registry, "_read_lease_from", read_descriptor, raising=False)
    monkeypatch.setattr(sqlite3, "connect", open_store)
    return reads, opens


def _leave(store: str, task: str, first: int, last: int) -> None:
    """A lease as a start killed before its store recorded the block leaves it."""
    claim = PortClaim(store, "r", task, "", timeout=5.0)
    assert claim.claim(first, last) == "new"
    claim.done()


def _store_with_live_tasks(path: Path, tasks: list[str]) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    store = SQLiteStore(path)
    store.create_run(RunRecord(run_id="r", base="0" * 40, integration_ref="refs/heads/wtc/r/integration",
                               state=RunState.OPEN, created_at=0.0))
    for task in tasks:
        store.insert_task(TaskRecord(run_id="r", task_id=task, state=TaskState.STARTED, branch=f"wtc/r/{task}",
                                     worktree=str(path.parent / task), boundary=Boundary(own=(f"{task}/**",)),
                                     author="t <t@example.invalid>", head="0" * 40, created_at=0.0, updated_at=0.0,
                                     result={}))
    store.close()
    return str(path)


def test_gc_reclaims_gone_stores_leases_with_one_read_each_and_opens_a_live_store_once(tmp_path, counted):
    reads, opens = counted
    for number in range(12):      # 12 repositories gone, one 10-port lease each
        _leave(str(tmp_path / f"gone-{number}" / "state.sqlite3"), "t", 41000 + 10 * number, 41009 + 10 * number)
    live = _store_with_live_tasks(tmp_path / "live" / "state.sqlite3", [f"t{number}" for number in range(6)])
    for number in range(6):       # one live repository, six live tasks' leases
        _leave(live, f"t{number}", 42000 + 10 * number, 42009 + 10 * number)
    reads.clear()
    opens.clear()

    assert reclaim_leftovers(timeout=5.0) == 12
    lease_reads = {token: count for token, count in reads.items() if token != "-"}
    assert len(lease_reads) == 18
    # Each lease: read once by the walk, and (a leftover) once more under the lock to check its token.
    assert max(lease_reads.values()) <= 2, f"a lease was read {max(lease_reads.values())} times by one gc"
    assert opens.count(live) <= 1, f"the live store was opened {opens.count(live)} times by one gc"
    assert not [path for path in opens if "gone-" in path], "a gone store was opened"
    assert sorted(lease.first for lease in recorded_leases()) == [42000 + 10 * number for number in range(6)]

    # A store idle since: not opened again once its mark is steady (the first read-only open of a
    # store closed by its last writer leaves it an empty WAL, which moves the mark once).
    opens.clear()
    for _ in range(3):
        assert reclaim_leftovers(timeout=5.0) == 0
    assert len(opens) <= 1, f"three gcs of an idle store opened it {len(opens)} times"


def test_a_claim_past_gone_stores_leases_reads_each_once(tmp_path, counted):
    """A claim whose block holds leftovers of gone repositories (here: eight 1-port leases in a
    block of 8, and one 8-port lease in the next) reclaims them reading each once to judge it and
    once under the lock to check its token, not once a port and again at each link."""
    reads, opens = counted
    for number in range(8):
        _leave(str(tmp_path / f"gone-{number}.sqlite3"), "t", 43000 + number, 43000 + number)
    _leave(str(tmp_path / "gone-wide.sqlite3"), "t", 43008, 43015)
    reads.clear()

    claim = PortClaim(str(tmp_path / "mine.sqlite3"), "r", "mine", "", timeout=5.0)
    assert claim.claim(43000, 43007) == "new"
    claim.undo()
    assert claim.claim(43008, 43015) == "new"
    claim.done()
    gone_reads = {token: count for token, count in reads.items() if token != "-"}
    assert len(gone_reads) == 9
    assert max(gone_reads.values()) <= 2, f"a leftover was read {max(gone_reads.values())} times by one claim"
    assert not opens, "a gone store was opened"
    assert [(lease.store, lease.first, lease.last) for lease in recorded_leases()] == \
        [(str(tmp_path / "mine.sqlite3"), 43008, 43015)]


def test_a_gc_keeps_a_lease_claimed_over_a_leftovers_name_meanwhile(tmp_path):
    """The removal checks, under the lock, that each name still links the leftover's file: a port
    of its range another claim holds now (the leftover partly reclaimed, its port claimed again)
    keeps the new lease."""
    gone = str(tmp_path / "gone.sqlite3")
    _leave(gone, "t", 44000, 44003)
    folder = port_registry.leases_folder()
    (folder / "44002").unlink()
    live = _store_with_live_tasks(tmp_path / "live.sqlite3", ["new"])
    _leave(live, "new", 44002, 44002)

    assert reclaim_leftovers(timeout=5.0) == 1
    assert [(lease.task, lease.first) for lease in recorded_leases()] == [("new", 44002)]
    assert sorted(int(name.name) for name in folder.iterdir() if name.name.isdigit()) == [44002]


def test_a_leftover_whose_names_a_copy_split_into_files_goes_whole(tmp_path):
    """A state folder copied by a tool that does not keep hard links holds a lease as one file a
    port: gc and a claim that meet it still remove every name of it (each read for its token)."""
    _leave(str(tmp_path / "gone.sqlite3"), "t", 45000, 45003)
    folder = port_registry.leases_folder()
    for port in range(45000, 45004):
        text = (folder / str(port)).read_bytes()
        (folder / str(port)).unlink()
        (folder / str(port)).write_bytes(text)
    assert reclaim_leftovers(timeout=5.0) == 1
    assert not [name for name in folder.iterdir() if name.name.isdigit()]

    _leave(str(tmp_path / "gone.sqlite3"), "t", 45000, 45003)
    for port in range(45000, 45004):
        text = (folder / str(port)).read_bytes()
        (folder / str(port)).unlink()
        (folder / str(port)).write_bytes(text)
    claim = PortClaim(str(tmp_path / "mine.sqlite3"), "r", "mine", "", timeout=5.0)
    assert claim.claim(45000, 45003) == "new"
    claim.done()
    assert [(lease.task, lease.first, lease.last) for lease in recorded_leases()] == [("mine", 45000, 45003)]
