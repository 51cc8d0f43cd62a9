"""The typed public face: an orchestrator written against `worktree_coord` type-checks with mypy
--strict, as its author's CI would run it (the package's own modules are read, their errors not
reported: what a user sees of an installed package). `py.typed` ships, and the lazily loaded names
are real classes to a type checker, not `object`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import worktree_coord

ROOT = Path(__file__).resolve().parent.parent

USES = '''
from pathlib import Path

from worktree_coord import (
    ActionRequired,
    ConflictRecord,
    ConsolidationReport,
    Coordinator,
    LeftoverRecord,
    TaskFinished,
    TaskState,
    WtcError,
    merge_file,
)


def finish_all(repo: Path, run: str, tasks: list[str]) -> list[str]:
    states: list[str] = []
    with Coordinator(repo) as coordinator:
        for task in tasks:
            try:
                done: TaskFinished = coordinator.finish_task(run, task)
            except WtcError as error:
                states.append(f"{task}: exit {error.exit_code}")
                continue
            states.append(done.state)
            states += [f"{v.path}: {v.rule}" for v in done.violation_records]
            first: ConflictRecord | None = done.conflict_records[0] if done.conflict_records else None
            if first is not None and first.start_line is not None and first.semantic is not None:
                states.append(f"{first.path}:{first.start_line + 1} {first.semantic.name} {first.semantic.use_line}")
        check = coordinator.check_task(run, tasks[0])
        states.append("clean" if check.clean else "conflict")
        consolidated: ConsolidationReport = coordinator.consolidate(run)
        states += [f"{s.intent} {s.state}: {s.fix}" for s in consolidated.skipped_records]
        left: tuple[LeftoverRecord, ...] = coordinator.report(run).leftover_records
        states += [f"{item.what} {item.name} is {item.state}" for item in left]
        try:
            coordinator.land(run, "main", approved=True)
        except ActionRequired as error:
            states.append(error.fix or "")
    merged = merge_file(b"a\\n", b"b\\n", b"a\\n", "x.txt")
    states.append(merged.merged.decode() if merged.clean else TaskState.CONFLICT.value)
    return states
'''


def mypy(*files: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent",
                           "--no-incremental", "--cache-dir=/dev/null", *map(str, files)],
                          capture_output=True, text=True, cwd=ROOT)


def test_py_typed_ships_and_the_stub_names_every_public_name():
    package = Path(worktree_coord.__file__).parent
    assert (package / "py.typed").is_file()
    import ast

    stub = ast.parse((package / "__init__.pyi").read_text())
    named = {alias.asname or alias.name for node in stub.body if isinstance(node, ast.ImportFrom)
             for alias in node.names}
    named |= {node.target.id for node in stub.body if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)}
    assert named - {"__all__"} == set(worktree_coord.__all__)


def test_an_orchestrator_type_checks_against_the_public_api(tmp_path):
    uses = tmp_path / "uses_api.py"
    uses.write_text(USES)
    done = mypy(ROOT / "examples/orchestrator.py", uses)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_wrong_use_of_the_public_api_is_caught(tmp_path):
    # The check could fail: a call the API does not have, and a result read as the wrong type.
    wrong = tmp_path / "wrong_use.py"
    wrong.write_text("from pathlib import Path\nfrom worktree_coord import Coordinator\n\n\n"
                     "def f(repo: Path) -> int:\n    with Coordinator(repo) as c:\n"
                     "        c.finish_everything('r1')\n"
                     "        print(c.finish_task('r1', 't').violation_records[0].line)\n"
                     "        return c.finish_task('r1', 't').state\n")
    done = mypy(wrong)
    assert done.returncode == 1
    assert '"Coordinator" has no attribute "finish_everything"' in done.stdout
    assert '"ViolationRecord" has no attribute "line"' in done.stdout
    assert 'Incompatible return value type (got "str", expected "int")' in done.stdout


def test_an_editable_install_is_found_by_a_type_checker_outside_the_checkout(tmp_path):
    """`pip install -e .` gave setuptools' import-hook install only, which mypy and pyright cannot
    follow: `cd /tmp && mypy -c 'import worktree_coord'` said "Cannot find implementation or library
    stub". The editable wheel the project's build backend makes now also holds a plain path (and its
    import hook still maps `grammars/` to `worktree_coord.grammars`). Built for real, installed into a
    fresh environment as pip would (the wheel's files into its site-packages; the test environment's
    packages on a path line, where their own .pth files are not run), then checked from outside."""
    import os
    import sysconfig
    import zipfile

    wheels = tmp_path / "wheels"
    built = subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, 'build_backend'); "
                            "import worktree_coord_build as backend; print(backend.build_editable(sys.argv[1]))",
                            str(wheels)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr[-3000:]
    wheel = wheels / built.stdout.strip().splitlines()[-1]
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "env")], check=True)
    python = tmp_path / "env" / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
        paths = [line for name in archive.namelist() if name.endswith(".pth")
                 for line in archive.read(name).decode().splitlines() if not line.startswith("import ")]
    assert paths == [str(ROOT)]
    (site / "test-environment.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "uses.py").write_text("from worktree_coord import TaskFinished\n\nstate: int = TaskFinished().state\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MYPYPATH")}
    checked = subprocess.run([str(python), "-m", "mypy", "--no-incremental", "--cache-dir=/dev/null", "uses.py"],
                             cwd=outside, capture_output=True, text=True, env=env, timeout=300)
    assert "Cannot find implementation or library stub" not in checked.stdout, checked.stdout
    assert 'Incompatible types in assignment (expression has type "str", variable has type "int")' in checked.stdout
    ran = subprocess.run([str(python), "-c", "import worktree_coord, importlib.resources as r; "
                          "print(worktree_coord.__file__); print(r.files('worktree_coord.grammars') / 'python.toml'); "
                          "print(worktree_coord.merge_file(b'a = 1\\n', b'a = 2\\n', b'a = 1\\n', 'x.py').merged)"],
                         cwd=outside, capture_output=True, text=True, env=env, timeout=300)
    assert ran.returncode == 0, ran.stderr[-3000:]
    assert ran.stdout.splitlines() == [str(ROOT / "worktree_coord" / "__init__.py"), str(ROOT / "grammars" / "python.toml"),
                                       "b'a = 2\\n'"]
