"""The semantic check follows a bare import of a package of the repository's own workspace
(`import { hasProp } from "@acme/core"`, packages/core/package.json `"name": "@acme/core"`) to the
package's entry file, and on through its re-exports, on real repositories and tree merges.

Before, a bare specifier was taken for a package from outside the tree (`react`): one side renamed
`hasProp` in packages/core/src/util.ts, the other added a call of it in packages/app, git merged it
clean, the landed tree did not build, and the check found nothing."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import make_repo
from tests.merge.clean_merges import tree_merge_findings

UTIL_TS = "export function hasProp(a: any, b: string): boolean {\n    return b in a\n}\n\nexport function noop() {}\n"
RENAMED = UTIL_TS.replace("function hasProp", "function hasOwn")
MAIN_TS = 'import { noop } from "{module}"\n\nexport function run() {\n    noop()\n}\n'
MAIN_USES = 'import { noop, hasProp } from "{module}"\n\nexport function run() {\n    noop()\n    hasProp({}, "x")\n}\n'
NPM_ROOT = '{"private": true, "workspaces": ["packages/*"]}\n'


def _manifest(**fields: object) -> str:
    return json.dumps(fields) + "\n"


def _monorepo(root: dict[str, str], core: dict[str, str], module: str = "@acme/core",
              name: str = "@acme/core", main: str = "src/index.ts") -> dict[str, str]:
    """A workspace: packages/core (its package.json and files) and packages/app importing `module`."""
    files = dict(root)
    files["packages/core/package.json"] = _manifest(name=name, main=main)
    files.update({f"packages/core/{path}": text for path, text in core.items()})
    files["packages/app/package.json"] = _manifest(name="@acme/app", dependencies={name: "workspace:*"})
    files["packages/app/src/main.ts"] = MAIN_TS.replace("{module}", module)
    return files


def _merge(tmp_path: Path, start: dict[str, str], module: str = "@acme/core",
           renamed_in: str = "packages/core/src/util.ts", renamed: str = RENAMED):
    return tree_merge_findings(make_repo(tmp_path / "repo", start), {renamed_in: renamed},
                               {"packages/app/src/main.ts": MAIN_USES.replace("{module}", module)})


CORE = {"src/index.ts": 'export * from "./util"\n', "src/util.ts": UTIL_TS}


def _the_one(found, definition_path: str = "packages/core/src/util.ts") -> None:
    [finding] = found
    assert (finding.name, finding.definition_path, finding.use_path, finding.use_line) == \
        ("hasProp", definition_path, "packages/app/src/main.ts", 5)
    assert finding.replacement == "hasOwn"


# -- the workspace's packages found, and their entry --------------------------------------------------
def test_an_npm_workspace_package_imported_by_its_scoped_name_leads_to_its_entry_and_on(tmp_path: Path) -> None:
    _the_one(_merge(tmp_path, _monorepo({"package.json": NPM_ROOT}, CORE)))


def test_a_yarn_workspace_of_packages_and_an_unscoped_name_whose_main_is_built_output(tmp_path: Path) -> None:
    """`main: dist/index.js` is not in the tree (built): its source src/index.ts is the entry."""
    root = {"package.json": '{"private": true, "workspaces": {"packages": ["packages/*"], "nohoist": []}}\n'}
    start = _monorepo(root, CORE, module="corelib", name="corelib", main="dist/index.js")
    _the_one(_merge(tmp_path, start, module="corelib"))


def test_a_pnpm_workspace_package_whose_types_name_a_bundle_falls_back_to_its_source_index(tmp_path: Path) -> None:
    """vuejs/core's shape: `types: dist/shared.d.ts`, `module: dist/shared.esm-bundler.js`, the source
    at src/index.ts, and an `exports` map of conditions."""
    root = {"package.json": '{"private": true}\n',
            "pnpm-workspace.yaml": "packages:\n  - 'packages/*'\n  - '!packages/old'\n"}
    start = _monorepo(root, CORE)
    start["packages/core/package.json"] = _manifest(
        name="@acme/core", main="index.js", module="dist/core.esm-bundler.js", types="dist/core.d.ts",
        exports={".": {"types": "./dist/core.d.ts", "import": "./dist/core.esm-bundler.js", "require": "./index.js"},
                 "./*": "./*"})
    start["packages/core/index.js"] = "module.exports = require('./dist/core.cjs.js')\n"
    _the_one(_merge(tmp_path, start))


def test_a_subpath_of_a_workspace_package_names_a_file_below_its_source_folder(tmp_path: Path) -> None:
    _the_one(_merge(tmp_path, _monorepo({"package.json": NPM_ROOT}, CORE, module="@acme/core/util"),
                    module="@acme/core/util"))


def test_a_subpath_an_exports_map_lists_is_followed_to_its_source(tmp_path: Path) -> None:
    start = _monorepo({"package.json": NPM_ROOT}, CORE, module="@acme/core/helpers")
    start["packages/core/package.json"] = _manifest(
        name="@acme/core", exports={".": {"import": "./dist/index.mjs"}, "./helpers": {"import": "./dist/util.mjs"}})
    _the_one(_merge(tmp_path, start, module="@acme/core/helpers"))


def test_a_name_the_entry_itself_defines_is_found_there(tmp_path: Path) -> None:
    start = _monorepo({"package.json": NPM_ROOT}, {"src/index.ts": UTIL_TS})
    _the_one(_merge(tmp_path, start, renamed_in="packages/core/src/index.ts"), "packages/core/src/index.ts")


def test_a_nested_glob_finds_a_package_folders_down(tmp_path: Path) -> None:
    start = {"package.json": '{"private": true, "workspaces": ["libs/**"]}\n',
             "libs/shared/core/package.json": _manifest(name="@acme/core", main="src/index.ts"),
             "libs/shared/core/src/index.ts": CORE["src/index.ts"], "libs/shared/core/src/util.ts": UTIL_TS,
             "packages/app/src/main.ts": MAIN_TS.replace("{module}", "@acme/core")}
    _the_one(_merge(tmp_path, start, renamed_in="libs/shared/core/src/util.ts"), "libs/shared/core/src/util.ts")


# -- nothing guessed ------------------------------------------------------------------------------------
def test_a_package_not_in_the_workspace_names_no_file(tmp_path: Path) -> None:
    """`react` is not the workspace's: nothing, although a folder of the tree is called so."""
    start = _monorepo({"package.json": NPM_ROOT}, CORE, module="react")
    start["react/package.json"] = _manifest(name="react", main="index.ts")
    start["react/index.ts"] = 'export * from "../packages/core/src/util"\n'
    assert _merge(tmp_path, start, module="react") == ()


def test_a_package_outside_the_workspace_globs_names_no_file(tmp_path: Path) -> None:
    start = _monorepo({"package.json": '{"private": true, "workspaces": ["apps/*"]}\n'}, CORE)
    assert _merge(tmp_path, start) == ()


def test_a_release_the_importing_package_pins_is_not_the_workspace_package(tmp_path: Path) -> None:
    """An example pinned to the published `^1.0.0` while the workspace's package is at 2.0.0 gets the
    release from the registry; a range the workspace's version satisfies is linked to it."""
    start = _monorepo({"package.json": NPM_ROOT}, CORE)
    start["packages/core/package.json"] = _manifest(name="@acme/core", version="2.0.0", main="src/index.ts")
    start["packages/app/package.json"] = _manifest(name="@acme/app", dependencies={"@acme/core": "^1.0.0"})
    assert _merge(tmp_path / "pinned", start) == ()
    start["packages/app/package.json"] = _manifest(name="@acme/app", devDependencies={"@acme/core": "^2.0.0"})
    _the_one(_merge(tmp_path / "linked", start))


def test_two_workspace_packages_of_one_name_name_no_file(tmp_path: Path) -> None:
    start = _monorepo({"package.json": NPM_ROOT}, CORE)
    start["packages/core-copy/package.json"] = _manifest(name="@acme/core", main="src/index.ts")
    start["packages/core-copy/src/index.ts"] = 'export function other() {}\n'
    assert _merge(tmp_path, start) == ()


def test_an_entry_the_tree_does_not_hold_names_no_file(tmp_path: Path) -> None:
    """`main: dist/index.js`, built from src/main.ts (not src/index.ts): not guessed."""
    core = {"src/main.ts": 'export * from "./util"\n', "src/util.ts": UTIL_TS}
    assert _merge(tmp_path, _monorepo({"package.json": NPM_ROOT}, core, main="dist/index.js")) == ()


def test_a_subpath_the_exports_map_does_not_list_names_no_file(tmp_path: Path) -> None:
    """Node refuses `@acme/core/util` when `exports` lists only ".": not looked for in the folder."""
    start = _monorepo({"package.json": NPM_ROOT}, CORE, module="@acme/core/util")
    start["packages/core/package.json"] = _manifest(name="@acme/core", exports={".": "./src/index.ts"})
    assert _merge(tmp_path, start, module="@acme/core/util") == ()


def test_a_name_a_file_no_side_changed_still_defines_is_not_a_finding(tmp_path: Path) -> None:
    core = {"src/index.ts": 'export * from "./legacy"\nexport * from "./util"\n', "src/util.ts": UTIL_TS,
            "src/legacy.ts": 'export function hasProp(a: any, b: string): boolean {\n    return false\n}\n'}
    assert _merge(tmp_path, _monorepo({"package.json": NPM_ROOT}, core)) == ()


def test_an_import_already_there_with_no_new_use_is_not_a_finding(tmp_path: Path) -> None:
    """The use was there before the merge: the renaming side broke it alone, not the merge."""
    start = _monorepo({"package.json": NPM_ROOT}, CORE)
    start["packages/app/src/main.ts"] = MAIN_USES.replace("{module}", "@acme/core")
    theirs = {"packages/app/src/main.ts": start["packages/app/src/main.ts"] + "\nexport const VERSION = 2\n"}
    found = tree_merge_findings(make_repo(tmp_path / "repo", start), {"packages/core/src/util.ts": RENAMED}, theirs)
    assert found == ()



def test_a_package_one_side_moved_out_of_the_workspace_names_nothing(tmp_path: Path) -> None:
    """The TypeScript form of serde's serde_test: one side deleted packages/core (taken from the
    registry since); the other side's new use of `@acme/core` builds against the registry's package."""
    start = {"package.json": NPM_ROOT,
             "packages/core/package.json": '{"name": "@acme/core", "version": "1.0.0", "main": "src/index.ts"}\n',
             "packages/core/src/index.ts": UTIL_TS,
             "packages/app/package.json": '{"name": "app", "dependencies": {"@acme/core": "*"}}\n',
             "packages/app/src/main.ts": MAIN_TS.replace("{module}", "@acme/core")}
    ours = {"packages/core/package.json": None, "packages/core/src/index.ts": None}
    theirs = {"packages/app/src/main.ts": MAIN_USES.replace("{module}", "@acme/core")}
    assert tree_merge_findings(make_repo(tmp_path / "repo", start), ours, theirs) == ()


# -- socket.io's shape: source in lib/ (tsconfig rootDir), an entry that lists its re-exports ---------
LIB_CORE = {"tsconfig.json": '{\n  "compilerOptions": {\n    "rootDir": "lib/", // the source\n    "outDir": "./dist",\n  },\n}\n',
            "lib/index.ts": 'export { hasProp, noop } from "./util"\n', "lib/util.ts": UTIL_TS}


def test_a_built_entry_leads_to_the_source_folder_the_packages_tsconfig_names(tmp_path: Path) -> None:
    start = _monorepo({"package.json": NPM_ROOT}, LIB_CORE, main="./dist/index.js")
    _the_one(_merge(tmp_path, start, renamed_in="packages/core/lib/util.ts"), "packages/core/lib/util.ts")


def test_a_name_dropped_from_the_entrys_reexport_list_breaks_a_new_use_though_its_definition_stays(
        tmp_path: Path) -> None:
    """One side drops `hasProp` from `export { hasProp, noop } from "./util"` (util.ts, unchanged,
    still defines it); the other side's new import of it from the package fails to build (TS2305)."""
    start = _monorepo({"package.json": NPM_ROOT}, LIB_CORE, main="./dist/index.js")
    found = _merge(tmp_path, start, renamed_in="packages/core/lib/index.ts",
                   renamed='export { noop } from "./util"\n')
    assert [(f.name, f.definition_path, f.use_path) for f in found] == \
        [("hasProp", "packages/core/lib/index.ts", "packages/app/src/main.ts")], found


def test_a_package_name_with_a_dot_is_not_taken_for_a_file_of_the_merge(tmp_path: Path) -> None:
    """socket.io's packages are `socket.io-adapter`, `socket.io-parser`: the name's `.io-adapter` was
    cut as if it were `./util.js`'s extension, and `socket.io-adapter` resolved to engine.io-client's
    lib/socket.ts, a file the run had also changed; the use through the package went unseen."""
    start = _monorepo({"package.json": NPM_ROOT}, LIB_CORE, module="acme.io-core", name="acme.io-core",
                      main="./dist/index.js")
    start["packages/client/lib/acme.ts"] = "export function connect() {\n    return 1\n}\n"
    ours = {"packages/core/lib/util.ts": RENAMED,
            "packages/client/lib/acme.ts": "export function connect() {\n    return 2\n}\n"}
    theirs = {"packages/app/src/main.ts": MAIN_USES.replace("{module}", "acme.io-core")}
    found = tree_merge_findings(make_repo(tmp_path / "repo", start), ours, theirs)
    _the_one(found, "packages/core/lib/util.ts")
