"""A consolidated manifest holds each new dependency where its task wrote it, as it wrote it, and
every other byte as it was (dask, driven as a user: `tomli` written after `toolz` landed last, as
`uv add` appends, and the one-line `array = [...]` another task added to came back over four lines).
Where the task's placement is the tool's own (it ran `uv add`, `cargo add`, `npm install`), the
consolidated file is the tool's file. Real uv, cargo and npm, offline, caches in tmp."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from conftest import write
from worktree_coord.consolidate import RootState, consolidate_root, declare_intent, derive_intents
from worktree_coord.consolidate.adapters import adapter_for
from worktree_coord.consolidate.adapters.base import find_tool
from worktree_coord.consolidate.adapters.base import tool_env as run_env
from worktree_coord.consolidate.edits import edit_manifest

# A setuptools project the way dask writes its pyproject.toml: a comment block above the last entry,
# one-line extras, no lockfile.
SETUPTOOLS = b'''[build-system]
requires = ["setuptools>=80"]
build-backend = "setuptools.build_meta"

[project]
name = "dask-like"
dependencies = [
    # NOTE: These must match the versions listed in `pixi.toml`
    "click >= 8.1",
    "toolz >= 0.12.0",
    # importlib.metadata has the following bugs fixed in 3.10.9 and 3.11.1
    # https://github.com/python/cpython/issues/99130
    "importlib_metadata >= 4.13.0; python_version < '3.12' ",
]
dynamic = ["version"]

[project.optional-dependencies]
array = ["numpy >= 1.24"]
# keeping for backwards compatibility
bag = []
'''


def test_two_tasks_entries_land_where_and_as_they_wrote_them_and_nothing_else_moves(tmp_path):
    tomli = SETUPTOOLS.replace(b'    "toolz >= 0.12.0",\n', b'    "toolz >= 0.12.0",\n    "tomli >= 2.0",\n')
    scipy = SETUPTOOLS.replace(b'array = ["numpy >= 1.24"]', b'array = ["numpy >= 1.24", "scipy >= 1.10"]')
    marker = SETUPTOOLS.replace(b'    "click >= 8.1",\n', b"    \"click >= 8.1\",\n    \"exceptiongroup; python_version < '3.11'\",\n")
    intents = (derive_intents("pyproject.toml", SETUPTOOLS, tomli, task="t1")
               + derive_intents("pyproject.toml", SETUPTOOLS, scipy, task="t2")
               + derive_intents("pyproject.toml", SETUPTOOLS, marker, task="t3"))
    write(tmp_path, {"pyproject.toml": SETUPTOOLS})
    result = consolidate_root(tmp_path, "", "uv", intents)
    assert result.state == RootState.APPLIED, result.error
    expected = tomli.replace(b'array = ["numpy >= 1.24"]', b'array = ["numpy >= 1.24", "scipy >= 1.10"]').replace(
        b'    "click >= 8.1",\n', b"    \"click >= 8.1\",\n    \"exceptiongroup; python_version < '3.11'\",\n")
    assert (tmp_path / "pyproject.toml").read_bytes() == expected
    assert not (tmp_path / "uv.lock").exists()          # a project that locks nothing is not given a lock


def test_entries_a_task_added_side_by_side_keep_its_order_whichever_is_applied_first():
    three = SETUPTOOLS.replace(b'    "toolz >= 0.12.0",\n',
                               b'    "toolz >= 0.12.0",\n    "zict >= 3",\n    "attrs",\n    "tomli >= 2.0",\n')
    intents = derive_intents("pyproject.toml", SETUPTOOLS, three, task="t")
    assert len(intents) == 3
    for order in (intents, intents[::-1], [intents[1], intents[2], intents[0]]):
        data = SETUPTOOLS
        for intent in order:
            data = edit_manifest("pyproject.toml", data, intent)
        assert data == three


def uv_workspace(ws: Path, env: dict, dependencies: str) -> bytes:
    root = (f'[project]\nname = "app"\nversion = "0.1.0"\nrequires-python = ">=3.11"\ndependencies = [\n{dependencies}]\n\n'
            '[tool.uv.sources]\nlib-a = { workspace = true }\nlib-c = { workspace = true }\n'
            'lib-z = { workspace = true }\n\n[tool.uv.workspace]\nmembers = ["libs/*"]\n')
    files = {"pyproject.toml": root}
    for name in ("lib-a", "lib-b", "lib-c", "lib-z"):
        files[f"libs/{name}/pyproject.toml"] = (f'[project]\nname = "{name}"\nversion = "0.1.0"\nrequires-python = ">=3.11"\n'
                                                '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n')
        files[f"libs/{name}/src/{name.replace('-', '_')}/__init__.py"] = ""
    write(ws, files)
    assert adapter_for("uv", ws, "", env=env).relock(offline=True).ok
    return root.encode()


def test_a_uv_root_relocks_with_the_entry_where_the_task_wrote_it_in_a_list_not_sorted(tmp_path, tool_env):
    ws = tmp_path / "ws"
    base = uv_workspace(ws, tool_env, '    "lib-z",\n    "lib-a",\n')
    new = base.replace(b'    "lib-z",\n', b'    "lib-z",\n    "lib-b",\n').replace(
        b"lib-c = { workspace = true }\n", b"lib-b = { workspace = true }\nlib-c = { workspace = true }\n")
    result = consolidate_root(ws, "", "uv", derive_intents("pyproject.toml", base, new, task="t"), env=tool_env)
    assert result.state == RootState.APPLIED, result.error
    assert (ws / "pyproject.toml").read_bytes() == new
    assert 'name = "lib-b"' in (ws / "uv.lock").read_text()
    assert adapter_for("uv", ws, "", env=tool_env).check()[0].ok   # `uv lock --check`: the lock is fresh


def edited_by_tool(ws: Path, task: Path, argv: list[str], env: dict, manifest: str) -> bytes:
    """`manifest` as the tool `argv` leaves it in a copy of `ws` (the task's worktree, where it ran)."""
    shutil.copytree(ws, task)
    done = subprocess.run(argv, cwd=task, capture_output=True, text=True, env=run_env(env))
    assert done.returncode == 0, done.stderr
    return (task / manifest).read_bytes()


def test_a_task_that_ran_uv_add_gets_uv_adds_file(tmp_path, tool_env):
    """Where the task's placement is the tool's own, the consolidated file is the one the tool
    wrote in the task's worktree: in order in a sorted list; and a declared intent (no placement
    recorded) goes where `uv add` puts it too."""
    ws = tmp_path / "ws"
    base = uv_workspace(ws, tool_env, '    "lib-a",\n    "lib-c",\n    "lib-z",\n')
    by_uv = edited_by_tool(ws, tmp_path / "task", [find_tool("uv"), "add", "--frozen", "--no-progress", "lib-b"],
                           tool_env, "pyproject.toml")
    assert by_uv.index(b'"lib-a"') < by_uv.index(b'"lib-b"') < by_uv.index(b'"lib-c"')
    result = consolidate_root(ws, "", "uv", derive_intents("pyproject.toml", base, by_uv, task="t"), env=tool_env)
    assert result.state == RootState.APPLIED, result.error
    assert (ws / "pyproject.toml").read_bytes() == by_uv
    declared = declare_intent("pyproject.toml", base, task="d", op="add_dep", name="lib-b", spec=None,
                              source={"workspace": True})
    assert edit_manifest("pyproject.toml", base, declared) == by_uv


CARGO = b'''[package]
name = "a"
version = "0.1.0"
edition = "2021"

[dependencies]
b = { path = "crates/b" }
z = { path = "crates/z" }  # last

[workspace]
members = ["crates/*"]
'''


def cargo_workspace(ws: Path, env: dict) -> None:
    files = {"Cargo.toml": CARGO, "src/lib.rs": ""}
    for name in ("b", "m", "z"):
        files[f"crates/{name}/Cargo.toml"] = f'[package]\nname = "{name}"\nversion = "0.1.0"\nedition = "2021"\n'
        files[f"crates/{name}/src/lib.rs"] = ""
    write(ws, files)
    assert adapter_for("cargo", ws, "", env=env).relock(offline=True).ok


def test_a_task_that_ran_cargo_add_gets_cargo_adds_file_and_a_hand_placed_crate_stays_put(tmp_path, tool_env):
    ws = tmp_path / "ws"
    cargo_workspace(ws, tool_env)
    by_cargo = edited_by_tool(ws, tmp_path / "task", ["cargo", "add", "--offline", "--path", "crates/m"], tool_env,
                              "Cargo.toml")
    assert by_cargo.index(b"\nb = ") < by_cargo.index(b"\nm = ") < by_cargo.index(b"\nz = ")
    result = consolidate_root(ws, "", "cargo", derive_intents("Cargo.toml", CARGO, by_cargo, task="t"), env=tool_env)
    assert result.state == RootState.APPLIED, result.error
    assert (ws / "Cargo.toml").read_bytes() == by_cargo

    # A crate the task put by hand at the top of a table it does not keep sorted: not moved to cargo's place.
    unsorted = by_cargo.replace(b'z = { path = "crates/z" }  # last\n', b"").replace(
        b"[dependencies]\n", b'[dependencies]\nz = { path = "crates/z" }  # first\n')
    by_hand = unsorted.replace(b"[dependencies]\n", b'[dependencies]\nserde = "1"\n')
    [intent] = derive_intents("Cargo.toml", unsorted, by_hand, task="h")
    assert edit_manifest("Cargo.toml", unsorted, intent) == by_hand


def test_a_registry_crate_cargo_cannot_add_offline_goes_where_the_task_wrote_it(tmp_path, tool_env):
    """`cargo add --offline` fails for a crate not in the cache, and the structural editor writes it:
    in the task's place (here cargo's own, sorted), not appended below `z`."""
    ws = tmp_path / "ws"
    cargo_workspace(ws, tool_env)
    new = CARGO.replace(b'b = { path = "crates/b" }\n', b'b = { path = "crates/b" }\nserde = "1"\n')
    [intent] = derive_intents("Cargo.toml", CARGO, new, task="t")
    assert adapter_for("cargo", ws, "", env=tool_env).edit(intent) == "structural"
    assert (ws / "Cargo.toml").read_bytes() == new


def test_package_json_a_task_that_ran_npm_install_gets_npms_file_and_an_unsorted_object_is_not_resorted(tmp_path,
                                                                                                      tool_env):
    base = b'{\n  "name": "root",\n  "version": "1.0.0",\n  "dependencies": {\n    "x": "file:libs/x",\n    "y": "file:libs/y"\n  }\n}\n'
    ws = tmp_path / "ws"
    write(ws, {"package.json": base, **{f"libs/{p}/package.json": f'{{"name": "{p}", "version": "1.0.0"}}\n'
                                        for p in ("m", "x", "y")}})
    by_npm = edited_by_tool(ws, tmp_path / "task", ["npm", "install", "--package-lock-only", "--ignore-scripts",
                                                    "--no-audit", "--no-fund", "--offline", "file:libs/m"],
                            tool_env, "package.json")
    [intent] = derive_intents("package.json", base, by_npm, task="t")
    assert edit_manifest("package.json", base, intent) == by_npm

    unsorted = base.replace(b'    "x": "file:libs/x",\n    "y": "file:libs/y"\n', b'    "y": "file:libs/y",\n    "x": "file:libs/x"\n')
    by_hand = unsorted.replace(b'"file:libs/y",\n', b'"file:libs/y",\n    "m": "file:libs/m",\n')
    [intent] = derive_intents("package.json", unsorted, by_hand, task="h")
    assert edit_manifest("package.json", unsorted, intent) == by_hand


POETRY = b'''[tool.poetry]
name = "app"
version = "0.1.0"

[tool.poetry.dependencies]
python = "^3.11"
requests = "^2.31"  # http
attrs = "^23"
'''


def test_a_poetry_dependency_goes_where_the_task_wrote_it():
    new = POETRY.replace(b'# http\n', b'# http\nhttpx = "^0.27"\n')
    [intent] = derive_intents("pyproject.toml", POETRY, new, task="t")
    assert edit_manifest("pyproject.toml", POETRY, intent) == new


PIXI = b'''[workspace]
name = "w"
channels = ["conda-forge"]
platforms = ["linux-64"]

[dependencies]
python = ">=3.11"
'''


def test_an_inline_table_lands_with_the_keys_in_the_order_the_task_wrote_them():
    # user-drive13 on rich: `{ path = "../mylib", develop = true }` landed as `{ develop = true, path =
    # "../mylib" }` (the model's sorted order); a changed spec of such a table keeps the task's text too.
    cases = [
        ("pyproject.toml", POETRY, POETRY.replace(b'attrs = "^23"\n', b'attrs = "^23"\nmylib = { path = "../mylib", develop = true }\n')),
        ("pyproject.toml", POETRY, POETRY.replace(b'requests = "^2.31"', b'requests = {version="^2.32", extras=["socks"]}')),
        ("Cargo.toml", CARGO, CARGO.replace(b'z = {', b'serde = { features = ["derive"], version = "1" }\nz = {')),
        ("pixi.toml", PIXI, PIXI + b'numpy = { version = ">=2", channel = "conda-forge" }\n'),
    ]
    for path, base, new in cases:
        [intent] = derive_intents(path, base, new, task="t")
        assert edit_manifest(path, base, intent) == new, path
