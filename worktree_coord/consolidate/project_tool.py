"""What a pyproject.toml root uses, named for the words a consolidation says (its text, its commit
subject, its warnings): consolidation keeps every pyproject root that is not Poetry's under one
ecosystem, `uv` (what relocks a uv.lock), but a setuptools or flit project has nothing of uv, and
"uv root" sends its reader looking for a uv.lock it never had.

Input: a checkout folder and a root in it. Output: `uv` for a uv project (a uv.lock at the root or
at the workspace root that locks it, or a `[tool.uv]` table), else the tool its `[build-system]`
names (BUILD_BACKENDS: the backend module's tool, data), else `uv` (no build backend named, as `uv
init` writes an application's, or one not in the table: uv is what consolidation would lock it
with). The ecosystem recorded in `--json` and in the intents stays `uv`: this is a name for people,
never a key.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

# build-backend (its module, before any ":") -> the tool a person knows the project by.
BUILD_BACKENDS: dict[str, str] = {
    "setuptools.build_meta": "setuptools",
    "setuptools.build_meta:__legacy__": "setuptools",
    "flit_core.buildapi": "flit",
    "flit.buildapi": "flit",
    "hatchling.build": "hatch",
    "pdm.backend": "pdm",
    "pdm.pep517.api": "pdm",
    "maturin": "maturin",
    "scikit_build_core.build": "scikit-build-core",
    "mesonpy": "meson-python",
    "poetry.core.masonry.api": "poetry-core",   # not "poetry": that word is the Poetry ecosystem's
    "uv_build": "uv",
}
# Every word `pyproject_tool` answers besides "uv": a consolidation commit's subject naming one of
# them is a `uv` ecosystem root (coordinator/landing.py reads the subject back).
TOOL_WORDS = frozenset(BUILD_BACKENDS.values()) - {"uv"}


def pyproject_tool(workdir: Path, root: str) -> str:
    """The tool the pyproject.toml root `root` of `workdir` uses (module docstring)."""
    from .uv_workspace import disk_reader

    return project_tool(disk_reader(workdir), lambda path: (workdir / path).is_file(), root)


def project_tool(read: Callable[[str], "bytes | None"], exists: Callable[[str], bool], root: str) -> str:
    """The same answer over repo-relative paths: `read` gives a file's bytes (None: absent), `exists`
    says whether a file is there. A finish asks it of the task's commit (the tool its relock line
    names), consolidation of its checkout (pyproject_tool)."""
    import tomllib

    from .uv_workspace import uv_lock_root

    def at(folder: str, name: str) -> str:
        return f"{folder}/{name}" if folder else name

    if exists(at(root, "uv.lock")) or exists(at(uv_lock_root(read, root), "uv.lock")):
        return "uv"
    try:
        data = read(at(root, "pyproject.toml"))
    except OSError:
        data = None
    try:
        document = tomllib.loads(data.decode("utf-8")) if data is not None else None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        document = None
    if not isinstance(document, dict):
        return "uv"    # a name for the words: an unreadable manifest is reported where it is read
    tool = document.get("tool")
    if isinstance(tool, dict) and isinstance(tool.get("uv"), dict):
        return "uv"
    system = document.get("build-system")
    backend = system.get("build-backend") if isinstance(system, dict) else None
    if not isinstance(backend, str):
        return "uv"
    return BUILD_BACKENDS.get(backend.strip()) or BUILD_BACKENDS.get(backend.split(":")[0].strip()) or "uv"
