"""One process, many calls (the MCP server): inside `separate_owner()` each call is its own owner, so
a lease serializes two calls of one process as it serializes two processes; outside it, one process
is one owner and its leases are re-entrant."""

from __future__ import annotations

import threading
import time

from worktree_coord.store import SQLiteStore, leases
from worktree_coord.store.liveness import Owner, current_owner, is_alive, separate_owner


def test_a_separate_owner_is_this_process_with_its_own_nonce_and_alive():
    process = current_owner()
    with separate_owner() as call:
        assert current_owner() == call
        assert (call.host, call.pid, call.start) == (process.host, process.pid, process.start)
        assert call.nonce != process.nonce and is_alive(Owner.parse(str(call))) is True
        with separate_owner() as inner:
            assert current_owner() == inner != call
        assert current_owner() == call
    assert current_owner() == process


def _overlap(tmp_path, separate: bool) -> bool:
    """Do two threads of this process hold the lease `task:r/t` at the same time?"""
    store = SQLiteStore(tmp_path / "state.sqlite3")
    inside = 0
    overlapped = False
    guard = threading.Lock()

    def hold() -> None:
        nonlocal inside, overlapped
        scope = separate_owner() if separate else _nothing()
        with scope, leases.hold(store, "task:r/t", timeout=10):
            with guard:
                inside += 1
                overlapped |= inside > 1
            time.sleep(0.2)
            with guard:
                inside -= 1

    threads = [threading.Thread(target=hold) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    store.close()
    return overlapped


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def test_calls_in_separate_owners_take_turns_on_a_lease(tmp_path):
    assert _overlap(tmp_path / "a", separate=True) is False


def test_without_separate_owners_one_process_shares_its_leases(tmp_path):
    # Why the MCP server needs separate owners: the lease is re-entrant for its owner.
    assert _overlap(tmp_path / "b", separate=False) is True
