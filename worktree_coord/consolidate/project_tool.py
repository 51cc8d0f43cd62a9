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
    import tomllib

    from .uv_workspace import disk_reader, uv_lock_root

    folder = workdir / root if root else workdir
    if (folder / "uv.lock").is_file():
        return "uv"
    lock_root = uv_lock_root(disk_reader(workdir), root)
    if (workdir / lock_root / "uv.lock" if lock_root else workdir / "uv.lock").is_file():
        return "uv"
    try:
        document = tomllib.loads((folder / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return "uv"    # a name for the words: an unreadable manifest is reported where it is read
    tool = document.get("tool")
    if isinstance(tool, dict) and isinstance(tool.get("uv"), dict):
        return "uv"
    system = document.get("build-system")
    backend = system.get("build-backend") if isinstance(system, dict) else None
    if not isinstance(backend, str):
        return "uv"
    return BUILD_BACKENDS.get(backend.strip()) or BUILD_BACKENDS.get(backend.split(":")[0].strip()) or "uv"
