"""Language profiles load from the installed package and are validated against their grammars."""

from __future__ import annotations

import pytest

from worktree_coord.errors import ConfigError
from worktree_coord.merge.profiles import load_profile_text, load_profiles, profile_for_path

GOOD = """
name = "mini"
grammar = "tree_sitter_python"
extensions = ["mini"]
comments = ["comment"]

[[containers]]
kind = "module"

[declarations]
function_definition = "def {name}"
"""


def test_every_shipped_profile_loads() -> None:
    names = {profile.name for profile in load_profiles()}
    assert names == {"python", "javascript", "typescript", "tsx", "go", "rust", "java", "json", "toml", "yaml"}


@pytest.mark.parametrize("path, language", [
    ("a/b.py", "python"), ("x.pyi", "python"), ("c.tsx", "tsx"), ("c.ts", "typescript"), ("c.mjs", "javascript"),
    ("main.go", "go"), ("lib.rs", "rust"), ("A.java", "java"), ("package.json", "json"), ("Cargo.toml", "toml"),
    (".github/workflows/ci.yml", "yaml"), ("notes.txt", None), ("Cargo.lock", None),
])
def test_profile_for_path(path: str, language: str | None) -> None:
    profile = profile_for_path(path)
    assert (profile.name if profile else None) == language


def test_a_valid_profile_loads() -> None:
    profile = load_profile_text(GOOD, "mini.toml")
    assert profile.declaration_keys == {"function_definition": "def {name}"}


@pytest.mark.parametrize("broken, message", [
    (GOOD.replace('kind = "module"', 'kind = "modul"'), "unknown node kind 'modul'"),
    (GOOD.replace('function_definition = ', 'function_definitio = '), "unknown node kind 'function_definitio'"),
    (GOOD.replace('"def {name}"', '"def {nme}"'), "names 'nme'"),
    (GOOD.replace('comments = ["comment"]', 'comments = ["coment"]'), "unknown node kind 'coment'"),
    (GOOD.replace('kind = "module"', 'kind = "module"\nordered = true'), "unknown container option"),
    ('whatever = 1\n' + GOOD, "unknown setting"),
    (GOOD.replace('grammar = "tree_sitter_python"', 'grammar = "tree_sitter_cobol"'), "not installed"),
    ("name = ", "not valid TOML"),
])
def test_invalid_profiles_are_config_errors(broken: str, message: str) -> None:
    with pytest.raises(ConfigError) as raised:
        load_profile_text(broken, "mini.toml")
    assert message in raised.value.message
