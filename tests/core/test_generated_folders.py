"""Folders tools generate in a worktree (a venv, node_modules, __pycache__, a cache folder marked
CACHEDIR.TAG) are never committed when the repository does not ignore them: finish, update and
abandon leave them out and say so; tracked files and what the agent staged itself still commit."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import git, make_repo, write
from worktree_coord import Coordinator

FILES = {"app/main.py": "print(1)\n", "vendor/node_modules/kept/index.js": "tracked on purpose\n"}


@pytest.fixture
def origin(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", FILES)


@pytest.fixture
def coordinator(origin: Path):
    with Coordinator(origin) as coordinator:
        coordinator.start_run("r1")
        yield coordinator


def tree(repo: Path, ref: str) -> set[str]:
    return set(git(repo, "ls-tree", "-r", "--name-only", ref).splitlines())


def test_environments_and_caches_are_left_out_and_named(coordinator, origin):
    wt = Path(coordinator.start_task("r1", "t", ["**"]).worktree)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(wt / ".venv")], check=True)
    write(wt, {"node_modules/left-pad/index.js": "module.exports = 1\n",
               "app/__pycache__/main.cpython-311.pyc": b"\x00bytecode",
               "target/CACHEDIR.TAG": "Signature: 8a477f597d28d172789f06886806bc55\n",
               "target/debug/app": b"\x7fELF",
               "app/feature.py": "def feature():\n    return 2\n",
               "app/main.py": "print(2)\n",
               "vendor/node_modules/kept/index.js": "tracked, edited\n"})
    done = coordinator.finish_task("r1", "t")
    assert done.state == "merged"
    files = tree(origin, "wtc/r1/integration")
    assert {"app/feature.py", "app/main.py", "vendor/node_modules/kept/index.js"} <= files
    assert not [f for f in files if f.startswith((".venv/", "node_modules/", "target/")) or "__pycache__" in f]
    assert git(origin, "show", "wtc/r1/integration:vendor/node_modules/kept/index.js") == "tracked, edited"
    [note] = [n for n in done.notes if n.startswith("not committed")]
    for folder in (".venv/ (a Python virtual environment)", "node_modules/ (installed npm packages)",
                   "app/__pycache__/ (Python bytecode)", "target/ (a cache folder"):
        assert folder in note


def test_what_the_agent_staged_itself_is_committed(coordinator, origin):
    wt = Path(coordinator.start_task("r1", "t", ["**"]).worktree)
    write(wt, {"node_modules/vendored/index.js": "on purpose\n"})
    git(wt, "add", "node_modules/vendored/index.js")
    done = coordinator.finish_task("r1", "t")
    assert done.state == "merged" and "node_modules/vendored/index.js" in tree(origin, "wtc/r1/integration")
    assert not [n for n in done.notes if n.startswith("not committed")]


def test_an_abandoned_task_snapshot_leaves_them_out_too(coordinator, origin):
    wt = Path(coordinator.start_task("r1", "t", ["**"]).worktree)
    write(wt, {"node_modules/x/index.js": "x\n", "app/wip.py": "work in progress\n"})
    abandoned = coordinator.abandon_task("r1", "t")
    files = tree(origin, abandoned.branch)
    assert "app/wip.py" in files and not [f for f in files if f.startswith("node_modules/")]


def test_the_forecast_does_not_count_them_as_the_tasks_changes(coordinator):
    wt = Path(coordinator.start_task("r1", "t", ["**"]).worktree)
    write(wt, {"node_modules/x/index.js": "x\n", "node_modules/y/index.js": "y\n", "app/main.py": "print(3)\n"})
    check = coordinator.check_task("r1", "t")
    assert check.files == ["app/main.py"]
