"""What the left-behind look cannot read is said, never a silent clean.

A changed file whose version before the task does not parse: the check reads nothing of such a
version, so the names the task removed there were never looked for (a rename of `f` in a file
with a syntax error elsewhere checked clean while another file imported `f`). That is no answer
(exit 6 at `task check` and `wtc check`, as other unanswered looks), unless nothing was removed from
the file and the task's own version parses. And an importer of a deleted module too large to read
(check/left_modules.py skipped it) is said in a note, as the look's other big files are.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import wtc
from tests.core.test_star_list_gaps import _wtc_check
from tests.core.test_uses_left_behind import _task_edited

BROKEN = "def f():\n    return 1\n\n\ndef g(:\n    return 2\n"     # line 5 misses its `)`
FILES = {"pkg/__init__.py": "", "pkg/u.py": BROKEN, "user.py": "from pkg.u import f\n\nf()\n"}


@pytest.mark.parametrize("after, what", [
    ("def f2():\n    return 1\n\n\ndef g():\n    return 2\n", "its version before this task does not parse"),
    (BROKEN.replace("def f(", "def f2("), "neither its version before this task nor the task's own parses"),
], ids=["task-fixes-the-syntax", "still-broken"])
def test_a_removal_from_a_file_whose_base_does_not_parse_is_no_answer(tmp_path, after, what):
    repo = _task_edited(tmp_path / "task", FILES, "rm", ("pkg/u.py",), {"pkg/u.py": after}, None)
    code, body = wtc(repo, "task", "check", "rm", "--run", "r1")
    said = f"pkg/u.py: {what} (pkg/u.py:5 first)"
    assert code == 6 and [said in row.get("note", "") for row in body["left_behind"]] == [True], body
    done = _wtc_check(tmp_path, FILES, {"pkg/u.py": after})
    report = json.loads(done.stdout)
    assert done.returncode == 6 and [f["rule"] for f in report["findings"]] == ["left_behind_failed"], done.stdout
    assert said in report["findings"][0]["message"]


def test_a_file_whose_base_does_not_parse_mended_keeping_every_name_is_clean(tmp_path):
    """The task fixes the syntax and keeps f and g: nothing removed, its own version read as it lands."""
    repo = _task_edited(tmp_path, FILES, "rm", ("pkg/u.py",), {"pkg/u.py": BROKEN.replace("g(:", "g():")}, None)
    code, body = wtc(repo, "task", "check", "rm", "--run", "r1")
    assert code == 0 and body["left_behind"] == [], body


def test_an_importer_of_a_deleted_module_too_large_to_read_is_said(tmp_path):
    big = "import pkg.gone\n" + "# a line of a large generated file\n" * 30000
    files = {"pkg/__init__.py": "", "pkg/gone.py": "print('loaded')\n", "big.py": big, "small.py": "import pkg.gone\n"}
    repo = _task_edited(tmp_path, files, "rm", ("pkg/gone.py",), {"pkg/gone.py": None}, None)
    code, body = wtc(repo, "task", "check", "rm", "--run", "r1")
    assert code == 1, body
    notes = [row["note"] for row in body["left_behind"] if "use_path" not in row]
    assert notes == ["uses of removed names were looked for in part: 1 file that may import a module this task "
                     "deleted or moved is larger than the 1000000 bytes read and was not read: big.py"], body
    assert [row["use_path"] for row in body["left_behind"] if "use_path" in row] == ["small.py"]


def test_a_removal_from_a_base_readable_in_pieces_is_named(tmp_path):
    """A stray line the parser holds in an ERROR node of its own: the rest of the base reads cleanly
    without it, and the rename of f (the task drops the stray line too) is followed to user.py's
    import as in any file."""
    base = "def f():\n    return 1\n\n\n)\n\n\ndef g():\n    return 2\n"
    files = FILES | {"pkg/u.py": base}
    repo = _task_edited(tmp_path, files, "rm", ("pkg/u.py",), {"pkg/u.py": base.replace("def f(", "def f2(").replace(")\n\n\n", "")}, None)
    code, body = wtc(repo, "task", "check", "rm", "--run", "r1")
    assert code == 1 and [(row["use_path"], row["use_lines"], row["name"]) for row in body["left_behind"]] == \
        [("user.py", [1, 3], "f")], body
