"""The cascade's choices and fallbacks, on real inputs through the real engines."""

from __future__ import annotations

from pathlib import Path

import pygit2

from worktree_coord.merge import Strategy, line_merge, merge_file, resolve_conflicted_files
from worktree_coord.merge.lines.line import git_merge_file

BASE = b"import os\n\n\ndef a():\n    return 1\n"
LEFT = b"import os\nimport sys\n\n\ndef a():\n    return 1\n\n\ndef b():\n    return 2\n"
RIGHT = b"import os\nimport re\n\n\ndef a():\n    return 1\n\n\ndef c():\n    return 3\n"
BOTH = b"import os\nimport sys\nimport re\n\n\ndef a():\n    return 1\n\n\ndef b():\n    return 2\n\n\ndef c():\n    return 3\n"


def test_trivial_cases_return_the_changed_side() -> None:
    assert merge_file(BASE, LEFT, BASE, "m.py").merged == LEFT
    assert merge_file(BASE, BASE, RIGHT, "m.py").merged == RIGHT
    same = merge_file(BASE, LEFT, LEFT, "m.py")
    assert same.merged == LEFT and same.clean and same.strategy is Strategy.TRIVIAL


def test_structured_resolves_what_lines_conflict_on() -> None:
    assert not line_merge(BASE, LEFT, RIGHT).clean
    result = merge_file(BASE, LEFT, RIGHT, "pkg/m.py")
    assert result.clean and result.strategy is Strategy.STRUCTURED
    assert result.merged == BOTH


def test_clean_line_merge_is_byte_identical_to_git() -> None:
    base = b"def a():\n    return 1\n\n\ndef b():\n    return 2\n"
    left = base.replace(b"return 1", b"return 10")
    right = base.replace(b"return 2", b"return 20")
    result = merge_file(base, left, right, "m.py")
    assert result.strategy is Strategy.LINE and result.clean
    assert result.merged == git_merge_file(base, left, right)[0]


def test_binary_is_a_conflict_unless_trivial() -> None:
    base, left, right = b"\x00\x01", b"\x00\x02", b"\x00\x03"
    result = merge_file(base, left, right, "blob.bin")
    assert not result.clean and result.strategy is Strategy.BINARY and result.merged == left
    assert merge_file(base, left, base, "blob.bin").clean


def test_non_utf8_falls_back_to_line_merge() -> None:
    base = BASE + b"# \xff\n"
    result = merge_file(base, LEFT + b"# \xff\n", RIGHT + b"# \xff\n", "m.py")
    assert result.strategy is Strategy.LINE and not result.clean
    assert any("UTF-8" in note for note in result.notes)


def test_inputs_with_markers_fall_back() -> None:
    marked = b"<<<<<<< ours\n"
    result = merge_file(BASE + marked, LEFT + marked, RIGHT + marked, "m.py")
    assert result.strategy is Strategy.LINE
    assert any("markers" in note for note in result.notes)


def test_a_side_that_does_not_parse_falls_back() -> None:
    broken = RIGHT + b"def broken(:\n"
    result = merge_file(BASE, LEFT, broken, "m.py")
    assert result.strategy is Strategy.LINE and not result.clean
    assert any("parse" in note for note in result.notes)


def test_time_limit_falls_back() -> None:
    result = merge_file(BASE, LEFT, RIGHT, "m.py", timeout=0.0)
    assert result.strategy is Strategy.LINE
    assert any("time limit" in note for note in result.notes)


def test_unknown_language_is_line_merged() -> None:
    result = merge_file(BASE, LEFT, RIGHT, "notes.txt")
    assert result.strategy is Strategy.LINE and result.language is None


def test_crlf_and_bom_are_preserved() -> None:
    def crlf(data: bytes) -> bytes:
        return b"\xef\xbb\xbf" + data.replace(b"\n", b"\r\n")
    result = merge_file(crlf(BASE), crlf(LEFT), crlf(RIGHT), "m.py")
    assert result.clean and result.merged == crlf(BOTH)


def test_conflict_is_localized_with_declaration_path_labels_and_marker_size() -> None:
    base = b"class Store:\n    def get(self):\n        return 1\n\n    def put(self):\n        pass\n"
    left = base.replace(b"return 1", b"return 2") + b"\n    def extra(self):\n        pass\n"
    right = base.replace(b"return 1", b"return 3")
    result = merge_file(base, left, right, "store.py", marker_size=9, labels=("task", "pinned", "integration"))
    assert not result.clean
    (conflict,) = result.conflicts
    assert conflict.declaration == "class Store > def get"
    assert (conflict.ours, conflict.base, conflict.theirs) == ("        return 2\n", "        return 1\n", "        return 3\n")
    lines = result.merged.splitlines()
    assert lines[conflict.start_line - 1] == b"<" * 9 + b" task"
    assert lines[conflict.end_line - 1] == b">" * 9 + b" integration"
    assert b"def extra" in result.merged and b"||||||||| pinned" in result.merged
    assert result.conflict_mass <= line_merge(base, left, right).conflict_mass


def test_same_key_added_twice_with_different_values_conflicts_even_when_lines_merge() -> None:
    base = b'{\n  "a": 1,\n  "b": 2,\n  "c": 3\n}\n'
    left = b'{\n  "x": 1,\n  "a": 1,\n  "b": 2,\n  "c": 3\n}\n'
    right = b'{\n  "a": 1,\n  "b": 2,\n  "c": 3,\n  "x": 2\n}\n'
    assert line_merge(base, left, right).clean
    result = merge_file(base, left, right, "config.json")
    assert not result.clean
    assert result.conflicts[0].kind in ("insert_insert", "content")


def _commit(repo: pygit2.Repository, files: dict[str, bytes], parents: list[pygit2.Oid]) -> pygit2.Oid:
    index = pygit2.Index()
    for path, data in files.items():
        index.add(pygit2.IndexEntry(path, repo.create_blob(data), pygit2.enums.FileMode.BLOB))
    tree = index.write_tree(repo)
    sig = pygit2.Signature("t", "t@example.invalid")
    return repo.create_commit(None, sig, sig, "c", tree, parents)


def test_resolve_conflicted_files_from_a_real_tree_merge(tmp_path: Path) -> None:
    repo = pygit2.init_repository(str(tmp_path / "repo"), bare=True)
    base = _commit(repo, {"m.py": BASE, "gone.py": b"x = 1\n", "edited.py": b"y = 1\n"}, [])
    ours = _commit(repo, {"m.py": LEFT, "edited.py": b"y = 2\n"}, [base])
    theirs = _commit(repo, {"m.py": RIGHT, "edited.py": b"y = 1\n"}, [base])
    theirs2 = _commit(repo, {"m.py": RIGHT, "gone.py": b"x = 2\n", "edited.py": b"y = 1\n"}, [base])
    index = repo.merge_trees(repo[base].tree, repo[ours].tree, repo[theirs].tree)
    conflicts = {(e[1] or e[2] or e[0]).path: e for e in index.conflicts}  # type: ignore[union-attr]
    resolved = resolve_conflicted_files(repo, conflicts)
    assert resolved["m.py"].clean and resolved["m.py"].merge.merged == BOTH
    assert resolved["m.py"].mode == pygit2.enums.FileMode.BLOB
    index2 = repo.merge_trees(repo[base].tree, repo[ours].tree, repo[theirs2].tree)
    conflicts2 = {(e[1] or e[2] or e[0]).path: e for e in index2.conflicts}  # type: ignore[union-attr]
    resolved2 = resolve_conflicted_files(repo, conflicts2)
    assert not resolved2["gone.py"].clean
    assert resolved2["gone.py"].merge.conflicts[0].kind == "delete_modify"
    assert resolved2["gone.py"].merge.merged == b"x = 2\n"


def test_resolve_accepts_merge_tree_stage_oids(tmp_path: Path) -> None:
    repo = pygit2.init_repository(str(tmp_path / "repo"), bare=True)
    oids = [str(repo.create_blob(data)) for data in (BASE, LEFT, RIGHT)]
    resolved = resolve_conflicted_files(repo, {"m.py": (oids[0], oids[1], oids[2]), "x.py": (oids[0], None, oids[0])})
    assert resolved["m.py"].merge.merged == BOTH
    assert resolved["x.py"].clean and resolved["x.py"].mode is None


def test_strict_parser_rejects_what_tree_sitter_lets_through() -> None:
    from worktree_coord.merge.languages import validate

    inputs = (b"x = 1\n", b"x = 2\n", b"x = 3\n")
    assert validate.accepts("python", inputs, b"x = 1\n")
    assert not validate.accepts("python", inputs, b"def f(:\n")
    assert not validate.accepts("json", (b"{}", b"{}", b"{}"), b'{"a": 1, "a": 2}')
    assert not validate.accepts("toml", (b"", b"", b""), b"a = 1\na = 2\n")
    # An input the strict parser refuses gives it no say.
    assert validate.accepts("python", (b"match x:\n  case 1: pass\n", b"x(\n", b""), b"x(\n")


def test_structured_conflicts_say_which_step_left_them() -> None:
    """A structured result with conflicts records, per step, why it did not resolve (the history
    eval's `--why-unresolved` census reads these steps): here one function both sides edited on
    one line (its body's statements conflict as one region) and a delete/modify of another."""
    base = b"def a():\n    return 1\n\n\ndef b():\n    return 2\n\n\ndef c():\n    return 3\n"
    left = base.replace(b"return 1", b"return 10").replace(b"def b():\n    return 2\n\n\n", b"")
    right = base.replace(b"return 1", b"return 11").replace(b"return 2", b"return 22")
    result = merge_file(base, left, right, "m.py")
    assert not result.clean and result.strategy is Strategy.STRUCTURED
    assert result.steps == ("region: both sides' edits touch in an ordered container", "member: delete_modify")
    assert result.notes == ()   # a true overlap: nothing for the user to be told (notes are reasons)


def test_a_file_no_version_of_which_parses_says_so_not_that_a_side_broke_it() -> None:
    # lua's lstrlib.c: tree-sitter-c reads no version of a file whose macros take a type
    # (`cast(lu_byte *, x)`); both sides changed one `#define`. The note named "a side" as if an
    # edit broke it.
    base = b"#define N 200\n\nint f (void) {\n  return cast(lu_byte *, N);\n}\n"
    result = merge_file(base, base.replace(b"200", b"250"), base.replace(b"200", b"300"), "m.c")
    assert not result.clean
    assert result.notes[0].startswith("the base, the `ours` version and the `theirs` version do not parse as c "
                                      "(line 4:24 of the base): wtc's grammar does not read this file")
    fine = b"int g (void) {\n  return 1;\n}\n"
    broken = merge_file(fine, fine.replace(b"1;", b"2;"), fine.replace(b"1;", b"(3;"), "m.c")
    assert broken.notes[0].startswith("the `theirs` version does not parse as c (line 2:12) where the base did")


def test_c_api_macros_before_a_type_are_read_as_spaces_and_both_sides_appends_merge() -> None:
    # lua: every function starts with an API macro (`LUA_API int f (void)`), which tree-sitter-c
    # reads as a function named `int` with `f` in an ERROR node: no version parsed, so two tasks
    # adding a function at the end of lauxlib.c conflicted. The parse reads the macro as spaces.
    base = (b"#define N 200\n\nLUA_API int f (void) {\n  return N;\n}\n\n"
            b"LUALIB_API const char *(luaL_name) (lua_State *L, int arg);\n"
            b"static DWORD WINAPI worker (void *arg);\n")
    from worktree_coord.merge.languages.profiles import profile_for_path

    profile = profile_for_path("m.c", base, base, base)
    tree = profile.parse(base)
    assert not tree.root_node.has_error
    function = tree.root_node.children[1]
    assert function.type == "function_definition"
    name = function.child_by_field_name("declarator").child_by_field_name("declarator")
    assert base[name.start_byte:name.end_byte] == b"f"          # the source's offsets: the name is f
    assert base[function.start_byte:function.end_byte].startswith(b"int f (void) {")
    left = base + b"\nLUA_API int h (void) {\n  return 2;\n}\n"
    right = base + b"\nLUA_API int k (void) {\n  return 3;\n}\n"
    merged = merge_file(base, left, right, "m.c")
    assert merged.clean and merged.merged.count(b"LUA_API int h") == 1 and merged.merged.count(b"LUA_API int k") == 1
    # Plain C with two or three words before a name is not touched.
    plain = b"static const char *name (int x);\nunsigned long long count (void);\nstruct s *make (void);\n"
    assert profile._aliased(plain) == plain


def test_why_unresolved_names_the_declining_step() -> None:
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
    from eval_merge_quality import why_unresolved

    broken = RIGHT + b"def broken(:\n"
    assert why_unresolved(merge_file(BASE, LEFT, broken, "m.py")) == \
        "the `X` version does not parse as python where the base did, so wtc's structured merge could not read it: " \
        "that side's edit has a syntax error to fix as well"
    assert why_unresolved(merge_file(BASE, LEFT, RIGHT, "m.py", timeout=0.0)) == \
        "wtc's structured merge of this file passed its time limit"
    base = b"def a():\n    return 1\n\n\ndef b():\n    return 2\n"
    left = base.replace(b"def b():\n    return 2\n", b"")
    right = base.replace(b"return 2", b"return 22")
    # The structured merge's delete/modify conflict is no smaller than git's: git's conflict stands.
    assert why_unresolved(merge_file(base, left, right, "m.py")) == "not smaller than the line merge; member: delete_modify"


def test_a_committed_file_holding_one_import_twice_is_no_reference(monkeypatch) -> None:
    """The history eval scores a clean merge against the committed file; helm 1de11e668c committed a Go
    import block holding `testify/require` twice (it does not compile), so it is `broken`, not a
    disagreement, while the same file with the import once is compared as usual."""
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[2] / "scripts"))
    from eval_merge_quality import history_class

    base = b'package p\n\nimport (\n\t"os"\n\n\t"github.com/x/require"\n)\n'
    left = b'package p\n\nimport (\n\t"os"\n\n\t"github.com/x/require"\n\n\t"helm.sh/chart"\n)\n'
    right = b'package p\n\nimport (\n\t"os"\n\n\t"github.com/x/assert"\n\t"github.com/x/require"\n)\n'
    ours = b'package p\n\nimport (\n\t"os"\n\n\t"github.com/x/assert"\n\t"github.com/x/require"\n\n\t"helm.sh/chart"\n)\n'
    twice = (b'package p\n\nimport (\n\t"os"\n\n\t"github.com/x/require"\n\n\t"helm.sh/chart"\n\n'
             b'\t"github.com/x/assert"\n\t"github.com/x/require"\n)\n')
    assert history_class(ours, twice, base, left, right, "p/save_test.go") == "broken"
    once = twice.replace(b'\t"github.com/x/require"\n\n\t"helm.sh/chart"', b'\t"helm.sh/chart"')
    assert history_class(ours, once, base, left, right, "p/save_test.go") == "order"
