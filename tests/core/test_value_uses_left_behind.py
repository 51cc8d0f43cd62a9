"""A Python name used as a value, not called, is a use a removal breaks.

Found driving wtc on marshmallow: its fields.py keeps `"rfc": utils.rfcformat` in a class's table;
a task renaming `utils.rfcformat` was told only of the tests' call `utils.rfcformat(value)`, and
the landed tree would not have imported. The tags query counts calls; the Python profile's
`@reference.value` patterns (grammars/python.toml) count a module's member read through its
import anywhere, and a bare name a star import brings in wherever an expression reads it.
"""

from __future__ import annotations

import pytest

from tests.core.test_uses_left_behind import _removal_merged, _removal_refused

UTILS = "def rfcformat(x):\n    return x\n\n\ndef other(x):\n    return x\n"
RENAMED = UTILS.replace("def rfcformat", "def format_rfc")


@pytest.mark.parametrize("user, line", [
    ("from pkg import utils\n\n\nclass DateTime:\n    FUNCS = {\n        \"rfc\": utils.rfcformat,\n    }\n", 6),
    ("from pkg import utils\n\nA = utils.rfcformat\n", 3),
    ("from pkg import utils\n\n\ndef g():\n    return utils.rfcformat\n", 5),
    ("from pkg import utils\n\n\n@utils.rfcformat\ndef g():\n    pass\n", 4),
    ("from pkg import utils\n\n\ndef g(x):\n    return isinstance(x, utils.rfcformat)\n", 5),
    ("from pkg import utils\n\n\ndef g():\n    try:\n        pass\n    except utils.rfcformat:\n        pass\n", 7),
    ("from pkg import utils\n\n\nclass A(utils.rfcformat):\n    pass\n", 4),
    ("from pkg import utils\n\n\ndef g(x: utils.rfcformat) -> None:\n    pass\n", 4),
    ("import pkg.utils\n\nA = pkg.utils.rfcformat\n", 3),
    ("from pkg.utils import *\n\nA = [rfcformat]\n", 3),
    ("from pkg.utils import *\n\n\ndef g(v):\n    return v is rfcformat\n", 5),
], ids=["class-table", "module-value", "returned", "decorator", "isinstance", "except", "base-class", "annotation",
        "dotted-import", "star-list", "star-operand"])
def test_a_removed_name_used_as_a_value_is_left_behind(tmp_path, user, line):
    files = {"pkg/__init__.py": "", "pkg/utils.py": UTILS, "pkg/fields.py": user}
    _, left = _removal_refused(tmp_path, files, "pkg/utils.py", {"pkg/utils.py": RENAMED})
    assert len(left) == 1 and left[0].startswith(f"pkg/fields.py:{line} still uses rfcformat"), left


@pytest.mark.parametrize("user", [
    "from pkg.utils import *\n\n\ndef g(rfcformat):\n    return rfcformat\n",              # a parameter
    "from pkg import utils\n\n\ndef g(o):\n    return [o.rfcformat, utils.other]\n",      # another object's
    "class A:\n    def rfcformat(self):\n        return 1\n\n    def g(self):\n        return self.rfcformat\n",
    "from pkg import utils\n\n\ndef g(f):\n    return f(rfcformat=1)\n",                 # a keyword's name
    "import json as utils\n\nA = utils.rfcformat\n",                                    # another module
    "from pkg.utils import *\n\nrfcformat = 3\nA = [rfcformat]\n",                      # bound again here
    "from pkg import utils\n\n\ndef g(utils):\n    return utils.rfcformat\n",            # a parameter hides the module
], ids=["parameter", "other-object", "own-method", "keyword-name", "other-module", "own-binding", "receiver-parameter"])
def test_a_value_that_is_not_the_removed_name_is_not_left_behind(tmp_path, user):
    files = {"pkg/__init__.py": "", "pkg/utils.py": UTILS, "pkg/fields.py": user}
    _removal_merged(tmp_path, files, {"pkg/utils.py": RENAMED})


# -- the same in TypeScript (a namespace import's member) and Go (a package's member) ------------

TS_UTIL = "export function parse(s: string): string { return s }\n\nexport const LIMIT = 3\n"
GO_MOD = "module example.com/m\n\ngo 1.21\n"
GO_UTIL = "package util\n\nfunc Parse(s string) string { return s }\n\nconst Limit = 3\n"


@pytest.mark.parametrize("user, line", [
    ("import * as util from './util'\n\nexport function g(x: number): boolean {\n  return x === util.LIMIT\n}\n", 4),
    ("import * as util from './util'\n\nexport const n = util.LIMIT + 1\n", 3),
    ("import * as util from './util'\n\nexport function g() {\n  if (util.LIMIT) { return 1 }\n  return 0\n}\n", 4),
], ids=["comparison", "operand", "condition"])
def test_a_namespace_member_read_as_a_value_is_left_behind(tmp_path, user, line):
    files = {"src/util.ts": TS_UTIL, "src/app.ts": user}
    _, left = _removal_refused(tmp_path, files, "src/util.ts", {"src/util.ts": TS_UTIL.replace("LIMIT", "MAX")})
    assert len(left) == 1 and left[0].startswith(f"src/app.ts:{line} still uses LIMIT"), left


@pytest.mark.parametrize("user", [
    "import * as util from './util'\n\nconst other = { LIMIT: 1 }\nexport const n = other.LIMIT + util.parse('x').length\n",
    "export class A {\n  LIMIT = 2\n  g(): number { return this.LIMIT }\n}\n",
    "import * as util from './util'\n\nexport function g(util: any): number {\n  return util.LIMIT(1)\n}\n",
], ids=["other-object", "own-field", "receiver-parameter"])
def test_a_member_of_something_else_is_not_left_behind_ts(tmp_path, user):
    files = {"src/util.ts": TS_UTIL, "src/app.ts": user}
    _removal_merged(tmp_path, files, {"src/util.ts": TS_UTIL.replace("LIMIT", "MAX")})


@pytest.mark.parametrize("user, name", [
    ("package app\n\nimport \"example.com/m/util\"\n\nvar F = util.Parse\n", "Parse"),
    ("package app\n\nimport \"example.com/m/util\"\n\nfunc G() int { return util.Limit }\n", "Limit"),
], ids=["function-value", "constant"])
def test_a_package_member_read_as_a_value_is_left_behind_go(tmp_path, user, name):
    files = {"go.mod": GO_MOD, "util/util.go": GO_UTIL, "app/app.go": user}
    edit = GO_UTIL.replace(f"{name} ", f"{name}2 ").replace(f"{name}(", f"{name}2(")
    _, left = _removal_refused(tmp_path, files, "util/**", {"util/util.go": edit})
    assert len(left) == 1 and left[0].startswith(f"app/app.go:5 still uses {name}"), left


def test_a_field_of_a_local_value_is_not_left_behind_go(tmp_path):
    user = ("package app\n\nimport \"example.com/m/util\"\n\ntype box struct{ Limit int }\n\n"
            "func G(b box) int { return b.Limit + len(util.Parse(\"x\")) }\n")
    files = {"go.mod": GO_MOD, "util/util.go": GO_UTIL, "app/app.go": user}
    _removal_merged(tmp_path, files, {"util/util.go": GO_UTIL.replace("Limit", "Max")})


# -- Rust: a path's item used as a value -------------------------------------------------------

CARGO = "[package]\nname = \"m\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"
RS_UTIL = "pub fn parse(s: &str) -> &str { s }\n\npub const LIMIT: usize = 3;\n\npub enum Kind { A, B }\n"


@pytest.mark.parametrize("user, name", [
    ("mod util;\n\npub fn g(x: usize) -> bool {\n    x == util::LIMIT\n}\n", "LIMIT"),
    ("mod util;\n\npub fn g() -> fn(&str) -> &str {\n    util::parse\n}\n", "parse"),
], ids=["constant", "function-value"])
def test_a_path_item_read_as_a_value_is_left_behind_rust(tmp_path, user, name):
    files = {"Cargo.toml": CARGO, "src/util.rs": RS_UTIL, "src/lib.rs": user}
    _, left = _removal_refused(tmp_path, files, "src/util.rs", {"src/util.rs": RS_UTIL.replace(name, name + "2")})
    assert len(left) == 1 and left[0].startswith(f"src/lib.rs:4 still uses {name}"), left


def test_a_path_to_something_else_is_not_left_behind_rust(tmp_path):
    user = ("mod util;\n\npub fn g(k: util::Kind) -> usize {\n    let LIMIT = 1;\n"
            "    match k { util::Kind::A => std::cmp::max(LIMIT, 2), util::Kind::B => 0 }\n}\n")
    files = {"Cargo.toml": CARGO, "src/util.rs": RS_UTIL, "src/lib.rs": user}
    _removal_merged(tmp_path, files, {"src/util.rs": RS_UTIL.replace("LIMIT", "MAX")})


# -- Python: a module's own `__getattr__` answers any name (PEP 562) ----------------------------

GETATTR = ("def __getattr__(name):\n    if name == \"rfcformat\":\n        import warnings\n\n"
           "        warnings.warn(\"deprecated\", DeprecationWarning)\n        return other\n"
           "    raise AttributeError(name)\n")


@pytest.mark.parametrize("user", [
    "from pkg import utils\n\nA = utils.rfcformat\n",
    "from pkg.utils import rfcformat\n\nA = rfcformat(1)\n",
], ids=["attribute", "from-import"])
def test_a_name_a_module_getattr_answers_is_not_left_behind(tmp_path, user):
    """marshmallow moved `__version__` into a module `__getattr__` that warns: uses still load."""
    files = {"pkg/__init__.py": "", "pkg/utils.py": UTILS, "pkg/fields.py": user}
    after = UTILS.replace("def rfcformat(x):\n    return x\n\n\n", "") + "\n\n" + GETATTR
    _removal_merged(tmp_path, files, {"pkg/utils.py": after})


def test_a_class_getattr_answers_nothing_of_its_module(tmp_path):
    files = {"pkg/__init__.py": "", "pkg/utils.py": UTILS, "pkg/fields.py": "from pkg import utils\n\nA = utils.rfcformat\n"}
    after = UTILS.replace("def rfcformat(x):\n    return x\n\n\n", "") + "\n\nclass Lazy:\n" + \
        "".join("    " + line + "\n" if line else "\n" for line in GETATTR.splitlines())
    _, left = _removal_refused(tmp_path, files, "pkg/utils.py", {"pkg/utils.py": after})
    assert len(left) == 1 and left[0].startswith("pkg/fields.py:3 still uses rfcformat"), left


# -- ... but one that compares its parameter with a few names answers only those -------------------

VERSION_GETATTR = ("def __getattr__(name: str):\n    if name == \"__version__\":\n        import warnings\n\n"
                   "        warnings.warn(\"deprecated\", DeprecationWarning, stacklevel=2)\n        return \"1\"\n\n"
                   "    raise AttributeError(name)\n")
REEXPORTS = "from .runtime import make_thing as make_thing\nfrom .runtime import other as other\n"
RUNTIME = "def make_thing():\n    return 1\n\n\ndef other():\n    return 2\n"


@pytest.mark.parametrize("user, lines", [
    ("from pkg import make_thing\n\n\ndef test_it():\n    assert make_thing() == 1\n", " (lines 1, 5: 2 uses)"),
    ("import pkg\n\nA = pkg.make_thing\n", ":3"),
], ids=["from-import", "attribute"])
def test_a_reexport_dropped_beside_a_version_only_getattr_is_left_behind(tmp_path, user, lines):
    """Found driving wtc on jinja: its `__init__.py` keeps a `__getattr__` for `__version__` alone
    (`raise AttributeError(name)` for the rest); a task dropped the re-export
    `make_logging_undefined` its tests import from `jinja2`, and the run landed."""
    files = {"pkg/__init__.py": REEXPORTS + "\n\n" + VERSION_GETATTR, "pkg/runtime.py": RUNTIME, "tests/test_api.py": user}
    after = REEXPORTS.replace("from .runtime import make_thing as make_thing\n", "") + "\n\n" + VERSION_GETATTR
    _, left = _removal_refused(tmp_path, files, "pkg/__init__.py", {"pkg/__init__.py": after})
    assert len(left) == 1 and left[0].startswith(f"tests/test_api.py{lines} still uses make_thing"), left


def test_a_getattr_that_looks_names_up_answers_any(tmp_path):
    """A lazy-import `__getattr__` (`name in _LAZY`) may answer any name: the drop is not refused."""
    lazy = ("_LAZY = {\"make_thing\": \".runtime\"}\n\n\ndef __getattr__(name):\n    if name in _LAZY:\n"
            "        import importlib\n\n        return getattr(importlib.import_module(_LAZY[name], __name__), name)\n"
            "    raise AttributeError(name)\n")
    files = {"pkg/__init__.py": REEXPORTS + "\n\n" + lazy, "pkg/runtime.py": RUNTIME,
             "tests/test_api.py": "from pkg import make_thing\n\nA = make_thing()\n"}
    after = REEXPORTS.replace("from .runtime import make_thing as make_thing\n", "") + "\n\n" + lazy
    _removal_merged(tmp_path, files, {"pkg/__init__.py": after})
