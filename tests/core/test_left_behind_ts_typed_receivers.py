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

from tests.core.test_uses_left_behind import _removal_merged, _removal_refused, _second_finish

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
    # a cast to an interface, or to a class of the file's own
    (STORE + "\nexport interface IStore {\n  putItem(x: number): number;\n}\n",
     'import { IStore } from "./store";\n\nexport function a(s: unknown): number {\n  return (s as IStore).putItem(1);\n}\n'),
    (STORE, "class Store {\n  putItem(): number {\n    return 1;\n  }\n}\n\nexport function a(s: unknown): number {\n"
            "  return (s as Store).putItem();\n}\n"),
], ids=["interface", "base-outside", "own-class", "cast-to-interface", "cast-to-own-class"])
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


@pytest.mark.parametrize("store_path, before, after", [
    # excalidraw d2557474e2a9 (the false block hunt): a field made by an IIFE whose inner function bore its
    # name became an arrow-function field; the field is the instance's member in both
    ("src/store.ts", "export class Store {\n  public putItem = (() => {\n    const putItem = (x: number) => x + 1;\n"
                     "    return putItem;\n  })();\n}\n",
     "export class Store {\n  private inner(x: number): number {\n    return x + 1;\n  }\n"
     "  public putItem = (x: number) => {\n    return this.inner(x);\n  };\n}\n"),
    # a method made a field
    ("src/store.ts", STORE, STORE.replace("  putItem(x: number): number {\n    return x;\n  }\n",
                                          "  putItem = (x: number): number => x;\n")),
    ("src/store.js", "export class Store {\n  putItem(x) {\n    return x;\n  }\n}\n",
     "export class Store {\n  putItem = (x) => x;\n}\n"),
], ids=["iife-field", "method-to-field", "js-method-to-field"])
def test_a_member_that_became_an_instance_field_is_no_use_left_behind(tmp_path, store_path, before, after):
    user_path = store_path.replace("store", "use")
    files = {store_path: before, user_path: f'import {{ Store }} from "./store";\n\n'
                                            "export function a(s) {\n  return new Store().putItem(1);\n}\n"}
    _removal_merged(tmp_path, files, {store_path: after})


# A receiver written another way than its local's name: written down as left last session (`s!.putItem()`
# merged clean). Another class of the tree defines putItem too, so the one definer's reading has nothing
# to say: only the receiver's type does (profile `receiver_forms`).
OTHER = "export class Queue {\n  putItem(x: number): number {\n    return -x;\n  }\n}\n"
FORMS = [
    ("export function a(s?: Store): number {\n  return s!.putItem(1);\n}\n"),
    ("export function a(s?: Store): number {\n  return (s!).putItem(1);\n}\n"),
    ("export function a(s: unknown): number {\n  return (s as Store).putItem(1);\n}\n"),
    ("export function a(s: unknown): number {\n  return (<Store>s).putItem(1);\n}\n"),
]
FORM_IDS = ["non-null", "parenthesised-non-null", "as-cast", "angle-cast"]


@pytest.mark.parametrize("body", FORMS, ids=FORM_IDS)
def test_a_receiver_asserted_or_cast_to_the_class_is_left_behind(tmp_path, body):
    files = {"src/store.ts": STORE, "src/queue.ts": OTHER, "src/use.ts": HEAD + body}
    _, left = _removal_refused(tmp_path, files, "src/store.ts", {"src/store.ts": RENAMED})
    assert len(left) == 1 and left[0].startswith("src/use.ts:4 still uses Store.putItem"), left


@pytest.mark.parametrize("body", FORMS[::2], ids=FORM_IDS[::2])
def test_a_use_so_written_by_another_task_blocks_its_merge(tmp_path, body):
    files = {"src/store.ts": STORE, "src/queue.ts": OTHER, "src/use.ts": HEAD}
    code, result = _second_finish(tmp_path, files, ("a", "src/store.ts", {"src/store.ts": RENAMED}),
                                  ("b", "src/use.ts", {"src/use.ts": HEAD + body}))
    assert code == 1 and [(c["path"], c["semantic"]["name"]) for c in result["conflicts"]] == [("src/use.ts", "Store.putItem")], result


@pytest.mark.parametrize("body", [
    "export function a(s: unknown): number {\n  return (s as Queue).putItem(1);\n}\n",   # cast to the other class
    "export function a(s?: Queue): number {\n  return s!.putItem(1);\n}\n",             # a local of the other class
], ids=["cast-to-other", "non-null-other"])
def test_a_receiver_of_the_other_class_is_no_use(tmp_path, body):
    files = {"src/store.ts": STORE, "src/queue.ts": OTHER,
             "src/use.ts": 'import { Store } from "./store";\nimport { Queue } from "./queue";\n\n' + body}
    _removal_merged(tmp_path, files, {"src/store.ts": RENAMED})
