"""A method renamed in its class, still called through the instance in the class's own file
(check/own_members.py), and a class described by a declaration file beside the code defining it
(merge/checks/sole_members.py `declaration_files`).

Found driving `wtc fanout` on tj/commander.js: a task renamed `Help.padWidth` in lib/help.js and
merged clean past `formatHelp`'s `helper.padWidth(cmd, helper)` in the same class and the test file
calling it on `new commander.Help()` through index.js's re-export; a task renamed
`Option.attributeName` in lib/option.js and merged clean past its 19 calls in lib/command.js and
lib/option.js, because typings/index.d.ts declares the same class (read as a second definer).
"""

from __future__ import annotations

import pytest

from tests.core.test_uses_left_behind import _removal_merged, _removal_refused

HELP_JS = ("export class Help {\n  constructor() {\n    this.helpWidth = undefined;\n  }\n\n"
           "  formatHelp(cmd, helper) {\n    const termWidth = helper.padWidth(cmd, helper);\n    return termWidth;\n  }\n\n"
           "  render() {\n    return this.padWidth(1, this);\n  }\n\n"
           "  padWidth(cmd, helper) {\n    return 3;\n  }\n}\n")
HELP_JS_RENAMED = HELP_JS.replace("  padWidth(cmd, helper) {", "  paddingWidth(cmd, helper) {")
HELP_PY = ("class Help:\n    def format_help(self, cmd):\n        return self.pad_width(cmd)\n\n"
           "    def pad_width(self, cmd):\n        return 3\n")
HELP_PY_RENAMED = HELP_PY.replace("def pad_width(", "def padding_width(")


@pytest.mark.parametrize("path, text, renamed, lines", [
    ("lib/help.js", HELP_JS, HELP_JS_RENAMED, " (lines 7, 12: 2 uses)"),
    ("pkg/help.py", HELP_PY, HELP_PY_RENAMED, ":3"),
], ids=["javascript-param-and-this", "python-self"])
def test_a_method_renamed_and_still_called_in_its_own_class_is_left_behind(tmp_path, path, text, renamed, lines):
    files = {path: text}
    if path.endswith(".py"):
        files["pkg/__init__.py"] = ""
    _, left = _removal_refused(tmp_path, files, path, {path: renamed})
    assert len(left) == 1 and left[0].startswith(f"{path}{lines} still uses Help."), left


def test_a_class_of_the_same_file_calling_through_a_parameter_is_left_behind(tmp_path):
    # commander's lib/option.js: DualOptions' `option.attributeName()`, Option's method renamed
    option = ("export class Option {\n  attributeName() {\n    return 'x';\n  }\n}\n\n"
              "export class DualOptions {\n  constructor(options) {\n    this.keys = options.map((option) => option.attributeName());\n  }\n}\n")
    _, left = _removal_refused(tmp_path, {"lib/option.js": option}, "lib/option.js",
                               {"lib/option.js": option.replace("  attributeName() {", "  attrName() {")})
    assert len(left) == 1 and left[0].startswith("lib/option.js:9 still uses Option.attributeName"), left


def test_a_declaration_file_describing_the_class_is_no_second_definer(tmp_path):
    option = "export class Option {\n  attributeName() {\n    return 'x';\n  }\n\n  helpWidth = 3;\n}\n"
    files = {"lib/option.js": option,
             "lib/command.js": ("import { Option } from './option.js';\n\nexport function keys(options) {\n"
                                "  return options.map((option) => option.attributeName());\n}\n"),
             "typings/index.d.ts": ("export class Option {\n  helpWidth?: number;\n  attributeName(): string;\n}\n"
                                    "export class Command {\n  name(): string;\n}\n")}
    _, left = _removal_refused(tmp_path, files, "lib/option.js",
                               {"lib/option.js": option.replace("  attributeName() {", "  attrName() {")})
    assert len(left) == 1 and left[0].startswith("lib/command.js:4 still uses Option.attributeName"), left


def test_a_member_reached_through_a_barrel_re_exporting_its_class_is_looked_for(tmp_path):
    # commander's tests/help.padWidth.test.js: `import * as commander from '../index.js'`, `new commander.Help()`
    files = {"lib/help.js": HELP_JS, "index.js": "import { Help } from './lib/help.js';\n\nexport { Help };\n",
             "tests/help.test.js": ("import * as commander from '../index.js';\n\n"
                                    "const helper = new commander.Help();\nexport const w = helper.padWidth(1, helper);\n")}
    _, left = _removal_refused(tmp_path, files, "lib/help.js", {"lib/help.js": HELP_JS_RENAMED})
    # one note for the renaming file's own uses (the task updates them), one for the test outside it (a widen)
    own, outside = sorted(left, key=lambda note: note.startswith("tests/"))
    assert own.startswith("lib/help.js (lines 7, 12: 2 uses) still uses Help.padWidth") and "update the use in lib/help.js" in own, left
    assert outside.startswith("tests/help.test.js:4 still uses Help.padWidth") and "wtc task widen" in outside, left


@pytest.mark.parametrize("more", [
    # a subclass in another file overrides it: `this.padWidth()` may mean the subclass's
    {"lib/wide.js": "import { Help } from './help.js';\n\nexport class WideHelp extends Help {\n  padWidth() {\n    return 9;\n  }\n}\n"},
    # another object of the tree has such a member: the parameter may be that one
    {"lib/other.js": "export const layout = {\n  padWidth: (cmd, helper) => 2,\n};\n"},
], ids=["subclass-overrides", "object-literal-member"])
def test_an_instance_call_another_definer_may_answer_is_no_use(tmp_path, more):
    files = {"lib/help.js": HELP_JS, **more}
    _removal_merged(tmp_path, files, {"lib/help.js": HELP_JS_RENAMED})


def test_a_python_class_with_a_base_outside_the_tree_is_not_read(tmp_path):
    text = ("import threading\n\n\nclass Worker(threading.Thread):\n    def go(self):\n        return self.step_once()\n\n"
            "    def step_once(self):\n        return 1\n")
    _removal_merged(tmp_path, {"pkg/__init__.py": "", "pkg/worker.py": text},
                    {"pkg/worker.py": text.replace("def step_once(", "def step(")})


ERRORS = "export class CommanderError extends Error {}\n"
BARREL = "import { CommanderError } from './lib/error.js';\n\nexport { CommanderError };\n"
NAMESPACE_USER = ("import * as commander from '../index.js';\n\n// an error of ours\n"
                  "export const isOurs = (err) => err instanceof commander.CommanderError;\n")


def test_a_module_moved_with_its_barrel_updated_leaves_nothing_behind_through_the_barrel(tmp_path):
    # commander.js: lib/error.js moved to lib/errors.js, index.js's import updated with it; the tests
    # reach CommanderError as `commander.CommanderError` through index.js (read before the task: blocked)
    files = {"lib/error.js": ERRORS, "index.js": BARREL, "tests/exit.test.js": NAMESPACE_USER}
    _removal_merged(tmp_path, files, {"index.js": BARREL.replace("./lib/error.js", "./lib/errors.js")},
                    moves={"lib/error.js": "lib/errors.js"})


def test_a_module_moved_with_its_barrel_left_as_it_was_is_still_left_behind(tmp_path):
    files = {"lib/error.js": ERRORS, "index.js": BARREL, "tests/exit.test.js": NAMESPACE_USER}
    _, left = _removal_refused(tmp_path, files, ("lib/error.js", "lib/errors.js"), {},
                               moves={"lib/error.js": "lib/errors.js"})
    assert left and any("index.js" in note for note in left), left


JAVA = ("package a;\n\npublic class Help {\n    public int formatHelp(int cmd) {\n        return padWidth(cmd) + this.padWidth(cmd);\n"
        "    }\n\n    public int padWidth(int cmd) {\n        return 3;\n    }\n}\n")
CSHARP = ("namespace A\n{\n    public class Help\n    {\n        public int FormatHelp(int cmd)\n        {\n"
          "            return PadWidth(cmd) + this.PadWidth(cmd);\n        }\n\n"
          "        public int PadWidth(int cmd)\n        {\n            return 3;\n        }\n    }\n}\n")


@pytest.mark.parametrize("path, text, renamed, where", [
    ("src/a/Help.java", JAVA, JAVA.replace("public int padWidth(", "public int paddingWidth("), "src/a/Help.java:5"),
    ("src/Help.cs", CSHARP, CSHARP.replace("public int PadWidth(", "public int PaddingWidth("), "src/Help.cs:7"),
], ids=["java", "csharp"])
def test_a_method_renamed_and_still_called_bare_in_its_class_is_left_behind(tmp_path, path, text, renamed, where):
    _, left = _removal_refused(tmp_path, {path: text}, path, {path: renamed})
    assert len(left) == 1 and left[0].startswith(f"{where} still uses Help."), left


@pytest.mark.parametrize("text, renamed", [
    # a base may give it
    (JAVA.replace("public class Help {", "public class Help extends Base {"),
     JAVA.replace("public class Help {", "public class Help extends Base {").replace("public int padWidth(", "public int paddingWidth(")),
    # another overload still stands
    (JAVA.replace("    public int padWidth(int cmd) {", "    public int padWidth(long cmd) {\n        return 4;\n    }\n\n    public int padWidth(int cmd) {"),
     JAVA.replace("    public int padWidth(int cmd) {\n        return 3;\n    }\n", "    public int padWidth(long cmd) {\n        return 4;\n    }\n")),
    # a static import may bring it
    (JAVA.replace("package a;\n", "package a;\n\nimport static a.Widths.padWidth;\n").replace("this.padWidth(cmd)", "1"),
     JAVA.replace("package a;\n", "package a;\n\nimport static a.Widths.padWidth;\n").replace("this.padWidth(cmd)", "1")
     .replace("public int padWidth(", "public int paddingWidth(")),
], ids=["base", "overload-left", "static-import"])
def test_a_bare_call_something_else_may_answer_is_no_use(tmp_path, text, renamed):
    files = {"src/a/Help.java": text, "src/a/Base.java": "package a;\n\npublic class Base {\n    public int padWidth(int c) {\n        return 1;\n    }\n}\n",
             "src/a/Widths.java": "package a;\n\npublic class Widths {\n    public static int padWidth(int c) {\n        return 2;\n    }\n}\n"}
    _removal_merged(tmp_path, files, {"src/a/Help.java": renamed})


RUNNER = ("class Runner:\n    def run(self):\n        return self.start()\n\n    def start(self):\n        return 1\n\n\n"
          "def kick(job):\n    return job.start()\n")


def test_a_name_other_types_have_too_is_still_the_class_own_through_self(tmp_path):
    # click's Command.format_usage (argparse's parsers have one too): `self.format_usage()` in Command is
    # Command's; `job.start()` on a parameter may be a thread's, and is not named
    _, left = _removal_refused(tmp_path, {"pkg/__init__.py": "", "pkg/runner.py": RUNNER}, "pkg/runner.py",
                               {"pkg/runner.py": RUNNER.replace("def start(self)", "def begin(self)")})
    assert len(left) == 1 and left[0].startswith("pkg/runner.py:3 still uses Runner.start"), left
