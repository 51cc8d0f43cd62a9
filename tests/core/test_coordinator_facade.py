"""The Coordinator loads an operation module when a call first uses it (coordinator/facade.py, issue 36):
every attribute answers as on the class made of all nine operations, and a call imports only its own."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OPERATION_MODULES = {"runs", "agents", "tasks", "merging", "consolidating", "landing", "cleanup", "snapshot",
                     "forecast"}


def python(code: str, cwd: Path | None = None) -> str:
    done = subprocess.run([sys.executable, "-c", code], cwd=cwd or ROOT, capture_output=True, text=True,
                          timeout=120, env=dict(os.environ, WTC_NO_SERVE="1"))
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_the_table_of_operation_names_is_generated_from_the_classes() -> None:
    done = subprocess.run([sys.executable, "scripts/gen_coordinator_names.py", "--check"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


def test_each_operation_loaded_alone_answers_as_the_full_class() -> None:
    """For each operation, in a fresh process: touch one of its names, then every attribute the class
    has by then must be the very object the class of all nine operations gives (no shadowing), and
    the other operations' modules must still be unloaded."""
    probe = """
import importlib, inspect, json, sys
from worktree_coord.coordinator import Coordinator, OPERATION_ORDER
from worktree_coord.coordinator.operation_names import OPERATIONS
module = sys.argv[1]
getattr(Coordinator, OPERATIONS[module][1][-1])
loaded = sorted(m for m, _ in OPERATION_ORDER if f"worktree_coord.coordinator.{m}" in sys.modules)
partial = {name: inspect.getattr_static(Coordinator, name) for name in set().union(*(vars(k) for k in Coordinator.__mro__[1:]))}
bases = [getattr(importlib.import_module(f"worktree_coord.coordinator.{m}"), c) for m, c in OPERATION_ORDER]
Full = type("Full", tuple(bases), {})
wrong = sorted(n for n, v in partial.items() if not n.startswith("__") and inspect.getattr_static(Full, n) is not v)
print(json.dumps({"loaded": loaded, "wrong": wrong}))
"""
    import json

    for module in sorted(OPERATION_MODULES):
        out = subprocess.run([sys.executable, "-c", probe, module], cwd=ROOT, capture_output=True, text=True,
                             timeout=120)
        assert out.returncode == 0, out.stderr[-3000:]
        seen = json.loads(out.stdout)
        assert seen["wrong"] == [], (module, seen["wrong"])
        # agents.py extends tasks.py; every other operation loads alone.
        assert set(seen["loaded"]) == ({"agents", "tasks"} if module == "agents" else {module}), (module, seen)


def test_an_instance_a_subclass_and_introspection_see_every_operation(repo: Path) -> None:
    out = python("""
import inspect, sys
from worktree_coord.coordinator import Coordinator
with Coordinator('.') as c:
    assert 'worktree_coord.coordinator.merging' not in sys.modules
    print(c.start_run('r1', 'HEAD').run, 'worktree_coord.coordinator.merging' in sys.modules)
    print(inspect.signature(Coordinator.merge))
    try:
        c.no_such_operation
    except AttributeError as error:
        print('AttributeError', error)
    print(isinstance(c, sys.modules['worktree_coord.coordinator.runs'].RunOperations))

class Mine(Coordinator):
    def status(self, run_id=None):
        return super().status(run_id)

with Mine('.') as m:
    print(len(m.status('r1').runs), len([k for k in Coordinator.__mro__ if k.__name__.endswith('Operations')]))
print('gc' in dir(Coordinator))
""", cwd=repo)
    assert out.splitlines() == [
        "r1 False",
        "(self, run_id: 'str', *, verify: 'str | None' = None, batch: 'int' = 1, key: 'str | None' = None) "
        "-> 'MergeReport'",
        "AttributeError 'Coordinator' object has no attribute 'no_such_operation'",
        "True",
        "1 11",
        "True",
    ]


def imported(cwd: Path, *args: str) -> set[str]:
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "worktree_coord", *args], cwd=cwd,
                          env=dict(os.environ, WTC_NO_SERVE="1"), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return {m.group(1) for m in re.finditer(r"import time:\s+\d+ \|\s+\d+ \|\s*(\S+)", done.stderr)}


def operations(modules: set[str]) -> set[str]:
    return {m.rpartition(".")[2] for m in modules if m.startswith("worktree_coord.coordinator.")} & OPERATION_MODULES


def test_each_common_call_loads_only_the_operations_it_runs(repo: Path) -> None:
    subprocess.run([sys.executable, "-m", "worktree_coord", "run", "start", "--run", "r1"], cwd=repo, check=True,
                   capture_output=True, env=dict(os.environ, WTC_NO_SERVE="1"))
    assert operations(imported(repo, "task", "start", "t1", "--run", "r1", "--own", "p/**")) == {"tasks"}
    (repo / ".wtc" / "worktrees" / "r1" / "t1" / "p").mkdir()
    (repo / ".wtc" / "worktrees" / "r1" / "t1" / "p" / "a.txt").write_text("work\n")
    # finish merges onto integration as it ends (merging.py); the other seven stay unloaded
    assert operations(imported(repo, "task", "finish", "t1", "--run", "r1")) == {"tasks", "merging"}
    assert operations(imported(repo, "merge", "--run", "r1")) == {"merging"}
    assert operations(imported(repo, "task", "check", "t1", "--run", "r1")) == {"forecast"}


def test_a_name_the_table_does_not_know_loads_every_operation() -> None:
    """A method added without regenerating operation_names.py (the generator test fails) still answers:
    the unknown name loads every operation, then the lookup runs on the full class."""
    out = python("""
import sys
from worktree_coord.coordinator import operation_names
name, names = operation_names.OPERATIONS["landing"]
operation_names.OPERATIONS["landing"] = (name, tuple(n for n in names if n != "report"))
from worktree_coord.coordinator import Coordinator
print(Coordinator.report.__qualname__, len(Coordinator.__bases__))
try:
    Coordinator.no_such_name
except AttributeError as error:
    print("AttributeError", error)
""")
    assert out.splitlines() == ["LandingOperations.report 9",
                                "AttributeError type object 'Coordinator' has no attribute 'no_such_name'"]
