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
