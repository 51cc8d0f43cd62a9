"""A package's own files importing it by its own name (`import {Draggable} from 'leaflet'` in the
specs of the package named `leaflet`) are users of what its entry exports.

Found driving wtc on Leaflet: its specs import everything from `'leaflet'` (a test config aliases the
name to src/Leaflet.js; package.json's `exports` names the built dist/leaflet-src.js, which the tree
does not hold). A task dropping `export {Draggable} from './Draggable.js'` from src/dom/index.js, or
renaming a function every spec calls, finished clean: the bare specifier was taken for a package from
outside the tree, as `react` is, and three spec files that no longer load went unnamed.

Now a bare specifier naming the package the importer stands in (the nearest package.json above it,
the repository's root one included, workspace or not) leads to that package's entry, as a workspace
package's name does; where the entry's field names built output the tree lacks and no `src/index`
stands, the package's own name is its source entry (`src/leaflet.js`, or capitalized `src/Leaflet.js`,
as a bundle's input is named)."""

from __future__ import annotations

import json

import pytest

from tests.core.test_uses_left_behind import _removal_merged, _removal_refused

DRAGGABLE = "export class Draggable {\n\tenable() {}\n}\n"
DOM_INDEX = "export {Draggable} from './Draggable.js';\nexport {PosAnimation} from './PosAnimation.js';\n"
POS = "export class PosAnimation {}\n"
SPEC = "import {Draggable} from 'leaflet';\n\nexport const drag = new Draggable();\n"
MANIFEST = json.dumps({"name": "leaflet", "type": "module", "exports": {".": "./dist/leaflet-src.js"}}) + "\n"


def _files(entry: str = "src/Leaflet.js", manifest: str = MANIFEST) -> dict[str, str]:
    return {"package.json": manifest, entry: "import pkg from '../package.json' with {type: 'json'};\nexport const version = pkg.version;\n\nexport * from './core/index.js';\nexport * from './dom/index.js';\n", "src/core/index.js": "export const stamp = 1;\n",
            "src/dom/index.js": DOM_INDEX, "src/dom/Draggable.js": DRAGGABLE, "src/dom/PosAnimation.js": POS,
            "spec/DragSpec.js": SPEC}


@pytest.mark.parametrize("entry", ["src/Leaflet.js", "src/leaflet.js", "src/index.js"])
def test_a_name_dropped_from_the_barrel_blocks_the_packages_own_specs_importing_it_by_name(tmp_path, entry):
    _, left = _removal_refused(tmp_path, _files(entry), "src/dom/index.js",
                               {"src/dom/index.js": "export {PosAnimation} from './PosAnimation.js';\n"})
    assert len(left) == 1 and left[0].startswith("spec/DragSpec.js (lines 1, 3: 2 uses) still uses Draggable"), left


def test_the_entry_a_field_names_is_read_first(tmp_path):
    """`main` naming a tracked file: that file is the entry, not the name-alike source file."""
    manifest = json.dumps({"name": "leaflet", "main": "lib/main.js"}) + "\n"
    files = _files(manifest=manifest)
    files["lib/main.js"] = "export {PosAnimation} from '../src/dom/PosAnimation.js';\n"
    # Draggable does not reach the spec through lib/main.js: dropping it from the barrel leaves nothing.
    _removal_merged(tmp_path, files, {"src/dom/index.js": "export {PosAnimation} from './PosAnimation.js';\n"})


def test_another_packages_name_is_not_the_importers_own(tmp_path):
    """A file under a nested package.json named otherwise importing `leaflet` (the published release,
    from the registry) is not a user of the tree's files."""
    files = _files()
    files["examples/demo/package.json"] = json.dumps({"name": "demo", "dependencies": {"leaflet": "^1.9"}}) + "\n"
    files["examples/demo/main.js"] = SPEC
    files["spec/DragSpec.js"] = "export const nothing = 1;\n"
    _removal_merged(tmp_path, files, {"src/dom/index.js": "export {PosAnimation} from './PosAnimation.js';\n"})


# -- a module a barrel binds whole and passes on ------------------------------------------------------
LINE_UTIL = "export function clipSegment(a, b) {\n\treturn [a, b];\n}\n\nexport function isFlat(x) {\n\treturn true;\n}\n"
GEOMETRY_INDEX = "export {Point} from './Point.js';\n\nimport * as LineUtil from './LineUtil.js';\nexport {LineUtil};\n"


@pytest.mark.parametrize("specifier", ["leaflet", "../src/geometry/index.js", "../src/Leaflet.js"])
def test_a_rename_in_a_module_a_barrel_passes_on_whole_blocks_its_member_uses(tmp_path, specifier):
    """`import {LineUtil} from 'leaflet'` then `LineUtil.clipSegment()`, where the barrel binds the
    module whole (`import * as LineUtil`; `export {LineUtil}`): Leaflet's specs, left unnamed by a
    rename of clipSegment."""
    files = {"package.json": MANIFEST, "src/Leaflet.js": "export * from './geometry/index.js';\n",
             "src/geometry/index.js": GEOMETRY_INDEX, "src/geometry/Point.js": "export class Point {}\n",
             "src/geometry/LineUtil.js": LINE_UTIL,
             "spec/LineUtilSpec.js": f"import {{LineUtil}} from '{specifier}';\n\nexport const s = LineUtil.clipSegment(1, 2);\n"}
    _, left = _removal_refused(tmp_path, files, "src/geometry/LineUtil.js",
                               {"src/geometry/LineUtil.js": LINE_UTIL.replace("function clipSegment", "function clipSeg")})
    assert len(left) == 1 and left[0].startswith("spec/LineUtilSpec.js:3 still uses clipSegment"), left


def test_a_member_the_whole_module_keeps_is_no_use_left_behind(tmp_path):
    files = {"package.json": MANIFEST, "src/Leaflet.js": "export * from './geometry/index.js';\n",
             "src/geometry/index.js": GEOMETRY_INDEX, "src/geometry/Point.js": "export class Point {}\n",
             "src/geometry/LineUtil.js": LINE_UTIL,
             "spec/LineUtilSpec.js": "import {LineUtil} from 'leaflet';\n\nexport const s = LineUtil.isFlat(1);\n"}
    _removal_merged(tmp_path, files, {"src/geometry/LineUtil.js": LINE_UTIL.replace("function clipSegment", "function clipSeg")})


def test_a_merge_where_one_side_renames_and_the_other_adds_a_member_use_through_the_barrel(tmp_path):
    """The merge's own check (a drain's, a finish's): integration renamed clipSegment; the task adds
    a spec calling `LineUtil.clipSegment` through the package's own name. git merges it clean."""
    from tests.conftest import make_repo
    from tests.merge.clean_merges import tree_merge_findings

    start = {"package.json": MANIFEST, "src/Leaflet.js": "export * from './geometry/index.js';\n",
             "src/geometry/index.js": GEOMETRY_INDEX, "src/geometry/Point.js": "export class Point {}\n",
             "src/geometry/LineUtil.js": LINE_UTIL, "spec/PointSpec.js": "export const none = 1;\n"}
    found = tree_merge_findings(
        make_repo(tmp_path / "repo", start),
        {"src/geometry/LineUtil.js": LINE_UTIL.replace("function clipSegment", "function clipSeg")},
        {"spec/LineUtilSpec.js": "import {LineUtil} from 'leaflet';\n\nexport const s = LineUtil.clipSegment(1, 2);\n"})
    assert [(f.name, f.definition_path, f.use_path, f.use_line) for f in found] == \
        [("clipSegment", "src/geometry/LineUtil.js", "spec/LineUtilSpec.js", 3)]
