"""Java: a member reached through a field's declared type, or from another package through a
call's result (trust-left12's notes).

- `Store.open(k).put(v)` in a file of another package (`import p.Store;`): the `).put` pairing
  took only users in Entry.java's own package, and Store.java, which no side changed, was looked
  for in the user's package; a rename of Entry.put passed `wtc check`, `task check` and the merges.
- `h.entry.put(v)` where `Holder h` and Holder declares `Entry entry`; `this.holder.entry.put(v)`
  through the class's own field: the field's declared type was read only for static fields.
- `new Entry().put(v)`: a member of an object just made.
Never where unsure: a class with a base (an inherited field may answer), a method kept by an
overload, a local hiding the field's name.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import wtc_in_process
from tests.core.test_uses_left_behind import _branch_checked, _drained, _second_finish, _task_edited

P, Q = "src/main/java/p/", "src/main/java/q/"
STORE = "package p;\n\npublic final class Store {\n  public static Entry open(String k) {\n    return new Entry();\n  }\n}\n"
ENTRY = "package p;\n\npublic class Entry {\n  public Entry put(int v) {\n    return this;\n  }\n}\n"
HOLDER = "package p;\n\npublic class Holder {\n  public Entry entry = new Entry();\n}\n"
RENAMED = {P + "Entry.java": ENTRY.replace("put(", "write(")}
OTHER_PACKAGE = "package q;\n\nimport p.Store;\n\nclass User {\n  void f() {\n    Store.open(\"k\").put(1);\n  }\n}\n"
THROUGH_LOCAL = "package p;\n\nclass User {\n  void f(Holder h) {\n    h.entry.put(1);\n  }\n}\n"
THROUGH_OWN_FIELD = "package p;\n\nclass User {\n  Holder holder;\n\n  void f() {\n    this.holder.entry.put(1);\n  }\n}\n"
NEW_OBJECT = "package p;\n\nclass User {\n  void f() {\n    new Entry().put(1);\n  }\n}\n"


def _rows(body: dict) -> list[tuple[str, str, list[int]]]:
    return sorted((row["use_path"], row["name"], row["use_lines"]) for row in body["left_behind"])


@pytest.mark.parametrize("user, path, line", [
    (OTHER_PACKAGE, Q + "User.java", 7), (THROUGH_LOCAL, P + "User.java", 5),
    (THROUGH_OWN_FIELD, P + "User.java", 7), (NEW_OBJECT, P + "User.java", 5),
], ids=["a-call-s-result-in-another-package", "a-field-of-a-typed-parameter", "a-field-of-the-class-s-own-field", "a-new-object"])
def test_a_method_renamed_behind_a_declared_type_blocks_wtc_check(tmp_path: Path, user: str, path: str, line: int) -> None:
    files = {P + "Store.java": STORE, P + "Entry.java": ENTRY, P + "Holder.java": HOLDER, path: user}
    code, report = _branch_checked(tmp_path, files, RENAMED)
    assert code == 1 and _rows(report) == [(path, "Entry.put", [line])], report


@pytest.mark.parametrize("files, edits", [
    ({P + "Holder.java": HOLDER.replace("class Holder {", "class Holder extends Base {"),
      P + "Base.java": "package p;\n\npublic class Base {\n}\n"}, RENAMED),
    ({P + "Holder.java": HOLDER}, {P + "Entry.java": ENTRY.replace("  public Entry put(int v)", "  public Entry put(long v) {\n    return this;\n  }\n\n  public Entry write(int v)")}),
    ({P + "Holder.java": HOLDER, P + "Box.java": "package p;\n\npublic class Box {\n  public void put(int v) {\n  }\n}\n",
      P + "User.java": THROUGH_LOCAL.replace("void f(Holder h) {", "void f(Holder h) {\n    Box h2 = null;").replace("h.entry", "h2")}, RENAMED),
], ids=["a-holder-with-a-base", "an-overload-kept", "another-class-s-method"])
def test_a_field_chain_unsure_or_kept_is_clean(tmp_path: Path, files: dict, edits: dict) -> None:
    base = {P + "Entry.java": ENTRY, P + "User.java": THROUGH_LOCAL} | files
    code, report = _branch_checked(tmp_path, base, edits)
    assert (code, report["left_behind"]) == (0, []), report


def test_task_check_the_queue_and_a_drain_block_a_call_from_another_package(tmp_path: Path) -> None:
    pin = {P + "Store.java": STORE, P + "Entry.java": ENTRY, Q + "User.java": "package q;\n\nclass User {\n}\n"}
    repo = _task_edited(tmp_path / "check", {**pin, Q + "User.java": OTHER_PACKAGE}, "rn", (P + "Entry.java",), RENAMED, None)
    code, body = wtc_in_process(repo, "task", "check", "rn", "--run", "r1")
    assert code == 1 and _rows(body) == [(Q + "User.java", "Entry.put", [7])], body
    code, body = _second_finish(tmp_path / "queue", pin, ("rn", P + "Entry.java", RENAMED),
                                ("use", Q + "User.java", {Q + "User.java": OTHER_PACKAGE}))
    assert (code, body["state"]) == (1, "conflict"), body
    code, states = _drained(tmp_path / "drain", {**pin, "README.md": "a\n"}, [
        ("rn", P + "Entry.java", RENAMED), ("other", "README.md", {"README.md": "b\n"}),
        ("use", Q + "User.java", {Q + "User.java": OTHER_PACKAGE})])
    assert code == 1 and states["use"] == ("conflict", [("semantic", Q + "User.java", "Entry.put")]), states
