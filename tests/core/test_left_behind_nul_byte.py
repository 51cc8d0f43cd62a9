"""A source file holding a NUL byte is still source: a use of a removed name in it blocks.

Found: `pkg/user.py` = `from pkg.u import parse` and a line holding a NUL byte; a task renaming
`parse` checked clean (`task check` exit 0), because libgit2's line diff calls a version with a NUL
in its first 8000 bytes binary and gives it no lines, and the semantic check skipped such versions:
the use was never read. git's NUL rule is a guess for diffs; the file's language reads it (the
parser reads around the byte), so a file a profile reads is source whatever bytes it holds
(linediff.py diffs as text). What git's attributes mark binary (`binary`, `-diff`) the project says
is not text: that file is not read for uses (left_behind.source_reader).
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.ci.ci_helpers import commit_all, run_wtc
from tests.conftest import git, make_repo, write, wtc
from tests.core.test_uses_left_behind import _task_edited

U = "def parse(x):\n    return x\n\n\ndef other():\n    return 1\n"
FILES: dict[str, str | bytes] = {"pkg/__init__.py": "", "pkg/u.py": U,
                                 "pkg/user.py": b"from pkg.u import parse\n\x00\n"}


def test_a_use_in_a_file_holding_a_nul_byte_blocks_at_check_and_finish(tmp_path: Path) -> None:
    repo = _task_edited(tmp_path, FILES, "rm", ("pkg/u.py",), {"pkg/u.py": U.replace("parse", "parsed")}, None)
    code, body = wtc(repo, "task", "check", "rm", "--run", "r1")
    assert code == 1 and body["left_behind_blocks"] is True, body
    assert [(row["use_path"], row["use_lines"], row["name"]) for row in body["left_behind"]] == \
        [("pkg/user.py", [1], "parse")]
    code, body = wtc(repo, "task", "finish", "rm", "--run", "r1")
    assert code == 1 and body["state"] == "conflict", body
    assert [(c["path"], c["semantic"]["name"]) for c in body["conflicts"] if c["kind"] == "left_behind"] == \
        [("pkg/user.py", "parse")]


def test_wtc_check_names_the_use_in_a_file_holding_a_nul_byte(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", FILES)
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {"pkg/u.py": U.replace("parse", "parsed")})
    commit_all(repo, "feature: parse renamed")
    done = run_wtc(repo, "check", "--own", "**", "--head", "feature", "--target", "main", "--json")
    body = json.loads(done.stdout)
    assert done.returncode == 1, done.stdout
    assert [(f["rule"], f["path"], f["start_line"]) for f in body["findings"]] == [("left_behind", "pkg/user.py", 1)]


def test_a_file_the_attributes_mark_binary_is_not_read_for_uses(tmp_path: Path) -> None:
    files = FILES | {".gitattributes": "pkg/user.py binary\n"}
    repo = _task_edited(tmp_path, files, "rm", ("pkg/u.py",), {"pkg/u.py": U.replace("parse", "parsed")}, None)
    code, body = wtc(repo, "task", "check", "rm", "--run", "r1")
    assert code == 0 and body["left_behind"] == [], body
