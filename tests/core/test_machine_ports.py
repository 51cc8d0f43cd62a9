"""Port blocks are the machine's, not one repository's (issue 35, 1.5): two clones on one machine
never hand out the same block while both tasks live, a block comes free when its task ends or its
repository is gone, and a port some other program listens on is never handed out."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

from tests.conftest import make_repo, write, wtc

FILES = {"pkg/a.py": "a = 1\n", "lib/b.py": "b = 1\n"}


def _clone(root: Path, config: str = "") -> Path:
    repo = make_repo(root, FILES | ({".wtc.toml": config} if config else {}))
    assert wtc(repo, "run", "start", "--run", "r")[0] == 0
    return repo


def _start(repo: Path, task: str, own: str = "pkg/**") -> tuple[Path, tuple[int, int]]:
    code, body = wtc(repo, "task", "start", task, "--run", "r", "--own", own)
    assert code == 0, body
    ports = body["prepared"]["ports"]
    env = (Path(body["worktree"]) / ".wtc" / "env").read_text()
    assert f"WTC_PORT_BASE={ports['base']}\n" in env
    return Path(body["worktree"]), (ports["base"], ports["last"])


def test_two_repositories_hand_out_distinct_blocks_and_reuse_one_freed(tmp_path):
    one, two = _clone(tmp_path / "one"), _clone(tmp_path / "two")
    first_worktree, first = _start(one, "api")
    _, second = _start(two, "web")
    assert first[1] < second[0] or second[1] < first[0], f"blocks overlap: {first} and {second}"
    assert sorted((lease.first, lease.last) for lease in _recorded()) == sorted([first, second])
    # The status of each repository still shows its own task's block (the store's record).
    assert wtc(one, "status", "--run", "r")[1]["tasks"][0]["ports"]["base"] == first[0]

    # The first repository's task ends: its block is free again for the other repository.
    write(first_worktree, {"pkg/a.py": "a = 2\n"})
    assert wtc(one, "task", "finish", "api", "--run", "r")[1]["state"] == "merged"
    _, third = _start(two, "docs", own="lib/**")
    assert third == first


def test_a_block_of_a_repository_that_is_gone_is_free_again(tmp_path):
    one, two = _clone(tmp_path / "one"), _clone(tmp_path / "two")
    _, first = _start(one, "api")
    shutil.rmtree(one)      # the clone deleted with its task still started: nothing of it runs any more
    _, second = _start(two, "web")
    assert second == first


def test_a_port_another_program_listens_on_is_skipped(tmp_path):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        busy = listener.getsockname()[1]
        assert busy <= 65000, "port-base takes 1024-65000; the kernel's ephemeral range lies inside it"
        repo = _clone(tmp_path / "one", f"[worktree-setup]\nports = 2\nport-base = {busy}\n")
        _, block = _start(repo, "api")
        assert block[0] >= busy + 2, f"block {block} starts at the port a listener holds ({busy})"
        listener.close()
        _, freed = _start(repo, "web", own="lib/**")
    assert freed == (busy, busy + 1), "a port nothing listens on any more is handed out"


def test_an_ended_tasks_range_elsewhere_is_handed_out_again(tmp_path):
    """A finished task's range on another part of the port line is given back by its finish
    (store/port_registry.py), and handed out again to the next start that wants it."""
    far = _clone(tmp_path / "far", "[worktree-setup]\nports = 4\nport-base = 41000\n")
    near = _clone(tmp_path / "near", "[worktree-setup]\nports = 4\nport-base = 31000\n")
    worktree, held = _start(far, "api")
    write(worktree, {"pkg/a.py": "a = 2\n"})
    assert wtc(far, "task", "finish", "api", "--run", "r")[1]["state"] == "merged"
    _start(near, "web")
    # Released when the task's worktree went (its finish): nothing of it is left to ask about.
    assert (held[0], held[1]) not in [(lease.first, lease.last) for lease in _recorded()]
    other = _clone(tmp_path / "other", "[worktree-setup]\nports = 4\nport-base = 41000\n")
    _, again = _start(other, "docs")
    assert again == held, "the ended task's range, met by this start, is free again"


def _recorded() -> list:
    from worktree_coord.store.port_registry import recorded_leases

    return recorded_leases()


def _state() -> Path:
    return Path(os.environ["WTC_STATE_DIR"])      # each test's own (tests/conftest.py)


def _lease_files(first: int, last: int) -> list[dict]:
    return [json.loads((_state() / "ports" / str(port)).read_text()) for port in range(first, last + 1)]


def test_a_start_claims_one_name_per_port_and_the_ends_give_them_back(tmp_path):
    """A start claims its range by one name per port in the machine's lease folder, each naming its
    holder (no machine-wide file read and rewritten whole); the task's worktree dropped (finish,
    abandon) gives the names back at once, not at some later start's read."""
    repo = _clone(tmp_path / "one")
    worktree, (first, last) = _start(repo, "api")
    store = os.path.realpath(repo / ".git" / "wtc" / "state.sqlite3")
    rows = _lease_files(first, last)
    assert {(row["store"], row["run"], row["task"], row["first"], row["last"]) for row in rows} == \
        {(store, "r", "api", first, last)}, rows
    assert len({(_state() / "ports" / str(port)).stat().st_ino for port in range(first, last + 1)}) == 1, \
        "the names of one lease are links of one file"
    assert not (_state() / "ports.json").exists()
    _, (web_first, web_last) = _start(repo, "web", own="lib/**")

    write(worktree, {"pkg/a.py": "a = 2\n"})
    assert wtc(repo, "task", "finish", "api", "--run", "r")[1]["state"] == "merged"
    assert not any((_state() / "ports" / str(port)).exists() for port in range(first, last + 1))
    assert wtc(repo, "task", "abandon", "web", "--run", "r")[0] == 0
    assert _recorded() == []
    assert sorted(os.listdir(_state() / "ports")) == [], "a claim leaves no temporary file"


def test_an_earlier_versions_registry_is_read_once_and_its_live_entries_kept(tmp_path):
    """Upgrade under a running swarm: the `ports.json` an earlier version wrote is read by the first
    start that finds it; the range of a task still live in its store stays held (not handed out
    again), an ended task's and a gone store's are not carried over, and the file is set aside."""
    far = _clone(tmp_path / "far", "[worktree-setup]\nports = 4\nport-base = 31000\n")
    live_worktree, live = _start(far, "live")
    _, ended = _start(far, "ended", own="lib/**")
    assert wtc(far, "task", "abandon", "ended", "--run", "r")[0] == 0
    store = os.path.realpath(far / ".git" / "wtc" / "state.sqlite3")
    # As an earlier version left it: every range in one file, no lease files.
    leases = [{"store": store, "run": "r", "task": "live", "worktree": str(live_worktree), "first": live[0], "last": live[1]},
              {"store": store, "run": "r", "task": "ended", "worktree": "", "first": ended[0], "last": ended[1]},
              {"store": str(tmp_path / "gone.sqlite3"), "run": "r", "task": "x", "worktree": "", "first": 31008,
               "last": 31011}]
    for name in os.listdir(_state() / "ports"):
        os.unlink(_state() / "ports" / name)
    (_state() / "ports.json").write_text(json.dumps({"schema": "wtc.port-registry/1", "leases": leases}))

    near = _clone(tmp_path / "near", "[worktree-setup]\nports = 4\nport-base = 31000\n")
    _, first = _start(near, "a")
    _, second = _start(near, "b", own="lib/**")
    assert live not in (first, second), "a live task's range from the earlier registry was handed out again"
    assert sorted([first, second]) == sorted([ended, (31008, 31011)])
    assert not (_state() / "ports.json").exists() and (_state() / "ports.json.migrated").exists()
    assert [(lease.task, lease.first) for lease in _recorded() if lease.store == store] == [("live", live[0])]


def test_a_start_killed_after_its_claim_leaves_a_lease_the_next_start_reclaims(tmp_path):
    """A start killed between its claim in the machine's registry and its store's record of the block
    (crash point start.after_port_claim) leaves a lease its store never recorded: held while its task
    lives for other repositories; the next start of its own repository, whose store finds the block
    free, reclaims it; the killed task's own next start finds a block again."""
    repo = _clone(tmp_path / "one", "[worktree-setup]\nports = 4\nport-base = 32000\n")
    killed = subprocess.run([sys.executable, "-m", "worktree_coord", "task", "start", "api", "--run", "r", "--own",
                             "pkg/**", "--json"], cwd=repo, env=dict(os.environ, WTC_CRASH_AT="start.after_port_claim"),
                            capture_output=True)
    assert killed.returncode == -9, killed.stderr
    assert [(lease.task, lease.first) for lease in _recorded()] == [("api", 32000)]

    other = _clone(tmp_path / "two", "[worktree-setup]\nports = 4\nport-base = 32000\n")
    _, elsewhere = _start(other, "web")
    assert elsewhere == (32004, 32007), "another repository handed out a range a live task's start claimed"

    _, mine = _start(repo, "docs", own="lib/**")
    assert mine == (32000, 32003), "the killed start's lease, unrecorded in its own store, was not reclaimed"
    _, again = _start(repo, "api")
    assert again == (32008, 32011)
    assert sorted((lease.task, lease.first) for lease in _recorded()) == \
        [("api", 32008), ("docs", 32000), ("web", 32004)]


def test_a_lease_of_a_store_that_cannot_be_read_is_kept(tmp_path):
    """A store that cannot be read says nothing about its tasks: its lease holds (a block never
    handed out twice), while a lease whose store file is gone is reclaimed."""
    from worktree_coord.store.port_registry import PortClaim, PortLease, lease_held

    unreadable = tmp_path / "broken.sqlite3"
    unreadable.write_bytes(b"not a database\n" * 10)
    kept = PortLease(store=str(unreadable), run="r", task="t", worktree="", first=33000, last=33003)
    gone = PortLease(store=str(tmp_path / "gone.sqlite3"), run="r", task="t", worktree="", first=33004, last=33007)
    assert lease_held(kept) and not lease_held(gone)
    for lease in (kept, gone):
        holder = PortClaim(lease.store, lease.run, lease.task, lease.worktree, timeout=5.0)
        assert holder.claim(lease.first, lease.last) == "new"
        holder.done()
    claim = PortClaim(str(tmp_path / "mine.sqlite3"), "r", "u", "", timeout=5.0)
    assert claim.claim(33000, 33003) is None
    assert claim.claim(33002, 33005) is None, "a range overlapping the kept lease"
    assert all(not (_state() / "ports" / str(port)).exists() or
               json.loads((_state() / "ports" / str(port)).read_text())["store"] != claim.store
               for port in range(33000, 33008)), "a refused claim left a name of its own"
    assert claim.claim(33004, 33007) == "new"
    claim.done()
    assert [(lease.store, lease.first) for lease in _recorded()] == \
        [(str(unreadable), 33000), (claim.store, 33004)]


def test_gc_reclaims_leftover_leases(tmp_path):
    """`wtc gc` sweeps the lease folder: a lease whose store is gone goes, a live task's stays."""
    repo = _clone(tmp_path / "one")
    _, held = _start(repo, "api")
    from worktree_coord.store.port_registry import PortClaim

    leftover = PortClaim(str(tmp_path / "gone.sqlite3"), "r", "t", "", timeout=5.0)
    assert leftover.claim(40000, 40003) == "new"
    leftover.done()
    assert wtc(repo, "gc")[0] == 0
    assert [(lease.task, lease.first, lease.last) for lease in _recorded()] == [("api", *held)]


def test_a_stores_mark_moves_with_every_write_to_it(tmp_path):
    """A claim trusts what it last read of another store while the store's mark has not moved
    (store/port_registry.py, `_live_tasks`): sound only if every write to the store moves the mark,
    including writes that end a task, one after another within the same instant, and a process
    that leaves its connection open to its end (store/sqlite.py)."""
    from worktree_coord import process_end
    from worktree_coord.store.port_registry import _store_mark
    from worktree_coord.store.sqlite import SQLiteStore

    path = tmp_path / "state.sqlite3"
    store = SQLiteStore(path)
    marks = [_store_mark(str(path))]
    for number in range(20):
        store.beat(f"owner-{number}", 30.0, renew=False)
        marks.append(_store_mark(str(path)))
    store.close()
    marks.append(_store_mark(str(path)))
    script = ("import sys; from worktree_coord import process_end; from worktree_coord.store.sqlite import SQLiteStore; "
              "process_end.will_end_by_exit(); s = SQLiteStore(sys.argv[1]); s.beat('late', 30.0, renew=False); "
              "s.close(); import os; os._exit(0)")
    subprocess.run([sys.executable, "-c", script, str(path)], check=True)
    marks.append(_store_mark(str(path)))
    assert not process_end.ends_by_exit
    assert all(mark is not None for mark in marks)
    assert len({tuple(mark) for mark in marks}) == len(marks), "a write left the store's mark where it was"


def test_a_task_ended_since_its_store_was_last_read_frees_its_range(tmp_path):
    """What a claim read of another store is kept with the store's mark and used while it holds: a
    live task's range stays held; once the task ends (a write to its store), the next claim that
    meets its leftover lease reads the store again and reclaims the range."""
    import time

    from worktree_coord.model import Boundary, RunRecord, RunState, TaskRecord, TaskState
    from worktree_coord.store.port_registry import PortClaim
    from worktree_coord.store.sqlite import SQLiteStore

    path = tmp_path / "other.sqlite3"
    other = SQLiteStore(path)
    now = time.time()
    other.create_run(RunRecord(run_id="r", base="0" * 40, integration_ref="refs/heads/i", state=RunState.OPEN,
                               created_at=now))
    other.insert_task(TaskRecord(run_id="r", task_id="t", state=TaskState.STARTED, branch="b", worktree=None,
                                 boundary=Boundary(own=("x/**",)), author="a <a@b.c>", head=None, created_at=now,
                                 updated_at=now))
    holder = PortClaim(str(path), "r", "t", "", timeout=5.0)
    assert holder.claim(34000, 34003) == "new"
    holder.done()
    for _ in range(2):       # the second claim answered from what the first read (the store unchanged)
        mine = PortClaim(str(tmp_path / "mine.sqlite3"), "r", "u", "", timeout=5.0)
        assert mine.claim(34000, 34003) is None
        mine.done()
    assert str(path) in json.loads((_state() / "ports" / ".seen.json").read_text())["stores"]
    other.update_task("r", "t", state=TaskState.MERGED)
    other.close()
    mine = PortClaim(str(tmp_path / "mine.sqlite3"), "r", "u", "", timeout=5.0)
    assert mine.claim(34000, 34003) == "new", "the ended task's range stayed held: the store was not read again"
    mine.done()
