"""CommonJS: a file's own export read through `exports` (`types.map(exports.normalizeType)`, express's
lib/utils.js:76) is a use of that export: renaming `exports.normalizeType = function` leaves it
undefined there (profile `export_receivers`; check/own_uses.py at the look, semantic.py at a merge).

Written down as left last session: the rename was named in other files (`utils.normalizeType(t)`),
never in its own file, where express itself reads it.
"""

from __future__ import annotations

import pytest

from tests.core.test_uses_left_behind import _removal_merged, _removal_refused, _second_finish

UTILS = ("'use strict';\n\nexports.normalizeType = function(type){\n  return type;\n};\n\n"
         "exports.normalizeTypes = function(types) {\n  return types.map(exports.normalizeType);\n};\n")
RENAMED = UTILS.replace("exports.normalizeType = function", "exports.normType = function")
APP = "var utils = require('./utils');\n\nexports.x = function(){ return utils.normalizeTypes([]); };\n"


@pytest.mark.parametrize("utils", [UTILS, UTILS.replace("types.map(exports.normalizeType)",
                                                        "types.map((t) => module.exports.normalizeType(t))")],
                         ids=["exports", "module-exports-call"])
def test_an_export_read_in_its_own_file_is_left_behind(tmp_path, utils):
    renamed = utils.replace("exports.normalizeType = function", "exports.normType = function")
    _, left = _removal_refused(tmp_path, {"lib/utils.js": utils, "lib/app.js": APP}, "lib/utils.js", {"lib/utils.js": renamed})
    assert len(left) == 1 and left[0].startswith("lib/utils.js:8 still uses normalizeType, which this task no longer exports"), left


def test_a_read_another_task_adds_blocks_its_merge(tmp_path):
    added = UTILS + "\nexports.one = function(t) {\n  return exports.normalizeType(t);\n};\n"
    code, body = _second_finish(tmp_path, {"lib/utils.js": UTILS, "lib/app.js": APP},
                                ("a", "lib/utils.js", {"lib/utils.js": RENAMED.replace("map(exports.normalizeType)", "map(exports.normType)")}),
                                ("b", "lib/utils.js", {"lib/utils.js": added}))
    assert code == 1 and [(c["path"], c["semantic"]["name"]) for c in body["conflicts"] if c["kind"] == "semantic"] \
        == [("lib/utils.js", "normalizeType")], body


@pytest.mark.parametrize("utils", [
    # a parameter named `exports` is another object
    UTILS.replace("exports.normalizeTypes = function(types) {\n  return types.map(exports.normalizeType);",
                  "exports.normalizeTypes = function(types, exports) {\n  return types.map(exports.normalizeType);"),
    # the module's exports are a value nothing lists
    UTILS + "\nmodule.exports = require('./make')();\n",
], ids=["parameter", "open-exports"])
def test_an_exports_the_file_does_not_list_is_no_use(tmp_path, utils):
    renamed = utils.replace("exports.normalizeType = function", "exports.normType = function")
    _removal_merged(tmp_path, {"lib/utils.js": utils, "lib/app.js": APP, "lib/make.js": "module.exports = () => ({});\n"},
                    {"lib/utils.js": renamed})
