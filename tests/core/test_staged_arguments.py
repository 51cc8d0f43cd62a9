"""coordinator/base.py `_passed`: the arguments a staged operation's call passed, read from its code
object, are those `inspect.signature(...).bind_partial(...)` gives (and a call that does not fit
raises the same TypeError), so a stage names the same run and task without inspect at start-up."""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable

import pytest

from worktree_coord.coordinator.base import _passed


def plain(self: Any, run_id: str, task_id: str, own: tuple[str, ...] = (), *, key: str | None = None,
          merge: bool = True) -> None: ...


def no_task(self: Any, *, dry_run: bool = False) -> None: ...


def positional_only(self: Any, run_id: str, /, task_id: str = "") -> None: ...


def star_args(self: Any, run_id: str, *rest: str, **extra: Any) -> None: ...


@functools.wraps(plain)
def wrapper(*args: Any, **kwargs: Any) -> None: ...


CALLS: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
    ((), {}), (("r1",), {}), (("r1", "t1"), {}), (("r1", "t1", ("a/**",)), {"key": "k"}),
    (("r1",), {"task_id": "t1", "merge": False}), ((), {"run_id": "r1", "task_id": "t1"}),
    (("r1", "t1", (), "extra"), {}),                 # too many positional arguments
    (("r1",), {"run_id": "again"}),                  # one name twice
    (("r1",), {"unknown": 1}),                       # a name the method does not take
    ((), {"dry_run": True}),
]


def answer(read: Callable[[], dict[str, Any]]) -> object:
    try:
        return read()
    except TypeError as error:
        return ("TypeError", str(error))


@pytest.mark.parametrize("method", [plain, no_task, positional_only, star_args, wrapper],
                         ids=["plain", "no_task", "positional_only", "star_args", "wrapper"])
def test_passed_reads_what_bind_partial_reads(method: Callable[..., Any]) -> None:
    self = object()
    read = _passed(method)
    for args, kwargs in CALLS:
        expected = answer(lambda: dict(inspect.signature(method).bind_partial(self, *args, **kwargs).arguments))
        assert answer(lambda: read(self, args, kwargs)) == expected, (args, kwargs)
