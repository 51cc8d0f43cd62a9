"""`wtc merge` moves integration once per drain: one compare-and-swap from the tip the drain
started from, each task still recorded with its own merge commit, a crash on either side of the
one move recovered by the next drain, and a drain that lost the race merging each task alone."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pygit2
import pytest

from tests.conftest import git, write, wtc
from worktree_coord.coordinator import Coordinator
from worktree_coord.events import ListReporter

INTEGRATION = "wtc/r1/integration"
TASKS = ("a", "b", "c")


def merge_commits(repo: Path) -> list[str]:
    base = git(repo, "rev-parse", "main")
    return git(repo, "rev-list", "--merges", "--first-parent", f"{base}..{INTEGRATION}").split()


def reflog(repo: Path) -> list[str]:
    return git(repo, "reflog", "show", "--format=%H %gs", INTEGRATION).splitlines()


def finished(repo: Path, names=TASKS) -> None:
    """Tasks finished without merging (what a drain finds waiting)."""
    with Coordinator(repo) as coord:
        coord.start_run("r1")
        for name in names:
            wt = Path(coord.start_task("r1", name, [f"packages/{name}/**"]).worktree)
            write(wt, {f"packages/{name}/f.txt": f"{name}\n"})
            assert coord.finish_task("r1", name, merge=False).state == "finished"


def test_a_drain_moves_integration_once_and_records_each_task_with_its_own_commit(repo):
    finished(repo)
    before = reflog(repo)
    with Coordinator(repo) as coord:
        report = coord.merge("r1")
        records = {t.task_id: t.result["merge"] for t in coord.store.list_tasks("r1")}
    assert [row["state"] for row in report.tasks] == ["merged"] * 3
    assert len(reflog(repo)) == len(before) + 1, "one move of integration for the whole drain"
    commits = merge_commits(repo)[::-1]   # oldest first
    assert len(commits) == 3
    order = [row["task"] for row in report.tasks]
    # Each task's record names its own merge commit, and the tips chain from the drain's start.
    start = git(repo, "rev-parse", "main")
    for name, commit in zip(order, commits):
        assert records[name]["merge_commit"] == commit == records[name]["new_tip"]
        assert records[name]["old_tip"] == start and records[name]["already"] is False
        start = commit
    assert git(repo, "rev-parse", INTEGRATION) == commits[-1] == report.tip
    for name in TASKS:
        assert git(repo, "show", f"{INTEGRATION}:packages/{name}/f.txt") == name


@pytest.mark.parametrize("point", ["merge.after_commit_written", "merge.after_ref_moved"])
def test_a_drain_killed_on_either_side_of_its_one_move_is_finished_by_the_next(repo, point):
    finished(repo)
    killed = subprocess.run([sys.executable, "-m", "worktree_coord", "merge", "--run", "r1", "--json"],
                            cwd=repo, env=dict(os.environ, WTC_CRASH_AT=point), capture_output=True)
    assert killed.returncode == -9
    # Before the move nothing is on integration; after it every task is, none recorded yet.
    assert len(merge_commits(repo)) == (0 if point == "merge.after_commit_written" else 3)
    with Coordinator(repo) as coord:
        assert {t.state.value for t in coord.store.list_tasks("r1")} == {"finished"}
    code, drained = wtc(repo, "merge", "--run", "r1")
    assert code == 0 and [row["state"] for row in drained["tasks"]] == ["merged"] * 3
    assert len(merge_commits(repo)) == 3, "each task merged exactly once"
    code, again = wtc(repo, "merge", "--run", "r1")
    assert code == 0 and again["tasks"] == []
    for name in TASKS:
        assert git(repo, "show", f"{INTEGRATION}:packages/{name}/f.txt") == name


def test_a_drain_records_its_merges_in_one_write_so_a_kill_after_it_leaves_none_unrecorded(repo):
    """The records of the merges one move published are one store transaction: killed as soon as a
    task is recorded merged (crash point `task.written.merged`), every task of the drain is, each
    with its own merge commit and its one `task.merged` event, and the next drain has nothing to do."""
    finished(repo)
    killed = subprocess.run([sys.executable, "-m", "worktree_coord", "merge", "--run", "r1", "--json"],
                            cwd=repo, env=dict(os.environ, WTC_CRASH_AT="task.written.merged"), capture_output=True)
    assert killed.returncode == -9
    commits = merge_commits(repo)[::-1]
    with Coordinator(repo) as coord:
        records = {t.task_id: (t.state.value, (t.result.get("merge") or {}).get("merge_commit"))
                   for t in coord.store.list_tasks("r1")}
        events = [e["task_id"] for e in coord.store.events("r1") if e["kind"] == "task.merged"]
    assert sorted(state for state, _ in records.values()) == ["merged"] * 3
    assert sorted(commit for _, commit in records.values()) == sorted(commits) and len(commits) == 3
    assert sorted(events) == sorted(TASKS)
    code, again = wtc(repo, "merge", "--run", "r1")
    assert code == 0 and again["tasks"] == []


class _MovesIntegration(ListReporter):
    """Moves integration (a commit on top of it, as another merger's would be) when the drain has
    built its second merge: the drain's one compare-and-swap then finds the ref moved."""

    def __init__(self, repo: Path):
        super().__init__()
        self.repo = pygit2.Repository(str(repo))
        self.moved = False

    def event(self, kind: str, **data) -> None:
        super().event(kind, **data)
        if kind == "merge.end" and data.get("drain") and data.get("task") == "b" and not self.moved:
            self.moved = True
            ref = self.repo.references[f"refs/heads/{INTEGRATION}"]
            tip = self.repo[ref.target]
            builder = self.repo.TreeBuilder(tip.tree)
            builder.insert("other.txt", self.repo.create_blob(b"landed meanwhile\n"), pygit2.GIT_FILEMODE_BLOB)
            who = pygit2.Signature("other", "other@x")
            ref.set_target(self.repo.create_commit(None, who, who, "landed meanwhile", builder.write(), [tip.id]))


def test_a_drain_that_lost_the_race_merges_each_task_alone_onto_the_new_tip(repo):
    finished(repo)
    reporter = _MovesIntegration(repo)
    with Coordinator(repo, reporter=reporter) as coord:
        report = coord.merge("r1")
    assert reporter.moved
    assert [row["state"] for row in report.tasks] == ["merged"] * 3
    assert git(repo, "show", f"{INTEGRATION}:other.txt") == "landed meanwhile"
    for name in TASKS:
        assert git(repo, "show", f"{INTEGRATION}:packages/{name}/f.txt") == name
    # Nothing of the lost drain is on integration: the three merges came after the other commit.
    log = git(repo, "log", "--first-parent", "--format=%s", INTEGRATION).splitlines()
    assert log[3] == "landed meanwhile" and all("merge task" in line for line in log[:3])


def test_a_task_verified_again_goes_alone_in_the_middle_of_a_drain(repo):
    """A task that failed verification is verified again when a drain reaches it: what merged
    before it is published first, it is verified and moved alone, and the drain goes on after it."""
    with Coordinator(repo) as coord:
        coord.start_run("r1")
        wt = Path(coord.start_task("r1", "a", ["packages/a/**"]).worktree)
        write(wt, {"packages/a/f.txt": "a\n"})
        assert coord.finish_task("r1", "a", merge=False).state == "finished"
        wt = Path(coord.start_task("r1", "b", ["packages/b/**"]).worktree)
        write(wt, {"packages/b/f.txt": "b\n"})
        assert coord.finish_task("r1", "b", verify="test -f packages/b/ok").state == "failed"
        wt = Path(coord.update_task("r1", "b").worktree)
        write(wt, {"packages/b/ok": "fixed\n"})
        assert coord.finish_task("r1", "b", merge=False).state == "finished"
        wt = Path(coord.start_task("r1", "c", ["packages/c/**"]).worktree)
        write(wt, {"packages/c/f.txt": "c\n"})
        assert coord.finish_task("r1", "c", merge=False).state == "finished"
        before = reflog(repo)
        report = coord.merge("r1")
        records = {t.task_id: t.result for t in coord.store.list_tasks("r1")}
    assert [(row["task"], row["state"]) for row in report.tasks] == [("a", "merged"), ("b", "merged"), ("c", "merged")]
    assert records["b"]["merge"]["verification"]["ok"] is True
    assert len(reflog(repo)) == len(before) + 3, "a's drain, b alone (verified), c's drain"
    assert len(merge_commits(repo)) == 3
    for name in ("a", "b", "c"):
        assert git(repo, "show", f"{INTEGRATION}:packages/{name}/f.txt") == name
