"""A removed name read as an operand (`key in vendorSpecificOptions`, `x === LIMIT`) is a use: the
value patterns once took arguments, returns and assignments, not a binary expression's operands,
and sindresorhus/ky 2df9b7e71963's rename of `vendorSpecificOptions` named its import line alone,
never line 23's `key in vendorSpecificOptions`."""

from __future__ import annotations

import pytest

from tests.core.test_uses_left_behind import _removal_merged, _removal_refused

OPTIONS = "export const vendorSpecificOptions = {\n  next: true,\n};\n\nexport const LIMIT = 3;\n"
RENAMED = OPTIONS.replace("vendorSpecificOptions", "vendorOptions")


@pytest.mark.parametrize("ext", ["ts", "js"])
@pytest.mark.parametrize("body", [
    "export function vendor(key: string) {\n  return key in vendorSpecificOptions;\n}\n",
    "export function first(key: string) {\n  return vendorSpecificOptions === undefined || key;\n}\n",
], ids=["in", "strict-equal-left"])
def test_an_operand_of_a_removed_name_is_named(tmp_path, ext, body):
    body = body.replace(": string", "") if ext == "js" else body
    user = f"import {{vendorSpecificOptions}} from '../utils/options.js';\n\n{body}"
    files = {"package.json": '{"name": "ky"}\n', f"source/utils/options.{ext}": OPTIONS, f"source/core/Ky.{ext}": user}
    _, left = _removal_refused(tmp_path, files, f"source/utils/options.{ext}", {f"source/utils/options.{ext}": RENAMED})
    assert len(left) == 1 and left[0].startswith(f"source/core/Ky.{ext} (lines 1, 4: 2 uses) still uses vendorSpecificOptions"), left


def test_an_operand_that_is_a_local_of_the_same_name_is_no_use(tmp_path):
    user = ("import {LIMIT} from '../utils/options.js';\n\nexport function vendor(key) {\n"
            "  const vendorSpecificOptions = {};\n  return key in vendorSpecificOptions || LIMIT;\n}\n")
    files = {"package.json": '{"name": "ky"}\n', "source/utils/options.js": OPTIONS, "source/core/Ky.js": user}
    _removal_merged(tmp_path, files, {"source/utils/options.js": RENAMED})


@pytest.mark.parametrize("use", ["description || ''", "String(description)"], ids=["operand", "argument"])
@pytest.mark.parametrize("ext", ["js", "ts"])
def test_a_constructor_parameter_named_as_a_removed_method_is_no_use(tmp_path, use, ext):
    """commander.js 30368b8f0416 (prototype functions made a class): the constructor's own parameter
    `description` is no use of the removed `Command.prototype.description` (a class's constructor,
    which the tags define nothing for, is a function scope: profile function_scopes)."""
    before = ("function Option(flags, description) {\n  this.description = USE;\n}\n\n"
              "function Command() {}\n\nCommand.prototype.description = function (str) {\n  return str;\n};\n\n"
              "exports.Option = Option;\nexports.Command = Command;\n")
    after = ("class Option {\n  constructor(flags, description) {\n    this.description = USE;\n  }\n}\n\n"
             "class Command {\n  description(str) {\n    return str;\n  }\n}\n\nexports.Option = Option;\nexports.Command = Command;\n")
    _removal_merged(tmp_path, {f"index.{ext}": before.replace("USE", use)}, {f"index.{ext}": after.replace("USE", use)})
