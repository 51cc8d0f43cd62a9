"""A member renamed and still read, through its type's name, in the very file that renamed it.

Found driving wtc on square/javapoet: TypeSpec.java nests `public enum Kind { CLASS, INTERFACE, ... }`
and reads `Kind.INTERFACE` in its own methods. A task renaming the constant and leaving those reads
was clean at `task check`, at its finish and in `wtc check` (the look read other files' uses, and
in the renaming file only bare uses of top-level names), and javac failed on the landed tree. A
member read through the name of a type the file defines (nested around the use in Java, top-level
anywhere) now blocks there; and another task's new read of it in that file is a conflict at the
merge (the receiver `Kind` is the nested enum). A member the type still declares, one a base may
give, a local of the type's name, or an assignment that writes the member back stays clean.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import wtc_in_process
from tests.core.test_uses_left_behind import _branch_checked, _second_finish, _task_edited

P = "src/main/java/p/"
TYPESPEC = ("package p;\n\npublic final class TypeSpec {\n  public final Kind kind;\n\n"
            "  TypeSpec(Kind kind) {\n    this.kind = kind;\n  }\n\n"
            "  public boolean isInterface() {\n    return kind == Kind.INTERFACE;\n  }\n\n"
            "  public static final class Builder {\n    boolean iface(Kind k) {\n      return k == Kind.INTERFACE;\n    }\n  }\n\n"
            "  public enum Kind {\n    CLASS,\n    INTERFACE,\n    ENUM\n  }\n}\n")
FILES = {P + "TypeSpec.java": TYPESPEC}
RENAMED = TYPESPEC.replace("    INTERFACE,", "    IFACE,")


def _rows(body: dict) -> list[tuple[str, str, list[int]]]:
    return sorted((row["use_path"], row["name"], row["use_lines"]) for row in body["left_behind"])


def test_a_constant_of_a_nested_enum_renamed_and_read_in_its_file_blocks_at_task_check(tmp_path: Path) -> None:
    repo = _task_edited(tmp_path, FILES, "rn", (P + "TypeSpec.java",), {P + "TypeSpec.java": RENAMED}, None)
    code, body = wtc_in_process(repo, "task", "check", "rn", "--run", "r1")
    assert code == 1 and body["left_behind_blocks"] is True, body
    assert _rows(body) == [(P + "TypeSpec.java", "TypeSpec.Kind.INTERFACE", [11, 16])]
    code, body = wtc_in_process(repo, "task", "finish", "rn", "--run", "r1")
    assert (code, body["state"]) == (1, "conflict"), body


def test_a_constant_of_a_nested_enum_renamed_and_read_in_its_file_blocks_in_wtc_check(tmp_path: Path) -> None:
    code, report = _branch_checked(tmp_path, FILES, {P + "TypeSpec.java": RENAMED})
    assert code == 1 and _rows(report) == [(P + "TypeSpec.java", "TypeSpec.Kind.INTERFACE", [11, 16])], report


def test_a_read_another_task_adds_in_the_file_of_a_renamed_constant_is_a_conflict(tmp_path: Path) -> None:
    """Task `rn` renames Kind.INTERFACE (and its reads) and merges; task `add`, started beside it, adds
    a method of TypeSpec reading Kind.INTERFACE: the queue's merge check of `add` is a conflict."""
    added = TYPESPEC.replace("  public static final class Builder {",
                             "  public boolean isClass() {\n    return kind != Kind.INTERFACE;\n  }\n\n"
                             "  public static final class Builder {")
    code, body = _second_finish(tmp_path, FILES,
                                ("rn", P + "TypeSpec.java", {P + "TypeSpec.java": RENAMED.replace("Kind.INTERFACE", "Kind.IFACE")}),
                                ("add", P + "TypeSpec.java", {P + "TypeSpec.java": added}))
    assert (code, body["state"]) == (1, "conflict"), body
    assert any("INTERFACE" in str(conflict) for conflict in body["conflicts"]), body


PY = "import enum\n\n\nclass Color(enum.Enum):\n    RED = 1\n\n\ndef warm():\n    return Color.RED\n"
RS = "pub enum Color {\n    Red,\n    Green,\n}\n\npub fn warm() -> Color {\n    Color::Red\n}\n"


@pytest.mark.parametrize("path, text, old, new, name, line", [
    ("pkg/color.py", PY, "    RED = 1", "    CRIMSON = 1", "Color.RED", 9),
    ("src/lib.rs", RS, "    Red,", "    Crimson,", "Color::Red", 7),
], ids=["python-enum-member", "rust-variant"])
def test_a_member_renamed_and_read_in_its_file_blocks(tmp_path: Path, path: str, text: str, old: str, new: str,
                                                      name: str, line: int) -> None:
    files = {path: text, "Cargo.toml": '[package]\nname = "x"\nversion = "0.1.0"\nedition = "2021"\n'}
    code, report = _branch_checked(tmp_path, files, {path: text.replace(old, new)})
    assert code == 1 and _rows(report) == [(path, name, [line])], report


JS = "export class Store {\n  static limit = 3;\n}\n\nexport function cap() {\n  return Store.limit;\n}\n"


@pytest.mark.parametrize("path, text, edited", [
    (P + "TypeSpec.java", TYPESPEC, TYPESPEC.replace("    ENUM\n", "    ENUM,\n    RECORD\n")),
    (P + "TypeSpec.java", TYPESPEC.replace("public enum Kind {", "public enum Kind implements Named {"),
     RENAMED.replace("public enum Kind {", "public enum Kind implements Named {")),
    (P + "TypeSpec.java", TYPESPEC.replace("    return k == Kind.INTERFACE;", "    Named Kind = null;\n      return Kind.INTERFACE == 1;"),
     RENAMED.replace("    return k == Kind.INTERFACE;", "    Named Kind = null;\n      return Kind.INTERFACE == 1;")
     .replace("    return kind == Kind.INTERFACE;", "    return kind == Kind.IFACE;")),
    ("src/store.js", JS, JS.replace("  static limit = 3;\n}\n", "}\n\nStore.limit = 3;\n")),
    ("pkg/color.py", PY, PY.replace("    RED = 1\n", "    CRIMSON = 1\n    RED = CRIMSON\n")),
], ids=["a-constant-added", "a-base-may-give-it", "a-local-of-the-types-name", "written-back-by-an-assignment",
        "kept-as-an-alias"])
def test_a_member_kept_or_answered_in_its_file_is_clean(tmp_path: Path, path: str, text: str, edited: str) -> None:
    files = {path: text, P + "Named.java": "package p;\n\ninterface Named {\n  int INTERFACE = 1;\n}\n"}
    code, report = _branch_checked(tmp_path, files, {path: edited})
    assert (code, report["left_behind"]) == (0, []), report
