"""Python: a method renamed on a class whose instances other files reach through a local whose class
is evident (`store = ErrorStore()`, or a parameter `store: ErrorStore`) is a use of that method.

Found on marshmallow: `ErrorStore.store_error` renamed in error_store.py; schema.py calls
`error_store.store_error(...)` on a parameter annotated `error_store: ErrorStore` and the check was
clean. grammars/python.toml now spells those locals' class (`@typed.name`, `@typed.type`), and the
semantic check follows a call on one to the class a module of the repository declares, only where
sure (the cases not sure are checked here with a second class defining the method; with none, the
look takes the tree's one definer: test_sole_member_left_behind.py): every binding of the local in its scope spells that one class, the class has no base (a
method it lost may be inherited), a name the file imports (`from m import C`) is a class of m's
file (not a factory function).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.ci.ci_helpers import commit_all, run_wtc
from tests.conftest import git, make_repo, write, wtc
from tests.core.test_uses_left_behind import _task_edited

STORE = "class ErrorStore:\n    def __init__(self):\n        self.errors = {}\n\n    def store_error(self, m):\n        self.errors.update(m)\n"
RENAMED = STORE.replace("store_error", "record_error")
HEAD = "from pkg.error_store import ErrorStore\n\n\n"


# Another class defining the method: where the local's class is not sure, which one a call means is not
# known either (with no other, the tree's one definer is meant: sole_members.py, test_sole_member_left_behind.py).
OTHER = {"pkg/other_store.py": "class OtherStore:\n    def store_error(self, m):\n        return m\n"}


def _check(tmp_path: Path, schema: str, store_after: str = RENAMED,
           store_before: str = STORE, more: dict[str, str] | None = None) -> tuple[int, list[tuple[str, int | None, str]]]:
    repo = make_repo(tmp_path / "repo", {"pkg/__init__.py": "", "pkg/error_store.py": store_before,
                                         "pkg/schema.py": schema, **(more or {})})
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {"pkg/error_store.py": store_after})
    commit_all(repo, "feature: store_error renamed")
    done = run_wtc(repo, "check", "--own", "**", "--head", "feature", "--target", "main", "--json")
    body = json.loads(done.stdout)
    return done.returncode, [(f["path"], f["start_line"], f["rule"]) for f in body["findings"]]


def test_a_call_on_a_local_made_by_the_classs_constructor_blocks_at_task_check(tmp_path: Path) -> None:
    schema = HEAD + "def load():\n    store = ErrorStore()\n    store.store_error({})\n"
    repo = _task_edited(tmp_path, {"pkg/__init__.py": "", "pkg/error_store.py": STORE, "pkg/schema.py": schema},
                        "rm", ("pkg/error_store.py",), {"pkg/error_store.py": RENAMED}, None)
    code, body = wtc(repo, "task", "check", "rm", "--run", "r1")
    assert code == 1 and body["left_behind_blocks"] is True, body
    assert [(row["use_path"], row["use_lines"], row["name"]) for row in body["left_behind"]] == \
        [("pkg/schema.py", [6], "ErrorStore.store_error")]


@pytest.mark.parametrize("schema,line", [
    (HEAD + "def load(store: ErrorStore):\n    store.store_error({})\n", 5),                      # annotated
    (HEAD + "def load(store: ErrorStore = None):\n    store.store_error({})\n", 5),
    ("import pkg.error_store as es\n\n\ndef load():\n    store = es.ErrorStore()\n    store.store_error({})\n", 6),
], ids=["parameter", "default-parameter", "module-qualified"])
def test_a_call_on_a_local_of_evident_class_blocks_wtc_check(tmp_path: Path, schema: str, line: int) -> None:
    code, findings = _check(tmp_path, schema)
    assert code == 1 and findings == [("pkg/schema.py", line, "left_behind")], findings


@pytest.mark.parametrize("schema,before", [
    (HEAD + "def load(other):\n    store = ErrorStore()\n    store = other()\n    store.store_error({})\n", STORE),
    (HEAD + "def make():\n    store = ErrorStore()\n    return store\n\n\ndef load(store):\n    store.store_error({})\n",
     STORE),
    (HEAD + "def load():\n    store = ErrorStore()\n    store.store_error({})\n",
     STORE.replace("class ErrorStore:", "class ErrorStore(Base):")),
    ("from pkg.error_store import make\n\n\ndef load():\n    store = make()\n    store.store_error({})\n",
     STORE + "\n\ndef make():\n    return ErrorStore()\n"),
    (HEAD + "def load():\n    store = ErrorStore()\n    store.errors.store_error({})\n", STORE),
], ids=["rebound", "untyped-parameter", "class-with-a-base", "factory-function", "attribute-of-it"])
def test_a_local_whose_class_is_not_sure_stays_clean(tmp_path: Path, schema: str, before: str) -> None:
    after = before.replace("store_error", "record_error")
    code, findings = _check(tmp_path, schema, after, before, OTHER)
    assert code == 0 and findings == [], findings


STORE_TS = "export class Store {\n  put(m) {\n    return m;\n  }\n}\n"


@pytest.mark.parametrize("ext,user,line", [
    ("ts", "import { Store } from './store';\n\nexport function f() {\n  const x = new Store();\n  return x.put(1);\n}\n", 5),
    ("js", "import { Store } from './store';\n\nexport function f() {\n  const x = new Store();\n  return x.put(1);\n}\n", 5),
    ("tsx", "import { Store } from './store';\n\nexport function F() {\n  let x = new Store();\n  return <b>{x.put(1)}</b>;\n}\n", 5),
    ("ts", "import * as s from './store';\n\nexport function f() {\n  const x = new s.Store();\n  return x.put(1);\n}\n", 5),
], ids=["ts", "js", "tsx", "ts-namespace"])
def test_a_call_on_a_javascript_local_made_with_new_blocks_at_task_check(tmp_path: Path, ext: str, user: str,
                                                                        line: int) -> None:
    # grammars/{javascript,typescript,tsx}.toml spell `const x = new C()` as `@typed.*`, as Python's
    # `x = C()`: renaming C.put leaves `x.put(1)` behind.
    store = f"src/store.{'ts' if ext == 'tsx' else ext}"
    repo = _task_edited(tmp_path, {store: STORE_TS, f"src/user.{ext}": user}, "rm", (store,),
                        {store: STORE_TS.replace("put", "record")}, None)
    code, body = wtc(repo, "task", "check", "rm", "--run", "r1")
    assert code == 1, body
    assert [(row["use_path"], row["use_lines"]) for row in body["left_behind"]] == [(f"src/user.{ext}", [line])]


def test_a_call_on_a_javascript_local_reassigned_to_another_value_is_not_named(tmp_path: Path) -> None:
    user = ("import { Store } from './store';\n\nexport function f(other) {\n  let x = new Store();\n"
            "  x = other;\n  return x.put(1);\n}\n")
    repo = _task_edited(tmp_path, {"src/store.ts": STORE_TS, "src/user.ts": user}, "rm", ("src/store.ts",),
                        {"src/store.ts": STORE_TS.replace("put", "record")}, None)
    code, body = wtc(repo, "task", "check", "rm", "--run", "r1")
    assert code == 0 and not body["left_behind"], body


# A module-level local (`x = C()` at the top of a file) is as evident as a function's: the name is a
# file-level definition there (a "constant"), which the check once took for a type of the file itself
# (`x.put()` read as `x`'s own method), so the call on it was never followed to C (trust-left8).
@pytest.mark.parametrize("schema,line", [
    (HEAD + "store = ErrorStore()\nstore.store_error({})\n", 5),
    (HEAD + "store = ErrorStore()\n\n\ndef load():\n    return store.store_error({})\n", 8),
    (HEAD + "store: ErrorStore = ErrorStore()\nstore.store_error({})\n", 5),
], ids=["top-level-call", "used-in-a-function", "annotated-assignment"])
def test_a_call_on_a_module_level_local_blocks_at_task_check(tmp_path: Path, schema: str, line: int) -> None:
    repo = _task_edited(tmp_path, {"pkg/__init__.py": "", "pkg/error_store.py": STORE, "pkg/schema.py": schema},
                        "rm", ("pkg/error_store.py",), {"pkg/error_store.py": RENAMED}, None)
    code, body = wtc(repo, "task", "check", "rm", "--run", "r1")
    assert code == 1 and body["left_behind_blocks"] is True, body
    assert [(row["use_path"], row["use_lines"], row["name"]) for row in body["left_behind"]] == \
        [("pkg/schema.py", [line], "ErrorStore.store_error")]


@pytest.mark.parametrize("schema,before", [
    (HEAD + "store = ErrorStore()\nstore = object()\nstore.store_error({})\n", STORE),
    ("from pkg.error_store import make\n\nstore = make()\nstore.store_error({})\n",
     STORE + "\n\ndef make():\n    return ErrorStore()\n"),
    (HEAD + "store = ErrorStore()\nstore.store_error({})\n", STORE.replace("class ErrorStore:", "class ErrorStore(Base):")),
    (HEAD + "store = ErrorStore()\n\n\ndef load(store):\n    return store.store_error({})\n", STORE),
    (HEAD + "store = ErrorStore()\n\n\ndef load(other):\n    store = other()\n    return store.store_error({})\n", STORE),
    (HEAD + "store = ErrorStore()\n\n\ndef reset():\n    global store\n    store = object()\n\n\nstore.store_error({})\n",
     STORE),
], ids=["rebound", "untyped", "class-with-a-base", "parameter-of-the-name", "function-local-of-the-name",
        "rebound-in-a-function-through-global"])
def test_a_module_level_local_whose_class_is_not_sure_stays_clean(tmp_path: Path, schema: str, before: str) -> None:
    after = before.replace("store_error", "record_error")
    code, findings = _check(tmp_path, schema, after, before, OTHER)
    assert code == 0 and findings == [], findings


def test_a_class_the_file_declares_is_still_its_own_type(tmp_path: Path) -> None:
    # The file's own class (`Local.store_error`) is no typed local: renaming ErrorStore's method
    # leaves nothing behind here.
    schema = HEAD + "class Local:\n    def store_error(self, m):\n        return m\n\n\nLocal.store_error(None, {})\n"
    code, findings = _check(tmp_path, schema)
    assert code == 0 and findings == [], findings


@pytest.mark.parametrize("ext,user,line", [
    ("ts", "import { Store } from './store';\n\nconst x = new Store();\nexport function f() {\n  return x.put(1);\n}\n", 5),
    ("ts", "import { Store } from './store';\n\nconst x = new Store();\nx.put(1);\n", 4),
    ("js", "import { Store } from './store';\n\nlet x = new Store();\nx.put(1);\n", 4),
], ids=["ts-in-a-function", "ts-top-level", "js-top-level"])
def test_a_call_on_a_module_level_javascript_local_blocks_at_task_check(tmp_path: Path, ext: str, user: str,
                                                                        line: int) -> None:
    store = f"src/store.{ext}"
    repo = _task_edited(tmp_path, {store: STORE_TS, f"src/user.{ext}": user}, "rm", (store,),
                        {store: STORE_TS.replace("put", "record")}, None)
    code, body = wtc(repo, "task", "check", "rm", "--run", "r1")
    assert code == 1, body
    assert [(row["use_path"], row["use_lines"]) for row in body["left_behind"]] == [(f"src/user.{ext}", [line])]


@pytest.mark.parametrize("user", [
    "import { Store } from './store';\n\nlet x = new Store();\nx = other;\nx.put(1);\n",
    "import { make } from './store';\n\nconst x = make();\nx.put(1);\n",
    "import { Store } from './store';\n\nconst x = new Store();\nexport function f(x) {\n  return x.put(1);\n}\n",
    "import { Store } from './store';\n\nlet x = new Store();\nfunction reset() {\n  x = other;\n}\nx.put(1);\n",
], ids=["reassigned", "untyped", "parameter-of-the-name", "reassigned-in-a-function"])
def test_a_module_level_javascript_local_whose_class_is_not_sure_stays_clean(tmp_path: Path, user: str) -> None:
    store_text = STORE_TS + "\nexport function make() {\n  return new Store();\n}\n"
    repo = _task_edited(tmp_path, {"src/store.ts": store_text, "src/user.ts": user}, "rm", ("src/store.ts",),
                        {"src/store.ts": store_text.replace("put", "record")}, None)
    code, body = wtc(repo, "task", "check", "rm", "--run", "r1")
    assert code == 0 and not body["left_behind"], body


STORE_JAVA = "package p;\n\npublic class Store {\n  public int put(int m) {\n    return m;\n  }\n}\n"
USE_JAVA = "public class User {\n  int run() {\n    Store x = new Store();\n    return x.put(1);\n  }\n}\n"


def _java_check(tmp_path: Path, user_path: str, user: str, store: str = STORE_JAVA,
                renamed: tuple[str, str] = ("put", "record")) -> tuple[int, dict]:
    repo = _task_edited(tmp_path, {"src/main/java/p/Store.java": store, user_path: user}, "rm",
                        ("src/main/java/p/Store.java",),
                        {"src/main/java/p/Store.java": store.replace(*renamed)}, None)
    return wtc(repo, "task", "check", "rm", "--run", "r1")


@pytest.mark.parametrize("user_path,user,line", [
    ("src/main/java/p/User.java", "package p;\n\n" + USE_JAVA, 6),
    ("src/test/java/p/UserTest.java", "package p;\n\n" + USE_JAVA.replace("User", "UserTest"), 6),
    ("src/main/java/q/User.java", "package q;\n\nimport p.Store;\n\n" + USE_JAVA, 8),
    ("src/main/java/p/User.java", "package p;\n\npublic class User {\n  int run(Store x) {\n    return x.put(1);\n  }\n}\n", 5),
    ("src/main/java/p/User.java", "package p;\n\n" + USE_JAVA.replace("new Store()", "Factory.make()"), 6),
], ids=["same-package", "test-source-set", "imported", "parameter", "declared-type-whatever-the-value"])
def test_a_call_on_a_java_local_of_declared_class_blocks_at_task_check(tmp_path: Path, user_path: str, user: str,
                                                                      line: int) -> None:
    # grammars/java.toml spells `Store x = ...;` and `f(Store x)` as `@typed.*`: renaming Store.put
    # leaves `x.put(1)` behind, for a Store of the file's package (no import) or one it imports.
    code, body = _java_check(tmp_path, user_path, user)
    assert code == 1, body
    assert [(row["use_path"], row["use_lines"], row["name"]) for row in body["left_behind"]] == \
        [(user_path, [line], "Store.put")]


@pytest.mark.parametrize("user,store,renamed", [
    ("package p;\n\n" + USE_JAVA, STORE_JAVA.replace("class Store", "class Store extends Base"), ("put", "record")),
    ("package p;\n\n" + USE_JAVA, STORE_JAVA.replace("class Store", "class Store implements Api"), ("put", "record")),
    ("package p;\n\n" + USE_JAVA.replace("x.put(1)", "x.toString().length()"),
     STORE_JAVA.replace("public int put(int m)", "public String toString()").replace("return m;", "return \"s\";"),
     ("toString", "describe")),
    ("package p;\n\n" + USE_JAVA.replace("Store x = new Store()", "var x = new Store()"), STORE_JAVA, ("put", "record")),
    ("package q;\n\n" + USE_JAVA, STORE_JAVA, ("put", "record")),
], ids=["class-with-a-base", "class-with-an-interface", "object-method", "var", "another-package-unimported"])
def test_a_java_local_whose_class_is_not_sure_stays_clean(tmp_path: Path, user: str, store: str,
                                                          renamed: tuple[str, str]) -> None:
    user_path = "src/main/java/q/User.java" if user.startswith("package q;") else "src/main/java/p/User.java"
    code, body = _java_check(tmp_path, user_path, user, store, renamed)
    assert code == 0 and not body["left_behind"], body
