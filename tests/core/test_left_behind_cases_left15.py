"""Cases of the semantic check written down as missed or falsely blocked (trust-left15), each held here.

A removed or renamed name still used must block, naming every use; a change that leaves every use
loading must not. Each case: a real repository, a task's `task check` and `task finish`.
"""

from __future__ import annotations

import pytest

from tests.conftest import wtc_in_process
from tests.core.test_uses_left_behind import _removal_merged, _removal_refused, _task_edited

# -- JavaScript: a CommonJS module's default import is its exports object, whatever it assigns -------

# commander.js e3192a13aaef: index.js dropped `module.exports = new Command()` for `exports.program = ...`
COMMANDER = ("function Command() {}\nCommand.prototype.parse = function () { return 1 }\n\n"
             "exports = module.exports = new Command();\nexports.program = exports;\nexports.Command = Command;\n")
NAMED = "function Command() {}\nCommand.prototype.parse = function () { return 1 }\n\n" \
        "exports.program = new Command();\nexports.Command = Command;\n"


@pytest.mark.parametrize("importer, path", [
    ("import commander from './cmd.js';\n\nexport const {\n  program,\n  Command\n} = commander;\n", "esm.mjs"),
    ("import commander from './cmd.js';\n\nexport const program = commander.program;\n", "esm.mjs"),
    ("const commander = require('./cmd.js');\n\nmodule.exports = commander.program;\n", "use.js"),
], ids=["destructured", "member", "required-member"])
def test_a_commonjs_default_import_read_for_its_members_is_not_left_behind(tmp_path, importer, path):
    """The default import of a CommonJS module is its `module.exports`, which any file has: reading
    its members (which the module still assigns) loads whatever it stopped assigning whole."""
    _removal_merged(tmp_path, {"cmd.js": COMMANDER, path: importer}, {"cmd.js": NAMED})


@pytest.mark.parametrize("importer, path", [
    ("import commander from './cmd.js';\n\ncommander();\n", "esm.mjs"),
    ("import commander from './cmd.js';\n\nconst c = new commander();\n", "esm.mjs"),
    ("const commander = require('./cmd.js');\n\ncommander();\n", "use.js"),
], ids=["called", "constructed", "required-called"])
def test_a_commonjs_default_import_called_after_it_stopped_being_a_function_is_left_behind(tmp_path, importer, path):
    """`module.exports = function f() {}` replaced by named exports: a call (or `new`) of the module's
    default import no longer has a function to call."""
    before = "function run() { return 1 }\n\nmodule.exports = run;\nmodule.exports.helper = 2;\n"
    after = "function run() { return 1 }\n\nexports.run = run;\nexports.helper = 2;\n"
    _, left = _removal_refused(tmp_path, {"cmd.js": before, path: importer}, "cmd.js", {"cmd.js": after})
    assert len(left) == 1 and left[0].startswith(f"{path} (lines 1, 3") or left[0].startswith(f"{path}:3"), left


# -- Python: a record class's keyword construction after a field rename ----------------------------

POINT = {
    "dataclass": "from dataclasses import dataclass\n\n\n@dataclass\nclass Point:\n    x: int\n    y: int = 0\n",
    "dataclass-call": "import dataclasses\n\n\n@dataclasses.dataclass(frozen=True)\nclass Point:\n    x: int\n    y: int = 0\n",
    "namedtuple": "from typing import NamedTuple\n\n\nclass Point(NamedTuple):\n    x: int\n    y: int = 0\n",
    "attrs-define": "from attrs import define\n\n\n@define\nclass Point:\n    x: int\n    y: int = 0\n",
    "attr-s": "import attr\n\n\n@attr.s\nclass Point:\n    x = attr.ib()\n    y = attr.ib(default=0)\n",
    "init": "class Point:\n    def __init__(self, x, y=0):\n        self.x = x\n        self.y = y\n",
}


@pytest.mark.parametrize("kind", sorted(POINT))
def test_a_record_field_renamed_blocks_its_keyword_construction(tmp_path, kind):
    """`x` renamed `px` in the class: `Point(x=1)` elsewhere fails (unexpected keyword argument)."""
    files = {"geo.py": POINT[kind], "app.py": "from geo import Point\n\nP = Point(x=1, y=2)\n"}
    renamed = POINT[kind].replace("x: int", "px: int").replace("x = attr.ib", "px = attr.ib") \
        .replace("(self, x,", "(self, px,").replace("self.x = x", "self.px = px")
    repo = _task_edited(tmp_path, files, "rm", ("geo.py",), {"geo.py": renamed}, None)
    code, check = wtc_in_process(repo, "task", "check", "rm", "--run", "r1")
    assert code == 1, check
    code, body = wtc_in_process(repo, "task", "finish", "rm", "--run", "r1")
    assert (code, body["state"]) == (1, "conflict"), body
    left = [note for note in body["notes"] if "still call" in note]
    assert len(left) == 1 and left[0].startswith("app.py:3 still calls Point the old way (the keyword x=)"), left


@pytest.mark.parametrize("files", [
    # a custom `__init__` taking any keyword
    {"geo.py": "from dataclasses import dataclass\n\n\n@dataclass\nclass Point:\n    x: int\n\n"
               "    def __init__(self, **kwargs):\n        self.x = kwargs.get('x', 0)\n",
     "app.py": "from geo import Point\n\nP = Point(x=1)\n"},
    # the call's target is another class of that name
    {"geo.py": "from dataclasses import dataclass\n\n\n@dataclass\nclass Point:\n    x: int\n",
     "other.py": "class Point:\n    def __init__(self, x):\n        self.x = x\n",
     "app.py": "from other import Point\n\nP = Point(x=1)\n"},
    # a ClassVar is no field; a record with a base may take the field from it
    {"geo.py": "from dataclasses import dataclass\nfrom typing import ClassVar\n\n\n@dataclass\nclass Point:\n"
               "    x: ClassVar[int] = 0\n    y: int = 0\n\n\n@dataclass\nclass Base:\n    x: int = 0\n\n\n"
               "@dataclass\nclass Sub(Base):\n    x: int = 0\n",
     "app.py": "from geo import Point, Sub\n\nP = Point(y=1)\nS = Sub(x=1)\n"},
], ids=["kwargs-init", "other-class", "classvar-and-base"])
def test_a_record_rename_blocks_no_keyword_call_that_still_loads(tmp_path, files):
    renamed = files["geo.py"].replace("x: int\n", "px: int\n").replace("self.x =", "self.px =") \
        .replace("x: ClassVar[int] = 0", "px: ClassVar[int] = 0").replace("    x: int = 0\n\n\n@dataclass\nclass Sub",
                                                                          "    x: int = 0\n\n\n@dataclass\nclass Sub") \
        .replace("class Sub(Base):\n    x: int = 0", "class Sub(Base):\n    px: int = 0")
    assert renamed != files["geo.py"]
    _removal_merged(tmp_path, files, {"geo.py": renamed})


# -- C#: a local typed by a `using` alias, its members read -----------------------------------------

STORE = ("namespace Shop.Data\n{\n    public class Store\n    {\n        public int Put(int x) { return x; }\n\n"
         "        public int Get() { return 1; }\n    }\n}\n")


@pytest.mark.parametrize("local", [
    "S s = new S();", "var s = new S();", "S s = Make();",
], ids=["declared", "var-new", "declared-from-call"])
def test_a_method_removed_and_called_through_a_using_alias_typed_local_is_left_behind(tmp_path, local):
    user = ("using S = Shop.Data.Store;\n\nnamespace App\n{\n    public class User\n    {\n"
            "        static S Make() { return new S(); }\n\n"
            f"        public int Run()\n        {{\n            {local}\n            return s.Put(1) + s.Get();\n        }}\n    }}\n}}\n")
    files = {"Lib/Store.cs": STORE, "App/User.cs": user}
    _, left = _removal_refused(tmp_path, files, "Lib/**", {"Lib/Store.cs": STORE.replace("Put(", "Save(")})
    assert len(left) == 1 and left[0].startswith("App/User.cs:12 still uses Store.Put"), left


def test_a_using_alias_of_another_class_is_not_left_behind(tmp_path):
    """The alias names another class, which still has Put."""
    other = "namespace Shop.Other\n{\n    public class Store\n    {\n        public int Put(int x) { return x; }\n    }\n}\n"
    user = ("using S = Shop.Other.Store;\nusing Shop.Data;\n\nnamespace App\n{\n    public class User\n    {\n"
            "        public int Run()\n        {\n            S s = new S();\n            return s.Put(1);\n        }\n    }\n}\n")
    files = {"Lib/Store.cs": STORE, "Lib/Other.cs": other, "App/User.cs": user}
    _removal_merged(tmp_path, files, {"Lib/Store.cs": STORE.replace("Put(", "Save(")})
