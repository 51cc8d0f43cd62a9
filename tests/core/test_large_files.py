"""Files over max-file-size (an agent's build output, dataset or dump the .gitignore does not name)
are never merged: finish refuses them before its commit, and in any of the agent's own commits (a
later commit removing one leaves it in the history the merge would bring in); the fix it names
works; a file the repository already tracked that large is left alone; `wtc check` flags a branch
adding one; the limit is configuration (`max-file-size`, 0 for none)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import git, make_repo, write
from worktree_coord import Coordinator
from worktree_coord.config import parse_config
from worktree_coord.errors import ConfigError

MIB = 1024 * 1024


@pytest.fixture
def origin(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {".wtc.toml": 'max-file-size = "1MB"\n', "app/main.py": "print(1)\n",
                                         "data/tracked.bin": os.urandom(2 * MIB)})


@pytest.fixture
def coordinator(origin: Path):
    with Coordinator(origin) as coordinator:
        coordinator.start_run("r1")
        yield coordinator


def history_paths(repo: Path, since: str, ref: str) -> set[str]:
    listed = git(repo, "rev-list", "--objects", f"{since}..{ref}").splitlines()
    return {line.split(" ", 1)[1] for line in listed if " " in line}


def test_an_untracked_file_over_the_limit_is_refused_before_anything_is_committed(coordinator, origin):
    wt = Path(coordinator.start_task("r1", "t", ["**"]).worktree)
    pin = git(origin, "rev-parse", "HEAD")
    write(wt, {"build/bundle.js": b"x" * (MIB + 1), "app/main.py": "print(2)\n",
               "data/tracked.bin": os.urandom(3 * MIB)})            # already over the limit at the pin: the project's own
    done = coordinator.finish_task("r1", "t")
    assert done.state == "rejected" and done.exit_code == 3
    [violation] = done.violations
    assert violation["rule"] == "large_file" and violation["path"] == "build/bundle.js"
    assert violation["detail"].startswith("1.0 MiB, over max-file-size (1.0 MiB): name it in .gitignore")
    assert violation["detail"].endswith("nothing was committed")
    assert git(origin, "rev-parse", "wtc/r1/t") == pin, "no commit holds it"
    write(wt, {".gitignore": "build/\n"})
    done = coordinator.finish_task("r1", "t")
    assert done.state == "merged", done.violations
    merged = set(git(origin, "ls-tree", "-r", "--name-only", "wtc/r1/integration").splitlines())
    assert "build/bundle.js" not in merged and {".gitignore", "app/main.py"} <= merged
    assert "build/bundle.js" not in history_paths(origin, pin, "wtc/r1/integration")


def test_a_large_file_in_an_agents_own_commit_is_refused_even_when_a_later_commit_removed_it(coordinator, origin):
    wt = Path(coordinator.start_task("r1", "t", ["**"]).worktree)
    pin = git(origin, "rev-parse", "HEAD")
    write(wt, {"dump.core": b"\0" * (2 * MIB)})
    git(wt, "add", "dump.core")
    git(wt, "commit", "-qm", "oops")
    git(wt, "rm", "-q", "dump.core")
    git(wt, "commit", "-qm", "remove it again")
    write(wt, {"app/main.py": "print(3)\n"})
    done = coordinator.finish_task("r1", "t")
    assert done.state == "rejected"
    [violation] = done.violations
    assert violation["rule"] == "large_file" and violation["path"] == "dump.core"
    # The fix it names, run as a shell would, takes the file out of every commit.
    command = violation["detail"].split("`")[1]
    subprocess.run(command, shell=True, check=True, capture_output=True)
    write(wt, {".gitignore": "*.core\n"})
    done = coordinator.finish_task("r1", "t")
    assert done.state == "merged", done.violations
    assert "dump.core" not in history_paths(origin, pin, "wtc/r1/integration")
    assert git(origin, "show", "wtc/r1/integration:app/main.py") == "print(3)"


def test_the_cli_says_the_worktree_stays_and_wtc_check_flags_a_branch_adding_one(coordinator, origin):
    wt = Path(coordinator.start_task("r1", "t", ["**"]).worktree)
    write(wt, {"model.onnx": b"w" * (2 * MIB)})
    done = subprocess.run([sys.executable, "-m", "worktree_coord", "task", "finish", "t", "--run", "r1"], cwd=origin,
                          capture_output=True, text=True)
    assert done.returncode == 3
    assert "1 boundary violation(s); the worktree stays:" in done.stdout, done.stdout
    git(origin, "checkout", "-qb", "feature")
    write(origin, {"model.onnx": b"w" * (2 * MIB)})
    git(origin, "add", "model.onnx")
    git(origin, "commit", "-qm", "model")
    checked = subprocess.run([sys.executable, "-m", "worktree_coord", "check", "--base", "main", "--own", "**",
                              "--no-merge", "--format", "text"], cwd=origin, capture_output=True, text=True)
    assert checked.returncode == 3, checked.stdout + checked.stderr
    assert "large_file" in checked.stdout and "model.onnx" in checked.stdout


@pytest.mark.parametrize(("value", "expected"), [("100MB", 100 * MIB), ("1.5 GiB", int(1.5 * 1024 ** 3)),
                                                 (0, 0), (12345, 12345), ("2k", 2048)])
def test_max_file_size_reads_bytes_or_sizes_with_units(value, expected):
    assert parse_config({"max-file-size": value}, ".wtc.toml").max_file_size == expected


def test_a_bad_max_file_size_names_the_key_and_the_forms_it_takes():
    with pytest.raises(ConfigError) as caught:
        parse_config({"max-file-size": "huge"}, ".wtc.toml")
    assert "max-file-size in .wtc.toml must be a size in bytes" in caught.value.message


def test_no_limit_with_zero(tmp_path):
    repo = make_repo(tmp_path / "repo", {".wtc.toml": "max-file-size = 0\n", "a.txt": "a\n"})
    with Coordinator(repo) as coordinator:
        coordinator.start_run("r1")
        wt = Path(coordinator.start_task("r1", "t", ["**"]).worktree)
        write(wt, {"big.bin": b"b" * (2 * MIB)})
        assert coordinator.finish_task("r1", "t").state == "merged"
