"""TypeScript: a method renamed on a class whose instance another file reaches through a parameter or
local it annotates with the class (`function f(s: Store)`, `let s: Store = make()`), or through the
instance a receiver constructs (`new Store().putItem(3)`), is a use of that method.

Found probing in TypeScript the shape driving wtc on Textualize/rich showed in Python (a renamed
method's calls on receivers whose class the check did not follow merged clean): only
`const s = new Store(); s.putItem()` was followed; a typed parameter, the commonest shape in
TypeScript, was not. grammars/typescript.toml and tsx.toml now spell those locals' class
(`@typed.name`, `@typed.type`), and `constructs` the class a receiver builds; the check follows them
only where sure (a class of the repository, with no base a method could come from).
"""

from __future__ import annotations

import pytest

from tests.core.test_uses_left_behind import _removal_merged, _removal_refused

STORE = ("export class Store {\n  putItem(x: number): number {\n    return x;\n  }\n\n"
         "  other(): number {\n    return 1;\n  }\n}\n")
RENAMED = STORE.replace("putItem(x", "addItem(x")
HEAD = 'import { Store } from "./store";\n\n'


@pytest.mark.parametrize("user, line", [
    (HEAD + "export function a(s: Store): number {\n  return s.putItem(1);\n}\n", 4),
    (HEAD + "export function a(s?: Store): number {\n  return s ? s.putItem(1) : 0;\n}\n", 4),
    (HEAD + "declare function make(): Store;\n\nexport function a(): number {\n  const s: Store = make();\n"
     "  return s.putItem(1);\n}\n", 7),
    (HEAD + "export function c(): number {\n  return new Store().putItem(3);\n}\n", 4),
], ids=["parameter", "optional-parameter", "annotated-local", "constructed"])
def test_a_call_on_a_receiver_of_the_class_is_left_behind(tmp_path, user, line):
    files = {"src/store.ts": STORE, "src/use.ts": user}
    _, left = _removal_refused(tmp_path, files, "src/store.ts", {"src/store.ts": RENAMED})
    assert len(left) == 1 and left[0].startswith(f"src/use.ts:{line} still uses Store.putItem"), left


def test_the_same_in_tsx(tmp_path):
    files = {"src/store.ts": STORE,
             "src/View.tsx": HEAD + "export function View({ s }: { s: Store }) {\n  return <b>{s.other()}</b>;\n}\n\n"
                                    "export function count(s: Store): number {\n  return s.putItem(2);\n}\n"}
    _, left = _removal_refused(tmp_path, files, "src/store.ts", {"src/store.ts": RENAMED})
    assert len(left) == 1 and left[0].startswith("src/View.tsx:8 still uses Store.putItem"), left


@pytest.mark.parametrize("store, user", [
    # an interface is no class: what implements it is not known
    (STORE + "\nexport interface IStore {\n  putItem(x: number): number;\n}\n",
     'import { IStore } from "./store";\n\nexport function a(s: IStore): number {\n  return s.putItem(1);\n}\n'),
    # a class with a base another package gives: the method may be inherited
    ('import { Base } from "framework";\n\n' + STORE.replace("class Store {", "class Store extends Base {"),
     HEAD + "export function a(s: Store): number {\n  return s.putItem(1);\n}\n"),
    # a parameter of another class of the same name, declared in the file
    (STORE, "class Store {\n  putItem(): number {\n    return 1;\n  }\n}\n\nexport function a(s: Store): number {\n"
            "  return s.putItem();\n}\n"),
], ids=["interface", "base-outside", "own-class"])
def test_a_receiver_of_another_type_is_no_use(tmp_path, store, user):
    files = {"src/store.ts": store, "src/use.ts": user}
    _removal_merged(tmp_path, files, {"src/store.ts": store.replace("  putItem(x: number): number {\n    return x;",
                                                                      "  addItem(x: number): number {\n    return x;")})


# The tree's one definer (merge/checks/sole_members.py), as in Python: a receiver of no class the file
# says (a call's result, an untyped JavaScript parameter), in a file importing the class's module.
@pytest.mark.parametrize("store_path, user_path, user, line", [
    ("src/store.ts", "src/use.ts",
     HEAD + "declare function make(): Store;\n\nexport function d(): number {\n  return make().putItem(4);\n}\n", 6),
    ("src/store.js", "src/use.js",
     'import { Store } from "./store.js";\n\nexport function a(s) {\n  return s.putItem(1);\n}\n', 4),
    ("src/store.js", "src/use.js",
     'const { Store } = require("./store.js");\n\nfunction a(registry) {\n  return registry.get(Store).putItem(1);\n}\n'
     "module.exports = { a };\n", 4),
], ids=["ts-call-result", "js-untyped-parameter", "js-require"])
def test_a_member_of_the_one_class_defining_it_is_left_behind(tmp_path, store_path, user_path, user, line):
    store = STORE if store_path.endswith(".ts") else STORE.replace("(x: number): number", "(x)").replace("(): number", "()")
    files = {store_path: store if "require" not in user else store.replace("export class", "class") + "module.exports = { Store };\n",
             user_path: user}
    renamed = files[store_path].replace("putItem(x", "addItem(x")
    _, left = _removal_refused(tmp_path, files, store_path, {store_path: renamed})
    assert len(left) == 1 and left[0].startswith(f"{user_path}:{line} still uses Store.putItem"), left


@pytest.mark.parametrize("more, user", [
    # an object literal writing the member: another object answers it
    ({"src/fake.ts": "export const fake = { putItem: (x: number) => x };\n"},
     HEAD + "export function a(s: any): number {\n  return s.putItem(1);\n}\n"),
    # another class defines it
    ({"src/other.ts": "export class Other {\n  putItem(x: number): number {\n    return x;\n  }\n}\n"},
     HEAD + "export function a(s: any): number {\n  return s.putItem(1);\n}\n"),
    # a name a package outside the tree binds: its object's member
    ({}, HEAD + 'import lib from "lib";\n\nexport function a(): number {\n  return lib.putItem(1);\n}\n'),
    # the file does not import the class's module
    ({}, "export function a(s: any): number {\n  return s.putItem(1);\n}\n"),
], ids=["object-literal", "two-definers", "package-import", "no-import"])
def test_an_unsure_receiver_is_no_use(tmp_path, more, user):
    files = {"src/store.ts": STORE, "src/use.ts": user, **more}
    _removal_merged(tmp_path, files, {"src/store.ts": RENAMED})
