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


def _fake_distribution(site: Path, name: str, version: str) -> Path:
    """An installed distribution as an installer leaves it: the module, a compiled binding, and a
    dist-info folder whose RECORD lists them. Returns the dist-info folder."""
    (site / name).mkdir(parents=True, exist_ok=True)
    (site / name / "__init__.py").write_text("from ._binding import language\n")
    (site / name / "_binding.abi3.so").write_bytes(b"\x7fELF not really\n")
    info = site / f"{name}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name.replace('_', '-')}\nVersion: {version}\n")
    (info / "RECORD").write_text(f"{name}/__init__.py,,\n{name}/_binding.abi3.so,,\n{info.name}/METADATA,,\n"
                                 f"{info.name}/RECORD,,\n")
    return info


def _replaced(path: Path, data: bytes) -> None:
    """The file written anew and renamed over the old one, as an installer does (a new inode)."""
    temporary = path.with_name(path.name + ".new")
    temporary.write_bytes(data)
    temporary.replace(path)


def test_a_mark_sees_a_required_distribution_reinstalled_replaced_or_upgraded(tmp_path: Path, monkeypatch) -> None:
    """A grammar wheel (or pygit2, tree-sitter) the server loaded, changed under it: its RECORD
    written anew (any reinstall), its compiled binding replaced, or its dist-info gone (an upgrade)."""
    from worktree_coord.serve import code_mark

    site = tmp_path / "site"
    info = _fake_distribution(site, "tree_sitter_fake", "1.0")
    monkeypatch.syspath_prepend(str(site))
    files = code_mark.distribution_files(["tree-sitter-fake", "not-installed-at-all"])
    record, binding = str(info / "RECORD"), str(site / "tree_sitter_fake" / "_binding.abi3.so")
    assert sorted(files) == sorted([record, binding])          # a few files stand for the distribution
    mark = code_mark.take([], files)
    assert code_mark.changed(mark) is None
    os.utime(site / "tree_sitter_fake" / "__init__.py")       # not marked: the RECORD stands for it
    assert code_mark.changed(mark) is None
    _replaced(info / "RECORD", (info / "RECORD").read_bytes())  # reinstalled (the same bytes, a new file)
    assert code_mark.changed(mark) == record
    mark = code_mark.take([], code_mark.distribution_files(["tree-sitter-fake"]))
    _replaced(site / "tree_sitter_fake" / "_binding.abi3.so", b"\x7fELF another build\n")
    assert code_mark.changed(mark) == binding
    mark = code_mark.take([], code_mark.distribution_files(["tree-sitter-fake"]))
    info.rename(site / "tree_sitter_fake-2.0.dist-info")       # upgraded: the old dist-info is gone
    assert code_mark.changed(mark) == record


def test_the_required_distributions_are_the_packages_own_requirements_without_extras() -> None:
    from worktree_coord.serve import code_mark

    names = code_mark.required_distributions()
    assert {"pygit2", "tree-sitter", "tree-sitter-python", "libcst"} <= set(names), names
    assert "pytest" not in names and "opentelemetry-sdk" not in names      # extras' only
    files = code_mark.distribution_files(names)
    assert any(f.endswith("/RECORD") and "pygit2-" in f for f in files)
    assert any("tree_sitter_python" in f and f.endswith(".so") for f in files), files


def test_an_upgraded_dependency_sends_the_next_call_in_process_and_stops_the_server(tmp_path: Path) -> None:
    """pygit2 reinstalled under a running server (a copy on PYTHONPATH, its RECORD and its binding
    written anew as an installer writes them): the next call runs in-process, the server stops."""
    site = tmp_path / "site"
    installed = Path(find_spec("pygit2").origin).parent.parent
    [info] = installed.glob("pygit2-*.dist-info")
    for folder in ("pygit2", "pygit2.libs", info.name):
        shutil.copytree(installed / folder, site / folder, ignore=shutil.ignore_patterns("__pycache__"))
    env = {"PYTHONPATH": os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))}
    repo = make_repo(tmp_path / "repo")
    probe = subprocess.run([sys.executable, "-c", "import pygit2; print(pygit2.__file__)"],
                           cwd=repo, env=dict(os.environ, **env), capture_output=True, text=True, check=True)
    assert probe.stdout.strip() == str(site / "pygit2" / "__init__.py")   # the copy is what loads
    server = Served(repo, env=env)
    try:
        assert _version(repo, env).returncode == 0 and server.process.poll() is None
        [binding] = (site / "pygit2").glob("_pygit2*.so")
        _replaced(binding, binding.read_bytes())
        _replaced(site / info.name / "RECORD", (site / info.name / "RECORD").read_bytes())
        after = _version(repo, env)
        assert after.returncode == 0 and after.stderr == "", after.stderr
        assert server.process.wait(timeout=60) == 0                    # it stopped itself
        log = server.process.stderr.read()
        assert "changed since this server loaded its code" in log and "pygit2" in log, log
    finally:
        server.stop()
