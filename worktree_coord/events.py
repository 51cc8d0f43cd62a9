"""Events the coordinator emits while it works (a task started, a merge landed, ...).

The core never prints: it calls `reporter.event(kind, **data)`. The CLI turns events into progress
on a terminal; an orchestrator can log them; `worktree_coord.telemetry` turns them into spans and
metrics.

Two shapes of event:
- a point event, `kind` with its data (`task.merged run=r task=t commit=...`);
- a stage, a unit of work bracketed by `<name>.begin` and `<name>.end` (`stage()` below). Both
  carry the data the stage was opened with; the end adds what the work found (`outcome`) and, when
  it raised, `error` (the exception). Stages nest as the calls do: a point event between a begin and
  its end happened inside that stage. This is what lets a tracer hang spans off the events instead
  of the core calling a tracer.

A reporter may also say which kinds it `wants`: events whose data costs something to compute (one
`merge.file` per merged file) are only computed when some reporter wants them (`wants()`).
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator, Protocol

BEGIN = ".begin"
END = ".end"


class Reporter(Protocol):
    def event(self, kind: str, **data: Any) -> None: ...


class NullReporter:
    """Drops every event (the default)."""

    def event(self, kind: str, **data: Any) -> None:
        return None

    def wants(self, kind: str) -> bool:
        return False


class ListReporter:
    """Keeps every event in a list: for tests and for callers that want a log."""

    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []

    def event(self, kind: str, **data: Any) -> None:
        self.events.append((kind, data))


class Fanout:
    """Hands every event to each of several reporters, in order (the caller's, then telemetry's)."""

    def __init__(self, *reporters: Reporter):
        self.reporters = reporters

    def event(self, kind: str, **data: Any) -> None:
        for reporter in self.reporters:
            reporter.event(kind, **data)

    def wants(self, kind: str) -> bool:
        return any(wants(r, kind) for r in self.reporters)


def wants(reporter: Reporter, kind: str) -> bool:
    """Whether `reporter` wants events of `kind`: its own `wants(kind)` when it has one, else yes
    (a reporter that does not say gets everything)."""
    ask = getattr(reporter, "wants", None)
    return True if ask is None else bool(ask(kind))


@contextlib.contextmanager
def stage(reporter: Reporter, name: str, **data: Any) -> Iterator[dict[str, Any]]:
    """Bracket a unit of work with `<name>.begin` and `<name>.end`. The block fills the yielded dict
    with what it found (files, conflicts, exit code ...), sent with the end; an exception is sent
    as `error` and raised on."""
    reporter.event(name + BEGIN, **data)
    outcome: dict[str, Any] = {}
    try:
        yield outcome
    except BaseException as error:
        reporter.event(name + END, **(data | outcome), error=error)
        raise
    reporter.event(name + END, **(data | outcome))
