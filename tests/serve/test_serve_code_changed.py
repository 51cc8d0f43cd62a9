"""A `wtc serve` whose package changed on disk after it loaded (an upgrade in place, an edit of the
checkout) runs no more calls: the next call runs in-process with the new code and says nothing of
it, and the server stops (serve/code_mark.py, serve/server.py). Real processes, a copy of the
package on PYTHONPATH."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from importlib.util import find_spec

import worktree_coord
from tests.conftest import make_repo
from tests.serve.test_serve import Served, run


def _package_copy(site: Path) -> Path:
    """The installed layout (grammars inside the package), bytecode included so nothing recompiles."""
    package = Path(worktree_coord.__file__).parent
    shutil.copytree(package, site / "worktree_coord")
    spec = find_spec("worktree_coord.grammars")
    assert spec is not None and spec.submodule_search_locations
    grammars = Path(spec.submodule_search_locations[0])
    if grammars != package / "grammars":    # an editable checkout maps them to its grammars/ folder
        shutil.copytree(grammars, site / "worktree_coord" / "grammars", dirs_exist_ok=True)
    return site / "worktree_coord"


def _version(repo: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    # "--json" twice: not the exact line entry.py answers itself, so a server would take it.
    return run(repo, "version", "--json", "--json", env=env)


def test_a_changed_module_sends_the_next_call_in_process_and_stops_the_server(tmp_path: Path) -> None:
    copy = _package_copy(tmp_path / "site")
    env = {"PYTHONPATH": str(tmp_path / "site")}
    repo = make_repo(tmp_path / "repo")
    probe = subprocess.run([sys.executable, "-c", "import worktree_coord; print(worktree_coord.__file__)"],
                           cwd=repo, env=dict(os.environ, **env), capture_output=True, text=True, check=True)
    assert probe.stdout.strip() == str(copy / "__init__.py")        # the copy is what runs
    server = Served(repo, env=env)
    try:
        before = _version(repo, env)
        assert before.returncode == 0 and json.loads(before.stdout)["version"] == worktree_coord.__version__
        assert server.process.poll() is None

        init = copy / "__init__.py"
        text = init.read_text()
        assert f'__version__ = "{worktree_coord.__version__}"' in text
        init.write_text(text.replace(f'__version__ = "{worktree_coord.__version__}"', '__version__ = "9.9.9"'))

        after = _version(repo, env)
        assert (after.returncode, json.loads(after.stdout)["version"], after.stderr) == (0, "9.9.9", "")
        assert server.process.wait(timeout=60) == 0                   # it stopped itself
        assert "changed since this server loaded its code" in server.process.stderr.read()
        assert _version(repo, env).stdout == after.stdout
    finally:
        server.stop()


def test_a_mark_sees_files_edited_added_and_removed_but_not_bytecode(tmp_path: Path) -> None:
    from worktree_coord.serve import code_mark

    package = tmp_path / "pkg"
    (package / "sub" / "__pycache__").mkdir(parents=True)
    for name in ("a.py", "sub/b.py", "sub/__pycache__/b.cpython-312.pyc"):
        (package / name).write_text("x = 1\n")
    mark = code_mark.take([str(package)])
    assert code_mark.changed(mark) is None
    (package / "sub" / "__pycache__" / "b.cpython-312.pyc").write_text("recompiled\n")
    (package / "__pycache__").mkdir()      # a first import writes its folder's cache: the folder moved
    (package / "__pycache__" / "a.cpython-312.pyc").write_text("compiled\n")
    assert code_mark.changed(mark) is None
    (package / "sub" / "c.py").write_text("y = 2\n")          # a module added: its folder moved
    assert code_mark.changed(mark) == str(package / "sub")
    mark = code_mark.take([str(package)])
    (package / "a.py").write_text("x = 22\n")                 # an edit in place
    assert code_mark.changed(mark) == str(package / "a.py")
    mark = code_mark.take([str(package)])
    (package / "sub" / "b.py").unlink()
    assert code_mark.changed(mark) is not None
