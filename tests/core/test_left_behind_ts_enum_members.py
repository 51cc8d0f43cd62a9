"""TypeScript: an enum's member and a class's static field, read through the type's name, are definitions.

`Color.Red` and `Store.limit` are read through an imported name as `util.parse()` is called: renaming
the member or the static field leaves each such read behind, and `tsc` fails on the landed tree
(TS2339). Before, only the enum and the class were definitions: a rename of either member checked
clean at `task check`, at the finish and in `wtc check`. A member added, or a static field kept
under a getter of the same name, is no removal.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import wtc_in_process
from tests.core.test_uses_left_behind import _task_edited

COLOR = ('export enum Color {\n  Red = "red",\n  Green,\n}\n\nexport class Store {\n  static limit = 3;\n'
         '  put(x: number): number {\n    return x;\n  }\n}\n')
USE = ('import { Color, Store } from "./color";\n\nexport const c = Color.Red;\nexport const g = Color.Green;\n'
       'export const n = Store.limit;\n')
FILES = {"src/color.ts": COLOR, "src/use.ts": USE}


def _checked(tmp_path: Path, color: str) -> tuple[int, dict]:
    repo = _task_edited(tmp_path, FILES, "rn", ("src/color.ts",), {"src/color.ts": color}, None)
    return wtc_in_process(repo, "task", "check", "rn", "--run", "r1")


@pytest.mark.parametrize("old, new, name, line", [
    ('  Red = "red",', '  Crimson = "red",', "Color.Red", 3),
    ("  Green,", "  Lime,", "Color.Green", 4),
    ("  static limit = 3;", "  static max = 3;", "Store.limit", 5),
], ids=["enum-member-assigned", "enum-member-bare", "static-field"])
def test_a_member_read_through_its_types_name_renamed_blocks(tmp_path: Path, old: str, new: str, name: str, line: int) -> None:
    code, body = _checked(tmp_path, COLOR.replace(old, new))
    assert code == 1 and body["left_behind_blocks"] is True, body
    assert [(row["use_path"], row["name"], row["use_lines"]) for row in body["left_behind"]] == [("src/use.ts", name, [line])]


@pytest.mark.parametrize("color", [
    COLOR.replace("  Green,\n", "  Green,\n  Blue,\n"),
    COLOR.replace("  static limit = 3;", "  static get limit(): number {\n    return 3;\n  }"),
], ids=["a-member-added", "a-static-getter-of-the-name"])
def test_a_member_added_or_kept_under_a_getter_is_clean(tmp_path: Path, color: str) -> None:
    code, body = _checked(tmp_path, color)
    assert (code, body["left_behind"]) == (0, []), body
