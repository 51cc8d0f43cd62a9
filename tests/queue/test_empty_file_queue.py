"""Two tasks of one run filling one tracked empty file both land (issue 35, item 1.6)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import git, write
from worktree_coord.coordinator import Coordinator


def test_two_tasks_filling_one_empty_tracked_file_both_merge(repo: Path) -> None:
    write(repo, {"packages/core/helpers.py": "", "packages/api/routes.ts": "\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "empty modules to fill")
    with Coordinator(repo) as coord:
        coord.start_run("r1")
        for task, helper, route in (("one", "def one():\n    return 1\n", "export const ONE = '/one';\n"),
                                    ("two", "def two():\n    return 2\n", "export const TWO = '/two';\n")):
            worktree = Path(coord.start_task("r1", task, ["packages/**"]).worktree)
            write(worktree, {"packages/core/helpers.py": helper, "packages/api/routes.ts": route})
        assert coord.finish_task("r1", "one").state == "merged"
        second = coord.finish_task("r1", "two")
        assert second.state == "merged", second.conflicts
    helpers = git(repo, "show", "wtc/r1/integration:packages/core/helpers.py")
    assert helpers == "def one():\n    return 1\ndef two():\n    return 2"
    routes = git(repo, "show", "wtc/r1/integration:packages/api/routes.ts")
    assert routes == "export const ONE = '/one';\nexport const TWO = '/two';"
