"""The left-behind advice names the way out that is exact.

`task check` advised a widen for a use in a file the task owns already (its rows were written with
no globs; `wtc check` and finish said "update it"): the note now says to update the use there. A
barrel's dropped `export * from './intl.js'` line advised "keep the old name too (an alias)": no name
was renamed, and the exact way out is to keep that line.
"""

from __future__ import annotations

from tests.ci.ci_helpers import run_wtc
from tests.conftest import wtc
from tests.core.test_star_reexport_removed_left_behind import BARREL, PY, TS
from tests.core.test_uses_left_behind import _removal_refused, _task_edited

UTILS = "def guess_filename(x):\n    return x\n"
MODELS = "from pkg.utils import guess_filename\n\n\ndef name(x):\n    return guess_filename(x)\n"


def test_a_use_in_a_file_the_task_owns_already_is_to_be_updated_not_widened(tmp_path):
    files = {"pkg/__init__.py": "", "pkg/utils.py": UTILS, "pkg/models.py": MODELS}
    repo = _task_edited(tmp_path, files, "rn", ("pkg/utils.py", "pkg/models.py"),
                        {"pkg/utils.py": UTILS.replace("guess_filename", "filename_of")}, None)
    code, body = wtc(repo, "task", "check", "rn", "--run", "r1")
    [row] = body["left_behind"]
    assert code == 1 and row["owned"] is True, body
    assert row["note"].endswith("or update the use in pkg/models.py: the task's boundary holds it"), row["note"]
    assert "widen" not in row["note"]
    text = run_wtc(repo, "task", "check", "rn", "--run", "r1").stdout
    assert "or update the use in pkg/models.py: the task's boundary holds it" in text and "widen" not in text, text


def test_a_use_in_a_file_the_task_does_not_own_still_advises_a_widen(tmp_path):
    files = {"pkg/__init__.py": "", "pkg/utils.py": UTILS, "pkg/models.py": MODELS}
    repo = _task_edited(tmp_path, files, "rn", ("pkg/utils.py",),
                        {"pkg/utils.py": UTILS.replace("guess_filename", "filename_of")}, None)
    code, body = wtc(repo, "task", "check", "rn", "--run", "r1")
    [row] = body["left_behind"]
    assert code == 1 and row["owned"] is False and "wtc task widen rn --run r1 --own '/pkg/models.py'" in row["note"]


def test_a_dropped_star_reexport_line_advises_keeping_that_line(tmp_path):
    for files, barrel, line in [(TS, "src/helpers/index.ts", "export * from './intl.js';"),
                                (PY, "pkg/__init__.py", "from .intl import *")]:
        _, left = _removal_refused(tmp_path / barrel.split("/")[0], files, barrel,
                                   {barrel: files[barrel].replace(line + "\n", "")})
        assert len(left) == 1, left
        assert f"which this task no longer passes on from {barrel} (it dropped the line `{line}`)" in left[0], left
        assert f": keep the line `{line}` in {barrel}, or the lead widens" in left[0], left
        assert "alias" not in left[0]
