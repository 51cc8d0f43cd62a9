"""A root index module's default export: its importers spell no word of its own (`import x from '..'`,
`require('..')`, the package's name), so the look once grepped nothing and missed them."""

from __future__ import annotations

import pytest

from tests.core.test_uses_left_behind import _removal_merged, _removal_refused, _second_finish

PKG = '{"name": "tiny-pkg", "main": "index.js"}\n'
ESM = ("function greet(name) {\n  return 'hi ' + name;\n}\n\nexport default greet;\nexport const version = 1;\n",
       "function greet(name) {\n  return 'hi ' + name;\n}\n\nexport const version = 1;\n")
CJS = ("module.exports = function (name) {\n  return 'hi ' + name;\n};\n",
       "exports.greet = function (name) {\n  return 'hi ' + name;\n};\n")


@pytest.mark.parametrize("index, importer", [
    (ESM, "import greet from '..';\n\nexport const v = greet('a');\n"),
    (ESM, "import greet from '../index.js';\n\nexport const v = greet('a');\n"),
    (ESM, "import greet from 'tiny-pkg';\n\nexport const v = greet('a');\n"),
    (CJS, "const greet = require('..');\n\nmodule.exports = greet('a');\n"),
    (CJS, "const greet = require('../index');\n\nmodule.exports = greet('a');\n"),
    (CJS, "const greet = require('..');\n\nconsole.log(greet('a'));\n"),
], ids=["esm-parent", "esm-index-js", "esm-package-name", "cjs-parent", "cjs-index", "cjs-no-exports-word"])
def test_a_root_index_default_still_called_is_named(tmp_path, index, importer):
    files = {"package.json": PKG, "index.js": index[0], "test/use.js": importer}
    _, left = _removal_refused(tmp_path, files, "index.js", {"index.js": index[1]})
    assert len(left) == 1 and left[0].startswith("test/use.js"), left


@pytest.mark.parametrize("index, importer", [
    # the members it reads are still there: a CommonJS module's exports object, an ESM named export
    (("module.exports = function (name) {\n  return name;\n};\nmodule.exports.version = 1;\n",
      "exports.greet = function (name) {\n  return name;\n};\nexports.version = 1;\n"),
     "const version = require('..').version;\n\nconsole.log(version);\n"),
    (ESM, "import { version } from '..';\n\nconsole.log(version);\n"),
    # another folder's default, spelled `'..'` from below it
    (ESM, "import other from '..';\n\nconsole.log(other());\n"),
], ids=["cjs-member", "esm-named", "other-folder"])
def test_a_root_index_importer_of_what_stays_is_not_named(tmp_path, index, importer):
    files = {"package.json": PKG, "index.js": index[0], "lib/other/use.js": importer,
             "lib/index.js": "export default function other() {\n  return 1;\n}\n"}
    if "other" not in importer:
        files["test/use.js"] = files.pop("lib/other/use.js")
    _removal_merged(tmp_path, files, {"index.js": index[1]})


def test_a_call_another_task_adds_blocks_its_merge(tmp_path):
    code, body = _second_finish(tmp_path, {"package.json": PKG, "index.js": ESM[0], "test/a.js": "export const a = 1;\n"},
                                ("a", "index.js", {"index.js": ESM[1]}),
                                ("b", "test/**", {"test/use.js": "import greet from '..';\n\nexport const v = greet('b');\n"}))
    assert code == 1 and [(c["path"], c["kind"]) for c in body["conflicts"]] == [("test/use.js", "semantic")], body
