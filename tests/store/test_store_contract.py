"""The store contract: what the coordinator relies on from any `Store`, checked against both stores
(SQLite and a real PostgreSQL). Claims, replays and mismatches; leases, heartbeats and takeover
when an owner on another machine stops beating; fenced writes; admission order; task
compare-and-set; intents; events; migrations from an old schema; use from many threads and
processes at once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.store.store_helpers import open_address
from worktree_coord.errors import BusyError, LeaseLost, StoreError
from worktree_coord.model import Boundary, RunRecord, RunState, TaskRecord, TaskState
from worktree_coord.store import ClaimStatus, TaskWrite, admission, heartbeat, leases
from worktree_coord.store.idempotency import Outcome, run_once
from worktree_coord.store.liveness import current_owner

FOREIGN = "another-machine~00000000:4242:1:feedface"   # an owner whose pid means nothing here


def _run(run_id: str = "r") -> RunRecord:
    return RunRecord(run_id, "a" * 40, f"wtc/{run_id}/integration", RunState.OPEN, time.time(), {"verify": None})


def _task(task_id: str, run_id: str = "r") -> TaskRecord:
    now = time.time()
    return TaskRecord(run_id=run_id, task_id=task_id, state=TaskState.STARTED, branch=f"wtc/{run_id}/{task_id}",
                      worktree=f"/w/{task_id}", boundary=Boundary(own=("src/**",)), author="A <a@example.com>",
                      head=None, created_at=now, updated_at=now, finished_at=None, result={})


def _dead_owner() -> str:
    """The owner id of a process on this host that has ended."""
    return subprocess.run([sys.executable, "-c", "from worktree_coord.store.liveness import current_owner;"
                           "print(current_owner())"], capture_output=True, text=True, check=True).stdout.strip()


# A process that plays an owner on another machine: it keeps a heartbeat for FOREIGN-like owner ids
# (a real thread in a real process), takes what it is told to, says "ready", and waits to be killed.
FOREIGN_HOLDER = r"""
import sys, time
from tests.store.store_helpers import open_address
from worktree_coord.store import heartbeat
address, owner, ttl, what = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
store = open_address(address)
keeper = heartbeat.Keeper(store, owner, ttl)
with keeper.keeping() as generation:
    if what.startswith("lease:"):
        assert store.acquire_lease(what[6:], owner, ttl) is not None
    elif what.startswith("claim:"):
        from worktree_coord.store.idempotency import request_hash
        assert store.claim(what[6:], "op", request_hash("op", {}), {}, owner, 3600).status.value == "new"
    elif what.startswith("ticket:"):
        ticket = store.enqueue(what[7:], owner)
        assert store.try_admit(ticket, what[7:], 1)
    print("ready", flush=True)
    while True:
        time.sleep(0.05)
        if generation.lost and what.startswith("lease:"):
            # paused past its heartbeat and resumed: a fenced write must be refused
            try:
                store.update_task("r", "t", state="merged", holder=(what[6:], owner))
                print("wrote", flush=True)
            except Exception as error:
                print("refused " + type(error).__name__, flush=True)
            break
"""


def _foreign_holder(address: str, owner: str, what: str, *, ttl: float) -> subprocess.Popen:
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen([sys.executable, "-c", FOREIGN_HOLDER, address, owner, str(ttl), what],
                            stdout=subprocess.PIPE, text=True, cwd=root,
                            env=dict(os.environ, PYTHONPATH=str(root)))
    line = proc.stdout.readline().strip()
    assert line == "ready", f"the foreign holder did not start: {line!r}"
    return proc


# ---- runs and tasks ------------------------------------------------------------------------------

def test_runs_are_created_once_and_read_back(store):
    assert store.create_run(_run("r1")) is True
    assert store.create_run(_run("r1")) is False
    assert store.get_run("r1").options == {"verify": None}
    assert store.get_run("nope") is None
    store.create_run(_run("r2"))
    store.set_run_state("r2", RunState.LANDED)
    assert [(r.run_id, r.state) for r in store.list_runs()] == [("r1", RunState.OPEN), ("r2", RunState.LANDED)]


def test_a_runs_remote_is_stored_with_it(store):
    import dataclasses

    store.create_run(dataclasses.replace(_run("r1"), remote="origin"))
    store.create_run(_run("r2"))
    assert (store.get_run("r1").remote, store.get_run("r2").remote) == ("origin", None)
    assert [r.remote for r in store.list_runs()] == ["origin", None]


def test_a_runs_trace_ids_are_stored_with_it_and_set_once(store):
    import dataclasses

    store.create_run(dataclasses.replace(_run("r1"), trace_id="a" * 32, root_span_id="b" * 16))
    assert (store.get_run("r1").trace_id, store.get_run("r1").root_span_id) == ("a" * 32, "b" * 16)
    # A run recorded before the ids were kept gets them once; the first writer wins.
    store.create_run(_run("r2"))
    assert store.get_run("r2").trace_id is None
    assert store.set_run_trace("r2", "c" * 32, "d" * 16).trace_id == "c" * 32
    again = store.set_run_trace("r2", "e" * 32, "f" * 16)
    assert (again.trace_id, again.root_span_id) == ("c" * 32, "d" * 16)
    assert store.set_run_trace("r1", "e" * 32, "f" * 16).trace_id == "a" * 32
    assert store.set_run_trace("nope", "e" * 32, "f" * 16) is None


def test_task_state_changes_are_compare_and_set(store):
    store.create_run(_run())
    assert store.insert_task(_task("t")) is True
    assert store.insert_task(_task("t")) is False
    assert store.update_task("r", "t", expect=[TaskState.STARTED], state=TaskState.FINISHED, head="b" * 40,
                             result={"state": "finished"}) is True
    assert store.update_task("r", "t", expect=[TaskState.STARTED], state=TaskState.MERGED) is False, \
        "a second writer expecting the old state loses"
    task = store.get_task("r", "t")
    assert (task.state, task.head, task.result, task.boundary.own) == (TaskState.FINISHED, "b" * 40,
                                                                       {"state": "finished"}, ("src/**",))
    assert task.updated_at >= task.created_at
    store.insert_task(_task("u"))
    assert [t.task_id for t in store.list_tasks("r", [TaskState.FINISHED])] == ["t"]
    assert [t.task_id for t in store.list_tasks("r", [])] == []
    assert [t.task_id for t in store.list_tasks()] == ["t", "u"]
    with pytest.raises(ValueError):
        store.update_task("r", "t", colour="red")


def test_concurrent_compare_and_set_lets_exactly_one_writer_win(store):
    store.create_run(_run())
    store.insert_task(_task("t"))
    wins = []

    def finish(n: int) -> None:
        if store.update_task("r", "t", expect=[TaskState.STARTED], state=TaskState.FINISHED, result={"by": n}):
            wins.append(n)

    threads = [threading.Thread(target=finish, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(wins) == 1 and store.get_task("r", "t").result == {"by": wins[0]}


def test_fenced_writes_need_the_lease(store):
    store.create_run(_run())
    store.insert_task(_task("t"))
    me = str(current_owner())
    name = leases.task_lease("r", "t")
    with pytest.raises(LeaseLost) as never_held:
        store.update_task("r", "t", state=TaskState.FINISHED, holder=(name, me))
    assert never_held.value.exit_code == 4 and "released" in never_held.value.message
    store.acquire_lease(name, me, 60)
    assert store.update_task("r", "t", state=TaskState.FINISHED, holder=(name, me)) is True
    store.acquire_lease(name, "someone-else:1:1:x", 60, steal_from=me)
    with pytest.raises(LeaseLost) as stolen:
        store.update_task("r", "t", state=TaskState.MERGED, holder=(name, me))
    assert "someone-else" in stolen.value.message
    assert store.get_task("r", "t").state is TaskState.FINISHED, "a refused write changes nothing"


def test_task_writes_in_one_transaction_are_all_or_none(store):
    """`update_tasks`: several tasks' fenced writes and their events, one transaction; one lost fence
    and none of them is written (what a drain's records after its one move of integration rely on)."""
    store.create_run(_run())
    me = str(current_owner())
    for task in ("a", "b", "c"):
        store.insert_task(_task(task))
        store.acquire_lease(leases.task_lease("r", task), me, 60)

    def writes(state: TaskState) -> list[TaskWrite]:
        return [TaskWrite(task, {"state": state, "result": {"by": task}}, holder=(leases.task_lease("r", task), me),
                          event=(f"task.{state.value}", {"task": task})) for task in ("a", "b", "c")]

    assert store.update_tasks("r", writes(TaskState.FINISHED)) == [True, True, True]
    assert {t.task_id: (t.state, t.result) for t in store.list_tasks("r")} == {
        task: (TaskState.FINISHED, {"by": task}) for task in ("a", "b", "c")}
    assert [(e["task_id"], e["kind"]) for e in store.events("r")] == [(t, "task.finished") for t in ("a", "b", "c")]
    store.acquire_lease(leases.task_lease("r", "c"), "someone-else:1:1:x", 60, steal_from=me)
    with pytest.raises(LeaseLost):
        store.update_tasks("r", writes(TaskState.MERGED))
    assert {t.state for t in store.list_tasks("r")} == {TaskState.FINISHED}, "a and b unwritten too"
    assert [e["kind"] for e in store.events("r")] == ["task.finished"] * 3


# ---- idempotency ---------------------------------------------------------------------------------

def test_claims_decide_who_runs(store):
    first = store.claim("k", "op", "h1", {"a": 1}, "me", ttl=60)
    assert first.status is ClaimStatus.NEW and first.record.owner == "me" and first.record.request == {"a": 1}
    assert store.claim("k", "op", "h1", {"a": 1}, "other", ttl=60).status is ClaimStatus.RUNNING
    mismatch = store.claim("k", "op", "h2", {"a": 2}, "other", ttl=60)
    assert mismatch.status is ClaimStatus.MISMATCH and mismatch.record.request == {"a": 1}
    assert store.complete("k", "other", {"ok": False}, 1, final=True) is False, "only the owner completes"
    assert store.complete("k", "me", {"ok": True}, 0, final=True) is True
    done = store.claim("k", "op", "h1", {"a": 1}, "other", ttl=60)
    assert done.status is ClaimStatus.DONE and done.record.result == {"ok": True} and done.record.exit_code == 0
    store.claim("open", "op", "h", {}, "me", ttl=60)
    store.complete("open", "me", {"state": "rejected"}, 3, final=False)
    again = store.claim("open", "op", "h", {}, "other", ttl=60)
    assert again.status is ClaimStatus.NEW and again.record.owner == "other"


def test_release_and_takeover_are_owner_checked(store):
    store.claim("k", "op", "h", {}, "dead", ttl=60)
    store.release("k", "someone")
    assert store.get_record("k") is not None
    assert store.takeover("k", "not-the-owner", "me") is False
    assert store.takeover("k", "dead", "me") is True
    assert store.takeover("k", "dead", "third") is False, "only one process takes over"
    assert store.get_record("k").owner == "me"
    store.release("k", "me")
    assert store.get_record("k") is None


def test_expired_records_are_reclaimed_and_collected(store):
    store.claim("k", "op", "h", {}, "me", ttl=0.05)
    store.complete("k", "me", {}, 0, final=True)
    store.claim("fresh", "op", "h", {}, "me", ttl=3600)
    time.sleep(0.1)
    assert store.delete_expired_records(time.time(), dry_run=True) == ["k"]
    assert store.get_record("k") is not None
    assert store.claim("k", "op", "other-hash", {}, "me", ttl=60).status is ClaimStatus.NEW, \
        "an expired key is free for a new request"
    store.complete("k", "me", {}, 0, final=True)
    time.sleep(0.05)
    assert store.delete_expired_records(time.time() + 120) == ["k"]
    assert store.get_record("k") is None and store.get_record("fresh") is not None


def test_one_claim_wins_among_threads_and_processes(store, store_address):
    results: list[str] = []

    def claim(n: int) -> None:
        results.append(store.claim("race", "op", "h", {}, f"thread-{n}", ttl=60).status.value)

    threads = [threading.Thread(target=claim, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    racers = [subprocess.Popen([sys.executable, "-c",
                                "import sys; from tests.store.store_helpers import open_address;"
                                "s = open_address(sys.argv[1]);"
                                "print(s.claim('race2', 'op', 'h', {}, sys.argv[2], ttl=60).status.value)",
                                store_address, f"proc-{n}"], stdout=subprocess.PIPE, text=True,
                               cwd=Path(__file__).resolve().parents[2]) for n in range(4)]
    processes = [proc.communicate(timeout=120)[0].strip() for proc in racers]
    assert sorted(results) == ["new"] + ["running"] * 5
    assert sorted(processes) == ["new"] + ["running"] * 3


def test_run_once_takes_over_from_an_owner_whose_heartbeat_expired(store, store_address):
    holder = _foreign_holder(store_address, FOREIGN, "claim:k", ttl=3.0)
    calls = []

    def body() -> Outcome:
        calls.append(1)
        return Outcome({"ran": True})

    with pytest.raises(BusyError):  # alive on its machine (it beats): this call waits, then gives up
        run_once(store, "k", "op", {}, body, ttl=60, wait_timeout=4)
    assert calls == []
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    started = time.monotonic()
    done = run_once(store, "k", "op", {}, body, ttl=60, wait_timeout=30)
    assert done.outcome.result == {"ran": True} and calls == [1]
    assert time.monotonic() - started < 10, "taken over once the heartbeat expired, not at the wait timeout"


# ---- leases and heartbeats ------------------------------------------------------------------------

def test_leases_are_free_ours_or_stolen_from_a_named_owner(store):
    first = store.acquire_lease("L", "a", 60)
    assert first is not None and first.owner == "a" and first.expires_at > first.acquired_at
    assert store.acquire_lease("L", "b", 60) is None
    assert store.acquire_lease("L", "a", 60) is not None, "ours again (a renewal)"
    assert store.acquire_lease("L", "b", 60, steal_from="c") is None, "only from the owner named"
    assert store.acquire_lease("L", "b", 60, steal_from="a").owner == "b"
    store.release_lease("L", "a")
    assert store.get_lease("L").owner == "b", "a former owner cannot release it"
    assert store.delete_lease("L", "a") is False and store.delete_lease("L", "b") is True
    assert store.get_lease("L") is None and store.list_leases() == []


def test_leases_taken_and_given_back_together_are_each_free_or_ours(store):
    """A drain's waiting tasks' leases in one write each way: a free one or the caller's own is
    taken (in the order asked), another owner's is left to it, and only the caller's go back."""
    store.acquire_lease("B", "other", 60)
    store.acquire_lease("C", "a", 60)
    assert store.acquire_leases(["A", "B", "C", "D"], "a", 60) == ["A", "C", "D"]
    assert {lease.name: lease.owner for lease in store.list_leases()} == {"A": "a", "B": "other", "C": "a", "D": "a"}
    assert store.acquire_leases(["A", "B"], "z", 60) == []
    assert store.acquire_leases([], "a", 60) == []
    store.release_leases(["A", "B", "C"], "a")
    assert {lease.name: lease.owner for lease in store.list_leases()} == {"B": "other", "D": "a"}
    store.release_leases([], "a")
    assert store.get_lease("D").expires_at > time.time() + 30


def test_heartbeats_start_renew_expire_and_end(store):
    assert store.owner_expired("x") is True, "no heartbeat reads as expired"
    # x's heartbeat and lease are short beside the renewal's 60 s, long enough that a loaded machine
    # (a pause of a second between two statements) does not expire them before the renewal.
    assert store.beat("x", 5, renew=False) is True
    store.acquire_lease("L", "x", 5)
    assert store.owner_expired("x") is False
    assert store.beat("x", 60, renew=True) is True
    assert store.get_lease("L").expires_at > time.time() + 30, "a beat extends the owner's leases"
    assert store.beat("y", 60, renew=True) is False, "renewing a heartbeat that never started fails"
    store.beat("z", 0.05, renew=False)
    time.sleep(0.15)
    assert store.owner_expired("z") is True
    assert store.beat("z", 60, renew=True) is False, "an expired heartbeat cannot be renewed: others may have taken over"
    store.end_beat("x")
    assert store.owner_expired("x") is True


def test_a_live_holder_on_another_machine_keeps_its_lease_until_its_heartbeat_expires(store, store_address):
    holder = _foreign_holder(store_address, FOREIGN, "lease:task:r/t", ttl=3.0)
    try:
        time.sleep(4)  # longer than its time to live: only its heartbeat keeps it
        assert leases.may_take_over(store, FOREIGN) is False
        with pytest.raises(BusyError) as busy:
            with leases.hold(store, "task:r/t", timeout=0.5, what="task t"):
                raise AssertionError("took a lease whose holder is alive")
        assert busy.value.details["holder"] == FOREIGN
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    started = time.monotonic()
    with leases.hold(store, "task:r/t", timeout=30) as held:
        assert store.get_lease("task:r/t").owner == held.owner == str(current_owner())
    assert time.monotonic() - started < 10


def test_a_dead_holder_on_this_host_loses_its_lease_at_once(store):
    dead = _dead_owner()
    store.acquire_lease("task:r/t", dead, ttl=3600)
    assert leases.may_take_over(store, dead) is True
    me = str(current_owner())
    assert leases.may_take_over(store, me) is False, "a live holder here keeps it, heartbeat or not"
    with leases.hold(store, "task:r/t", timeout=5):
        assert store.get_lease("task:r/t").owner == me
    assert store.get_lease("task:r/t") is None, "released at the end of the block"


def test_a_holder_paused_past_its_heartbeat_writes_nothing_after_a_takeover(store, store_address):
    """SIGSTOP stands for a frozen VM or a long GC pause: the others take over; when the holder wakes,
    its heartbeat thread finds the heartbeat expired and its fenced write is refused by the store."""
    store.create_run(_run())
    store.insert_task(_task("t"))
    holder = _foreign_holder(store_address, FOREIGN, "lease:task:r/t", ttl=1.0)
    try:
        holder.send_signal(signal.SIGSTOP)
        with leases.hold(store, "task:r/t", timeout=30, what="task t"):
            assert store.update_task("r", "t", state=TaskState.FINISHED, holder=leases.fence("task:r/t"))
            holder.send_signal(signal.SIGCONT)
            line = holder.stdout.readline().strip()
        assert line == "refused LeaseLost"
        assert store.get_task("r", "t").state is TaskState.FINISHED
    finally:
        holder.send_signal(signal.SIGCONT)
        holder.kill()
        holder.wait()


def test_the_keeper_beats_while_held_and_stops_after(store):
    keeper = heartbeat.Keeper(store, "keeper-test:1:1:x", ttl=2.0)
    with keeper.keeping() as generation:
        time.sleep(4.5)  # over twice the ttl: only the thread keeps it alive
        assert store.owner_expired("keeper-test:1:1:x") is False and not generation.lost
        with keeper.keeping() as nested:
            assert nested is generation
    assert store.owner_expired("keeper-test:1:1:x") is True, "the heartbeat ends with the last holder"
    generation.ensure("nothing")  # not lost: no error


def test_a_refused_renewal_loses_what_was_held(store):
    keeper = heartbeat.Keeper(store, "keeper-test:2:1:x", ttl=0.6)
    with keeper.keeping() as generation:
        store.end_beat("keeper-test:2:1:x")  # what an expiry and a gc of the row look like
        deadline = time.monotonic() + 10
        while not generation.lost and time.monotonic() < deadline:
            time.sleep(0.05)
        assert generation.lost
        with pytest.raises(LeaseLost) as lost:
            generation.ensure("the lease task:r/t")
        assert lost.value.exit_code == 4 and "expired" in lost.value.message
        deadline = time.monotonic() + 10
        while store.owner_expired("keeper-test:2:1:x") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not store.owner_expired("keeper-test:2:1:x"), "a fresh heartbeat for what is taken next"


# ---- admission ------------------------------------------------------------------------------------

def test_admission_is_first_come_first_served(store):
    first = store.enqueue("heavy", "a:1:x:y")
    second = store.enqueue("heavy", "a:2:x:y")
    third = store.enqueue("heavy", "a:3:x:y")
    other = store.enqueue("light", "a:4:x:y")
    assert store.try_admit(first, "heavy", 1)
    assert not store.try_admit(second, "heavy", 1)
    assert not store.try_admit(third, "heavy", 2), "the third waits behind the second"
    assert store.try_admit(second, "heavy", 2)
    assert store.try_admit(other, "light", 1), "queues of other kinds are independent"
    store.leave(first)
    assert store.try_admit(third, "heavy", 2)
    assert [e["ticket"] for e in store.queue_entries("heavy")] == [second, third]
    store.leave(second)
    store.leave(third)
    store.leave(other)
    with pytest.raises(BusyError):
        store.try_admit(first, "heavy", 1)  # a dropped ticket says so


def test_admission_never_exceeds_its_limit_under_threads(store):
    running, peak, finished, lock = [0], [0], [0], threading.Condition()
    errors: list[BaseException] = []

    def work() -> None:
        try:
            with admission.admitted(store, "heavy", limit=2, timeout=300):
                with lock:
                    running[0] += 1
                    peak[0] = max(peak[0], running[0])
                    # hold the place until a second worker is in (or the others are done), so a
                    # loaded machine cannot make the peak 1 by running them one after another
                    lock.wait_for(lambda: running[0] >= 2 or finished[0] >= 5, timeout=30)
                    running[0] -= 1
                    finished[0] += 1
                    lock.notify_all()
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=work) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and finished[0] == 6
    assert peak[0] == 2, "two places: two at once, never three"
    assert store.queue_entries() == []


def test_a_ticket_whose_owner_stopped_beating_is_purged(store, store_address):
    here = admission.local_kind("heavy")
    holder = _foreign_holder(store_address, FOREIGN, f"ticket:{here}", ttl=3.0)
    with pytest.raises(BusyError):
        with admission.admitted(store, "heavy", limit=1, timeout=4):
            raise AssertionError("admitted past a live holder")
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    with admission.admitted(store, "heavy", limit=1, timeout=30):
        assert [e["owner"] for e in store.queue_entries(here)] == [str(current_owner())]


def test_each_machine_has_its_own_queue(store):
    elsewhere = "heavy@another-machine~00000000"
    ticket = store.enqueue(elsewhere, FOREIGN)
    store.beat(FOREIGN, 60, renew=False)
    assert store.try_admit(ticket, elsewhere, 1)
    admitted_here = []
    # With one place and the other machine's ticket admitted, a shared queue would time out here (BusyError).
    with admission.admitted(store, "heavy", limit=1, timeout=2):
        admitted_here.append(True)
    assert admitted_here == [True], "this machine's queue admitted us beside the other machine's work"


# ---- intents and events ------------------------------------------------------------------------

def test_intents_are_replaced_while_pending_and_kept_once_applied(store):
    store.put_intents("r", "t", [{"intent_id": "i1", "path": "package.json"}, {"intent_id": "i2"}])
    assert store.add_intent("r", "t", {"intent_id": "d1", "declared": True}) is True
    assert store.add_intent("r", "t", {"intent_id": "d1"}) is False
    store.set_intent_state("r", "i1", "applied", {"root": "."}, commit_sha="c" * 40)
    store.put_intents("r", "t", [{"intent_id": "i3"}])  # a re-finish derives them afresh
    rows = {row["intent_id"]: row for row in store.list_intents("r")}
    assert set(rows) == {"i1", "i3", "d1"}
    assert rows["i1"]["state"] == "applied" and rows["i1"]["detail"] == {"root": "."}
    assert rows["i1"]["commit_sha"] == "c" * 40 and rows["i1"]["data"]["path"] == "package.json"
    assert [r["intent_id"] for r in store.list_intents("r", ["declared"])] == ["d1"]
    assert store.list_intents("r", []) == []


def test_events_are_an_ordered_trail(store):
    for n in range(5):
        store.log_event("r", "t" if n % 2 else None, f"e{n}", {"n": n, "text": "ünï\u0000code"})
    assert [e["kind"] for e in store.events("r")] == ["e0", "e1", "e2", "e3", "e4"]
    assert [e["data"]["n"] for e in store.events("r", "t")] == [1, 3]
    assert store.events("r")[0]["data"]["text"] == "ünï\u0000code"


def test_the_run_version_changes_with_every_write_to_the_run_and_only_then(store):
    # `wtc ui` polls it before reading a run again: a write it misses is a page that never updates.
    store.create_run(_run())
    store.create_run(_run("other"))
    seen = [store.run_version("r")]

    def changed() -> bool:
        now = store.run_version("r")
        new = now not in seen
        seen.append(now)
        return new

    assert not changed()                                   # reading changes nothing
    store.insert_task(_task("t"))
    assert changed()
    store.update_task("r", "t", state=TaskState.FINISHED)
    assert changed()
    store.update_task("r", "t", result={"merge": {"at": 1.0}})   # the same state, a new result
    assert changed()
    store.put_intents("r", "t", [{"intent_id": "i1"}])
    assert changed()
    store.set_intent_state("r", "i1", "applied", {})
    assert changed()
    store.update_task_context("r", "t", {"fanout": {"phase": "running"}})
    assert changed()
    store.log_event("r", "t", "task.merged", {})
    assert changed()
    store.set_run_state("r", RunState.LANDED)
    assert changed()
    store.delete_task("r", "t")
    assert changed()
    store.insert_task(_task("u", run_id="other"))           # another run's writes are not this run's
    store.log_event("other", "u", "task.started", {})
    assert not changed()
    assert store.run_version("missing") == store.run_version("missing")


def test_a_used_store_passes_its_integrity_check(store):
    store.create_run(_run())
    store.insert_task(_task("t"))
    store.claim("k", "op", "h", {}, "me", ttl=60)
    assert store.integrity_check() == []


def test_many_threads_share_one_store(store):
    """A server (MCP) shares one store across threads: every call is its own transaction."""
    store.create_run(_run())
    errors: list[BaseException] = []

    def agent(n: int) -> None:
        try:
            for i in range(15):
                task = f"t{n}-{i}"
                store.insert_task(_task(task))
                store.claim(f"k{n}-{i}", "op", "h", {}, f"o{n}", ttl=60)
                store.update_task("r", task, expect=[TaskState.STARTED], state=TaskState.FINISHED)
                store.log_event("r", task, "done", {})
                store.complete(f"k{n}-{i}", f"o{n}", {}, 0, final=True)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=agent, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(store.list_tasks("r", [TaskState.FINISHED])) == 120 and len(store.events("r")) == 120


# ---- schema versions -------------------------------------------------------------------------------

def _old_store(address: str, version: int) -> None:
    """A store as an older worktree_coord left it: the first `version` migrations, one run in it."""
    if address.startswith("sqlite:"):
        import sqlite3

        from worktree_coord.store.sqlite import MIGRATIONS

        with sqlite3.connect(address[len("sqlite:"):]) as db:
            for migration in MIGRATIONS[:version]:
                db.executescript(migration)
            db.execute(f"PRAGMA user_version = {version}")
            db.execute("INSERT INTO runs VALUES ('old', 'base', 'wtc/old/integration', 'open', 1.0, '{}')")
        return
    import psycopg

    from worktree_coord.store.postgres import MIGRATIONS

    with psycopg.connect(address, autocommit=True) as db:
        for migration in MIGRATIONS[:version]:
            db.execute(migration)
        db.execute("CREATE TABLE wtc_schema (version INTEGER NOT NULL)")
        db.execute("INSERT INTO wtc_schema VALUES (%s)", (version,))
        db.execute("INSERT INTO wtc_runs VALUES ('old', 'base', 'wtc/old/integration', 'open', 1.0, '{}')")


def test_plan_rules_are_kept_in_order_per_run(store):
    first = store.add_plan_rule("r", "api-*", {"own": ["api/**"], "read": [], "sparse": False})
    second = store.add_plan_rule("", "*", {"own": ["docs/**"], "read": [], "sparse": True})
    assert second > first
    assert [r["pattern"] for r in store.list_plan_rules("r")] == ["api-*"]
    assert [r["rule_id"] for r in store.list_plan_rules(None)] == [first, second]
    assert store.list_plan_rules("")[0]["boundary"] == {"own": ["docs/**"], "read": [], "sparse": True}
    assert store.delete_plan_rule(first) and not store.delete_plan_rule(first)
    assert [r["rule_id"] for r in store.list_plan_rules(None)] == [second]


def test_harness_sessions_and_agent_names_are_claimed_once(store):
    assert store.add_harness_session("claude", "s1", 1, "claude-s1", "b" * 40)
    assert not store.add_harness_session("claude", "s1", 1, "other", "c" * 40), "that seq is taken"
    assert [r["run_id"] for r in store.harness_sessions(session_id="s1")] == ["claude-s1"]
    assert store.harness_sessions(run_id="claude-s1")[0]["base"] == "b" * 40
    mine = {"harness": "claude", "session_id": "s1", "agent": "api: one"}
    assert store.claim_agent_task("claude-s1", "api-one", boundary={"own": ["**"]}, rule="built-in", **mine)
    assert not store.claim_agent_task("claude-s1", "api-one", boundary={"own": ["x"]}, rule="x", harness="claude",
                                      session_id="s2", agent="api one")
    rows = store.agent_tasks("claude-s1", agent="api: one")
    assert [(r["task_id"], r["boundary"], r["rule"]) for r in rows] == [("api-one", {"own": ["**"]}, "built-in")]
    store.delete_agent_task("claude-s1", "api-one")
    assert store.agent_tasks("claude-s1") == []


def test_port_blocks_are_distinct_among_live_tasks_under_threads(store):
    store.create_run(_run())
    for i in range(12):
        store.insert_task(_task(f"t{i}"))
    blocks: dict[str, int | None] = {}
    errors: list[BaseException] = []

    def take(task_id: str) -> None:
        try:
            blocks[task_id] = store.allocate_port_block("r", task_id, 10)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=take, args=(f"t{i}",)) for i in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    given = [b for b in blocks.values() if b is not None]
    assert sorted(given) == list(range(10)) and list(blocks.values()).count(None) == 2, blocks
    holder = next(t for t, b in blocks.items() if b == 3)
    assert store.allocate_port_block("r", holder, 10) == 3, "a task keeps its own block"
    store.delete_task("r", holder)  # no live task holds block 3 any more
    late = next(t for t, b in blocks.items() if b is None)
    assert store.allocate_port_block("r", late, 10) == 3


def test_a_port_block_the_machine_holds_elsewhere_is_never_given(store):
    # `usable` says which blocks the machine holds elsewhere (another repository's live task, a
    # listening program): they are skipped, and a task's own block held elsewhere meanwhile moves.
    store.create_run(_run())
    for task in ("a", "b"):
        store.insert_task(_task(task))
    elsewhere = {0, 2}
    assert store.allocate_port_block("r", "a", 10, lambda n: n not in elsewhere) == 1
    assert store.allocate_port_block("r", "b", 10, lambda n: n not in elsewhere) == 3
    assert store.allocate_port_block("r", "a", 10, lambda n: n not in elsewhere) == 1, "its own block, still free"
    elsewhere.add(1)
    assert store.allocate_port_block("r", "a", 10, lambda n: n not in elsewhere) == 4
    assert store.allocate_port_block("r", "a", 10, lambda n: False) is None


def test_task_context_merges_keys(store):
    store.update_task_context("r", "t", {"boundary_from": "plan #1"})
    store.update_task_context("r", "t", {"setup": {"log": "x.log"}})
    store.update_task_context("r", "t", {"boundary_from": "plan #2"})
    [row] = store.task_contexts("r", "t")
    assert row["data"] == {"boundary_from": "plan #2", "setup": {"log": "x.log"}}
    store.delete_task_context("r", "t")
    assert store.task_contexts("r") == []


def test_an_old_schema_is_upgraded_and_keeps_its_data(store_address):
    _old_store(store_address, 2)
    store = open_address(store_address)
    try:
        assert store.get_run("old").integration_ref == "wtc/old/integration"
        store.put_intents("old", "t", [{"intent_id": "i"}])  # version 3's table
        assert store.beat("o", 60, renew=False) and not store.owner_expired("o")  # version 4's
        assert store.add_plan_rule("", "api-*", {"own": ["api/**"]}) >= 1  # version 5's
        assert store.get_run("old").remote is None  # the remote column: a run from before is local
        assert store.integrity_check() == []
    finally:
        store.close()
    again = open_address(store_address)  # opening an up-to-date store changes nothing
    assert [r.run_id for r in again.list_runs()] == ["old"]
    again.close()


def test_a_schema_from_a_newer_version_is_refused_with_a_fix(store_address):
    from worktree_coord.store import SCHEMA_VERSION
    from worktree_coord.store.postgres import SCHEMA_VERSION as PG_SCHEMA_VERSION

    assert PG_SCHEMA_VERSION == SCHEMA_VERSION, "both stores are migrated in step"
    open_address(store_address).close()
    if store_address.startswith("sqlite:"):
        import sqlite3

        with sqlite3.connect(store_address[len("sqlite:"):]) as db:
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    else:
        import psycopg

        with psycopg.connect(store_address, autocommit=True) as db:
            db.execute("UPDATE wtc_schema SET version = %s", (SCHEMA_VERSION + 1,))
    with pytest.raises(StoreError) as refused:
        open_address(store_address)
    assert "newer" in refused.value.message and "upgrade" in refused.value.fix
    assert refused.value.exit_code == 2


def test_records_round_trip_exactly(store):
    request = {"run": "r", "nested": {"list": [1, 2.5, None, True]}, "text": "quote ' and \" and \\"}
    store.claim("k", "op", "h", request, "me", ttl=60)
    store.complete("k", "me", {"json": json.loads('{"a": [1, {"b": null}]}')}, 1, final=False)
    record = store.get_record("k")
    assert record.request == request and record.result == {"json": {"a": [1, {"b": None}]}}
    assert (record.state, record.exit_code) == ("open", 1)
