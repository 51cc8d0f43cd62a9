"""A change to what a star import takes blocks where a use still reaches a name through it.

Three shapes the star-list checks missed (tests/core/test_star_export_left_behind.py holds the
ones they read): a module with no `__all__` given one purely by inserted lines (no base line
touched: every diff-based shortcut saw "lines added only"), an imported name a module passes on
(`from ._b import B` kept) dropped from its `__all__` (the check compared only the file's own
definitions), and an `__all__` written in a way no list shows (`__all__ += [...]`), which is said,
not read as clean or as a removal. Each is checked where the product promises it: `task check`,
the finish's merge gate, `wtc check`, and a merge where another task adds the use.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.ci.ci_helpers import commit_all, run_wtc
from tests.conftest import git, make_repo, write, wtc
from tests.core.test_uses_left_behind import _removal_merged, _removal_refused, _task_edited
from worktree_coord.coordinator import Coordinator

M = "class A:\n    pass\n\n\nclass B:\n    pass\n"
LISTED = '__all__ = ["A"]\n\n\n' + M          # an `__all__` inserted above the classes, leaving B out
THROUGH_PACKAGE = "import pkg\n\n\ndef make():\n    return pkg.B()\n"
STAR_OF_MODULE = "from pkg._m import *\n\n\ndef make():\n    return B()\n"
INSERTED = {"pkg/__init__.py": "from ._m import *\n", "pkg/_m.py": M}


def _wtc_check(tmp_path: Path, files: dict[str, str], edits: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`wtc check` of a branch `feature` writing `edits` over main's `files`."""
    repo = make_repo(tmp_path / "ci", files)
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, edits)
    commit_all(repo, "feature")
    return run_wtc(repo, "check", "--own", "**", "--head", "feature", "--target", "main", "--json")


# -- 1. an `__all__` added by insertion alone ------------------------------------------------------

@pytest.mark.parametrize("user, line", [(THROUGH_PACKAGE, 5), (STAR_OF_MODULE, 5)],
                         ids=["package-star-import", "module-star-import"])
def test_an_all_inserted_into_a_module_without_one_blocks_a_use_it_leaves_out(tmp_path, user, line):
    files = INSERTED | {"user.py": user}
    repo, left = _removal_refused(tmp_path, files, "pkg/_m.py", {"pkg/_m.py": LISTED})
    assert len(left) == 1 and left[0].startswith(f"user.py:{line} still uses B, which this task no longer lists in "
                                                 "the __all__ of pkg/_m.py"), left
    code, check = wtc(repo, "task", "check", "rm", "--run", "r1")
    assert code == 1 and [(row["use_path"], row["name"], row["star_list"]) for row in check["left_behind"]] == \
        [("user.py", "B", "__all__")], check
    done = _wtc_check(tmp_path, files, {"pkg/_m.py": LISTED})
    body = json.loads(done.stdout)
    assert done.returncode == 1 and [(u["use_path"], u["name"]) for u in body["left_behind"]] == [("user.py", "B")], \
        done.stdout


def test_an_inserted_all_that_lists_every_used_name_is_clean(tmp_path):
    files = INSERTED | {"user.py": THROUGH_PACKAGE}
    _removal_merged(tmp_path, files, {"pkg/_m.py": '__all__ = ["A", "B"]\n\n\n' + M})


def _use_added_after(repo: Path, first: dict[str, str], owned_first: str, second: dict[str, str],
                     owned_second: str):
    """Two tasks of one run: the first writes `first` and merges, the second (started before that
    merge) writes `second` and finishes: its result."""
    with Coordinator(repo) as coordinator:
        coordinator.start_run("r1")
        one = Path(coordinator.start_task("r1", "lists", [owned_first]).worktree)
        two = Path(coordinator.start_task("r1", "uses", [owned_second]).worktree)
        write(one, first)
        write(two, second)
        assert coordinator.finish_task("r1", "lists").state == "merged"
        return coordinator.finish_task("r1", "uses")


def test_a_use_another_task_adds_of_a_name_an_inserted_all_left_out_is_a_semantic_conflict(tmp_path):
    """The merge's own check: the list merged first, the use arrives on a line another task added."""
    repo = make_repo(tmp_path / "repo", INSERTED | {"user.py": "import pkg\n\n\ndef make():\n    return pkg.A()\n"})
    second = _use_added_after(repo, {"pkg/_m.py": LISTED}, "pkg/_m.py", {"user.py": THROUGH_PACKAGE}, "user.py")
    assert second.state == "conflict", (second.state, second.notes)
    [conflict] = second.conflicts
    assert conflict["kind"] == "semantic" and conflict["semantic"]["name"] == "B"
    assert (conflict["semantic"]["use_path"], conflict["semantic"]["use_line"]) == ("user.py", 5)


# -- 2. a name a module passes on by import, dropped from its `__all__` ----------------------------

REEXPORTING = {"pkg/__init__.py": "from ._a import *\n",
               "pkg/_a.py": 'from ._b import B\n\n__all__ = ["A", "B"]\n\n\nclass A:\n    pass\n',
               "pkg/_b.py": "class B:\n    pass\n"}
DROPPED = {"pkg/_a.py": 'from ._b import B\n\n__all__ = ["A"]\n\n\nclass A:\n    pass\n'}


@pytest.mark.parametrize("user", [THROUGH_PACKAGE, "from pkg import *\n\n\ndef make():\n    return B()\n"],
                         ids=["package-attribute", "star-of-the-package"])
def test_an_imported_name_dropped_from_all_blocks_a_use_through_the_star(tmp_path, user):
    files = REEXPORTING | {"user.py": user}
    repo, left = _removal_refused(tmp_path, files, "pkg/_a.py", DROPPED)
    assert len(left) == 1 and left[0].startswith("user.py:5 still uses B, which this task no longer lists in the "
                                                 "__all__ of pkg/_a.py"), left
    done = _wtc_check(tmp_path, files, DROPPED)
    body = json.loads(done.stdout)
    assert done.returncode == 1 and [(u["use_path"], u["name"]) for u in body["left_behind"]] == [("user.py", "B")], \
        done.stdout


def test_an_imported_name_dropped_from_all_but_imported_from_its_own_module_is_clean(tmp_path):
    """`from pkg._b import B` never passes through the star: nothing is left behind."""
    files = REEXPORTING | {"user.py": "from pkg._b import B\n\n\ndef make():\n    return B()\n"}
    _removal_merged(tmp_path, files, DROPPED)


def test_a_use_another_task_adds_of_an_imported_name_dropped_from_all_is_a_semantic_conflict(tmp_path):
    repo = make_repo(tmp_path / "repo", REEXPORTING | {"user.py": "import pkg\n\n\ndef make():\n    return pkg.A()\n"})
    second = _use_added_after(repo, DROPPED, "pkg/_a.py", {"user.py": THROUGH_PACKAGE}, "user.py")
    assert second.state == "conflict", (second.state, second.notes)
    [conflict] = second.conflicts
    assert conflict["kind"] == "semantic" and conflict["semantic"]["name"] == "B"


# -- 3. an `__all__` written in a way no list shows -------------------------------------------------

COMPUTED = {"pkg/__init__.py": "from ._a import *\n",
            "pkg/_a.py": '__all__ = ["A", "B"]\n\n\nclass A:\n    pass\n\n\nclass B:\n    pass\n',
            "pkg/_b.py": '__all__ = ["B"]\n',
            "user.py": THROUGH_PACKAGE}


@pytest.mark.parametrize("written, line", [
    ('__all__ = ["A"]\n__all__ += ["B"]\n', 2),
    ('from . import _b\n\n__all__ = ["A"] + _b.__all__\n', 3),
    ('__all__ = ["A"]\n__all__.extend(["B"])\n', 2),
], ids=["augmented", "concatenated", "extended"])
def test_a_computed_all_is_said_and_never_blocks(tmp_path, written, line):
    after = COMPUTED["pkg/_a.py"].replace('__all__ = ["A", "B"]\n', written)
    said = f"what a star import takes from pkg/_a.py could not be read: computed __all__ at pkg/_a.py:{line}"
    repo = _task_edited(tmp_path, COMPUTED, "mv", ("pkg/_a.py",), {"pkg/_a.py": after}, None)
    code, check = wtc(repo, "task", "check", "mv", "--run", "r1")
    assert code == 0 and [row["note"] for row in check["left_behind"]] == \
        [f"uses of removed names were looked for in part: {said}"], check
    code, body = wtc(repo, "task", "finish", "mv", "--run", "r1")
    assert (code, body["state"]) == (0, "merged"), body
    done = _wtc_check(tmp_path, COMPUTED, {"pkg/_a.py": after})
    report = json.loads(done.stdout)
    assert done.returncode == 0 and [(f["rule"], f["message"]) for f in report["findings"]] == \
        [("left_behind_unchecked", f"uses of names the branch removed were looked for in part: {said}")], done.stdout


def test_a_computed_all_the_task_did_not_touch_is_not_said(tmp_path):
    """The list's lines unchanged (an edit elsewhere in the file): what the star takes is as it was."""
    files = COMPUTED | {"pkg/_a.py": COMPUTED["pkg/_a.py"].replace('__all__ = ["A", "B"]\n',
                                                                   '__all__ = ["A"]\n__all__ += ["B"]\n')}
    after = files["pkg/_a.py"].replace("class B:\n    pass\n", "class B:\n    x = 1\n")
    _removal_merged(tmp_path, files, {"pkg/_a.py": after})   # (its task check: nothing left behind, nothing said)
