"""`wtc forecast`, `wtc task check`, and the forecast column of `wtc status` and `wtc watch`, through
the real command line: JSON matching the documented schemas, exit 1 from `task check` exactly when a
conflict is predicted, and spans for both operations."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from tests.conftest import make_repo, wtc
from worktree_coord import Coordinator, telemetry

ROOT = Path(__file__).resolve().parents[2]
SERVICE = "def alpha(x):\n    return x + 1\n\n\ndef beta(x):\n    return x * 2\n\n\ndef gamma(x):\n    return x - 3\n"


def schema(name: str) -> dict:
    return json.loads((ROOT / "docs" / "schemas" / name).read_text())


def validate(body: dict, name: str) -> None:
    jsonschema.Draft202012Validator(schema(name)).validate(body)


@pytest.fixture
def three_tasks(tmp_path: Path) -> Path:
    """Tasks a and b edit one function (uncommitted), c another function of the same file."""
    repo = make_repo(tmp_path / "repo", {"app/service.py": SERVICE, "README.md": "# x\n"})
    with Coordinator(repo) as coordinator:
        coordinator.start_run(run_id="r1")
        for task, old, new in (("a", "x * 2", "x * 20"), ("b", "x * 2", "x * 200"), ("c", "x - 3", "x - 30")):
            file = Path(coordinator.start_task("r1", task, ["app/**"]).worktree) / "app/service.py"
            file.write_text(file.read_text().replace(old, new))
    return repo


def plain(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "worktree_coord", *args], cwd=repo, capture_output=True, text=True,
                          env=dict(os.environ, COLUMNS="160"), timeout=120)


def test_forecast_json_names_the_conflicting_pair_and_matches_its_schema(three_tasks):
    code, body = wtc(three_tasks, "forecast", "--run", "r1")
    assert code == 0
    validate(body, "forecast.schema.json")
    assert [(c["left"], c["right"], c["declaration"]) for c in body["conflicts"]] == [("a", "b", "def beta")]
    assert {t["task"]: t["forecast"] for t in body["tasks"]} == {"a": "conflict", "b": "conflict", "c": "overlap"}
    text = plain(three_tasks, "forecast", "--run", "r1").stdout
    assert "CONFLICT a x b: app/service.py in def beta" in text


def test_task_check_exits_1_on_a_predicted_conflict_and_0_when_clean(three_tasks):
    code, body = wtc(three_tasks, "task", "check", "a", "--run", "r1")
    assert code == 1 and body["exit_code"] == 1 and body["clean"] is False
    validate(body, "task-check.schema.json")
    assert [(o["target"], o["clean"]) for o in body["onto"]] == [("integration", True), ("b", False), ("c", True)]
    code, body = wtc(three_tasks, "task", "check", "c", "--run", "r1")
    assert code == 0 and body["clean"] is True
    validate(body, "task-check.schema.json")
    done = plain(three_tasks, "task", "check", "b", "--run", "r1")
    assert done.returncode == 1 and "WOULD CONFLICT" in done.stdout and "def beta" in done.stdout
    code, body = wtc(three_tasks, "task", "check", "zzz", "--run", "r1")
    assert code == 5 and "zzz" in body["error"]["message"]


def test_status_and_watch_show_the_forecast_column(three_tasks):
    before = plain(three_tasks, "status", "--run", "r1").stdout
    assert "forecast" not in before                       # nothing computed yet: no column, no cost
    done = plain(three_tasks, "status", "--run", "r1", "--forecast")
    assert done.returncode == 0, done.stderr
    rows = {line.split()[0]: line for line in done.stdout.splitlines()[2:] if line.strip()[:1] in "abc"}
    assert rows["a"].rstrip().endswith("conflict: b") and rows["c"].rstrip().endswith("overlap"), done.stdout
    code, body = wtc(three_tasks, "status", "--run", "r1")
    assert {t["task"]: t["forecast"]["forecast"] for t in body["tasks"]} == {
        "a": "conflict", "b": "conflict", "c": "overlap"}
    code, frame = wtc(three_tasks, "watch", "--run", "r1")
    assert code == 0 and frame["forecast_at"] is not None
    jsonschema.validate(frame, schema("watch.schema.json"))
    assert {t["task"]: t["forecast"]["conflicts_with"] for t in frame["tasks"]} == {"a": ["b"], "b": ["a"], "c": []}
    once = plain(three_tasks, "watch", "--run", "r1", "--once").stdout
    assert "conflict: b" in once and "overlap" in once
    assert plain(three_tasks, "status", "--forecast").returncode == 2


def test_forecast_and_task_check_are_spans_of_the_run(three_tasks):
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    telemetry.install(provider)
    try:
        with Coordinator(three_tasks) as coordinator:
            trace = coordinator._run_trace("r1")
            coordinator.forecast("r1")
            assert coordinator.check_task("r1", "a").exit_code == 1
    finally:
        telemetry.reset()
    spans = {s.name: s for s in exporter.get_finished_spans()}
    forecast, check = spans["wtc.forecast"], spans["wtc.task.check"]
    assert forecast.context.trace_id == check.context.trace_id == trace.trace_id
    assert forecast.attributes["wtc.run"] == "r1" and check.attributes["wtc.task"] == "a"
    assert check.attributes["wtc.exit_code"] == 1


def test_task_check_of_two_tasks_setting_one_root_lint_differently_says_to_agree(tmp_path):
    cargo = '[workspace]\nmembers = []\n\n[workspace.lints.clippy]\ndbg_macro = "warn"\n'
    repo = make_repo(tmp_path / "repo", {"Cargo.toml": cargo, "src/lib.rs": "pub fn a() {}\n"})
    with Coordinator(repo) as coordinator:
        coordinator.start_run(run_id="r1")
        for task, level in (("x", "deny"), ("y", "allow")):
            (Path(coordinator.start_task("r1", task, ["src/**"]).worktree) / "Cargo.toml").write_text(
                cargo.replace('"warn"', f'"{level}"'))
    code, body = wtc(repo, "task", "check", "x", "--run", "r1")
    assert code == 1
    validate(body, "task-check.schema.json")
    [conflict] = body["onto"][1]["conflicts"]
    assert (conflict["kind"], conflict["declaration"]) == ("consolidation", "workspace.lints.clippy.dbg_macro")
    done = plain(repo, "task", "check", "x", "--run", "r1")
    assert 'task x wants "deny", task y wants "allow"' in done.stdout
    assert "agree on one value" in done.stdout and "wtc task update" not in done.stdout


def test_task_check_exits_3_naming_a_change_outside_the_boundary_before_any_conflict(three_tasks):
    """Found driving wtc on mobxjs/mobx: check said "merges cleanly everywhere", then finish rejected
    the task (exit 3) for a file outside its --own. Check now says what finish would reject."""
    with Coordinator(three_tasks) as coordinator:
        worktree = Path(coordinator.store.get_task("r1", "c").worktree)
    (worktree / "README.md").write_text("# x, edited outside app/**\n")
    code, body = wtc(three_tasks, "task", "check", "c", "--run", "r1")
    validate(body, "task-check.schema.json")
    assert code == 3 and body["exit_code"] == 3
    assert [(v["path"], v["rule"]) for v in body["violations"]] == [("README.md", "outside_own")]
    human = plain(three_tasks, "task", "check", "c", "--run", "r1")
    assert "OUTSIDE THE BOUNDARY" in human.stdout and "README.md" in human.stdout
    (worktree / "README.md").write_text("# x\n")   # put back: check is clean again, and so is finish
    assert wtc(three_tasks, "task", "check", "c", "--run", "r1")[0] == 0
    assert wtc(three_tasks, "task", "finish", "c", "--run", "r1")[0] == 0


REQUIREMENTS = "-e .[cli]\n-r requirements-base.txt\n-r requirements-test.txt\npytest==8.4.1\n"
REORDERED = "-e .[cli]\n-r requirements-test.txt\n-r requirements-base.txt\npytest==8.4.1\n"


def test_task_check_exits_3_on_a_reserved_edit_finish_would_refuse(tmp_path):
    """Found driving wtc on httpx: a task made an edit of requirements.txt no intent could carry then
    (an extra of its editable install line, carried since: test_requirements_entries.py; here the
    order of its option lines, which none carries); check said "merges cleanly", finish rejected it
    (reserved_unexpressible, exit 3). Check now says it first; a pin moved alone stays clean."""
    repo = make_repo(tmp_path / "repo", {"app/service.py": SERVICE, "requirements.txt": REQUIREMENTS})
    with Coordinator(repo) as coordinator:
        coordinator.start_run(run_id="r1")
        worktree = Path(coordinator.start_task("r1", "t", ["app/**"]).worktree)
    (worktree / "requirements.txt").write_text(REORDERED)
    code, body = wtc(repo, "task", "check", "t", "--run", "r1")
    validate(body, "task-check.schema.json")
    assert code == 3, body
    [violation] = body["violations"]
    assert (violation["path"], violation["rule"]) == ("requirements.txt", "reserved_unexpressible")
    assert "options lines (reordered)" in violation["detail"]
    human = plain(repo, "task", "check", "t", "--run", "r1")
    assert "REFUSED AT FINISH" in human.stdout and "wtc task widen" not in human.stdout, human.stdout
    assert wtc(repo, "task", "finish", "t", "--run", "r1")[0] == 3        # what check said
    (worktree / "requirements.txt").write_text(REQUIREMENTS.replace("8.4.1", "8.4.2"))
    assert wtc(repo, "task", "check", "t", "--run", "r1")[0] == 0


def test_task_check_derives_the_reserved_edits_intents_once(tmp_path, monkeypatch):
    """`task check` reads a task's reserved edits and owned member manifests into intents once, as
    finish does (it derived them twice: once for the refusals, again for the member ranges), and
    says the same: a refused reserved edit, then, put back, a clean check."""
    from worktree_coord.check import reserved_edits

    repo = make_repo(tmp_path / "repo", {"app/service.py": SERVICE, "requirements.txt": REQUIREMENTS,
                                         "app/pyproject.toml": '[project]\nname = "app"\nversion = "1"\n'
                                                               'dependencies = ["attrs>=22"]\n'})
    calls = []
    derive = reserved_edits.derive_task_intents

    def counted(*args, **kwargs):
        calls.append(1)
        return derive(*args, **kwargs)

    monkeypatch.setattr(reserved_edits, "derive_task_intents", counted)
    with Coordinator(repo) as coordinator:
        coordinator.start_run(run_id="r1")
        worktree = Path(coordinator.start_task("r1", "t", ["app/**"]).worktree)
        (worktree / "app/pyproject.toml").write_text('[project]\nname = "app"\nversion = "1"\n'
                                                     'dependencies = ["attrs>=23"]\n')
        (worktree / "requirements.txt").write_text(REQUIREMENTS.replace("8.4.1", "8.4.2"))
        checked = coordinator.check_task("r1", "t")
        assert (checked.exit_code, checked.violations, len(calls)) == (0, [], 1)
        (worktree / "requirements.txt").write_text(REORDERED)
        calls.clear()
        checked = coordinator.check_task("r1", "t")
        assert checked.exit_code == 3 and len(calls) == 1, (checked.violations, calls)
        assert [(v["path"], v["rule"]) for v in checked.violations] == [("requirements.txt", "reserved_unexpressible")]
