"""Spans and metrics recorded in one process with the SDK's in-memory exporter and reader: one trace
per run, the parent-child structure of telemetry/spans.py, one `merge.file` event per merged file
naming its strategy, the attributes and metrics the issue lists."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from tests.conftest import git, make_repo, write
from worktree_coord import telemetry
from worktree_coord.coordinator import Coordinator
from worktree_coord.events import Fanout, ListReporter
from worktree_coord.telemetry import RunTrace

MODULE = ("def alpha():\n    return 1\n\n\n"
          + "".join(f"def filler_{i}():\n    return {i}\n\n\n" for i in range(8))
          + "def omega():\n    return 2\n")


class Recorded:
    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.reader = InMemoryMetricReader()
        self.telemetry = telemetry.install(provider, MeterProvider(metric_readers=[self.reader]))

    def spans(self, name: str | None = None) -> list:
        found = self.exporter.get_finished_spans()
        return [s for s in found if name is None or s.name == name]

    def one(self, name: str, **attributes: object) -> object:
        found = [s for s in self.spans(name) if all(s.attributes.get(f"wtc.{k}") == v for k, v in attributes.items())]
        assert len(found) == 1, (name, attributes, [(s.name, dict(s.attributes)) for s in self.spans()])
        return found[0]

    def metrics(self) -> dict[str, list[tuple[dict, float]]]:
        out: dict[str, list[tuple[dict, float]]] = {}
        data = self.reader.get_metrics_data()
        for resource in data.resource_metrics if data else ():
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    out[metric.name] = [(dict(p.attributes), getattr(p, "value", None) if hasattr(p, "value")
                                         else p.count) for p in metric.data.data_points]
        return out


@pytest.fixture
def recorded():
    rec = Recorded()
    yield rec
    telemetry.reset()


def parent_of(span) -> int | None:
    return span.parent.span_id if span.parent is not None else None


def span_reporter(coordinator: Coordinator):
    assert isinstance(coordinator.reporter, Fanout)
    return coordinator.reporter.reporters[-1]


def test_a_run_is_one_trace_with_task_spans_stage_children_and_per_file_merge_events(tmp_path, recorded):
    repo = make_repo(tmp_path / "repo", {"pkg/mod.py": MODULE, "pkg/other.py": "x = 1\n", "docs/a.md": "a\n"})
    caller = ListReporter()
    with Coordinator(repo, reporter=caller) as coord:
        coord.start_run("r1")
        ids = coord.store.get_run("r1")
        run_trace = RunTrace.from_hex(ids.trace_id, ids.root_span_id)
        worktrees = {name: Path(coord.start_task("r1", name, ["pkg/**"]).worktree)
                     for name in ("first", "line", "both", "clash", "outside", "empty", "dropped", "later")}
        write(worktrees["first"], {"pkg/mod.py": MODULE.replace("return 1", "return 10"), "pkg/new.py": "n = 1\n"})
        write(worktrees["line"], {"pkg/mod.py": MODULE.replace("return 2", "return 20")})
        write(worktrees["both"], {"pkg/mod.py": MODULE + "\n\ndef added_b():\n    return 'b'\n"})
        write(worktrees["clash"], {"pkg/mod.py": MODULE.replace("return 1", "return 11")})
        write(worktrees["outside"], {"docs/a.md": "changed\n"})
        write(worktrees["later"], {"pkg/other.py": "x = 2\n"})
        assert coord.finish_task("r1", "first").state == "merged"
        assert coord.finish_task("r1", "line").state == "merged"
        assert coord.finish_task("r1", "both").state == "merged"
        assert coord.finish_task("r1", "clash").state == "conflict"
        assert coord.finish_task("r1", "outside").state == "rejected"
        assert coord.finish_task("r1", "empty").state == "empty"
        coord.abandon_task("r1", "dropped")
        coord.finish_task("r1", "later", merge=False)
        assert coord.merge("r1").tasks[0]["state"] == "merged"
        coord.start_run("r1")   # a repeat: no second root span
        assert span_reporter(coord).failures == []

    spans = recorded.spans()
    assert {s.context.trace_id for s in spans} == {run_trace.trace_id}, "one trace for the whole run"
    [root] = recorded.spans("wtc.run")
    assert root.context.span_id == run_trace.root_span_id and root.parent is None
    assert root.attributes["wtc.run"] == "r1"

    # One span per ended task, with the id every process derives, child of the root, covering the task.
    tasks = {s.attributes["wtc.task"]: s for s in recorded.spans("wtc.task")}
    assert set(tasks) == {"first", "line", "both", "empty", "dropped", "later"}
    for name, span in tasks.items():
        assert span.context.span_id == run_trace.task_span_id(name)
        assert parent_of(span) == run_trace.root_span_id
    assert tasks["dropped"].attributes["wtc.state"] == "abandoned"
    assert tasks["empty"].attributes["wtc.state"] == "empty"
    assert tasks["first"].attributes["wtc.state"] == "merged"

    # Every stage of a task hangs under its task's span, written or not (clash and outside live on).
    for name in ("first", "line", "both", "clash", "outside", "empty", "dropped", "later"):
        start = recorded.one("wtc.task.start", task=name)
        assert parent_of(start) == run_trace.task_span_id(name)
    finish = recorded.one("wtc.task.finish", task="first")
    assert parent_of(finish) == run_trace.task_span_id("first")
    check = recorded.one("wtc.boundary_check", task="first")
    merge = recorded.one("wtc.merge", task="first")
    assert parent_of(check) == parent_of(merge) == finish.context.span_id
    assert tasks["first"].end_time >= finish.end_time >= merge.end_time, "the task span covers its children"
    assert tasks["first"].start_time <= finish.start_time

    # Attributes: files, bytes merged, exit code, queue wait; one event per merged file with its strategy.
    assert merge.attributes["wtc.state"] == "merged" and merge.attributes["wtc.exit_code"] == 0
    assert merge.attributes["wtc.files"] == 2 and merge.attributes["wtc.bytes"] == len(MODULE.replace("return 1", "return 10")) + len("n = 1\n")
    assert merge.attributes["wtc.queue_wait_s"] >= 0
    files = {e.attributes["file.path"]: e.attributes for e in merge.events if e.name == "merge.file"}
    assert files.keys() == {"pkg/mod.py", "pkg/new.py"}
    assert files["pkg/mod.py"]["wtc.strategy"] == "trivial" and files["pkg/new.py"]["wtc.outcome"] == "merged"

    def strategy(task: str) -> str:
        span = recorded.one("wtc.merge", task=task)
        [event] = [e for e in span.events if e.name == "merge.file"]
        return event.attributes["wtc.strategy"]

    assert strategy("line") == "line"                        # git's line merge joined both sides
    assert strategy("both") in ("structured", "python")      # next to line's change: the structured merge
    clash = recorded.one("wtc.merge", task="clash")
    assert clash.attributes["wtc.state"] == "conflict" and clash.attributes["wtc.exit_code"] == 1
    assert clash.attributes["wtc.conflicts"] >= 1
    [clashed] = [e for e in clash.events if e.name == "merge.file"]
    assert clashed.attributes["wtc.outcome"] == "conflict"

    rejected = recorded.one("wtc.boundary_check", task="outside")
    assert rejected.attributes["wtc.violations"] == 1
    assert recorded.one("wtc.task.finish", task="outside").attributes["wtc.exit_code"] == 3

    # A drain: its merge is a child of the task's span, linked to the drain that ran it.
    drain = recorded.one("wtc.merge_queue", run="r1")
    assert parent_of(drain) == run_trace.root_span_id
    drained = recorded.one("wtc.merge", task="later")
    assert parent_of(drained) == run_trace.task_span_id("later")
    assert [link.context.span_id for link in drained.links] == [drain.context.span_id]

    # The caller's own reporter saw the same events (the spans ride on them).
    kinds = [kind for kind, _ in caller.events]
    assert "task.finish.begin" in kinds and "merge.file" in kinds and "task.closed" in kinds

    metrics = recorded.metrics()
    merges = {(a["wtc.outcome"], a["wtc.merge.path"]): v for a, v in metrics["wtc.merges"]}
    # The drained task (later) merges onto the drain's chain, published by the drain's one move: a
    # candidate, as a batch's merges are; the other three merged by their own finish.
    assert sum(v for (outcome, _), v in merges.items() if outcome == "merged") == 3
    assert sum(v for (outcome, _), v in merges.items() if outcome == "candidate") == 1
    assert sum(v for (outcome, _), v in merges.items() if outcome == "conflict") == 1
    assert ("merged", "in-memory") in merges and ("merged", "merge-tree") in merges
    assert sum(count for _, count in metrics["wtc.merge.duration"]) == 5
    assert {a["wtc.violation.rule"]: v for a, v in metrics["wtc.violations"]} == {"outside_own": 1}
    assert sum(v for _, v in metrics["wtc.conflicts"]) >= 1
    assert sum(count for _, count in metrics["wtc.admission.wait"]) >= 5
    assert {a["wtc.state"]: v for a, v in metrics["wtc.tasks.ended"]} == {"merged": 4, "empty": 1, "abandoned": 1}


def test_update_and_a_failed_stage_are_spans_and_an_error_is_recorded(tmp_path, recorded):
    repo = make_repo(tmp_path / "repo", {"pkg/mod.py": MODULE})
    with Coordinator(repo) as coord:
        coord.start_run("r1")
        run_trace = coord._run_trace("r1")
        for name, change in (("one", "return 10"), ("two", "return 11")):
            wt = Path(coord.start_task("r1", name, ["pkg/**"]).worktree)
            write(wt, {"pkg/mod.py": MODULE.replace("return 1", change)})
        assert coord.finish_task("r1", "one").state == "merged"
        assert coord.finish_task("r1", "two").state == "conflict"
        updated = coord.update_task("r1", "two")
        assert updated.exit_code == 1
        with pytest.raises(Exception):
            coord.finish_task("r1", "nobody")
        assert span_reporter(coord).failures == []
    update = recorded.one("wtc.task.update", task="two")
    assert parent_of(update) == run_trace.task_span_id("two") and update.attributes["wtc.exit_code"] == 1
    failed = recorded.one("wtc.task.finish", task="nobody")
    assert failed.status.status_code.name == "ERROR" and failed.attributes["wtc.exit_code"] == 5
    assert any(e.name == "exception" for e in failed.events)


def test_consolidation_per_root_relock_and_land_are_spans_of_the_run(tmp_path, recorded, monkeypatch):
    monkeypatch.setenv("npm_config_cache", str(tmp_path / "npm-cache"))
    for key, value in (("npm_config_update_notifier", "false"), ("npm_config_audit", "false"),
                       ("npm_config_fund", "false")):
        monkeypatch.setenv(key, value)
    package = {"name": "root", "private": True, "workspaces": ["packages/*"]}
    repo = make_repo(tmp_path / "repo", {
        "package.json": json.dumps(package, indent=2) + "\n",
        "packages/a/package.json": json.dumps({"name": "a", "version": "1.0.0"}, indent=2) + "\n",
        "packages/b/package.json": json.dumps({"name": "b", "version": "1.0.0"}, indent=2) + "\n",
    })
    subprocess.run(["npm", "install", "--package-lock-only", "--offline", "--ignore-scripts"], cwd=repo, check=True,
                   capture_output=True)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "lockfile")
    with Coordinator(repo) as coord:
        coord.start_run("r1")
        run_trace = coord._run_trace("r1")
        wt = Path(coord.start_task("r1", "b", ["packages/b/**"]).worktree)
        write(wt, {"packages/b/package.json": json.dumps({"name": "b", "version": "1.0.0",
                                                          "dependencies": {"a": "1.0.0"}}, indent=2) + "\n"})
        assert coord.finish_task("r1", "b").state == "merged"
        assert coord.consolidate("r1").exit_code == 0
        coord.land("r1", "main", approved=True)
        assert span_reporter(coord).failures == []
    consolidate = recorded.one("wtc.consolidate", run="r1")
    assert parent_of(consolidate) == run_trace.root_span_id
    root = recorded.one("wtc.consolidate.root", ecosystem="npm")
    assert parent_of(root) == consolidate.context.span_id and root.attributes["wtc.state"] == "applied"
    relocks = recorded.spans("wtc.relock")
    assert relocks and all(parent_of(r) == root.context.span_id for r in relocks)
    assert relocks[-1].attributes["wtc.returncode"] == 0 and "npm" in relocks[-1].attributes["wtc.command"]
    land = recorded.one("wtc.land", run="r1")
    assert parent_of(land) == run_trace.root_span_id and land.attributes["wtc.exit_code"] == 0


def test_a_run_started_before_trace_ids_were_kept_gets_them_once(tmp_path, recorded):
    repo = make_repo(tmp_path / "repo", {"a.txt": "1\n"})
    with Coordinator(repo) as coord:
        coord.start_run("r1")
        coord.store._db.execute("UPDATE runs SET trace_id = NULL, root_span_id = NULL")  # as an old store left it
        first = coord._run_trace("r1")
        assert first is not None and coord._run_trace("r1") == first
        stored = coord.store.get_run("r1")
        assert (stored.trace_id, stored.root_span_id) == (first.trace_hex, first.root_hex)


def test_verification_is_a_span_under_the_merge_and_a_failing_check_is_recorded(tmp_path, recorded):
    check = "! grep -rq BROKEN pkg"   # the project's "test suite": fails when a file under pkg/ says BROKEN
    repo = make_repo(tmp_path / "repo", {"pkg/keep.txt": "1\n"})
    with Coordinator(repo) as coord:
        coord.start_run("r1", verify=check)
        run_trace = coord._run_trace("r1")
        for task, text in (("good", "fine\n"), ("bad", "BROKEN\n")):
            write(Path(coord.start_task("r1", task, [f"pkg/{task}/**"]).worktree), {f"pkg/{task}/f.txt": text})
        assert coord.finish_task("r1", "good").state == "merged"
        assert coord.finish_task("r1", "bad").state == "failed"
        assert span_reporter(coord).failures == []
    for task, ok, code in (("good", True, 0), ("bad", False, 1)):
        merge = recorded.one("wtc.merge", task=task)
        assert parent_of(merge) != run_trace.root_span_id   # under the task's finish, not the run
        [verify] = [s for s in recorded.spans("wtc.verify") if parent_of(s) == merge.context.span_id]
        assert verify.attributes["wtc.run"] == "r1" and verify.attributes["wtc.command"] == check
        assert verify.attributes["wtc.ok"] is ok and verify.attributes["wtc.command_exit_code"] == code
        assert verify.context.trace_id == run_trace.trace_id
        assert merge.start_time <= verify.start_time and verify.end_time <= merge.end_time
    assert recorded.one("wtc.merge", task="bad").attributes["wtc.state"] == "failed"


HOLDER = """
import sys
from worktree_coord.coordinator import Coordinator
from worktree_coord.store import leases
with Coordinator(sys.argv[1]) as coord:
    with leases.hold(coord.store, "integration:r1", timeout=5, what="test holder"):
        print("held", flush=True)
        sys.stdin.readline()         # released when the test says so
"""


def _waiting_in_hold(thread: threading.Thread) -> bool:
    """Whether `thread` is now inside the store's lease loop (it asked for a lease someone holds)."""
    frame = sys._current_frames().get(thread.ident)
    while frame is not None:
        if frame.f_code.co_name == "hold" and frame.f_code.co_filename.endswith(os.path.join("store", "leases.py")):
            return True
        frame = frame.f_back
    return False


def test_a_verified_merge_says_how_long_it_waited_for_its_turn_on_integration(tmp_path, recorded):
    # Verified merges go one at a time; a swarm's finish that waited behind others' verifications
    # showed only the heavy-work queue's wait (wtc.queue_wait_s), near nothing.
    repo = make_repo(tmp_path / "repo", {"pkg/keep.txt": "1\n"})
    with Coordinator(repo) as coord:
        coord.start_run("r1", verify="true")
        for task in ("first", "second"):
            write(Path(coord.start_task("r1", task, [f"pkg/{task}/**"]).worktree), {f"pkg/{task}/f.txt": "x\n"})
        assert coord.finish_task("r1", "first").state == "merged"
        holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(repo)], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)
        try:
            assert holder.stdout.readline().strip() == "held"
            done: list[str] = []
            finishing = threading.Thread(target=lambda: done.append(coord.finish_task("r1", "second").state))
            finishing.start()
            deadline = time.monotonic() + 60
            while not _waiting_in_hold(finishing):
                assert finishing.is_alive() and time.monotonic() < deadline, "the finish never waited for the lease"
                time.sleep(0.01)
            time.sleep(0.3)              # it waits at least this long: the lease is held until after
            holder.stdin.write("\n")
            holder.stdin.flush()
            finishing.join(60)
        finally:
            holder.kill() if holder.poll() is None else None
            holder.wait()
        assert done == ["merged"]
        assert span_reporter(coord).failures == []
    waited = recorded.one("wtc.merge", task="second").attributes["wtc.integration_wait_s"]
    assert waited >= 0.3
    alone = recorded.one("wtc.merge", task="first").attributes["wtc.integration_wait_s"]
    assert 0 <= alone < waited
