"""A conflict names its declaration as the code reads, not by its key (issue 35, section 2).

A key is an identity: `let y` and `const y` share `var y` (one member edited, never one deleted and
another added), Python's assignment is keyed `= y`. Conflict reports and `merge-file` printed those
keys ("def f100 > = y", "var y"); the profile's `[labels]` say how a keyed declaration reads.
"""

from __future__ import annotations

import pytest

from worktree_coord.errors import ConfigError
from worktree_coord.merge import merge_file
from worktree_coord.merge.languages.profiles import load_profile_text


def declarations(base: bytes, old: bytes, left: bytes, right: bytes, path: str) -> list[str]:
    result = merge_file(base, base.replace(old, left), base.replace(old, right), path)
    assert not result.clean and result.has_markers
    return [c.declaration for c in result.conflicts]


def test_python_assignments_read_as_assignments() -> None:
    body = b"def f100():\n    x = 1\n    y = 2\n    return x + y\n"
    assert declarations(body, b"y = 2", b"y = 3", b"y = 4", "pkg/m.py") == ["def f100 > y ="]
    module = b"X = 1\nY = 2\n"
    assert declarations(module, b"Y = 2", b"Y = 3", b"Y = 4", "pkg/m.py") == ["Y ="]


@pytest.mark.parametrize("path", ["src/a.ts", "src/a.js", "src/a.tsx"])
def test_typescript_and_javascript_variables_read_as_written(path: str) -> None:
    source = b"export const x = 1;\nlet y = 2;\nvar w = 3;\nfunction f() {\n  const z = 1;\n  return z;\n}\n"
    assert declarations(source, b"y = 2", b"y = 3", b"y = 4", path) == ["let y"]
    assert declarations(source, b"w = 3", b"w = 4", b"w = 5", path) == ["var w"]
    assert declarations(source, b"x = 1", b"x = 2", b"x = 3", path) == ["export const x"]
    assert declarations(source, b"z = 1", b"z = 2", b"z = 3", path) == ["function f > const z"]
    assigned = b"module.exports.a = 1;\nexports.b = 2;\n"
    assert declarations(assigned, b"a = 1", b"a = 3", b"a = 4", path) == ["module.exports.a ="]


def test_the_key_stays_the_identity() -> None:
    # One side made `let y` a `const`, the other changed its value: one member both edited (a
    # conflict inside it, named as the base wrote it), not a deletion beside an addition.
    base = b"let y = 2;\nexport const a = 1;\n"
    result = merge_file(base, base.replace(b"let y = 2", b"const y = 2"), base.replace(b"let y = 2", b"let y = 5"),
                        "src/a.ts")
    assert [(c.declaration, c.kind) for c in result.conflicts] == [("let y", "content")]


def test_swift_properties_read_as_written() -> None:
    source = b"struct S {\n    let x = 1\n    var y = 2\n}\n"
    assert declarations(source, b"let x = 1", b"let x = 3", b"let x = 5", "Sources/S.swift") == ["struct S > let x"]
    assert declarations(source, b"var y = 2", b"var y = 3", b"var y = 5", "Sources/S.swift") == ["struct S > var y"]


MINI = """
name = "mini"
grammar = "tree_sitter_python"
extensions = ["mini"]

[[containers]]
kind = "module"

[declarations]
function_definition = "def {name}"
expression_statement = "= {assignment.left}"

[labels]
expression_statement = "{assignment.left} ="
"""


def test_labels_are_profile_data_checked_at_load() -> None:
    assert dict(load_profile_text(MINI, "mini.toml").labels) == {"expression_statement": "{assignment.left} ="}
    with pytest.raises(ConfigError, match="neither a field nor a node kind"):
        load_profile_text(MINI.replace("{assignment.left} =", "{asignment.left} ="), "mini.toml")
    with pytest.raises(ConfigError, match="no key in"):
        load_profile_text(MINI + 'class_definition = "class {name}"\n', "mini.toml")
