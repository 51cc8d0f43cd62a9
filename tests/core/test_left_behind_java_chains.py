"""Java: a call through a static method whose declared return type is another top-level class.

`Store.open(k).put(v)`, `open` declared `public static Entry open(String k)` in Store.java and `put` a
method of Entry.java: renaming `put` leaves that call behind (javac: cannot find symbol). The check
followed such a chain one step only where the return type was the class itself or a class it nests
(`CodeBlock.builder().addNamed(..)`); another top-level class, and a Store.java no side changed,
left it unread: `task check`, the queue's merge and `wtc check` said clean. The return type is now
found as Store.java sees its name (its own class, one it imports by name, its package's), Store.java
read from the tree where the merge does not hold it. Never where a base may give the method, or the
method is kept.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import wtc_in_process
from tests.core.test_uses_left_behind import _branch_checked, _second_finish, _task_edited

P = "src/main/java/p/"
STORE = ("package p;\n\npublic final class Store {\n  public static Entry open(String k) {\n    return new Entry();\n  }\n}\n")
ENTRY = "package p;\n\npublic class Entry {\n  public Entry put(int v) {\n    return this;\n  }\n}\n"
USER = ("package p;\n\nclass User {\n  Entry last;\n\n  void f() {\n    last = Store.open(\"k\").put(1);\n  }\n}\n")
FILES = {P + "Store.java": STORE, P + "Entry.java": ENTRY, P + "User.java": USER}
RENAMED = ENTRY.replace("put(", "write(")


def _rows(body: dict) -> list[tuple[str, str, list[int]]]:
    return sorted((row["use_path"], row["name"], row["use_lines"]) for row in body["left_behind"])


def test_a_method_renamed_behind_a_static_factory_of_another_class_blocks_in_wtc_check(tmp_path: Path) -> None:
    code, report = _branch_checked(tmp_path, FILES, {P + "Entry.java": RENAMED})
    assert code == 1 and _rows(report) == [(P + "User.java", "Entry.put", [7])], report


def test_a_method_renamed_behind_a_static_factory_of_another_class_blocks_at_task_check(tmp_path: Path) -> None:
    repo = _task_edited(tmp_path, FILES, "rn", (P + "Entry.java",), {P + "Entry.java": RENAMED}, None)
    code, body = wtc_in_process(repo, "task", "check", "rn", "--run", "r1")
    assert code == 1 and _rows(body) == [(P + "User.java", "Entry.put", [7])], body


def test_a_call_another_task_adds_behind_a_static_factory_is_a_conflict_at_its_finish(tmp_path: Path) -> None:
    """Task `rn` renames Entry.put (no user at the pin) and merges; task `use`, started beside it,
    writes User.java's `Store.open("k").put(1)`: the queue's merge check of `use` is a conflict."""
    code, body = _second_finish(tmp_path, {P + "Store.java": STORE, P + "Entry.java": ENTRY},
                                ("rn", P + "Entry.java", {P + "Entry.java": RENAMED}),
                                ("use", P + "User.java", {P + "User.java": USER}))
    assert (code, body["state"]) == (1, "conflict"), body
    assert any("put" in str(conflict) for conflict in body["conflicts"]), body


@pytest.mark.parametrize("files, entry", [
    (FILES, ENTRY.replace("    return this;\n  }\n", "    return this;\n  }\n\n  public Entry write(int v) {\n    return this;\n  }\n")),
    (dict(FILES, **{P + "Entry.java": ENTRY.replace("public class Entry {", "public class Entry extends Base {"),
                    P + "Base.java": "package p;\n\npublic class Base {\n  public Entry put(int v) {\n    return null;\n  }\n}\n"}),
     RENAMED.replace("public class Entry {", "public class Entry extends Base {")),
], ids=["a-method-added", "a-base-gives-it"])
def test_a_method_behind_a_static_factory_kept_or_inherited_is_clean(tmp_path: Path, files: dict, entry: str) -> None:
    code, report = _branch_checked(tmp_path, files, {P + "Entry.java": entry})
    assert (code, report["left_behind"]) == (0, []), report


# The declared return type leads the lookup: the user need not spell the class the member is of.
UNSPELLED = "package p;\n\nclass User {\n  void f() {\n    Store.open(\"k\").put(1);\n  }\n}\n"
INSTANCE_STORE = "package p;\n\npublic final class Store {\n  public Entry entry() {\n    return new Entry();\n  }\n}\n"
TYPED_USER = "package p;\n\nclass User {\n  void f(Store s) {\n    s.entry().put(1);\n  }\n}\n"
TYPESPEC = "package p;\n\npublic final class TypeSpec {\n  public enum Kind {\n    CLASS, INTERFACE\n  }\n}\n"
KIND_USER = "package p;\n\nclass User {\n  Object f() {\n    return TypeSpec.Kind.CLASS;\n  }\n}\n"


@pytest.mark.parametrize("files, edits, expected", [
    ({**FILES, P + "User.java": UNSPELLED}, {P + "Entry.java": RENAMED}, "Entry.put"),
    ({**FILES, P + "Store.java": INSTANCE_STORE, P + "User.java": TYPED_USER}, {P + "Entry.java": RENAMED}, "Entry.put"),
    ({P + "TypeSpec.java": TYPESPEC, P + "User.java": KIND_USER},
     {P + "TypeSpec.java": TYPESPEC.replace("CLASS", "KLASS")}, "TypeSpec.Kind.CLASS"),
], ids=["a-static-factory-the-user-does-not-spell", "an-instance-method-of-a-typed-parameter", "a-nested-enum-constant"])
def test_a_member_renamed_behind_a_declared_type_the_user_does_not_spell_blocks(
        tmp_path: Path, files: dict, edits: dict, expected: str) -> None:
    """`Store.open("k").put(1)` in a User.java that never writes `Entry`; `s.entry().put(1)` where
    `Store s` and `Entry entry()` an instance method; `TypeSpec.Kind.CLASS` from another file."""
    code, report = _branch_checked(tmp_path, files, edits)
    assert code == 1 and _rows(report) == [(P + "User.java", expected, [5])], report


@pytest.mark.parametrize("files, edits", [
    ({**FILES, P + "Store.java": INSTANCE_STORE.replace("public Entry entry() {\n    return new Entry();\n  }\n",
                                                         "public Entry entry() {\n    return new Entry();\n  }\n"
                                                         "  public Other entry(int n) {\n    return null;\n  }\n"),
      P + "User.java": TYPED_USER}, {P + "Entry.java": RENAMED}),
    ({**FILES, P + "Store.java": INSTANCE_STORE, P + "User.java": TYPED_USER.replace("void f(Store s) {", "void f(Store s) {\n    Other s2 = null;")
      .replace("s.entry().put(1);", "s2.entry().put(1);"), P + "Other.java": "package p;\n\nclass Other {\n  Box entry() {\n    return null;\n  }\n}\n",
      P + "Box.java": "package p;\n\nclass Box {\n  void put(int v) {\n  }\n}\n"}, {P + "Entry.java": RENAMED}),
    ({P + "TypeSpec.java": TYPESPEC, P + "User.java": KIND_USER},
     {P + "TypeSpec.java": TYPESPEC.replace("INTERFACE", "INTERFACE, KLASS")}),
], ids=["overloads-returning-two-types", "another-class-s-method-of-that-name", "a-constant-added-beside"])
def test_a_member_behind_a_declared_type_unsure_or_kept_is_clean(tmp_path: Path, files: dict, edits: dict) -> None:
    code, report = _branch_checked(tmp_path, files, edits)
    assert (code, report["left_behind"]) == (0, []), report


def test_a_call_through_an_unspelled_declared_type_blocks_at_task_check_and_at_the_queue(tmp_path: Path) -> None:
    """The faces: `task check` of the renaming task names User.java; a task adding
    `s.entry().put(1)` beside a rename merged meanwhile is a conflict at its finish."""
    files = {**FILES, P + "Store.java": INSTANCE_STORE, P + "User.java": TYPED_USER}
    repo = _task_edited(tmp_path / "check", files, "rn", (P + "Entry.java",), {P + "Entry.java": RENAMED}, None)
    code, body = wtc_in_process(repo, "task", "check", "rn", "--run", "r1")
    assert code == 1 and _rows(body) == [(P + "User.java", "Entry.put", [5])], body
    code, body = _second_finish(tmp_path / "queue", {P + "Store.java": INSTANCE_STORE, P + "Entry.java": ENTRY},
                                ("rn", P + "Entry.java", {P + "Entry.java": RENAMED}),
                                ("use", P + "User.java", {P + "User.java": TYPED_USER}))
    assert (code, body["state"]) == (1, "conflict"), body
    assert any(c.get("semantic", {}).get("name") == "Entry.put" for c in body["conflicts"]), body
