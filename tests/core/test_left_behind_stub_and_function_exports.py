"""Two removals the left-behind look missed, found driving wtc on attrs and express.

- Python (attrs): a package whose `__init__.py` has a stub `__init__.pyi` beside it. A task dropped
  `fields_dict` from `src/attrs/__init__.py`; the stub, which the task did not touch, still declared
  it, and the check took the stub for the module `import attrs` loads ("one module in two forms"):
  check, finish and report were clean, and `attrs.fields_dict(...)` in the tests failed on the landed
  tree. A stub is read by type checkers only: at run time the `.py` answers the import.
- JavaScript (express): `exports = module.exports = createApplication` with `function
  createApplication` in the same file, then `exports.urlencoded = ...`. The value given to
  `module.exports` made the file's exports "open" (names no pattern lists), so dropping
  `exports.urlencoded` while `express.urlencoded()` was used elsewhere was clean. A function the file
  declares has no members but those the file assigns (`exports.x = `, `module.exports.x = `); only
  one it also gives members some other way (`create.x = `, passed to `Object.assign(create, ...)`)
  keeps the exports open.
"""

from __future__ import annotations

import re

import pytest

from tests.core.test_uses_left_behind import _removal_merged, _removal_refused

# -- Python: a stub beside the module ----------------------------------------------------------

INIT = "from pkg.core import bar, foo\n\n__all__ = [\"bar\", \"foo\"]\n"
CORE = "def foo():\n    return 1\n\n\ndef bar():\n    return 2\n"
PY_USER = "import pkg\n\n\ndef test_foo():\n    assert pkg.foo() == 1\n"


@pytest.mark.parametrize("stub", ["src/pkg/__init__.pyi", None], ids=["with-stub", "without-stub"])
def test_a_name_dropped_from_a_package_whose_stub_still_declares_it_is_left_behind(tmp_path, stub):
    files = {"pyproject.toml": '[project]\nname = "pkg"\nversion = "1"\n', "src/pkg/__init__.py": INIT,
             "src/pkg/core.py": CORE, "tests/test_use.py": PY_USER}
    if stub:
        files[stub] = INIT
    _, left = _removal_refused(tmp_path, files, "/src/pkg/__init__.py",
                               {"src/pkg/__init__.py": INIT.replace("bar, foo", "bar").replace(', "foo"', "")})
    assert len(left) == 1 and left[0].startswith("tests/test_use.py:5 still uses foo"), left


def test_a_name_kept_in_the_module_but_dropped_from_its_stub_alone_is_not_left_behind(tmp_path):
    """The run-time module still has it: the import loads (a type checker's complaint is not a
    broken tree)."""
    files = {"pyproject.toml": '[project]\nname = "pkg"\nversion = "1"\n', "src/pkg/__init__.py": INIT,
             "src/pkg/__init__.pyi": INIT, "src/pkg/core.py": CORE, "tests/test_use.py": PY_USER}
    _removal_merged(tmp_path, files,
                    {"src/pkg/__init__.pyi": INIT.replace("bar, foo", "bar").replace(', "foo"', "")})


def test_a_module_with_only_a_stub_still_answers_its_uses(tmp_path):
    """An extension module has no `.py`: its stub is all the tree says of it, and a removal there
    is still named."""
    files = {"pkg/__init__.py": "", "pkg/_speed.pyi": "def fast() -> int: ...\n\ndef slow() -> int: ...\n",
             "app.py": "from pkg._speed import fast\n\nprint(fast())\n"}
    _, left = _removal_refused(tmp_path, files, "/pkg/_speed.pyi",
                               {"pkg/_speed.pyi": "def slow() -> int: ...\n"})
    assert len(left) == 1 and left[0].startswith("app.py (lines 1, 3: 2 uses) still uses fast"), left


# -- JavaScript: a function given to module.exports, its members assigned after ------------------

NPM = {"package.json": '{"name": "web", "version": "1.0.0"}\n'}
EXPRESS = ("'use strict'\n\nexports = module.exports = createApplication\n\nfunction createApplication () {\n"
           "  return {}\n}\n\nexports.json = function json () {\n  return 1\n}\n"
           "exports.urlencoded = function urlencoded () {\n  return 2\n}\n")
JS_USER = "var express = require('../lib/express')\n\nmodule.exports = function () {\n  return express.urlencoded()\n}\n"
WITHOUT = EXPRESS.replace("exports.urlencoded = function urlencoded () {\n  return 2\n}\n", "")


@pytest.mark.parametrize("module", [
    EXPRESS,
    EXPRESS.replace("exports = module.exports = createApplication", "module.exports = createApplication")
           .replace("exports.", "module.exports."),
    EXPRESS.replace("exports = module.exports = createApplication\n\nfunction createApplication () {\n  return {}\n}",
                    "function createApplication () {\n  return {}\n}\n\nexports = module.exports = createApplication"),
], ids=["express", "module-exports-members", "declared-first"])
def test_a_member_dropped_from_a_function_given_to_module_exports_is_left_behind(tmp_path, module):
    files = NPM | {"lib/express.js": module, "test/u.js": JS_USER}
    after = re.sub(r"(module\.)?exports\.urlencoded = function urlencoded \(\) \{\n  return 2\n\}\n", "", module)
    assert after != module and "urlencoded" not in after
    _, left = _removal_refused(tmp_path, files, "/lib/express.js", {"lib/express.js": after})
    assert len(left) == 1 and left[0].startswith("test/u.js:4 still uses urlencoded"), left


@pytest.mark.parametrize("more", [
    "\ncreateApplication.urlencoded = function () {\n  return 3\n}\n",
    "\nObject.assign(createApplication, require('./extra'))\n",
    "\nmixin(createApplication, require('./extra'))\n",
], ids=["member-of-the-function", "object-assign", "passed-to-a-call"])
def test_a_function_given_members_another_way_keeps_its_exports_open(tmp_path, more):
    files = NPM | {"lib/express.js": EXPRESS + more, "lib/extra.js": "exports.urlencoded = function () {}\n",
                   "test/u.js": JS_USER}
    _removal_merged(tmp_path, files, {"lib/express.js": WITHOUT + more})


def test_an_imported_value_given_to_module_exports_keeps_its_exports_open(tmp_path):
    module = EXPRESS.replace("function createApplication () {\n  return {}\n}",
                             "var createApplication = require('./base')")
    files = NPM | {"lib/express.js": module, "lib/base.js": "module.exports = function () {}\n", "test/u.js": JS_USER}
    _removal_merged(tmp_path, files, {"lib/express.js": module.replace(
        "exports.urlencoded = function urlencoded () {\n  return 2\n}\n", "")})


# -- JavaScript: a package's index passing a module's exports on whole ----------------------------

INDEX = "'use strict'\n\nmodule.exports = require('./lib/express')\n"


@pytest.mark.parametrize("user, path", [
    ("var express = require('..')\n\nmodule.exports = function () {\n  return express.urlencoded()\n}\n", "test/u.js"),
    ("var express = require('../index')\n\nmodule.exports = function () {\n  return express.urlencoded()\n}\n", "test/u.js"),
    ("var express = require('./')\n\nmodule.exports = function () {\n  return express.urlencoded()\n}\n", "u.js"),
], ids=["parent-folder", "index-spelled", "this-folder"])
def test_a_member_dropped_behind_an_index_that_requires_the_module_whole_is_left_behind(tmp_path, user, path):
    """express's index.js is `module.exports = require('./lib/express')`, and its tests `require('..')`:
    the index passed the names on (as `export * from` does), and `..` named the root folder's index."""
    files = NPM | {"index.js": INDEX, "lib/express.js": EXPRESS, path: user}
    _, left = _removal_refused(tmp_path, files, "/lib/express.js", {"lib/express.js": WITHOUT})
    assert len(left) == 1 and left[0].startswith(f"{path}:4 still uses urlencoded"), left


def test_a_member_kept_behind_an_index_that_requires_the_module_whole_is_not_left_behind(tmp_path):
    files = NPM | {"index.js": INDEX, "lib/express.js": EXPRESS,
                   "test/u.js": "var express = require('..')\n\nmodule.exports = function () {\n  return express.json()\n}\n"}
    _removal_merged(tmp_path, files, {"lib/express.js": WITHOUT})
