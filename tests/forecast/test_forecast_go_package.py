"""The forecast's file merges read a Go file's package in both trees (issue 35, 1.11).

A file merge alone cannot tell whether a Go function one side removed from a file is still defined
in another file of its package; `merge_file` reports such a use unless its caller reads the package.
The forecast reads it in the two trees it merges: a function moved to another file is no conflict,
one removed outright is (as the merge queue finds it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import make_repo, write
from worktree_coord import Coordinator

UTIL = ("package util\n\nimport \"strings\"\n\nfunc helper(s string) string {\n\treturn strings.TrimSpace(s)\n}\n\n"
        "func Clean(s string) string {\n\treturn helper(s)\n}\n")
DELETED = "package util\n\nimport \"strings\"\n\nfunc Clean(s string) string {\n\treturn strings.TrimSpace(s)\n}\n"
CALLING = UTIL + "\nfunc Words(s string) []string {\n\treturn strings.Fields(helper(s))\n}\n"
OTHER = "package util\n\nfunc Other() int {\n\treturn 1\n}\n"


@pytest.fixture
def coordinator(tmp_path: Path):
    repo = make_repo(tmp_path / "repo", {"pkg/util/util.go": UTIL, "pkg/util/other.go": OTHER, "go.mod": "module x\n"})
    with Coordinator(repo) as coordinator:
        coordinator.start_run(run_id="r1")
        yield coordinator


def start(coordinator: Coordinator, task: str) -> Path:
    return Path(coordinator.start_task("r1", task, ["pkg/**"]).worktree)


def test_a_function_moved_to_another_file_of_the_package_is_no_conflict(coordinator):
    mover, caller = start(coordinator, "mover"), start(coordinator, "caller")
    write(mover, {"pkg/util/util.go": DELETED,
                  "pkg/util/other.go": OTHER + "\nfunc helper(s string) string {\n\treturn s\n}\n"})
    write(caller, {"pkg/util/util.go": CALLING})
    assert coordinator.forecast("r1").conflicts == []


def test_a_function_removed_from_the_package_is_a_semantic_conflict(coordinator):
    remover, caller = start(coordinator, "remover"), start(coordinator, "caller")
    write(remover, {"pkg/util/util.go": DELETED})
    write(caller, {"pkg/util/util.go": CALLING})
    conflicts = coordinator.forecast("r1").conflicts
    assert [(c["path"], c["kind"]) for c in conflicts] == [("pkg/util/util.go", "semantic")]
    assert "uses helper" in conflicts[0]["detail"]
