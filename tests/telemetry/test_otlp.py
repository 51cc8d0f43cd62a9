"""The standard OTEL_* variables: a `wtc` process with OTEL_EXPORTER_OTLP_ENDPOINT set exports its spans
and metrics over OTLP/HTTP (protobuf) with the real exporter, to a collector stand-in listening on
127.0.0.1 in this test (no network), joined to the run's trace; OTEL_TRACES_EXPORTER=console writes
spans to stderr and leaves stdout to --json; OTEL_SERVICE_NAME names the service."""

from __future__ import annotations

import gzip
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from tests.conftest import make_repo, write, wtc


class Collector:
    """An OTLP/HTTP receiver: keeps every decoded export request by path."""

    def __init__(self) -> None:
        self.requests: dict[str, list[bytes]] = {}
        collector = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:   # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                collector.requests.setdefault(self.path, []).append(body)
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                return None   # the receiver is silent: http.server would log each request to stderr

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def spans(self) -> list[tuple[dict, object]]:
        out = []
        for body in self.requests.get("/v1/traces", []):
            request = ExportTraceServiceRequest.FromString(body)
            for resource_spans in request.resource_spans:
                resource = {a.key: a.value.string_value for a in resource_spans.resource.attributes}
                for scope in resource_spans.scope_spans:
                    out += [(resource, span) for span in scope.spans]
        return out

    def metric_names(self) -> set[str]:
        names = set()
        for body in self.requests.get("/v1/metrics", []):
            request = ExportMetricsServiceRequest.FromString(body)
            for resource_metrics in request.resource_metrics:
                for scope in resource_metrics.scope_metrics:
                    names |= {m.name for m in scope.metrics}
        return names

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def collector():
    running = Collector()
    yield running
    running.close()


def _attributes(span: object) -> dict:
    return {a.key: (a.value.string_value or a.value.int_value) for a in span.attributes}   # type: ignore[attr-defined]


def test_otlp_endpoint_receives_the_runs_spans_and_metrics_from_separate_processes(tmp_path: Path, collector):
    repo = make_repo(tmp_path / "repo", {"pkg/a.py": "def f():\n    return 1\n", "README.md": "r\n"})
    env = {"OTEL_EXPORTER_OTLP_ENDPOINT": collector.endpoint, "OTEL_SERVICE_NAME": "swarm-7"}
    assert wtc(repo, "run", "start", "--run", "r1", env=env)[0] == 0
    code, started = wtc(repo, "task", "start", "t1", "--run", "r1", "--own", "pkg/**", env=env)
    assert code == 0
    write(Path(started["worktree"]), {"pkg/a.py": "def f():\n    return 2\n"})
    code, finished = wtc(repo, "task", "finish", "t1", "--run", "r1", env=env)
    assert code == 0 and finished["state"] == "merged"
    code, frame = wtc(repo, "watch", "--run", "r1", env=env)
    assert code == 0

    spans = collector.spans()
    names = [span.name for _, span in spans]
    for name in ("wtc.run", "wtc.task", "wtc.task.start", "wtc.task.finish", "wtc.boundary_check", "wtc.merge"):
        assert name in names, f"{name} not exported over OTLP: got {sorted(set(names))}"
    assert {span.trace_id.hex() for _, span in spans} == {frame["run"]["trace_id"]}, "one trace for the run"
    assert {resource["service.name"] for resource, _ in spans} == {"swarm-7"}
    assert len({resource["service.instance.id"] for resource, _ in spans}) == 3, "three processes exported"
    [merge] = [span for _, span in spans if span.name == "wtc.merge"]
    assert _attributes(merge)["wtc.task"] == "t1"
    [event] = [e for e in merge.events if e.name == "merge.file"]
    assert {a.key: a.value.string_value for a in event.attributes}["file.path"] == "pkg/a.py"
    # The metrics reader exports when the process exits.
    assert {"wtc.merges", "wtc.merge.duration", "wtc.tasks.ended"} <= collector.metric_names()


def test_console_exporter_writes_spans_to_stderr_and_keeps_stdout_one_json_object(tmp_path: Path):
    import json
    import os
    import subprocess
    import sys

    repo = make_repo(tmp_path / "repo", {"a.txt": "1\n"})
    env = dict(os.environ, OTEL_TRACES_EXPORTER="console", OTEL_METRICS_EXPORTER="none")
    done = subprocess.run([sys.executable, "-m", "worktree_coord", "run", "start", "--run", "r1", "--json"],
                          cwd=repo, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    [line] = [line for line in done.stdout.splitlines() if line.strip()]
    assert isinstance(json.loads(line), dict)
    assert '"name": "wtc.run"' in done.stderr
