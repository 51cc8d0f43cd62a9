"""Java: an anonymous class's `this.x` and bare `x()` are its own (or its base's), not the enclosing class's.

`new Runnable() { void reset() {} public void run() { this.reset(); } }` inside Outer calls the
anonymous class's reset. The check placed everything in an anonymous class's body in the enclosing
class, so a task removing Outer.reset made another task's new `this.reset()` there a semantic
conflict at the merge: a false block (javac compiles the merged file). An anonymous class's body is
now a class of its own whose base (the type it instantiates) may give any member; a use of the
removed method in Outer's own code still blocks.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.core.test_uses_left_behind import _second_finish

P = "src/main/java/p/"
OUTER = ("package p;\n\npublic class Outer {\n  static int limit = 3;\n\n  void reset() {\n  }\n\n"
         "  void again() {\n  }\n\n"
         "  Runnable task() {\n    return new Runnable() {\n      int limit = 4;\n\n      void reset() {\n      }\n\n"
         "      public void run() {\n        int n = 0;\n      }\n    };\n  }\n}\n")
REMOVED = OUTER.replace("  static int limit = 3;\n\n  void reset() {\n  }\n\n", "")


def _after_removal(tmp_path: Path, added: str) -> tuple[int, dict]:
    """Task `rm` removes Outer's `limit` and `reset` and merges; the finish of task `use`, started
    beside it, which writes `added`."""
    return _second_finish(tmp_path, {P + "Outer.java": OUTER}, ("rm", P + "Outer.java", {P + "Outer.java": REMOVED}),
                          ("use", P + "Outer.java", {P + "Outer.java": added}))


@pytest.mark.parametrize("line", ["this.reset();", "reset();", "int m = this.limit;"],
                         ids=["this-method", "bare-method", "this-field"])
def test_a_use_in_an_anonymous_class_of_its_own_member_merges(tmp_path: Path, line: str) -> None:
    code, body = _after_removal(tmp_path, OUTER.replace("        int n = 0;\n", f"        int n = 0;\n        {line}\n"))
    assert (code, body["state"]) == (0, "merged"), body


def test_a_use_in_the_enclosing_classs_own_code_still_conflicts(tmp_path: Path) -> None:
    code, body = _after_removal(tmp_path, OUTER.replace("  void again() {\n  }\n", "  void again() {\n    this.reset();\n  }\n"))
    assert (code, body["state"]) == (1, "conflict"), body
    assert [c["semantic"]["name"] for c in body["conflicts"]] == ["Outer.reset"], body
