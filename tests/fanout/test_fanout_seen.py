"""Seeing a fanout: `wtc watch` shows each task's agent phase and attempt, the report's timeline and
HTML page show agent runs and repairs, the OpenTelemetry trace has a span per task pipeline and per
agent run, the live view draws on a terminal, and the face imports no other face but the shared
words."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import make_repo, wtc
from tests.fanout.helpers import environment, fanout, task, write_plan


@pytest.fixture
def repaired_run(tmp_path: Path) -> tuple[Path, Path, list[dict]]:
    """A run whose one task merged after one repair, traced to a file, with its events."""
    repo = make_repo(tmp_path / "repo", {"README.md": "# r\n"})
    plan = write_plan(tmp_path / "plan.json", [task("fixme", "@1 crash 2", "write pkg/fixme/x.txt ok"),
                                               task("fine", "write pkg/fine/x.txt ok")])
    trace = tmp_path / "spans.jsonl"
    code, events, summary = fanout(repo, plan, "r1", log=tmp_path / "log", env={"WTC_TRACE_FILE": str(trace)})
    assert code == 0, summary
    return repo, trace, events


def test_watch_shows_each_task_agent_phase_and_attempt(repaired_run):
    repo, _, _ = repaired_run
    code, frame = wtc(repo, "watch", "--run", "r1")
    assert code == 0
    import jsonschema

    schema = Path(__file__).resolve().parents[2] / "docs" / "schemas" / "watch.schema.json"
    jsonschema.validate(frame, json.loads(schema.read_text()))
    agents = {t["task"]: t["agent"] for t in frame["tasks"]}
    assert agents["fixme"] == {"phase": "merged", "attempt": 2, "attempts": 3, "runs": 2}
    assert agents["fine"]["attempt"] == 1
    text = subprocess.run([sys.executable, "-m", "worktree_coord", "watch", "--run", "r1", "--once"], cwd=repo,
                          env=dict(os.environ, COLUMNS="200"), capture_output=True, text=True, timeout=60).stdout
    assert "agent" in text and "merged 2/3" in text


def test_the_report_timeline_and_page_show_agent_runs_and_repairs(repaired_run):
    repo, _, _ = repaired_run
    code, report = wtc(repo, "report", "--run", "r1")
    rows = {t["task"]: [p["kind"] for p in t["events"]] for t in report["timeline"]["tasks"]}
    assert rows["fixme"].count("fanout.agent") == 1 and rows["fixme"].count("fanout.repair") == 1
    assert rows["fine"].count("fanout.agent") == 1 and "fanout.repair" not in rows["fine"]
    page = subprocess.run([sys.executable, "-m", "worktree_coord", "report", "--run", "r1", "--format", "html"],
                          cwd=repo, capture_output=True, text=True, timeout=60).stdout
    assert "fixme: repair at +" in page and "fixme: agent at +" in page
    assert "</i>repair</span>" in page                                   # in the legend


def test_the_trace_has_a_span_per_task_pipeline_and_per_agent_run(repaired_run):
    _, trace, _ = repaired_run
    spans = [json.loads(line) for line in trace.read_text().splitlines()]
    by_id = {s["span_id"]: s for s in spans}
    pipelines = {s["attributes"]["wtc.task"]: s for s in spans if s["name"] == "wtc.fanout.task"}
    assert set(pipelines) == {"fixme", "fine"}
    agents = [s for s in spans if s["name"] == "wtc.fanout.agent" and s["attributes"]["wtc.task"] == "fixme"]
    assert sorted(s["attributes"]["wtc.attempt"] for s in agents) == [1, 2]
    assert {s["attributes"]["wtc.repair"] for s in agents} == {False, True}
    assert all(by_id[s["parent_id"]]["name"] == "wtc.fanout.task" for s in agents)
    finishes = [s for s in spans if s["name"] == "wtc.task.finish" and s["attributes"]["wtc.task"] == "fixme"]
    assert finishes and all(by_id[s["parent_id"]] is pipelines["fixme"] for s in finishes)


def test_each_phase_event_names_the_attempt_it_belongs_to(repaired_run):
    # A task that merged on its first of three attempts was once reported as merged on attempt 2
    # (the next attempt, not the last one run); the same for a repaired task: 3 for its second.
    _, _, events = repaired_run
    phases = [(e["task"], e["phase"], e["attempt"]) for e in events if e["event"] == "task"]
    assert ("fine", "merged", 1) in phases and ("fine", "running", 1) in phases, phases
    assert ("fixme", "running", 1) in phases and ("fixme", "repairing", 2) in phases, phases
    assert ("fixme", "merged", 2) in phases, phases
    assert all(attempt == 1 for task, _, attempt in phases if task == "fine"), phases


def test_the_live_view_draws_counts_on_a_terminal_and_plain_lines_elsewhere():
    from rich.console import Console

    from worktree_coord.fanout.view import JsonView, PlainView, RichView, view_for

    view = RichView()
    view.console = Console(file=io.StringIO(), force_terminal=True, width=120)
    view.start({"run": "r1", "plan": "p.toml", "tasks": 3, "settled": 0, "concurrency": 2, "max_agents": 10},
               {"waiting": 3})
    view.event("task", {"task": "api", "phase": "repairing", "attempt": 2, "attempts": 3},
               {"waiting": 2, "repairing": 1}, 4.2)
    view.stop()
    drawn = view.console.file.getvalue()
    assert "needs the lead" in drawn and "repairing" in drawn and "api: repairing (attempt 2 of 3)" in drawn
    assert "\x1b[" in drawn                                        # drawn with a terminal's codes

    class Pipe(io.StringIO):
        def isatty(self) -> bool:
            return False

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert isinstance(view_for(json_mode=False, stream=Pipe()), PlainView)
    assert isinstance(view_for(json_mode=True, stream=Terminal()), JsonView)
    old = os.environ.get("TERM")
    os.environ["TERM"] = "xterm"
    try:
        assert isinstance(view_for(json_mode=False, stream=Terminal()), RichView)
    finally:
        if old is None:
            os.environ.pop("TERM")
        else:
            os.environ["TERM"] = old


def test_the_fanout_face_imports_no_other_face_but_the_shared_words():
    from tests.test_layers import all_imports, part_of

    mine = [(i.importer, i.imported) for i in all_imports() if part_of(i.importer) == "fanout"]
    shared = {imported for _, imported in mine if part_of(imported) == "output"}
    assert shared, "the reader found no import of the shared words: it is broken"
    assert shared <= {"worktree_coord.output.render", "worktree_coord.output.tagging"}, shared
    faces = [(importer, imported) for importer, imported in mine if part_of(imported) in ("cli", "mcp", "hooks", "ci")]
    assert faces == []


def test_a_run_with_the_text_view_on_a_pseudo_terminal_ends_with_the_report(tmp_path):
    import pty

    repo = make_repo(tmp_path / "repo", {"README.md": "# r\n"})
    plan = write_plan(tmp_path / "plan.json", [task("one", "write pkg/one/x.txt 1")])
    leader, follower = pty.openpty()
    env = environment(tmp_path / "log") | {"TERM": "xterm", "COLUMNS": "120"}
    done = subprocess.run([sys.executable, "-m", "worktree_coord", "fanout", str(plan), "--run", "r1"], cwd=repo,
                          env=env, stdout=follower, stderr=subprocess.PIPE, timeout=120)
    os.close(follower)
    drawn = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        drawn += chunk
    os.close(leader)
    text = drawn.decode("utf-8", "replace")
    assert done.returncode == 0, done.stderr
    assert "wtc fanout" in text and "needs the lead" in text and "\x1b[" in text    # the live display
    assert "run r1: 1 of 1 task(s) merged" in text                                   # then the report


def test_the_text_view_says_the_agent_exited_before_finishing(tmp_path: Path) -> None:
    """`wtc fanout`'s plain lines said "fine: finishing" and then "fine: agent exited 0 after ...": the
    slot's release moved the task to finishing before the agent's end was told."""
    from tests.fanout.helpers import environment

    repo = make_repo(tmp_path / "repo", {"README.md": "# r\n"})
    plan = write_plan(tmp_path / "plan.json", [task("fine", "write pkg/fine/x.txt ok")])
    done = subprocess.run([sys.executable, "-m", "worktree_coord", "fanout", str(plan), "--run", "r1"], cwd=repo,
                          env=environment(tmp_path / "log"), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [line.split("] ", 1)[1] for line in done.stdout.splitlines() if line.startswith("[") and "fine: " in line]
    said = [line.split(" after ")[0].split("   [")[0] for line in lines]
    assert said == ["fine: running (attempt 1 of 3)", "fine: agent exited 0", "fine: finishing", "fine: merged"], \
        done.stdout
