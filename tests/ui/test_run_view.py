"""What the page shows of a run, read from the store alone (ui/run_view.py), and what it is sent
on each poll (ui/changes.py): rows grouped by package or by the phase of a `wtc fanout` plan;
conflicts, a rejected task's violations among them (kind `boundary`); only rows and sections that
changed since a version."""

from __future__ import annotations

import time

from worktree_coord.model import Boundary, RunRecord, RunState, TaskRecord, TaskState
from worktree_coord.store.sqlite import SQLiteStore
from worktree_coord.ui.changes import Versions
from worktree_coord.ui.run_view import phases_of, read_run


def _task(name: str, own: str, state: TaskState = TaskState.STARTED, result: dict | None = None) -> TaskRecord:
    now = time.time()
    return TaskRecord(run_id="r", task_id=name, state=state, branch=f"wtc/r/{name}", worktree=None,
                      boundary=Boundary(own=(own,)), author="A <a@example.com>", head=None, created_at=now,
                      updated_at=now, result=result or {})


def test_rows_by_package_and_by_the_phase_of_a_fanout_plan(tmp_path):
    store = SQLiteStore(tmp_path / "state.sqlite3")
    store.create_run(RunRecord("r", "a" * 40, "wtc/r/integration", RunState.OPEN, time.time(), {}))
    store.insert_task(_task("api", "packages/api/**"))
    store.insert_task(_task("web", "apps/web/src/**"))
    store.insert_task(_task("readme", "README.md"))
    conflict = {"path": "packages/api/index.js", "declaration": "function serve", "kind": "content",
                "last_changed_by": ["web"], "written_by": ["web"], "start_line": 3}
    store.insert_task(_task("late", "packages/api/lib/*.js", TaskState.CONFLICT,
                            {"conflicts": [conflict], "notes": ["run `wtc task update late --run r` ..."]}))
    store.insert_task(_task("outside", "docs/**", TaskState.REJECTED,
                            {"violations": [{"path": "src/x.py", "rule": "outside_own", "detail": "modified"}]}))
    store.log_event("r", None, "fanout.plan", {"plan": {"tasks": [
        {"name": "api", "depends_on": []}, {"name": "web", "depends_on": ["api"]},
        {"name": "late", "depends_on": ["web", "api"]}]}})
    view = read_run(store, "r")
    rows = {row["task"]: row for row in view.tasks}
    assert {name: row["group"] for name, row in rows.items()} == {
        "api": "packages/api", "web": "apps/web", "readme": ".", "late": "packages/api", "outside": "docs"}
    assert {name: row.get("phase") for name, row in rows.items()} == {
        "api": "phase 1", "web": "phase 2", "late": "phase 3", "readme": None, "outside": None}
    assert view.conflicts == [{"task": "late", "other": ["web"], "path": "packages/api/index.js",
                               "declaration": "function serve", "kind": "content", "start_line": 3, "why": [],
                               "fix": "run `wtc task update late --run r` ..."},
                              {"task": "outside", "other": [], "path": "src/x.py", "declaration": "",
                               "kind": "boundary", "start_line": None, "why": ["outside_own: modified"],
                               "fix": "revert the change in the worktree and finish again, or the lead widens "
                                      "the task (wtc task widen outside --run r --own GLOB)"}]
    assert read_run(store, "nope") is None
    store.close()


def test_a_plan_with_a_loop_made_by_hand_still_gets_phases():
    assert phases_of({"tasks": [{"name": "a", "depends_on": ["b"]}, {"name": "b", "depends_on": ["a"]}]}) \
        in ({"a": "phase 2", "b": "phase 1"}, {"a": "phase 1", "b": "phase 2"})
    assert phases_of(None) == {} and phases_of({"tasks": "x"}) == {}


def test_changes_since_a_version():
    versions = Versions()
    versions.put_rows([{"task": "a", "state": "started"}, {"task": "b", "state": "started"}])
    versions.put_section("conflicts", [])
    first = versions.since(0)
    assert first["full"] and len(first["tasks"]) == 2 and first["sections"] == {"conflicts": []}
    versions.put_rows([{"task": "a", "state": "started"}, {"task": "b", "state": "started"}])  # the same: no version
    versions.put_section("conflicts", [])
    assert versions.since(first["version"]) == {"version": first["version"], "full": False, "tasks": [],
                                                "removed": [], "sections": {}}
    versions.put_rows([{"task": "a", "state": "merged"}])                                      # b gone, a changed
    later = versions.since(first["version"])
    assert later["tasks"] == [{"task": "a", "state": "merged"}] and later["removed"] == ["b"] and not later["full"]
    assert versions.since(later["version"] + 5)["full"]        # a version from another server: everything
