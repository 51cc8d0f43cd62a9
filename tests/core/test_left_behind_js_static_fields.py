"""JavaScript: a class's static field, read through the class's name, is a definition.

`Store.limit` reads a member of a class as `util.parse()` calls a function: renaming `static limit = 3`
leaves each such read behind, reading `undefined` on the landed tree (a call of it throws TypeError).
TypeScript's static fields were definitions already; JavaScript's were not, so the same rename in a
.js file checked clean at `task check`, at the finish's merge check and in `wtc check`. A static
field added, kept under a static getter or method of the name, or given by a base the class extends
is no removal.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import wtc_in_process
from tests.core.test_uses_left_behind import _branch_checked, _second_finish, _task_edited

STORE = ("export class Store {\n  static limit = 3;\n  static #secret = 1;\n  width = 2;\n\n"
         "  put(x) {\n    return x + Store.#secret;\n  }\n}\n\nexport class Base {\n  static depth = 1;\n}\n\n"
         "export class Deep extends Base {\n  static depth = 4;\n}\n")
USE = 'import { Deep, Store } from "./store.js";\n\nexport const n = Store.limit;\nexport const d = Deep.depth;\n'
FILES = {"package.json": '{"name": "x", "type": "module"}\n', "src/store.js": STORE, "src/use.js": USE}
RENAMED = STORE.replace("  static limit = 3;", "  static max = 3;")


def _rows(body: dict) -> list[tuple[str, str, list[int]]]:
    return [(row["use_path"], row["name"], row["use_lines"]) for row in body["left_behind"]]


def _checked(tmp_path: Path, store: str) -> tuple[int, dict]:
    repo = _task_edited(tmp_path, FILES, "rn", ("src/store.js",), {"src/store.js": store}, None)
    return wtc_in_process(repo, "task", "check", "rn", "--run", "r1")


def test_a_renamed_static_field_read_through_the_class_blocks_at_task_check(tmp_path: Path) -> None:
    code, body = _checked(tmp_path, RENAMED)
    assert code == 1 and body["left_behind_blocks"] is True, body
    assert _rows(body) == [("src/use.js", "Store.limit", [3])]


def test_a_renamed_static_field_blocks_in_wtc_check(tmp_path: Path) -> None:
    code, report = _branch_checked(tmp_path, FILES, {"src/store.js": RENAMED})
    assert code == 1 and _rows(report) == [("src/use.js", "Store.limit", [3])], report


def test_a_read_another_task_adds_of_a_renamed_static_field_is_a_conflict_at_its_finish(tmp_path: Path) -> None:
    """Task `rn` renames Store.limit (and its read in src/use.js) and merges; task `more`, started
    beside it, adds a read of Store.limit: the queue's merge check of `more` is a semantic conflict."""
    code, body = _second_finish(
        tmp_path, FILES,
        ("rn", "src/[su]*.js", {"src/store.js": RENAMED, "src/use.js": USE.replace("Store.limit", "Store.max")}),
        ("more", "src/more.js", {"src/more.js": 'import { Store } from "./store.js";\n\nexport const m = Store.limit;\n'}))
    assert (code, body["state"]) == (1, "conflict"), body
    assert any("limit" in str(conflict) for conflict in body["conflicts"]), body


@pytest.mark.parametrize("store", [
    STORE.replace("  static limit = 3;\n", "  static limit = 3;\n  static height = 5;\n"),
    STORE.replace("  static limit = 3;", "  static get limit() {\n    return 3;\n  }"),
    STORE.replace("  static limit = 3;", "  static limit() {\n    return 3;\n  }"),
    STORE.replace("  static #secret = 1;", "  static #hidden = 1;").replace("Store.#secret", "Store.#hidden"),
    STORE.replace("export class Deep extends Base {\n  static depth = 4;\n}", "export class Deep extends Base {\n}"),
], ids=["a-static-field-added", "kept-as-a-static-getter", "kept-as-a-static-method", "a-private-static-renamed",
        "a-base-still-gives-it"])
def test_a_static_field_kept_or_answered_is_clean(tmp_path: Path, store: str) -> None:
    code, body = _checked(tmp_path, store)
    assert (code, body["left_behind"]) == (0, []), body
