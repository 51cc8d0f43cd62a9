"""Java: a static field another file reads as a value (`Util.LIMIT`) is a definition the check knows.

Found: the wheel's Java tags hold classes, interfaces and methods, not fields: a task removing
`LIMIT` from `Util` while another file reads `Util.LIMIT` checked clean, and the landed tree did
not compile. grammars/java.toml now defines a class's static fields (and an interface's constants)
and reads `Type.FIELD` as a value use (`@reference.value`); a local of the same name, a field of
another class and an instance field reached through an object stay clean.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.ci.ci_helpers import commit_all, run_wtc
from tests.conftest import git, make_repo, write, wtc
from tests.core.test_uses_left_behind import _task_edited

P = "src/main/java/a/b/"
UTIL = ("package a.b;\n\npublic class Util {\n    public static final int LIMIT = 5;\n    public int size = 1;\n"
        "    public static int twice(int x) { return 2 * x; }\n}\n")
NO_LIMIT = UTIL.replace("    public static final int LIMIT = 5;\n", "")
USER = "package a.b;\n\npublic class User {\n    int f() { return Util.LIMIT + 1; }\n}\n"
OTHER = "package a.b;\n\npublic class Other {\n    static final int LIMIT = 7;\n}\n"


def _check(tmp_path: Path, files: dict[str, str], util_after: str) -> tuple[int, list[tuple[str, int | None, str]]]:
    repo = make_repo(tmp_path / "repo", files)
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {P + "Util.java": util_after})
    commit_all(repo, "feature: Util changed")
    done = run_wtc(repo, "check", "--own", "**", "--head", "feature", "--target", "main", "--json")
    body = json.loads(done.stdout)
    return done.returncode, [(f["path"], f["start_line"], f["rule"]) for f in body["findings"]]


def test_removing_a_static_field_another_file_reads_blocks_at_task_check(tmp_path: Path) -> None:
    repo = _task_edited(tmp_path, {P + "Util.java": UTIL, P + "User.java": USER}, "rm", (P + "Util.java",),
                        {P + "Util.java": NO_LIMIT}, None)
    code, body = wtc(repo, "task", "check", "rm", "--run", "r1")
    assert code == 1 and body["left_behind_blocks"] is True, body
    assert [(row["use_path"], row["use_lines"], row["name"]) for row in body["left_behind"]] == \
        [(P + "User.java", [4], "Util.LIMIT")]


@pytest.mark.parametrize("user", [
    USER,
    "package c;\n\nimport a.b.Util;\n\npublic class User {\n    int f() { return Util.LIMIT; }\n}\n",
], ids=["same-package", "imported"])
def test_a_removed_or_renamed_static_field_read_elsewhere_blocks_wtc_check(tmp_path: Path, user: str) -> None:
    where = P + "User.java" if user.startswith("package a.b") else "src/main/java/c/User.java"
    line = user.splitlines().index(next(text for text in user.splitlines() if "Util.LIMIT" in text)) + 1
    for after in (NO_LIMIT, UTIL.replace("LIMIT", "MAX")):
        code, findings = _check(tmp_path / str(len(after)), {P + "Util.java": UTIL, where: user}, after)
        assert code == 1 and findings == [(where, line, "left_behind")], findings


@pytest.mark.parametrize("user,after", [
    (USER.replace("Util.LIMIT", "Other.LIMIT"), NO_LIMIT),                       # another class's field
    ("package a.b;\n\npublic class User {\n    int f() { int LIMIT = 3; return LIMIT; }\n}\n", NO_LIMIT),   # a local
    ("package a.b;\n\npublic class User {\n    int f() { return new Util().size; }\n}\n",
     UTIL.replace("    public int size = 1;\n", "")),                            # an instance field: not known
], ids=["other-class", "local", "instance-field"])
def test_a_field_the_removal_does_not_reach_stays_clean(tmp_path: Path, user: str, after: str) -> None:
    code, findings = _check(tmp_path, {P + "Util.java": UTIL, P + "User.java": user, P + "Other.java": OTHER}, after)
    assert code == 0 and findings == [], findings
