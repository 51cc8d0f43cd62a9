"""The laws a merge must keep, checked with hypothesis on generated modules and JSON objects."""

from __future__ import annotations

import json

import tree_sitter
from hypothesis import given, settings
from hypothesis import strategies as st

from worktree_coord.merge import merge_file
from worktree_coord.merge.languages.profiles import profile_for_path


def _function(name: str, value: int) -> str:
    return f"def {name}(x):\n    y = x * {value}\n    return y\n"


def _module(functions: list[tuple[str, int]], imports: list[str]) -> bytes:
    head = "".join(f"import {name}\n" for name in imports)
    return (head + "\n\n" + "\n\n".join(_function(n, v) for n, v in functions)).encode()


def _parses(path: str, data: bytes) -> bool:
    profile = profile_for_path(path)
    assert profile is not None
    return not tree_sitter.Parser(profile.language).parse(data).root_node.has_error


modules = st.lists(st.integers(0, 50), min_size=1, max_size=12).map(
    lambda values: _module([(f"f{i}", v) for i, v in enumerate(values)], ["os"]))


@settings(max_examples=40, deadline=None)
@given(base=modules, other=modules)
def test_identity_laws(base: bytes, other: bytes) -> None:
    assert merge_file(base, other, base, "m.py").merged == other
    assert merge_file(base, base, other, "m.py").merged == other
    same = merge_file(base, other, other, "m.py")
    assert same.clean and same.merged == other


@st.composite
def disjoint_edits(draw: st.DrawFn) -> tuple[list[int], set[int], set[int], int, int, bool]:
    count = draw(st.integers(2, 14))
    values = draw(st.lists(st.integers(0, 9), min_size=count, max_size=count))
    indexes = list(range(count))
    left = set(draw(st.lists(st.sampled_from(indexes), max_size=count, unique=True)))
    right = set(draw(st.lists(st.sampled_from(indexes), max_size=count, unique=True))) - left
    added_left = draw(st.integers(0, 3))
    added_right = draw(st.integers(0, 3))
    imports = draw(st.booleans())
    return values, left, right, added_left, added_right, imports


@settings(max_examples=60, deadline=None)
@given(disjoint_edits())
def test_edits_to_disjoint_declarations_all_survive(case: tuple[list[int], set[int], set[int], int, int, bool]) -> None:
    values, left_edits, right_edits, added_left, added_right, imports = case
    names = [f"f{i}" for i in range(len(values))]
    base = [(n, v) for n, v in zip(names, values)]
    left = [(n, v + 100 if i in left_edits else v) for i, (n, v) in enumerate(base)] + [(f"left{i}", i) for i in range(added_left)]
    right = [(n, v + 200 if i in right_edits else v) for i, (n, v) in enumerate(base)] + [(f"right{i}", i) for i in range(added_right)]
    left_imports = ["os", "sys"] if imports else ["os"]
    right_imports = ["os", "re"] if imports else ["os"]
    result = merge_file(_module(base, ["os"]), _module(left, left_imports), _module(right, right_imports), "m.py")
    assert result.clean, result.merged.decode()
    assert _parses("m.py", result.merged)
    text = result.merged.decode()
    for i, (name, value) in enumerate(base):
        expected = value + 100 if i in left_edits else value + 200 if i in right_edits else value
        assert _function(name, expected) in text
    for name, value in left[len(base):] + right[len(base):]:
        assert _function(name, value) in text
    for name in set(left_imports) | set(right_imports):
        assert text.count(f"import {name}\n") == 1


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.sampled_from("abcdefgh"), st.integers(0, 9), min_size=1),
       st.dictionaries(st.sampled_from("ijklm"), st.integers(0, 9)),
       st.dictionaries(st.sampled_from("nopqr"), st.integers(0, 9)))
def test_json_key_additions_union(base: dict[str, int], left_new: dict[str, int], right_new: dict[str, int]) -> None:
    def dump(obj: dict[str, int]) -> bytes:
        return (json.dumps(obj, indent=2) + "\n").encode()
    result = merge_file(dump(base), dump({**base, **left_new}), dump({**base, **right_new}), "config.json")
    assert result.clean
    assert json.loads(result.merged) == {**base, **left_new, **right_new}


# The same law for the other code languages: module skeleton, function template, imports.
LANGUAGES = {
    "m.go": ("package main\n\n{imports}\n{functions}", 'import "{name}"\n',
             "func {name}(x int) int {{\n\ty := x * {value}\n\treturn y\n}}\n"),
    "m.rs": ("{imports}\n{functions}", "use crate::{name};\n",
             "fn {name}(x: i32) -> i32 {{\n    let y = x * {value};\n    y\n}}\n"),
    "M.java": ("package app;\n\n{imports}\npublic class M {{\n{functions}}}\n", "import java.util.{name};\n",
               "    int {name}(int x) {{\n        int y = x * {value};\n        return y;\n    }}\n"),
    "m.ts": ("{imports}\n{functions}", 'import {{ {name} }} from "./{name}";\n',
             "export function {name}(x: number): number {{\n  const y = x * {value};\n  return y;\n}}\n"),
    "m.js": ("{imports}\n{functions}", 'import {name} from "{name}";\n',
             "function {name}(x) {{\n  const y = x * {value};\n  return y;\n}}\n"),
}


def source_from(table: dict[str, tuple[str, str, str]], path: str, functions: list[tuple[str, int]],
                imports: list[str]) -> bytes:
    """A file of `path`'s language from its (skeleton, import line, function) row in `table`."""
    skeleton, import_line, function = table[path]
    return skeleton.format(imports="".join(import_line.format(name=n) for n in imports),
                           functions="\n".join(function.format(name=n, value=v) for n, v in functions)).encode()


def _source(path: str, functions: list[tuple[str, int]], imports: list[str]) -> bytes:
    return source_from(LANGUAGES, path, functions, imports)


def check_disjoint_edits(table: dict[str, tuple[str, str, str]], path: str,
                         case: tuple[list[int], set[int], set[int], int, int, bool], *, exactly_once: bool) -> None:
    """The law: disjoint function edits and new functions and imports of both sides all survive
    (`exactly_once`: once each), the merge is clean and the result re-parses."""
    values, left_edits, right_edits, added_left, added_right, imports = case
    base = [(f"f{i}", v) for i, v in enumerate(values)]
    left = [(n, v + 100 if i in left_edits else v) for i, (n, v) in enumerate(base)] + [(f"left{i}", i) for i in range(added_left)]
    right = [(n, v + 200 if i in right_edits else v) for i, (n, v) in enumerate(base)] + [(f"right{i}", i) for i in range(added_right)]
    left_imports = ["a", "b"] if imports else ["a"]
    right_imports = ["a", "c"] if imports else ["a"]
    result = merge_file(source_from(table, path, base, ["a"]), source_from(table, path, left, left_imports),
                        source_from(table, path, right, right_imports), path)
    assert result.clean, result.merged.decode()
    assert _parses(path, result.merged)
    text = result.merged.decode()
    function = table[path][2]
    present = (lambda line: text.count(line) == 1) if exactly_once else (lambda line: line in text)
    for i, (name, value) in enumerate(base):
        expected = value + 100 if i in left_edits else value + 200 if i in right_edits else value
        assert present(function.format(name=name, value=expected))
    for name, value in left[len(base):] + right[len(base):]:
        assert present(function.format(name=name, value=value))
    import_line = table[path][1]
    for name in set(left_imports) | set(right_imports) if import_line else ():
        assert text.count(import_line.format(name=name)) == 1


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(sorted(LANGUAGES)), disjoint_edits())
def test_disjoint_edits_in_other_languages(path: str, case: tuple[list[int], set[int], set[int], int, int, bool]) -> None:
    check_disjoint_edits(LANGUAGES, path, case, exactly_once=False)


@st.composite
def move_and_edits(draw: st.DrawFn) -> tuple[list[int], int, int, set[int]]:
    count = draw(st.integers(3, 10))
    values = draw(st.lists(st.integers(0, 9), min_size=count, max_size=count))
    moved = draw(st.integers(0, count - 1))
    target = draw(st.integers(0, count - 1).filter(lambda t: t != moved))
    edited = set(draw(st.lists(st.integers(0, count - 1), max_size=count, unique=True))) - {moved}
    return values, moved, target, edited


@settings(max_examples=60, deadline=None)
@given(move_and_edits())
def test_a_move_on_one_side_and_edits_of_other_declarations_both_survive(case: tuple[list[int], int, int, set[int]]) -> None:
    values, moved, target, edited = case
    base = [(f"f{i}", v) for i, v in enumerate(values)]
    left = list(base)
    left.insert(target, left.pop(moved))                     # left moves one function elsewhere
    right = [(n, v + 100 if i in edited else v) for i, (n, v) in enumerate(base)]  # right edits others
    result = merge_file(_module(base, ["os"]), _module(left, ["os"]), _module(right, ["os"]), "m.py")
    assert result.clean, result.merged.decode()
    expected = [(n, v + 100 if int(n[1:]) in edited else v) for n, v in left]
    assert result.merged == _module(expected, ["os"]), result.merged.decode()


@settings(max_examples=60, deadline=None)
@given(move_and_edits())
def test_a_move_on_one_side_carries_the_other_sides_edit_of_the_moved_declaration(
        case: tuple[list[int], int, int, set[int]]) -> None:
    # Issue 13 round 5: the other side edits the moved function too (and others); the function
    # stands where the moving side put it, with the other side's body.
    values, moved, target, edited = case
    edited = edited | {moved}
    base = [(f"f{i}", v) for i, v in enumerate(values)]
    left = list(base)
    left.insert(target, left.pop(moved))
    right = [(n, v + 100 if i in edited else v) for i, (n, v) in enumerate(base)]
    result = merge_file(_module(base, ["os"]), _module(left, ["os"]), _module(right, ["os"]), "m.py")
    assert result.clean, result.merged.decode()
    expected = [(n, v + 100 if int(n[1:]) in edited else v) for n, v in left]
    assert result.merged == _module(expected, ["os"]), result.merged.decode()
