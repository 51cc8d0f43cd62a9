"""Java: calls, in other files of a package, of a static method a task gave another parameter, block.

Found driving wtc on square/javapoet: `Util.union(Set a, Set b)` given a third parameter left
TypeSpec.java's `Util.union(implicitModifiers, kind.asMemberModifiers)` (the same package: no
import names Util), and `Util.stringLiteralWithDoubleQuotes(value, indent)` given a third left
CodeWriter.java's call through `import static ...Util.stringLiteralWithDoubleQuotes;` and
UtilTest.java's (src/test/java, the same package). javac failed on each; `task check`, `task finish`
and `wtc check --own '**'` said clean: the signature check's call resolution (signatures.py
`_target`) knew a class the file declares or imports by name, not one of its package nor a member
a static import names. An overload of the new count, or a varargs parameter, still makes the count
unknown: nothing is said then.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import git, make_repo, wtc_in_process, write
from tests.core.test_uses_left_behind import _task_edited

P = "src/main/java/p/"
T = "src/test/java/p/"
UTIL = ("package p;\n\nimport java.util.LinkedHashSet;\nimport java.util.Set;\n\nfinal class Util {\n"
        "  static <T> Set<T> union(Set<T> a, Set<T> b) {\n    Set<T> out = new LinkedHashSet<>(a);\n"
        "    out.addAll(b);\n    return out;\n  }\n\n"
        "  static String quote(String value, String indent) {\n    return indent + value;\n  }\n}\n")
SPEC = ("package p;\n\nimport java.util.Set;\n\nfinal class Spec {\n"
        "  Set<String> all(Set<String> a, Set<String> b) {\n    return Util.union(a, b);\n  }\n}\n")
WRITER = ("package p;\n\nimport static p.Util.quote;\n\nfinal class Writer {\n"
          "  String emit(String s) {\n    return quote(s, \"  \");\n  }\n}\n")
UTIL_TEST = ("package p;\n\nfinal class UtilTest {\n  void quoted() {\n"
             "    String out = Util.quote(\"a\", \"\");\n  }\n}\n")
FILES = {P + "Util.java": UTIL, P + "Spec.java": SPEC, P + "Writer.java": WRITER, T + "UtilTest.java": UTIL_TEST}
UNION3 = UTIL.replace("union(Set<T> a, Set<T> b)", "union(Set<T> a, Set<T> b, boolean sorted)")
QUOTE3 = UTIL.replace("quote(String value, String indent)", "quote(String value, String indent, boolean ascii)")


def _rows(body: dict) -> list[tuple[str, list[int], str, bool]]:
    return sorted((r["use_path"], r["use_lines"], r["name"], r["signature"]) for r in body["left_behind"])


@pytest.mark.parametrize("util, expected", [
    (UNION3, [(P + "Spec.java", [7], "Util.union", True)]),
    (QUOTE3, [(P + "Writer.java", [7], "Util.quote", True), (T + "UtilTest.java", [5], "Util.quote", True)]),
], ids=["same-package-class", "static-import-and-test-source-set"])
def test_a_parameter_added_to_a_static_method_called_from_its_package_blocks(tmp_path: Path, util: str,
                                                                             expected: list) -> None:
    repo = _task_edited(tmp_path, FILES, "rs", ("/" + P + "Util.java",), {P + "Util.java": util}, None)
    code, check = wtc_in_process(repo, "task", "check", "rs", "--run", "r1")
    assert code == 1 and check["left_behind_blocks"] is True, check
    assert _rows(check) == sorted(expected), check["left_behind"]
    code, body = wtc_in_process(repo, "task", "finish", "rs", "--run", "r1")
    assert (code, body["state"]) == (1, "conflict"), body
    assert {c["semantic"]["use_path"] for c in body["conflicts"] if c["kind"] == "left_behind"} == \
        {path for path, *_ in expected}, body["conflicts"]


def test_wtc_check_names_the_calls_of_the_package(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", FILES)
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {P + "Util.java": UNION3.replace("quote(String value, String indent)",
                                                 "quote(String value, String indent, boolean ascii)")})
    git(repo, "commit", "-qam", "feature: a parameter more")
    code, body = wtc_in_process(repo, "check", "--base", "main", "--head", "feature", "--own", "**")
    assert code == 1, body
    assert _rows(body) == sorted([(P + "Spec.java", [7], "Util.union", True), (P + "Writer.java", [7], "Util.quote", True),
                                  (T + "UtilTest.java", [5], "Util.quote", True)]), body["left_behind"]


OVERLOADED = UNION3.replace("  static String quote", "  static <T> Set<T> union(Set<T> a, Set<T> b) {\n"
                                                     "    return union(a, b, false);\n  }\n\n  static String quote")


@pytest.mark.parametrize("util", [
    OVERLOADED,
    UTIL.replace("union(Set<T> a, Set<T> b)", "union(Set<T> a, Set<T>... more)"),
    UTIL.replace("quote(String value, String indent)", "quote(String value, String... indent)"),
], ids=["old-shape-kept-as-an-overload", "varargs", "varargs-of-the-static-import"])
def test_an_overload_or_varargs_leaves_the_calls_alone(tmp_path: Path, util: str) -> None:
    repo = _task_edited(tmp_path, FILES, "rs", ("/" + P + "Util.java",), {P + "Util.java": util}, None)
    code, check = wtc_in_process(repo, "task", "check", "rs", "--run", "r1")
    assert code == 0 and not check["left_behind"], check


def test_a_method_of_the_callers_own_class_hides_the_static_import(tmp_path: Path) -> None:
    """Java: a method named `quote` in the calling class (any count) shadows `import static
    p.Util.quote;`: the bare call is the class's own, whatever Util's quote takes."""
    own = WRITER.replace("  String emit(String s) {", "  String quote(String s, String i) {\n    return s;\n  }\n\n"
                         "  String emit(String s) {")
    repo = _task_edited(tmp_path, {**FILES, P + "Writer.java": own}, "rs", ("/" + P + "Util.java",),
                        {P + "Util.java": QUOTE3}, None)
    code, check = wtc_in_process(repo, "task", "check", "rs", "--run", "r1")
    assert _rows(check) == [(T + "UtilTest.java", [5], "Util.quote", True)], check["left_behind"]
