"""A barrel that binds a module whole in one line, `export * as LineUtil from './LineUtil.js'`, is
followed as `import * as LineUtil from './LineUtil.js'; export {LineUtil}` is (reexports.whole_modules):
`import {LineUtil} from 'leaflet'; LineUtil.clipSegment()` reads LineUtil.js's clipSegment, so its
rename blocks at `task check`, at the finish, and in the merge's own check (trust-left9's note: the
one-line form was not read, and a rename of clipSegment passed every face). JavaScript and TypeScript.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import make_repo
from tests.core.test_uses_left_behind import _removal_merged, _removal_refused
from tests.merge.clean_merges import tree_merge_findings

MANIFEST = json.dumps({"name": "leaflet", "type": "module", "exports": {".": "./dist/leaflet-src.js"}}) + "\n"
LINE_UTIL = "export function clipSegment(a, b) {\n\treturn [a, b];\n}\n\nexport function isFlat(x) {\n\treturn true;\n}\n"
RENAMED = LINE_UTIL.replace("function clipSegment", "function clipSeg")


def _files(ext: str, specifier: str, member: str = "clipSegment") -> dict[str, str]:
    return {"package.json": MANIFEST, f"src/Leaflet.{ext}": f"export * from './geometry/index.{ext}';\n",
            f"src/geometry/index.{ext}": f"export {{Point}} from './Point.{ext}';\n\nexport * as LineUtil from './LineUtil.{ext}';\n",
            f"src/geometry/Point.{ext}": "export class Point {}\n",
            f"src/geometry/LineUtil.{ext}": LINE_UTIL,
            f"spec/LineUtilSpec.{ext}": f"import {{LineUtil}} from '{specifier}';\n\nexport const s = LineUtil.{member}(1, 2);\n"}


@pytest.mark.parametrize("ext, specifier", [("js", "leaflet"), ("js", "../src/geometry/index.js"),
                                            ("ts", "../src/geometry/index"), ("ts", "../src/Leaflet")])
def test_a_rename_in_a_module_a_barrel_exports_whole_in_one_line_blocks_its_member_uses(tmp_path, ext, specifier):
    _, left = _removal_refused(tmp_path, _files(ext, specifier), f"src/geometry/LineUtil.{ext}",
                               {f"src/geometry/LineUtil.{ext}": RENAMED})
    assert len(left) == 1 and left[0].startswith(f"spec/LineUtilSpec.{ext}:3 still uses clipSegment"), left


def test_a_member_the_module_keeps_is_no_use_left_behind(tmp_path):
    _removal_merged(tmp_path, _files("js", "leaflet", "isFlat"), {"src/geometry/LineUtil.js": RENAMED})


@pytest.mark.parametrize("ext", ["js", "ts"])
def test_the_merge_check_names_a_new_member_use_through_the_one_line_barrel(tmp_path, ext):
    """Integration renamed clipSegment; the task adds a spec calling `LineUtil.clipSegment` through
    the barrel. git merges it clean; the merge's check (a finish's, a drain's) blocks it."""
    start = _files(ext, "leaflet")
    spec = start.pop(f"spec/LineUtilSpec.{ext}")
    start[f"spec/PointSpec.{ext}"] = "export const none = 1;\n"
    found = tree_merge_findings(make_repo(tmp_path / "repo", start), {f"src/geometry/LineUtil.{ext}": RENAMED},
                                {f"spec/LineUtilSpec.{ext}": spec.replace("'leaflet'", f"'../src/geometry/index{'.js' if ext == 'js' else ''}'")})
    assert [(f.name, f.definition_path, f.use_path, f.use_line) for f in found] == \
        [("clipSegment", f"src/geometry/LineUtil.{ext}", f"spec/LineUtilSpec.{ext}", 3)]
