"""Consolidation of a Poetry 2 project with the real poetry (test extras), network blocked by a closed proxy."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import snapshot, write
from worktree_coord.consolidate import RootState, consolidate_root, derive_intents
from worktree_coord.consolidate.adapters import adapter_for
from worktree_coord.consolidate.adapters.base import find_tool
from worktree_coord.consolidate.textformat import load_toml, plain

pytestmark = pytest.mark.skipif(find_tool("poetry") is None, reason="poetry comes with the test extras")

APP = """[tool.poetry]
package-mode = false

[tool.poetry.dependencies]
python = "^3.11"
lib-a = { path = "../libs/a", develop = true }  # the shared library
"""


def lib(name: str) -> dict[str, str]:
    return {f"libs/{name}/pyproject.toml": f'[project]\nname = "lib-{name}"\nversion = "0.1.0"\nrequires-python = ">=3.11"\n'
                                           f'dependencies = []\n\n[build-system]\nrequires = ["poetry-core>=2"]\n'
                                           f'build-backend = "poetry.core.masonry.api"\n',
            f"libs/{name}/lib_{name}/__init__.py": ""}


def make_repo(repo: Path, env: dict) -> Path:
    write(repo, {"app/pyproject.toml": APP, **lib("a"), **lib("b"), **lib("c")})
    run = adapter_for("poetry", repo, "app", env=env).relock(offline=True)
    assert run.ok, run.stderr
    return repo


def locked(repo: Path) -> dict[str, dict]:
    doc = plain(load_toml("poetry.lock", (repo / "app/poetry.lock").read_bytes()))
    return {p["name"]: p for p in doc["package"]}


def test_path_dependencies_from_two_tasks_lock_offline_keep_comments_and_are_idempotent(tmp_path, tool_env):
    repo = make_repo(tmp_path / "repo", tool_env)
    base = (repo / "app/pyproject.toml").read_bytes()
    a = derive_intents("app/pyproject.toml", base,
                       base + b'lib-b = { path = "../libs/b", develop = true }\n', task="a")
    b = derive_intents("app/pyproject.toml", base,
                       base + b'\n[tool.poetry.group.dev.dependencies]\nlib-c = { path = "../libs/c" }\n', task="b")
    result = consolidate_root(repo, "app", "poetry", b + a, env=tool_env)
    assert result.state == RootState.APPLIED, result.error
    text = (repo / "app/pyproject.toml").read_text()
    assert "# the shared library" in text
    assert set(locked(repo)) == {"lib-a", "lib-b", "lib-c"}
    assert locked(repo)["lib-c"]["groups"] == ["dev"]
    assert consolidate_root(repo, "app", "poetry", a + b, env=tool_env).state == RootState.UNCHANGED


def test_a_registry_package_needs_the_network_and_restores_every_byte(tmp_path, tool_env):
    repo = make_repo(tmp_path / "repo", tool_env)
    before = snapshot(repo / "app")
    base = (repo / "app/pyproject.toml").read_bytes()
    miss = derive_intents("app/pyproject.toml", base, base + b'requests = "^2.31"\n', task="net")
    result = consolidate_root(repo, "app", "poetry", miss, env=tool_env)
    assert result.state == RootState.NEEDS_NETWORK, result.error
    assert snapshot(repo / "app") == before
