"""Spans with ids chosen ahead: the run's root span and each task's span.

The OpenTelemetry SDK's tracer takes every new span's id (and a root span's trace id) from its
provider's id generator; there is no argument to pass one. `PresetIds` wraps that generator: inside
`preset(trace_id=..., span_id=...)` the next ids it hands out are the given ones, everywhere else it
delegates. Installed on our own SDK provider, and on a host's SDK provider when the host configured
one (the wrapper changes nothing for the host's own spans).

Needs the SDK: imported only when telemetry is on.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Iterator

from opentelemetry.sdk.trace.id_generator import IdGenerator


class PresetIds(IdGenerator):
    """An id generator that hands out preset ids once when asked (see the module docstring)."""

    def __init__(self, inner: IdGenerator):
        self.inner = inner
        self._local = threading.local()

    @contextlib.contextmanager
    def preset(self, *, span_id: int, trace_id: int | None = None) -> Iterator[None]:
        self._local.span_id, self._local.trace_id = span_id, trace_id
        try:
            yield
        finally:
            self._local.span_id = self._local.trace_id = None

    def generate_span_id(self) -> int:
        value = getattr(self._local, "span_id", None)
        if value is not None:
            self._local.span_id = None
            return int(value)
        return self.inner.generate_span_id()

    def generate_trace_id(self) -> int:
        value = getattr(self._local, "trace_id", None)
        if value is not None:
            self._local.trace_id = None
            return int(value)
        return self.inner.generate_trace_id()

    def is_trace_id_random(self) -> bool:
        return self.inner.is_trace_id_random()


def install(provider: object) -> PresetIds | None:
    """Wrap an SDK TracerProvider's id generator (once); None for a provider that is not the SDK's,
    whose spans then get ids of its own choosing (the run's spans still share its trace id)."""
    current = getattr(provider, "id_generator", None)
    if isinstance(current, PresetIds):
        return current
    if not isinstance(current, IdGenerator):
        return None
    wrapped = PresetIds(current)
    provider.id_generator = wrapped  # type: ignore[attr-defined]
    return wrapped
