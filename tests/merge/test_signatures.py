"""The signature check (merge/checks/signatures.py): a function one side reshaped (its parameters), called
the old way by a line the other side added, in a merge git calls clean.

Every merged text here is git's own line merge of the three versions (real xdiff, through pygit2),
or a tree merge of real repositories, so each positive case is a merge git calls clean. Each
language the rule claims has a positive case; each exclusion (defaults, rest/variadic parameters,
keyword and spread arguments, decorators, overloads, unknown receivers) a negative one."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pygit2
import pytest

from tests.conftest import git, make_repo, write
from tests.merge.clean_merges import findings
from worktree_coord.coordinator import Coordinator
from worktree_coord.merge import FileVersions, check_tree_merge, find_broken_names, line_merge, merge_file
from worktree_coord.merge.result import PROBLEM_WORDS, SemanticFinding

WTC = str(Path(sys.executable).parent / "wtc")


def _reshaped(path: str, base: bytes, left: bytes, right: bytes) -> list[SemanticFinding]:
    return findings("signature", path, base, left, right)


def _case(base: str, old: str, new: str, old_call: str, new_call: str, added: str) -> tuple[bytes, bytes, bytes]:
    """(base, left, right): left changes the definition `old` -> `new` and its own call; right adds
    `added` (a new call, the old way) at the end of the file."""
    left = base.replace(old, new).replace(old_call, new_call)
    assert left != base and old_call in base
    return base.encode(), left.encode(), (base + added).encode()


PY = '''def parse(text, strict):
    return text


def run():
    return parse("a", True)


def tail():
    return None
'''
PY_OLD, PY_NEW = "def parse(text, strict):", "def parse(text, strict, encoding):"
PY_CALL, PY_CALL_NEW = 'parse("a", True)', 'parse("a", True, "utf-8")'


def test_python_a_new_call_with_the_old_arity_is_reported_with_both_shapes_and_both_sides() -> None:
    base, left, right = _case(PY, PY_OLD, PY_NEW, PY_CALL, PY_CALL_NEW, '\n\ndef other():\n    return parse("b", False)\n')
    [finding] = _reshaped("m.py", base, left, right)
    assert (finding.name, finding.kind, finding.definition_line, finding.use_path, finding.use_line) == \
        ("parse", "function", 1, "m.py", 14)
    assert (finding.definition, finding.replacement, finding.arguments) == \
        ("parse(text, strict)", "parse(text, strict, encoding)", 2)
    assert (finding.removed_by, finding.used_by) == ("ours", "theirs")
    assert finding.message == ("m.py:14 calls parse with 2 argument(s), as its base shape parse(text, strict) takes, "
                               "while ours changed it to parse(text, strict, encoding) (m.py:1 in the merge) and "
                               "theirs added this call")
    assert finding.as_conflict().kind == "semantic"
    assert SemanticFinding.from_json(finding.to_json()) == finding
    # The other way round (right reshapes, left calls): the sides are named the other way.
    [swapped] = _reshaped("m.py", base, right, left)
    assert (swapped.removed_by, swapped.used_by) == ("theirs", "ours")


def test_python_a_parameter_removed_and_a_method_called_through_self() -> None:
    base = ("class Store:\n    def get(self, key, default):\n        return key\n\n"
            "    def run(self):\n        return self.get(1, 2)\n\n    def tail(self):\n        pass\n")
    left = base.replace("def get(self, key, default):", "def get(self, key):").replace("self.get(1, 2)", "self.get(1)")
    right = base + "\n    def more(self):\n        return self.get(3, 4)\n"
    [finding] = _reshaped("s.py", base.encode(), left.encode(), right.encode())
    assert (finding.name, finding.kind, finding.arguments, finding.replacement) == \
        ("Store.get", "function", 2, "get(self, key)")


@pytest.mark.parametrize("new, added", [
    ("def parse(text, strict, encoding='utf-8'):", '\n\ndef other():\n    return parse("b", False)\n'),   # a default
    ("def parse(text, strict, *rest):", '\n\ndef other():\n    return parse("b", False)\n'),             # *args
    ("def parse(text, strict, **options):", '\n\ndef other():\n    return parse("b", False)\n'),         # **kwargs
    ("def parse(text, *, strict):", '\n\ndef other():\n    return parse("b", strict=False)\n'),          # keyword-only
    (PY_NEW, '\n\ndef other():\n    return parse("b", strict=False)\n'),                                 # keyword argument
    (PY_NEW, '\n\ndef other():\n    return parse(*("b", False))\n'),                                     # a spread call
    (PY_NEW, '\n\ndef other():\n    return parse("b", False, "ascii")\n'),                               # the new shape
    (PY_NEW, '\n\ndef other(parse):\n    return parse("b", False)\n'),                                   # a local shadows it
    (PY_NEW, '\n\ndef other(obj):\n    return obj.parse("b", False)\n'),                                 # unknown receiver
])
def test_python_what_cannot_be_counted_or_is_not_the_old_shape_is_not_reported(new: str, added: str) -> None:
    base, left, right = _case(PY, PY_OLD, new, PY_CALL, PY_CALL_NEW if "*," not in new else 'parse("a", strict=True)',
                              added)
    assert _reshaped("m.py", base, left, right) == []


@pytest.mark.parametrize("decorator", ["@functools.lru_cache(100000)", "@functools.cache", "@lru_cache"])
def test_python_a_function_under_a_cache_decorator_is_reported(decorator: str) -> None:
    # dask's `@functools.lru_cache(100000) def key_split(s)`: a cache keeps what the function takes,
    # so a task giving it one more parameter leaves every caller the old way.
    decorated = f"import functools\nfrom functools import lru_cache\n\n\n{decorator}\n" + PY
    base, left, right = _case(decorated, PY_OLD, PY_NEW, PY_CALL, PY_CALL_NEW,
                              '\n\ndef other():\n    return parse("b", False)\n')
    [finding] = _reshaped("m.py", base, left, right)
    assert (finding.name, finding.arguments) == ("parse", 2)


KEY_SPLIT = '''def key_split(s, sep="-"):
    return s.split(sep)[0]


def run():
    return key_split("a-b")


def tail():
    return None
'''


@pytest.mark.parametrize("new, call, reported", [
    ("def key_split(s, sep, limit):", 'key_split("x")', True),          # took 1 or 2, now 3
    ("def key_split(s, sep, limit):", 'key_split("x", "-")', True),
    ("def key_split(s, sep=\"-\", limit=0):", 'key_split("x")', False),  # still takes 1
    ("def key_split(s, sep):", 'key_split("x")', True),                 # the default dropped
    ("def key_split(s, sep):", 'key_split("x", "_")', False),
    ("def key_split(s, sep=\"-\", *, limit):", 'key_split("x")', False),  # keyword-only: unknown
])
def test_python_a_function_with_defaults_counts_from_its_required_to_all_its_parameters(new: str, call: str,
                                                                                       reported: bool) -> None:
    # dask's `key_split(s, sep="-")` given a third required parameter: every `key_split(k)` left.
    base, left, right = _case(KEY_SPLIT, 'def key_split(s, sep="-"):', new, 'key_split("a-b")', 'key_split("a-b", "-", 1)',
                              f"\n\ndef other():\n    return {call}\n")
    found = _reshaped("m.py", base, left, right)
    assert [f.name for f in found] == (["key_split"] if reported else [])


@pytest.mark.parametrize("decorator", ["@click.command()", "@functools.lru_cache(100000)\n@retry", "@functools.cache.x"])
def test_python_a_function_under_another_decorator_is_not_counted(decorator: str) -> None:
    decorated = f"import functools\nimport click\n\n\n{decorator}\n" + PY
    base, left, right = _case(decorated, PY_OLD, PY_NEW, PY_CALL, PY_CALL_NEW,
                              '\n\ndef other():\n    return parse("b", False)\n')
    assert _reshaped("m.py", base, left, right) == []


def test_python_a_decorated_function_and_both_sides_reshaping_are_not_reported() -> None:
    decorated = "import click\n\n\n@click.command()\n" + PY
    base, left, right = _case(decorated, PY_OLD, PY_NEW, PY_CALL, PY_CALL_NEW,
                              '\n\ndef other():\n    return parse("b", False)\n')
    assert _reshaped("m.py", base, left, right) == []
    # Right reshaped it too (its own way): the call is right's own business, not the merge's.
    base, left, _ = _case(PY, PY_OLD, PY_NEW, PY_CALL, PY_CALL_NEW, "")
    right = base.replace(b"def parse(text, strict):", b"def parse(text):").replace(PY_CALL.encode(), b'parse("a")') \
        + b'\n\ndef other():\n    return parse("b")\n'
    merged = line_merge(base, left, right)
    if merged.clean:
        found = find_broken_names([FileVersions("m.py", base, left, right, merged.merged)], complete=False)
        assert [f for f in found if f.problem == "signature"] == []


GO = '''package p

func Parse(text string, strict bool) string {
	return text
}

func Run() string {
	return Parse("a", true)
}

func Tail() {}
'''


def test_go_a_new_call_with_the_old_arity_is_reported_and_grouped_names_count_each() -> None:
    base, left, right = _case(GO, "func Parse(text string, strict bool) string",
                              "func Parse(text, enc string, strict bool) string",
                              'Parse("a", true)', 'Parse("a", "u", true)',
                              '\nfunc Other() string {\n\treturn Parse("b", false)\n}\n')
    [finding] = _reshaped("p/p.go", base, left, right)
    assert (finding.name, finding.arguments, finding.replacement) == \
        ("Parse", 2, "Parse(text, enc string, strict bool)")


def test_go_method_through_its_receiver_and_variadic_exclusions() -> None:
    base = ("package p\n\ntype S struct{}\n\nfunc (s *S) get(key string) string {\n\treturn key\n}\n\n"
            "func (s *S) run() string {\n\treturn s.get(\"a\")\n}\n\nfunc (s *S) tail() {}\n")
    left = base.replace("get(key string)", "get(key string, fallback string)").replace('s.get("a")', 's.get("a", "")')
    right = base + "\nfunc (s *S) more() string {\n\treturn s.get(\"b\")\n}\n"
    [finding] = _reshaped("p/s.go", base.encode(), left.encode(), right.encode())
    assert (finding.name, finding.kind, finding.arguments) == ("S.get", "method", 1)
    # A variadic new parameter takes the old call too: nothing to report; nor a call spreading `xs...`.
    variadic = left.replace("fallback string)", "fallback ...string)")
    assert _reshaped("p/s.go", base.encode(), variadic.encode(), right.encode()) == []
    spread = base + "\nfunc (s *S) more(xs []string) string {\n\treturn s.get(xs...)\n}\n"
    assert _reshaped("p/s.go", base.encode(), left.encode(), spread.encode()) == []


JAVA = '''class Store {
    String parse(String text, boolean strict) {
        return text;
    }

    String run() {
        return parse("a", true);
    }

    void tail() {}
}
'''


def test_java_a_new_call_with_the_old_arity_is_reported() -> None:
    base, left, right = _case(JAVA, "String parse(String text, boolean strict)",
                              "String parse(String text, boolean strict, String enc)",
                              'parse("a", true)', 'parse("a", true, "u")', "")
    right = JAVA.replace("    void tail() {}\n", "    void tail() {}\n\n    String more() {\n        return this.parse(\"b\", false);\n    }\n").encode()
    [finding] = _reshaped("Store.java", base, left, right)
    assert (finding.name, finding.kind, finding.arguments) == ("Store.parse", "method", 2)


def test_java_an_overload_kept_varargs_and_an_inherited_class_are_not_reported() -> None:
    right = JAVA.replace("    void tail() {}\n", "    void tail() {}\n\n    String more() {\n        return parse(\"b\", false);\n    }\n").encode()
    overload = JAVA.replace("    String run()", "    String parse(String text, boolean strict, String enc) {\n"
                            "        return text;\n    }\n\n    String run()")
    assert _reshaped("Store.java", JAVA.encode(), overload.encode(), right) == []
    varargs = JAVA.replace("boolean strict)", "boolean strict, String... enc)")
    assert _reshaped("Store.java", JAVA.encode(), varargs.encode(), right) == []
    extends = JAVA.replace("class Store {", "class Store extends Base {")
    changed = extends.replace("boolean strict)", "boolean strict, String enc)").replace('parse("a", true)', 'parse("a", true, "u")')
    added = extends.replace("    void tail() {}\n", "    void tail() {}\n\n    String more() {\n        return parse(\"b\", false);\n    }\n")
    assert _reshaped("Store.java", extends.encode(), changed.encode(), added.encode()) == []


RUST = '''fn parse(text: &str, strict: bool) -> String {
    text.to_string()
}

fn run() -> String {
    parse("a", true)
}

fn tail() {}
'''


def test_rust_a_function_and_a_method_through_self_are_reported() -> None:
    base, left, right = _case(RUST, "fn parse(text: &str, strict: bool)", "fn parse(text: &str)",
                              'parse("a", true)', 'parse("a")', '\nfn other() -> String {\n    parse("b", false)\n}\n')
    [finding] = _reshaped("src/lib.rs", base, left, right)
    assert (finding.name, finding.arguments, finding.replacement) == ("parse", 2, "parse(text: &str)")
    method = ("struct S;\n\nimpl S {\n    fn get(&self, key: u8) -> u8 {\n        key\n    }\n\n"
              "    fn run(&self) -> u8 {\n        self.get(1)\n    }\n\n    fn tail(&self) {}\n}\n")
    changed = method.replace("fn get(&self, key: u8)", "fn get(&self, key: u8, fallback: u8)").replace("self.get(1)", "self.get(1, 0)")
    added = method.replace("    fn tail(&self) {}\n", "    fn tail(&self) {}\n\n    fn more(&self) -> u8 {\n        self.get(2)\n    }\n")
    [finding] = _reshaped("src/s.rs", method.encode(), changed.encode(), added.encode())
    assert (finding.name, finding.kind, finding.arguments) == ("S::get", "method", 1)


def test_rust_a_macro_and_a_method_called_through_its_type_are_not_counted() -> None:
    base, left, right = _case(RUST, "fn parse(text: &str, strict: bool)", "fn parse(text: &str)",
                              'parse("a", true)', 'parse("a")',
                              '\nmacro_rules! parse { ($a:expr, $b:expr) => { $a } }\n\nfn other() -> u8 {\n    parse!(1, 2)\n}\n')
    assert _reshaped("src/lib.rs", base, left, right) == []
    method = ("struct S;\n\nimpl S {\n    fn get(&self, key: u8) -> u8 {\n        key\n    }\n\n    fn tail(&self) {}\n}\n")
    changed = method.replace("key: u8)", "key: u8, fallback: u8)")
    added = method + "\nfn more(s: &S) -> u8 {\n    S::get(s, 2)\n}\n"
    assert _reshaped("src/s.rs", method.encode(), changed.encode(), added.encode()) == []


# serde_json calls through its `tri!` macro (`tri!(to_value(value))`): the call is in the macro's
# unparsed tokens, where the old-way call went unseen when `to_value` took one more parameter.
RUST_TRI = '''macro_rules! tri {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(e) => return Err(e),
        }
    };
}

pub fn to_value(x: u8) -> Result<u8, ()> {
    Ok(x)
}

pub fn run(x: u8) -> Result<u8, ()> {
    let v = tri!(to_value(x));
    Ok(v)
}

fn tail() {}
'''


def test_rust_a_call_inside_a_macro_calls_tokens_is_counted() -> None:
    base, left, right = _case(RUST_TRI, "pub fn to_value(x: u8)", "pub fn to_value(x: u8, strict: bool)",
                              "tri!(to_value(x))", "tri!(to_value(x, true))",
                              "\nfn other(x: u8) -> Result<u8, ()> {\n    Ok(tri!(to_value(x,)) + 1)\n}\n")
    [finding] = _reshaped("src/lib.rs", base, left, right)
    assert (finding.name, finding.arguments, finding.use_line) == ("to_value", 1, 22)


@pytest.mark.parametrize("call", ["to_value(|a, b| a)", "to_value(Vec::<u8, A>::new())", "to_value($x, $y)",
                                  "to_value(x, true)", "to_value"])
def test_rust_a_macro_token_call_whose_count_is_unsure_or_new_is_not_reported(call: str) -> None:
    base, left, right = _case(RUST_TRI, "pub fn to_value(x: u8)", "pub fn to_value(x: u8, strict: bool)",
                              "tri!(to_value(x))", "tri!(to_value(x, true))",
                              f"\nfn other(x: u8) -> Result<u8, ()> {{\n    Ok(tri!({call}) + 1)\n}}\n")
    assert _reshaped("src/lib.rs", base, left, right) == []


def test_wtc_check_reports_an_old_way_call_inside_a_macro_the_branch_left_behind(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"Cargo.toml": '[package]\nname = "r"\nversion = "0.1.0"\nedition = "2021"\n',
                                      "src/lib.rs": "#[macro_use]\nmod macros;\npub mod value;\npub mod ser;\n",
                                      "src/macros.rs": RUST_TRI.split("\n\npub fn")[0] + "\n",
                                      "src/value.rs": "pub fn to_value(x: u8) -> Result<u8, ()> {\n    Ok(x)\n}\n",
                                      "src/ser.rs": "use crate::value::to_value;\n\npub fn run(x: u8) -> Result<u8, ()> {\n"
                                                    "    let v = tri!(to_value(x));\n    Ok(v)\n}\n"})
    git(repo, "checkout", "-q", "-b", "t")
    write(repo, {"src/value.rs": "pub fn to_value(x: u8, strict: bool) -> Result<u8, ()> {\n    Ok(x)\n}\n"})
    git(repo, "commit", "-qam", "to_value takes strict")
    done = subprocess.run([WTC, "check", "--base", "main", "--head", "t", "--target", "main", "--own", "src/value.rs",
                           "--json"], cwd=repo, capture_output=True, text=True)
    report = json.loads(done.stdout)
    assert report["exit_code"] == 1, done.stdout
    assert [(u["name"], u["use_path"]) for u in report["left_behind"]] == [("to_value", "src/ser.rs")]


TS = '''export function parse(text: string, strict: boolean): string {
  return text;
}

export function run(): string {
  return parse("a", true);
}

export function tail(): void {}
'''


@pytest.mark.parametrize("path", ["src/m.ts", "src/m.tsx"])
def test_typescript_a_new_call_with_the_old_arity_is_reported(path: str) -> None:
    base, left, right = _case(TS, "parse(text: string, strict: boolean)", "parse(text: string, strict: boolean, enc: string)",
                              'parse("a", true)', 'parse("a", true, "u")',
                              '\nexport function other(): string {\n  return parse("b", false);\n}\n')
    [finding] = _reshaped(path, base, left, right)
    assert (finding.name, finding.arguments, finding.replacement) == \
        ("parse", 2, "parse(text: string, strict: boolean, enc: string)")


@pytest.mark.parametrize("new, call", [
    ("parse(text: string, strict: boolean, enc?: string)", 'parse("b", false)'),        # optional
    ('parse(text: string, strict: boolean, enc = "u")', 'parse("b", false)'),           # a default value
    ("parse(text: string, strict: boolean, ...rest: string[])", 'parse("b", false)'),   # rest
    ("parse(text: string, strict: boolean, enc: string)", "parse(...pair)"),            # a spread call
])
def test_typescript_optional_default_rest_and_spread_are_not_reported(new: str, call: str) -> None:
    base, left, right = _case(TS, "parse(text: string, strict: boolean)", new, 'parse("a", true)', 'parse("a", true, "u")',
                              f'\nexport function other(): string {{\n  return {call};\n}}\n')
    assert _reshaped("src/m.ts", base, left, right) == []


def test_typescript_overloads_are_not_reported() -> None:
    overloaded = TS.replace("export function parse(text: string, strict: boolean): string {",
                            "export function parse(text: string): string;\n"
                            "export function parse(text: string, strict: boolean): string;\n"
                            "export function parse(text: string, strict?: boolean): string {")
    base, left, right = _case(overloaded, "export function parse(text: string, strict: boolean): string;",
                              "export function parse(text: string, strict: boolean, enc: string): string;",
                              'parse("a", true)', 'parse("a", true, "u")',
                              '\nexport function other(): string {\n  return parse("b", false);\n}\n')
    assert _reshaped("src/m.ts", base, left, right) == []


def test_javascript_is_not_claimed_a_call_with_fewer_arguments_runs() -> None:
    js = TS.replace(": string", "").replace(": boolean", "").replace(": void", "")
    base, left, right = _case(js, "parse(text, strict)", "parse(text, strict, enc)", 'parse("a", true)',
                              'parse("a", true, "u")', '\nexport function other() {\n  return parse("b", false);\n}\n')
    assert _reshaped("src/m.js", base, left, right) == []


def test_merge_file_reports_it_as_a_semantic_conflict_and_warn_keeps_it_clean() -> None:
    base, left, right = _case(PY, PY_OLD, PY_NEW, PY_CALL, PY_CALL_NEW, '\n\ndef other():\n    return parse("b", False)\n')
    blocked = merge_file(base, left, right, "m.py")
    assert not blocked.clean and not blocked.has_markers
    [finding] = blocked.semantic
    assert finding.problem == "signature"
    warned = merge_file(base, left, right, "m.py", semantic="warn")
    assert warned.clean and [f.problem for f in warned.semantic] == ["signature"]


# -- tree level, real repositories; the CLI; the queue -------------------------------------------------

UTIL = "def parse(text, strict):\n    return text.split()\n\n\ndef render(items):\n    return ', '.join(items)\n"
APP = "from pkg.util import render\n\n\ndef main(items):\n    return render(items)\n"


def test_tree_merge_reports_a_call_in_another_file(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"pkg/__init__.py": "", "pkg/util.py": UTIL, "pkg/app.py": APP})
    base = git(repo, "rev-parse", "HEAD")
    (repo / "pkg/util.py").write_text(UTIL.replace("def parse(text, strict):", "def parse(text, strict, sep):"))
    git(repo, "commit", "-qam", "ours: parse takes a separator")
    ours = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "-b", "theirs", base)
    (repo / "pkg/app.py").write_text(APP.replace("import render", "import parse, render")
                                     .replace("return render(items)", "return render(parse(items, True))"))
    git(repo, "commit", "-qam", "theirs: main parses")
    theirs = git(repo, "rev-parse", "HEAD")
    handle = pygit2.Repository(str(repo))
    index = handle.merge_commits(ours, theirs)
    assert not index.conflicts, "git merges it cleanly"
    [finding] = check_tree_merge(handle, base, ours, theirs, index.write_tree(handle), labels=("integration", "base", "t1"))
    assert (finding.problem, finding.name, finding.definition_path, finding.definition_line) == \
        ("signature", "parse", "pkg/util.py", 1)
    assert (finding.use_path, finding.use_line, finding.arguments) == ("pkg/app.py", 5, 2)
    assert (finding.removed_by, finding.used_by) == ("integration", "t1")


def test_tree_merge_go_call_from_another_file_of_the_package(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"go.mod": "module x\n", "p/a.go": GO, "p/b.go": "package p\n\nfunc B() {}\n"})
    base = git(repo, "rev-parse", "HEAD")
    (repo / "p/a.go").write_text(GO.replace("Parse(text string, strict bool)", "Parse(text string)")
                                 .replace('Parse("a", true)', 'Parse("a")'))
    git(repo, "commit", "-qam", "ours: Parse drops strict")
    ours = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "-b", "theirs", base)
    (repo / "p/b.go").write_text('package p\n\nfunc B() {}\n\nfunc C() string {\n\treturn Parse("c", false)\n}\n')
    git(repo, "commit", "-qam", "theirs: C parses")
    theirs = git(repo, "rev-parse", "HEAD")
    handle = pygit2.Repository(str(repo))
    index = handle.merge_commits(ours, theirs)
    [finding] = check_tree_merge(handle, base, ours, theirs, index.write_tree(handle))
    assert (finding.problem, finding.definition_path, finding.use_path, finding.use_line) == \
        ("signature", "p/a.go", "p/b.go", 6)


JAVA_UTIL = ("package p;\n\nfinal class Util {\n  static String quote(String value, String indent) {\n"
             "    return indent + value;\n  }\n}\n")
JAVA_USER = "package p;\n\nimport static p.Util.quote;\n\nfinal class Writer {\n  void tail() {}\n}\n"


@pytest.mark.parametrize("added, line", [
    ('  String a(String s) {\n    return Util.quote(s, "");\n  }\n', 7),
    ('  String a(String s) {\n    return quote(s, "");\n  }\n', 7),
], ids=["through-the-package-class", "through-a-static-import"])
def test_tree_merge_java_call_from_another_file_of_the_package(tmp_path: Path, added: str, line: int) -> None:
    """javapoet's shape over a merge: one task gives `Util.quote` a parameter, another adds a call of
    it the old way in another file of the package (no import of Util; or `import static`)."""
    repo = make_repo(tmp_path / "repo", {"src/main/java/p/Util.java": JAVA_UTIL, "src/main/java/p/Writer.java": JAVA_USER})
    base = git(repo, "rev-parse", "HEAD")
    (repo / "src/main/java/p/Util.java").write_text(JAVA_UTIL.replace("String indent)", "String indent, boolean ascii)"))
    git(repo, "commit", "-qam", "ours: quote takes ascii")
    ours = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "-b", "theirs", base)
    (repo / "src/main/java/p/Writer.java").write_text(JAVA_USER.replace("  void tail() {}\n", "  void tail() {}\n\n" + added))
    git(repo, "commit", "-qam", "theirs: a quotes")
    theirs = git(repo, "rev-parse", "HEAD")
    handle = pygit2.Repository(str(repo))
    index = handle.merge_commits(ours, theirs)
    [finding] = check_tree_merge(handle, base, ours, theirs, index.write_tree(handle))
    assert (finding.problem, finding.name, finding.use_path, finding.use_line, finding.arguments) == \
        ("signature", "Util.quote", "src/main/java/p/Writer.java", 9, 2)


def test_cli_merge_file_names_both_places_and_a_fix_for_the_kind(tmp_path: Path) -> None:
    base, left, right = _case(PY, PY_OLD, PY_NEW, PY_CALL, PY_CALL_NEW, '\n\ndef other():\n    return parse("b", False)\n')
    files = []
    for name, data in (("base.py", base), ("left.py", left), ("right.py", right)):
        (tmp_path / name).write_bytes(data)
        files.append(str(tmp_path / name))
    done = subprocess.run([WTC, "merge-file", *files, "--path", "m.py"], capture_output=True, check=False)
    assert done.returncode == 1
    assert (b"semantic conflict: m.py:14 calls parse with 2 argument(s), as its base shape parse(text, strict) "
            b"takes, while ours changed it to parse(text, strict, encoding) (m.py:1 in the merge)") in done.stderr
    assert f"wtc merge-file: fix: {PROBLEM_WORDS['signature'].fix}".encode() in done.stderr
    payload = json.loads(subprocess.run([WTC, "merge-file", *files, "--path", "m.py", "--json"],
                                        capture_output=True, check=False).stdout)
    [semantic] = [c["semantic"] for c in payload["conflicts"] if c["kind"] == "semantic"]
    assert (semantic["problem"], semantic["definition"], semantic["replacement"], semantic["arguments"]) == \
        ("signature", "parse(text, strict)", "parse(text, strict, encoding)", 2)


def test_the_queue_blocks_it_names_both_tasks_and_says_how_to_fix(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"pkg/__init__.py": "", "pkg/util.py": UTIL, "pkg/app.py": APP})
    with Coordinator(repo) as coordinator:
        coordinator.start_run("r1")
        changer = Path(coordinator.start_task("r1", "reshape", ["pkg/util.py"]).worktree)
        caller = Path(coordinator.start_task("r1", "call", ["pkg/app.py"]).worktree)
        write(changer, {"pkg/util.py": UTIL.replace("def parse(text, strict):", "def parse(text, strict, sep):")})
        write(caller, {"pkg/app.py": APP.replace("import render", "import parse, render")
                       .replace("return render(items)", "return render(parse(items, True))")})
        assert coordinator.finish_task("r1", "reshape").state == "merged"
        done = coordinator.finish_task("r1", "call")
        assert done.state == "conflict"
        [conflict] = done.conflicts
        finding = conflict["semantic"]
        assert (finding["problem"], finding["removed_by_task"], finding["used_by_task"]) == ("signature", "reshape", "call")
        [note] = [n for n in done.notes if "semantic conflict" in n]
        assert "calls it the old way" in note and "removed or renamed" not in note
        # `task update` brings the reshaped parse in and reports the call, with the fix for this kind.
        updated = coordinator.update_task("r1", "call")
        assert updated.exit_code == 1 and [f["problem"] for f in updated.semantic] == ["signature"]
        from worktree_coord.output.render import task_updated
        shown = task_updated(updated)
        assert "pkg/app.py:5 calls parse with 2 argument(s)" in shown and "reshaped by task reshape" in shown
        assert PROBLEM_WORDS["signature"].fix in shown
        write(Path(updated.worktree), {"pkg/app.py": APP.replace("import render", "import parse, render")
                                       .replace("return render(items)", "return render(parse(items, True, ' '))")})
        assert coordinator.finish_task("r1", "call").state == "merged"


def test_a_bad_signatures_table_in_a_profile_is_a_clear_error() -> None:
    from worktree_coord.errors import ConfigError
    from worktree_coord.merge.languages.profiles import load_profile_text
    text = (Path(__file__).resolve().parents[2] / "grammars" / "python.toml").read_text()
    with pytest.raises(ConfigError, match="semantic.signatures.counted"):
        load_profile_text(text.replace('counted = { identifier = "", typed_parameter = "" }',
                                       'counted = { no_such_node = "" }'), "python.toml")
    with pytest.raises(ConfigError, match="unknown setting"):
        load_profile_text(text.replace("receiver_first = true", "receiver_frist = true"), "python.toml")


def test_a_parameter_inserted_on_a_line_of_its_own_is_seen() -> None:
    base = ("def parse(\n    text,\n    strict,\n):\n    return text\n\n\ndef run():\n    return parse('a', True)\n\n\n"
            "def tail():\n    pass\n")
    left = base.replace("    strict,\n", "    strict,\n    encoding,\n").replace("parse('a', True)", "parse('a', True, 'u')")
    right = base + "\n\ndef other():\n    return parse('b', False)\n"
    [finding] = _reshaped("m.py", base.encode(), left.encode(), right.encode())
    assert (finding.name, finding.arguments, finding.replacement) == ("parse", 2, "parse(text, strict, encoding)")


def test_typescript_an_arrow_function_bound_to_a_const_is_counted() -> None:
    arrow = TS.replace("export function parse(text: string, strict: boolean): string {\n  return text;\n}",
                       "export const parse = (text: string, strict: boolean): string => {\n  return text;\n};")
    base, left, right = _case(arrow, "(text: string, strict: boolean)", "(text: string, strict: boolean, enc: string)",
                              'parse("a", true)', 'parse("a", true, "u")',
                              '\nexport function other(): string {\n  return parse("b", false);\n}\n')
    [finding] = _reshaped("src/m.ts", base, left, right)
    assert (finding.name, finding.arguments) == ("parse", 2)
    assert finding.replacement == "parse = (text: string, strict: boolean, enc: string)"
