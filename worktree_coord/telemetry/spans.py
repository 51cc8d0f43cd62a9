"""Spans from the coordinator's events: one trace per run, across every process that acts on it.

Stage: an `events.Reporter` beside the caller's (the Coordinator fans its events out to both).
Input: stage events (`<name>.begin` / `<name>.end`, events.stage) and point events. Output: spans
on the tracer of `configuration.Telemetry`, and measurements through `metrics.Instruments`.

The shape of a run's trace:

    wtc.run                      root: written once, by the process that starts the run
    +- wtc.task                  one per task, from its start to its end (merged, empty, abandoned)
    |  +- wtc.task.start
    |  +- wtc.task.finish
    |  |  +- wtc.boundary_check
    |  |  +- wtc.merge           one event `merge.file` per file, naming the strategy that merged it
    |  |     +- wtc.verify
    |  +- wtc.task.update / wtc.task.abandon / wtc.merge (from a drain)
    +- wtc.merge_queue           a drain (`wtc merge`): each task's merge is a child of its task's
    |                            span, linked to the drain that ran it
    +- wtc.consolidate
    |  +- wtc.consolidate.root
    |     +- wtc.relock
    +- wtc.land

Spans cannot stay open across processes, and a task lives across many (its start, its finish, a
drain after a crash). So the run's root and each task's span are written with explicit start and
end times: the root when the run starts (it covers the start; later spans are its children all the
same), a task's span by whichever process records the task's end, from the task's recorded start
time to that moment. Their ids are fixed ahead (ids.RunTrace: stored with the run, a task's derived
from its name), so spans written earlier, in other processes, already name them as parents. A task
that never ends (left in conflict, say) leaves its children pointing at a span never written;
tracing backends show them under the run all the same.

Where a stage's span goes: inside an open span of the same run and task (or of no run), it is that
span's child; otherwise it is a child of its task's span (or of the run's root for run-wide work),
built as a remote parent from the stored ids, with a link to the span that was open, if any. A
stage with no run and nothing open (`wtc gc`, `wtc check`) starts under the caller's current span
or a trace of its own.

Invariants: telemetry never breaks the work it watches (an error here is counted in `failures`,
never raised); a task's span is written once per process that ends the task (the store records the
end once, under the task's lease).
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any, Callable

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import Link, NonRecordingSpan, SpanContext, Status, StatusCode, TraceFlags

from ..events import BEGIN, END
from ..frozen import value_class
from .ids import RunTrace

if TYPE_CHECKING:
    from .metrics import Instruments
    from .presets import PresetIds

PREFIX = "wtc."
ATTRIBUTE_NAMES = {"path": "file.path"}
MAX_LIST = 64      # longer lists of names become their length


@value_class(frozen=False)
class _Open:
    name: str
    span: trace.Span
    run: str | None
    task: str | None
    started: float
    queue_wait: float = 0.0


class SpanReporter:
    """Events -> spans and metrics (see the module docstring)."""

    def __init__(self, tracer: trace.Tracer, presets: PresetIds | None, instruments: Instruments,
                 run_trace: Callable[[str], RunTrace | None]):
        self.tracer = tracer
        self.presets = presets            # None: the provider picks span ids (no run or task span then)
        self.instruments = instruments
        self._run_trace = run_trace
        self._traces: dict[str, RunTrace] = {}
        self._local = threading.local()
        self.failures: list[str] = []

    def wants(self, kind: str) -> bool:
        return True

    def event(self, kind: str, **data: Any) -> None:
        try:
            if kind.endswith(BEGIN):
                self._begin(kind[:-len(BEGIN)], data)
            elif kind.endswith(END):
                self._end(kind[:-len(END)], data)
            elif kind == "run.started":
                self._run_started(data)
            elif kind == "task.closed":
                self._task_closed(data)
            elif kind == "admission.admitted":
                self._admitted(data)
            elif kind == "integration.held":
                self._integration_held(data)
            else:
                self._point(kind, data)
        except Exception as error:  # noqa: BLE001 -- never break the work being watched
            self.failures.append(f"{kind}: {type(error).__name__}: {error}")

    # ---- per-thread state ------------------------------------------------------------------------
    def _stack(self) -> list[_Open]:
        stack = getattr(self._local, "stack", None)
        if stack is None:
            stack = self._local.stack = []
        return stack

    def _closing(self) -> dict[tuple[str, str], dict[str, Any]]:
        closing = getattr(self._local, "closing", None)
        if closing is None:
            closing = self._local.closing = {}
        return closing

    def _trace(self, run: str | None) -> RunTrace | None:
        if not run:
            return None
        known = self._traces.get(run)
        if known is None:
            try:
                known = self._run_trace(run)
            except Exception:  # noqa: BLE001 -- an unknown run: the stage is traced without it
                known = None
            if known is not None:
                self._traces[run] = known
        return known

    # ---- stages ----------------------------------------------------------------------------------
    def _begin(self, name: str, data: dict[str, Any]) -> None:
        stack = self._stack()
        top = stack[-1] if stack else None
        run, task = data.get("run"), data.get("task")
        links: list[Link] = []
        context = None
        if top is not None and (run is None or top.run == run) and (task is None or top.task == task):
            context = trace.set_span_in_context(top.span)
        else:
            run_trace = self._trace(run)
            if run_trace is not None:
                context = remote_parent(run_trace, run_trace.task_span_id(task) if task else run_trace.root_span_id)
                if top is not None:
                    links.append(Link(top.span.get_span_context(), {"wtc.link": "called_from"}))
            elif top is not None:
                context = trace.set_span_in_context(top.span)
        span = self.tracer.start_span(PREFIX + name, context=context, attributes=attributes(data), links=links)
        stack.append(_Open(name, span, run if run is not None else (top.run if top else None),
                           task if task is not None else (top.task if top else None), time.perf_counter()))

    def _end(self, name: str, data: dict[str, Any]) -> None:
        stack = self._stack()
        index = next((i for i in range(len(stack) - 1, -1, -1) if stack[i].name == name), None)
        if index is None:
            self.failures.append(f"{name}{END} without its {name}{BEGIN}")
            return
        for orphan in stack[index + 1:]:   # not closed by their own end (cannot happen with events.stage)
            orphan.span.end()
        entry = stack[index]
        del stack[index:]
        span = entry.span
        span.set_attributes(attributes(data))
        error = data.get("error")
        code = data.get("exit_code")
        if error is not None:
            code = code if code is not None else getattr(error, "exit_code", None)
            if isinstance(error, Exception):
                span.record_exception(error)
            span.set_status(Status(StatusCode.ERROR, f"{type(error).__name__}: {error}"))
        if isinstance(code, int):
            span.set_attribute("wtc.exit_code", code)
        if entry.queue_wait:
            span.set_attribute("wtc.queue_wait_s", round(entry.queue_wait, 6))
        self.instruments.stage_ended(name, data, time.perf_counter() - entry.started)
        span.end()
        self._write_closed_tasks()

    # ---- point events ----------------------------------------------------------------------------
    def _point(self, kind: str, data: dict[str, Any]) -> None:
        stack = self._stack()
        if stack:
            stack[-1].span.add_event(kind, attributes(data))

    def _admitted(self, data: dict[str, Any]) -> None:
        self.instruments.admitted(data)
        stack = self._stack()
        if stack and isinstance(data.get("wait_s"), (int, float)):
            stack[-1].queue_wait += float(data["wait_s"])
            stack[-1].span.add_event("admission.admitted", attributes(data))

    def _integration_held(self, data: dict[str, Any]) -> None:
        """A verified merge's wait for its turn on the integration branch (verified merges go one
        at a time), on the span of the stage that waited."""
        stack = self._stack()
        if stack and isinstance(data.get("wait_s"), (int, float)):
            stack[-1].span.set_attribute("wtc.integration_wait_s", round(float(data["wait_s"]), 6))

    def _run_started(self, data: dict[str, Any]) -> None:
        """The run's root span, with the ids the run was stored with."""
        run_trace = RunTrace.from_hex(data["trace_id"], data["root_span_id"])
        self._traces[data["run"]] = run_trace
        presets = self.presets
        if presets is None:
            return   # a provider that picks its own ids cannot write the root the others point at
        started = data.get("started_at")
        with presets.preset(trace_id=run_trace.trace_id, span_id=run_trace.root_span_id):
            span = self.tracer.start_span(PREFIX + "run", context=otel_context.Context(),
                                          attributes=attributes({k: v for k, v in data.items()
                                                                 if k not in ("trace_id", "root_span_id", "started_at")}),
                                          start_time=_ns(started) if isinstance(started, (int, float)) else None)
        span.end()

    def _task_closed(self, data: dict[str, Any]) -> None:
        """A task reached its end: write its span once the spans of its own work still open end."""
        self.instruments.task_ended(data)
        self._closing()[(str(data.get("run")), str(data.get("task")))] = data
        self._write_closed_tasks()

    def _write_closed_tasks(self) -> None:
        closing = self._closing()
        if not closing:
            return
        busy = {(entry.run, entry.task) for entry in self._stack()}
        for key in [k for k in closing if k not in busy]:
            self._write_task_span(closing.pop(key))

    def _write_task_span(self, data: dict[str, Any]) -> None:
        run_trace = self._trace(data.get("run"))
        presets = self.presets
        if run_trace is None or presets is None:
            return
        started = data.get("started_at")
        shown = {k: v for k, v in data.items() if k != "started_at"}
        with presets.preset(span_id=run_trace.task_span_id(str(data["task"]))):
            span = self.tracer.start_span(PREFIX + "task", context=remote_parent(run_trace, run_trace.root_span_id),
                                          attributes=attributes(shown),
                                          start_time=_ns(started) if isinstance(started, (int, float)) else None)
        span.end()


def remote_parent(run_trace: RunTrace, span_id: int) -> otel_context.Context:
    """A context whose current span is the run's span `span_id`, written by another process."""
    parent = SpanContext(trace_id=run_trace.trace_id, span_id=span_id, is_remote=True,
                         trace_flags=TraceFlags(TraceFlags.SAMPLED))
    return trace.set_span_in_context(NonRecordingSpan(parent))


def attributes(data: dict[str, Any]) -> dict[str, Any]:
    """Event data as span attributes: `wtc.<key>` (`file.path` for a path); scalars as they are,
    lists of names as lists (up to MAX_LIST), other lists (conflicts, violations) as their length;
    mappings, None and the error are left out."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        if key == "error" or value is None:
            continue
        name = ATTRIBUTE_NAMES.get(key, PREFIX + key)
        if isinstance(value, (bool, int, float, str)):
            out[name] = value
        elif isinstance(value, (list, tuple)):
            if value and len(value) <= MAX_LIST and all(isinstance(v, str) for v in value):
                out[name] = list(value)
            else:
                out[name] = len(value)
    return out


def _ns(seconds: float) -> int:
    return int(seconds * 1_000_000_000)
