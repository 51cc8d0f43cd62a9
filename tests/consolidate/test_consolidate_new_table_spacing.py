"""A table consolidation adds to a manifest keeps the blank line before the table after it.

Found driving wtc on attrs: a task added `[project.optional-dependencies]`; consolidation applied
the intent to the integration's pyproject.toml and wrote the new table right after
`[project.urls]`'s keys with `[dependency-groups]` on the line below its last key (tomlkit leaves
the blank lines it found with the table before). Valid TOML, but a diff a reviewer has to fix.
"""

from __future__ import annotations

import tomllib

from worktree_coord.consolidate.derive import derive_intents
from worktree_coord.consolidate.edits import cargo_toml, pyproject

BASE = (b'[project]\nname = "x"\ndependencies = []\n\n[project.urls]\nHome = "https://x.invalid"\n\n\n'
        b'[dependency-groups]\ntests = ["pytest"]\n')


def test_a_new_optional_dependencies_table_is_followed_by_a_blank_line():
    task = BASE.replace(b"[project.urls]", b'[project.optional-dependencies]\npickle = ["cloudpickle>=3.0"]\n\n[project.urls]')
    [intent] = derive_intents("pyproject.toml", BASE, task, task="dep")
    out = pyproject.edit("pyproject.toml", BASE, intent)
    assert tomllib.loads(out.decode())["project"]["optional-dependencies"] == {"pickle": ["cloudpickle>=3.0"]}
    assert b'pickle = ["cloudpickle>=3.0"]\n\n[dependency-groups]' in out, out.decode()
    assert out.startswith(BASE[:BASE.index(b"[dependency-groups]")].rstrip(b"\n")), out.decode()   # the rest as it was


def test_a_new_table_at_the_end_of_the_file_gets_no_blank_line_after_it():
    base = b'[project]\nname = "x"\ndependencies = []\n'
    task = base + b'\n[project.optional-dependencies]\npickle = ["cloudpickle>=3.0"]\n'
    [intent] = derive_intents("pyproject.toml", base, task, task="dep")
    out = pyproject.edit("pyproject.toml", base, intent)
    assert out.endswith(b'pickle = ["cloudpickle>=3.0"]\n'), out.decode()


def test_a_header_the_file_wrote_without_a_blank_line_before_stays_so():
    """Only a separation the edit took away is given back: the file's own style elsewhere stays."""
    base = b'[project]\nname = "x"\ndependencies = []\n[tool.x]\na = 1\n'
    task = base.replace(b"dependencies = []", b'dependencies = ["attrs>=22"]')
    [intent] = derive_intents("pyproject.toml", base, task, task="dep")
    out = pyproject.edit("pyproject.toml", base, intent)
    assert out == base.replace(b"dependencies = []", b'dependencies = ["attrs>=22"]'), out.decode()


def test_a_new_cargo_dependencies_table_is_followed_by_a_blank_line():
    base = b'[package]\nname = "x"\nversion = "0.1.0"\nedition = "2021"\n\n[profile.release]\nlto = true\n'
    task = base.replace(b"\n[profile.release]", b'\n[dependencies]\nserde = "1"\n\n[profile.release]')
    [intent] = derive_intents("Cargo.toml", base, task, task="dep")
    out = cargo_toml.edit("Cargo.toml", base, intent)
    assert tomllib.loads(out.decode())["dependencies"] == {"serde": "1"}
    assert b'\n\n[profile.release]' in out, out.decode()


POETRY = b'[tool.poetry]\nname = "x"\n\n[tool.poetry.dependencies]\npython = "^3.11"\n'


def test_a_poetry_dependency_written_as_a_table_at_the_end_of_the_file_ends_its_line():
    """user-drive13: a task added `lib-b = { path = "../libs/b", develop = true }` to the
    `[tool.poetry.dependencies]` that ends the file; consolidation wrote it with no newline after it,
    so the committed pyproject.toml ended mid-line and the next key appended to it did not parse."""
    task = POETRY + b'lib-b = { path = "../libs/b", develop = true }\n'
    [intent] = derive_intents("pyproject.toml", POETRY, task, task="dep")
    out = pyproject.edit("pyproject.toml", POETRY, intent)
    assert tomllib.loads(out.decode())["tool"]["poetry"]["dependencies"]["lib-b"] == {"path": "../libs/b",
                                                                                      "develop": True}
    assert out.startswith(POETRY) and out.endswith(b"}\n") and out.count(b"\n") == POETRY.count(b"\n") + 1, out

