"""`task check` between a `task update` that left markers and the finish: the merge git holds open
in the worktree (MERGE_HEAD) brings integration's files in, and those are not the task's changes.

Found driving wtc on networkx: after `task update` and resolving its markers, `task check` said
"OUTSIDE THE BOUNDARY: finish would reject 6 change(s)" (the files other tasks had merged) and
"conflict (7 files both changed)", told the agent to put them back, while `task finish` merged at
once. An agent that believed it would have reverted other tasks' work."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import git, make_repo, wtc_in_process

SERVICE = "def alpha(x):\n    return x + 1\n\n\ndef beta(x):\n    return x * 2\n"


def test_check_after_an_update_counts_only_the_tasks_own_changes(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"app/service.py": SERVICE, "lib/util.py": "X = 1\n", "README.md": "# r\n"})
    assert wtc_in_process(repo, "run", "start", "--run", "r1")[0] == 0
    trees = {}
    for name, own in (("a", "app/**"), ("b", "app/**"), ("other", "lib/**")):
        code, started = wtc_in_process(repo, "task", "start", name, "--run", "r1", "--own", own)
        assert code == 0, started
        trees[name] = Path(started["worktree"])
    (trees["a"] / "app/service.py").write_text(SERVICE.replace("x + 1", "x + 2"))
    (trees["b"] / "app/service.py").write_text(SERVICE.replace("x + 1", "x + 3"))
    (trees["other"] / "lib/util.py").write_text("X = 2\n")
    assert wtc_in_process(repo, "task", "finish", "other", "--run", "r1")[0] == 0
    assert wtc_in_process(repo, "task", "finish", "a", "--run", "r1")[0] == 0
    code, finished = wtc_in_process(repo, "task", "finish", "b", "--run", "r1")
    assert code == 1 and finished["state"] == "conflict", finished

    code, updated = wtc_in_process(repo, "task", "update", "b", "--run", "r1")
    assert code == 1 and updated["conflicted_paths"] == ["app/service.py"], updated
    assert git(trees["b"], "rev-parse", "-q", "--verify", "MERGE_HEAD")   # the merge is still open
    (trees["b"] / "app/service.py").write_text(SERVICE.replace("x + 1", "x + 2 + 3"))   # resolved, not committed

    code, checked = wtc_in_process(repo, "task", "check", "b", "--run", "r1")
    assert checked["violations"] == [], checked          # lib/util.py came in from integration
    assert checked["files"] == ["app/service.py"], checked
    assert code == 0 and checked["clean"], checked
    code, status = wtc_in_process(repo, "status", "--run", "r1")
    assert code == 0 and {t["task"]: t["files"] for t in status["tasks"]}["b"] == 1, status   # so does status
    code, finished = wtc_in_process(repo, "task", "finish", "b", "--run", "r1")
    assert code == 0 and finished["state"] == "merged", finished
    assert git(repo, "show", "wtc/r1/integration:app/service.py") == SERVICE.replace("x + 1", "x + 2 + 3").strip()


def test_check_after_an_update_in_a_sparse_worktree_keeps_files_integration_brought(tmp_path: Path) -> None:
    """Found driving wtc on pydantic: a `--sparse` task's update brought in a new test file another
    task had merged, outside its sparse cone; git stages it with the skip-worktree bit and writes
    nothing to disk, and `task check` read the missing file as a deletion ("OUTSIDE THE BOUNDARY:
    tests/test_alias_generators.py: deleted a path outside --own", exit 3) while finish merged it."""
    repo = make_repo(tmp_path / "repo", {"app/service.py": SERVICE, "tests/test_old.py": "X = 1\n", "README.md": "# r\n"})
    assert wtc_in_process(repo, "run", "start", "--run", "r1")[0] == 0
    code, a = wtc_in_process(repo, "task", "start", "a", "--run", "r1", "--own", "app/**", "--own", "tests/test_new.py")
    assert code == 0, a
    code, b = wtc_in_process(repo, "task", "start", "b", "--run", "r1", "--own", "app/**", "--sparse")
    assert code == 0, b
    tree_a, tree_b = Path(a["worktree"]), Path(b["worktree"])
    (tree_a / "app/service.py").write_text(SERVICE.replace("x + 1", "x + 2"))
    (tree_a / "tests/test_new.py").write_text("Y = 2\n")
    (tree_b / "app/service.py").write_text(SERVICE.replace("x + 1", "x + 3"))
    assert wtc_in_process(repo, "task", "finish", "a", "--run", "r1")[0] == 0
    assert wtc_in_process(repo, "task", "finish", "b", "--run", "r1")[0] == 1

    code, updated = wtc_in_process(repo, "task", "update", "b", "--run", "r1")
    assert code == 1 and updated["conflicted_paths"] == ["app/service.py"], updated
    assert not (tree_b / "tests/test_new.py").exists()    # staged, outside the sparse cone: not on disk
    (tree_b / "app/service.py").write_text(SERVICE.replace("x + 1", "x + 2 + 3"))

    code, checked = wtc_in_process(repo, "task", "check", "b", "--run", "r1")
    assert checked["violations"] == [], checked
    assert checked["files"] == ["app/service.py"], checked
    assert code == 0 and checked["clean"], checked
    code, status = wtc_in_process(repo, "status", "--run", "r1")
    assert code == 0 and {t["task"]: t["files"] for t in status["tasks"]}["b"] == 1, status
    code, finished = wtc_in_process(repo, "task", "finish", "b", "--run", "r1")
    assert code == 0 and finished["state"] == "merged", finished
    assert git(repo, "show", "wtc/r1/integration:tests/test_new.py") == "Y = 2"
