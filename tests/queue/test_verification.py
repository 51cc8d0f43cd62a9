"""The verification gate: a candidate that fails the command is ejected and integration stays
green; batches are verified once and bisected to the culprit when they fail."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import git, write
from worktree_coord.coordinator import Coordinator

# The "test suite" of the project: fails when any file under packages/ contains BROKEN.
CHECK = "! grep -rq BROKEN packages"


@pytest.fixture
def coord(repo: Path):
    with Coordinator(repo) as coordinator:
        yield coordinator


def edit(coord: Coordinator, run: str, task: str, text: str) -> None:
    wt = Path(coord.start_task(run, task, [f"packages/{task}/**"]).worktree)
    write(wt, {f"packages/{task}/f.txt": text})


def test_verify_gate_ejects_a_breaking_task_and_keeps_integration_green(repo, coord):
    coord.start_run("r1", verify=CHECK)
    edit(coord, "r1", "good", "fine\n")
    assert coord.finish_task("r1", "good").state == "merged"
    tip = git(repo, "rev-parse", "wtc/r1/integration")
    edit(coord, "r1", "bad", "BROKEN\n")
    ejected = coord.finish_task("r1", "bad")
    assert ejected.state == "failed" and ejected.exit_code == 1
    record = coord.store.get_task("r1", "bad")
    assert record.result["reason"] == "failed_verification"
    assert record.result["verification"]["exit_code"] == 1
    assert git(repo, "rev-parse", "wtc/r1/integration") == tip, "integration did not move"
    assert [p.name for p in (coord.worktree_root() / "r1" / ".verify").iterdir()] == ["kept"], \
        "no scratch worktree but the run's kept one"
    assert git(repo, "for-each-ref", "refs/wtc/") == "", "candidate refs removed"
    # the agent fixes it: update brings the worktree back, finish merges
    updated = coord.update_task("r1", "bad")
    write(Path(updated.worktree), {"packages/bad/f.txt": "fixed\n"})
    assert coord.finish_task("r1", "bad").state == "merged"
    merged = coord.store.get_task("r1", "bad").result["merge"]
    assert merged["verification"]["ok"] is True


def test_a_finish_that_passed_verification_says_so(repo, coord):
    """Found driving wtc on pydantic with `run start --verify 'pytest ...'`: every finish printed only
    "merged into integration as ...", so nobody could tell the gate had run."""
    from worktree_coord.output.render import task_finished

    coord.start_run("r1", verify=CHECK)
    edit(coord, "r1", "good", "fine\n")
    done = coord.finish_task("r1", "good")
    assert done.state == "merged"
    assert f"  verified  `{CHECK}` passed in " in task_finished(done)


def test_a_task_that_failed_verification_can_be_abandoned_and_a_merged_one_cannot(repo, coord):
    from worktree_coord.errors import StateError

    coord.start_run("r1", verify=CHECK)
    edit(coord, "r1", "bad", "BROKEN\n")
    assert coord.finish_task("r1", "bad").state == "failed"
    gone = coord.abandon_task("r1", "bad")
    assert coord.store.get_task("r1", "bad").state.value == "abandoned"
    assert git(repo, "show", f"{gone.branch}:packages/bad/f.txt") == "BROKEN", "the branch keeps the work"
    edit(coord, "r1", "good", "fine\n")
    assert coord.finish_task("r1", "good").state == "merged"
    with pytest.raises(StateError) as refused:
        coord.abandon_task("r1", "good")
    assert "its work is in integration" in refused.value.fix


def test_batch_is_verified_once_and_bisected_to_the_culprit(repo, coord):
    coord.start_run("r1")
    names = ["t1", "t2", "t3", "t4", "t5", "t6"]
    for name in names:
        edit(coord, "r1", name, "BROKEN\n" if name == "t4" else f"{name}\n")
        assert coord.finish_task("r1", name, merge=False).state == "finished"
    report = coord.merge("r1", verify=CHECK, batch=4)
    states = {row["task"]: row["state"] for row in report.tasks}
    assert states == {"t1": "merged", "t2": "merged", "t3": "merged", "t4": "failed", "t5": "merged",
                      "t6": "merged"}
    assert report.exit_code == 1
    tree = git(repo, "ls-tree", "-r", "--name-only", "wtc/r1/integration")
    assert "packages/t4/f.txt" not in tree
    assert all(f"packages/{n}/f.txt" in tree for n in names if n != "t4")


def test_batch_without_a_verify_command_is_refused(repo, coord):
    from worktree_coord.errors import UsageError

    coord.start_run("r1")
    with pytest.raises(UsageError):
        coord.merge("r1", batch=3)


def test_a_batch_killed_after_integration_moved_is_recorded_merged_by_the_next_drain(repo, coord):
    """What `wtc merge --batch` killed between its move of integration and its records leaves (the
    crash point `merge.batch_advanced`): integration holds the task, its record says finished. The
    next drain merged it onto its candidate again, found it there already, and left it out: the
    task stayed finished for ever and a fanout waiting for its merge never ended."""
    from worktree_coord.coordinator import merge_queue as queue

    coord.start_run("r1", verify=CHECK)
    for name in ("t1", "t2"):
        edit(coord, "r1", name, f"{name}\n")
        assert coord.finish_task("r1", name, merge=False).state == "finished"
    t1 = coord.store.get_task("r1", "t1")
    run = coord.store.get_run("r1")
    coord._integrator().merge_into("refs/heads/wtc/r1/integration", coord._mergeable(t1), run.base,
                                   message="a killed batch's merge of t1", author=queue.signature())
    tip = git(repo, "rev-parse", "wtc/r1/integration")
    report = coord.merge("r1", verify=CHECK, batch=4)
    assert {row["task"]: row["state"] for row in report.tasks} == {"t1": "merged", "t2": "merged"}
    assert coord.store.get_task("r1", "t1").result["merge"]["already"] is True
    # t1 was not merged a second time: one merge commit names it.
    subjects = git(repo, "log", "--format=%s", "wtc/r1/integration").splitlines()
    assert [s for s in subjects if "merge" in s and "t1" in s] == ["a killed batch's merge of t1"], subjects
    assert git(repo, "rev-parse", "wtc/r1/integration^1") == tip


def test_a_task_finished_again_after_a_drain_ejected_it_commits_its_fix_and_merges(repo, coord):
    """`finish --no-merge` answered exit 0 and its answer was final: after a drain ejected the task
    (verification failed) and `task update` brought it back, the next `finish --no-merge` replayed
    "finished" without committing the fix, the task stayed started and the next drain found nothing."""
    coord.start_run("r1", verify=CHECK)
    edit(coord, "r1", "t1", "BROKEN\n")
    assert coord.finish_task("r1", "t1", merge=False).state == "finished"
    assert [row["state"] for row in coord.merge("r1", batch=2).tasks] == ["failed"]
    write(Path(coord.update_task("r1", "t1").worktree), {"packages/t1/f.txt": "fixed\n"})
    again = coord.finish_task("r1", "t1", merge=False)
    assert again.state == "finished" and not again.replayed
    assert [row["state"] for row in coord.merge("r1", batch=2).tasks] == ["merged"]
    assert git(repo, "show", "wtc/r1/integration:packages/t1/f.txt") == "fixed"
