"""A look for uses left behind that fails inside is no answer: the check exits 6, never 0.

`task check` and `wtc check` look for the uses a task's removal leaves in code it did not change.
When that look stopped at an error of wtc's, both said so in a note (or a warning) and exited 0,
which reads as clean to an agent or a CI step; the finish's own look stops the merge at the same
error (exit 6, internal). Now the checks exit 6 too (errors.EXIT_INTERNAL: "a bug in wtc"), keep the
note, and say why in `left_behind_unchecked`. The error here comes from the input: a file the
parser cannot read cleanly, whose error nodes nest deeper than the reader's recursion goes
(left_behind._error_nodes), mentioning the renamed name.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.ci.ci_helpers import commit_all, run_wtc
from tests.conftest import git, make_repo, write, wtc
from tests.core.test_uses_left_behind import _task_edited

UTILS = "def parse(x):\n    return x\n\n\ndef other():\n    return 1\n"
RENAMED = UTILS.replace("parse", "parsed")
DEEP = "(" * 1500 + "1 +" + ")" * 1500   # no closing operand: an ERROR node 1500 groups down
FILES = {"pkg/__init__.py": "", "pkg/utils.py": UTILS,
         "pkg/user.py": f"from pkg.utils import parse\n\nVALUE = parse(1)\nDEEP = {DEEP}\n"}


def test_task_check_exits_6_when_the_look_fails_and_keeps_the_note(tmp_path: Path) -> None:
    repo = _task_edited(tmp_path, FILES, "rm", ("pkg/utils.py",), {"pkg/utils.py": RENAMED}, None)
    code, body = wtc(repo, "task", "check", "rm", "--run", "r1")
    assert code == 6 and body["exit_code"] == 6, body
    assert body["left_behind_unchecked"].startswith("RecursionError"), body
    assert body["left_behind_blocks"] is False and body["clean"] is True
    assert [row["note"] for row in body["left_behind"]] == \
        [f"uses of removed names were not looked for: {body['left_behind_unchecked']}"]


def test_task_check_of_a_removal_it_can_look_at_has_no_unchecked_reason(tmp_path: Path) -> None:
    files = FILES | {"pkg/user.py": "from pkg.utils import parse\n\nVALUE = parse(1)\n"}
    repo = _task_edited(tmp_path, files, "rm", ("pkg/utils.py",), {"pkg/utils.py": RENAMED}, None)
    code, body = wtc(repo, "task", "check", "rm", "--run", "r1")
    assert code == 1 and body["left_behind_unchecked"] == "" and body["left_behind_blocks"] is True, body


def test_wtc_check_exits_6_with_a_failed_finding_in_every_format(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", FILES)
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {"pkg/utils.py": RENAMED})
    commit_all(repo, "feature: parse renamed")

    def check(*args: str):
        return run_wtc(repo, "check", "--own", "**", "--head", "feature", "--target", "main", *args)

    done = check("--json")
    body = json.loads(done.stdout)
    assert done.returncode == 6 and body["exit_code"] == 6 and body["ok"] is False, done.stdout
    assert body["left_behind_unchecked"].startswith("RecursionError"), body
    assert [(f["rule"], f["severity"]) for f in body["findings"]] == [("left_behind_failed", "error")]
    text = check()
    assert text.returncode == 6 and "NOT CHECKED for uses left behind" in text.stdout.splitlines()[-1], text.stdout
    github = check("--format", "github")
    assert github.returncode == 6 and github.stdout.splitlines()[-1].startswith("::error"), github.stdout
