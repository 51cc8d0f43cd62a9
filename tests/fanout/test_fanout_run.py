"""`wtc fanout` driving the stand-in agent through every way an attempt goes wrong: colliding edits, a
step outside the boundary, a failed verification, a hang, a crash, a task that never gets it right,
and a dependent. Every task ends merged or reported to the lead; a second run changes nothing and
runs no agent."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.conftest import git, make_repo
from tests.fanout.helpers import STANDIN, count, fanout, runs, task, write_plan
from worktree_coord.coordinator import Coordinator

CHECK = """import pathlib, sys
bad = [str(p) for p in pathlib.Path('.').rglob('*.txt') if 'BROKEN' in p.read_text()]
print('broken:', bad)
sys.exit(1 if bad else 0)
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"README.md": "# r\n", "shared/config.txt": "value = 0\n",
                                         "check.py": CHECK, "pkg/keep.txt": "keep\n"})


def mixed_plan(path: Path) -> Path:
    return write_plan(path, [
        task("clean-1", "write pkg/clean-1/x.txt one"),
        task("clean-2", "write pkg/clean-2/x.txt two"),
        # Both change one line of one file; the second to merge conflicts, is updated (markers) and
        # its repair keeps both sides.
        task("collide-a", "@1 write shared/config.txt value = a", own=["shared/**"]),
        task("collide-b", "@1 sleep 1.5", "@1 write shared/config.txt value = b", own=["shared/**"]),
        task("outside", "write pkg/outside/x.txt mine", "@1 write pkg/clean-1/oops.txt not mine"),
        task("verify", "@1 write pkg/verify/v.txt BROKEN", "@fix-verify write pkg/verify/v.txt fixed"),
        task("hang", "@1 hang", "write pkg/hang/x.txt woke", timeout=4),
        task("crash", "@1 crash 3", "write pkg/crash/x.txt second time lucky"),
        task("hopeless", "write pkg/hopeless/x.txt tries", "crash 9", attempts=2),
        task("dependent", "require pkg/clean-1/x.txt", "write pkg/dependent/x.txt after clean-1",
             depends_on=["clean-1"]),
    ], concurrency=4, run={"verify": f"{sys.executable} check.py"})


def test_every_task_ends_merged_or_reported_and_a_second_run_runs_no_agent(repo, tmp_path):
    log = tmp_path / "standin.log"
    plan = mixed_plan(tmp_path / "plan.json")
    code, events, summary = fanout(repo, plan, "r1", log=log)

    assert code == 1 and summary["exit_code"] == 1, summary       # one task needs the lead
    outcomes = {t["task"]: t for t in summary["tasks"]}
    assert {name for name, t in outcomes.items() if t["outcome"] == "merged"} == set(outcomes) - {"hopeless"}
    hopeless = outcomes["hopeless"]
    assert hopeless["outcome"] == "lead" and hopeless["reason"] == "agent_failed"
    assert hopeless["attempts_used"] == 2 and "exited with code 9" in hopeless["report"]
    assert hopeless["worktree"] and Path(hopeless["worktree"], "pkg/hopeless/x.txt").is_file()   # its work kept

    begun = count(log)
    # Whichever of the colliding pair merges second (collide-b sleeps first, but merges wait their
    # turn behind the verification) conflicts and is repaired: one run for one, two for the other.
    [late] = [name for name in ("collide-a", "collide-b") if begun[name] == 2]
    assert begun == {"clean-1": 1, "clean-2": 1, "collide-a": 1, "collide-b": 1, "outside": 2, "verify": 2,
                     "hang": 2, "crash": 2, "hopeless": 2, "dependent": 1} | {late: 2}, begun
    repairs = {e["task"]: e["reason"] for e in events if e["event"] == "repair"}
    assert repairs == {late: "conflict", "outside": "rejected", "verify": "failed_verification",
                       "hang": "timeout", "crash": "agent_failed", "hopeless": "agent_failed"}, repairs
    # The live counts: running and repairing are agents, never more than the concurrency (4) at once.
    # (How many run together at the busiest moment depends on the machine's load: at least two.)
    assert 2 <= max(e["counts"]["running"] + e["counts"]["repairing"] for e in events) <= 4

    tip = "wtc/r1/integration"
    assert sorted(git(repo, "show", f"{tip}:shared/config.txt").splitlines()) == ["value = a", "value = b"]  # both
    assert git(repo, "show", f"{tip}:pkg/verify/v.txt") == "fixed"
    assert git(repo, "show", f"{tip}:pkg/hang/x.txt") == "woke"
    assert git(repo, "show", f"{tip}:pkg/dependent/x.txt") == "after clean-1"
    assert "pkg/clean-1/oops.txt" not in git(repo, "ls-tree", "-r", "--name-only", tip)
    assert "pkg/hopeless/x.txt" not in git(repo, "ls-tree", "-r", "--name-only", tip)

    # The dependent's agent began after its dependency merged (its worktree held that work: `require`).
    with Coordinator(repo) as coordinator:
        merged_at = next(e["at"] for e in coordinator.store.events("r1", "clean-1") if e["kind"] == "task.merged")
    dependent_began = next(line["at"] for line in runs(log) if line["task"] == "dependent")
    assert dependent_began > merged_at

    # The prompt of a repair holds the original prompt and the report; WTC_REPAIR=1 in its environment.
    assert all(line["repair"] == (line["attempt"] > 1) for line in runs(log) if line["event"] == "begin")
    prompt = (repo / ".git/wtc/fanout/r1/outside/run-2.prompt.md").read_text()
    assert f"integration side written by {({'collide-a', 'collide-b'} - {late}).pop()}" in \
        (repo / f".git/wtc/fanout/r1/{late}/run-2.prompt.md").read_text()
    assert prompt.startswith("Task outside.") and "outside_own" in prompt and "attempt 2 of 3" in prompt

    # Again: nothing merged is touched, no agent runs (the one that needs the lead included).
    before = len(runs(log))
    code, events, again = fanout(repo, plan, "r1", log=log)
    assert code == 1 and again["agent_runs"] == 0 and len(runs(log)) == before
    assert {t["task"]: t["outcome"] for t in again["tasks"]} == {t: o["outcome"] for t, o in outcomes.items()}
    assert not any(e["event"] == "agent.start" for e in events)


def test_a_dependent_of_a_task_that_needs_the_lead_is_blocked_not_started(repo, tmp_path):
    log = tmp_path / "standin.log"
    plan = write_plan(tmp_path / "plan.json", [
        task("base", "crash 5", attempts=1),
        task("child", "write pkg/child/x.txt", depends_on=["base"]),
        task("grandchild", "write pkg/grandchild/x.txt", depends_on=["child"]),
        task("other", "write pkg/other/x.txt ok"),
    ])
    code, _, summary = fanout(repo, plan, "r1", log=log)
    outcomes = {t["task"]: t for t in summary["tasks"]}
    assert code == 1
    assert outcomes["base"]["outcome"] == "lead" and outcomes["other"]["outcome"] == "merged"
    assert outcomes["child"]["outcome"] == "blocked" and "depends on base (lead)" in outcomes["child"]["report"]
    assert outcomes["grandchild"]["outcome"] == "blocked"
    assert set(count(log)) == {"base", "other"}          # neither blocked task ran an agent
    with Coordinator(repo) as coordinator:
        assert coordinator.store.get_task("r1", "child") is None      # nor was started


def test_the_text_output_is_plain_lines_and_the_report_when_not_a_terminal(repo, tmp_path):
    import subprocess

    from tests.fanout.helpers import environment

    plan = write_plan(tmp_path / "plan.json", [task("one", "write pkg/one/x.txt 1"),
                                               task("two", "@1 crash 2", "write pkg/two/x.txt 2")])
    main = git(repo, "rev-parse", "main")
    done = subprocess.run([sys.executable, "-m", "worktree_coord", "fanout", str(plan), "--run", "r1"], cwd=repo,
                          env=environment(tmp_path / "log"), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("[00:00] run r1: 2 task(s)") and "waiting 2" in lines[0]
    assert any(line.endswith("two: agent_failed; repair attempt 2 of 3 next") for line in lines)
    # Each merge's line carries the counts as they stand after it. The order of the two merges is the
    # machine's (`two` crashes once and is repaired, but `one`'s finish may still come second under load).
    merged = [line for line in lines if line.split("]", 1)[-1].strip().split("   [")[0] in ("one: merged", "two: merged")]
    assert sorted(line.split("]", 1)[1].split(":")[0].strip() for line in merged) == ["one", "two"], done.stdout
    assert "merged 1 |" in merged[0] and "merged 2 |" in merged[1], done.stdout
    assert "\x1b[" not in done.stdout                                   # no terminal codes in a pipe
    assert "run r1: 2 of 2 task(s) merged (1 after a repair)" in done.stdout
    assert "wtc land --run r1 --onto <branch>" in done.stdout             # the lead lands; fanout never does
    assert git(repo, "rev-parse", "main") == main                        # never landed


def test_the_agent_gets_its_placeholders_environment_and_working_directory(repo, tmp_path):
    log = tmp_path / "standin.log"
    plan = write_plan(tmp_path / "plan.json", [
        task("env", "write pkg/env/x.txt ok", prompt="Say {hi} and do it."),
        task("own-command", "write pkg/own-command/x.txt ok",
             command=[sys.executable, str(STANDIN), "{prompt_file}", "{task}", "{run}", "{worktree}", "{prompt}"],
             env={"MINE": "task"}),
    ], env={"MINE": "agent"})
    code, _, summary = fanout(repo, plan, "r1", log=log)
    assert code == 0, summary
    begun = {line["task"]: line for line in runs(log) if line["event"] == "begin"}
    env = begun["env"]
    assert env["run"] == "r1" and env["cwd"] == env["worktree"] and env["worktree"].endswith(".wtc/worktrees/r1/env")
    assert env["port_base"] and int(env["port_base"]) >= 20000            # the task's ports (.wtc/env)
    assert env["stdin"] == "" and env["mine"] == "agent" and env["report_file"] is None
    assert Path(env["prompt_file"]).read_text().startswith("Say {hi} and do it.")   # braces of a prompt kept
    own = begun["own-command"]
    prompt_file, name, run, worktree, prompt = own["argv"]
    assert (name, run, worktree) == ("own-command", "r1", own["cwd"]) and own["mine"] == "task"
    assert prompt == Path(prompt_file).read_text() and "! write pkg/own-command/x.txt ok" in prompt


def test_the_end_consolidates_the_intents_tasks_left_and_reports_it(tmp_path):
    manifest = '{\n  "name": "root",\n  "version": "1.0.0",\n  "dependencies": {}\n}\n'
    repo = make_repo(tmp_path / "repo", {"package.json": manifest, "src/a.txt": "a\n"})
    wanted = manifest.replace("{}", '{\n    "left-pad": "^1.3.0"\n  }').replace("\n", "\\n")
    plan = write_plan(tmp_path / "plan.json", [task("dep", f"write package.json {wanted.removesuffix(chr(92) + 'n')}",
                                                    "write src/b.txt b", own=["src/**"])])
    code, events, summary = fanout(repo, plan, "r1", log=tmp_path / "log")
    assert code == 0, summary
    assert summary["consolidation"]["exit_code"] == 0 and summary["consolidation"]["offline"] is True
    assert [root["state"] for root in summary["consolidation"]["roots"]] == ["applied"]
    assert any(e["event"] == "consolidate" for e in events)
    assert '"left-pad": "^1.3.0"' in git(repo, "show", "wtc/r1/integration:package.json")
    assert git(repo, "log", "-1", "--format=%s", "wtc/r1/integration").startswith("wtc: consolidate npm root")


def test_a_landed_run_run_again_says_it_landed_and_does_not_suggest_landing_again(repo, tmp_path):
    log = tmp_path / "standin.log"
    plan = write_plan(tmp_path / "plan.json", [task("one", "write pkg/one/x.txt 1")])
    code, _, summary = fanout(repo, plan, "r1", log=log)
    assert code == 0 and any(step.startswith("wtc land --run r1") for step in summary["next"])
    with Coordinator(repo) as coordinator:
        coordinator.land("r1", "main", approved=True)
    code, _, again = fanout(repo, plan, "r1", log=log)
    assert code == 0 and again["agent_runs"] == 0
    assert any("has landed" in note for note in again["notes"])
    assert not any(step.startswith("wtc land") for step in again["next"])
    assert count(log) == {"one": 1}


def test_the_summary_names_the_tasks_that_merged_no_change(repo, tmp_path):
    """Found driving wtc on npm/cli: a task failed verification, its repair undid its whole edit, it
    ended `empty`, and the summary said "2 of 2 task(s) merged" with no word of it: the lead could
    not tell that one task's work came to nothing."""
    import subprocess

    from tests.fanout.helpers import environment

    plan = write_plan(tmp_path / "plan.json", [task("one", "write pkg/one/x.txt 1"), task("idle")])
    done = subprocess.run([sys.executable, "-m", "worktree_coord", "fanout", str(plan), "--run", "r1"], cwd=repo,
                          env=environment(tmp_path / "log"), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "run r1: 2 of 2 task(s) merged (1 with no change: idle)" in done.stdout, done.stdout
