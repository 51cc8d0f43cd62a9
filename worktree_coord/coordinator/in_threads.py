"""`map_in_threads`: a function over a few items on a few threads, results in the items' order.

What `wtc status` and `task check` use to read several worktrees at once (each read is a `git`
process: it waits on the disk and the process, not on this interpreter). ThreadPoolExecutor did
it, but concurrent.futures imports logging (with traceback, linecache, tokenize and string: ~3 ms
of a call on a quiet machine, twice that under load), and these calls are start-up bound (issue 36).
Same contract as `list(pool.map(function, items))` inside a `with ThreadPoolExecutor(...)` block:
every item runs, the results come in order, and the first item's exception in order is raised
once all have run.
"""

from __future__ import annotations

import threading
from typing import Callable, Iterable, TypeVar

T = TypeVar("T")
R = TypeVar("R")


def map_in_threads(function: Callable[[T], R], items: Iterable[T], *, workers: int) -> list[R]:
    """`function` over `items`, at most `workers` at a time, as a list in the items' order."""
    todo = list(items)
    results: list[R | None] = [None] * len(todo)
    errors: list[BaseException | None] = [None] * len(todo)
    indexes = iter(range(len(todo)))
    lock = threading.Lock()

    def work() -> None:
        while True:
            with lock:
                index = next(indexes, None)
            if index is None:
                return
            try:
                results[index] = function(todo[index])
            except BaseException as error:  # noqa: BLE001 - raised in the caller's thread below, as pool.map does
                errors[index] = error

    threads = [threading.Thread(target=work, name=f"wtc-map-{n}") for n in range(min(workers, len(todo)))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for error in errors:
        if error is not None:
            raise error
    return results  # type: ignore[return-value]
