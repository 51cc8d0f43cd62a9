"""What `task update` and `task finish` say reads once and right.

- A second `wtc task update` over markers the first left (the agent has not resolved them yet)
  listed the file and nothing more: the why the first gave (Gemfile.lock is Bundler's lockfile,
  take integration's version and regenerate it) was gone. It is said again with each update.
- A finish's text named two commits as "task t: merged at X" and "merged into integration as Y",
  which read as two merges: now the task's commit and integration's merge commit, each once, said whose.
Real repositories, the real faces (`wtc task update`, `wtc task finish`, the text renderer)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import make_repo, write, wtc_in_process
from worktree_coord.output.render import task_finished
from worktree_coord.results import TaskFinished

GEMFILE = "source 'https://rubygems.org'\n\ngem 'rake'\n"
LOCK = ("GEM\n  remote: https://rubygems.org/\n  specs:\n    rake (13.0.6)\n{specs}\nPLATFORMS\n  ruby\n\n"
        "DEPENDENCIES\n  rake\n{deps}\nBUNDLED WITH\n   2.3.15\n")


def test_a_second_update_says_again_why_the_markers_it_keeps_are_there(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"Gemfile": GEMFILE, "Gemfile.lock": LOCK.format(specs="", deps="")})
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    for task, gem in (("a", "rubocop"), ("b", "yard")):
        code, started = wtc_in_process(repo, "task", "start", task, "--run", "r", "--own", "**")
        assert code == 0, started
        write(Path(started["worktree"]), {"Gemfile": GEMFILE + f"gem '{gem}'\n",
                                          "Gemfile.lock": LOCK.format(specs=f"    {gem} (1.0.0)\n", deps=f"  {gem}\n")})
    assert wtc_in_process(repo, "task", "finish", "a", "--run", "r")[1]["state"] == "merged"
    assert wtc_in_process(repo, "task", "finish", "b", "--run", "r")[1]["state"] == "conflict"
    code, first = wtc_in_process(repo, "task", "update", "b", "--run", "r")
    assert code == 1 and first["conflicted_paths"] == ["Gemfile.lock"], first
    [why] = [n for n in first["notes"] if n.startswith("Gemfile.lock keeps conflict markers because Gemfile.lock is "
                                                       "Bundler's lockfile")]
    code, second = wtc_in_process(repo, "task", "update", "b", "--run", "r")
    assert code == 1 and second["conflicted_paths"] == ["Gemfile.lock"], second
    again = [n for n in second["notes"] if n.startswith("Gemfile.lock still holds the conflict markers an earlier "
                                                         "`wtc task update` left, because ")]
    assert len(again) == 1 and again[0].split("because ", 1)[1] == why.split("because ", 1)[1], second["notes"]
    assert "`bundle lock --local`" in again[0]


def test_a_finish_names_the_task_commit_and_the_merge_commit_once_each(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"src/a.py": "A = 1\n"})
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    code, started = wtc_in_process(repo, "task", "start", "t", "--run", "r", "--own", "src/**")
    write(Path(started["worktree"]), {"src/a.py": "A = 2\n"})
    code, done = wtc_in_process(repo, "task", "finish", "t", "--run", "r")
    assert code == 0 and done["state"] == "merged", done
    text = task_finished(TaskFinished.from_json(done))
    task_commit, merge_commit = done["commit"][:12], done["merge"]["merge_commit"][:12]
    assert task_commit != merge_commit
    assert text.splitlines()[0] == f"task t: merged (task commit {task_commit})", text
    assert f"  merged into integration as merge commit {merge_commit}" in text.splitlines(), text
    assert text.count(task_commit) == 1 and text.count(merge_commit) == 1, text
