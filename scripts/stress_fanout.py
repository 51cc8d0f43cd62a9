"""Stress: `wtc fanout` on a 200-task mixed plan at concurrency 16, the runner SIGKILLed at random
moments and run again, until the run ends; then how every task ended, checked against the plan.

The plan (tests/fanout/mixed.py) runs the stand-in agent (tests/fanout/standin_agent.py): colliding
edits, steps outside the boundary, failed verifications, hangs, crashes, hopeless tasks and
dependents, each with the outcome and the number of agent runs it must come to. The checks: every
task merged or left to the lead as planned; each task's agent begun exactly as often as its kind
needs (a killed runner's agents are adopted by the next runner, never started twice); no agent
begun after its task merged; the integration tree holds every merged task's file.

    python scripts/stress_fanout.py [--tasks 200] [--concurrency 16] [--kills 5] [--seed 37] [--keep]
                                    [--kill-after 2,12] [--repeat N]

`--kill-after LOW,HIGH`: each runner is killed after a random LOW..HIGH seconds (short intervals
kill it inside more of its steps); `--repeat N` runs seeds SEED..SEED+N-1 and prints how many held.
Exit 1 when a check fails.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.conftest import make_repo  # noqa: E402
from tests.fanout.helpers import environment, write_plan  # noqa: E402
from tests.fanout.mixed import VERIFY, check, mixed_tasks  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bytecode import compile_package  # noqa: E402  (scripts/ is not a package)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--kills", type=int, default=5, help="SIGKILLs of the runner before it may finish")
    parser.add_argument("--seed", type=int, default=37)
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder")
    parser.add_argument("--kill-after", default="2,12", help="LOW,HIGH seconds a runner lives before its SIGKILL")
    parser.add_argument("--repeat", type=int, default=1, help="seeds SEED..SEED+N-1, one run each")
    options = parser.parse_args()
    compile_package()   # bytecode as an install has it (scripts/bytecode.py)
    low, high = (float(x) for x in options.kill_after.split(","))
    failed = [seed for seed in range(options.seed, options.seed + options.repeat) if one_run(options, seed, low, high)]
    if options.repeat > 1:
        print(f"{options.repeat - len(failed)} of {options.repeat} seeds held every check"
              + (f"; failed: {failed}" if failed else ""))
    return 1 if failed else 0


def one_run(options: argparse.Namespace, seed: int, low: float, high: float) -> bool:
    """One plan (from `seed`) driven to its end through killed runners; True when a check failed."""
    work = Path(tempfile.mkdtemp(prefix="wtc-stress-fanout-"))
    repo = make_repo(work / "repo", {"README.md": "# stress\n", "pkg/keep.txt": "keep\n"})
    tasks, expected = mixed_tasks(options.tasks, seed)
    plan = write_plan(work / "plan.json", tasks, concurrency=options.concurrency, run={"verify": VERIFY})
    log = work / "standin.log"
    shuffle = random.Random(seed)
    began = time.perf_counter()
    invocations, kills = 0, 0
    command = [sys.executable, "-m", "worktree_coord", "fanout", str(plan), "--run", "stress", "--json"]
    while True:
        invocations += 1
        runner = subprocess.Popen(command, cwd=repo, env=environment(log), stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        if kills < options.kills:
            try:
                runner.wait(timeout=shuffle.uniform(low, high))
            except subprocess.TimeoutExpired:
                runner.kill()
                runner.communicate()
                kills += 1
                print(f"[{time.perf_counter() - began:6.1f} s] runner {invocations} SIGKILLed", flush=True)
                continue
        out, err = runner.communicate()
        lines = [json.loads(line) for line in out.splitlines() if line.strip()]
        summary = lines[-1] if lines else {}
        if summary.get("schema") != "wtc.fanout/1":
            print(out[-3000:], err[-3000:])
            return True
        break
    elapsed = time.perf_counter() - began
    from worktree_coord.coordinator import Coordinator

    with Coordinator(repo) as coordinator:
        merged_at = {e["task_id"]: e["at"] for e in coordinator.store.events("stress") if e["kind"] == "task.merged"}
    problems = check(summary, expected, log, merged_at)
    files = set(subprocess.run(["git", "ls-tree", "-r", "--name-only", "wtc/stress/integration"], cwd=repo,
                               capture_output=True, text=True, check=True).stdout.split())
    for name, want in expected.items():
        if want.outcome == "merged" and want.kind not in ("collide",) and f"pkg/{name}/x.txt" not in files:
            problems.append(f"{name}: pkg/{name}/x.txt is not in the integration tree")
    kinds: dict[str, int] = {}
    for want in expected.values():
        kinds[want.kind] = kinds.get(want.kind, 0) + 1
    print(f"seed {seed}: {options.tasks} tasks ({', '.join(f'{n} {k}' for k, n in sorted(kinds.items()))}), concurrency "
          f"{options.concurrency}: {invocations} invocation(s), {kills} SIGKILL(s), {elapsed:.1f} s; exit "
          f"{summary['exit_code']}, {summary['counts']}")
    print(f"agent runs: {sum(1 for _ in open(log)) if log.exists() else 0} log lines; last invocation started "
          f"{summary['agent_runs']}")
    print("checks: " + ("all hold" if not problems else f"{len(problems)} failed"))
    for problem in problems[:40]:
        print(f"  {problem}")
    if options.keep or problems:
        print(f"scratch kept at {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return bool(problems)


if __name__ == "__main__":
    sys.exit(main())
