"""The build backend: setuptools' own, with one thing added to editable installs.

`pip install -e .` (PEP 660) gets setuptools' import-hook editable install here, the one that keeps
the top-level `grammars/` folder mapped to the `worktree_coord.grammars` package
(`[tool.setuptools.package-dir]`). Static tools cannot follow an import hook: mypy and pyright run
outside the checkout found no `worktree_coord` at all ("Cannot find implementation or library stub").
setuptools' `editable_mode=compat` puts a plain path in a .pth file instead, but then the mapping is
lost and `worktree_coord.grammars` does not import (no merge can load a language profile); `strict`
keeps the mapping but misses every module added after the install.

So the editable wheel setuptools builds gets one more file: `__editable__.worktree_coord.paths.pth`,
holding the checkout's root, a plain path that type checkers read (PEP 561: the package ships
`py.typed` and `__init__.pyi`) and Python puts on sys.path. At run time the import hook still answers
`worktree_coord.grammars`; `worktree_coord` itself is the same folder either way. Wheels and sdists
are setuptools' own, unchanged.
"""

from __future__ import annotations

import base64
import hashlib
import os
import zipfile
from pathlib import Path

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F401,F403 - every other hook is setuptools' own

PATHS_FILE = "__editable__.worktree_coord.paths.pth"
ROOT = Path(__file__).resolve().parent.parent     # the checkout: where `worktree_coord/` is


def build_editable(wheel_directory: str, config_settings: dict | None = None,
                   metadata_directory: str | None = None) -> str:
    name = _setuptools.build_editable(wheel_directory, config_settings, metadata_directory)
    if (config_settings or {}).get("editable_mode") in (None, "lenient"):
        _add_file(Path(wheel_directory) / name, PATHS_FILE, f"{ROOT}\n".encode())
    return name


def _add_file(wheel: Path, path: str, data: bytes) -> None:
    """Add one file to a built wheel, with its line in the wheel's RECORD (sha256 and size)."""
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    rebuilt = wheel.with_suffix(".tmp")
    with zipfile.ZipFile(wheel) as source, zipfile.ZipFile(rebuilt, "w", zipfile.ZIP_DEFLATED) as target:
        record = next(item for item in source.namelist() if item.endswith(".dist-info/RECORD"))
        for item in source.infolist():
            content = source.read(item)
            if item.filename == record:
                content = content.rstrip(b"\n") + f"\n{path},sha256={digest},{len(data)}\n".encode()
            target.writestr(item, content)
        target.writestr(path, data)
    os.replace(rebuilt, wheel)
