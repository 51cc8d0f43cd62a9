"""`WTC_TRACE_FILE=path`: finished spans as JSON lines, for people without a collector.

One JSON object per span and per line (schema `wtc.span/1`):

    {"schema": "wtc.span/1", "trace_id": "<32 hex>", "span_id": "<16 hex>", "parent_id": "<16 hex>"|null,
     "name": "wtc.merge", "kind": "INTERNAL", "start_unix_nano": int, "end_unix_nano": int,
     "attributes": {...}, "events": [{"name", "time_unix_nano", "attributes"}],
     "links": [{"trace_id", "span_id", "attributes"}],
     "status": {"code": "UNSET"|"OK"|"ERROR", "description": str|null},
     "resource": {"service.name": "worktree-coord", ...}}

Many processes append to one file at once (64 agents finishing tasks): each export takes an
exclusive `flock` on the file and writes whole lines with O_APPEND, so lines never interleave and
nothing is overwritten. Spans are written as they end (a synchronous processor), so a process that
is killed loses at most the spans still open.

Needs the SDK: imported only when telemetry is on.
"""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path
from typing import Any, Sequence

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

SCHEMA = "wtc.span/1"


def _attributes(attributes: Any) -> dict[str, Any]:
    return {key: list(value) if isinstance(value, tuple) else value for key, value in dict(attributes or {}).items()}


def span_json(span: ReadableSpan) -> dict[str, Any]:
    """One finished span as the plain JSON object of the module docstring."""
    context = span.get_span_context()
    assert context is not None
    return {
        "schema": SCHEMA,
        "trace_id": f"{context.trace_id:032x}",
        "span_id": f"{context.span_id:016x}",
        "parent_id": f"{span.parent.span_id:016x}" if span.parent is not None else None,
        "name": span.name,
        "kind": span.kind.name,
        "start_unix_nano": span.start_time,
        "end_unix_nano": span.end_time,
        "attributes": _attributes(span.attributes),
        "events": [{"name": e.name, "time_unix_nano": e.timestamp, "attributes": _attributes(e.attributes)}
                   for e in span.events],
        "links": [{"trace_id": f"{link.context.trace_id:032x}", "span_id": f"{link.context.span_id:016x}",
                   "attributes": _attributes(link.attributes)} for link in span.links],
        "status": {"code": span.status.status_code.name, "description": span.status.description},
        "resource": _attributes(span.resource.attributes),
    }


def append_lines(path: Path, lines: bytes) -> None:
    """Append whole lines to `path` under an exclusive flock (safe from many processes)."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        view = memoryview(lines)
        while view:
            written = os.write(fd, view)
            view = view[written:]
    finally:
        os.close(fd)   # closing releases the lock


class JsonLinesSpanExporter(SpanExporter):
    """Writes each exported span as one line of `path` (see the module docstring)."""

    def __init__(self, path: str | os.PathLike[str]):
        self.path = Path(path)

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        if not spans:
            return SpanExportResult.SUCCESS
        text = "".join(json.dumps(span_json(s), sort_keys=True, default=str) + "\n" for s in spans)
        try:
            append_lines(self.path, text.encode("utf-8"))
        except OSError:
            return SpanExportResult.FAILURE
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        return None

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True
