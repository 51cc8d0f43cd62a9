"""A spec lands as its task wrote it, and an edit's read-back compares specs as specifier sets.

packaging sorts a specifier set's text (`>=1.0.9,<2` reads as `<2,>=1.0.9`) and uv writes its own
order (`==1.*,>=1.0.9`); neither is what the task wrote, and a read-back that compared text refused
an edit that did apply. Real uv, pip-compile, cargo and npm's editors where the other tests use them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import write
from worktree_coord.consolidate import RootState, consolidate_root, declare_intent, derive_intents
from worktree_coord.consolidate.adapters import adapter_for
from worktree_coord.consolidate.adapters.base import find_tool
from worktree_coord.consolidate.intent import Ecosystem, Intent, Op
from worktree_coord.consolidate.textformat import load_toml, plain
from worktree_coord.errors import EditError, UsageError

needs_uv = pytest.mark.skipif(find_tool("uv") is None, reason="uv comes with the test extras")

PROJECT = '''[project]
name = "app"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = [
    "lib-a",
]

[tool.uv.sources]
lib-a = { workspace = true }

[tool.uv.workspace]
members = ["libs/*"]
'''

VIRTUAL = '''[tool.uv.workspace]
members = ["libs/*"]

[dependency-groups]
dev = [
    "lib-a",
]

[tool.uv.sources]
lib-a = { workspace = true }
'''


def lib(name: str) -> dict[str, str]:
    return {f"libs/{name}/pyproject.toml": f'[project]\nname = "{name}"\nversion = "0.1.0"\nrequires-python = ">=3.11"\n'
                                           f'dependencies = []\n\n[build-system]\nrequires = ["hatchling"]\n'
                                           f'build-backend = "hatchling.build"\n',
            f"libs/{name}/src/{name.replace('-', '_')}/__init__.py": ""}


def workspace(ws: Path, root: str, env: dict) -> bytes:
    write(ws, {"pyproject.toml": root, **lib("lib-a"), **lib("lib-b")})
    assert adapter_for("uv", ws, "", env=env).relock(offline=True).ok
    return (ws / "pyproject.toml").read_bytes()


def requirements(ws: Path, group: str) -> list[str]:
    doc = plain(load_toml("pyproject.toml", (ws / "pyproject.toml").read_bytes()))
    return doc["project"]["dependencies"] if group == "dependencies" else doc["dependency-groups"]["dev"]


def test_a_requirement_edit_derives_the_spec_as_written_and_a_reordering_derives_nothing():
    base = b'[project]\nname = "app"\nversion = "0"\ndependencies = ["httpcore>=1"]\n'
    [intent] = derive_intents("pyproject.toml", base, base.replace(b'"httpcore>=1"', b'"httpcore>=1.0.9,<2"'), task="t")
    assert (intent.op, intent.spec) == (Op.SET_SPEC, ">=1.0.9,<2")       # packaging would say "<2,>=1.0.9"
    spaced = derive_intents("pyproject.toml", base, base.replace(b'"httpcore>=1"', b'"httpcore (>= 1.0.9, < 2)"'),
                            task="t")
    assert [i.spec for i in spaced] == [">= 1.0.9, < 2"]
    ordered = base.replace(b'"httpcore>=1"', b'"httpcore>=1.0.9,<2"')
    assert derive_intents("pyproject.toml", ordered, ordered.replace(b">=1.0.9,<2", b"<2,>=1.0.9"), task="t") == []


@needs_uv
@pytest.mark.parametrize("root, group, written, how", [
    # pyproject.toml is edited by tomlkit, never `uv add` (adapters/uv.py), so the text is the task's
    (PROJECT, "dependencies", "<1,>=0.1.0", "structural"),        # `uv add` would write ">=0.1.0,<1"
    (PROJECT, "dependencies", ">=0.1.0,==0.*", "structural"),     # `uv add` would write "==0.*,>=0.1.0"
    (VIRTUAL, "dev", ">=0.1.0,<1", "structural"),                 # a virtual root; "<1,>=0.1.0" before
])
def test_uv_writes_the_spec_as_the_task_wrote_it_and_relocks(tmp_path, tool_env, root, group, written, how):
    ws = tmp_path / "ws"
    base = workspace(ws, root, tool_env)
    new = base.replace(b'    "lib-a",\n', f'    "lib-a",\n    "lib-b{written}",\n'.encode()).replace(
        b"lib-a = { workspace = true }\n", b"lib-a = { workspace = true }\nlib-b = { workspace = true }\n")
    intents = derive_intents("pyproject.toml", base, new, task="t")
    assert [i.spec for i in intents if i.name == "lib-b"] == [written]
    result = consolidate_root(ws, "", "uv", intents, env=tool_env)
    assert result.state == RootState.APPLIED, result.error
    assert f"lib-b{written}" in requirements(ws, group)
    assert set(dict(result.edit_methods).values()) == {how}
    assert consolidate_root(ws, "", "uv", intents, env=tool_env).state == RootState.UNCHANGED


@needs_uv
def test_a_declared_spec_uv_reorders_applies_keeps_its_source_and_is_satisfied_after(tmp_path, tool_env):
    # Issue 41: `intent add --spec '>=1.0.9,==1.*'` was refused at consolidation, "did not read back
    # as intended", because uv wrote "==1.*,>=1.0.9" and the read-back compared text.
    ws = tmp_path / "ws"
    base = workspace(ws, PROJECT, tool_env)
    intent = declare_intent("pyproject.toml", base, task="t", op="set_spec", name="lib-a", spec=">=0.1.0,==0.*",
                            ecosystem="uv")
    assert intent.source_dict() == {"workspace": True}     # a new spec leaves the workspace source as it is
    result = consolidate_root(ws, "", "uv", [intent], env=tool_env)
    assert result.state == RootState.APPLIED, result.error
    assert requirements(ws, "dependencies") == ["lib-a>=0.1.0,==0.*"]
    assert plain(load_toml("pyproject.toml", (ws / "pyproject.toml").read_bytes()))["tool"]["uv"]["sources"] == {
        "lib-a": {"workspace": True}}
    again = consolidate_root(ws, "", "uv", [intent], env=tool_env)
    assert again.state == RootState.UNCHANGED, again.error


@needs_uv
def test_an_edit_that_truly_does_not_read_back_says_what_was_expected_and_what_was_read(tmp_path, tool_env):
    ws = tmp_path / "ws"
    base = workspace(ws, PROJECT, tool_env)
    # Stored before `intent add` checked specs: written after the name, it names another package.
    intent = Intent(intent_id="t:pyproject.toml:set_spec:dependencies:lib-a", task="t", ecosystem="uv", root="",
                    manifest="pyproject.toml", op="set_spec", group="dependencies", name="lib-a", spec="latest",
                    source={"workspace": True}, expected_before=json.dumps({"source": {"workspace": True}}))
    with pytest.raises(EditError) as raised:
        adapter_for("uv", ws, "", env=tool_env).edit(intent)
    assert "did not read back as intended: expected '{\"source\":{\"workspace\":true},\"spec\":\"latest\"}', " \
           "read nothing (the key is absent)" in raised.value.message
    assert raised.value.details["read"] is None
    assert (ws / "pyproject.toml").read_bytes() == base


def test_a_declared_python_spec_that_is_no_specifier_set_is_refused_at_once():
    base = b'[project]\nname = "app"\nversion = "0"\ndependencies = ["httpcore>=1"]\n'
    with pytest.raises(UsageError) as raised:
        declare_intent("pyproject.toml", base, task="t", op="set_spec", name="httpcore", spec="latest", ecosystem="uv")
    assert raised.value.exit_code == 2 and "'latest' for httpcore is not a PEP 440 version specifier" in str(raised.value)
    ok = declare_intent("pyproject.toml", base, task="t", op="set_spec", name="httpcore", spec=">=1.0.9,<2",
                        ecosystem="uv")
    assert ok.spec == ">=1.0.9,<2"


@pytest.mark.skipif(find_tool("pip-compile") is None, reason="pip-tools comes with the test extras")
def test_a_requirements_file_keeps_the_line_as_written(tmp_path, tool_env):
    root = tmp_path / "app"
    write(root, {"requirements.in": "alpha>=1\n"})
    base = b"alpha>=1\n"
    [intent] = derive_intents("requirements.in", base, b"alpha>=1.0.9,<2\n", task="t")
    adapter_for("pip-tools", root, "", env=tool_env).edit(intent)
    assert (root / "requirements.in").read_text() == "alpha>=1.0.9,<2\n"


@pytest.mark.parametrize("ecosystem, manifest, base, new, expected", [
    ("npm", "package.json", b'{\n  "name": "a",\n  "dependencies": {\n    "x": "^1.0.0"\n  }\n}\n',
     b'{\n  "name": "a",\n  "dependencies": {\n    "x": ">=1.2.0  <2"\n  }\n}\n', '"x": ">=1.2.0  <2"'),
    ("cargo", "Cargo.toml", b'[package]\nname = "a"\nversion = "0.1.0"\n\n[dependencies]\nx = "1"\n',
     b'[package]\nname = "a"\nversion = "0.1.0"\n\n[dependencies]\nx = ">=1.2,<2"\n', 'x = ">=1.2,<2"'),
])
def test_other_ecosystems_write_the_spec_as_the_task_wrote_it(tmp_path, tool_env, ecosystem, manifest, base, new,
                                                              expected):
    write(tmp_path, {manifest: base})
    [intent] = derive_intents(manifest, base, new, task="t", ecosystem=ecosystem)
    adapter_for(ecosystem, tmp_path, "", env=tool_env).edit(intent)
    assert expected in (tmp_path / manifest).read_text()
    assert Ecosystem(ecosystem) == intent.ecosystem


@needs_uv
def test_a_uv_override_keeps_its_spec_as_written_and_a_reordering_derives_nothing(tmp_path, tool_env):
    base = b'[project]\nname = "app"\nversion = "0"\ndependencies = []\n\n[tool.uv]\noverride-dependencies = ["idna>=3"]\n'
    new = base.replace(b'"idna>=3"', b'"idna>=3.7,<4"')
    [intent] = derive_intents("pyproject.toml", base, new, task="t", ecosystem="uv")
    assert (intent.op, intent.spec) == (Op.SET_OVERRIDE, ">=3.7,<4")
    write(tmp_path, {"pyproject.toml": base})
    adapter_for("uv", tmp_path, "", env=tool_env).edit(intent)
    assert b'override-dependencies = ["idna>=3.7,<4"]' in (tmp_path / "pyproject.toml").read_bytes()
    assert derive_intents("pyproject.toml", new, new.replace(b">=3.7,<4", b"<4,>=3.7"), task="t", ecosystem="uv") == []


SETUPTOOLS = '''[build-system]
requires = ["setuptools>=62"]
build-backend = "setuptools.build_meta"

[project]
name = "app"
version = "0.1.0"
dependencies = [
    "click >= 8.1",
    "toolz >= 0.12.0",
]
'''


@needs_uv
def test_a_spaced_requirement_keeps_the_space_after_its_name(tmp_path, tool_env):
    # dask writes `"toolz >= 0.12.0"`; a task adding `"tomli >= 2.0"` beside it had `"tomli>= 2.0"` written.
    ws = tmp_path / "ws"
    write(ws, {"pyproject.toml": SETUPTOOLS})
    base = SETUPTOOLS.encode()
    new = base.replace(b'    "toolz >= 0.12.0",\n', b'    "toolz >= 0.12.0",\n    "tomli >= 2.0",\n')
    intents = derive_intents("pyproject.toml", base, new, task="t")
    result = consolidate_root(ws, "", "uv", intents, env=tool_env)
    assert result.state == RootState.APPLIED, result.error
    assert "tomli >= 2.0" in requirements(ws, "dependencies")


@pytest.mark.parametrize("spec, text", [(">= 2.0", "tomli >= 2.0"), (">=2.0", "tomli>=2.0"),
                                        (">= 1.0.9, < 2", "tomli >= 1.0.9, < 2"), ("~= 2.0", "tomli ~= 2.0")])
def test_the_requirement_text_follows_the_specs_spacing(spec, text):
    from worktree_coord.consolidate.edits.pyproject import requirement_text
    intent = Intent(intent_id="i", task="t", ecosystem=Ecosystem.UV, root="", manifest="pyproject.toml",
                    op=Op.ADD_DEP, group="dependencies", name="tomli", spec=spec)
    assert requirement_text(intent) == text
