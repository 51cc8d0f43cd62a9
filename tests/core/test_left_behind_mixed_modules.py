"""A module with ESM `export` statements is no CommonJS module, whatever `exports` it also writes: its
default import IS its `export default` (profile `whole_default` once matched any file writing
`exports.x = `, and a dual-mode file's dropped `export default api` read as its exports object,
which it always has: `import api from './api'; api.run()` went unnamed). Both readings, each through
a task's check and finish."""

from __future__ import annotations

import pytest

from tests.core.test_uses_left_behind import _removal_merged, _removal_refused

DUAL = ("function run() {\n  return 1;\n}\n\nconst api = { run };\n\n"
        "if (typeof module === 'object') exports.api = api;\n\nexport default api;\n")
USE = "import api from './api.js';\n\nconsole.log(api.run());\n"


@pytest.mark.parametrize("dual, named", [
    (DUAL, DUAL.replace("export default api;\n", "export { api };\n")),
    (DUAL.replace("exports.api = api", "module.exports.api = api"),
     DUAL.replace("exports.api = api", "module.exports.api = api").replace("export default api;\n", "export { api };\n")),
], ids=["exports-member", "module-exports-member"])
def test_a_module_with_export_statements_losing_its_default_names_its_member_readers(tmp_path, dual, named):
    _, left = _removal_refused(tmp_path, {"lib/api.js": dual, "lib/use.js": USE}, "lib/api.js", {"lib/api.js": named})
    assert len(left) == 1 and left[0].startswith("lib/use.js (lines 1, 3: 2 uses) still uses api"), left


@pytest.mark.parametrize("module", [
    # CommonJS alone: its default import is its exports object, read for a member it still assigns
    ("module.exports = function api() {};\nmodule.exports.run = function () { return 1; };\n",
     "exports.api = function api() {};\nexports.run = function () { return 1; };\n"),
    # a doc comment's ` * export default` line is no ESM statement
    ("/**\n * export default is not used here\n */\nmodule.exports = function api() {};\nmodule.exports.run = 1;\n",
     "/**\n * export default is not used here\n */\nexports.api = function api() {};\nexports.run = 1;\n"),
], ids=["commonjs", "commented"])
def test_a_commonjs_module_read_for_its_members_stays_whole(tmp_path, module):
    _removal_merged(tmp_path, {"lib/api.js": module[0], "lib/use.js": USE}, {"lib/api.js": module[1]})
