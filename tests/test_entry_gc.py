"""entry.py: a `wtc` process runs its call with the collector's first threshold raised
(CALL_GC_THRESHOLD), and leaves a collector switched off as it is."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PROBE = r"""
import atexit, gc, sys
if sys.argv[1] == "off":
    gc.disable()
atexit.register(lambda: print(gc.get_threshold()[0], gc.isenabled()))   # entry.leave runs atexit handlers
sys.argv = ["wtc", "status", "--json"]
from worktree_coord.entry import main
main()
"""


def _threshold_in_a_call(tmp_path: Path, mode: str) -> list[str]:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    done = subprocess.run([sys.executable, "-c", PROBE, mode], cwd=tmp_path, capture_output=True, text=True,
                          env=dict(os.environ, WTC_NO_SERVE="1"))
    return done.stdout.strip().splitlines()[-1].split()


def test_a_wtc_call_collects_with_the_raised_first_threshold(tmp_path: Path) -> None:
    from worktree_coord.entry import CALL_GC_THRESHOLD

    assert _threshold_in_a_call(tmp_path, "on") == [str(CALL_GC_THRESHOLD), "True"]


def test_a_collector_switched_off_stays_off(tmp_path: Path) -> None:
    first, enabled = _threshold_in_a_call(tmp_path, "off")
    assert enabled == "False"
