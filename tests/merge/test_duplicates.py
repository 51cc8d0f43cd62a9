"""The duplicate check (merge/checks/duplicates.py): a declaration a clean merge holds twice, and what repeats legally.

Every merged text here is git's own line merge of the three versions (real xdiff, through pygit2),
or a tree merge of real repositories, so each positive case is a merge git calls clean."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import make_repo
from tests.merge.clean_merges import clean_merge, findings, tree_merge_findings
from worktree_coord.merge import FileVersions, find_broken_names, merge_file
from worktree_coord.merge.result import SemanticFinding

WTC = str(Path(sys.executable).parent / "wtc")


def _twice(path: str, base: bytes, left: bytes, right: bytes) -> list[SemanticFinding]:
    return findings("duplicate", path, base, left, right)


# -- both sides added the same declaration, in different places -------------------------------------

PY_BASE = b"class Store:\n    def get(self, key):\n        return key\n\n    def put(self, key):\n        return key\n"
PY_NEW = b"    def drop(self, key):\n        return None\n\n"


def test_python_method_both_sides_added_in_different_places_is_reported_with_both_places() -> None:
    left = PY_BASE.replace(b"    def get", PY_NEW + b"    def get")
    right = PY_BASE + b"\n" + PY_NEW.rstrip(b"\n") + b"\n"
    [finding] = _twice("store.py", PY_BASE, left, right)
    assert (finding.name, finding.kind, finding.definition_line, finding.use_line) == ("Store.drop", "function", 2, 11)
    assert finding.definition_path == finding.use_path == "store.py"
    assert "store.py:2 and store.py:11 both declare Store.drop" in finding.message
    assert finding.as_conflict().kind == "semantic"


GO_BASE = b'package p\n\nimport (\n\t"fmt"\n\t"io"\n)\n\nfunc A() { fmt.Println() }\n\nfunc B() {}\n\nfunc D() {}\n'


def test_go_function_and_import_both_sides_added_are_reported() -> None:
    left = GO_BASE.replace(b'\t"fmt"\n', b'\t"fmt"\n\t"os"\n').replace(b"func B()", b"func C() {}\n\nfunc B()")
    right = GO_BASE.replace(b'\t"io"\n)\n', b'\t"io"\n)\n\nimport "os"\n') + b"\nfunc C() {}\n"
    found = _twice("p/p.go", GO_BASE, left, right)
    assert sorted((f.name, f.kind) for f in found) == [('"os"', "import"), ("C", "function")]


def test_go_methods_on_different_receivers_and_init_twice_are_not_reported() -> None:
    base = b"package p\n\ntype A struct{}\n\ntype B struct{}\n\nfunc init() {}\n"
    left = base.replace(b"type B", b"func (a A) String() string { return \"\" }\n\nfunc init() {}\n\ntype B")
    right = base + b"\nfunc (b *B) String() string { return \"\" }\n\nfunc init() {}\n"
    assert _twice("p/p.go", base, left, right) == []


RS_BASE = b"struct Foo;\n\nimpl Foo {\n    fn new() -> Foo { Foo }\n}\n\nfn main() {}\n"
DISPLAY = b"impl std::fmt::Display for Foo {\n    fn fmt(&self) {}\n}\n\n"


def test_rust_trait_impl_both_sides_added_is_reported_by_its_header() -> None:
    left = RS_BASE.replace(b"impl Foo", DISPLAY + b"impl Foo")
    right = RS_BASE + b"\n" + DISPLAY.rstrip(b"\n") + b"\n"
    found = _twice("src/lib.rs", RS_BASE, left, right)
    assert [f.name for f in found] == ["impl std::fmt::Display for Foo"]


def test_rust_impls_of_different_traits_and_cfg_twins_are_not_reported() -> None:
    debug = DISPLAY.replace(b"Display", b"Debug")
    left = RS_BASE.replace(b"impl Foo", DISPLAY + b"#[cfg(unix)]\nfn os() {}\n\nimpl Foo")
    right = RS_BASE + b"\n" + debug + b"#[cfg(windows)]\nfn os() {}\n"
    assert _twice("src/lib.rs", RS_BASE, left, right) == []


JAVA_BASE = b"class A {\n    void a() {}\n\n    void b() {}\n}\n"


def test_java_method_twice_is_reported_and_overloads_are_not() -> None:
    same = b"    void c(int x) {}\n\n"
    left = JAVA_BASE.replace(b"    void a()", same + b"    void a()")
    right = JAVA_BASE.replace(b"    void b() {}\n", b"    void b() {}\n\n" + same.rstrip(b"\n") + b"\n")
    [finding] = _twice("A.java", JAVA_BASE, left, right)
    assert finding.name == "A.c"
    overload = right.replace(b"void c(int x)", b"void c(String s)")
    assert _twice("A.java", JAVA_BASE, left, overload) == []


def test_typescript_import_twice_is_reported_and_accessors_are_not() -> None:
    base = b"import { a } from './a';\n\nexport class K {\n  m() {}\n}\n"
    left = base.replace(b"import { a }", b"import { b } from './b';\nimport { a }").replace(
        b"  m() {}", b"  get v() { return 1; }\n  m() {}")
    right = base.replace(b"  m() {}\n}", b"  m() {}\n  set v(x: number) {}\n}") + b"import { b } from './b';\n"
    found = _twice("k.ts", base, left, right)
    assert [(f.name, f.kind) for f in found] == [("b", "import")]


# -- one name bound by two imports: from one path or from two (round 7, tokio-rs/axum c43b3dd77b) ---

RS_TESTS = (b"pub fn f() {}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n    use crate::{a::A, routing::get};\n"
            b"    use http::StatusCode;\n\n    #[test]\n    fn one() {}\n\n    #[test]\n    fn two() {}\n}\n")


def test_rust_a_name_two_uses_bind_from_different_paths_in_a_cfg_test_module_is_reported() -> None:
    """Left adds `body::Body` to a nested use list, right adds `use hyper::Body`: E0252. The
    module's `#[cfg(test)]` does not hide what it holds from the count."""
    left = RS_TESTS.replace(b"    use crate::{a::A, routing::get};\n",
                            b"    use crate::{\n        a::A,\n        body::Body,\n        routing::get,\n    };\n")
    right = RS_TESTS.replace(b"    use http::StatusCode;\n", b"    use http::StatusCode;\n    use hyper::Body;\n")
    [finding] = _twice("src/lib.rs", RS_TESTS, left, right)
    assert (finding.name, finding.kind, finding.definition_line, finding.use_line) == ("Body", "import", 8, 12)
    assert merge_file(RS_TESTS, left, right, "src/lib.rs").conflicts[0].kind == "semantic"
    # The same two functions added in the test module, at different places, are reported too.
    test = b"    #[test]\n    fn three() {}\n\n"
    left = RS_TESTS.replace(b"    #[test]\n    fn one()", test + b"    #[test]\n    fn one()")
    right = RS_TESTS.replace(b"    fn two() {}\n}", b"    fn two() {}\n\n" + test.rstrip(b"\n") + b"\n}")
    assert [f.name for f in _twice("src/lib.rs", RS_TESTS, left, right)] == ["tests::three"]


def test_rust_underscore_imports_other_names_and_cfg_twin_modules_are_not_reported() -> None:
    base = b"mod m {\n    use a::X;\n}\n\nfn main() {}\n"
    left = base.replace(b"mod m {", b"use std::io::Write as _;\nuse crate::{b::Y, c::{Z as W}};\n\n"
                        b"#[cfg(unix)]\nmod imp {\n    use unix::Sys;\n}\n\nmod m {")
    right = base + b"\nuse std::fmt::Write as _;\nuse d::Y2;\n\n#[cfg(windows)]\nmod imp {\n    use windows::Sys;\n}\n"
    merged = clean_merge(base, left, right)
    assert merged.count(b" as _;") == 2 and merged.count(b"use unix::Sys") == merged.count(b"use windows::Sys") == 1
    assert _twice("src/main.rs", base, left, right) == []


def test_typescript_a_name_imported_from_two_modules_is_reported_and_python_rebinding_is_not() -> None:
    base = b"import { a } from './a';\n\nexport function f() {\n  return a;\n}\n"
    left = base.replace(b"import { a } from './a';\n", b"import { a } from './a';\nimport { Body } from './body';\n")
    right = base + b"\nimport { Body } from 'hyper';\n"
    assert [(f.name, f.kind) for f in _twice("k.ts", base, left, right)] == [("Body", "import")]
    aliased = right.replace(b"{ Body }", b"{ Body as HyperBody }")
    assert _twice("k.ts", base, left, aliased) == []
    py = b"import os\n\n\ndef f():\n    return os\n"
    assert _twice("k.py", py, py.replace(b"import os\n", b"import os\nfrom body import Body\n"),
                  py + b"\n\nfrom hyper import Body\n") == []


# -- a member moved on one side and edited (or deleted) on the other ---------------------------------

def test_a_function_moved_to_different_places_on_each_side_is_reported() -> None:
    """Both sides delete it where it was (the same change) and insert it elsewhere: git keeps both copies."""
    base = b"def a():\n    return 1\n\n\ndef b():\n    return 2\n\n\ndef c():\n    return 3\n\n\ndef d():\n    return 4\n"
    left = b"def d():\n    return 4\n\n\n" + base.split(b"\n\n\ndef d")[0] + b"\n"                   # d to the top
    right = base.replace(b"\n\n\ndef d():\n    return 4\n", b"\n").replace(
        b"def b():", b"def d():\n    return 4\n\n\ndef b():")                                       # d after a
    [finding] = _twice("m.py", base, left, right)
    assert (finding.name, finding.definition_line, finding.use_line) == ("d", 1, 9)


def test_a_function_moved_on_one_side_and_deleted_on_the_other_is_not_twice() -> None:
    base = b"def a():\n    return 1\n\n\ndef b():\n    return 2\n\n\ndef c():\n    return 3\n\n\ndef d():\n    return 4\n"
    left = b"def d():\n    return 4\n\n\n" + base.split(b"\n\n\ndef d")[0] + b"\n"
    right = base.split(b"\n\n\ndef d")[0] + b"\n"
    assert _twice("m.py", base, left, right) == []


# -- what legitimately repeats, or was there before ---------------------------------------------------

def test_python_overloads_setters_and_conditional_definitions_are_not_reported() -> None:
    base = (b"import typing\n\n\nclass C:\n    def a(self):\n        pass\n\n    def z(self):\n        pass\n\n\n"
            b"def top():\n    pass\n")
    left = base.replace(b"class C:\n", b"class C:\n    @property\n    def v(self):\n        return 1\n\n"
                        b"    @typing.overload\n    def f(self, x: int) -> int: ...\n\n") + \
        b"\n\nif X:\n    def g():\n        pass\nelse:\n    def g():\n        return 1\n"
    right = base.replace(b"    def z(self):\n        pass\n", b"    def z(self):\n        pass\n\n    @v.setter\n"
                         b"    def v(self, x):\n        pass\n\n    def f(self, x):\n        return x\n").replace(
        b"import typing\n", b"import typing\n\ntry:\n    def g():\n        pass\nexcept E:\n    pass\n")
    merged = clean_merge(base, left, right)
    assert merged.count(b"def v(") == merged.count(b"def f(") == 2 and merged.count(b"def g(") == 3
    assert _twice("c.py", base, left, right) == []


def test_a_pair_the_base_or_a_side_already_held_and_a_file_one_side_changed_are_not_reported() -> None:
    base = b"def a():\n    return 1\n\n\ndef a():\n    return 2\n\n\ndef b():\n    return 3\n"   # already twice
    left = base.replace(b"return 3", b"return 30")
    right = b"def c():\n    return 4\n\n\n" + base
    assert _twice("p.py", base, left, right) == []
    twice = b"def x():\n    pass\n\n\ndef x():\n    pass\n"
    assert find_broken_names([FileVersions("q.py", b"", twice, b"", twice)]) == ()   # one side's own version


def test_a_version_that_does_not_parse_is_never_guessed_at() -> None:
    left = PY_BASE.replace(b"    def get", PY_NEW + b"    def get")
    right = PY_BASE + b"\n" + PY_NEW.rstrip(b"\n") + b"\n"
    broken_base = PY_BASE.replace(b"class Store:", b"class Store(:")
    merged = clean_merge(PY_BASE, left, right)
    assert find_broken_names([FileVersions("s.py", broken_base, left, right, merged)]) == ()


GO_LEFT = GO_BASE.replace(b'\t"fmt"\n', b'\t"fmt"\n\t"os"\n').replace(b"func B()", b"func C() {}\n\nfunc B()")
GO_RIGHT = GO_BASE.replace(b'\t"io"\n)\n', b'\t"io"\n)\n\nimport "os"\n') + b"\nfunc C() {}\n"


def test_merge_file_reports_the_duplicates_of_its_line_merge_as_semantic_conflicts() -> None:
    result = merge_file(GO_BASE, GO_LEFT, GO_RIGHT, "p/p.go")
    assert not result.clean and result.merged == clean_merge(GO_BASE, GO_LEFT, GO_RIGHT), "git's merge, no markers"
    assert [(c.kind, c.finding.problem, c.finding.name) for c in result.conflicts if c.finding] == \
        [("semantic", "duplicate", '"os"'), ("semantic", "duplicate", "C")]


# -- tree level, real repositories; and the CLI ------------------------------------------------------

def test_tree_merge_reports_a_function_both_branches_added(tmp_path: Path) -> None:
    util = "def a():\n    return 1\n\n\ndef b():\n    return 2\n"
    repo = make_repo(tmp_path / "repo", {"pkg/__init__.py": "", "pkg/util.py": util, "pkg/other.py": "X = 1\n"})
    [finding] = tree_merge_findings(repo, {"pkg/util.py": ("def helper():\n    return 0\n\n\n" + util).encode()},
                                    {"pkg/util.py": (util + "\n\ndef helper():\n    return 0\n").encode(),
                                     "pkg/other.py": b"X = 2\n"})
    assert (finding.problem, finding.name, finding.definition_path, finding.definition_line, finding.use_line) == \
        ("duplicate", "helper", "pkg/util.py", 1, 13)
    assert (finding.removed_by, finding.used_by) == ("integration", "t1")


def test_cli_merge_file_names_both_places(tmp_path: Path) -> None:
    files = []
    for name, data in (("base.go", GO_BASE), ("left.go", GO_LEFT), ("right.go", GO_RIGHT)):
        (tmp_path / name).write_bytes(data)
        files.append(str(tmp_path / name))
    done = subprocess.run([WTC, "merge-file", *files, "--path", "p/p.go"], capture_output=True, check=False)
    assert done.returncode == 1
    assert b"semantic conflict: p/p.go:13 and p/p.go:19 both declare C (function)" in done.stderr
    payload = json.loads(subprocess.run([WTC, "merge-file", *files, "--path", "p/p.go", "--json"],
                                        capture_output=True, check=False).stdout)
    semantic = [c["semantic"] for c in payload["conflicts"] if c["kind"] == "semantic"]
    assert [(s["problem"], s["name"], s["definition_line"], s["use_line"]) for s in semantic] == \
        [("duplicate", '"os"', 5, 9), ("duplicate", "C", 13, 19)]


@pytest.mark.parametrize("bad", ["'['", "3"])
def test_a_bad_exempt_pattern_in_a_profile_is_a_clear_error(bad: str) -> None:
    from worktree_coord.errors import ConfigError
    from worktree_coord.merge.languages.profiles import load_profile_text
    text = (Path(__file__).resolve().parents[2] / "grammars" / "python.toml").read_text()
    text = text.replace("exempt = '^\\s*@(?:[\\w.]+\\.)?(?:overload|setter|getter|deleter|register)\\b'", f"exempt = {bad}")
    with pytest.raises(ConfigError, match="semantic.duplicates.exempt"):
        load_profile_text(text, "python.toml")


@pytest.mark.parametrize(("bad", "match"), [("3", "must be a tree-sitter query"), ('"(no_such_kind) @bound"', "not a valid query"),
                                            ('"(use_list (identifier) @name)"', "only @bound")])
def test_a_bad_bindings_query_in_a_profile_is_a_clear_error(bad: str, match: str) -> None:
    from worktree_coord.errors import ConfigError
    from worktree_coord.merge.languages.profiles import load_profile_text
    text = (Path(__file__).resolve().parents[2] / "grammars" / "rust.toml").read_text()
    start = text.index('bindings = """')
    text = text[:start] + f"bindings = {bad}" + text[text.index('"""', start + 14) + 3:]
    with pytest.raises(ConfigError, match=match):
        load_profile_text(text, "rust.toml")


def test_the_queue_report_line_names_both_places_and_both_tasks() -> None:
    """What `wtc merge` prints for a semantic conflict of the queue (output/render.py), for a duplicate."""
    from worktree_coord.output.render import _semantic_line
    finding = SemanticFinding(name="C", kind="function", definition_path="p/p.go", definition_line=13,
                              use_path="p/p.go", use_line=19, removed_by="integration", used_by="t2",
                              problem="duplicate")
    row = finding.to_json() | {"removed_by_task": "t1", "used_by_task": "t2"}
    line = _semantic_line(row)
    assert line.startswith("p/p.go:13 and p/p.go:19 both declare C (function)")
    assert line.endswith("(semantic); one copy from task t1, the other from task t2")
    assert SemanticFinding.from_json(finding.to_json()) == finding


# -- one new name both sides declared with two signatures (round 8, axios/axios 8dc8bf9f2f) -----------

DTS_BASE = (b"export interface Config<D = any> {\n  url?: string;\n  data?: D;\n}\n\n"
            b"export function isCancel(value: any): boolean;\n\n"
            b"export function toFormData(sourceObj: object): FormData;\n")


def test_typescript_one_new_function_declared_by_both_sides_with_two_signatures_is_reported() -> None:
    left = DTS_BASE.replace(b"export function toFormData",
                            b"export function mergeConfig<D = any>(config1: Config, config2?: Config<D>): Config<D>;\n\n"
                            b"export function toFormData")
    right = DTS_BASE + (b"\nexport function mergeConfig<D = any>(config1: Config<D>, config2: Config<D>): Config<D>;\n")
    [finding] = _twice("index.d.ts", DTS_BASE, left, right)
    assert (finding.name, finding.kind, finding.definition_line, finding.use_line) == ("mergeConfig", "function", 8, 12)
    assert "index.d.ts:8 and index.d.ts:12 both declare mergeConfig" in finding.message


def test_typescript_overloads_that_stand_are_not_reported() -> None:
    # Overloads added to a name the base declared; a side that only extends the other's overloads;
    # a new name whose two signatures take differently named parameters; one identical signature
    # both sides added (an overload may repeat).
    base = DTS_BASE
    left = base.replace(b"export function toFormData",
                        b"export function isCancel(value: unknown, strict: boolean): boolean;\n\n"
                        b"export function pick(key: string): string;\n\n"
                        b"export function only(name: string): string;\n\nexport function toFormData")
    right = base + (b"\nexport function isCancel(value: Error): value is Error;\n\n"
                    b"export function pick(key: string): string;\nexport function pick(key: string, fallback: string): string;\n\n"
                    b"export function only(index: number): string;\n")
    assert _twice("index.d.ts", base, left, right) == []


def test_java_one_new_method_declared_by_both_sides_with_one_parameter_name_is_reported() -> None:
    left = JAVA_BASE.replace(b"    void a()", b"    static A of(int size) { return new A(); }\n\n    void a()")
    right = JAVA_BASE.replace(b"    void b() {}\n", b"    void b() {}\n\n    static A of(long size) { return null; }\n")
    [finding] = _twice("A.java", JAVA_BASE, left, right)
    assert (finding.name, finding.definition_line, finding.use_line) == ("A.of", 2, 8)


def test_tree_merge_reports_one_new_function_both_branches_declared_with_two_signatures(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"index.d.ts": DTS_BASE.decode(), "lib/util.ts": "export const x = 1;\n"})
    [finding] = tree_merge_findings(
        repo, {"index.d.ts": DTS_BASE.replace(b"export function toFormData",
                                              b"export function mergeConfig(config1: Config, config2?: Config): Config;"
                                              b"\n\nexport function toFormData")},
        {"index.d.ts": DTS_BASE + b"\nexport function mergeConfig(config1: Config, config2: Config): Config;\n",
         "lib/util.ts": b"export const x = 2;\n"})
    assert (finding.problem, finding.name, finding.definition_path, finding.definition_line, finding.use_line) == \
        ("duplicate", "mergeConfig", "index.d.ts", 8, 12)
    assert (finding.removed_by, finding.used_by) == ("integration", "t1")


def test_an_unknown_node_kind_in_overloads_is_a_clear_error() -> None:
    from worktree_coord.errors import ConfigError
    from worktree_coord.merge.languages.profiles import load_profile_text
    text = (Path(__file__).resolve().parents[2] / "grammars" / "typescript.toml").read_text()
    text = text.replace('overloads = ["function_signature"]', 'overloads = ["function_signatur"]')
    with pytest.raises(ConfigError, match="function_signatur"):
        load_profile_text(text, "typescript.toml")


# -- one implementation per name, whatever its parameters (TypeScript); overloads by type (Java) ------

TS_BASE = b"export function a(): number {\n  return 1;\n}\n\nexport class K {\n  m(): void {}\n}\n"


def test_typescript_one_new_function_implemented_by_both_sides_with_other_parameters_is_reported() -> None:
    """Two bodies of one name are "Duplicate function implementation" whatever their parameters
    (the overloads are bodiless signatures): keyed by parameters, they were taken for overloads."""
    left = TS_BASE.replace(b"export class K", b"export function parse(text: string): number {\n"
                           b"  return Number(text);\n}\n\nexport class K")
    right = TS_BASE + b"\nexport function parse(input: string, radix = 10): number {\n  return parseInt(input, radix);\n}\n"
    [finding] = _twice("util.ts", TS_BASE, left, right)
    assert (finding.name, finding.definition_line, finding.use_line) == ("parse", 5, 13)
    methods = TS_BASE.replace(b"  m(): void {}\n", b"  size(): number { return 0; }\n\n  m(): void {}\n")
    other = TS_BASE.replace(b"  m(): void {}\n}\n", b"  m(): void {}\n\n  size(unit: string): number { return 1; }\n}\n")
    [method] = _twice("util.ts", TS_BASE, methods, other)
    assert method.name == "K.size"


def test_typescript_overload_signatures_with_one_implementation_accessors_and_statics_are_not_reported() -> None:
    left = TS_BASE.replace(b"export class K {\n", b"export function parse(text: string): number;\n"
                           b"export function parse(text: string, radix: number): number;\n"
                           b"export function parse(text: string, radix = 10): number {\n  return parseInt(text, radix);\n}\n\n"
                           b"export class K {\n  get v(): number { return 1; }\n")
    right = TS_BASE.replace(b"  m(): void {}\n}\n", b"  m(): void {}\n  set v(x: number) {}\n  static m(): void {}\n}\n")
    assert _twice("util.ts", TS_BASE, left, right) == []


def test_java_overloads_differing_only_in_parameter_names_are_reported_and_by_type_are_not() -> None:
    left = JAVA_BASE.replace(b"    void a()", b"    void c(final int x) {}\n\n    void a()")
    right = JAVA_BASE.replace(b"    void b() {}\n", b"    void b() {}\n\n    void c(final int count) {}\n")
    [finding] = _twice("A.java", JAVA_BASE, left, right)
    assert (finding.name, finding.definition_line, finding.use_line) == ("A.c", 2, 8)
    for other in (b"void c(final int[] count)", b"void c(final int count[])", b"void c(final long count)",
                  b"void c(final int count, int more)"):
        assert _twice("A.java", JAVA_BASE, left, right.replace(b"void c(final int count)", other)) == [], other


def test_parameter_name_without_a_signature_is_a_clear_error() -> None:
    from worktree_coord.errors import ConfigError
    from worktree_coord.merge.languages.profiles import load_profile_text
    text = (Path(__file__).resolve().parents[2] / "grammars" / "java.toml").read_text()
    text = text.replace('signature = "parameters"\n# Overloads', '# Overloads', 1)
    with pytest.raises(ConfigError, match="parameter_name"):
        load_profile_text(text, "java.toml")
