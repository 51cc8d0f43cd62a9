"""coordinator/in_threads.py: `map_in_threads` keeps `list(ThreadPoolExecutor().map(...))`'s
contract: every item runs, results in the items' order, the first failing item's exception (in
order) raised after all have run."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from worktree_coord.coordinator.in_threads import map_in_threads


def test_results_come_in_the_items_order_whatever_order_they_finish_in() -> None:
    items = list(range(12))
    finish_late = lambda n: (time.sleep(0.001 * (12 - n)), n * n)[1]   # noqa: E731 - earlier items finish last
    assert map_in_threads(finish_late, items, workers=4) == [n * n for n in items]
    with ThreadPoolExecutor(max_workers=4) as pool:
        assert list(pool.map(finish_late, items)) == map_in_threads(finish_late, items, workers=4)


def test_at_most_workers_run_at_once_and_none_for_no_items() -> None:
    running, most, lock = 0, 0, threading.Lock()

    def work(n: int) -> int:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        time.sleep(0.002)
        with lock:
            running -= 1
        return n

    assert map_in_threads(work, range(10), workers=3) == list(range(10))
    assert 1 <= most <= 3
    assert map_in_threads(work, [], workers=3) == []


def test_every_item_runs_and_the_first_failure_in_order_is_raised() -> None:
    ran: list[int] = []

    def work(n: int) -> int:
        ran.append(n)
        if n in (3, 7):
            raise ValueError(f"item {n}")
        return n

    with pytest.raises(ValueError, match="item 3"):
        map_in_threads(work, range(10), workers=4)
    assert sorted(ran) == list(range(10))
