"""examples/claude-code runs: the harness played for real (install, hooks from the settings file, a
stray agent kept and fixed, the run landed), and the settings example is what install writes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from worktree_coord.hooks import settings

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "claude-code"


def test_play_harness_lands_every_agents_work(tmp_path):
    done = subprocess.run([sys.executable, str(EXAMPLE / "play_harness.py"), "--agents", "4", "--json"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600,
                          env=os.environ | {"TMPDIR": str(tmp_path)})   # its scratch repository stays in tmp_path
    assert done.returncode == 0, done.stdout + done.stderr
    summary = json.loads(done.stdout)
    assert summary["landed"] is True
    assert "exited 3" in summary["log"][1] and summary["log"][2].endswith("exit 0")
    tasks = summary["status"]["tasks"]
    assert sorted(t["state"] for t in tasks) == ["merged"] * 4
    assert {t["boundary_from"] for t in tasks} == {f"plan #{i} 'health-svc{i - 1}'" for i in range(1, 5)}


def test_the_settings_example_is_what_install_writes(tmp_path):
    change = settings.plan_install("project", tmp_path / "settings.json", tmp_path / "b", "/absolute/path/to/wtc")
    assert change.after == (EXAMPLE / "settings.json").read_bytes()


def test_the_example_configuration_loads(tmp_path):
    from worktree_coord.config import load_config

    (tmp_path / ".wtc.toml").write_text((EXAMPLE / "wtc.toml").read_text())
    config = load_config(tmp_path)
    assert config.worktree_setup.link == ("node_modules",) and config.default_boundary.own == ("packages/**", "docs/**")
