"""Events the coordinator emits while it works (a task started, a merge landed, ...).

The core never prints: it calls `reporter.event(kind, **data)`. The CLI turns events into progress
on a terminal; an orchestrator can log them or turn them into tracing spans.
"""

from __future__ import annotations

from typing import Any, Protocol


class Reporter(Protocol):
    def event(self, kind: str, **data: Any) -> None: ...


class NullReporter:
    """Drops every event (the default)."""

    def event(self, kind: str, **data: Any) -> None:
        return None


class ListReporter:
    """Keeps every event in a list: for tests and for callers that want a log."""

    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []

    def event(self, kind: str, **data: Any) -> None:
        self.events.append((kind, data))
