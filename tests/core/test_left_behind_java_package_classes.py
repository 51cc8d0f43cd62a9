"""Java: a class of the same package is used bare, with no import; deleting, renaming or moving it blocks.

Found driving wtc on javapoet: a task moved `LineWrapper` into a subpackage (`package ...internal;`),
and `CodeWriter.java` of the old package, which declares `private final LineWrapper out` and calls
`new LineWrapper(...)` with no import (a class of one's own package needs none), was never read as a
user: `task check`, the finish and `wtc check` said clean, and the landed tree did not compile. Only a
static member's use (`Wrap.make()`) was followed to the package's file. Now a bare class name with no
import or binding of it leads to the package's file named for it, in every source set of the package;
a file importing a class of that name from elsewhere, or declaring one itself, stays clean.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import git, make_repo, wtc_in_process
from tests.core.test_uses_left_behind import _task_edited

P = "src/main/java/a/b/"
T = "src/test/java/a/b/"
WRAP = "package a.b;\n\nfinal class Wrap {\n  Wrap(int n) {}\n\n  void append(String s) {}\n}\n"
WRITER = ("package a.b;\n\nfinal class Writer {\n  private final Wrap out = new Wrap(3);\n\n"
          "  void emit() {\n    out.append(\"x\");\n  }\n}\n")
WRAP_TEST = "package a.b;\n\nclass WrapTest {\n  void t() {\n    Object w = new Wrap(1);\n  }\n}\n"
FILES = {P + "Wrap.java": WRAP, P + "Writer.java": WRITER, T + "WrapTest.java": WRAP_TEST}


def _checked(tmp_path: Path, edits: dict[str, str | None], moves: dict[str, str] | None = None,
             files: dict[str, str] = FILES) -> tuple[int, dict]:
    repo = _task_edited(tmp_path, files, "mv", (P + "**",), edits, moves)
    return wtc_in_process(repo, "task", "check", "mv", "--run", "r1")


def _users(body: dict) -> list[tuple[str, str]]:
    return sorted((row["use_path"], row["name"]) for row in body["left_behind"])


def test_a_class_moved_to_another_package_blocks_its_unimported_users(tmp_path: Path) -> None:
    moved = P + "c/Wrap.java"
    code, body = _checked(tmp_path, {moved: WRAP.replace("package a.b;", "package a.b.c;")}, {P + "Wrap.java": moved})
    assert code == 1 and body["left_behind_blocks"] is True, body
    assert _users(body) == [(P + "Writer.java", "Wrap"), (T + "WrapTest.java", "Wrap")]
    assert all("keep the class in its old package" in row["note"] for row in body["left_behind"]), body


def test_a_deleted_or_renamed_class_blocks_at_check_finish_and_wtc_check(tmp_path: Path) -> None:
    code, body = _checked(tmp_path, {P + "Wrap.java": None})
    assert code == 1 and (P + "Writer.java", "Wrap") in _users(body), body
    renamed = P + "Wrapper.java"
    code, body = _checked(tmp_path / "renamed", {renamed: WRAP.replace("Wrap", "Wrapper")}, {P + "Wrap.java": renamed})
    assert code == 1 and _users(body) == [(P + "Writer.java", "Wrap"), (T + "WrapTest.java", "Wrap")], body
    repo = tmp_path / "renamed" / "repo"
    code, finish = wtc_in_process(repo, "task", "finish", "mv", "--run", "r1")
    assert (code, finish["state"]) == (1, "conflict"), finish
    # The CI face on a branch of the same change.
    ci = make_repo(tmp_path / "ci", FILES)
    git(ci, "checkout", "-q", "-b", "topic")
    git(ci, "mv", P + "Wrap.java", renamed)
    (ci / renamed).write_text(WRAP.replace("Wrap", "Wrapper"))
    git(ci, "commit", "-qam", "rename Wrap")
    code, report = wtc_in_process(ci, "check", "--base", "main", "--head", "topic", "--own", "**")
    assert code == 1 and {row["use_path"] for row in report["left_behind"]} == {P + "Writer.java", T + "WrapTest.java"}, report


def test_users_that_import_or_declare_their_own_class_of_that_name_stay_clean(tmp_path: Path) -> None:
    imports = WRITER.replace("package a.b;\n", "package a.b;\n\nimport x.y.Wrap;\n")
    nested = WRAP_TEST.replace("}\n}\n", "}\n\n  static final class Wrap {\n    Wrap(int n) {}\n  }\n}\n")
    files = {P + "Wrap.java": WRAP, P + "Writer.java": imports, T + "WrapTest.java": nested,
             "src/main/java/x/y/Wrap.java": WRAP.replace("package a.b;", "package x.y;").replace("final class", "public final class")}
    code, body = _checked(tmp_path, {P + "Wrap.java": None}, files=files)
    assert (code, body["left_behind"]) == (0, []), body


OTHER = "package a.b;\n\nclass Other {\n}\n"


def _second_finish(tmp_path: Path, wrap: str, first: tuple[str, str | None], second: tuple[str, str]) -> tuple[int, dict]:
    """Tasks `first` (owning Wrap.java: its new text, None deletes it) and `second` (owning Other.java:
    its new text) started together on a repository of `wrap` and an empty Other.java; the first
    finished, merged; the second's finish."""
    repo = make_repo(tmp_path / "repo", {P + "Wrap.java": wrap, P + "Other.java": OTHER})
    assert wtc_in_process(repo, "run", "start", "--run", "r1")[0] == 0
    worktrees = {}
    for task, own in ((first[0], P + "Wrap.java"), (second[0], P + "Other.java")):
        code, body = wtc_in_process(repo, "task", "start", task, "--run", "r1", "--own", own)
        assert code == 0, body
        worktrees[task] = Path(body["worktree"])
    if first[1] is None:
        git(worktrees[first[0]], "rm", "-q", P + "Wrap.java")
    else:
        (worktrees[first[0]] / P / "Wrap.java").write_text(first[1])
    (worktrees[second[0]] / P / "Other.java").write_text(second[1])
    assert wtc_in_process(repo, "task", "finish", first[0], "--run", "r1")[0] == 0
    return wtc_in_process(repo, "task", "finish", second[0], "--run", "r1")


def test_two_tasks_one_deletes_a_class_the_other_newly_uses_bare_is_a_semantic_conflict(tmp_path: Path) -> None:
    code, body = _second_finish(tmp_path, WRAP, ("rm", None),
                                ("use", "package a.b;\n\nclass Other {\n  Object w = new Wrap(2);\n}\n"))
    assert (code, body["state"]) == (1, "conflict"), body
    assert any("Wrap" in str(conflict) for conflict in body["conflicts"]), body


def test_two_tasks_one_renames_a_static_method_the_other_calls_it_unimported_is_a_conflict(tmp_path: Path) -> None:
    """The drain's tip tables paired a same-package user by the class's word and then dropped it for
    naming no import: the rename merged first, the new `Wrap.make()` beside it merged too."""
    wrap = WRAP.replace("  void append", "  static Wrap make() {\n    return new Wrap(0);\n  }\n\n  void append")
    code, body = _second_finish(tmp_path, wrap, ("rename", wrap.replace("make()", "build()")),
                                ("call", "package a.b;\n\nclass Other {\n  Object w = Wrap.make();\n}\n"))
    assert (code, body["state"]) == (1, "conflict"), body
    assert any("Wrap.make" in str(conflict) for conflict in body["conflicts"]), body


COLOR = "package a.b;\n\npublic enum Color {\n  RED,\n  GREEN;\n\n  boolean warm() {\n    return this == RED;\n  }\n}\n"
USE = "package a.b;\n\nclass Use {\n  Color c = Color.RED;\n}\n"


def test_an_enum_constant_renamed_blocks_its_uses_and_one_added_does_not(tmp_path: Path) -> None:
    """An enum's constant is a static field of its enum: `Color.RED` renamed left Use.java's read of it
    (javapoet's TypeSpec.Kind constants: never definitions before)."""
    renamed = COLOR.replace("  RED,", "  CRIMSON,").replace("this == RED", "this == CRIMSON")
    code, body = _checked(tmp_path, {P + "Color.java": renamed}, files={P + "Color.java": COLOR, P + "Use.java": USE})
    assert code == 1 and [(row["use_path"], row["name"], row["use_lines"]) for row in body["left_behind"]] == \
        [(P + "Use.java", "Color.RED", [4])], body
    added = COLOR.replace("  GREEN;", "  GREEN,\n  BLUE;")
    code, body = _checked(tmp_path / "added", {P + "Color.java": added}, files={P + "Color.java": COLOR, P + "Use.java": USE})
    assert (code, body["left_behind"]) == (0, []), body
