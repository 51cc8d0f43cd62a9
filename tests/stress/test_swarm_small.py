"""The swarm stress harness at CI size: 16 agents x 100 tasks through the real `wtc` command line,
with 20% of calls repeated under their key and 5% of wtc processes SIGKILLed, then a drain and a gc;
every invariant is read back from git and must hold.

The full-size run (64 x 1,000) is `python scripts/stress_swarm.py`; this is the same code, smaller.
"""

from __future__ import annotations

import json

from pathlib import Path

import pytest

from tests.stress.harness import load_script

stress = load_script("stress_swarm")


@pytest.mark.heavy
@pytest.mark.slow
@pytest.mark.timeout(400)
def test_swarm_16_workers_100_tasks_keeps_every_invariant(tmp_path):
    # The script's defaults: `wtc gc` runs beside the agents, and kills take whole process groups
    # (git with its wtc process), the races behind scripts/STRESS.md findings 1-6.
    config = stress.SwarmConfig(workers=16, tasks=100, retry_rate=0.20, kill_rate=0.05, seed=11,
                                packages=40, files=5, drain_interval=5.0, gc_during=True,
                                kill_scope="mixed", workdir=str(tmp_path))
    plans = stress.plan_tasks(config)
    assert sum(p.hot is not None for p in plans) >= stress.HOT_GROUP, "the plan must hold a same-lines conflict"
    assert sum(p.slot is not None for p in plans) >= 10, "the plan must share a module between tasks"
    report = stress.run_swarm(config, log=lambda *_: None)
    failed = [f"{v.name}: {v.detail} {list(v.examples)}" for v in report.verdicts if not v.ok]
    assert not failed, "\n".join(failed)
    assert len(report.verdicts) == 11
    # The run really exercised what it claims: kills landed, repeats ran, conflicts happened.
    assert report.counts["killed"] >= 1
    assert report.counts["repeats"] >= 10
    assert report.counts["hangs"] == 0
    status = stress._status(Path(report.repo))
    assert status["counts"].get("conflict", 0) == stress.HOT_GROUP - 1
    assert status["counts"].get("merged", 0) == 100 - (stress.HOT_GROUP - 1)


def test_plan_is_deterministic_and_keeps_tasks_of_one_package_apart():
    config = stress.SwarmConfig(tasks=300, packages=50, files=8, seed=5)
    first, second = stress.plan_tasks(config), stress.plan_tasks(config)
    assert first == second
    modules = [p.module for p in first]
    assert len(set(modules)) == len(modules), "two tasks edit one module"
    slots = [p.slot for p in first if p.slot is not None]
    assert len(set(slots)) == len(slots), "a shared-module slot is given twice"
    groups: dict[int, int] = {}
    for plan in first:
        if plan.hot is not None:
            groups[plan.hot] = groups.get(plan.hot, 0) + 1
    assert groups and set(groups.values()) == {stress.HOT_GROUP}


def test_edits_carry_the_token_exactly_as_counted(tmp_path):
    config = stress.SwarmConfig(tasks=30, packages=5, files=8, seed=3, shared_rate=1.0, hot_rate=0.1,
                                reserved_rate=1.0)
    plans = stress.plan_tasks(config)
    stress.build_repo(tmp_path / "repo", config, plans)
    plan = next(p for p in plans if p.hot is not None)
    stress.apply_edits(tmp_path / "repo", plan)
    stress._git(tmp_path / "repo", "add", "-A")
    tree = stress._git(tmp_path / "repo", "write-tree").strip()
    counts = stress.tree_tokens(tmp_path / "repo", tree)
    assert counts == {plan.task: plan.expected_tokens}
    # the reserved root package.json gains a dependency, which becomes an intent and never merges
    manifest = json.loads((tmp_path / "repo" / "package.json").read_text())
    assert manifest["devDependencies"] == {f"stress-{plan.task}": "^1.0.0"}


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_sweep_kills_finish_during_the_worktree_removal_and_gc_runs_before_the_repeat(tmp_path):
    """Issue 19: a finish killed while its worktree is being removed, a `wtc gc` before the agent's
    repeat; the gc must not commit the leftover and every invariant must hold."""
    config = stress.SwarmConfig(packages=4, files=4, seed=19, workdir=str(tmp_path))
    report = stress.run_sweep(config, 0, log=lambda *_: None, ops=("task.finish",), points=stress.REMOVAL_POINTS)
    failed = [f"{v.name}: {v.detail} {list(v.examples)}" for v in report.verdicts if not v.ok]
    assert not failed, "\n".join(failed)
    calls = [json.loads(line) for line in (tmp_path / "calls.jsonl").read_text().splitlines()]
    crashed = [c for c in calls if c["killed"] == "crash-point"]
    assert len(crashed) == len(stress.REMOVAL_POINTS) == 2, "both removal points were reached"
    gcs = [c for c in calls if c["op"] == "gc"]
    assert len(gcs) == 3 and all(c["exit"] == 0 for c in gcs), "a gc after each kill, and the final one"
    assert all(c["body"]["snapshots"] == [] for c in gcs)
    assert any(c["body"]["tombstones_removed"] for c in gcs), "a kill left a tombstone and gc removed it"


def test_a_merge_of_a_gcd_branch_is_not_taken_for_a_live_task_still_at_the_pin(tmp_path):
    """The invariants name a merge's task by its branch tip (or, once `wtc gc` deleted a merged
    task's branch, by the merged commit's author). A started task that committed nothing has its
    branch at the pin, which is also the parent of every merged task commit: it must not be read as
    the task behind those merges (one such task once named all 97 merges of a swarm as its own)."""
    config = stress.SwarmConfig(tasks=2, packages=2, files=3, seed=7, shared_rate=0.0, hot_rate=0.0,
                                reserved_rate=0.0, no_merge_rate=0.0, sparse_rate=0.0)
    merged, live = stress.plan_tasks(config)
    repo = tmp_path / "repo"
    pin = stress.build_repo(repo, config, [merged, live])
    caller = stress.Caller(repo, config, stress.random.Random(1), None)

    def call(*args: str) -> dict:
        done = caller._finish(caller._spawn(list(args), None), args[0], None, stress.time.monotonic(), "first")
        assert done.exit == 0, stress._brief(done)
        return done.body

    call("run", "start", "--run", stress.RUN_ID)
    worktrees = {plan.task: Path(call("task", "start", plan.task, "--run", stress.RUN_ID,
                                      *sum((["--own", g] for g in plan.own), []))["worktree"])
                 for plan in (merged, live)}
    stress.apply_edits(worktrees[merged.task], merged)
    assert call("task", "finish", merged.task, "--run", stress.RUN_ID)["state"] == "merged"
    call("gc")
    branches = stress._git(repo, "for-each-ref", "--format=%(objectname) %(refname:short)", "refs/heads/wtc/")
    assert f"{pin} wtc/{stress.RUN_ID}/{live.task}" in branches.splitlines(), "the live task's branch is at the pin"
    assert f"wtc/{stress.RUN_ID}/{merged.task}" not in branches, "gc deleted the merged task's branch"
    outcomes = {merged.task: stress.TaskOutcome(merged.task, [], [], final_state="merged")}
    verdicts = {v.name: v for v in stress.check_invariants(repo, pin, [merged, live], outcomes, [],
                                                           repo / ".wtc" / "worktrees")}
    once = verdicts["merged exactly once (git)"]
    assert once.ok and once.detail.startswith("1 tasks merged by 1 first-parent commits"), once
    assert verdicts["each merged change present once (tree)"].ok, verdicts["each merged change present once (tree)"]
    told = verdicts["every task's state told by its events"]
    assert told.ok and told.detail.startswith("2 tasks"), told

    # A merged record whose event is gone (what a kill between two writes left before they were one):
    # the invariant names it.
    with stress.sqlite3.connect(repo / ".git" / "wtc" / "state.sqlite3") as db:
        assert db.execute("DELETE FROM events WHERE task_id = ? AND kind = 'task.merged'", (merged.task,)).rowcount == 1
    verdicts = {v.name: v for v in stress.check_invariants(repo, pin, [merged, live], outcomes, [],
                                                           repo / ".wtc" / "worktrees")}
    told = verdicts["every task's state told by its events"]
    assert not told.ok and told.examples[0].startswith(f"{merged.task}: merged, no task.merged"), told


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_the_kill_sweep_on_the_warm_path_keeps_every_invariant(tmp_path):
    """Issue 36: every call handed to `wtc serve`; start, finish and merge killed mid-call (the caller,
    alone or with its group: the served call dies with it) and at every named crash point (the call's
    process SIGKILLs itself in the server's child); every invariant must hold as on the CLI path."""
    config = stress.SwarmConfig(packages=4, files=4, seed=36, workdir=str(tmp_path), serve=True)
    report = stress.run_sweep(config, 1, log=lambda *_: None)
    failed = [f"{v.name}: {v.detail} {list(v.examples)}" for v in report.verdicts if not v.ok]
    assert not failed, "\n".join(failed)
    assert report.path == "served"
    calls = [json.loads(line) for line in (tmp_path / "calls.jsonl").read_text().splitlines()]
    assert sum(c["killed"] == "crash-point" for c in calls) >= 8, "the crash points were reached in served calls"
