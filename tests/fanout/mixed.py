"""A mixed plan for the stand-in agent at scale, and the checks of how it ended: shared by the heavy
test (tests/fanout/test_fanout_scale.py) and scripts/stress_fanout.py (200 tasks, concurrency 16,
the runner SIGKILLed at random moments).

Kinds of task, cycled in a seeded order (each kind's edits in its own package unless said):
  clean       one new file                                           merges on the first run
  collide     a pair changing one line of one shared file            one merges, the other conflicts,
                                                                     is updated and its repair keeps both
  outside     also writes into another task's package                rejected, the repair restores it
  verify      writes BROKEN, which the run's verify command refuses  failed verification, then fixed
  hang        sleeps until its timeout, the first time               stopped, then repaired
  crash       exits 3 the first time                                 repaired
  hopeless    exits 9 every time (2 attempts)                        left to the lead
  dependent   needs a clean task's merged file (depends_on)          merges after it, on its first run
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.fanout.helpers import count, runs, task

VERIFY = "sh -c '! grep -rqs BROKEN pkg'"
KINDS = ("clean", "clean", "clean", "collide", "outside", "verify", "hang", "crash", "hopeless", "dependent",
         "clean", "clean")


@dataclass(frozen=True)
class Expected:
    outcome: str        # merged or lead
    begins: tuple[int, ...]   # how many agent runs it may have begun (a collide pair: 1 or 2, summing to 3)
    kind: str


def mixed_tasks(n: int, seed: int, *, hang_timeout: float = 3.0) -> tuple[list[dict[str, Any]], dict[str, Expected]]:
    shuffle = random.Random(seed)
    kinds = [KINDS[i % len(KINDS)] for i in range(n)]
    shuffle.shuffle(kinds)
    tasks: list[dict[str, Any]] = []
    expected: dict[str, Expected] = {}
    clean: list[str] = []
    pair: str | None = None
    for i, kind in enumerate(kinds):
        name = f"{kind}-{i:03d}"
        nap = f"sleep {shuffle.choice([0.1, 0.4, 0.9])}"
        if kind == "dependent" and not clean:
            kind, name = "clean", f"clean-{i:03d}"
        if kind == "clean":
            tasks.append(task(name, nap, f"write pkg/{name}/x.txt {name}"))
            clean.append(name)
            expected[name] = Expected("merged", (1,), kind)
        elif kind == "collide":
            shared = f"shared/c{i:03d}.txt" if pair is None else pair
            if pair is None:
                pair = shared
            else:
                pair = None
            tasks.append(task(name, nap, f"@1 write {shared} line by {name}", own=[shared]))
            expected[name] = Expected("merged", (1, 2), kind)
        elif kind == "outside":
            tasks.append(task(name, nap, f"write pkg/{name}/x.txt {name}", f"@1 write pkg/elsewhere-{name}/y.txt no"))
            expected[name] = Expected("merged", (2,), kind)
        elif kind == "verify":
            tasks.append(task(name, nap, f"@1 write pkg/{name}/x.txt BROKEN", f"@fix-verify write pkg/{name}/x.txt ok"))
            expected[name] = Expected("merged", (2,), kind)
        elif kind == "hang":
            tasks.append(task(name, "@1 hang", f"write pkg/{name}/x.txt woke", timeout=hang_timeout))
            expected[name] = Expected("merged", (2,), kind)
        elif kind == "crash":
            tasks.append(task(name, nap, "@1 crash 3", f"write pkg/{name}/x.txt {name}"))
            expected[name] = Expected("merged", (2,), kind)
        elif kind == "hopeless":
            tasks.append(task(name, nap, f"write pkg/{name}/x.txt tries", "crash 9", attempts=2))
            expected[name] = Expected("lead", (2,), kind)
        else:   # dependent
            on = shuffle.choice(clean)
            tasks.append(task(name, f"require pkg/{on}/x.txt", f"write pkg/{name}/x.txt after {on}", depends_on=[on]))
            expected[name] = Expected("merged", (1,), kind)
    # A collide task left without a partner (an odd count) merges on its first run.
    if pair is not None:
        last = next(t["name"] for t in reversed(tasks) if t["name"].startswith("collide"))
        expected[last] = Expected("merged", (1,), "collide")
    return tasks, expected


def check(summary: dict[str, Any], expected: dict[str, Expected], log: Path, merged_at: dict[str, float]) -> list[str]:
    """Every way the run's end differs from what the plan should come to (empty: none)."""
    problems = []
    outcomes = {t["task"]: t["outcome"] for t in summary["tasks"]}
    reports = {t["task"]: (t.get("reason"), t.get("report")) for t in summary["tasks"]}
    for name, want in expected.items():
        if outcomes.get(name) != want.outcome:
            reason, report = reports.get(name, (None, None))
            problems.append(f"{name}: {outcomes.get(name)}, expected {want.outcome} (reason {reason}: {report})")
    begun = count(log)
    collide_runs = 0
    for name, want in expected.items():
        got = begun.get(name, 0)
        if got not in want.begins:
            problems.append(f"{name} ({want.kind}): {got} agent run(s) begun, expected {' or '.join(map(str, want.begins))}")
        if want.kind == "collide" and want.begins == (1, 2):
            collide_runs += got
    pairs = sum(1 for w in expected.values() if w.kind == "collide" and w.begins == (1, 2)) // 2
    if collide_runs != 3 * pairs:
        problems.append(f"collide pairs: {collide_runs} runs, expected {3 * pairs} (one repair per pair)")
    for line in runs(log):
        if line["task"] in merged_at and line["at"] > merged_at[line["task"]]:
            problems.append(f"{line['task']}: an agent began after the task merged")
    return problems
