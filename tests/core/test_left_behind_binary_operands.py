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
