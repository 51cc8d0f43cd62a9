"""Whether telemetry is on in this process, and the providers it records with.

Decided once per process, from the environment, the first time a Coordinator asks (`current()`):

- `WTC_TELEMETRY=off` (or the standard `OTEL_SDK_DISABLED=true`): off, whatever else is set.
- `WTC_TRACE_FILE=path`: spans are appended to `path` as JSON lines (jsonlines.py). Needs the
  OpenTelemetry SDK (`pip install 'worktree-coord[otel]'`); without it this is an error that says so,
  because the variable names worktree_coord itself.
- the standard variables: `OTEL_TRACES_EXPORTER` / `OTEL_METRICS_EXPORTER` (`otlp`, `console`,
  `none`), or an OTLP endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT`, `..._TRACES_ENDPOINT`,
  `..._METRICS_ENDPOINT`), which means `otlp`. The exporters read the rest of their `OTEL_*`
  variables themselves (headers, timeout, protocol, batch sizes, sampler, resource attributes).
  Without the SDK these are ignored, as any library on the bare OpenTelemetry API ignores them.
- a host that configured OpenTelemetry itself (a custom orchestrator that set a global SDK provider
  before it made a Coordinator): its providers are used, and nothing of ours is installed.
- otherwise: off. `opentelemetry` is not even imported (it costs tens of milliseconds at start-up,
  and every agent call is a fresh process), and the coordinator's events reach no tracer.

Our own providers are private to worktree_coord (never set as the global ones), carry the resource
`service.name=worktree-coord` (unless `OTEL_SERVICE_NAME` or `OTEL_RESOURCE_ATTRIBUTES` say
otherwise) and a `service.instance.id` per process, so the cumulative counters of many short
processes stay separate streams. The SDK flushes them at interpreter exit.
"""

from __future__ import annotations

import os
import sys
import threading
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping

from ..errors import ConfigError
from ..frozen import value_class
from .ids import RunTrace

if TYPE_CHECKING:
    from opentelemetry.metrics import Meter, MeterProvider
    from opentelemetry.trace import Tracer, TracerProvider

    from .metrics import Instruments
    from .presets import PresetIds
    from .spans import SpanReporter

SWITCH = "WTC_TELEMETRY"
TRACE_FILE = "WTC_TRACE_FILE"
SERVICE_NAME = "worktree-coord"
INSTRUMENTATION = "worktree_coord"
INSTALL_FIX = "pip install 'worktree-coord[otel]' (the OpenTelemetry SDK and OTLP exporter)"


@value_class(frozen=False)
class Telemetry:
    """The tracer and meter worktree_coord records with in this process."""

    tracer: Tracer
    meter: Meter
    presets: PresetIds | None                  # None: the provider picks span ids itself
    owned: list[Any] = field(default_factory=list)   # providers we made (flushed and shut down here)
    _instruments: Instruments | None = None

    @property
    def instruments(self) -> Instruments:
        if self._instruments is None:
            from .metrics import Instruments

            self._instruments = Instruments(self.meter)
        return self._instruments

    def reporter(self, run_trace: Callable[[str], RunTrace | None]) -> SpanReporter:
        """An events.Reporter turning a Coordinator's events into spans and metrics; `run_trace`
        gives a run's stored trace ids (None for an unknown run)."""
        from .spans import SpanReporter

        return SpanReporter(self.tracer, self.presets, self.instruments, run_trace)

    def flush(self) -> None:
        for provider in self.owned:
            provider.force_flush()

    def shutdown(self) -> None:
        for provider in self.owned:
            provider.shutdown()


_lock = threading.Lock()
_decided = False
_state: Telemetry | None = None


def current() -> Telemetry | None:
    """This process's telemetry, decided from the environment on first use (module docstring)."""
    global _decided, _state
    if _decided:
        return _state
    with _lock:
        if not _decided:
            _state = from_environment(os.environ)
            _decided = True
    return _state


def install(tracer_provider: TracerProvider | None = None, meter_provider: MeterProvider | None = None) -> Telemetry:
    """Record with these providers from now on in this process (a host's own, or a test's with an
    in-memory exporter); either left out is the API's no-op one."""
    global _decided, _state
    telemetry = _from_providers(tracer_provider, meter_provider)
    with _lock:
        _state, _decided = telemetry, True
    return telemetry


def reset() -> None:
    """Forget the decision (tests): providers we made are shut down, the next `current()` decides again."""
    global _decided, _state
    with _lock:
        if _state is not None:
            _state.shutdown()
        _state, _decided = None, False


def exporters(env: Mapping[str, str], signal: str) -> list[str]:
    """The exporters the standard variables ask for one signal (TRACES or METRICS)."""
    names = env.get(f"OTEL_{signal}_EXPORTER")
    if names is not None:
        return [n.strip().lower() for n in names.split(",") if n.strip() and n.strip().lower() != "none"]
    if env.get("OTEL_EXPORTER_OTLP_ENDPOINT") or env.get(f"OTEL_EXPORTER_OTLP_{signal}_ENDPOINT"):
        return ["otlp"]
    return []


def _switched_off(env: Mapping[str, str]) -> bool:
    return env.get(SWITCH, "").strip().lower() in ("off", "0", "false", "no") or \
        env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true"


def check_trace_file(env: Mapping[str, str]) -> None:
    """A bad `WTC_TRACE_FILE` is a ConfigError (exit 2) for every command, those that trace nothing
    (`wtc status`, `wtc merge-file`) included, as docs/telemetry.md says: the SDK missing, or a file
    that cannot be appended to. Cheap (no OpenTelemetry import; nothing at all when the variable is
    unset), so the CLI runs it before any command; tracing commands meet the same checks again when
    `from_environment` sets the exporter up."""
    trace_file = env.get(TRACE_FILE, "").strip()
    if not trace_file or _switched_off(env):
        return
    if not _sdk_installed():
        raise _no_sdk(trace_file)
    _check_appendable(trace_file)


def _no_sdk(trace_file: str) -> ConfigError:
    return ConfigError(f"{TRACE_FILE} is set ({trace_file}) but the OpenTelemetry SDK is not installed",
                       fix=f"{INSTALL_FIX}, or unset {TRACE_FILE}")


def from_environment(env: Mapping[str, str]) -> Telemetry | None:
    """The decision of the module docstring, for `env`."""
    if _switched_off(env):
        return None
    trace_file = env.get(TRACE_FILE, "").strip()
    traces, metrics = exporters(env, "TRACES"), exporters(env, "METRICS")
    host_tracer, host_meter = _host_providers()
    if not (trace_file or traces or metrics or host_tracer or host_meter):
        return None
    if not _sdk_installed():
        if trace_file:
            raise _no_sdk(trace_file)
        # The bare API: spans and metrics are no-ops, as for any library (unless a host set providers).
        return _from_providers(host_tracer, host_meter) if host_tracer or host_meter else None
    owned: list[Any] = []
    resource = _resource(env)    # one per process: its spans and its metrics name the same instance
    tracer_provider = host_tracer
    if tracer_provider is None and (trace_file or traces):
        tracer_provider = _sdk_tracer_provider(resource, env, traces)
        owned.append(tracer_provider)
    if trace_file:
        _add_trace_file(tracer_provider, trace_file)
    meter_provider = host_meter
    if meter_provider is None and metrics:
        meter_provider = _sdk_meter_provider(resource, env, metrics)
        owned.append(meter_provider)
    telemetry = _from_providers(tracer_provider, meter_provider)
    telemetry.owned = owned
    return telemetry


# ---- building providers ------------------------------------------------------------------------

def _host_providers() -> tuple[Any, Any]:
    """Global providers a host configured, only if it imported OpenTelemetry already (never
    imported here for the asking)."""
    tracer_provider = meter_provider = None
    if "opentelemetry.trace" in sys.modules:
        from opentelemetry import trace

        provider = trace.get_tracer_provider()
        if not isinstance(provider, (trace.ProxyTracerProvider, trace.NoOpTracerProvider)):
            tracer_provider = provider
    if "opentelemetry.metrics" in sys.modules:
        from opentelemetry import metrics

        provider = metrics.get_meter_provider()
        if type(provider).__name__ not in ("_ProxyMeterProvider", "NoOpMeterProvider"):
            meter_provider = provider
    return tracer_provider, meter_provider


def _sdk_installed() -> bool:
    import importlib.util

    return importlib.util.find_spec("opentelemetry.sdk") is not None


def _from_providers(tracer_provider: Any, meter_provider: Any) -> Telemetry:
    from opentelemetry import metrics, trace

    from .. import __version__

    presets = None
    if tracer_provider is not None:
        from .presets import install as install_presets

        presets = install_presets(tracer_provider) if _sdk_installed() else None
    tracer = (tracer_provider or trace.NoOpTracerProvider()).get_tracer(INSTRUMENTATION, __version__)
    meter = (meter_provider or metrics.NoOpMeterProvider()).get_meter(INSTRUMENTATION, __version__)
    return Telemetry(tracer=tracer, meter=meter, presets=presets)


def _resource(env: Mapping[str, str]) -> Any:
    from opentelemetry.sdk.resources import Resource

    from .. import __version__

    attributes: dict[str, Any] = {"service.version": __version__}
    declared = env.get("OTEL_RESOURCE_ATTRIBUTES", "")
    if not env.get("OTEL_SERVICE_NAME") and "service.name=" not in declared:
        attributes["service.name"] = SERVICE_NAME
    if "service.instance.id=" not in declared:
        import uuid   # only with telemetry on: uuid loads platform, and every coordinator call imports this module

        attributes["service.instance.id"] = str(uuid.uuid4())
    return Resource.create(attributes)


def _protocol(env: Mapping[str, str], signal: str) -> str:
    return (env.get(f"OTEL_EXPORTER_OTLP_{signal}_PROTOCOL") or env.get("OTEL_EXPORTER_OTLP_PROTOCOL")
            or "http/protobuf").strip().lower()


def _otlp(env: Mapping[str, str], signal: str) -> Any:
    protocol = _protocol(env, signal)
    kind = "trace" if signal == "TRACES" else "metric"
    if protocol == "http/protobuf":
        module, package = f"opentelemetry.exporter.otlp.proto.http.{kind}_exporter", "opentelemetry-exporter-otlp-proto-http"
    elif protocol == "grpc":
        module, package = f"opentelemetry.exporter.otlp.proto.grpc.{kind}_exporter", "opentelemetry-exporter-otlp-proto-grpc"
    else:
        raise ConfigError(f"OTEL_EXPORTER_OTLP_PROTOCOL={protocol}: worktree_coord exports OTLP over http/protobuf or grpc",
                          fix="set OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf (the default) or grpc")
    import importlib

    try:
        exporters = importlib.import_module(module)
    except ImportError:
        raise ConfigError(f"OTLP over {protocol} needs {package}, which is not installed",
                          fix=f"pip install {package}" + (" (or use http/protobuf, the default)" if protocol == "grpc" else
                                                          f", or {INSTALL_FIX}")) from None
    return exporters.OTLPSpanExporter() if signal == "TRACES" else exporters.OTLPMetricExporter()


def _unknown(signal: str, name: str) -> ConfigError:
    return ConfigError(f"OTEL_{signal}_EXPORTER names {name!r}, which worktree_coord does not know",
                       fix=f"use otlp, console or none (comma-separated) in OTEL_{signal}_EXPORTER")


def _sdk_tracer_provider(resource: Any, env: Mapping[str, str], names: list[str]) -> Any:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SimpleSpanProcessor
    from opentelemetry.sdk.trace.id_generator import RandomIdGenerator

    from .presets import PresetIds

    provider = TracerProvider(resource=resource, id_generator=PresetIds(RandomIdGenerator()))
    for name in names:
        if name == "otlp":
            provider.add_span_processor(BatchSpanProcessor(_otlp(env, "TRACES")))
        elif name == "console":   # stderr: stdout carries --json
            provider.add_span_processor(SimpleSpanProcessor(ConsoleSpanExporter(out=sys.stderr)))
        else:
            raise _unknown("TRACES", name)
    return provider


def _add_trace_file(provider: Any, path: str) -> None:
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    from .jsonlines import JsonLinesSpanExporter

    target = _check_appendable(path)
    if not hasattr(provider, "add_span_processor"):
        raise ConfigError(f"{TRACE_FILE} is set, but the host's tracer provider ({type(provider).__name__}) "
                          "is not the OpenTelemetry SDK's and cannot take a file exporter",
                          fix=f"unset {TRACE_FILE} and export through the host's provider")
    provider.add_span_processor(SimpleSpanProcessor(JsonLinesSpanExporter(target)))


def _check_appendable(path: str) -> Path:
    target = Path(path).expanduser()
    try:
        fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        os.close(fd)
    except OSError as error:
        raise ConfigError(f"{TRACE_FILE}={path}: cannot append to it ({error.strerror})",
                          fix=f"point {TRACE_FILE} at a file in a folder that exists and is writable") from None
    return target


def _sdk_meter_provider(resource: Any, env: Mapping[str, str], names: list[str]) -> Any:
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import ConsoleMetricExporter, PeriodicExportingMetricReader

    readers = []
    for name in names:
        if name == "otlp":
            readers.append(PeriodicExportingMetricReader(_otlp(env, "METRICS")))
        elif name == "console":
            readers.append(PeriodicExportingMetricReader(ConsoleMetricExporter(out=sys.stderr)))
        else:
            raise _unknown("METRICS", name)
    return MeterProvider(resource=resource, metric_readers=readers)
