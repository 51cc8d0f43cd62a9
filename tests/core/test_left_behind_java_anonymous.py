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

from tests.conftest import make_repo, wtc_in_process

P = "src/main/java/p/"
OUTER = ("package p;\n\npublic class Outer {\n  static int limit = 3;\n\n  void reset() {\n  }\n\n"
         "  void again() {\n  }\n\n"
         "  Runnable task() {\n    return new Runnable() {\n      int limit = 4;\n\n      void reset() {\n      }\n\n"
         "      public void run() {\n        int n = 0;\n      }\n    };\n  }\n}\n")
REMOVED = OUTER.replace("  static int limit = 3;\n\n  void reset() {\n  }\n\n", "")


def _second_finish(tmp_path: Path, added: str) -> tuple[int, dict]:
    """Tasks `rm` (removes Outer's `limit` and `reset`) and `use` (writes `added`), both owning
    Outer.java, started together; `rm` finished, merged; `use`'s finish."""
    repo = make_repo(tmp_path / "repo", {P + "Outer.java": OUTER})
    assert wtc_in_process(repo, "run", "start", "--run", "r1")[0] == 0
    worktrees = {}
    for task in ("rm", "use"):
        code, body = wtc_in_process(repo, "task", "start", task, "--run", "r1", "--own", P + "Outer.java")
        assert code == 0, body
        worktrees[task] = Path(body["worktree"])
    (worktrees["rm"] / P / "Outer.java").write_text(REMOVED)
    (worktrees["use"] / P / "Outer.java").write_text(added)
    code, body = wtc_in_process(repo, "task", "finish", "rm", "--run", "r1")
    assert (code, body["state"]) == (0, "merged"), body
    return wtc_in_process(repo, "task", "finish", "use", "--run", "r1")


@pytest.mark.parametrize("line", ["this.reset();", "reset();", "int m = this.limit;"],
                         ids=["this-method", "bare-method", "this-field"])
def test_a_use_in_an_anonymous_class_of_its_own_member_merges(tmp_path: Path, line: str) -> None:
    code, body = _second_finish(tmp_path, OUTER.replace("        int n = 0;\n", f"        int n = 0;\n        {line}\n"))
    assert (code, body["state"]) == (0, "merged"), body


def test_a_use_in_the_enclosing_classs_own_code_still_conflicts(tmp_path: Path) -> None:
    code, body = _second_finish(tmp_path, OUTER.replace("  void again() {\n  }\n", "  void again() {\n    this.reset();\n  }\n"))
    assert (code, body["state"]) == (1, "conflict"), body
    assert [c["semantic"]["name"] for c in body["conflicts"]] == ["Outer.reset"], body
