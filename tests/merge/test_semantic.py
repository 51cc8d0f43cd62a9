"""The semantic check as a library: tree level on real repositories, and the cases it must leave alone."""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest

from tests.conftest import commit, git, make_repo
from worktree_coord.merge import FileVersions, check_file, check_tree_merge, find_broken_names
from worktree_coord.merge.tree import changed_on_both_sides, check_merge

UTIL = b"def parse(text):\n    return text.split()\n"
APP = b"from pkg.util import parse\n\n\ndef main(text):\n    return text\n"
APP_USES = APP.replace(b"return text", b"return parse(text)")


def test_a_deleted_module_is_a_removal_of_all_its_names(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"pkg/__init__.py": "", "pkg/util.py": UTIL.decode(), "pkg/app.py": APP.decode()})
    base = git(repo, "rev-parse", "HEAD")
    ours = commit(repo, {"pkg/util.py": None}, "ours: drop util")
    git(repo, "checkout", "-q", "-b", "theirs", base)
    theirs = commit(repo, {"pkg/app.py": APP_USES}, "theirs: parse")
    handle = pygit2.Repository(str(repo))
    merged = handle.merge_commits(ours, theirs).write_tree(handle)
    [finding] = check_tree_merge(handle, base, ours, theirs, merged)
    assert (finding.name, finding.definition_path, finding.use_path, finding.use_line) == \
        ("parse", "pkg/util.py", "pkg/app.py", 5)
    assert (finding.removed_by, finding.used_by) == ("ours", "theirs")


def test_no_finding_without_a_removal_or_without_a_new_use() -> None:
    base = UTIL + b"\n\ndef render(items):\n    return items\n"
    only_adds = base + b"\n\ndef extra():\n    return parse('a')\n"
    assert check_file(base, only_adds, base, only_adds, "m.py") == ()
    removed = b"def render(items):\n    return items\n"
    edits_elsewhere = base.replace(b"return items", b"return list(items)")
    merged = removed.replace(b"return items", b"return list(items)")
    assert check_file(base, removed, edits_elsewhere, merged, "m.py") == ()


def test_a_one_file_merge_is_parsed_only_when_a_touched_word_is_added_on_the_other_side() -> None:
    from worktree_coord.merge.checks.semantic import _Check

    base = UTIL + b"\n\ndef render(items):\n    return items\n"
    renamed = base.replace(b"def parse(text)", b"def tokens(text)")
    uses = base + b"\n\ndef extra():\n    return parse('a')\n"
    # The rename touched the line holding `parse`; the other side added a line using it.
    assert _Check._may_break_a_name(FileVersions("m.py", base, renamed, uses, None))
    merged = renamed + b"\n\ndef extra():\n    return parse('a')\n"
    [finding] = check_file(base, renamed, uses, merged, "m.py")
    assert finding.name == "parse"
    # Edits that share no word between what one side touched and what the other added: no parse at all.
    elsewhere = base.replace(b"return items", b"return list(items)")
    adds = base + b"\n\nLIMIT = 3\n"
    assert not _Check._may_break_a_name(FileVersions("m.py", base, elsewhere, adds, None))
    assert check_file(base, elsewhere, adds, elsewhere + b"\n\nLIMIT = 3\n", "m.py") == ()
    # A side that deleted the file, or a file new on both sides: the full check, or nothing to break.
    assert _Check._may_break_a_name(FileVersions("m.py", base, None, uses, None))
    assert not _Check._may_break_a_name(FileVersions("m.py", None, adds, uses, None))


def test_a_version_that_does_not_parse_gives_no_findings() -> None:
    base = UTIL + b"\n\ndef render(items):\n    return items\n"
    broken = b"def render(items:\n    return items\n"      # ours deletes parse but does not parse itself
    theirs = base.replace(b"return items", b"return parse(items)")
    merged = broken.replace(b"return items", b"return parse(items)")
    assert check_file(base, broken, theirs, merged, "m.py") == ()


def test_files_without_a_semantic_profile_are_ignored() -> None:
    files = [FileVersions("notes.txt", b"parse\n", b"", b"parse\nparse()\n", b"parse()\n"),
             FileVersions("data.json", b'{"a": 1}\n', b"{}\n", b'{"a": 2}\n', b'{"a": 2}\n')]
    assert find_broken_names(files) == ()


def test_ambiguous_module_resolution_is_not_guessed() -> None:
    # Two files could be `util`: the import `from util import parse` is not resolved to either.
    util = b"def parse(text):\n    return text\n"
    app = b"from util import render\n"
    uses = b"from util import parse, render\n\n\ndef main(text):\n    return parse(text)\n"
    files = [FileVersions("a/util.py", util, b"", util, b""),
             FileVersions("b/util.py", util, util, util, util),
             FileVersions("c/app.py", app, app, uses, uses)]
    assert find_broken_names(files) == ()


def test_check_merge_reads_the_merged_bytes_it_is_given_for_files_both_sides_changed(tmp_path: Path) -> None:
    """`check_merge` is `check_tree_merge` for a merge not written as a tree (the history eval's
    view): the same finding from the same merge, the given bytes read for the files both sides
    changed, and a missing one named rather than guessed. The side that uses `parse` changed fewer
    files and reaches util.py through an import that is an old line of app.py (the check's reach
    filter once read only the added lines, and missed it)."""
    app = APP + b"\n\ndef other():\n    return 1\n"
    repo = make_repo(tmp_path / "repo", {"pkg/__init__.py": "", "pkg/util.py": UTIL.decode(), "pkg/app.py": app.decode()})
    base = git(repo, "rev-parse", "HEAD")
    ours = commit(repo, {"pkg/util.py": b"def split(text):\n    return text.split()\n",
                          "pkg/app.py": app.replace(b"return 1", b"return 2")}, "ours: parse renamed, other edited")
    git(repo, "checkout", "-q", "-b", "theirs", base)
    theirs = commit(repo, {"pkg/app.py": app.replace(b"return text", b"return parse(text)")}, "theirs: parse used")
    handle = pygit2.Repository(str(repo))
    index = handle.merge_commits(ours, theirs)
    assert not index.conflicts
    merged_tree = index.write_tree(handle)
    merged_app = handle[handle[merged_tree]["pkg/app.py"].id].data
    assert list(changed_on_both_sides(handle, base, ours, theirs)) == ["pkg/app.py"]
    expected = check_tree_merge(handle, base, ours, theirs, merged_tree)
    assert [(f.name, f.definition_path, f.use_path) for f in expected] == [("parse", "pkg/util.py", "pkg/app.py")]
    assert check_merge(handle, base, ours, theirs, {"pkg/app.py": merged_app}) == expected
    # The given bytes are what is read: a merged app.py without the new use breaks nothing.
    assert check_merge(handle, base, ours, theirs, {"pkg/app.py": app.replace(b"return 1", b"return 2")}) == ()
    with pytest.raises(ValueError, match="pkg/app.py: changed on both sides"):
        check_merge(handle, base, ours, theirs, {})


def test_a_new_use_through_an_old_import_of_another_module_is_not_a_finding(tmp_path: Path) -> None:
    """The negative of the test above: the new `parse(...)` goes through an (old) import of
    pkg/other.py, so util's `parse` renamed away on the other side breaks nothing."""
    app = b"from pkg.other import parse\n\n\ndef main(text):\n    return text\n\n\ndef other():\n    return 1\n"
    repo = make_repo(tmp_path / "repo", {"pkg/__init__.py": "", "pkg/util.py": UTIL.decode(),
                                         "pkg/other.py": UTIL.decode(), "pkg/app.py": app.decode()})
    base = git(repo, "rev-parse", "HEAD")
    ours = commit(repo, {"pkg/util.py": b"def split(text):\n    return text.split()\n",
                          "pkg/app.py": app.replace(b"return 1", b"return 2")}, "ours: util's parse renamed")
    git(repo, "checkout", "-q", "-b", "theirs", base)
    theirs = commit(repo, {"pkg/app.py": app.replace(b"return text", b"return parse(text)")}, "theirs: parse used")
    handle = pygit2.Repository(str(repo))
    merged_tree = handle.merge_commits(ours, theirs).write_tree(handle)
    assert check_tree_merge(handle, base, ours, theirs, merged_tree) == ()


FLAG_GO = "package cli\n\ntype BoolFlag struct {\n\tName string\n}\n"
MAIN_GO = ('package main\n\nimport (\n\t"fmt"\n\n\t"github.com/x/cli"\n)\n\nfunc main() {\n\tfmt.Println("a")\n}\n'
           "\n\nfunc other() int {\n\treturn 1\n}\n")
MAIN_GO_USES = MAIN_GO.replace('fmt.Println("a")', 'fmt.Println(cli.BoolFlag{Name: "a"})')


def _vendor_merge(tmp_path: Path, moved: bool) -> tuple[pygit2.Repository, str, str, str, pygit2.Oid]:
    """Ours moves (or deletes) a vendored Go package `github.com/x/cli` out of cmd/vendor/ and
    edits main.go elsewhere; theirs adds a use of `cli.BoolFlag` to main.go."""
    repo = make_repo(tmp_path / "repo", {"cmd/vendor/github.com/x/cli/flag.go": FLAG_GO, "app/main.go": MAIN_GO})
    base = git(repo, "rev-parse", "HEAD")
    ours = commit(repo, {"cmd/vendor/github.com/x/cli/flag.go": None,
                          **({"vendor/github.com/x/cli/flag.go": FLAG_GO} if moved else {}),
                          "app/main.go": MAIN_GO.replace("return 1", "return 2")}, "ours: vendor moved")
    git(repo, "checkout", "-q", "-b", "theirs", base)
    theirs = commit(repo, {"app/main.go": MAIN_GO_USES}, "theirs: BoolFlag used")
    handle = pygit2.Repository(str(repo))
    return handle, base, ours, theirs, handle.merge_commits(ours, theirs).write_tree(handle)


def test_a_go_package_moved_to_a_directory_the_same_import_names_is_not_a_finding(tmp_path: Path) -> None:
    """etcd 9e0ab4807e: one side moved the vendored urfave/cli from cmd/vendor/ to vendor/, the
    other side's new line uses `cli.BoolFlag`; the import resolves to both directories, and the
    new one defines it: nothing broke."""
    assert check_tree_merge(*_vendor_merge(tmp_path, moved=True)) == ()


def test_a_go_package_deleted_while_the_other_side_uses_it_is_a_finding(tmp_path: Path) -> None:
    [finding] = check_tree_merge(*_vendor_merge(tmp_path, moved=False))
    assert (finding.name, finding.definition_path, finding.use_path) == \
        ("BoolFlag", "cmd/vendor/github.com/x/cli/flag.go", "app/main.go")


COMMAND_GO = ("package cobra\n\ntype Command struct {\n\tUse string\n}\n\n"
              "func (c *Command) CommandPath() string {\n\treturn c.Use\n}\n")


@pytest.mark.parametrize("module, found", [("example.com/m/cobra", True), ("github.com/spf13/cobra", False)],
                         ids=["the-repository's", "a-dependency's"])
def test_a_go_method_one_side_renames_while_the_other_calls_it_on_a_typed_local(tmp_path: Path, module, found) -> None:
    """Ours renames Command.CommandPath; theirs adds `c.CommandPath()` on a `c *cobra.Command`: the
    drain's merge is clean and does not build. A `cobra` package of another module (a dependency of
    the same last name) is not the repository's type: nothing is said."""
    repo = make_repo(tmp_path / "repo", {"go.mod": "module example.com/m\n\ngo 1.21\n", "cobra/command.go": COMMAND_GO})
    base = git(repo, "rev-parse", "HEAD")
    ours = commit(repo, {"cobra/command.go": COMMAND_GO.replace("CommandPath()", "Path()")}, "ours: renamed")
    git(repo, "checkout", "-q", "-b", "theirs", base)
    theirs = commit(repo, {"app/show.go": f'package app\n\nimport "{module}"\n\n'
                                          "func show(c *cobra.Command) string {\n\treturn c.CommandPath()\n}\n"}, "theirs")
    handle = pygit2.Repository(str(repo))
    findings = check_tree_merge(handle, base, ours, theirs, handle.merge_commits(ours, theirs).write_tree(handle))
    assert [(f.name, f.definition_path, f.use_path, f.use_line) for f in findings] == \
        ([("Command.CommandPath", "cobra/command.go", "app/show.go", 6)] if found else []), findings


SERVICE = b"def alpha(x):\n    return x\n\n\ndef beta(x):\n    return alpha(x) * 2\n"


@pytest.mark.parametrize(("renamed", "replacement"), [
    # One new function where beta stood: named as the likely new name.
    (SERVICE.replace(b"def beta(x):", b"def double(x):"), "double"),
    # Two new functions: which one replaced it is not known, so nothing is guessed.
    (SERVICE.replace(b"def beta(x):", b"def double(x):") + b"\n\ndef triple(x):\n    return 3 * x\n", ""),
    # Only a class added: another kind, not a rename of the function.
    (SERVICE.replace(b"def beta(x):\n    return alpha(x) * 2\n", b"class Beta:\n    pass\n"), ""),
])
def test_a_finding_names_the_likely_new_name_only_when_there_is_one(renamed: bytes, replacement: str) -> None:
    theirs = SERVICE + b"\n\ndef gamma(x):\n    return beta(x) + 1\n"
    merged = renamed + b"\n\ndef gamma(x):\n    return beta(x) + 1\n"
    [finding] = check_file(SERVICE, renamed, theirs, merged, "svc.py")
    assert finding.name == "beta" and finding.replacement == replacement
    assert (f"(to {replacement}, it seems" in finding.message) == bool(replacement)


ROUTER = ("pub(crate) fn path_for_nested_route(prefix: &str, path: &str) -> String {\n"
          "    format!(\"{prefix}{path}\")\n}\n")
ROUTING = "mod path_router;\n\npub fn route() -> u8 {\n    1\n}\n"


@pytest.mark.parametrize("call, found", [
    ("path_router::path_for_nested_route(a, b)", True),              # through `mod path_router;`
    ("crate::routing::path_router::path_for_nested_route(a, b)", True),   # a path from the crate root
    ("self::path_router::path_for_nested_route(a, b)", True),
    ("other::path_for_nested_route(a, b)", False),                   # a module the file does not bind
    ("std::path_router::path_for_nested_route(a, b)", False),        # a path no file of the merge is
])
def test_a_rust_function_renamed_while_the_other_side_calls_it_through_a_module_path(
        tmp_path: Path, call: str, found: bool) -> None:
    """tokio-rs/axum, driven as a user: one task renamed `path_router::path_for_nested_route`, another
    added `path_router::path_for_nested_route(prefix, path)` in routing/mod.rs, and the merge was
    called clean (a call through a module path, `mod m;` declared in the file, was never resolved)."""
    repo = make_repo(tmp_path / "repo", {"src/routing/path_router.rs": ROUTER, "src/routing/mod.rs": ROUTING,
                                         "src/lib.rs": "pub mod routing;\n"})
    base = git(repo, "rev-parse", "HEAD")
    ours = commit(repo, {"src/routing/path_router.rs": ROUTER.replace("path_for_nested_route", "nested_route_path")},
                   "ours: renamed")
    git(repo, "checkout", "-q", "-b", "theirs", base)
    joined = ROUTING + f"\npub(crate) fn joined(a: &str, b: &str) -> String {{\n    {call}\n}}\n"
    theirs = commit(repo, {"src/routing/mod.rs": joined}, "theirs: a new call")
    handle = pygit2.Repository(str(repo))
    merged = handle.merge_commits(ours, theirs).write_tree(handle)
    findings = check_tree_merge(handle, base, ours, theirs, merged)
    if not found:
        assert findings == ()
        return
    [finding] = findings
    assert (finding.name, finding.definition_path, finding.use_path, finding.use_line) == \
        ("path_for_nested_route", "src/routing/path_router.rs", "src/routing/mod.rs", 8)


def test_a_rust_name_in_a_macro_call_keeps_its_definition_but_one_in_an_attribute_or_macro_rules_does_not() -> None:
    """`hidden_names` (grammars/rust.toml): a macro call's tokens may define the name (pin_project!),
    an attribute's (`#[allow(frame)]`) or a `macro_rules!` body's never do by themselves."""
    base = b"pub fn frame() -> u8 {\n    1\n}\n\npub fn other() -> u8 {\n    2\n}\n"
    left = base + b"\npub fn send() -> u8 {\n    frame()\n}\n"
    into_macro = b"define! {\n    pub fn frame() -> u8 {\n        1\n    }\n}\n\npub fn other() -> u8 {\n    2\n}\n"
    assert check_file(base, left, into_macro, left.replace(base, into_macro), "lib.rs") == ()
    for keeps_the_word in (b"#[allow(frame)]\npub fn other() -> u8 {\n    2\n}\n",
                           b"macro_rules! framed {\n    () => { frame() };\n}\n\npub fn other() -> u8 {\n    2\n}\n"):
        [finding] = check_file(base, left, keeps_the_word, left.replace(base, keeps_the_word), "lib.rs")
        assert (finding.name, finding.removed_by) == ("frame", "theirs")


def test_a_commonjs_name_renamed_while_the_other_side_adds_a_destructured_require_of_it(tmp_path: Path) -> None:
    """npm/cli (CommonJS): one task renamed `logTar` in lib/utils/tar.js and its callers, another
    added `const { logTar } = require('../utils/tar.js')` and a call in lib/commands/diff.js."""
    tar = "const logTar = (t) => t\n\nmodule.exports = { logTar }\n"
    diff = "const base = require('../base.js')\n\nmodule.exports = base\n"
    repo = make_repo(tmp_path / "repo", {"lib/utils/tar.js": tar, "lib/commands/diff.js": diff})
    base = git(repo, "rev-parse", "HEAD")
    ours = commit(repo, {"lib/utils/tar.js": tar.replace("logTar", "printTar")}, "ours: rename")
    git(repo, "checkout", "-q", "-b", "theirs", base)
    theirs = commit(repo, {"lib/commands/diff.js": "const { logTar } = require('../utils/tar.js')\n"
                           "const base = require('../base.js')\n\nconst show = (t) => logTar(t)\n\n"
                           "module.exports = { base, show }\n"}, "theirs: a new use")
    handle = pygit2.Repository(str(repo))
    merged = handle.merge_commits(ours, theirs).write_tree(handle)
    findings = check_tree_merge(handle, base, ours, theirs, merged)
    assert {(f.name, f.definition_path, f.use_path, f.use_line) for f in findings} >= \
        {("logTar", "lib/utils/tar.js", "lib/commands/diff.js", 4)}
    assert all(f.removed_by == "ours" for f in findings)


JAVA_BASE = b"""package a;

import a.debug.Printer;
import static a.Asserts.check;

public class Details implements Inspect {
    public String print() {
        check(this);
        return new Printer().print(this);
    }

    public int size() {
        return 1;
    }
}
"""


def test_a_java_import_one_side_removed_and_the_other_sides_new_type_use_needs_is_a_finding() -> None:
    """mockito: one task dropped `import ...InvocationsPrinter;` with its one use, another added
    `new InvocationsPrinter()` to DefaultMockingDetails, which implements MockingDetails; the merge
    was clean line by line and the check let it through (a name used in a class with bases may be
    inherited), so the merged file did not compile. A type is not inherited that way; a method may be."""
    ours = JAVA_BASE.replace(b"import a.debug.Printer;\n", b"").replace(b"return new Printer().print(this);", b"return \"\";")
    theirs = JAVA_BASE.replace(b"    public int size() {",
                               b"    public String printOf(Object o) {\n        return new Printer().print(o);\n    }\n\n"
                               b"    public int size() {")
    merged = ours.replace(b"    public int size() {",
                          b"    public String printOf(Object o) {\n        return new Printer().print(o);\n    }\n\n"
                          b"    public int size() {")
    [finding] = check_file(JAVA_BASE, ours, theirs, merged, "a/Details.java")
    assert (finding.name, finding.use_line, finding.removed_by) == ("Printer", 12, "ours")
    # A method whose static import one side removed may come from the class's bases: left alone.
    ours = JAVA_BASE.replace(b"import static a.Asserts.check;\n", b"").replace(b"        check(this);\n", b"")
    theirs = JAVA_BASE.replace(b"        return 1;", b"        check(this);\n        return 1;")
    merged = ours.replace(b"        return 1;", b"        check(this);\n        return 1;")
    assert check_file(JAVA_BASE, ours, theirs, merged, "a/Details.java") == ()


FUNDING = ("function isValidFunding(entry) {\n  return Boolean(entry);\n}\n\nfunction other() {\n  return 1;\n}\n\n"
           "export { isValidFunding, other };\n")
REPORT = 'import { isValidFunding } from "./funding.js";\n\nexport function list(items) {\n  return items;\n}\n'


def _js_merge(tmp_path: Path, ours: dict[str, str], theirs: dict[str, str], files: dict[str, str] | None = None):
    repo = make_repo(tmp_path / "repo", files or {"lib/funding.js": FUNDING, "lib/report.js": REPORT})
    base = git(repo, "rev-parse", "HEAD")
    left = commit(repo, ours, "ours")
    git(repo, "checkout", "-q", "-b", "theirs", base)
    right = commit(repo, theirs, "theirs")
    handle = pygit2.Repository(str(repo))
    merged = handle.merge_commits(left, right).write_tree(handle)
    return check_tree_merge(handle, base, left, right, merged)


def test_a_name_one_side_stops_exporting_that_the_other_side_passes_as_a_value_is_found(tmp_path: Path) -> None:
    """npm/cli drive: `.filter(isValidFunding)` is a use though nothing calls it there; the other side
    dropped it from `export { ... }` while its function stayed in the file."""
    found = _js_merge(tmp_path, {"lib/funding.js": FUNDING.replace("isValidFunding, other", "other")},
                      {"lib/report.js": REPORT.replace("return items;", "return items.filter(isValidFunding);")})
    assert [(f.name, f.definition_path, f.use_path, f.use_line) for f in found] == \
        [("isValidFunding", "lib/funding.js", "lib/report.js", 4)]
    assert "(export at lib/funding.js:9 in the base), which ours no longer exports while theirs added this use" \
        in found[0].message, found[0].message


def test_a_value_use_of_a_local_of_the_same_name_is_not_a_use_of_the_unexported_one(tmp_path: Path) -> None:
    local = REPORT.replace("return items;", "const isValidFunding = (x) => x;\n  return items.filter(isValidFunding);")
    found = _js_merge(tmp_path, {"lib/funding.js": FUNDING.replace("isValidFunding, other", "other")},
                      {"lib/report.js": local})
    assert found == ()


def test_a_use_of_a_name_still_exported_by_the_file_is_not_found(tmp_path: Path) -> None:
    still = FUNDING.replace("isValidFunding, other", "other") + "export { isValidFunding as isValidFunding };\n"
    found = _js_merge(tmp_path, {"lib/funding.js": still},
                      {"lib/report.js": REPORT.replace("return items;", "return items.filter(isValidFunding);")})
    assert found == ()


def test_a_same_file_use_of_a_name_the_file_stops_exporting_is_not_found(tmp_path: Path) -> None:
    found = _js_merge(tmp_path, {"lib/funding.js": FUNDING.replace("isValidFunding, other", "other")},
                      {"lib/funding.js": "export const ok = () => [1].filter(isValidFunding);\n\n" + FUNDING})
    assert found == ()


def test_a_default_export_one_side_makes_a_named_one_is_found_where_the_other_side_uses_the_default(tmp_path: Path) -> None:
    handler = "function handler(req) {\n  return req;\n}\n\nexport default handler;\n"
    app = 'import handler from "./handler.js";\n\nexport function routes() {\n  return [];\n}\n'
    found = _js_merge(tmp_path, {"src/handler.js": handler.replace("export default handler", "export { handler }")},
                      {"src/app.js": app.replace("return [];", "return [handler];")},
                      {"src/handler.js": handler, "src/app.js": app})
    assert [(f.name, f.definition_path, f.use_path, f.use_line) for f in found] == \
        [("handler", "src/handler.js", "src/app.js", 4)]
    kept = handler.replace("function handler", "function handle").replace("default handler", "default handle")
    assert _js_merge(tmp_path / "kept", {"src/handler.js": kept}, {"src/app.js": app.replace("return [];", "return [handler];")},
                     {"src/handler.js": handler, "src/app.js": app}) == ()


def test_a_go_import_of_the_folder_itself_may_bind_the_name_the_other_side_uses() -> None:
    # urfave/cli 75ffa2d83f: one side re-points `github.com/codegangsta/cli` to `"."` (the test's
    # own folder, whose package clause is `cli`), the other side adds a test calling `cli.NewContext`.
    # A relative path names a folder, not a package: the name it binds is that folder's package
    # clause, which the path does not say. git's merge compiled and was committed as it was.
    base = (b'package cli_test\n\nimport (\n\t"flag"\n\t"github.com/codegangsta/cli"\n\t"testing"\n)\n\n'
            b'func TestA(t *testing.T) {\n\tset := flag.NewFlagSet("test", 0)\n\t_ = cli.NewContext(nil, set, set)\n}\n')
    ours = base.replace(b'\t"github.com/codegangsta/cli"\n', b'\t"."\n')
    test_b = b'\nfunc TestB(t *testing.T) {\n\tset := flag.NewFlagSet("test", 0)\n\t_ = cli.NewContext(nil, set, nil)\n}\n'
    assert check_file(base, ours, base + test_b, ours + test_b, "context_test.go") == ()
    # A path that does say the name still answers for it: re-pointed elsewhere, the use is broken.
    elsewhere = base.replace(b'\t"github.com/codegangsta/cli"\n', b'\t"github.com/x/other"\n')
    [finding] = check_file(base, elsewhere, base + test_b, elsewhere + test_b, "context_test.go")
    assert finding.name == "cli" and finding.use_line == 16
