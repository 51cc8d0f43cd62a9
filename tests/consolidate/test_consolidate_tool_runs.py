"""How adapters start package managers: found beside the interpreter or on PATH, scripts without
a `#!` line run through sh (pnpm's npm placeholder when install scripts were blocked)."""

from __future__ import annotations

import os

from worktree_coord.consolidate.adapters import NpmAdapter


def test_a_script_without_a_shebang_line_runs_through_sh(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    tool = bin_dir / "fakepm"
    tool.write_text('echo "ran with $# args: $*"\n')        # no #! line: execve says ENOEXEC
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    adapter = NpmAdapter(tmp_path, "")
    run = adapter.run(["fakepm", "install", "--offline"])
    assert run.ok, run.stderr
    assert run.stdout.strip() == "ran with 2 args: install --offline"


def test_the_path_of_the_adapters_environment_finds_the_tool(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    tool = bin_dir / "fakepm"
    tool.write_text("#!/bin/sh\necho found\n")
    tool.chmod(0o755)
    adapter = NpmAdapter(tmp_path, "", env={"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"})
    assert adapter.run(["fakepm"]).stdout.strip() == "found"
    assert NpmAdapter(tmp_path, "").run(["fakepm"]).returncode == 127, "not on this process's PATH"


def test_a_missing_tool_is_reported_as_missing_not_raised(tmp_path):
    adapter = NpmAdapter(tmp_path, "")
    run = adapter.run(["no-such-package-manager-xyz", "install"])
    assert run.returncode == 127 and adapter.classify(run.stderr).value == "tool_missing"
