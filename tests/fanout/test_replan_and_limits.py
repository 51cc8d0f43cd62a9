"""A plan that changed since the run began is refused with the differences listed, then taken with
--replan (added tasks run, removed tasks that never started are dropped, finished ones stay, a
removed live one is left as it is); the limits (--max-agents, --agent-timeout) stop with a message
naming the option; bad input is refused before anything runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import git, make_repo
from tests.fanout.helpers import count, fanout, task, write_plan
from worktree_coord.coordinator import Coordinator


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"README.md": "# r\n", "pkg/keep.txt": "keep\n"})


def test_a_changed_plan_is_refused_listing_the_changes_then_taken_with_replan(repo, tmp_path):
    log = tmp_path / "standin.log"
    first = write_plan(tmp_path / "v1.json", [
        task("done", "write pkg/done/x.txt v1"),
        task("stuck", "crash 5", attempts=1),
        task("waits", "write pkg/waits/x.txt", depends_on=["stuck"]),     # blocked: never started
        task("dropped-live", "write pkg/dropped-live/x.txt wip", "crash 6", attempts=1),
    ])
    code, _, summary = fanout(repo, first, "r1", log=log)
    assert code == 1
    assert {t["task"]: t["outcome"] for t in summary["tasks"]} == {
        "done": "merged", "stuck": "lead", "waits": "blocked", "dropped-live": "lead"}

    second = write_plan(tmp_path / "v2.json", [
        task("done", "write pkg/done/x.txt v2"),                            # changed, but it merged: it stays
        task("stuck", "write pkg/stuck/x.txt fixed", attempts=2),           # one more attempt, a prompt that works
        task("new", "write pkg/new/x.txt added"),
    ])
    before = count(log)
    code, _, error = fanout(repo, second, "r1", log=log)
    assert code == 2 and error["schema"] == "wtc.error/1"
    message = error["error"]["message"]
    assert "the plan changed since run 'r1' began" in message
    for line in ("tasks added: new", "tasks removed: dropped-live, waits", "task 'stuck' attempts: 1 -> 2",
                 "task 'done' prompt:"):
        assert line in message, message
    assert "--replan" in error["error"]["fix"] and error["error"]["details"]["changes"]
    assert count(log) == before                                              # nothing ran

    code, _, summary = fanout(repo, second, "r1", "--replan", log=log)
    outcomes = {t["task"]: t for t in summary["tasks"]}
    assert outcomes["done"]["outcome"] == "merged" and count(log)["done"] == 1      # not run again
    assert outcomes["stuck"]["outcome"] == "merged" and outcomes["stuck"]["attempts_used"] == 2
    assert outcomes["new"]["outcome"] == "merged"
    assert "waits" not in outcomes                                                   # never started: dropped
    assert outcomes["dropped-live"]["outcome"] == "removed" and "wtc task abandon" in outcomes["dropped-live"]["report"]
    assert code == 1                                                                  # the removed live task
    assert git(repo, "show", "wtc/r1/integration:pkg/done/x.txt") == "v1"
    assert any("took the new plan" in note for note in summary["notes"])
    with Coordinator(repo) as coordinator:
        assert coordinator.store.get_task("r1", "waits") is None
        assert coordinator.store.get_task("r1", "dropped-live").state.value == "started"   # left as it was

    # The new plan is the run's plan now: the same again is no change.
    code, _, summary = fanout(repo, second, "r1", log=log)
    assert code == 1 and summary["agent_runs"] == 0


def test_max_agents_stops_with_a_message_naming_it_and_the_next_run_goes_on(repo, tmp_path):
    log = tmp_path / "standin.log"
    plan = write_plan(tmp_path / "plan.json", [task(f"t{i}", f"write pkg/t{i}/x.txt {i}") for i in range(3)],
                      concurrency=1)
    code, events, summary = fanout(repo, plan, "r1", "--max-agents", "2", log=log)
    assert code == 1 and summary["stopped"] == "limit" and summary["agent_runs"] == 2
    assert sorted(t["outcome"] for t in summary["tasks"]) == ["limit", "merged", "merged"]
    assert any("limit of 2 agent runs" in note and "--max-agents" in note for note in summary["notes"])
    assert sum(count(log).values()) == 2
    assert summary["consolidation"] is None                     # the end (consolidation) waits for every task

    code, _, summary = fanout(repo, plan, "r1", "--max-agents", "2", log=log)
    assert code == 0 and summary["agent_runs"] == 1 and count(log) == {"t0": 1, "t1": 1, "t2": 1}


def test_agent_timeout_stops_a_hung_agent_and_its_repair_goes_on(repo, tmp_path):
    from tests.fanout.helpers import alive, runs

    log = tmp_path / "standin.log"
    plan = write_plan(tmp_path / "plan.json", [task("hung", "@1 spawn-child", "@1 hang", "write pkg/hung/x.txt ok")])
    code, events, summary = fanout(repo, plan, "r1", "--agent-timeout", "2", log=log)
    assert code == 0, summary
    [ended, _] = [e for e in events if e["event"] == "agent.end"]
    assert ended["timed_out"] is True and 2 <= ended["seconds"] < 30
    assert [e["reason"] for e in events if e["event"] == "repair"] == ["timeout"]
    prompt = (repo / ".git/wtc/fanout/r1/hung/run-2.prompt.md").read_text()
    assert "ran past its timeout of 2 s" in prompt
    [child] = [line["child"] for line in runs(log) if line["event"] == "child"]
    assert not alive(child)                        # the whole process group went, the agent's child too


def test_bad_input_is_refused_before_anything_runs(repo, tmp_path):
    log = tmp_path / "standin.log"
    missing = write_plan(tmp_path / "plan.json", [task("a", "write pkg/a/x.txt")], command=["no-such-agent-xyz", "{prompt}"])
    code, _, error = fanout(repo, missing, "r1", log=log)
    assert code == 2 and "'no-such-agent-xyz'" in error["error"]["message"] and "not on PATH" in error["error"]["message"]
    bad = tmp_path / "bad.json"
    bad.write_text('{"agent": {"command": ["x"]}, "tasks": [{"name": "a", "prompt": "p", "depends_on": ["zz"]}]}')
    code, _, error = fanout(repo, bad, "r1", log=log)
    assert code == 2 and "task 'a', key 'depends_on'" in error["error"]["message"]
    code, _, error = fanout(repo, missing, "r1", "--concurrency", "0", log=log)
    assert code == 2 and "--concurrency" in error["error"]["message"]
    code, _, error = fanout(repo, missing, "bad run", log=log)
    assert code == 2 and "invalid run name" in error["error"]["message"]
    assert count(log) == {}
    with Coordinator(repo) as coordinator:
        assert coordinator.store.get_run("r1") is None            # not even the run was started


def test_the_python_api_refuses_limits_that_could_never_run(repo, tmp_path):
    from worktree_coord.errors import UsageError
    from worktree_coord.fanout import FanoutOptions, load, run_fanout

    plan = load(write_plan(tmp_path / "plan.json", [task("a", "write pkg/a/x.txt")]))
    for options, word in ((FanoutOptions(concurrency=0), "--concurrency 0"),        # a semaphore of 0: a hang
                          (FanoutOptions(agent_timeout=0), "--agent-timeout 0"),
                          (FanoutOptions(max_agents=0), "--max-agents 0")):
        with pytest.raises(UsageError, match=word):
            run_fanout(repo, plan, "r1", options)


def test_a_plan_base_for_a_run_that_exists_is_named_as_not_used(repo, tmp_path):
    from tests.conftest import commit, wtc

    assert wtc(repo, "run", "start", "--run", "r1")[0] == 0
    commit(repo, {"pkg/later.txt": "later\n"}, "later")
    plan = write_plan(tmp_path / "plan.json", [task("a", "write pkg/a/x.txt")], run={"base": "main"})
    code, _, summary = fanout(repo, plan, "r1", log=tmp_path / "log")
    assert code == 0
    assert any("the plan's base 'main' is for a run fanout starts, and was not used" in n for n in summary["notes"])
    assert "pkg/later.txt" not in git(repo, "ls-tree", "-r", "--name-only", "wtc/r1/integration")


def test_replan_widens_a_live_task_to_the_boundary_the_new_plan_gives_it(repo, tmp_path):
    """Found driving wtc on express: a task's `own` corrected in the plan and taken with --replan
    ("took the new plan: task 'fo-view' own: [...] -> [...]") still finished against the boundary it
    started with, and its next agent run was rejected outside the old `own`. A live task gets the
    globs the new plan adds (as `wtc task widen`, the reason naming the replan); a glob the plan
    dropped stays (a boundary only widens), and the notes say so."""
    log = tmp_path / "standin.log"
    first = write_plan(tmp_path / "v1.json", [task("t", "write pkg/b/x.txt b", own=["pkg/a/**"], attempts=1)])
    code, _, summary = fanout(repo, first, "r1", log=log)
    assert code == 1 and summary["tasks"][0]["outcome"] == "lead", summary
    assert "outside_own" in summary["tasks"][0]["report"], summary["tasks"][0]["report"]

    second = write_plan(tmp_path / "v2.json", [task("t", "write pkg/b/x.txt b", own=["pkg/b/**"], attempts=2)])
    code, _, summary = fanout(repo, second, "r1", "--replan", log=log)
    assert code == 0 and summary["tasks"][0]["outcome"] == "merged", summary
    assert git(repo, "show", "wtc/r1/integration:pkg/b/x.txt") == "b"
    widened = [note for note in summary["notes"] if "widened" in note]
    assert widened and "task t" in widened[0] and "pkg/b/**" in widened[0] and "keeps own pkg/a/**" in widened[0], \
        summary["notes"]
    with Coordinator(repo) as coordinator:
        assert coordinator.store.get_task("r1", "t").boundary.own == ("pkg/a/**", "pkg/b/**")
