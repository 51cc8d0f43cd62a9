"""Issue 41 item 3: `task check` says which tasks it compared and which not (and why), and words a
target's overlap as files both changed. Found by five agents on one clone: check said "merges cleanly
everywhere" while live tasks with no changes yet were left out (only `pairs_merged: 0` said so)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import make_repo, wtc
from tests.forecast.test_forecast_cli import plain, validate
from worktree_coord import Coordinator

SERVICE = "def alpha(x):\n    return x + 1\n\n\ndef beta(x):\n    return x * 2\n"


def test_check_names_the_tasks_left_out_and_why(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"app/service.py": SERVICE, "docs/a.md": "# a\n", "README.md": "# x\n"})
    with Coordinator(repo) as coordinator:
        coordinator.start_run(run_id="r1")
        mine = Path(coordinator.start_task("r1", "mine", ["app/**"]).worktree) / "app/service.py"
        mine.write_text(mine.read_text().replace("x + 1", "x + 10"))
        other = Path(coordinator.start_task("r1", "other", ["app/**"]).worktree) / "app/service.py"
        other.write_text(other.read_text().replace("x * 2", "x * 20"))
        coordinator.start_task("r1", "idle", ["app/**"])
        docs = Path(coordinator.start_task("r1", "docs", ["docs/**"]).worktree) / "docs/a.md"
        docs.write_text("# a, edited\n")
    code, body = wtc(repo, "task", "check", "mine", "--run", "r1")
    assert code == 0, body
    validate(body, "task-check.schema.json")
    assert [row["target"] for row in body["onto"]] == ["integration", "other"]
    assert {row["task"]: row["why"] for row in body["not_compared"]} == {
        "idle": "no changes yet", "docs": "no file in common with this task"}
    text = plain(repo, "task", "check", "mine", "--run", "r1").stdout
    assert "merges cleanly onto integration and the 1 other task compared" in text, text
    assert "everywhere" not in text
    assert "not compared: " in text and "idle (started, no changes yet)" in text, text
    assert "docs (started, no file in common with this task)" in text
    assert "onto other: clean (1 file both changed)" in text and "shared" not in text


def test_tasks_left_out_for_one_reason_are_named_in_one_group(tmp_path: Path) -> None:
    """socket.io, 9 live tasks: `task check` wrote "x (started, no file in common with this task)"
    once per task, one line of 700 characters; the reason is said once for all of them."""
    repo = make_repo(tmp_path / "repo", {"app/service.py": SERVICE, "docs/a.md": "# a\n", "lib/b.md": "# b\n"})
    with Coordinator(repo) as coordinator:
        coordinator.start_run(run_id="r1")
        mine = Path(coordinator.start_task("r1", "mine", ["app/**"]).worktree) / "app/service.py"
        mine.write_text(mine.read_text().replace("x + 1", "x + 10"))
        for name, own, path in (("docs", "docs/**", "docs/a.md"), ("lib", "lib/**", "lib/b.md")):
            edited = Path(coordinator.start_task("r1", name, [own]).worktree) / path
            edited.write_text("# edited\n")
    text = plain(repo, "task", "check", "mine", "--run", "r1").stdout
    assert "not compared: docs, lib (started, no file in common with this task)" in text, text
    assert text.count("no file in common") == 1, text
