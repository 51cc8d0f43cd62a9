"""WTC_TRACE_FILE across processes: a run whose 8 tasks finish in 8 separate processes at once gives one
trace with the parent-child structure of telemetry/spans.py and per-file merge events, every line a
whole JSON object (docs/schemas/span.schema.json). Also: how the configuration fails, and that
nothing configured means nothing imported."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from tests.conftest import make_repo, write, wtc
from worktree_coord.telemetry import RunTrace

ROOT = Path(__file__).resolve().parents[2]
TASKS = 8
SHARED = "".join(f"def f{i}():\n    return {i}\n\n\n" + "".join(f"# {i}.{k}\n" for k in range(4)) + "\n\n"
                 for i in range(TASKS))


@pytest.mark.heavy
def test_eight_finishing_processes_write_one_trace_with_the_right_structure(tmp_path):
    repo = make_repo(tmp_path / "repo", {"pkg/shared.py": SHARED, "README.md": "r\n"})
    trace_file = tmp_path / "spans.jsonl"
    env = {"WTC_TRACE_FILE": str(trace_file)}
    assert wtc(repo, "run", "start", "--run", "r1", env=env)[0] == 0
    for i in range(TASKS):
        code, started = wtc(repo, "task", "start", f"t{i}", "--run", "r1", "--own", "pkg/**", env=env)
        assert code == 0
        write(Path(started["worktree"]), {"pkg/shared.py": SHARED.replace(f"return {i}\n", f"return {i} + 1000\n"),
                                          f"pkg/t{i}.py": f"value = {i}\n"})
    procs = [subprocess.Popen([sys.executable, "-m", "worktree_coord", "task", "finish", f"t{i}", "--run", "r1",
                               "--json"], cwd=repo, env=dict(os.environ, **env), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for i in range(TASKS)]
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, (out, err)
        assert json.loads(out)["state"] == "merged"
    code, frame = wtc(repo, "watch", "--run", "r1", env=env)   # read-only: adds no span
    assert code == 0 and frame["counts"] == {"merged": TASKS}
    run_trace = RunTrace.from_hex(frame["run"]["trace_id"], _root_id(repo))

    schema = json.loads((ROOT / "docs" / "schemas" / "span.schema.json").read_text())
    lines = trace_file.read_text().splitlines()
    spans = [json.loads(line) for line in lines]        # every line is one whole object: none interleaved
    for span in spans:
        jsonschema.validate(span, schema)
    assert {s["trace_id"] for s in spans} == {run_trace.trace_hex}
    by_id = {s["span_id"]: s for s in spans}
    assert len(by_id) == len(spans), "no span written twice"
    [root] = [s for s in spans if s["name"] == "wtc.run"]
    assert root["span_id"] == run_trace.root_hex and root["parent_id"] is None
    processes = {s["resource"]["service.instance.id"] for s in spans}
    assert len(processes) == 1 + TASKS * 2, "run start, 8 task starts and 8 finishes, each its own process"
    assert {s["resource"]["service.name"] for s in spans} == {"worktree-coord"}

    strategies = set()
    for i in range(TASKS):
        task_id = f"{run_trace.task_span_id(f't{i}'):016x}"
        task = by_id[task_id]
        assert task["name"] == "wtc.task" and task["parent_id"] == root["span_id"]
        assert task["attributes"]["wtc.state"] == "merged"
        [start] = _named(spans, "wtc.task.start", f"t{i}")
        [finish] = _named(spans, "wtc.task.finish", f"t{i}")
        assert start["parent_id"] == finish["parent_id"] == task_id
        assert start["resource"]["service.instance.id"] != finish["resource"]["service.instance.id"]
        [check] = _named(spans, "wtc.boundary_check", f"t{i}")
        [merge] = _named(spans, "wtc.merge", f"t{i}")
        assert check["parent_id"] == merge["parent_id"] == finish["span_id"]
        assert task["start_unix_nano"] <= start["start_unix_nano"] + 1_000_000_000
        assert task["end_unix_nano"] >= finish["end_unix_nano"]
        files = {e["attributes"]["file.path"]: e["attributes"] for e in merge["events"] if e["name"] == "merge.file"}
        assert set(files) == {"pkg/shared.py", f"pkg/t{i}.py"}
        assert files[f"pkg/t{i}.py"]["wtc.strategy"] == "trivial"
        assert all(f["wtc.outcome"] == "merged" and f["wtc.bytes"] > 0 for f in files.values())
        strategies.add(files["pkg/shared.py"]["wtc.strategy"])
        assert merge["attributes"]["wtc.exit_code"] == 0 and merge["attributes"]["wtc.bytes"] > len(SHARED)
    # The first merge takes shared.py whole; the others join it with changes in other functions.
    assert "trivial" in strategies and strategies - {"trivial"} <= {"line", "structured", "python"}
    assert strategies != {"trivial"}


def _named(spans: list[dict], name: str, task: str) -> list[dict]:
    return [s for s in spans if s["name"] == name and s["attributes"].get("wtc.task") == task]


def _root_id(repo: Path) -> str:
    import sqlite3

    db = sqlite3.connect(repo / ".git" / "wtc" / "state.sqlite3")
    try:
        return db.execute("SELECT root_span_id FROM runs WHERE run_id = 'r1'").fetchone()[0]
    finally:
        db.close()


def test_a_trace_file_that_cannot_be_written_is_a_usage_error_naming_it(tmp_path):
    repo = make_repo(tmp_path / "repo", {"a.txt": "1\n"})
    # Checked by every command before it acts, the read-only ones that trace nothing too (issue 35:
    # `wtc status` and `wtc merge-file` exited 0 without a word; docs/telemetry.md says exit 2).
    code, body = wtc(repo, "run", "start", "--run", "r1", env={"WTC_TRACE_FILE": str(tmp_path / "missing" / "spans.jsonl")})
    assert code == 2 and "WTC_TRACE_FILE" in body["error"]["message"]
    assert "folder that exists" in body["error"]["fix"]
    code, body = wtc(repo, "run", "start", "--run", "r1", env={"OTEL_TRACES_EXPORTER": "zipkin"})
    assert code == 2 and "zipkin" in body["error"]["message"] and "otlp, console or none" in body["error"]["fix"]
    # Switched off: neither is looked at.
    assert wtc(repo, "run", "start", "--run", "r1", env={"WTC_TELEMETRY": "off", "OTEL_TRACES_EXPORTER": "zipkin"})[0] == 0
    missing = {"WTC_TRACE_FILE": str(tmp_path / "missing" / "spans.jsonl")}
    for command in (["status"], ["merge-file", "a.txt", "a.txt", "a.txt"]):
        code, body = wtc(repo, *command, env=missing)
        assert code == 2 and "WTC_TRACE_FILE" in body["error"]["message"] and "cannot append" in body["error"]["message"]
    assert wtc(repo, "status", env=missing | {"WTC_TELEMETRY": "off"})[0] == 0, "switched off: not looked at"
    assert wtc(repo, "version", env=missing)[0] == 0, "the version is always there to read"


def test_nothing_configured_imports_no_opentelemetry(tmp_path):
    repo = make_repo(tmp_path / "repo", {"a.txt": "1\n"})
    script = ("import sys\nfrom worktree_coord.coordinator import Coordinator\n"
              f"with Coordinator({str(repo)!r}) as c:\n    c.start_run('r1')\n"
              "print(sorted(m for m in sys.modules if m.startswith('opentelemetry')))\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "WTC_TRACE", "WTC_TELEMETRY"))}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_claude_code_hook_processes_join_the_sessions_run_trace(tmp_path):
    from tests.hooks.hook_helpers import assert_contract, create, remove

    repo = make_repo(tmp_path / "repo", {"packages/web/app.js": "export const a = 1;\n", "README.md": "r\n"})
    trace_file = tmp_path / "spans.jsonl"
    env = {"WTC_TRACE_FILE": str(trace_file)}
    paths = {name: assert_contract(create(repo, name, env=env)) for name in ("writer", "reader")}
    write(paths["writer"], {"packages/web/new.js": "export const b = 2;\n"})
    for path in paths.values():
        done = remove(repo, path, env=env)
        assert done.returncode == 0, done.stderr
    spans = [json.loads(line) for line in trace_file.read_text().splitlines()]
    assert len({s["trace_id"] for s in spans}) == 1, "the session's run is one trace across the hook processes"
    [root] = [s for s in spans if s["name"] == "wtc.run"]
    tasks = [s for s in spans if s["name"] == "wtc.task"]
    assert len(tasks) == 2 and all(t["parent_id"] == root["span_id"] for t in tasks)
    assert {t["attributes"]["wtc.state"] for t in tasks} == {"merged", "empty"}
    task_ids = {t["span_id"] for t in tasks}
    starts = [s for s in spans if s["name"] == "wtc.task.start"]
    assert len(starts) == 2 and all(s["parent_id"] in task_ids for s in starts)
    assert len({s["resource"]["service.instance.id"] for s in spans}) == 4, "two creates and two removes"


def test_an_mcp_server_process_joins_the_run_trace_the_command_line_started(tmp_path):
    """The run is started by `wtc run start` in one process; a `wtc mcp` server (another process,
    its own tracer) starts and finishes a task through its tools: every span is in the run's trace,
    and the task span hangs under the run's root span."""
    import anyio

    from tests.mcp_server.helpers import call, stdio_session

    repo = make_repo(tmp_path / "repo", {"app/a.py": "x = 1\n"})
    trace_file = tmp_path / "spans.jsonl"
    env = {"WTC_TRACE_FILE": str(trace_file)}
    code, started = wtc(repo, "run", "start", "--run", "r1", env=env)
    assert code == 0, started

    async def agent() -> None:
        async with stdio_session(repo, env=env) as session:
            body = await call(session, "task_start", {"run": "r1", "task": "t1", "own": ["app/**"]})
            (Path(body["worktree"]) / "app" / "a.py").write_text("x = 2\n")
            done = await call(session, "task_finish", {"run": "r1", "task": "t1"})
            assert done["state"] == "merged", done

    anyio.run(agent)
    spans = [json.loads(line) for line in trace_file.read_text().splitlines()]
    assert len({s["trace_id"] for s in spans}) == 1, "the MCP server's spans are in the run's trace"
    [root] = [s for s in spans if s["name"] == "wtc.run"]
    [task] = [s for s in spans if s["name"] == "wtc.task"]
    assert task["parent_id"] == root["span_id"]
    assert {s["name"] for s in spans} >= {"wtc.task.start", "wtc.task.finish"}
    assert len({s["resource"]["service.instance.id"] for s in spans}) == 2, "the command line and the server"


def test_a_trace_file_without_the_sdk_is_a_configuration_error_that_says_what_to_install(tmp_path):
    """WTC_TRACE_FILE names worktree_coord itself, so without the SDK (the [otel] extra) it is an
    error (exit 2) naming the install, never silently no trace; nothing is written to the store."""
    repo = make_repo(tmp_path / "repo", {"a.txt": "1\n"})
    trace_file = tmp_path / "spans.jsonl"
    # A real process in which the SDK cannot be imported (as in an install without the extra).
    program = ("import sys; sys.modules['opentelemetry.sdk'] = None\n"
               "from worktree_coord.entry import main\n"
               "sys.argv = ['wtc', 'run', 'start', '--run', 'r1', '--json', '--repo', sys.argv[1]]\n"
               "main()\n")
    done = subprocess.run([sys.executable, "-c", program, str(repo)], capture_output=True, text=True,
                          env=dict(os.environ, WTC_TRACE_FILE=str(trace_file)), cwd=repo)
    assert done.returncode == 2, (done.stdout, done.stderr)
    error = json.loads(done.stdout)["error"]
    assert "SDK is not installed" in error["message"] and "worktree-coord[otel]" in error["fix"]
    assert not trace_file.exists()
    code, again = wtc(repo, "run", "start", "--run", "r1")              # with the SDK, nothing half-done
    assert code == 0 and again["replayed"] is False
