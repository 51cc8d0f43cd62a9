"""Telemetry: OpenTelemetry spans and metrics from the coordinator's events, a no-op by default.

Stage: a capability beside the coordinator's work, never in its way. Input: the events the
Coordinator emits (events.py: stages bracketed by `.begin`/`.end`, and point events) and each run's
stored trace ids. Output: spans (one trace per run, every process joining it) and metrics, on the
providers `configuration.current()` decided from the environment: a collector through the standard
`OTEL_*` variables, a JSON-lines file through `WTC_TRACE_FILE`, a host's own providers, or nothing.

    ids.py            a run's trace id and root span id, a task's span id (pure, no OpenTelemetry)
    configuration.py  on or off, and which providers and exporters (OTEL_*, WTC_TRACE_FILE)
    spans.py          SpanReporter: events -> spans (the trace's shape is in its docstring)
    metrics.py        the counters and histograms, from the same events
    presets.py        span ids chosen ahead (the SDK's id generator, wrapped)
    jsonlines.py      the WTC_TRACE_FILE exporter, safe from many processes at once

Invariants: off, nothing here imports `opentelemetry` (start-up stays flat: scripts/bench_startup.py)
and the coordinator pays one attribute check per event; on, an error in telemetry is never raised
into the work. The core never calls a tracer: it emits events, this package listens.
"""

from __future__ import annotations

from .configuration import Telemetry, current, install, reset
from .ids import RunTrace

__all__ = ["RunTrace", "Telemetry", "current", "install", "reset"]
