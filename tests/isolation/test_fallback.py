"""Where the machine cannot isolate, commands run on the host's network with a note saying why.

Runs on every machine (test_network.py needs a kernel that isolates). The probe's answer is what
the machine says; setting it here stands for a machine that says no, and what is tested is the
spawn that answer leads to.
"""

from __future__ import annotations

import sys

import pytest

from worktree_coord import isolation
from worktree_coord.errors import UsageError
from worktree_coord.isolation import NetworkMode, Support, spawn_for


@pytest.fixture
def machine_without_isolation(monkeypatch):
    monkeypatch.setattr(isolation, "_support", Support(False, "unshare: Operation not permitted"))


def test_an_isolated_run_on_a_machine_that_cannot_runs_shared_and_says_why(machine_without_isolation):
    spawn = spawn_for("isolated")
    assert spawn.asked is NetworkMode.ISOLATED and not spawn.isolated and spawn.network == "shared"
    assert spawn.note == ("network isolation unavailable: unshare: Operation not permitted; tasks share the host "
                          "network, use the port block in .wtc/env")
    assert spawn.argv(["pytest", "-q"]) == ["pytest", "-q"]          # the command as it is, no helper
    assert spawn.to_json() == {"network": "shared", "asked": "isolated", "note": spawn.note}


def test_a_shared_run_needs_no_probe_and_carries_no_note(machine_without_isolation):
    spawn = spawn_for("shared")
    assert not spawn.isolated and spawn.note is None and spawn.argv(["true"]) == ["true"]


def test_an_isolated_spawn_wraps_the_command_in_the_helper():
    spawn = isolation.Spawn(NetworkMode.ISOLATED, True)
    argv = spawn.argv(["pytest", "-q"])
    assert argv[:4] == [sys.executable, "-I", "-S", "-c"] and argv[-2:] == ["pytest", "-q"]
    assert spawn.shell("make test")[-3:] == ["/bin/sh", "-c", "make test"]


def test_a_network_that_is_neither_is_refused_naming_the_fix():
    with pytest.raises(UsageError) as refused:
        spawn_for("loopback")
    assert "isolated, shared" in refused.value.message and "--network" in (refused.value.fix or "")
