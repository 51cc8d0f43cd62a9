"""Python: an enum's member and a class attribute, read through the class's name, are definitions.

`Color.RED` and `Config.LIMIT` are read through an imported class as `util.parse()` is called: renaming
`RED = 1` in `class Color(enum.Enum)` or `LIMIT = 3` in `class Config:` leaves each such read behind,
and importing the user fails (AttributeError). Before, a class-level assignment defined nothing, and a
class with any base, `enum.Enum` included, never lost a member: each rename checked clean at `task
check` and in `wtc check`. An enum's bases (the standard library's enum classes, `object`) give it no
member its body could define, nor does a data type mixed into an enum (`class Color(str, Enum)`);
any other base still may. A
class attribute kept as a property or method of the name, set on instances in `__init__` (read
through an instance), or an annotation whose value is dropped (a dataclass field made required) is
no removal.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import wtc_in_process
from tests.core.test_uses_left_behind import _branch_checked, _second_finish, _task_edited

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
    (DATACLASS, DATACLASS.replace("    LIMIT: int = 3\n", "    LIMIT: int\n"), FIELD_USE),
    (COLOR.replace("    LIMIT = 3\n", "    LIMIT = 3\n    __hash__ = None\n"), COLOR,
     USE + "h = Config.__hash__\n"),
    (COLOR.replace("class Config:", METACLASS),
     COLOR.replace("class Config:", METACLASS).replace("    LIMIT = 3\n", "    MAX = 3\n").replace("    pass\n", "    LIMIT = 3\n"), USE),
], ids=["a-member-added", "kept-as-a-property", "moved-to-init-read-through-an-instance",
        "dataclass-default-dropped", "a-dunder-object-has",
        "a-metaclass-may-answer"])
def test_a_member_kept_or_read_where_something_else_answers_is_clean(tmp_path: Path, base: str, color: str, use: str) -> None:
    code, body = _checked(tmp_path, color, use, base)
    assert (code, body["left_behind"]) == (0, []), body


# An enum with a data type mixed in before its enum base (`class Color(str, Enum)`, the standard way to
# make members compare equal to their values) gets no member from `str` or `int` that its body could
# define: a member renamed is gone (`Tone.WARM` fails: AttributeError) as in a plain Enum. Before, the
# mixin counted as a base that may answer it, and every such rename checked clean. A mixin class of the
# repository's own (`class Tone(Mixin, Enum)`) may define the attribute, and keeps that rule.
MIXED = ("import enum\nfrom enum import Enum, Flag, IntEnum, IntFlag, StrEnum\n\n\n"
         "class Tone(str, Enum):\n    WARM = \"warm\"\n\n\n"
         "class Level(int, enum.Enum):\n    HIGH = 3\n\n\n"
         "class Mode(StrEnum):\n    FAST = \"fast\"\n\n\n"
         "class Perm(int, Flag):\n    READ = 4\n\n\n"
         "class Bits(IntFlag):\n    LOW = 1\n\n\n"
         "class Rank(\n    int,\n    IntEnum,\n):\n    TOP = 1\n")
MIXED_USE = ("from pkg.color import Bits, Level, Mode, Perm, Rank, Tone\n\n"
             "t = Tone.WARM\nl = Level.HIGH\nm = Mode.FAST\np = Perm.READ\nb = Bits.LOW\nr = Rank.TOP\n")


@pytest.mark.parametrize("old, new, name, line", [
    ("    WARM = \"warm\"", "    HOT = \"warm\"", "Tone.WARM", 3),
    ("    HIGH = 3", "    UPPER = 3", "Level.HIGH", 4),
    ("    FAST = \"fast\"", "    QUICK = \"fast\"", "Mode.FAST", 5),
    ("    READ = 4", "    R = 4", "Perm.READ", 6),
    ("    LOW = 1", "    BOTTOM = 1", "Bits.LOW", 7),
    ("    TOP = 1", "    FIRST = 1", "Rank.TOP", 8),
], ids=["str-mixed-into-Enum", "int-mixed-into-enum.Enum", "StrEnum", "int-mixed-into-Flag", "IntFlag",
        "int-mixed-into-IntEnum-over-lines"])
def test_a_member_of_an_enum_with_a_data_type_mixed_in_renamed_blocks(tmp_path: Path, old: str, new: str, name: str,
                                                                      line: int) -> None:
    code, body = _checked(tmp_path, MIXED.replace(old, new), MIXED_USE, MIXED)
    assert code == 1 and body["left_behind_blocks"] is True, body
    assert [(row["use_path"], row["name"], row["use_lines"]) for row in body["left_behind"]] == [("pkg/use.py", name, [line])]


def test_a_member_of_a_str_enum_renamed_blocks_in_wtc_check(tmp_path: Path) -> None:
    files = dict(FILES, **{"pkg/color.py": MIXED, "pkg/use.py": MIXED_USE})
    code, report = _branch_checked(tmp_path, files, {"pkg/color.py": MIXED.replace("    WARM =", "    HOT =")})
    assert code == 1 and [(row["use_path"], row["name"]) for row in report["left_behind"]] == [("pkg/use.py", "Tone.WARM")], report


def test_a_member_of_a_str_enum_another_task_reads_is_a_conflict_at_its_finish(tmp_path: Path) -> None:
    """Task `rn` renames Tone.WARM (and its read in pkg/use.py) and finishes, merged; task `use`, started
    beside it, adds a read of Tone.WARM: the queue's merge of `use` is a semantic conflict naming it."""
    code, body = _second_finish(
        tmp_path, dict(FILES, **{"pkg/color.py": MIXED, "pkg/use.py": MIXED_USE}),
        ("rn", "pkg/[cu]*.py", {"pkg/color.py": MIXED.replace("    WARM =", "    HOT ="),
                                "pkg/use.py": MIXED_USE.replace("Tone.WARM", "Tone.HOT")}),
        ("use", "pkg/more.py", {"pkg/more.py": "from pkg.color import Tone\n\nwarm = Tone.WARM\n"}))
    assert (code, body["state"]) == (1, "conflict"), body
    assert any("WARM" in str(conflict) for conflict in body["conflicts"]), body


MIXIN = "class Warmth:\n    WARM = \"w\"\n\n\n"
OWN_MIXIN = MIXED.replace("class Tone(str, Enum):", MIXIN + "class Tone(Warmth, Enum):")


@pytest.mark.parametrize("base, color", [
    (MIXED, MIXED.replace("    WARM = \"warm\"\n", "    WARM = \"warm\"\n    COOL = \"cool\"\n")),
    (OWN_MIXIN, OWN_MIXIN.replace("    WARM = \"warm\"", "    HOT = \"warm\"")),
], ids=["a-member-added", "a-mixin-of-the-repository-may-answer"])
def test_an_enum_with_a_mixin_kept_or_answered_is_clean(tmp_path: Path, base: str, color: str) -> None:
    code, body = _checked(tmp_path, color, MIXED_USE, base)
    assert (code, body["left_behind"]) == (0, []), body
