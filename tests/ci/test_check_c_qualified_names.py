"""C and C++ names left behind that the check read wrong (trust-left12's notes), through `wtc check`,
`task check`, the queue's merge and a drain.

- A file keeping its own prototype above a renamed body (`int f(void);` then `int f2(void) {...}`)
  was read as still defining f: a prototype defines nothing, and every caller of f stops linking.
- `enum class Color { Red }` in a `.h`: read as C (no C++ claim matched), whose parse fails there,
  so Red was never taken as removed; `Color::Red` in a user was never followed to it.
- `a::b::f()` was matched by its last qualifier alone: any file opening `namespace b` answered it,
  so `c::b::f()` was taken for a use of a::b's f (a false block at the merge).
- `Box<int>::make()`: a qualifier with template arguments was not followed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ci.ci_helpers import feature_branch as branch, left_behind_uses as uses
from tests.conftest import wtc_in_process
from tests.core.test_uses_left_behind import _drained, _task_edited
from tests.merge.clean_merges import tree_merge_findings
from tests.conftest import make_repo

PROTOTYPED = "int f(void);\nint g(void) { return 0; }\nint f(void) { return 1; }\n"
CALLER = "int f(void);\nint h(void) { return f(); }\n"
COLOR_H = "enum class Color { Red, Green };\n"
COLOR_USE = '#include "color.h"\nint paint() { return (int)Color::Red; }\n'
KV_H = "namespace a { namespace b { int f(); } }\n"
KV_CC = '#include "kv.h"\nnamespace a {\nnamespace b {\nint f() { return 1; }\n}\n}\n'
OTHER_CC = "namespace c::b {\nint f() { return 2; }\n}\n"
BOX_H = "template <typename T> struct Box {\n  static Box make() { return Box(); }\n};\n"
BOX_USE = '#include "box.h"\nvoid g() { Box<int>::make(); }\n'


@pytest.mark.parametrize("files, edits, expected", [
    ({"a.c": PROTOTYPED, "b.c": CALLER}, {"a.c": PROTOTYPED.replace("int f(void) {", "int f2(void) {")},
     [("b.c", [2], "f", "a.c")]),
    ({"color.h": COLOR_H, "paint.cpp": COLOR_USE}, {"color.h": COLOR_H.replace("Red", "Crimson")},
     [("paint.cpp", [2], "Red", "color.h")]),
    ({"kv.h": KV_H, "kv.cpp": KV_CC, "use.cpp": '#include "kv.h"\nint g() { return a::b::f(); }\n'},
     {"kv.h": KV_H.replace("f()", "f2()"), "kv.cpp": KV_CC.replace("f()", "f2()")}, [("use.cpp", [2], "f", "kv.cpp")]),
    ({"box.h": BOX_H, "use.cpp": BOX_USE}, {"box.h": BOX_H.replace("make", "create")}, [("use.cpp", [2], "Box.make", "box.h")]),
], ids=["a-body-renamed-under-its-own-prototype", "an-enum-class-constant", "a-nested-namespace-path", "a-template-qualifier"])
def test_a_name_renamed_is_left_behind_in_wtc_check(tmp_path: Path, files: dict, edits: dict, expected: list) -> None:
    repo = branch(tmp_path, files, edits)
    assert uses(repo) == (1, expected)


@pytest.mark.parametrize("files, edits", [
    ({"a.c": PROTOTYPED, "b.c": CALLER, "c.c": "int x(void) { return 3; }\n"},
     {"a.c": PROTOTYPED.replace("int f(void) { return 1; }\n", ""), "c.c": "int x(void) { return 3; }\nint f(void) { return 1; }\n"}),
    ({"a.c": PROTOTYPED, "b.c": CALLER}, {"a.c": PROTOTYPED.replace("int g(void) { return 0; }", "int g(void) { return 5; }")}),
], ids=["the-body-moved-to-another-file", "another-function-of-the-file-edited"])
def test_a_body_still_linked_somewhere_is_clean(tmp_path: Path, files: dict, edits: dict) -> None:
    assert uses(branch(tmp_path, files, edits)) == (0, [])


def test_a_use_through_another_namespace_path_of_the_same_last_name_is_no_use_at_the_merge(tmp_path: Path) -> None:
    """Integration renamed a::b::f; the task adds a call of c::b::f, which other.cpp still defines:
    git merges it clean, and the merge's check must not block it (it did: `namespace b` matched)."""
    repo = make_repo(tmp_path / "repo", {"kv.h": KV_H, "kv.cpp": KV_CC, "other.cpp": OTHER_CC,
                                         "use.cpp": "int g() { return 0; }\n"})
    found = tree_merge_findings(repo, {"kv.h": KV_H.replace("f()", "f2()"), "kv.cpp": KV_CC.replace("f()", "f2()")},
                                {"use.cpp": "int g() { return c::b::f(); }\n"})
    assert found == ()
    found = tree_merge_findings(make_repo(tmp_path / "again", {"kv.h": KV_H, "kv.cpp": KV_CC, "other.cpp": OTHER_CC,
                                                               "use.cpp": "int g() { return 0; }\n"}),
                                {"kv.h": KV_H.replace("f()", "f2()"), "kv.cpp": KV_CC.replace("f()", "f2()")},
                                {"use.cpp": "int g() { return a::b::f(); }\n"})
    assert [(f.name, f.definition_path, f.use_path) for f in found] == [("f", "kv.cpp", "use.cpp")]


def test_task_check_and_a_drain_block_a_body_renamed_under_its_prototype(tmp_path: Path) -> None:
    renamed = {"a.c": PROTOTYPED.replace("int f(void) {", "int f2(void) {")}
    repo = _task_edited(tmp_path / "check", {"a.c": PROTOTYPED, "b.c": CALLER}, "rn", ("a.c",), renamed, None)
    code, body = wtc_in_process(repo, "task", "check", "rn", "--run", "r1")
    assert code == 1 and [(r["use_path"], r["name"]) for r in body["left_behind"]] == [("b.c", "f")], body
    code, states = _drained(tmp_path / "drain", {"a.c": PROTOTYPED, "b.c": "int h(void) { return 0; }\n", "d.c": "int d;\n"}, [
        ("rn", "a.c", renamed), ("other", "d.c", {"d.c": "int d = 1;\n"}), ("use", "b.c", {"b.c": CALLER})])
    assert code == 1 and states["use"] == ("conflict", [("semantic", "b.c", "f")]), states
