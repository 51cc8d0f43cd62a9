"""A use of a removed name left in a file the task itself changed, or added, blocks as one in a file
it did not change does.

Found driving wtc on Leaflet: a task renamed `isFlat` to `isFlatLatLngs` in LineUtil.js, updated the
callers but one, and had touched that one (PolyUtil.js) elsewhere: `task check` said clean (the look
read only files the task had not changed), the finish refused it (its look reads the merged tree).
And a rename that left a call in the renaming file itself (`polylineCenter`'s `isFlat(latlngs)`, an
untouched line of LineUtil.js) was clean at every face: the landed module threw ReferenceError.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import git, make_repo, wtc_in_process
from tests.core.test_uses_left_behind import _removal_merged, _removal_refused

LINE_UTIL = ("export function isFlat(latlngs) {\n\treturn !Array.isArray(latlngs[0]);\n}\n\n"
             "export function center(latlngs) {\n\tif (!isFlat(latlngs)) {\n\t\treturn null;\n\t}\n\treturn latlngs[0];\n}\n")
POLY_UTIL = ("import * as LineUtil from './LineUtil.js';\n\nexport function clip(points) {\n\treturn points;\n}\n\n"
             "export function flat(latlngs) {\n\treturn LineUtil.isFlat(latlngs);\n}\n")
JS = {"src/LineUtil.js": LINE_UTIL, "src/PolyUtil.js": POLY_UTIL}
RENAMED_ALL = LINE_UTIL.replace("function isFlat(", "function isFlatLatLngs(").replace("!isFlat(", "!isFlatLatLngs(")
RENAMED_DEFINITION = LINE_UTIL.replace("function isFlat(", "function isFlatLatLngs(")


def test_a_use_left_in_another_file_the_task_changed_is_named_at_task_check(tmp_path):
    edits = {"src/LineUtil.js": RENAMED_ALL,
             "src/PolyUtil.js": POLY_UTIL.replace("\treturn points;", "\treturn points.slice();")}
    _, left = _removal_refused(tmp_path, JS, ("src/LineUtil.js", "src/PolyUtil.js"), edits)
    assert len(left) == 1 and left[0].startswith("src/PolyUtil.js:8 still uses isFlat"), left
    assert "update the use in src/PolyUtil.js" in left[0], left


def test_a_use_left_in_the_renaming_file_itself_is_named(tmp_path):
    edits = {"src/LineUtil.js": RENAMED_DEFINITION,
             "src/PolyUtil.js": POLY_UTIL.replace("LineUtil.isFlat(", "LineUtil.isFlatLatLngs(")}
    repo, left = _removal_refused(tmp_path, JS, ("src/LineUtil.js", "src/PolyUtil.js"), edits)
    assert len(left) == 1 and left[0].startswith("src/LineUtil.js:6 still uses isFlat"), left


def test_a_file_the_task_added_that_calls_the_old_name_is_named(tmp_path):
    edits = {"src/LineUtil.js": RENAMED_ALL,
             "src/PolyUtil.js": POLY_UTIL.replace("LineUtil.isFlat(", "LineUtil.isFlatLatLngs("),
             "src/Extra.js": "import {isFlat} from './LineUtil.js';\n\nexport const e = isFlat([]);\n"}
    _, left = _removal_refused(tmp_path, JS, ("src/**",), edits)
    assert len(left) == 1 and left[0].startswith("src/Extra.js (lines 1, 3: 2 uses) still uses isFlat"), left


PY = {"pkg/__init__.py": "",
      "pkg/a.py": "def f(x):\n    return x\n\n\ndef g(y):\n    return f(y) + 1\n",
      "pkg/b.py": "from .a import f\n\n\ndef h():\n    return 1\n\n\ndef k():\n    return f(2)\n"}


def test_python_the_renaming_module_and_another_changed_module_both_named(tmp_path):
    edits = {"pkg/a.py": PY["pkg/a.py"].replace("def f(", "def f2("),
             "pkg/b.py": PY["pkg/b.py"].replace("return 1", "return 2")}
    _, left = _removal_refused(tmp_path, PY, ("pkg/**",), edits)
    # one note for the name (what replaced it read from b.py's finding for a.py's too)
    assert len(left) == 1 and left[0].startswith("pkg/a.py:6, pkg/b.py (lines 1, 9) still use f, which this task "
                                                 "removed or renamed (to f2, it seems)"), left


@pytest.mark.parametrize("a_after", [
    # every use renamed too
    "def f2(x):\n    return x\n\n\ndef g(y):\n    return f2(y) + 1\n",
    # the old name kept as an alias
    "def f2(x):\n    return x\n\n\nf = f2\n\n\ndef g(y):\n    return f(y) + 1\n",
    # a parameter of the old name, in the function that uses it
    "def f2(x):\n    return x\n\n\ndef g(y, f=f2):\n    return f(y) + 1\n",
    # the old name imported from elsewhere now
    "from .c import f\n\n\ndef f2(x):\n    return x\n\n\ndef g(y):\n    return f(y) + 1\n",
], ids=["renamed", "alias", "parameter", "imported"])
def test_nothing_is_named_where_the_changed_files_answer_the_name(tmp_path, a_after):
    files = dict(PY, **{"pkg/c.py": "def f(x):\n    return x\n"})
    body = _removal_merged(tmp_path, files, {"pkg/a.py": a_after,
                                             "pkg/b.py": PY["pkg/b.py"].replace("from .a import f", "from .c import f")})
    assert not any("still use" in note for note in body["notes"]), body["notes"]


GEOJSON = ("export function coordsToLatLng(c) {\n\treturn c;\n}\n\n"
           "export class GeoJSON {\n\tstatic toLayer(geojson, options) {\n\t\treturn 1;\n\t}\n}\n")
MOVED_IN = ("export class GeoJSON {\n\tstatic toLayer(geojson, options) {\n"
            "\t\tconst f = options?.coordsToLatLng ?? GeoJSON.coordsToLatLng;\n\t\treturn f(geojson);\n\t}\n\n"
            "\tstatic coordsToLatLng(c) {\n\t\treturn c;\n\t}\n}\n")


def test_a_member_read_through_optional_chaining_is_no_bare_use(tmp_path):
    """Leaflet's GeoJSON.js moved `coordsToLatLng` into the class as a static method and read
    `options?.coordsToLatLng`: the `?.` made the member a bare name (its receiver was the `?.`
    token), and the renaming file was said to use the name it had removed."""
    body = _removal_merged(tmp_path, {"src/GeoJSON.js": GEOJSON}, {"src/GeoJSON.js": MOVED_IN})
    assert not any("still use" in note for note in body["notes"]), body["notes"]


def test_a_merge_adding_an_optional_member_of_a_removed_top_level_name_is_clean(tmp_path):
    from tests.merge.clean_merges import tree_merge_findings

    start = {"src/GeoJSON.js": GEOJSON + "\nexport function other(o) {\n\treturn o;\n}\n"}
    found = tree_merge_findings(
        make_repo(tmp_path / "repo", start),
        {"src/GeoJSON.js": start["src/GeoJSON.js"].replace("export function coordsToLatLng(c) {\n\treturn c;\n}\n\n", "")},
        {"src/GeoJSON.js": start["src/GeoJSON.js"].replace("\treturn o;", "\treturn o?.coordsToLatLng;")})
    assert found == (), found


def test_a_named_function_expression_calling_itself_is_no_use_left_behind(tmp_path):
    """Leaflet's Map.TapHold.js turned `_cancelClickPrevent: function _cancelClickPrevent() {...}` of an
    object into a class field holding the same named function expression, which names itself inside."""
    before = ("export function _cancel() {\n\toff(_cancel);\n}\n\nexport class TapHold {\n\trun() {\n\t\treturn 1;\n\t}\n}\n"
              "function off(f) {\n\treturn f;\n}\n")
    after = ("export class TapHold {\n\trun() {\n\t\treturn 1;\n\t}\n\n\t_cancel = function _cancel() {\n\t\toff(_cancel);\n\t};\n}\n"
             "function off(f) {\n\treturn f;\n}\n")
    body = _removal_merged(tmp_path, {"src/TapHold.js": before}, {"src/TapHold.js": after})
    assert not any("still use" in note for note in body["notes"]), body["notes"]
