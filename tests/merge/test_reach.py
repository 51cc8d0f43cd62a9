"""The post-merge checks read only what the two sides' changes can break (merge/checks/reach.py), and still
find what a finding needs: tree merges on real repositories, with noise both sides changed alike."""

from __future__ import annotations

from pathlib import Path

import pygit2

from tests.conftest import commit, git, make_repo
from worktree_coord.merge import FileVersions, check_tree_merge, find_broken_names
from worktree_coord.merge.checks.semantic import _Check

UTIL = "def parse(text):\n    return text.split()\n\n\ndef render(items):\n    return ' '.join(items)\n"
APP = "from pkg.util import parse\n\n\ndef main(text):\n    return text\n"
TOOL = "def parse(text):\n    return [text]\n\n\ndef run(text):\n    return text\n"
NOISE = {f"vend/m{i:02}.py": f"def helper{i}(x):\n    return x + {i}\n\n\ndef parse(x):\n    return x\n"
         for i in range(30)}


def _tree_merge(tmp_path: Path, base: dict[str, str], ours: dict[str, str | None],
                theirs: dict[str, str | None]) -> tuple[pygit2.Repository, str, str, str, pygit2.Oid]:
    repo = make_repo(tmp_path / "repo", base)
    base_id = git(repo, "rev-parse", "HEAD")
    ids = []
    for branch, changes in (("ours", ours), ("theirs", theirs)):
        git(repo, "checkout", "-q", "-b", branch, base_id)
        ids.append(commit(repo, changes, branch))
    handle = pygit2.Repository(str(repo))
    index = handle.merge_commits(ids[0], ids[1], flags=pygit2.enums.MergeFlag(0))
    assert not index.conflicts
    return handle, base_id, ids[0], ids[1], index.write_tree(handle)


def _bumped(files: dict[str, str]) -> dict[str, str | None]:
    """The same vendored update on either side: every noise module changed alike."""
    return {path: text.replace("return x\n", "return x  # v2\n") for path, text in files.items()}


def test_a_removed_name_is_found_across_directories_among_files_both_sides_changed_alike(tmp_path: Path) -> None:
    """Ours renames `pkg.util.parse` and bumps 30 vendored modules (each defining its own `parse`);
    theirs makes the same bump, calls `parse` in pkg/app.py (imported from pkg.util) and in
    other/tool.py (its own `parse`). One finding: the use that reaches the removed definition; the
    definition file and the use file are each changed by one side only."""
    base = {"pkg/__init__.py": "", "pkg/util.py": UTIL, "pkg/app.py": APP, "other/tool.py": TOOL, **NOISE}
    ours = {"pkg/util.py": UTIL.replace("def parse(", "def parse_text("), **_bumped(NOISE)}
    theirs = {"pkg/app.py": APP.replace("return text", "return parse(text)"),
              "other/tool.py": TOOL.replace("return text\n", "return parse(text)\n"), **_bumped(NOISE)}
    found = check_tree_merge(*_tree_merge(tmp_path, base, ours, theirs))
    assert [(f.problem, f.name, f.definition_path, f.use_path, f.use_line, f.replacement) for f in found] == \
        [("broken", "parse", "pkg/util.py", "pkg/app.py", 5, "parse_text")]


def test_a_name_both_sides_removed_alike_is_not_broken_and_its_file_is_not_read() -> None:
    """Both sides drop `helper3` from a vendored module the same way; theirs also adds a call to it.
    Theirs removed it too, so nothing broke, and the check reads none of the vendored files (no
    live word: a definition the other side does not keep cannot break)."""
    files = []
    for path, text in NOISE.items():
        changed = text.replace("def helper3(x):\n    return x + 3\n\n\n", "")
        files.append(FileVersions(path, text.encode(), changed.encode(), changed.encode(), changed.encode()))
    app = b"from vend.m03 import helper3\n\n\ndef main(x):\n    return x\n"
    used = app.replace(b"return x", b"return helper3(x)")
    files.append(FileVersions("app.py", app, app, used, used))
    check = _Check(files, ("ours", "base", "theirs"), {})
    assert all(check.live(side, path) == frozenset() for side in ("left", "right") for path in NOISE)
    assert find_broken_names(files) == ()
    assert not any(key[0] in NOISE for key in check._symbols)   # nothing vendored was parsed


def test_a_use_in_a_file_that_cannot_reach_the_definition_does_not_make_it_live() -> None:
    """Ours drops `parse` from pkg/util.py; theirs calls a `parse` in other/tool.py, which imports
    nothing from pkg.util: the removal has no reaching use, so pkg/util.py is not parsed at all."""
    tool_uses = TOOL.replace("return text\n", "return parse(text)\n").encode()
    util_gone = UTIL.replace("def parse(text):\n    return text.split()\n\n\n", "").encode()
    files = [FileVersions("pkg/util.py", UTIL.encode(), util_gone, UTIL.encode(), util_gone),
             FileVersions("other/tool.py", TOOL.encode(), TOOL.encode(), tool_uses, tool_uses)]
    check = _Check(files, ("ours", "base", "theirs"), {})
    assert check.live("left", "pkg/util.py") == frozenset()
    assert find_broken_names(files) == ()
    # The same new call, in a file that imports it from pkg.util, makes it live and a finding.
    app_uses = APP.replace("return text", "return parse(text)").encode()
    files.append(FileVersions("pkg/app.py", APP.encode(), APP.encode(), app_uses, app_uses))
    check = _Check(files, ("ours", "base", "theirs"), {})
    assert b"parse" in check.live("left", "pkg/util.py")
    [finding] = find_broken_names(files)
    assert (finding.definition_path, finding.use_path) == ("pkg/util.py", "pkg/app.py")


def test_a_package_relative_import_without_a_module_name_reaches_the_package(tmp_path: Path) -> None:
    """`from . import helper` in pkg/sub/mod.py names no module word of pkg/sub/__init__.py: the
    package is reached through its directory (the using file's own or one above it)."""
    init = b"def helper():\n    return 1\n\n\ndef other():\n    return 2\n"
    mod = b"from . import helper\n\n\ndef run():\n    return 0\n"
    files = [FileVersions("pkg/sub/__init__.py", init, init.replace(b"def helper():", b"def helper2():"), init,
                          init.replace(b"def helper():", b"def helper2():")),
             FileVersions("pkg/sub/mod.py", mod, mod, mod.replace(b"return 0", b"return helper()"),
                          mod.replace(b"return 0", b"return helper()"))]
    check = _Check(files, ("ours", "base", "theirs"), {})
    assert b"helper" in check.live("left", "pkg/sub/__init__.py")


def test_go_a_name_removed_from_one_file_of_a_package_used_from_another(tmp_path: Path) -> None:
    a = "package pkg\n\nfunc helper() int {\n\treturn 1\n}\n\nfunc Other() int {\n\treturn 2\n}\n"
    b = "package pkg\n\nfunc Run() int {\n\treturn 0\n}\n"
    base = {"go.mod": "module example.com/m\n", "pkg/a.go": a, "pkg/b.go": b,
            **{f"vendor/x/m{i:02}/m.go": f"package m{i:02}\n\nfunc Parse() int {{\n\treturn {i}\n}}\n" for i in range(10)}}
    bump = {path: text.replace("return", "return 1 +") for path, text in base.items() if path.startswith("vendor/")}
    ours = {"pkg/a.go": a.replace("func helper() int {\n\treturn 1\n}\n\n", ""), **bump}
    theirs = {"pkg/b.go": b.replace("return 0", "return helper()"), **bump}
    [finding] = check_tree_merge(*_tree_merge(tmp_path, base, ours, theirs))
    assert (finding.name, finding.definition_path, finding.use_path, finding.use_line) == \
        ("helper", "pkg/a.go", "pkg/b.go", 4)


def test_a_non_ascii_name_is_one_word(tmp_path: Path) -> None:
    util = "def café(x):\n    return x\n\n\ndef thé(x):\n    return x\n"
    app = "from pkg.util import café\n\n\ndef main(x):\n    return x\n"
    base = {"pkg/__init__.py": "", "pkg/util.py": util, "pkg/app.py": app, **NOISE}
    ours = {"pkg/util.py": util.replace("def café(", "def caffè("), **_bumped(NOISE)}
    theirs = {"pkg/app.py": app.replace("return x", "return café(x)")}
    [finding] = check_tree_merge(*_tree_merge(tmp_path, base, ours, theirs))
    assert (finding.name, finding.definition_path, finding.use_path) == ("café", "pkg/util.py", "pkg/app.py")


def test_rust_a_call_through_a_crate_path_in_a_file_that_imports_nothing(tmp_path: Path) -> None:
    """`crate::routing::path_router::nested(..)` in a file with no `use` or `mod`: the path itself
    names the module, so that file reaches the definition (and is read for it)."""
    router = "pub(crate) fn nested(prefix: &str) -> String {\n    prefix.to_string()\n}\n"
    other = "pub fn run() -> u8 {\n    1\n}\n"
    base = {"src/lib.rs": "pub mod routing;\npub mod other;\n", "src/routing/mod.rs": "mod path_router;\n",
            "src/routing/path_router.rs": router, "src/other.rs": other}
    ours = {"src/routing/path_router.rs": router.replace("fn nested(", "fn nested_path(")}
    theirs = {"src/other.rs": other + "\npub fn joined(a: &str) -> String {\n"
                                      "    crate::routing::path_router::nested(a)\n}\n"}
    [finding] = check_tree_merge(*_tree_merge(tmp_path, base, ours, theirs))
    assert (finding.name, finding.definition_path, finding.use_path, finding.use_line) == \
        ("nested", "src/routing/path_router.rs", "src/other.rs", 6)


def test_an_absolute_path_ends_the_walk_up_its_directories() -> None:
    """`wtc merge-file /tmp/x/base.py ...` checks a file named by an absolute path: the walk up its
    directories stops at `/` (it looped there)."""
    base = b"def a():\n    return 1\n"
    left, right = base + b"\n\ndef b():\n    return a()\n", base.replace(b"def a():", b"def a(x):")
    found = find_broken_names([FileVersions("/tmp/x/base.py", base, left, right, left + b"")], complete=False)
    assert found == ()


def test_the_words_a_file_added_are_asked_for_its_re_exports_only_when_it_imports_something() -> None:
    """reexports.reached takes the names as a function: a file importing nothing reaches no file
    through a re-export whatever names it uses, so the names (a line diff and a word scan of each
    task's file, every merge of a drain) are not computed; a file that imports asks them, and a
    rename used through a package's `__init__.py` is still found."""
    init = b"from .util import parse\n"
    used = APP.replace("from pkg.util import parse", "from pkg import parse").replace("return text", "return parse(text)")
    lone = b"def main(text):\n    return text\n"
    files = [FileVersions("pkg/__init__.py", init, init, init, init),
             FileVersions("pkg/util.py", UTIL.encode(), UTIL.replace("def parse(", "def parse_text(").encode(),
                          UTIL.encode(), UTIL.replace("def parse(", "def parse_text(").encode()),
             FileVersions("app/main.py", APP.encode(), APP.encode(), used.encode(), used.encode()),
             FileVersions("app/lone.py", lone, lone, lone + b"\n\ndef more():\n    return parse\n",
                          lone + b"\n\ndef more():\n    return parse\n")]
    check = _Check(files, ("ours", "base", "theirs"), {})
    asked: list[str] = []

    def names(path: str):
        return lambda: asked.append(path) or [b"parse"]

    assert check.reexports.reached("app/lone.py", names("app/lone.py")) == frozenset()
    assert asked == []
    assert check.reexports.reached("app/main.py", names("app/main.py")) == frozenset({"pkg/util.py"})
    assert asked == ["app/main.py"]
    [finding] = find_broken_names(files)
    assert (finding.name, finding.definition_path, finding.use_path) == ("parse", "pkg/util.py", "app/main.py")
