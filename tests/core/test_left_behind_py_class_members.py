"""Python: an enum's member and a class attribute, read through the class's name, are definitions.

`Color.RED` and `Config.LIMIT` are read through an imported class as `util.parse()` is called: renaming
`RED = 1` in `class Color(enum.Enum)` or `LIMIT = 3` in `class Config:` leaves each such read behind,
and importing the user fails (AttributeError). Before, a class-level assignment defined nothing, and a
class with any base, `enum.Enum` included, never lost a member: each rename checked clean at `task
check` and in `wtc check`. An enum's bases (the standard library's enum classes, `object`) give it no
member its body could define; any other base still may (`class Color(str, Enum)` keeps that rule). A
class attribute kept as a property or method of the name, set on instances in `__init__` (read
through an instance), or an annotation whose value is dropped (a dataclass field made required) is
no removal.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import wtc_in_process
from tests.core.test_uses_left_behind import _branch_checked, _task_edited

COLOR = ("import enum\nfrom enum import IntEnum\n\n\nclass Color(enum.Enum):\n    RED = 1\n    GREEN = 2\n\n\n"
         "class Size(IntEnum):\n    BIG = 1\n\n\nclass Config:\n    LIMIT = 3\n    WIDTH: int = 80\n\n\n"
         "class Named(str, enum.Enum):\n    A = \"a\"\n")
USE = ("from pkg.color import Color, Config, Named, Size\n\nc = Color.RED\nn = Config.LIMIT\nw = Config.WIDTH\n"
       "s = Size.BIG\na = Named.A\n")
FILES = {"pkg/__init__.py": "", "pkg/color.py": COLOR, "pkg/use.py": USE}


def _checked(tmp_path: Path, color: str, use: str = USE, base: str = COLOR) -> tuple[int, dict]:
    files = dict(FILES, **{"pkg/color.py": base, "pkg/use.py": use})
    repo = _task_edited(tmp_path, files, "rn", ("pkg/color.py",), {"pkg/color.py": color}, None)
    return wtc_in_process(repo, "task", "check", "rn", "--run", "r1")


@pytest.mark.parametrize("old, new, name, line", [
    ("    RED = 1", "    CRIMSON = 1", "Color.RED", 3),
    ("    BIG = 1", "    LARGE = 1", "Size.BIG", 6),
    ("    LIMIT = 3", "    MAX = 3", "Config.LIMIT", 4),
    ("    WIDTH: int = 80", "    COLUMNS: int = 80", "Config.WIDTH", 5),
], ids=["enum-member", "enum-imported-bare", "class-attribute", "annotated-class-attribute"])
def test_a_member_read_through_its_class_name_renamed_blocks(tmp_path: Path, old: str, new: str, name: str, line: int) -> None:
    code, body = _checked(tmp_path, COLOR.replace(old, new))
    assert code == 1 and body["left_behind_blocks"] is True, body
    assert [(row["use_path"], row["name"], row["use_lines"]) for row in body["left_behind"]] == [("pkg/use.py", name, [line])]


def test_a_renamed_enum_member_blocks_in_wtc_check(tmp_path: Path) -> None:
    code, report = _branch_checked(tmp_path, FILES, {"pkg/color.py": COLOR.replace("    RED = 1", "    CRIMSON = 1")})
    assert code == 1 and [(row["use_path"], row["name"]) for row in report["left_behind"]] == [("pkg/use.py", "Color.RED")], report


PROPERTY = "    @property\n    def LIMIT(self) -> int:\n        return 3\n"
INIT = "    def __init__(self) -> None:\n        self.LIMIT = 3\n"
INSTANCE_USE = "from pkg.color import Config\n\nconfig = Config()\nn = config.LIMIT\n"
DATACLASS = "from dataclasses import dataclass\n\n\n@dataclass\nclass Config:\n    LIMIT: int = 3\n"
METACLASS = "class Meta(type):\n    pass\n\n\nclass Config(metaclass=Meta):"
FIELD_USE = "from pkg.color import Config\n\ncfg = Config(4)\nn = cfg.LIMIT\n"


@pytest.mark.parametrize("base, color, use", [
    (COLOR, COLOR.replace("    RED = 1\n", "    RED = 1\n    BLUE = 3\n"), USE),
    (COLOR, COLOR.replace("    LIMIT = 3\n", PROPERTY), USE),
    (COLOR, COLOR.replace("    LIMIT = 3\n", INIT), INSTANCE_USE),
    (COLOR, COLOR.replace("    A = \"a\"", "    B = \"a\""), USE),
    (DATACLASS, DATACLASS.replace("    LIMIT: int = 3\n", "    LIMIT: int\n"), FIELD_USE),
    (COLOR.replace("    LIMIT = 3\n", "    LIMIT = 3\n    __hash__ = None\n"), COLOR,
     USE + "h = Config.__hash__\n"),
    (COLOR.replace("class Config:", METACLASS),
     COLOR.replace("class Config:", METACLASS).replace("    LIMIT = 3\n", "    MAX = 3\n").replace("    pass\n", "    LIMIT = 3\n"), USE),
], ids=["a-member-added", "kept-as-a-property", "moved-to-init-read-through-an-instance",
        "enum-with-another-base-keeps-the-rule", "dataclass-default-dropped", "a-dunder-object-has",
        "a-metaclass-may-answer"])
def test_a_member_kept_or_read_where_something_else_answers_is_clean(tmp_path: Path, base: str, color: str, use: str) -> None:
    code, body = _checked(tmp_path, color, use, base)
    assert (code, body["left_behind"]) == (0, []), body
