"""The repair loop for the findings the other tests do not reach: a semantic conflict (the task's new
code uses a name another task's merged work removed: `task update` first, then the repair), a use
left behind (code no task changed uses a name the task removed: no update, the repair keeps the
name), and conflict markers a repair left unresolved (no second update: the next repair resolves
them)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import git, make_repo
from tests.fanout.helpers import count, fanout, task, write_plan
from worktree_coord.coordinator import Coordinator

UTIL = "def helper():\n    return 1\n"
MAIN = "from lib.util import helper\n\nprint(helper())\n"


def updates(repo: Path, task_id: str) -> int:
    with Coordinator(repo) as coordinator:
        return sum(1 for e in coordinator.store.events("r1", task_id) if e["kind"] == "task.updated")


def reasons(events: list[dict], task_id: str) -> list[str]:
    return [e["reason"] for e in events if e["event"] == "repair" and e["task"] == task_id]


def test_a_semantic_conflict_is_updated_then_repaired(tmp_path):
    repo = make_repo(tmp_path / "repo", {"lib/__init__.py": "", "lib/util.py": UTIL, "app/main.py": MAIN})
    plan = write_plan(tmp_path / "plan.json", [
        task("rename", "write lib/util.py def helper2():\\n    return 1",
             "write app/main.py from lib.util import helper2\\n\\nprint(helper2())", own=["lib/**", "app/**"]),
        task("user", "@1 wait-merged rename", "@1 write new/feature.py from lib.util import helper\\n\\nx = helper()",
             "@repair write new/feature.py from lib.util import helper2\\n\\nx = helper2()", own=["new/**"]),
    ])
    code, events, summary = fanout(repo, plan, "r1", log=tmp_path / "log")
    assert code == 0, summary
    assert reasons(events, "user") == ["semantic"] and updates(repo, "user") == 1
    prompt = (repo / ".git/wtc/fanout/r1/user/run-2.prompt.md").read_text()
    assert "helper" in prompt and "rename" in prompt and "wtc then ran `wtc task update` for you" in prompt
    assert git(repo, "show", "wtc/r1/integration:new/feature.py") == "from lib.util import helper2\n\nx = helper2()"


def test_a_use_left_behind_is_repaired_without_an_update(tmp_path):
    repo = make_repo(tmp_path / "repo", {"lib/__init__.py": "", "lib/util.py": UTIL, "app/main.py": MAIN})
    plan = write_plan(tmp_path / "plan.json", [
        task("trim", "@1 write lib/util.py def other():\\n    return 2",
             "@repair write lib/util.py def helper():\\n    return 1\\n\\n\\ndef other():\\n    return 2",
             own=["lib/**"]),
    ])
    code, events, summary = fanout(repo, plan, "r1", log=tmp_path / "log")
    assert code == 0, summary
    assert reasons(events, "trim") == ["left_behind"] and updates(repo, "trim") == 0
    prompt = (repo / ".git/wtc/fanout/r1/trim/run-2.prompt.md").read_text()
    assert "app/main.py" in prompt and "helper" in prompt and "wtc then ran `wtc task update`" not in prompt
    assert "def other()" in git(repo, "show", "wtc/r1/integration:lib/util.py")


def test_markers_a_repair_left_are_repaired_again_without_a_second_update(tmp_path):
    repo = make_repo(tmp_path / "repo", {"shared/config.txt": "value = 0\n"})
    plan = write_plan(tmp_path / "plan.json", [
        task("first", "@1 write shared/config.txt value = first", "@2 keep-markers", own=["shared/**"]),
        task("second", "@1 wait-merged first", "@1 write shared/config.txt value = second", "@2 keep-markers",
             own=["shared/**"]),
    ])
    code, events, summary = fanout(repo, plan, "r1", log=tmp_path / "log")
    assert code == 0, summary
    assert count(tmp_path / "log") == {"first": 1, "second": 3}
    assert reasons(events, "second") == ["conflict", "unresolved_markers"] and updates(repo, "second") == 1
    assert sorted(git(repo, "show", "wtc/r1/integration:shared/config.txt").splitlines()) == \
        ["value = first", "value = second"]


def test_markers_left_in_a_file_a_grammar_reads_are_named_as_markers_not_as_broken_syntax(tmp_path):
    # Found driving wtc fanout on commander.js: a repair that left `task update`'s markers in lib/help.js
    # was told the file "does not parse" (reason unparsed), and only the attempt after that the markers.
    repo = make_repo(tmp_path / "repo", {"shared/config.py": "VALUE = 0\n"})
    plan = write_plan(tmp_path / "plan.json", [
        task("first", "@1 write shared/config.py VALUE = 1", own=["shared/**"]),
        task("second", "@1 wait-merged first", "@1 write shared/config.py VALUE = 2", "@2 keep-markers",
             own=["shared/**"]),
    ])
    code, events, summary = fanout(repo, plan, "r1", log=tmp_path / "log")
    assert code == 0, summary
    assert reasons(events, "second") == ["conflict", "unresolved_markers"] and updates(repo, "second") == 1
