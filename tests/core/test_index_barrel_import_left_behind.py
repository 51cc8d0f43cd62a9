"""A re-export dropped from an index barrel blocks importers whose path does not spell its folder.

Found driving wtc on Chart.js: the post-merge check reads a file's uses of a removed name only
when its text spells the removed file's module token; an index file's token is its folder's name
(`src` for src/index.ts), which `import {formatNumber} from '../index.js'` (from src/c/) or
`'./index.js'` (from src/) does not spell. A task dropping `export {formatNumber} from
'./intl.js'` from src/index.ts finished clean and the landed tree did not type-check, while the
same files under lib/x/ were blocked (there b"x" happened to be inside the word "index").
"""

from __future__ import annotations

import pytest

from tests.core.test_uses_left_behind import _removal_refused

INTL = "export function formatNumber(n: number): string {\n  return String(n);\n}\n"
INDEX = "export {formatNumber} from './intl.js';\nexport const version = 1;\n"


@pytest.mark.parametrize("user_path, specifier", [
    ("src/c/user.ts", "../index.js"),
    ("src/user.ts", "./index.js"),
], ids=["from-a-subfolder", "from-beside-it"])
def test_a_reexport_dropped_from_src_index_blocks_an_importer_not_spelling_src(tmp_path, user_path, specifier):
    files = {"src/intl.ts": INTL, "src/index.ts": INDEX,
             user_path: f"import {{formatNumber}} from '{specifier}';\n\nexport const s = formatNumber(1);\n"}
    _, left = _removal_refused(tmp_path, files, "src/index.ts", {"src/index.ts": "export const version = 1;\n"})
    assert len(left) == 1 and left[0].startswith(f"{user_path} (lines 1, 3: 2 uses) still uses formatNumber"), left
