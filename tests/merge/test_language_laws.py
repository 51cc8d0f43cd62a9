"""The merge laws for every code profile added as data (issue 18), with hypothesis.

Per language: a file skeleton, an import line and a function template. The laws:
`merge(b, x, b) == x`, `merge(b, b, y) == y`, `merge(b, x, x) == x` (clean), and edits to
disjoint functions plus new functions and imports on both sides all survive, once each, in a
result that re-parses without errors. `test_every_code_profile_has_laws` keeps the table whole: a
new profile without an entry here (or in test_properties.py) fails.
"""

from __future__ import annotations

import pytest
import tree_sitter
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from worktree_coord.merge import merge_file
from worktree_coord.merge.languages.profiles import load_profiles, profile_for_path

from .test_properties import LANGUAGES as FIRST_LANGUAGES
from .test_properties import check_disjoint_edits, disjoint_edits, source_from

# path -> (skeleton with {imports} and {functions}, one import line, one function). An empty import
# line: the language's imports are calls that run in order (Ruby's `require`), which never commute.
LANGUAGES: dict[str, tuple[str, str, str]] = {
    "m.tsx": ("{imports}\n{functions}", 'import {{ {name} }} from "./{name}";\n',
              "export function {name}(x: number) {{\n  const y = x * {value};\n  return <b>{{y}}</b>;\n}}\n"),
    "m.cpp": ("{imports}\nnamespace app {{\n\n{functions}\n}}  // namespace app\n", "#include <{name}>\n",
              "int {name}(int x) {{\n    int y = x * {value};\n    return y;\n}}\n"),
    "M.cs": ("{imports}\nnamespace App\n{{\n    public static class M\n    {{\n{functions}    }}\n}}\n", "using {name};\n",
             "        public static int {name}(int x)\n        {{\n            int y = x * {value};\n            return y;\n        }}\n"),
    "m.rb": ("{imports}\nmodule App\n{functions}end\n", "",
             "  def {name}(x)\n    y = x * {value}\n    y\n  end\n"),
    "m.sh": ("#!/bin/sh\n{imports}\n{functions}", "",
             "{name}() {{\n  y=$(( $1 * {value} ))\n  echo \"$y\"\n}}\n"),
    "m.kt": ("package app\n\n{imports}\n{functions}", "import lib.{name}\n",
             "fun {name}(x: Int): Int {{\n    val y = x * {value}\n    return y\n}}\n"),
    "m.php": ("<?php\n\n{imports}\n{functions}", "use Lib\\{name};\n",
              "function {name}(int $x): int\n{{\n    $y = $x * {value};\n    return $y;\n}}\n"),
    # CSS: rules and declarations never move (the cascade); what commutes is @keyframes.
    "m.css": ("{imports}{functions}", "",
              "@keyframes {name} {{\n  to {{\n    opacity: {value};\n  }}\n}}\n"),
    "m.tf": ("{imports}{functions}", "",
             'resource "null_resource" "{name}" {{\n  count = {value}\n}}\n'),
    # Markdown: list items commute (sections never move); each "function" is one bullet.
    "m.md": ("# Notes\n\n## Items\n\n{imports}{functions}", "",
             "- {name} is worth {value}.\n"),
    "m.c": ("{imports}\n{functions}", '#include "{name}.h"\n',
            "int {name}(int x) {{\n    int y = x * {value};\n    return y;\n}}\n"),
    "m.swift": ("{imports}\n{functions}", "import {name}\n",
                "func {name}(x: Int) -> Int {{\n    let y = x * {value}\n    return y\n}}\n"),
    "m.scala": ("package app\n\n{imports}\nobject M {{\n{functions}}}\n", "import lib.{name}\n",
                "  def {name}(x: Int): Int = {{\n    val y = x * {value}\n    y\n  }}\n"),
    "m.lua": ("{imports}\nlocal M = {{}}\n\n{functions}\nreturn M\n", 'local {name} = require("{name}")\n',
              "function M.{name}(x)\n  local y = x * {value}\n  return y\nend\n"),
    "m.ex": ("defmodule App.M do\n{imports}\n{functions}end\n", "  alias Lib.{name}\n",
             "  def {name}(x) do\n    y = x * {value}\n    y\n  end\n"),
    "M.hs": ("module M where\n\n{imports}\n{functions}", "import qualified Lib.M{name}\n",
             "{name} :: Int -> Int\n{name} x = x * {value}\n\n"),
    # HTML: children keep their order (content, scripts, the cascade); each "function" is an element
    # with an id, so elements are matched and edits inside different ones merge.
    "m.html": ("<!DOCTYPE html>\n<html>\n<body>\n{imports}{functions}</body>\n</html>\n", "",
               '<section id="{name}">\n  <p>{value}</p>\n</section>\n'),
    # XML: the same, with elements matched by name and attributes.
    "m.xml": ('<?xml version="1.0"?>\n<project>\n{imports}{functions}</project>\n', "",
              '  <module name="{name}">\n    <size>{value}</size>\n  </module>\n'),
}


def _source(path: str, functions: list[tuple[str, int]], imports: list[str]) -> bytes:
    return source_from(LANGUAGES, path, functions, imports)


def _parses(path: str, data: bytes) -> bool:
    profile = profile_for_path(path)
    assert profile is not None
    return not tree_sitter.Parser(profile.language).parse(data).root_node.has_error


def test_every_code_profile_has_laws() -> None:
    covered = {profile_for_path(path).name for path in [*LANGUAGES, *FIRST_LANGUAGES, "m.py"]}  # type: ignore[union-attr]
    code = {profile.name for profile in load_profiles() if not profile.data}
    assert code - covered == set()
    for path, (skeleton, import_line, function) in LANGUAGES.items():
        assert _parses(path, _source(path, [("f0", 1), ("f1", 2)], ["a", "b"])), path


functions = st.lists(st.integers(0, 50), min_size=1, max_size=8)


@pytest.mark.parametrize("path", sorted(LANGUAGES))
@settings(max_examples=10, deadline=None)
@given(base_values=functions, other_values=functions)
def test_identity_laws(path: str, base_values: list[int], other_values: list[int]) -> None:
    base = _source(path, [(f"f{i}", v) for i, v in enumerate(base_values)], ["a"])
    other = _source(path, [(f"f{i}", v) for i, v in enumerate(other_values)], ["a", "b"])
    assert merge_file(base, other, base, path).merged == other
    assert merge_file(base, base, other, path).merged == other
    same = merge_file(base, other, other, path)
    assert same.clean and same.merged == other


# A Markdown bullet's key is its text, so rewording one is a deletion plus an addition, which
# conflicts next to the other side's additions (as in git): its law is the one below. Nothing in
# HTML or XML commutes, so both sides adding elements at one place conflict: their law has no
# additions.
ORDERED_ONLY = {"m.md", "m.html", "m.xml"}


@pytest.mark.parametrize("path", sorted(set(LANGUAGES) - ORDERED_ONLY))
@settings(max_examples=20, deadline=None)
@given(case=disjoint_edits())
def test_disjoint_edits_survive_and_reparse(path: str, case: tuple[list[int], set[int], set[int], int, int, bool]) -> None:
    check_disjoint_edits(LANGUAGES, path, case, exactly_once=True)


@pytest.mark.parametrize("path", ["m.html", "m.xml"])
@settings(max_examples=20, deadline=None)
@given(case=disjoint_edits())
def test_markup_disjoint_element_edits_survive_and_reparse(path: str, case: tuple[list[int], set[int], set[int], int, int, bool]) -> None:
    """HTML, XML: edits inside different elements (adjacent ones included) all survive, once each,
    in a result that re-parses; no side adds an element (two additions at one place conflict)."""
    values, left_edits, right_edits, _, _, _ = case
    check_disjoint_edits(LANGUAGES, path, (values, left_edits, right_edits, 0, 0, False), exactly_once=True)


def _changelog(items: list[int]) -> bytes:
    return ("# Changelog\n\n## Added\n\n" + "".join(f"- Item {i}.\n" for i in items) + "\n## Fixed\n\n- Bug.\n").encode()


def _bullet(item: int) -> str:
    return f"- Item {item}."


@settings(max_examples=40, deadline=None)
@given(base=st.lists(st.integers(0, 30), min_size=2, max_size=8, unique=True),
       left=st.lists(st.integers(31, 60), max_size=4, unique=True),
       right=st.lists(st.integers(45, 80), max_size=4, unique=True))
def test_markdown_bullets_added_on_both_sides_union(base: list[int], left: list[int], right: list[int]) -> None:
    """Both sides' new bullets at the end of an unsorted list: every bullet once, left's first, a
    bullet both sides added once, and the result re-parses (the CHANGELOG case)."""
    assume([_bullet(i) for i in base] != sorted(_bullet(i) for i in base))
    result = merge_file(_changelog(base), _changelog(base + left), _changelog(base + right), "CHANGELOG.md")
    assert result.clean, result.merged.decode()
    assert result.merged == _changelog(base + left + [i for i in right if i not in left])
    assert _parses("CHANGELOG.md", result.merged)


@settings(max_examples=40, deadline=None)
@given(base=st.lists(st.integers(10, 40), min_size=2, max_size=8, unique=True),
       left=st.lists(st.integers(41, 70), max_size=4, unique=True),
       right=st.lists(st.integers(55, 99), max_size=4, unique=True))
def test_markdown_bullets_of_a_sorted_list_stay_sorted(base: list[int], left: list[int], right: list[int]) -> None:
    """Both sides' new bullets (each side's in order) at the end of a sorted list: the union in the
    list's own order, each bullet once (two-digit numbers: text order is number order)."""
    base, left, right = sorted(base), sorted(left), sorted(right)
    result = merge_file(_changelog(base), _changelog(base + left), _changelog(base + right), "CHANGELOG.md")
    assert result.clean, result.merged.decode()
    assert result.merged == _changelog(base + sorted(set(left) | set(right)))
