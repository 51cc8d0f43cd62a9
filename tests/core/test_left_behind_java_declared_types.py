"""Java: a renamed method called through a receiver whose class a declaration spells, blocks.

Found driving wtc on square/javapoet: `CodeBlock.Builder.addNamed` (a method of a class nested in
CodeBlock) renamed to addNamedArgs left MethodSpec.java's `code.addNamed(format, args)`, `code` a
field `private final CodeBlock.Builder code = CodeBlock.builder();`, and the tests'
`CodeBlock.builder().addNamed(...)`; `TypeName.box()` renamed left `TypeName.INT.box()`, INT declared
`public static final TypeName INT`. javac failed; `task check`, `task finish` and `wtc check` said
clean: a type spelled `Outer.Inner` was not followed, nor a class's static member by its declared
type (grammars/java.toml `@typed.*`, merge/checks/declared_types.py). One step of a declared type
only, and only where sure: a class the user nests by the outer name, a class with a base, a
static member whose overloads spell two types, a local of the class's name, leave the use alone.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import git, make_repo, wtc_in_process, write
from tests.core.test_uses_left_behind import _task_edited

P = "src/main/java/p/"
T = "src/test/java/p/"
BLOCK = ("package p;\n\npublic final class Block {\n  public static Builder builder() {\n    return new Builder();\n  }\n\n"
         "  public static final class Builder {\n    public Builder addNamed(String format) {\n      return this;\n    }\n  }\n}\n")
FIELD_USER = ("package p;\n\npublic final class Method {\n  public static final class Builder {\n"
              "    private final Block.Builder code = Block.builder();\n\n"
              "    public Builder addNamedCode(String format) {\n      code.addNamed(format);\n      return this;\n    }\n  }\n}\n")
PARAMETER_USER = ("package p;\n\nfinal class Emitter {\n  void emit(Block.Builder b) {\n    b.addNamed(\"x\");\n  }\n\n"
                  "  void local() {\n    Block.Builder b = Block.builder();\n    b.addNamed(\"y\");\n  }\n}\n")
FACTORY_USER = ("package p;\n\nfinal class BlockTest {\n  void named() {\n    Block.builder().addNamed(\"$a:S\");\n"
                "    Block.builder()\n        .addNamed(\"$b:S\");\n  }\n}\n")
RENAMED = BLOCK.replace("addNamed(", "addNamedArgs(")

KIND = ("package p;\n\npublic class Kind {\n  public static final Kind INT = new Kind();\n\n"
        "  public Kind box() {\n    return this;\n  }\n}\n")
KIND_USER = ("package p;\n\nfinal class KindTest {\n  void boxes() {\n    Object o = Kind.INT.box();\n  }\n}\n")


def _rows(body: dict) -> list[tuple[str, list[int], str]]:
    return sorted((r["use_path"], r["use_lines"], r["name"]) for r in body["left_behind"])


def _check(tmp_path: Path, files: dict[str, str], own: str, edits: dict[str, str]) -> tuple[Path, int, dict]:
    repo = _task_edited(tmp_path, files, "rn", ("/" + own,), edits, None)
    code, body = wtc_in_process(repo, "task", "check", "rn", "--run", "r1")
    return repo, code, body


@pytest.mark.parametrize("user_path, user, lines", [
    (P + "Method.java", FIELD_USER, [8]),
    (P + "Emitter.java", PARAMETER_USER, [5, 10]),
    (T + "BlockTest.java", FACTORY_USER, [5, 7]),
], ids=["field-of-a-nested-class", "parameter-and-local-of-a-nested-class", "static-factory-return"])
def test_a_rename_in_a_nested_class_blocks_its_calls(tmp_path: Path, user_path: str, user: str, lines: list) -> None:
    repo, code, body = _check(tmp_path, {P + "Block.java": BLOCK, user_path: user}, P + "Block.java",
                              {P + "Block.java": RENAMED})
    assert code == 1 and body["left_behind_blocks"] is True, body
    assert _rows(body) == [(user_path, lines, "Block.Builder.addNamed")], body["left_behind"]
    code, finish = wtc_in_process(repo, "task", "finish", "rn", "--run", "r1")
    assert (code, finish["state"]) == (1, "conflict"), finish


def test_a_rename_called_through_a_static_field_of_its_class_blocks(tmp_path: Path) -> None:
    repo, code, body = _check(tmp_path, {P + "Kind.java": KIND, T + "KindTest.java": KIND_USER}, P + "Kind.java",
                              {P + "Kind.java": KIND.replace("Kind box()", "Kind boxed()")})
    assert code == 1 and _rows(body) == [(T + "KindTest.java", [5], "Kind.box")], body
    code, finish = wtc_in_process(repo, "task", "finish", "rn", "--run", "r1")
    assert (code, finish["state"]) == (1, "conflict"), finish


def test_wtc_check_names_the_calls_through_declared_types(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {P + "Block.java": BLOCK, P + "Method.java": FIELD_USER,
                                         T + "BlockTest.java": FACTORY_USER, P + "Kind.java": KIND,
                                         T + "KindTest.java": KIND_USER})
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {P + "Block.java": RENAMED, P + "Kind.java": KIND.replace("Kind box()", "Kind boxed()")})
    git(repo, "commit", "-qam", "feature: renames")
    code, body = wtc_in_process(repo, "check", "--base", "main", "--head", "feature", "--own", "**")
    assert code == 1, body
    assert _rows(body) == [(P + "Method.java", [8], "Block.Builder.addNamed"),
                           (T + "BlockTest.java", [5, 7], "Block.Builder.addNamed"),
                           (T + "KindTest.java", [5], "Kind.box")], body["left_behind"]


def test_a_parameter_added_is_counted_through_a_nested_class_and_a_static_factory(tmp_path: Path) -> None:
    """The signature check reads the same receivers: `code.addNamed(format)` and
    `Block.builder().addNamed(...)` pass one argument where the reshaped method takes two."""
    reshaped = BLOCK.replace("addNamed(String format)", "addNamed(String format, Object args)")
    _repo, code, body = _check(tmp_path, {P + "Block.java": BLOCK, P + "Method.java": FIELD_USER,
                                          T + "BlockTest.java": FACTORY_USER}, P + "Block.java",
                               {P + "Block.java": reshaped})
    assert code == 1, body
    assert sorted((r["use_path"], r["use_lines"], r["signature"]) for r in body["left_behind"]) == \
        [(P + "Method.java", [8], True), (T + "BlockTest.java", [5, 7], True)], body["left_behind"]


NESTED_BLOCK = "\n  static final class Block {\n    static final class Builder {\n      void addNamed(String f) {}\n    }\n  }\n}\n"


@pytest.mark.parametrize("files", [
    # The user nests a class Block of its own: `Block.Builder` is that one's.
    {P + "Method.java": FIELD_USER.removesuffix("}\n") + NESTED_BLOCK.lstrip("\n")},
    # Builder has a base: addNamed may be inherited from it.
    {P + "Block.java": BLOCK.replace("class Builder {", "class Builder extends Base {"),
     P + "Base.java": "package p;\n\nclass Base {\n  public Block.Builder addNamed(String f) {\n    return null;\n  }\n}\n",
     P + "Method.java": FIELD_USER},
    # Two overloads of builder() spell two return types: which one a call means is not read.
    {P + "Block.java": BLOCK.replace("  public static final class Builder",
                                     "  public static Object builder(int n) {\n    return null;\n  }\n\n"
                                     "  public static final class Builder"),
     T + "BlockTest.java": FACTORY_USER},
    # A local named Block: `Block.builder()` is that object's method.
    {T + "BlockTest.java": FACTORY_USER.replace("  void named() {\n", "  void named() {\n    Other Block = null;\n")},
    # The factory returns another top-level class: not followed (one step only, and only to the class or its nest).
    {P + "Block.java": BLOCK.replace("public static Builder builder()", "public static Other builder()")
     .replace("return new Builder();", "return null;"),
     P + "Other.java": "package p;\n\nclass Other {\n  void addNamed(String f) {}\n}\n",
     T + "BlockTest.java": FACTORY_USER},
], ids=["user-nests-its-own-Block", "nested-class-with-a-base", "overloads-of-two-return-types",
        "a-local-of-the-class-name", "factory-returns-another-class"])
def test_receivers_whose_class_is_not_sure_stay_clean(tmp_path: Path, files: dict[str, str]) -> None:
    files = {P + "Block.java": BLOCK, **files}
    edits = {P + "Block.java": files[P + "Block.java"].replace("addNamed(String format)", "addNamedArgs(String format)")}
    _repo, code, body = _check(tmp_path, files, P + "Block.java", edits)
    assert code == 0 and not body["left_behind"], body["left_behind"]


def test_a_static_field_of_a_class_with_a_base_or_of_another_type_stays_clean(tmp_path: Path) -> None:
    for kind in (KIND.replace("public class Kind {", "public class Kind extends Number {"),
                 KIND.replace("public static final Kind INT = new Kind();", "public static final Object INT = null;")):
        _repo, code, body = _check(tmp_path / str(len(kind)), {P + "Kind.java": kind, T + "KindTest.java": KIND_USER},
                                   P + "Kind.java", {P + "Kind.java": kind.replace("Kind box()", "Kind boxed()")})
        assert code == 0 and not body["left_behind"], body["left_behind"]


CONSTRUCTED = BLOCK.replace("public final class Block {\n",
                            "public final class Block {\n  private final String first;\n\n"
                            "  private Block(Builder builder) {\n    this.first = builder.toString();\n  }\n\n")
FACTORY_CALLER = "package p;\n\nfinal class Maker {\n  Object make() {\n    return Block.builder();\n  }\n}\n"


def test_a_constructor_parameter_of_the_removed_name_does_not_keep_it(tmp_path: Path) -> None:
    """`private Block(Builder builder)` binds `builder` in the constructor alone (profile
    `function_scopes`): renaming the static `builder()` leaves Maker's `Block.builder()` behind (javapoet's
    CodeBlock, whose constructor takes `Builder builder`: the rename checked clean). The constructor's
    own `builder.toString()` is its parameter's, not a use."""
    _repo, code, body = _check(tmp_path, {P + "Block.java": CONSTRUCTED, P + "Maker.java": FACTORY_CALLER},
                               P + "Block.java", {P + "Block.java": CONSTRUCTED.replace(
                                   "static Builder builder()", "static Builder newBuilder()")})
    assert code == 1 and _rows(body) == [(P + "Maker.java", [5], "Block.builder")], body["left_behind"]
