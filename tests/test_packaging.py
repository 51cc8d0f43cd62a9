"""The wheel a fresh `pip install .` builds holds every package and data file the tool imports.

The editable install the README uses reads the source tree, so a package missing from
pyproject's list goes unnoticed until someone installs a wheel: then `wtc hook ...` fails with
ModuleNotFoundError. These tests build the real wheel and read its file list.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _source_packages() -> set[str]:
    found = set()
    for init in (ROOT / "worktree_coord").rglob("__init__.py"):
        if "__pycache__" in init.parts:
            continue
        found.add(".".join(init.parent.relative_to(ROOT).parts))
    return found


def test_every_source_package_is_listed_in_pyproject():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    missing = sorted(_source_packages() - listed)
    assert not missing, f"add these to [tool.setuptools] packages in pyproject.toml: {missing}"


@pytest.mark.slow
def test_built_wheel_holds_every_package_and_the_grammars(tmp_path):
    # Build from a copy of the checkout's files: setuptools writes build/ beside the sources.
    source = tmp_path / "source"
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, check=True,
                            capture_output=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        if (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(tmp_path / "out"),
         str(source)],
        check=True,
        capture_output=True,
    )
    (wheel,) = (tmp_path / "out").glob("worktree_coord-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    for package in _source_packages():
        init = package.replace(".", "/") + "/__init__.py"
        assert init in names, f"{init} missing from the wheel"
    assert "worktree_coord/grammars/python.toml" in names
    assert "worktree_coord/py.typed" in names
    # `wtc ui`'s page: every asset it serves (server.STATIC) is package data.
    from worktree_coord.ui.server import STATIC

    for asset in STATIC:
        assert f"worktree_coord/ui/static/{asset}" in names, f"{asset} of wtc ui missing from the wheel"
