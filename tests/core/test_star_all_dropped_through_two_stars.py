"""A name dropped from a module's `__all__` while a file reaches it through stars blocks everywhere.

`pkg/__init__.py` star-imports `pkg/a.py`, whose `__all__` loses "f" (f still defined); a module
doing `from pkg import *` (two stars deep) or `from pkg.a import *` (one) and calling `f()` raises
NameError in the landed tree. Each place the product promises the block is checked: `task check`,
the finish's merge, `wtc check`, `report` and `land`, with the advice to list f again.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import git, make_repo, wtc_in_process
from tests.core.test_star_list_gaps import _wtc_check
from tests.core.test_uses_left_behind import _removal_refused

A = '__all__ = ["f", "g"]\n\n\ndef f():\n    return 1\n\n\ndef g():\n    return 2\n'
DROPPED = A.replace('"f", ', "")


@pytest.mark.parametrize("user", ["from pkg import *; f()\n", "from pkg.a import *\n\n\ndef h():\n    return f()\n"],
                         ids=["two-stars", "one-star"])
def test_a_name_dropped_from_all_used_through_stars_blocks_check_finish_ci_report_and_land(tmp_path, user):
    files = {"pkg/__init__.py": "from .a import *\n", "pkg/a.py": A, "user.py": user}
    _, left = _removal_refused(tmp_path / "task", files, "pkg/a.py", {"pkg/a.py": DROPPED})
    assert len(left) == 1 and left[0].startswith("user.py:") and "list f in the __all__ of pkg/a.py again" in left[0], left

    done = _wtc_check(tmp_path, files, {"pkg/a.py": DROPPED})
    body = json.loads(done.stdout)
    assert done.returncode == 1 and [(u["use_path"], u["name"], u["star_list"]) for u in body["left_behind"]] == \
        [("user.py", "f", "__all__")], done.stdout

    repo = make_repo(tmp_path / "run", files)
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    git(repo, "checkout", "-q", "wtc/r/integration")    # committed by hand: no finish looked at it
    (repo / "pkg/a.py").write_text(DROPPED)
    git(repo, "commit", "-q", "-am", "by hand")
    git(repo, "checkout", "-q", "main")
    code, report = wtc_in_process(repo, "report", "--run", "r", "--onto", "main")
    assert [(u["use_path"], u["name"]) for u in report["left_behind"]] == [("user.py", "f")], report
    main = git(repo, "rev-parse", "main")
    code, landed = wtc_in_process(repo, "land", "--run", "r", "--onto", "main", "--yes")
    assert code == 1 and "--allow-left-behind f" in landed["error"]["fix"], landed
    assert git(repo, "rev-parse", "main") == main
