"""Cases of the semantic check written down as missed or falsely blocked (trust-left15), each held here.

A removed or renamed name still used must block, naming every use; a change that leaves every use
loading must not. Each case: a real repository, a task's `task check` and `task finish`.
"""

from __future__ import annotations

import pytest

from tests.core.test_uses_left_behind import _removal_merged, _removal_refused

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
