"""Cases of the left-behind look written down as missed or falsely blocked, each held here.

A removal whose uses stay in files the task did not change must block (left_behind.py,
left_modules.py); a change that leaves every use loading must not (a false block stops a swarm).
Each case: a real repository, a task's `task check` and `task finish`.
"""

from __future__ import annotations

import re

import pytest

from tests.conftest import wtc_in_process
from tests.core.test_uses_left_behind import _removal_merged, _removal_refused

# -- Python: `from pkg import f` is a name of the package before it is a module below it ---------


@pytest.mark.parametrize("init", [
    "def f():\n    return 1\n",
    "from .impl import f\n",
    "from .impl import *\n",
], ids=["defined", "imported", "star-imported"])
@pytest.mark.parametrize("importer, path", [
    ("from pkg import f\n\nprint(f())\n", "app.py"),
    ("from . import f\n\nprint(f())\n", "pkg/app.py"),
], ids=["absolute", "relative"])
def test_a_deleted_module_whose_name_the_package_still_binds_is_not_left_behind(tmp_path, init, importer, path):
    """`from pkg import f` finds pkg/__init__.py's own `f` before any module pkg/f.py: deleting
    pkg/f.py leaves it loading."""
    files = {"pkg/__init__.py": init, "pkg/impl.py": "def f():\n    return 1\n", "pkg/f.py": "def f():\n    return 2\n",
             path: importer}
    _removal_merged(tmp_path, files, {"pkg/f.py": None})


def test_a_name_of_the_package_with_no_module_of_its_name_is_not_left_behind(tmp_path):
    """f.py elsewhere goes; `from pkg import f` never named it."""
    files = {"pkg/__init__.py": "def f():\n    return 1\n", "f.py": "def g():\n    return 2\n",
             "pkg/sub/__init__.py": "", "pkg/sub/f.py": "X = 1\n",
             "app.py": "from pkg import f\n\nprint(f())\n"}
    _removal_merged(tmp_path, files, {"f.py": None, "pkg/sub/f.py": None})


@pytest.mark.parametrize("files", [
    {"pkg/__init__.py": "def f():\n    return 1\n", "app.py": "import pkg.f\n\nprint(pkg.f)\n"},
    {"pkg/__init__.py": "from .impl import *\n", "pkg/impl.py": "def g():\n    return 1\n",
     "app.py": "from pkg import f\n\nprint(f)\n"},
], ids=["import-dotted", "star-without-the-name"])
def test_a_deleted_module_the_package_does_not_stand_in_for_is_still_left_behind(tmp_path, files):
    _, left = _removal_refused(tmp_path, files | {"pkg/f.py": "X = 2\n"}, "pkg/f.py", {"pkg/f.py": None})
    assert len(left) == 1 and left[0].startswith("app.py:1 still imports pkg.f, the file pkg/f.py"), left


# -- Python: an import whose failure the file catches is no use a removal breaks ------------------

FAST = "def speed():\n    return 2\n\n\ndef other():\n    return 1\n"
# The import (line 2) and the `print(speed)` below the handler that uses what it bound (a name
# used as a value is a use: `print(speed)` fails as the import does).
_FROM_THE_IMPORT = re.compile(r"app\.py( \(lines 2, \d+: 2 uses\)|:2) still ")


@pytest.mark.parametrize("guard", [
    "try:\n    {import}\nexcept ImportError:\n    speed = None\n",
    "try:\n    {import}\nexcept ModuleNotFoundError as error:\n    speed = None\n",
    "try:\n    {import}\nexcept (OSError, ImportError):\n    speed = None\n",
    "try:\n    {import}\nexcept:\n    speed = None\n",
    "import importlib.util\n\nif importlib.util.find_spec('pkg.fast') is not None:\n    {import}\n",
    "try:\n    {import}\nexcept ImportError:\n    speed = None\n\n\ndef need():\n    if not speed:\n        raise RuntimeError('x')\n",
], ids=["ImportError", "ModuleNotFoundError", "tuple", "bare-except", "find_spec", "raise-outside-the-handler"])
@pytest.mark.parametrize("edit", [None, "def other():\n    return 1\n"], ids=["module-deleted", "name-removed"])
def test_a_guarded_import_of_what_the_task_removes_is_not_left_behind(tmp_path, guard, edit):
    """`try: from pkg.fast import speed` / `except ImportError:` loads either way: the task deleting
    pkg/fast.py, or removing `speed` from it, leaves the file loading (it takes its fallback)."""
    importer = guard.replace("{import}", "from pkg.fast import speed") + "\n\nprint(speed)\n"
    files = {"pkg/__init__.py": "", "pkg/fast.py": FAST, "app.py": importer,
             "mod.py": guard.replace("{import}", "import pkg.fast").replace("speed = None", "pass") + "\n"}
    _removal_merged(tmp_path, files, {"pkg/fast.py": edit})


@pytest.mark.parametrize("handler", [
    "except KeyError:\n    speed = None\n",
    "except ImportError as error:\n    raise RuntimeError('pkg.fast is needed') from error\n",
    "except ImportError:\n    log('no pkg.fast')\n    raise\n",
    "except ImportError:\n    if strict:\n        raise\n    speed = None\n",
    "except ImportError:\n    if lenient:\n        speed = None\n    else:\n        raise RuntimeError('pkg.fast is needed')\n",
    "except ImportError:\n    for _ in range(1):\n        with context():\n            raise\n",
], ids=["other-exception", "raises-another", "raises-again", "raises-if", "raises-else", "raises-nested"])
@pytest.mark.parametrize("edit", [None, "def other():\n    return 1\n"], ids=["module-deleted", "name-removed"])
def test_an_import_under_a_try_that_does_not_catch_its_failure_is_still_left_behind(tmp_path, edit, handler):
    """A handler that raises makes the failure the file's own: the file does not load. A raise
    under an `if` (`if strict: raise`), or deeper, may run: the failure can propagate, a use."""
    files = {"pkg/__init__.py": "", "pkg/fast.py": FAST,
             "app.py": "try:\n    from pkg.fast import speed\n" + handler + "\nprint(speed)\n"}
    _, left = _removal_refused(tmp_path, files, "pkg/fast.py", {"pkg/fast.py": edit})
    assert len(left) == 1 and _FROM_THE_IMPORT.match(left[0]), left


@pytest.mark.parametrize("guard", [
    "try:\n    {import}\nexcept ImportError:\n    def need():\n        raise RuntimeError('x')\n    speed = None\n",
    "try:\n    {import}\nexcept ImportError:\n    class Missing:\n        def __call__(self):\n"
    "            raise RuntimeError('x')\n    speed = None\n",
    "try:\n    {import}\nexcept ImportError:\n    def speed():\n        raise RuntimeError('x')\n",
    "try:\n    {import}\nexcept ImportError:\n    speed = None\nexcept ValueError:\n    raise\n",
    "try:\n    {import}\nexcept (KeyError, ValueError) as error:\n    raise RuntimeError('x') from error\n"
    "except ModuleNotFoundError:\n    speed = None\n",
], ids=["raise-in-a-function-of-the-handler", "raise-in-a-method-of-the-handler", "a-function-alone-in-the-handler",
        "another-handler-raises",
        "another-tuple-handler-raises"])
@pytest.mark.parametrize("edit", [None, "def other():\n    return 1\n"], ids=["module-deleted", "name-removed"])
def test_a_guard_whose_catching_handlers_do_not_raise_is_not_left_behind(tmp_path, guard, edit):
    """Only the raises a handler of the import's failure runs itself take the guard back: one in a
    function it defines runs when that is called, and a handler of another exception never runs for
    a failed import."""
    importer = guard.replace("{import}", "from pkg.fast import speed") + "\n\nprint(speed)\n"
    files = {"pkg/__init__.py": "", "pkg/fast.py": FAST, "app.py": importer,
             "mod.py": guard.replace("{import}", "import pkg.fast").replace("speed = None", "pass") + "\n"}
    _removal_merged(tmp_path, files, {"pkg/fast.py": edit})


@pytest.mark.parametrize("handler", [
    "except ImportError:\n    class Missing:\n        raise RuntimeError('pkg.fast is needed')\n",
    "except ValueError:\n    speed = None\nexcept ImportError:\n    raise\n",
    "except (ValueError, ImportError):\n    raise\n",
    "except Exception:\n    def need():\n        return 1\n    raise\n",
], ids=["class-body-raises", "second-handler-raises", "tuple-with-it-raises", "raise-after-a-function"])
def test_a_guard_whose_catching_handler_runs_a_raise_is_still_left_behind(tmp_path, handler):
    """A class body runs where it stands; a handler catching ImportError (alone, in a tuple, as
    Exception) that raises makes the failure the file's own."""
    files = {"pkg/__init__.py": "", "pkg/fast.py": FAST,
             "app.py": "try:\n    from pkg.fast import speed\n" + handler + "\nprint(speed)\n"}
    _, left = _removal_refused(tmp_path, files, "pkg/fast.py", {"pkg/fast.py": None})
    assert len(left) == 1 and _FROM_THE_IMPORT.match(left[0]), left


# -- JavaScript: a path written with its extension names that file, not a folder's index ---------

NPM = {"package.json": '{"name": "cli"}\n'}


@pytest.mark.parametrize("importer", [
    "const foo = require('./foo.js')\n\nmodule.exports = foo\n",
    "import foo from './foo.js'\n\nexport const v = foo\n",
], ids=["require", "esm"])
def test_a_file_made_a_folder_index_is_left_behind_for_a_path_written_with_its_extension(tmp_path, importer):
    """Node loads no foo/index.js for `require('./foo.js')` (nor an ES module for `from './foo.js'`)."""
    files = NPM | {"lib/foo.js": "module.exports = 1\n", "lib/main.js": importer}
    _, left = _removal_refused(tmp_path, files, ("lib/foo.js", "lib/foo/**"), {},
                               {"lib/foo.js": "lib/foo/index.js"})
    assert len(left) == 1 and left[0].startswith("lib/main.js:1 still uses ./foo.js from lib/foo.js, which this task "
                                                 "moved to lib/foo/index.js"), left


def test_a_file_made_a_folder_index_still_answers_a_path_written_without_extension(tmp_path):
    files = NPM | {"lib/foo.js": "module.exports = 1\n", "lib/main.js": "const foo = require('./foo')\n\nmodule.exports = foo\n",
                   "src/a.ts": "export const a = 1\n", "src/app.ts": "import { a } from './a.js'\n\nexport const v = a\n"}
    # (and a TypeScript path written `./a.js` still names a.ts)
    _removal_merged(tmp_path, files, {}, {"lib/foo.js": "lib/foo/index.js"})


# -- JavaScript: `require('./m').x` inline is a use of m's export x -------------------------------

M = "function x() {\n  return 1\n}\n\nfunction y() {\n  return 2\n}\n\nmodule.exports = { x, y }\n"


@pytest.mark.parametrize("user, line", [
    ("const v = require('./m').x(1)\n\nmodule.exports = v\n", 1),
    ("function g() {\n  return require('./m').x(2)\n}\n\nmodule.exports = g\n", 2),
    ("module.exports = function () {\n  return [require('./m').x]\n}\n", 2),
    ("const v = require('./m').x\n\nmodule.exports = v\n", 1),
], ids=["call", "call-in-function", "value", "bound-value"])
def test_an_inline_require_of_a_name_the_task_stops_exporting_is_left_behind(tmp_path, user, line):
    files = NPM | {"lib/m.js": M, "lib/u.js": user}
    _, left = _removal_refused(tmp_path, files, "lib/m.js", {"lib/m.js": M.replace("{ x, y }", "{ y }")})
    assert len(left) == 1 and left[0].startswith(f"lib/u.js:{line} still uses x"), left


def test_an_inline_require_of_names_still_exported_is_not_left_behind(tmp_path):
    files = NPM | {"lib/m.js": M, "lib/other.js": M,
                   "lib/u.js": "module.exports = [require('./m').y(1), require('./other').x(1)]\n"}
    _removal_merged(tmp_path, files, {"lib/m.js": M.replace("{ x, y }", "{ y }")})


# -- JavaScript and TypeScript: exports no pattern listed by name ---------------------------------

CALLER = "const parse = require('./m')\n\nmodule.exports = parse()\n"


@pytest.mark.parametrize("files, edits, use", [
    (NPM | {"lib/m.js": "module.exports = function parse() {\n  return 1\n}\n", "lib/u.js": CALLER},
     {"lib/m.js": "function parse() {\n  return 1\n}\n"}, "lib/u.js:3 still uses parse"),
    (NPM | {"lib/m.js": "module.exports = class Parser {\n}\n", "lib/u.js": "const P = require('./m')\n\nmodule.exports = new P()\n"},
     {"lib/m.js": "class Parser {\n}\n\nmodule.exports = { Parser }\n"}, "lib/u.js:3 still uses P"),
    (NPM | {"src/m.ts": "class X {\n}\n\nexport = X\n", "src/u.ts": "import X = require('./m')\n\nexport const v = new X()\n"},
     {"src/m.ts": "export class X {\n}\n"}, "src/u.ts (lines 1, 3: 2 uses) still uses X"),
    (NPM | {"src/m.ts": "const obj = { a: 1, b: 2 }\n\nexport const { a, b } = obj\n",
            "src/u.ts": "import { b } from './m'\n\nexport const v = b\n"},
     {"src/m.ts": "const obj = { a: 1, b: 2 }\n\nexport const { a } = obj\n"}, "src/u.ts (lines 1, 3: 2 uses) still uses b"),
    (NPM | {"lib/m.js": "const obj = { a: 1, b: 2 }\n\nexport const [a, b] = [obj.a, obj.b]\n",
            "lib/u.js": "import { b } from './m.js'\n\nexport const v = b\n"},
     {"lib/m.js": "const obj = { a: 1, b: 2 }\n\nexport const [a] = [obj.a]\n"}, "lib/u.js (lines 1, 3: 2 uses) still uses b"),
], ids=["module-exports-function", "module-exports-class", "ts-export-equals", "destructured-object", "destructured-array"])
def test_an_export_no_pattern_named_removed_while_used_is_left_behind(tmp_path, files, edits, use):
    """`module.exports = function parse() {}` and TypeScript's `export = X` are the module's default
    export (what `require` returns and a caller calls); `export const { a, b } = obj` exports a and b."""
    [path] = edits
    _, left = _removal_refused(tmp_path, files, path, edits)
    assert len(left) == 1 and left[0].startswith(use), left


@pytest.mark.parametrize("after", [
    "module.exports = function parse2() {\n  return 1\n}\n",
    "export default function parse() {\n  return 1\n}\n",
    "function parse() {\n  return 1\n}\n\nmodule.exports = parse\n",
    "module.exports = function parse() {\n  return 1\n}\n\nmodule.exports.extra = 1\n",
], ids=["renamed-function", "esm-default", "named-then-exported", "member-added"])
def test_a_default_export_kept_under_another_form_is_not_left_behind(tmp_path, after):
    files = NPM | {"lib/m.js": "module.exports = function parse() {\n  return 1\n}\n", "lib/u.js": CALLER,
                   "lib/v.js": "const p = require('./m')\n\nmodule.exports = p.extra\n"}
    _removal_merged(tmp_path, files, {"lib/m.js": after})


def test_a_module_whose_members_alone_are_used_may_stop_being_callable(tmp_path):
    """`p.x()` uses the member x, not the module's value: `module.exports = function` made `{ x }`."""
    files = NPM | {"lib/m.js": "function x() {}\n\nmodule.exports = function parse() {\n  return 1\n}\n\nmodule.exports.x = x\n",
                   "lib/u.js": "const p = require('./m')\n\nmodule.exports = p.x()\n"}
    _removal_merged(tmp_path, files, {"lib/m.js": "function x() {}\n\nmodule.exports = { x }\n"})


# -- The default export through a drain: the post-merge check answered from the tip's tables ------

DRAIN_CASES = {
    "esm": ({"src/m.ts": "export default function foo(): number {\n  return 1\n}\n"},
            {"src/m.ts": "export function foo(): number {\n  return 1\n}\n"},
            {"src/b.ts": "import foo from './m'\n\nexport const v = foo()\n"}),
    "commonjs": ({"src/m.js": "module.exports = function parse() {\n  return 1\n}\n"},
                 {"src/m.js": "function parse() {\n  return 1\n}\n\nmodule.exports = { parse }\n"},
                 {"src/b.js": "const parse = require('./m')\n\nmodule.exports = parse()\n"}),
    "export-equals": ({"src/m.ts": "class X {\n}\n\nexport = X\n"}, {"src/m.ts": "export class X {\n}\n"},
                      {"src/b.ts": "import X = require('./m')\n\nexport const v = new X()\n"}),
}


@pytest.mark.parametrize("first", ["remover", "user"])
@pytest.mark.parametrize("case", sorted(DRAIN_CASES))
def test_a_default_export_one_task_removes_and_another_task_uses_is_refused_by_a_drain(tmp_path, case, first):
    """Three finished tasks drained by `wtc merge` (left-behind off: the post-merge semantic check
    alone answers, each merge after the first reading the tip's tables): one removes the module's
    default export, one writes a new use of it, one changes an unrelated file. Whichever of the two
    merges second is refused for the use."""
    from pathlib import Path

    from tests.conftest import make_repo, wtc, write
    from worktree_coord.coordinator import Coordinator

    pin, removed, used = DRAIN_CASES[case]
    repo = make_repo(tmp_path / "repo", {"package.json": '{"name": "w"}\n', "src/c.ts": "export const c = 1\n"} | pin)
    tasks = {"remover": (list(pin), removed), "other": (["src/c.ts"], {"src/c.ts": "export const c = 2\n"}),
             "user": (list(used), used)}
    order = [first, "other", "user" if first == "remover" else "remover"]
    with Coordinator(repo) as coord:
        coord.start_run("r1", left_behind="off")
        for name in order:
            own, edits = tasks[name]
            write(Path(coord.start_task("r1", name, own).worktree), edits)
            assert coord.finish_task("r1", name, merge=False).state == "finished"
    code, body = wtc_in_process(repo, "merge", "--run", "r1")
    states = {row["task"]: (row["state"], [(c["kind"], c["path"]) for c in row.get("conflicts", [])]) for row in body["tasks"]}
    assert code == 1 and states[order[0]][0] == states["other"][0] == "merged", body
    assert states[order[2]] == ("conflict", [("semantic", next(iter(used)))]), body


# -- Java: the import line of a class moved or deleted is named, beside its uses ------------------

JAVA = {"src/main/java/a/b/C.java": "package a.b;\n\npublic class C {\n    public static int f() { return 1; }\n}\n",
        "src/main/java/a/d/U.java": "package a.d;\n\nimport a.b.C;\n\npublic class U {\n    int g() { return C.f(); }\n}\n",
        "src/main/java/a/d/S.java": "package a.d;\n\nimport static a.b.C.f;\n\npublic class S {\n    int g() { return f(); }\n}\n",
        "src/main/java/a/d/W.java": "package a.d;\n\nimport a.b.*;\n\npublic class W {\n    int g() { return 1; }\n}\n"}


def test_a_java_class_moved_to_another_package_is_named_at_its_import_line_and_its_use(tmp_path):
    """`import a.b.C;` is the line that stops compiling; `C.f()` below it is named as before. A
    package's `import a.b.*;` names no one class file and is not named."""
    moved = JAVA["src/main/java/a/b/C.java"].replace("package a.b;", "package a.c;")
    _, left = _removal_refused(tmp_path, JAVA, "src/main/java/a/[bc]/**", {"src/main/java/a/c/C.java": moved},
                               {"src/main/java/a/b/C.java": "src/main/java/a/c/C.java"})
    assert len(left) == 1, left
    assert left[0].startswith("src/main/java/a/d/S.java (lines 3, 6), src/main/java/a/d/U.java (lines 3, 6) still use ") \
        or left[0].startswith("src/main/java/a/d/U.java (lines 3, 6), src/main/java/a/d/S.java (lines 3, 6) still use "), left
    assert "W.java" not in left[0], left


def test_a_java_class_deleted_is_named_at_its_import_line(tmp_path):
    _, left = _removal_refused(tmp_path, JAVA, "src/main/java/a/b/**", {"src/main/java/a/b/C.java": None})
    imports = [note for note in left if "still import" in note]
    assert len(imports) == 1 and imports[0].startswith("src/main/java/a/d/S.java:3, src/main/java/a/d/U.java:3 still "
                                                       "import a.b.C, the file src/main/java/a/b/C.java"), left


TEST = {"src/test/java/a/d/UTest.java": "package a.d;\n\nimport a.b.C;\n\npublic class UTest {\n    int t() { return C.f(); }\n}\n",
        "lib/build.gradle": "", "lib/src/main/java/a/b/C.java": JAVA["src/main/java/a/b/C.java"],
        "lib/src/test/java/a/b/CTest.java": "package a.b;\n\npublic class CTest {\n    int t() { return C.f(); }\n}\n",
        "lib/src/testFixtures/java/a/e/Fix.java": "package a.e;\n\nimport a.b.C;\n\npublic class Fix {\n    int t() { return C.f(); }\n}\n"}


def test_a_java_class_deleted_is_named_at_the_import_line_of_a_test_source(tmp_path):
    """A test source set (src/test/java, src/testFixtures/java) imports the classes of its project's
    src/main/java: its `import a.b.C;` is named as main's are, in a module of a build too."""
    _, left = _removal_refused(tmp_path, JAVA | TEST, ("src/main/java/a/b/**", "lib/src/main/java/a/b/**"),
                               {"src/main/java/a/b/C.java": None, "lib/src/main/java/a/b/C.java": None})
    imports = sorted(note.split(" still import")[0] for note in left if "still import" in note)
    assert imports == ["lib/src/testFixtures/java/a/e/Fix.java:3",
                       "src/main/java/a/d/S.java:3, src/main/java/a/d/U.java:3, src/test/java/a/d/UTest.java:3"], left


def test_a_java_class_moved_is_named_at_the_import_line_of_a_test_source(tmp_path):
    moved = JAVA["src/main/java/a/b/C.java"].replace("package a.b;", "package a.c;")
    files = JAVA | {"src/test/java/a/d/UTest.java": TEST["src/test/java/a/d/UTest.java"]}
    _, left = _removal_refused(tmp_path, files, "src/main/java/a/[bc]/**", {"src/main/java/a/c/C.java": moved},
                               {"src/main/java/a/b/C.java": "src/main/java/a/c/C.java"})
    assert len(left) == 1 and "src/test/java/a/d/UTest.java (lines 3, 6)" in left[0], left


def test_a_java_class_of_the_same_name_kept_in_the_test_sources_module_is_not_left_behind(tmp_path):
    """lib/src/test/java imports a.b.C, which lib/src/main/java still holds: the root project's
    a/b/C.java deleted leaves it compiling."""
    files = {"src/main/java/a/b/C.java": JAVA["src/main/java/a/b/C.java"],
             "lib/src/main/java/a/b/C.java": JAVA["src/main/java/a/b/C.java"],
             "lib/src/test/java/a/e/T.java": "package a.e;\n\nimport a.b.C;\n\npublic class T {\n    int t() { return C.f(); }\n}\n"}
    _removal_merged(tmp_path, files, {"src/main/java/a/b/C.java": None})


# -- Go: a dot import makes the package's names bare ---------------------------------------------

GO = {"go.mod": "module example.com/m\n\ngo 1.21\n",
      "util/util.go": "package util\n\nfunc F() int {\n\treturn 1\n}\n\nfunc G() int {\n\treturn 2\n}\n",
      "main.go": "package main\n\nimport . \"example.com/m/util\"\n\nfunc main() {\n\t_ = F() + G()\n}\n"}


def test_a_go_function_removed_while_a_dot_import_uses_it_bare_is_left_behind(tmp_path):
    _, left = _removal_refused(tmp_path, GO, "util/**", {"util/util.go": GO["util/util.go"].replace("F()", "H()")})
    assert len(left) == 1 and left[0].startswith("main.go:6 still uses F, which this task removed or renamed (to H, "
                                                 "it seems) in util/util.go"), left


def test_a_go_function_a_dot_import_uses_moved_within_its_package_or_kept_is_not_left_behind(tmp_path):
    files = GO | {"local.go": "package main\n\nfunc k() int {\n\tG := 3\n\treturn G\n}\n"}
    _removal_merged(tmp_path, files, {"util/util.go": "package util\n\nfunc G() int {\n\treturn 2\n}\n",
                                      "util/f.go": "package util\n\nfunc F() int {\n\treturn 1\n}\n"})


# -- Go: a method called on a local whose type the file spells --------------------------------

COBRA = {"go.mod": "module example.com/m\n\ngo 1.21\n",
         "cobra/command.go": "package cobra\n\ntype Command struct {\n\tUse string\n}\n\n"
                             "func (c *Command) CommandPath() string {\n\treturn c.Use\n}\n\n"
                             "func (c *Command) Name() string {\n\treturn c.Use\n}\n"}
RENAMED = COBRA["cobra/command.go"].replace("CommandPath()", "Path()")


def _go_user(body: str, imports: str = 'import "example.com/m/cobra"\n\n') -> str:
    return "package app\n\n" + imports + body


@pytest.mark.parametrize("path, text, line", [
    ("app/param.go", _go_user("func show(c *cobra.Command) string {\n\treturn c.CommandPath()\n}\n"), 6),
    ("app/var.go", _go_user("func show() string {\n\tvar c cobra.Command\n\treturn c.CommandPath()\n}\n"), 7),
    ("app/literal.go", _go_user("func show() string {\n\tc := &cobra.Command{Use: \"x\"}\n\treturn c.CommandPath()\n}\n"), 7),
    ("app/value.go", _go_user("func show() string {\n\tc := cobra.Command{}\n\treturn c.CommandPath()\n}\n"), 7),
    ("app/alias.go", _go_user("func show(c *cmd.Command) string {\n\treturn c.CommandPath()\n}\n",
                              'import cmd "example.com/m/cobra"\n\n'), 6),
    ("cobra/help.go", "package cobra\n\nfunc help(c *Command) string {\n\treturn c.CommandPath()\n}\n", 4),
], ids=["parameter", "var", "pointer-literal", "value-literal", "import-alias", "same-package"])
def test_a_go_method_removed_while_a_local_of_its_type_calls_it_is_left_behind(tmp_path, path, text, line):
    """`c.CommandPath()` where the file spells c's type (a parameter, `var c cobra.Command`, a
    composite literal, a same-package `*Command`), a type of the repository: renaming the method
    leaves the call broken."""
    _, left = _removal_refused(tmp_path, COBRA | {path: text}, "cobra/command.go", {"cobra/command.go": RENAMED})
    assert len(left) == 1 and left[0].startswith(f"{path}:{line} still uses Command.CommandPath, which this task "
                                                 "removed or renamed (to Command.Path, it seems) in cobra/command.go"), left


EMBEDS = COBRA["cobra/command.go"].replace("type Command struct {\n", "type Command struct {\n\tBase\n") \
    + "\ntype Base struct{}\n\nfunc (b Base) CommandPath() string {\n\treturn \"\"\n}\n"


@pytest.mark.parametrize("files", [
    {"app/untyped.go": _go_user("func show() string {\n\tc := cobra.New()\n\treturn c.CommandPath()\n}\n"),
     "cobra/new.go": "package cobra\n\nfunc New() *Command {\n\treturn &Command{}\n}\n"},
    {"app/outside.go": _go_user("func show(c *cobra.Command) string {\n\treturn c.CommandPath()\n}\n",
                                'import "github.com/spf13/cobra"\n\n')},
    {"app/mine.go": "package app\n\ntype Mine struct{}\n\nfunc (m Mine) CommandPath() string {\n\treturn \"\"\n}\n\n"
                    "func show() string {\n\tm := Mine{}\n\treturn m.CommandPath()\n}\n"},
    {"app/shadowed.go": _go_user("func show(c *cobra.Command) string {\n\tf := func(c Other) string {\n"
                                 "\t\treturn c.CommandPath()\n\t}\n\treturn f(Other{})\n}\n\n"
                                 "type Other struct{}\n\nfunc (o Other) CommandPath() string {\n\treturn \"\"\n}\n")},
], ids=["type-not-spelled", "type-outside-the-repository", "another-type", "a-closer-local"])
def test_a_go_method_call_whose_receiver_type_is_not_the_renamed_ones_is_not_left_behind(tmp_path, files):
    _removal_merged(tmp_path, COBRA | files, {"cobra/command.go": RENAMED})


def test_a_go_method_removed_where_an_embedded_type_still_has_it_is_not_left_behind(tmp_path):
    """Command embeds Base, whose CommandPath is promoted once Command's own is gone."""
    files = {"go.mod": COBRA["go.mod"], "cobra/command.go": EMBEDS,
             "app/param.go": _go_user("func show(c *cobra.Command) string {\n\treturn c.CommandPath()\n}\n")}
    _removal_merged(tmp_path, files, {"cobra/command.go": EMBEDS.replace("func (c *Command) CommandPath()", "func (c *Command) Path()")})


# -- Rust: a crate named through `extern crate X as Y;` ------------------------------------------

RUST = {"Cargo.toml": '[workspace]\nmembers = ["a", "b"]\n', "a/Cargo.toml": '[package]\nname = "alpha"\nversion = "0.1.0"\n',
        "a/src/lib.rs": "pub fn f() -> i32 {\n    1\n}\n\npub fn g() -> i32 {\n    2\n}\n",
        "b/Cargo.toml": '[package]\nname = "beta"\nversion = "0.1.0"\n\n[dependencies]\nalpha = { path = "../a" }\n',
        "b/src/lib.rs": "extern crate alpha as y;\n\npub fn h() -> i32 {\n    y::f() + y::g()\n}\n"}


def test_a_rust_function_removed_while_a_path_through_an_extern_crate_alias_uses_it_is_left_behind(tmp_path):
    _, left = _removal_refused(tmp_path, RUST, "a/**", {"a/src/lib.rs": "pub fn g() -> i32 {\n    2\n}\n"})
    assert len(left) == 1 and left[0].startswith("b/src/lib.rs:4 still uses f, which this task removed"), left


def test_a_rust_function_kept_behind_an_extern_crate_alias_is_not_left_behind(tmp_path):
    files = RUST | {"a/src/lib.rs": RUST["a/src/lib.rs"] + "\npub fn k() -> i32 {\n    3\n}\n"}
    _removal_merged(tmp_path, files, {"a/src/lib.rs": RUST["a/src/lib.rs"]})


# -- Python: a name reached through a chain of star imports --------------------------------------

CHAIN = {"pkg/__init__.py": "from .a import *\n", "pkg/a.py": "from .b import *\n",
         "pkg/b.py": "from .c import *\n", "pkg/c.py": "def f():\n    return 1\n\n\ndef g():\n    return 2\n",
         "app.py": "from pkg import f\n\nprint(f())\n"}


@pytest.mark.parametrize("files", [
    CHAIN,
    CHAIN | {"pkg/c.py": CHAIN["pkg/c.py"] + "\n__all__ = ['f', 'g']\n", "pkg/b.py": "from .c import *\n\n__all__ = ['f', 'g']\n"},
    CHAIN | {"pkg/b.py": "from .a import *\nfrom .c import *\n"},
    CHAIN | {"pkg/a.py": "from .b import *  # noqa: F403\n\n\ndef h(*, x):\n    return x * 2\n"},
], ids=["three-levels", "all-at-each-level", "cycle", "commented"])
def test_a_name_removed_at_the_end_of_a_star_chain_while_used_is_left_behind(tmp_path, files):
    """`from pkg import f`: pkg/__init__.py star-imports a, a star-imports b, b star-imports c, which
    defines f; removing f from c leaves the import failing (and b's `__all__` entry of f, which
    `from .b import *` then fails on, where b writes one)."""
    _, left = _removal_refused(tmp_path, files, "pkg/c.py", {"pkg/c.py": "def g():\n    return 2\n"})
    listed = "__all__" in files["pkg/b.py"]
    said = "app.py (lines 1, 3), pkg/b.py:3 still use f" if listed else "app.py (lines 1, 3: 2 uses) still uses f"
    assert len(left) == 1 and left[0].startswith(said), left


@pytest.mark.parametrize("files, edits", [
    (CHAIN, {"pkg/c.py": "def g():\n    return 2\n", "pkg/a.py": "from .b import *\n\n\ndef f():\n    return 1\n"}),
    (CHAIN | {"pkg/f.py": "X = 1\n"}, {"pkg/f.py": None}),
    ({"pkg/__init__.py": "from .a import *\nfrom .c import *\n", "pkg/a.py": "X = 1\n", "pkg/c.py": CHAIN["pkg/c.py"],
      "app.py": CHAIN["app.py"]},
     {"pkg/c.py": "def g():\n    return 2\n", "pkg/a.py": "X = 1\n\n\ndef f():\n    return 1\n"}),
], ids=["moved-up-the-chain", "module-of-its-name-deleted", "moved-to-a-file-only-added-to"])
def test_a_name_a_star_chain_still_reaches_is_not_left_behind(tmp_path, files, edits):
    """f moved from c to a, still reached by the chain; or pkg/f.py deleted while `from pkg import f`
    finds the package's f at the chain's end: nothing left behind. A file the task only added lines
    to (a.py, f appended) answers as the task wrote it, not as it was."""
    _removal_merged(tmp_path, files, edits)


@pytest.mark.parametrize("hide", [
    {"pkg/b.py": "from .c import *\n\n__all__ = ['g']\n"},
    {"pkg/c.py": "def _f():\n    return 1\n\n\ndef g():\n    return 2\n", "app.py": "from pkg import _f\n\nprint(_f())\n"},
], ids=["all-leaves-it-out", "underscore"])
def test_a_star_chain_that_does_not_pass_the_name_is_left_behind_when_its_module_goes(tmp_path, hide):
    """pkg/f.py deleted: a chain whose `__all__` (or a `_` name) stops the name at some level does
    not stand in for the module."""
    files = CHAIN | hide | {"pkg/f.py": "X = 1\n", "pkg/_f.py": "X = 1\n"}
    gone = "pkg/_f.py" if "app.py" in hide else "pkg/f.py"
    _, left = _removal_refused(tmp_path, files, gone, {gone: None})
    assert len(left) == 1 and left[0].startswith("app.py:1 still imports pkg."), left


# -- A name gone with its file: the note says the file was deleted --------------------------------

DELETED = {"pkg/__init__.py": "", "pkg/fast.py": FAST, "app.py": "from pkg.fast import speed\n\nprint(speed)\n"}


def test_a_name_whose_file_the_task_deleted_is_said_deleted_at_check_and_finish(tmp_path):
    """pkg/fast.py deleted, no file at its path: `speed` was not "removed or renamed" in it."""
    said = ("app.py (lines 1, 3: 2 uses) still uses speed, which this task deleted with its file pkg/fast.py (no file stands at its "
            "path now); app.py is outside the task's changes, so the landed tree would not resolve it: keep a file at "
            "the old path (a stub that re-exports what replaced it), or the lead widens the task")
    repo, left = _removal_refused(tmp_path, DELETED, "pkg/fast.py", {"pkg/fast.py": None})
    assert len(left) == 1 and left[0].startswith(said), left
    code, check = wtc_in_process(repo, "task", "check", "rm", "--run", "r1")
    rows = check["left_behind"]
    assert code == 1 and len(rows) == 1 and rows[0]["file_deleted"] is True and rows[0]["note"].startswith(said), rows


def test_a_name_whose_file_moved_is_said_moved_not_deleted(tmp_path):
    repo, left = _removal_refused(tmp_path, DELETED, "pkg/**", {}, {"pkg/fast.py": "pkg/quick.py"})
    assert len(left) == 1 and left[0].startswith("app.py (lines 1, 3) still uses speed from pkg/fast.py, which this task moved "
                                                 "to pkg/quick.py;"), left
    code, check = wtc_in_process(repo, "task", "check", "rm", "--run", "r1")
    assert code == 1 and [row["file_deleted"] for row in check["left_behind"]] == [False], check["left_behind"]


def test_a_module_made_a_package_whose_init_lacks_a_used_name_is_left_behind(tmp_path):
    """pkg/fast.py replaced by pkg/fast/__init__.py, which does not define `speed`: `from pkg.fast
    import speed` fails (missed before: two files of one module path were taken for two modules,
    and the import resolved to neither). Not said deleted: a file answers the path."""
    files = DELETED | {"pkg/fast/helpers.py": "X = 1\n"}   # the folder stands, for the task to write in
    edits = {"pkg/fast.py": None, "pkg/fast/__init__.py": "def other():\n    return 1\n"}
    repo, left = _removal_refused(tmp_path, files, "pkg/**", edits)
    assert len(left) == 1 and left[0].startswith("app.py (lines 1, 3: 2 uses) still uses speed, which this task removed or renamed in "
                                                 "pkg/fast.py;"), left
    code, check = wtc_in_process(repo, "task", "check", "rm", "--run", "r1")
    assert code == 1 and [row["file_deleted"] for row in check["left_behind"]] == [False], check["left_behind"]


def test_a_module_made_a_package_whose_init_keeps_the_used_name_is_not_left_behind(tmp_path):
    files = DELETED | {"pkg/fast/helpers.py": "X = 1\n"}
    _removal_merged(tmp_path, files, {"pkg/fast.py": None, "pkg/fast/__init__.py": FAST})


# -- TSX a grammar reads only in pieces: the pieces outside its ERROR nodes are read --------------

PORTAL = "export function Portal(props: any) {\n  return props.children\n}\n"
UNREADABLE = "export function T() {\n  return <button>\n      Toggle A & B\n    </button>\n}\n\n"   # a bare `&`


@pytest.mark.parametrize("test, line", [
    ("import * as P from './portal'\n\n" + UNREADABLE + "export function U() {\n  return P.Portal({})\n}\n", 10),
    ("import * as P from './portal'\n\nexport function T() {\n  const x = P.Portal({})\n"
     "  return <button>\n      Toggle A & B {x}\n    </button>\n}\n", 4),
], ids=["another-function", "the-same-function"])
def test_a_use_in_a_tsx_file_read_in_pieces_is_left_behind(tmp_path, test, line):
    """The file does not parse whole (JSX text with a bare `&`); its code outside the ERROR node
    does, and there it calls Portal through a namespace import (missed before: the import lines
    alone were read, and they name no Portal)."""
    files = {"src/portal/portal.tsx": PORTAL, "src/portal/portal.test.tsx": test}
    _, left = _removal_refused(tmp_path, files, "/src/portal/portal.tsx",
                               {"src/portal/portal.tsx": PORTAL.replace("Portal", "Teleport")})
    assert len(left) == 1 and left[0].startswith(f"src/portal/portal.test.tsx:{line} still uses "), left


@pytest.mark.parametrize("test", [
    # the ERROR node holds the name: what it binds there is unknown (a local Portal may shadow the import)
    "import * as P from './portal'\n\nexport function U() {\n  const Portal = 1\n  return <b>Portal & P.Portal</b>\n}\n",
    "import * as P from './portal'\n\nexport function U() {\n  return <b>x & y</b>\n}\n\n"
    "export function V(P: any) {\n  return <P.Portal>{P.Q}</P.Portal>\n}\n",
], ids=["name-in-the-error", "parameter-shadows"])
def test_a_tsx_file_read_in_pieces_blocks_nothing_it_does_not_use(tmp_path, test):
    files = {"src/portal/portal.tsx": PORTAL + "\nexport const Q = 1\n", "src/portal/portal.test.tsx": test}
    _removal_merged(tmp_path, files, {"src/portal/portal.tsx": PORTAL.replace("Portal", "Teleport") + "\nexport const Q = 1\n"})


def test_a_java_test_class_moved_into_the_test_fixtures_is_no_import_left_behind(tmp_path):
    """mockito 1193be78 moved TestBase from src/test/java to src/testFixtures/java (Gradle's
    java-test-fixtures, which the tests see), package unchanged: 445 imports were said to be left
    behind. A test source set looks in its project's test fixtures as in its main classes."""
    base = "package a.u;\n\npublic class TestBase {\n    public int setUp() { return 1; }\n}\n"
    files = {"m/src/test/java/a/u/TestBase.java": base,
             "m/src/test/java/a/c/UserTest.java": "package a.c;\n\nimport a.u.TestBase;\n\n"
                                                  "public class UserTest extends TestBase {\n    int t() { return setUp(); }\n}\n",
             "m/src/main/java/a/x/X.java": "package a.x;\n\npublic class X {}\n"}
    _removal_merged(tmp_path, files, {}, {"m/src/test/java/a/u/TestBase.java": "m/src/testFixtures/java/a/u/TestBase.java"})


def test_a_java_test_class_deleted_from_the_test_sources_is_still_left_behind(tmp_path):
    base = "package a.u;\n\npublic class TestBase {\n    public int setUp() { return 1; }\n}\n"
    files = {"m/src/test/java/a/u/TestBase.java": base,
             "m/src/test/java/a/c/UserTest.java": "package a.c;\n\nimport a.u.TestBase;\n\n"
                                                  "public class UserTest extends TestBase {\n    int t() { return setUp(); }\n}\n",
             "m/src/testFixtures/java/a/f/Other.java": "package a.f;\n\npublic class Other {}\n"}
    _, left = _removal_refused(tmp_path, files, "m/src/test/java/a/u/**", {"m/src/test/java/a/u/TestBase.java": None})
    assert any(note.startswith("m/src/test/java/a/c/UserTest.java:3") for note in left), left
