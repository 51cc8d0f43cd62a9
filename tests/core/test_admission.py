"""Admission control: heavy work is bounded across processes, first come first served, and a
caller that waits too long gets exit 4 with a retry-after hint; dead owners never block the queue."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from worktree_coord.store import admission
from worktree_coord.errors import BusyError
from worktree_coord.store import SQLiteStore


HOLDER = """
import os, pathlib, sys, time
from worktree_coord.store import admission
from worktree_coord.store import SQLiteStore
store = SQLiteStore(sys.argv[1])
ready = pathlib.Path(sys.argv[2] + ".ready")
ready.mkdir(exist_ok=True)
(ready / str(os.getpid())).touch()
while len(list(ready.iterdir())) < 5:  # start together, so they really compete
    time.sleep(0.01)
with admission.admitted(store, "heavy", limit=2, timeout=120):
    with open(sys.argv[2], "a") as log:
        log.write(f"in {time.time()}\\n")
    time.sleep(1.0)
    with open(sys.argv[2], "a") as log:
        log.write(f"out {time.time()}\\n")
"""


def test_at_most_limit_run_at_once_across_processes(tmp_path):
    path, log = tmp_path / "s.sqlite3", tmp_path / "log"
    SQLiteStore(path).close()
    procs = [subprocess.Popen([sys.executable, "-c", HOLDER, str(path), str(log)]) for _ in range(5)]
    assert [proc.wait(timeout=300) for proc in procs] == [0] * 5
    events = sorted((line.split() for line in log.read_text().splitlines()), key=lambda e: float(e[1]))
    running, peak = 0, 0
    for kind, _ in events:
        running += 1 if kind == "in" else -1
        peak = max(peak, running)
    assert len(events) == 10 and peak == 2


def test_waiting_past_the_timeout_is_busy_with_a_retry_hint(tmp_path):
    store = SQLiteStore(tmp_path / "s.sqlite3")
    with admission.admitted(store, "heavy", limit=1, timeout=5):
        with pytest.raises(BusyError) as busy:
            with admission.admitted(store, "heavy", limit=1, timeout=0.3):
                raise AssertionError("admitted past the limit of 1")
    assert busy.value.exit_code == 4 and busy.value.retry_after >= 1.0
    assert store.queue_entries() == [], "both tickets left the queue"


def test_first_come_first_served(tmp_path):
    store = SQLiteStore(tmp_path / "s.sqlite3")
    first = store.enqueue("heavy", "a:1:x:y")
    second = store.enqueue("heavy", "a:2:x:y")
    third = store.enqueue("heavy", "a:3:x:y")
    assert store.try_admit(first, "heavy", 1)
    assert not store.try_admit(third, "heavy", 2), "the third waits behind the second"
    assert store.try_admit(second, "heavy", 2)


def test_a_dead_owners_ticket_is_purged(tmp_path):
    store = SQLiteStore(tmp_path / "s.sqlite3")
    dead = subprocess.run([sys.executable, "-c", "from worktree_coord.store.liveness import current_owner;"
                           "print(current_owner())"], capture_output=True, text=True).stdout.strip()
    here = admission.local_kind("heavy")  # the queue of this machine, where the dead process ran
    ticket = store.enqueue(here, dead)
    assert store.try_admit(ticket, here, 1)  # the dead process held the only place
    with admission.admitted(store, "heavy", limit=1, timeout=5):
        admitted = [e["ticket"] for e in store.queue_entries(here) if e["admitted_at"]]
        assert ticket not in admitted and len(admitted) == 1
