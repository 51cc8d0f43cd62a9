"""scripts/bench_merge.py runs each method's each repetition in a process of its own, as each `wtc
merge` is one, and says on each run how fast the machine was around it: a run's figure cannot carry
what an earlier run of the bench loaded, cached or left in memory, and a run the VM slowed is told
apart from one the code did."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.stress.harness import SCRIPTS


def test_each_run_is_a_fresh_process_with_the_machines_speed_around_it(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    bench = subprocess.Popen([sys.executable, str(SCRIPTS / "bench_merge.py"), "--tasks", "3", "--sizes", "5",
                              "--methods", "engine-sem,baseline", "--repeat", "2", "--workdir", str(tmp_path / "work"),
                              "--json", str(out)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    printed, _ = bench.communicate(timeout=300)
    assert bench.returncode == 0, printed
    runs = [run for by_method in json.loads(out.read_text())["runs"].values()
            for method_runs in by_method.values() for run in method_runs]
    assert len(runs) == 4
    pids = [run["pid"] for run in runs]
    assert len(set(pids)) == 4 and bench.pid not in pids     # a process per run, none of them the bench's own
    assert all(run["speed_ms"] > 0 and run["rss_mb"] > 0 for run in runs)
    assert len({run["tree"] for run in runs}) == 1               # every run merged the same tasks to the same tree
    assert printed.count(" speed ") >= 4                         # each run's line says the machine's speed
