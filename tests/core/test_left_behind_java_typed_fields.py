"""Java: a call on a field of declared class (`sp.print()` in a method, `ScenarioPrinter sp` a field) is followed.

A field is read in its class's methods as a local is (grammars/java.toml `@typed.field`): renaming
`ScenarioPrinter.print` leaves `sp.print()` behind whether the field is made where it is declared
or set in the constructor, and the landed tree does not compile. Before, only locals and
parameters were followed, and a rename with every use through a field checked clean. Where the
field's type names a class the file nests (`static class Store` inside the user), that class is the
one the name means, not the package's Store.java: never a block on the package's file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import wtc
from tests.core.test_uses_left_behind import _task_edited

P = "src/main/java/p/"
PRINTER = ("package p;\n\npublic class ScenarioPrinter {\n  public String print(int n) {\n"
           "    return String.valueOf(n);\n  }\n}\n")
MADE_THERE = ("package p;\n\npublic class Report {\n  ScenarioPrinter sp = new ScenarioPrinter();\n\n"
              "  String x() {\n    return sp.print(1);\n  }\n}\n")
SET_IN_CONSTRUCTOR = ("package p;\n\npublic class Report {\n  private final ScenarioPrinter sp;\n\n"
                      "  Report() {\n    sp = new ScenarioPrinter();\n  }\n\n"
                      "  String x() {\n    return sp.print(1);\n  }\n}\n")


def _renamed(tmp_path: Path, user: str, user_path: str = P + "Report.java") -> tuple[int, dict]:
    """A task owning ScenarioPrinter.java renames `print` to `render`: its `task check`."""
    repo = _task_edited(tmp_path, {P + "ScenarioPrinter.java": PRINTER, user_path: user}, "rm",
                        (P + "ScenarioPrinter.java",),
                        {P + "ScenarioPrinter.java": PRINTER.replace("print(", "render(")}, None)
    return wtc(repo, "task", "check", "rm", "--run", "r1")


@pytest.mark.parametrize("user, line", [(MADE_THERE, 7), (SET_IN_CONSTRUCTOR, 11)],
                         ids=["made-where-declared", "set-in-the-constructor"])
def test_a_call_on_a_field_of_declared_class_blocks_at_task_check(tmp_path: Path, user: str, line: int) -> None:
    code, body = _renamed(tmp_path, user)
    assert code == 1 and body["left_behind_blocks"] is True, body
    assert [(row["use_path"], row["use_lines"], row["name"]) for row in body["left_behind"]] == \
        [(P + "Report.java", [line], "ScenarioPrinter.print")]


NESTED = "\n  static class ScenarioPrinter {\n    String print(int n) {\n      return \"\";\n    }\n  }\n}\n"


@pytest.mark.parametrize("user", [
    MADE_THERE.removesuffix("}\n") + NESTED.lstrip("\n"),
    SET_IN_CONSTRUCTOR.removesuffix("}\n") + NESTED.lstrip("\n"),
    MADE_THERE.replace("String x() {", "String x(Object sp) {").replace("sp.print(1)", "sp.toString()")
    .replace("toString()", "print(1)").replace("Object sp", "Other sp"),
    ("package p;\n\npublic class Report {\n  String x() {\n    ScenarioPrinter sp = new ScenarioPrinter();\n"
     "    return sp.print(1);\n  }\n" + NESTED.lstrip("\n")),
], ids=["field-of-a-nested-class", "constructor-set-field-of-a-nested-class", "a-parameter-hides-the-field",
        "local-of-a-nested-class"])
def test_a_field_or_local_whose_class_is_another_stays_clean(tmp_path: Path, user: str) -> None:
    code, body = _renamed(tmp_path, user)
    assert code == 0 and not body["left_behind"], body


# -- `this.sp.print()`, and an outer class's field used in an inner class's method (trust-left9's note) --
THIS_FIELD = MADE_THERE.replace("return sp.print(1);", "return this.sp.print(1);")
# `this.sp` is the field even where a local of that name hides it for a bare `sp`.
THIS_FIELD_PAST_A_LOCAL = MADE_THERE.replace("    return sp.print(1);", "    String sp = \"\";\n    return this.sp.print(1) + sp;")
INNER = ("package p;\n\npublic class Report {\n  private final ScenarioPrinter sp = new ScenarioPrinter();\n\n"
         "  class Line {\n    String x() {\n      return sp.print(1);\n    }\n  }\n}\n")


@pytest.mark.parametrize("user, line", [(THIS_FIELD, 7), (THIS_FIELD_PAST_A_LOCAL, 8), (INNER, 8)],
                         ids=["this-dot-field", "this-dot-field-past-a-local", "outer-field-in-an-inner-class"])
def test_a_call_through_this_or_from_an_inner_class_blocks_at_task_check(tmp_path: Path, user: str, line: int) -> None:
    code, body = _renamed(tmp_path, user)
    assert code == 1 and body["left_behind_blocks"] is True, body
    assert [(row["use_path"], row["use_lines"], row["name"]) for row in body["left_behind"]] == \
        [(P + "Report.java", [line], "ScenarioPrinter.print")]


INNER_OWN_FIELD = INNER.replace("  class Line {\n", "  class Line {\n    Other sp = new Other();\n\n")
INNER_EXTENDS = INNER.replace("  class Line {\n", "  class Line extends Base {\n")


@pytest.mark.parametrize("user", [INNER_OWN_FIELD, INNER_EXTENDS],
                         ids=["the-inner-class-declares-its-own-sp", "the-inner-class-may-inherit-an-sp"])
def test_an_inner_class_whose_sp_may_be_another_stays_clean(tmp_path: Path, user: str) -> None:
    code, body = _renamed(tmp_path, user)
    assert code == 0 and not body["left_behind"], body

