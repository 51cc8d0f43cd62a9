"""names.py: what a member binds (per the profiles' `binds` queries), what new code uses, and the
profile validation of the query."""

from __future__ import annotations

import pytest
import tree_sitter

from worktree_coord.errors import ConfigError
from worktree_coord.merge.syntax import names
from worktree_coord.merge.languages.profiles import load_profile_text, profile_for_path


def _members(path: str, code: str) -> tuple[list[dict[str, int]], dict[str, int]]:
    profile = profile_for_path(path)
    assert profile is not None
    source = code.encode()
    root = tree_sitter.Parser(profile.language).parse(source).root_node
    per_member = [dict(names.bound_names(profile, source, child)) for child in root.named_children]
    return per_member, dict(names.imported_names(profile, source, root))


def test_python_members_bind_their_own_names_not_their_bodies() -> None:
    members, imported = _members("m.py", "import os, a.b as c\nfrom m import (x, y as z)\nclass K:\n"
                                          "    A = 1\n    def f(self):\n        import q\n        w = 1\n"
                                          "def g():\n    v = 2\nV: int = 3\n")
    assert members == [{"os": 1, "c": 1}, {"x": 1, "z": 1}, {"K": 1}, {"g": 1}, {"V": 1}]
    assert imported == {"os": 1, "c": 1, "x": 1, "z": 1}   # `import q` inside a method is not module level


def test_go_import_paths_name_their_packages() -> None:
    members, imported = _members("m.go", 'package p\nimport (\n\t"fmt"\n\tv1 "k8s.io/api/core/v1"\n'
                                          '\t"helm.sh/helm/v4/pkg/chart/v2"\n\t"gopkg.in/yaml.v3"\n\t_ "embed"\n)\n'
                                          "type I interface { Foo() }\nfunc (s S) M() { var z = 1 }\nvar Debug bool\n")
    assert imported == {"fmt": 1, "v1": 1, "chart": 1, "yaml": 1}
    assert members[2:] == [{"I": 1}, {"M": 1}, {"Debug": 1}]   # an interface's methods are not its names


def test_rust_use_lists_and_aliases() -> None:
    members, imported = _members("m.rs", "use a::b::C;\nuse x::{self, y, z::w, q as r};\n"
                                          "fn main() { use inner::X; }\nmod tests { use super::*; }\n")
    assert imported == {"C": 1, "y": 1, "w": 1, "r": 1}
    assert members[2:] == [{"main": 1}, {"tests": 1}]


def test_typescript_and_java_imports() -> None:
    _, imported = _members("m.ts", "import D, { a, b as c } from 'x'\nimport * as ns from 'y'\n")
    assert imported == {"D": 1, "a": 1, "c": 1, "ns": 1}
    _, imported = _members("M.java", "import a.b.C;\nimport static a.B.*;\nimport static a.B.m;\nclass K {}\n")
    assert imported == {"C": 1, "m": 1}   # a wildcard binds no name the check can know


def test_names_used_in_added_lines_are_identifiers_only() -> None:
    profile = profile_for_path("m.py")
    assert profile is not None
    base = b"a = 1\n"
    side = b"a = 1\nb = foo(x)\n# parse here\nc = 'parse'\n"
    root = tree_sitter.Parser(profile.language).parse(side).root_node
    ranges = names.added_ranges(base, side)
    assert names.names_used_in(side, root, ranges) == {"b", "foo", "x", "c"}   # not `a`, not in comments or strings


def test_a_binds_query_is_validated_at_load() -> None:
    head = 'name = "mini"\ngrammar = "tree_sitter_python"\n'
    tail = '\n[[containers]]\nkind = "module"\n\n[declarations]\nfunction_definition = "def {name}"\n'
    profile = load_profile_text(head + "binds = '(function_definition name: (identifier) @name)'\n" + tail)
    assert profile.binds_query is not None
    with pytest.raises(ConfigError, match="not a valid query"):
        load_profile_text(head + "binds = '(function_definitio name: (identifier) @name)'\n" + tail)
    with pytest.raises(ConfigError, match="captures"):
        load_profile_text(head + "binds = '(function_definition name: (identifier) @other)'\n" + tail)


def test_a_binds_query_found_valid_is_not_compiled_again_by_a_later_load(monkeypatch: pytest.MonkeyPatch) -> None:
    """Validating `binds` compiled it at every load of its profile (each CLI finish loads Python's,
    ~6 ms); a text found valid for a grammar is remembered in the user's state folder, so a later
    load (another process) does not compile it. An invalid text is never remembered, and a text
    valid for one grammar is still checked against another."""
    binds = "(function_definition name: (identifier) @name)"
    head = 'name = "mini"\ngrammar = "tree_sitter_python"\n'
    tail = '\n[[containers]]\nkind = "module"\n\n[declarations]\nfunction_definition = "def {name}"\n'
    compiled: list[str] = []
    real = tree_sitter.Query
    monkeypatch.setattr(tree_sitter, "Query", lambda language, text: compiled.append(text) or real(language, text))
    load_profile_text(head + f"binds = '{binds}'\n" + tail)
    assert compiled.count(binds) == 1
    profile = load_profile_text(head + f"binds = '{binds}'\n" + tail)
    assert compiled.count(binds) == 1, "compiled again"
    assert profile.binds_query is not None and compiled.count(binds) == 2    # compiled where it is used
    for _ in range(2):
        with pytest.raises(ConfigError, match="captures"):
            load_profile_text(head + "binds = '(function_definition name: (identifier) @other)'\n" + tail)
    other = 'name = "mini"\ngrammar = "tree_sitter_javascript"\n'
    with pytest.raises(ConfigError, match="not a valid query"):
        load_profile_text(other + f"binds = '{binds}'\n" + '\n[[containers]]\nkind = "program"\n')
