"""A name a task stops exporting, still imported by a file it did not change, blocks (left_behind.py).

Found driving wtc on npm/cli and pdf.js: a task dropped `b` from `export { a, b }` (the function
stayed in the file), turned `export default X` into `export { X }`, or took `x` out of
`module.exports = { x, y }`; files no task touched still imported them, task check and finish
were clean, and the landed tree did not load. In a module language only what a file exports can
be imported (profile `[semantic] exports`): a name no longer exported is removed for its
importers, though the file still defines it for itself.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import make_repo, wtc
from tests.core.test_uses_left_behind import _removal_refused

M = ("function a() {\n  return 1;\n}\n\nfunction b() {\n  return 2;\n}\n\n"
     "export { a, b };\n")
USER = 'import { b } from "./m.js";\n\nexport function run() {\n  return b();\n}\n'


def _quiet(tmp_path: Path, files: dict[str, str], own: str, edits: dict[str, str]) -> None:
    """A task owning `own` writes `edits`: its check and its finish name no use left behind."""
    repo = make_repo(tmp_path / "repo", files)
    assert wtc(repo, "run", "start", "--run", "r1")[0] == 0
    code, body = wtc(repo, "task", "start", "t", "--run", "r1", "--own", own)
    assert code == 0, body
    for path, text in edits.items():
        (Path(body["worktree"]) / path).write_text(text)
    code, check = wtc(repo, "task", "check", "t", "--run", "r1")
    assert code == 0 and not check["left_behind"], check
    code, body = wtc(repo, "task", "finish", "t", "--run", "r1")
    assert (code, body["state"]) == (0, "merged"), body
    assert not [note for note in body["notes"] if "still use" in note], body["notes"]


# -- ES modules: a name dropped from the exports ------------------------------------------------

def test_a_name_dropped_from_an_export_list_while_another_file_imports_it_is_refused(tmp_path):
    files = {"src/m.js": M, "src/user.js": USER}
    _, left = _removal_refused(tmp_path, files, "/src/m.js", {"src/m.js": M.replace("export { a, b }", "export { a }")})
    assert len(left) == 1 and left[0].startswith("src/user.js (lines 1, 4: 2 uses) still uses b"), left
    assert "src/m.js" in left[0], left


def test_an_export_alias_changed_while_another_file_imports_the_old_alias_is_refused(tmp_path):
    files = {"src/m.js": M.replace("export { a, b }", "export { a, b as two }"),
             "src/user.js": USER.replace("{ b }", "{ two }").replace("b()", "two()")}
    _, left = _removal_refused(tmp_path, files, "/src/m.js",
                               {"src/m.js": files["src/m.js"].replace("b as two", "b as second")})
    assert len(left) == 1 and left[0].startswith("src/user.js (lines 1, 4: 2 uses) still uses two"), left
    assert "which this task no longer exports from src/m.js (it exports second instead, it seems)" in left[0], left
    assert "export two again, or the lead widens the task" in left[0], left


def test_an_exported_function_made_private_while_a_typescript_file_imports_it_is_refused(tmp_path):
    files = {"src/m.ts": "export function parse(text: string): number {\n  return text.length;\n}\n\n"
                         "export function other(): number {\n  return 1;\n}\n",
             "src/user.ts": 'import { parse } from "./m";\n\nexport const n = parse("x");\n'}
    _, left = _removal_refused(tmp_path, files, "/src/m.ts",
                               {"src/m.ts": files["src/m.ts"].replace("export function parse", "function parse")})
    assert len(left) == 1 and left[0].startswith("src/user.ts (lines 1, 3: 2 uses) still uses parse"), left


def test_a_name_exported_by_another_statement_of_the_file_is_not_left_behind(tmp_path):
    after = M.replace("export { a, b }", "export { a }") + "\nexport { b };\n"
    _quiet(tmp_path, {"src/m.js": M, "src/user.js": USER}, "/src/m.js", {"src/m.js": after})


def test_a_name_the_other_files_only_mention_in_a_comment_a_string_or_a_local_is_not_left_behind(tmp_path):
    files = {"src/m.js": M,
             "src/notes.js": '// b is exported by m.js\nexport const TEXT = "b";\n',
             "src/local.js": "function b() {\n  return 3;\n}\n\nexport const v = b();\n",
             "src/other.js": 'import { a } from "./m.js";\n\nexport const w = a();\n'}
    _quiet(tmp_path, files, "/src/m.js", {"src/m.js": M.replace("export { a, b }", "export { a }")})


# -- default and named exports -------------------------------------------------------------------

def test_a_default_export_made_a_named_one_while_another_file_imports_the_default_is_refused(tmp_path):
    files = {"src/handler.js": "function handler(req) {\n  return req;\n}\n\nexport default handler;\n",
             "src/app.js": 'import handler from "./handler.js";\n\nexport const routes = [handler];\n'}
    _, left = _removal_refused(tmp_path, files, "/src/handler.js",
                               {"src/handler.js": files["src/handler.js"].replace("export default handler",
                                                                                   "export { handler }")})
    assert len(left) == 1 and left[0].startswith("src/app.js (lines 1, 3: 2 uses) still uses handler"), left
    assert "src/handler.js" in left[0], left


def test_a_named_export_made_the_default_while_another_file_imports_it_by_name_is_refused(tmp_path):
    files = {"src/handler.js": "export function handler(req) {\n  return req;\n}\n",
             "src/app.js": 'import { handler } from "./handler.js";\n\nexport const routes = [handler];\n'}
    _, left = _removal_refused(tmp_path, files, "/src/handler.js",
                               {"src/handler.js": files["src/handler.js"].replace("export function",
                                                                                   "export default function")})
    assert len(left) == 1 and left[0].startswith("src/app.js (lines 1, 3: 2 uses) still uses handler"), left


def test_a_default_export_kept_under_another_form_is_not_left_behind(tmp_path):
    files = {"src/handler.js": "function handler(req) {\n  return req;\n}\n\nexport default handler;\n",
             "src/app.js": 'import handler from "./handler.js";\n\nexport const routes = [handler];\n'}
    after = "export default function handler(req) {\n  return req;\n}\n"
    _quiet(tmp_path, files, "/src/handler.js", {"src/handler.js": after})


def test_a_default_export_whose_function_is_renamed_is_not_left_behind(tmp_path):
    files = {"src/handler.js": "function handler(req) {\n  return req;\n}\n\nexport default handler;\n",
             "src/app.js": 'import handler from "./handler.js";\n\nexport const routes = [handler];\n'}
    _quiet(tmp_path, files, "/src/handler.js", {"src/handler.js": files["src/handler.js"].replace("handler", "handle")})


# -- through a barrel ----------------------------------------------------------------------------

def test_a_name_dropped_from_the_exports_is_refused_through_an_export_star_barrel(tmp_path):
    files = {"src/m.js": M, "src/index.js": 'export * from "./m.js";\n',
             "lib/user.js": 'import { b } from "../src/index.js";\n\nexport const v = b();\n'}
    _, left = _removal_refused(tmp_path, files, "/src/m.js", {"src/m.js": M.replace("export { a, b }", "export { a }")})
    assert len(left) == 1 and left[0].startswith("lib/user.js (lines 1, 3: 2 uses) still uses b"), left


CLUSTER = ("export enum MessageType {\n  A = 1,\n}\n\nexport function send(t: MessageType): number {\n"
           "  return t;\n}\n")
WORKSPACE = {
    "package.json": '{"name": "root", "private": true, "workspaces": ["packages/*"]}\n',
    "packages/adapter/package.json": '{"name": "adapter", "version": "1.0.0", "main": "./dist/index.js", '
                                     '"types": "./dist/index.d.ts"}\n',
    "packages/adapter/tsconfig.json": '{"compilerOptions": {"rootDir": "lib/", "outDir": "./dist"}}\n',
    "packages/adapter/lib/index.ts": 'export * from "./cluster";\n',
    "packages/adapter/lib/cluster.ts": CLUSTER,
    "packages/server/package.json": '{"name": "server", "version": "1.0.0", "dependencies": {"adapter": "^1.0.0"}}\n',
}


@pytest.mark.parametrize("user, module", [
    ("packages/adapter/lib/user.ts", "./index"),     # the same package, through its barrel
    ("packages/server/lib/index.ts", "adapter"),     # another workspace package, by its name
], ids=["same-package", "workspace-package"])
def test_a_declaration_made_private_behind_an_export_star_barrel_is_refused(tmp_path, user, module):
    """Found driving wtc on socket.io: a task dropped `export` from an enum of socket.io-adapter's
    cluster-adapter.ts, which `export * from "./cluster-adapter"` passed on; the file still spells the
    name, so no importer was read and task check was clean."""
    files = {**WORKSPACE, user: f'import {{ MessageType }} from "{module}";\n\nexport const y = MessageType.A;\n'}
    _, left = _removal_refused(tmp_path, files, "/packages/adapter/lib/cluster.ts", {
        "packages/adapter/lib/cluster.ts": CLUSTER.replace("export enum MessageType", "enum MessageType")})
    assert len(left) == 1 and left[0].startswith(f"{user} (lines 1, 3: 2 uses) still uses MessageType"), left
    assert "no longer exports from packages/adapter/lib/cluster.ts" in left[0], left


def test_a_declaration_whose_line_only_lost_a_parameter_behind_a_barrel_is_not_left_behind(tmp_path):
    """The widened read (a line that only lost words) never invents a use: `send` still exported."""
    files = {**WORKSPACE, "packages/server/lib/index.ts": 'import { send } from "adapter";\n\n'
                                                         'export const x = send(1);\n'}
    _quiet(tmp_path, files, "/packages/adapter/lib/cluster.ts", {
        "packages/adapter/lib/cluster.ts": CLUSTER.replace("send(t: MessageType)", "send()").replace("return t;", "return 1;")})


def test_a_name_a_barrel_still_re_exports_from_another_module_is_not_left_behind(tmp_path):
    files = {"src/m.js": M, "src/n.js": "export function b() {\n  return 9;\n}\n",
             "src/index.js": 'export { a } from "./m.js";\nexport { b } from "./n.js";\n',
             "lib/user.js": 'import { b } from "../src/index.js";\n\nexport const v = b();\n'}
    _quiet(tmp_path, files, "/src/m.js", {"src/m.js": M.replace("export { a, b }", "export { a }")})


def test_a_name_dropped_from_the_exports_is_refused_through_a_named_re_export(tmp_path):
    files = {"src/m.js": M, "src/index.js": 'export { a, b } from "./m.js";\n',
             "lib/user.js": 'import { b } from "../src/index.js";\n\nexport const v = b();\n'}
    _, left = _removal_refused(tmp_path, files, "/src/m.js", {"src/m.js": M.replace("export { a, b }", "export { a }")})
    # the barrel's own re-export of it no longer loads either
    assert len(left) == 1 and left[0].startswith("lib/user.js (lines 1, 3), src/index.js:1 still use b"), left


# -- CommonJS ------------------------------------------------------------------------------------

CJS = "function x() {\n  return 1;\n}\n\nfunction y() {\n  return 2;\n}\n\nmodule.exports = { x, y };\n"


def test_a_name_dropped_from_module_exports_while_a_destructured_require_uses_it_is_refused(tmp_path):
    files = {"lib/m.js": CJS, "lib/user.js": "const { y } = require('./m.js');\n\nmodule.exports = () => y();\n"}
    _, left = _removal_refused(tmp_path, files, "/lib/m.js", {"lib/m.js": CJS.replace("{ x, y }", "{ x }")})
    assert len(left) == 1 and left[0].startswith("lib/user.js (lines 1, 3: 2 uses) still uses y"), left


def test_an_exports_assignment_removed_while_a_require_member_uses_it_is_refused(tmp_path):
    m = "function x() {\n  return 1;\n}\n\nexports.x = x;\nexports.z = 3;\n"
    files = {"lib/m.js": m, "lib/user.js": "const x = require('./m').x;\n\nmodule.exports = () => x();\n"}
    _, left = _removal_refused(tmp_path, files, "/lib/m.js", {"lib/m.js": m.replace("exports.x = x;\n", "")})
    assert len(left) == 1 and left[0].startswith("lib/user.js"), left


def test_a_commonjs_name_still_exported_by_another_assignment_is_not_left_behind(tmp_path):
    files = {"lib/m.js": CJS, "lib/user.js": "const { y } = require('./m.js');\n\nmodule.exports = () => y();\n"}
    after = CJS.replace("{ x, y }", "{ x }") + "module.exports.y = y;\n"
    _quiet(tmp_path, files, "/lib/m.js", {"lib/m.js": after})


def test_a_module_exports_no_pattern_lists_is_not_left_behind(tmp_path):
    files = {"lib/m.js": CJS, "lib/user.js": "const { y } = require('./m.js');\n\nmodule.exports = () => y();\n"}
    after = CJS.replace("module.exports = { x, y };", "module.exports = Object.freeze(makeApi({ x }));")
    _quiet(tmp_path, files, "/lib/m.js", {"lib/m.js": after})


def test_a_name_dropped_from_module_exports_while_a_required_module_s_member_uses_it_is_refused(tmp_path):
    """npm/cli's commonest shape: `const m = require('./m')`, then `m.y()`."""
    files = {"lib/m.js": CJS, "lib/user.js": "const m = require('./m.js');\n\nmodule.exports = () => m.y();\n"}
    _, left = _removal_refused(tmp_path, files, "/lib/m.js", {"lib/m.js": CJS.replace("{ x, y }", "{ x }")})
    assert len(left) == 1 and left[0].startswith("lib/user.js:3 still uses y"), left


def test_a_member_of_a_required_module_whose_exports_no_pattern_lists_is_not_left_behind(tmp_path):
    m = "function y() {\n  return 2;\n}\n\nmodule.exports = makeApi(y);\n"
    files = {"lib/m.js": m, "lib/user.js": "const m = require('./m.js');\n\nmodule.exports = () => m.y();\n"}
    _quiet(tmp_path, files, "/lib/m.js", {"lib/m.js": m.replace("function y() {\n  return 2;\n}\n\n", "").replace("(y)", "()")})


def test_a_required_module_s_member_passed_as_a_value_is_a_use(tmp_path):
    """npm/cli drive: `list.filter(funding.isValidFunding)`; isValidFunding left module.exports."""
    files = {"lib/m.js": CJS, "lib/user.js": "const m = require('./m.js');\n\nmodule.exports = (l) => l.filter(m.y);\n"}
    _, left = _removal_refused(tmp_path, files, "/lib/m.js", {"lib/m.js": CJS.replace("{ x, y }", "{ x }")})
    assert len(left) == 1 and left[0].startswith("lib/user.js:3 still uses y"), left


def test_task_check_reads_the_uses_where_integration_moved_an_export_list_to_a_barrel(tmp_path):
    """Found driving wtc on socket.io: one task made socket.io-adapter's `export { ... } from
    "./cluster-adapter"` an `export *` barrel and merged; another dropped `export` from an enum there.
    Task check read the uses at the pin (the list's line), dropped it as no longer at the integration
    tip, never read the barrel's importers there, and said clean; the finish was refused."""
    files = {**WORKSPACE, "packages/adapter/lib/index.ts": 'export { MessageType, send } from "./cluster";\n',
             "packages/server/lib/index.ts": 'import { MessageType } from "adapter";\n\nexport const x = MessageType.A;\n'}
    repo = make_repo(tmp_path / "repo", files)
    assert wtc(repo, "run", "start", "--run", "r1")[0] == 0
    code, barrel = wtc(repo, "task", "start", "barrel", "--run", "r1", "--own", "/packages/adapter/lib/index.ts")
    assert code == 0, barrel
    code, private = wtc(repo, "task", "start", "private", "--run", "r1", "--own", "/packages/adapter/lib/cluster.ts")
    assert code == 0, private
    (Path(barrel["worktree"]) / "packages/adapter/lib/index.ts").write_text('export * from "./cluster";\n')
    assert wtc(repo, "task", "finish", "barrel", "--run", "r1")[1]["state"] == "merged"
    (Path(private["worktree"]) / "packages/adapter/lib/cluster.ts").write_text(
        CLUSTER.replace("export enum MessageType", "enum MessageType"))
    code, check = wtc(repo, "task", "check", "private", "--run", "r1")
    assert code == 1 and [f["use_path"] for f in check["left_behind"]] == ["packages/server/lib/index.ts"], check
    code, body = wtc(repo, "task", "finish", "private", "--run", "r1")
    assert (code, body["state"]) == (1, "conflict"), body
