"""A task started again answers its real state, never a replay of a state that no longer holds.

Harnesses re-run agents on resume (Claude Code's workflows re-run every agent started after the
first unfinished one), so a second `task start` of one name is the normal path: merged or empty
tasks answer that (no worktree, nothing to do), live ones get their own worktree back (re-created
when the folder went missing), a conflict gets its worktree and the way on, and a failed one is
told to update. Also: a task whose only change is an intent declared with `wtc intent add` merges,
and the intent applies (it was dropped as `empty`)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import git, wtc_in_process, write
from worktree_coord.coordinator import Coordinator
from worktree_coord.errors import StateError, UsageError
from worktree_coord.model import TaskState


@pytest.fixture
def coord(repo: Path):
    with Coordinator(repo) as coordinator:
        yield coordinator


def test_a_merged_task_started_again_answers_merged_without_a_dead_worktree(repo, coord):
    coord.start_run("r")
    first = coord.start_task("r", "api", ["packages/api/**"])
    write(Path(first.worktree), {"packages/api/index.js": "export function api() {\n  return 42;\n}\n"})
    assert coord.finish_task("r", "api").state == "merged"
    tip = git(repo, "rev-parse", "wtc/r/integration")

    again = coord.start_task("r", "api", ["packages/api/**"])
    assert again.existing and again.state == "merged" and again.exit_code == 0
    assert again.worktree == ""                       # no path that was removed at finish
    assert not Path(first.worktree).exists()
    assert again.last_finish is not None and again.last_finish["merge"]["new_tip"] == tip
    assert any("already merged" in note and tip[:12] in note and "packages/api/index.js" in note
               for note in again.notes)
    assert coord.store.get_task("r", "api").state is TaskState.MERGED   # nothing changed


def test_the_cli_start_of_a_merged_task_says_merged_in_json_and_text(repo):
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    code, started = wtc_in_process(repo, "task", "start", "docs", "--run", "r", "--own", "docs/**")
    write(Path(started["worktree"]), {"docs/guide.md": "guide, better\n"})
    assert wtc_in_process(repo, "task", "finish", "docs", "--run", "r")[0] == 0

    code, again = wtc_in_process(repo, "task", "start", "docs", "--run", "r", "--own", "docs/**")
    assert code == 0 and again["state"] == "merged" and again["existing"] is True
    assert again["worktree"] == "" and again["replayed"] is False
    import subprocess
    import sys

    text = subprocess.run([sys.executable, "-m", "worktree_coord", "task", "start", "docs", "--run", "r",
                           "--own", "docs/**"], cwd=repo, capture_output=True, text=True)
    assert text.returncode == 0
    assert "docs: merged" in text.stdout and "nothing to do" in text.stdout
    assert "worktree  " not in text.stdout and "repeat: the stored result" not in text.stdout


def test_a_live_task_started_again_gets_its_worktree_with_uncommitted_work(repo, coord):
    coord.start_run("r")
    first = coord.start_task("r", "api", ["packages/api/**"])
    write(Path(first.worktree), {"packages/api/wip.js": "export const wip = 1;\n"})

    again = coord.start_task("r", "api", ["packages/api/**"])
    assert again.existing and again.state == "started" and again.exit_code == 0
    assert again.worktree == first.worktree
    assert (Path(again.worktree) / "packages/api/wip.js").read_text() == "export const wip = 1;\n"
    assert any("as it was (uncommitted work kept)" in note for note in again.notes)


def test_a_live_task_whose_folder_went_missing_gets_it_re_created_with_its_commits(repo, coord):
    coord.start_run("r")
    first = coord.start_task("r", "api", ["packages/api/**"])
    write(Path(first.worktree), {"packages/api/done.js": "export const done = 1;\n"})
    git(Path(first.worktree), "add", "-A")
    git(Path(first.worktree), "commit", "-q", "-m", "work")
    shutil.rmtree(first.worktree)                      # a harness cleaned its folder up, say

    again = coord.start_task("r", "api", ["packages/api/**"])
    assert again.worktree == first.worktree and Path(again.worktree).is_dir()
    assert (Path(again.worktree) / "packages/api/done.js").is_file()
    assert (Path(again.worktree) / ".wtc/task.json").is_file()
    assert any("re-created" in note for note in again.notes)
    assert coord.finish_task("r", "api").state == "merged"


def test_a_task_in_conflict_started_again_gets_its_own_work_and_the_way_on(repo, coord):
    coord.start_run("r")
    a = coord.start_task("r", "a", ["packages/api/index.js"])
    b = coord.start_task("r", "b", ["packages/api/index.js"])
    write(Path(a.worktree), {"packages/api/index.js": "export function api() {\n  return 10;\n}\n"})
    write(Path(b.worktree), {"packages/api/index.js": "export function api() {\n  return 20;\n}\n"})
    assert coord.finish_task("r", "a").state == "merged"
    assert coord.finish_task("r", "b").state == "conflict"
    assert not Path(b.worktree).exists()

    again = coord.start_task("r", "b", ["packages/api/index.js"])
    assert again.state == "conflict" and again.exit_code == 1 and again.existing
    assert "return 20" in (Path(again.worktree) / "packages/api/index.js").read_text()   # its own work
    assert again.last_finish is not None and again.last_finish["conflicts"]
    assert any("wtc task update b --run r" in note and "packages/api/index.js" in note for note in again.notes)


def test_a_failed_task_started_again_is_told_to_update(repo, coord):
    coord.start_run("r")
    t = coord.start_task("r", "api", ["packages/api/**"])
    write(Path(t.worktree), {"packages/api/index.js": "export function api() {\n  return 5;\n}\n"})
    assert coord.finish_task("r", "api", verify="false").state == "failed"

    again = coord.start_task("r", "api", ["packages/api/**"])
    assert again.state == "failed" and again.exit_code == 1 and again.worktree == ""
    assert any("wtc task update api --run r" in note for note in again.notes)


def test_an_abandoned_task_cannot_be_started_again_and_says_where_its_work_is(repo, coord):
    coord.start_run("r")
    coord.start_task("r", "api", ["packages/api/**"])
    coord.abandon_task("r", "api")
    with pytest.raises(StateError) as refused:
        coord.start_task("r", "api", ["packages/api/**"])
    assert "abandoned" in str(refused.value) and "wtc/r/api" in refused.value.fix


def test_a_task_whose_only_change_is_a_declared_intent_merges_and_the_intent_applies(tmp_path):
    from tests.conftest import make_repo

    repo = make_repo(tmp_path / "py", {"pyproject.toml": '[project]\nname = "p"\nversion = "1"\n'
                                                         'dependencies = ["idna>=3.0"]\n',
                                       "docs/a.md": "a\n"})
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    assert wtc_in_process(repo, "task", "start", "p3", "--run", "r", "--own", "docs/**")[0] == 0
    code, _ = wtc_in_process(repo, "intent", "add", "p3", "--run", "r", "--manifest", "pyproject.toml", "--op", "set_spec",
                  "--name", "idna", "--spec", ">=3.7")
    assert code == 0
    code, finished = wtc_in_process(repo, "task", "finish", "p3", "--run", "r")
    assert code == 0 and finished["state"] == "merged"            # it was "empty", its intent never applied
    assert [i["name"] for i in finished["intents"]] == ["idna"] and finished["intents"][0]["state"] == "declared"
    assert any("wtc consolidate --run r" in note for note in finished["notes"])

    code, report = wtc_in_process(repo, "consolidate", "--run", "r", "--offline")
    assert code == 0, report
    assert "idna>=3.7" in git(repo, "show", "wtc/r/integration:pyproject.toml")


def test_a_task_with_no_change_and_no_intent_is_still_empty(repo, coord):
    coord.start_run("r")
    coord.start_task("r", "idle", ["docs/**"])
    assert coord.finish_task("r", "idle").state == "empty"


def test_a_widened_task_started_again_with_its_first_flags_is_the_same_task(repo, coord):
    """Found extending the lead's-path test: the lead widened a task, its agent was re-run with the
    flags it started with, and the start answered exit 2 (the derived key's first request differed;
    then "already exists with another boundary"). The widened task covers those flags: it is the
    task as it is now; a boundary it does not cover is still refused."""
    coord.start_run("r")
    first = coord.start_task("r", "api", ["packages/api/**"])
    coord.widen_task("r", "api", ["docs/**"], why="its docs")
    again = coord.start_task("r", "api", ["packages/api/**"])
    assert again.existing and again.worktree == first.worktree
    assert again.boundary["own"] == ["packages/api/**", "docs/**"]
    with pytest.raises(UsageError, match="another boundary"):
        coord.start_task("r", "api", ["packages/web/**"])
