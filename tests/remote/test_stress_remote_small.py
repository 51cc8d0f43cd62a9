"""The cross-machine swarm at test size: 3 clones of one git remote (a real `git daemon`), 4 agents,
12 tasks, a share of calls repeated under their key and SIGKILLed; every invariant of the swarm
harness read back from the remote must hold, and no clone keeps a leftover.

The full-size run (48 agents, 20% retried, 5% killed) is `python scripts/stress_remote.py`."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


def _load(name: str):
    if name in sys.modules:
        # One module object per name in the session: worker processes unpickle functions by name,
        # and tests/stress loads the same harness (a second copy would break its pickling).
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and worker processes resolve the module by name
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
@pytest.mark.heavy
@pytest.mark.timeout(600)
def test_three_clones_four_agents_keep_every_invariant_read_from_the_remote(tmp_path, pg_url, monkeypatch):
    swarm = _load("stress_swarm")
    remote = _load("stress_remote")
    settings = swarm.SwarmConfig(workers=4, tasks=12, retry_rate=0.25, kill_rate=0.10, seed=3, packages=6, files=4,
                                 drain_interval=5.0, workdir=str(tmp_path))
    # one shared PostgreSQL store, as machines share it (the session's server)
    report = remote.run_remote_swarm(remote.RemoteConfig(settings, clones=3, store="postgresql", pg_url=pg_url),
                                     log=lambda *_: None)
    failed = [f"{v.name}: {v.detail} {list(v.examples)}" for v in report.verdicts if not v.ok]
    assert not failed, "\n".join(failed)
    assert len(report.verdicts) == 11
    # the plan for this seed kills and repeats calls: the run exercised what it claims
    assert report.counts["killed"] + report.counts["crash_points"] >= 1
    assert report.counts["repeats"] >= 1
    assert report.counts["hangs"] == 0
    monkeypatch.setenv("WTC_STORE", pg_url)
    status = swarm._status(Path(report.repo))
    assert status["counts"] == {"merged": 12}
