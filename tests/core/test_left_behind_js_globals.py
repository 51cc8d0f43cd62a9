"""JavaScript/TypeScript: a binding removed whose name a global of the runtime also has (`var Buffer =
require('safe-buffer').Buffer`, gone: Node's `Buffer` answers every use) leaves no use behind.

Found by the false block hunt on expressjs/express: 9f8589e31ce8 ("remove unnecessary require for global
Buffer") was flagged, naming seven uses in lib/response.js and lib/utils.js that Node's global answers.
The profiles' `globals` now hold Node's and the browser's (`Buffer`, `process`, `window`, ...).
"""

from __future__ import annotations

import pytest

from tests.core.test_uses_left_behind import _removal_merged, _removal_refused


@pytest.mark.parametrize("ext", ["js", "ts"])
def test_a_removed_binding_a_runtime_global_answers_is_no_use(tmp_path, ext):
    before = "var Buffer = require('safe-buffer').Buffer;\n\nfunction f(s) {\n  return Buffer.from(s);\n}\nmodule.exports = { f };\n"
    after = before.replace("var Buffer = require('safe-buffer').Buffer;\n\n", "")
    _removal_merged(tmp_path, {f"lib/utils.{ext}": before}, {f"lib/utils.{ext}": after})


def test_a_removed_binding_no_global_answers_is_still_left_behind(tmp_path):
    before = "var Bufferish = require('safe-buffer').Buffer;\n\nfunction f(s) {\n  return Bufferish.from(s);\n}\nmodule.exports = { f };\n"
    after = before.replace("var Bufferish = require('safe-buffer').Buffer;\n\n", "")
    _removal_refused(tmp_path, {"lib/utils.js": before}, "lib/utils.js", {"lib/utils.js": after})
