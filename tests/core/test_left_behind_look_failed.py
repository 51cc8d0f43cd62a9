"""A look for uses left behind that gives no answer is no answer at every face: never a clean 0.

`task check` and `wtc check` look for the uses a task's removal leaves in code it did not change;
`wtc report` and `wtc land` look over the whole run. A look that was not made (the task or branch
changed more source files than it reads: left_behind.LookupTooLarge) or stopped at an error of wtc's
used to read as clean: `task check` exited 0 with a note, `wtc check` with a warning, `report` said
it in a warning among others and `land` landed. Now the checks exit 6 (errors.EXIT_INTERNAL) and say
why in `left_behind_unchecked`, the report says NOT CHECKED, and land refuses (exit 6) unless told to
land unchecked (`--land-unchecked`).

The error the look used to stop at came from the input: a file the parser cannot read cleanly, whose
error nodes nest deeper than a recursion goes (left_behind._error_nodes, now a walk with its own
stack): that file is read now, and its use named.
"""

from __future__ import annotations

import json
from pathlib import Path

from worktree_coord.check.left_behind import MAX_CHANGED, MAX_RUN_CHANGED
from tests.ci.ci_helpers import commit_all, run_wtc
from tests.conftest import git, make_repo, write, wtc
from tests.core.test_uses_left_behind import _task_edited

UTILS = "def parse(x):\n    return x\n\n\ndef other():\n    return 1\n"
RENAMED = UTILS.replace("parse", "parsed")
DEEP = "(" * 1500 + "1 +" + ")" * 1500   # no closing operand: an ERROR node 1500 groups down
FILES = {"pkg/__init__.py": "", "pkg/utils.py": UTILS,
         "pkg/user.py": f"from pkg.utils import parse\n\nVALUE = parse(1)\nDEEP = {DEEP}\n"}


def _many(count: int) -> dict[str, str]:
    """`count` small modules, each defining one function."""
    return {f"pkg/m{n}.py": f"def f{n}():\n    return {n}\n" for n in range(count)}


def _each_edited(count: int) -> dict[str, str]:
    """The `_many` modules, each with a line added (nothing removed: the look is not made for their size)."""
    return {path: text + "\n\nEXTRA = 1\n" for path, text in _many(count).items()}


def test_a_file_whose_errors_nest_1500_deep_is_read_and_its_use_named(tmp_path: Path) -> None:
    repo = _task_edited(tmp_path, FILES, "rm", ("pkg/utils.py",), {"pkg/utils.py": RENAMED}, None)
    code, body = wtc(repo, "task", "check", "rm", "--run", "r1")
    assert code == 1 and body["left_behind_unchecked"] == "" and body["left_behind_blocks"] is True, body
    assert [(row["use_path"], row["use_lines"]) for row in body["left_behind"]] == [("pkg/user.py", [1, 3])]


def test_task_check_of_more_changed_files_than_the_look_reads_exits_6(tmp_path: Path) -> None:
    files = {"pkg/__init__.py": "", "pkg/utils.py": UTILS, "pkg/user.py": "from pkg.utils import parse\n"} \
        | _many(MAX_CHANGED)
    repo = _task_edited(tmp_path, files, "rm", ("pkg/**",), {"pkg/utils.py": RENAMED} | _each_edited(MAX_CHANGED),
                        None)
    code, body = wtc(repo, "task", "check", "rm", "--run", "r1")
    assert code == 6 and body["exit_code"] == 6 and body["clean"] is True, body
    assert "more than the 100 read" in body["left_behind_unchecked"], body
    assert [row["note"] for row in body["left_behind"]] == \
        [f"uses of removed names were not looked for: {body['left_behind_unchecked']}"]


def _branch_of_many(tmp_path: Path, count: int) -> Path:
    repo = make_repo(tmp_path / "repo", {"pkg/__init__.py": "", "pkg/utils.py": UTILS,
                                         "pkg/user.py": "from pkg.utils import parse\n"} | _many(count))
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {"pkg/utils.py": RENAMED} | _each_edited(count))
    commit_all(repo, "feature: parse renamed, and many files edited")
    return repo


def test_wtc_check_of_more_changed_files_than_the_look_reads_exits_6_in_every_format(tmp_path: Path) -> None:
    repo = _branch_of_many(tmp_path, MAX_RUN_CHANGED)

    def check(*args: str):
        return run_wtc(repo, "check", "--own", "**", "--head", "feature", "--target", "main", *args)

    done = check("--json")
    body = json.loads(done.stdout)
    assert done.returncode == 6 and body["exit_code"] == 6 and body["ok"] is False, done.stdout
    assert "more than the 400 read" in body["left_behind_unchecked"], body
    assert [(f["rule"], f["severity"]) for f in body["findings"]] == [("left_behind_failed", "error")]
    text = check()
    assert text.returncode == 6 and "NOT CHECKED for uses left behind" in text.stdout.splitlines()[-1], text.stdout
    github = check("--format", "github")
    assert github.returncode == 6 and github.stdout.splitlines()[-1].startswith("::error"), github.stdout


def test_report_says_not_checked_and_land_refuses_unless_told_to_land_unchecked(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"pkg/__init__.py": "", "pkg/utils.py": UTILS,
                                         "pkg/user.py": "from pkg.utils import parse\n"} | _many(MAX_RUN_CHANGED))
    assert wtc(repo, "run", "start", "--run", "r")[0] == 0
    # Someone commits to the integration branch by hand: the run's look reads more files than it can.
    git(repo, "checkout", "-q", "wtc/r/integration")
    write(repo, {"pkg/utils.py": RENAMED} | _each_edited(MAX_RUN_CHANGED))
    commit_all(repo, "by hand")
    git(repo, "checkout", "-q", "main")
    main = git(repo, "rev-parse", "main")

    code, report = wtc(repo, "report", "--run", "r", "--onto", "main")
    assert code == 0 and "more than the 400 read" in report["left_behind_unchecked"], report
    assert any(w.startswith("left behind: NOT CHECKED") and "--land-unchecked" in w for w in report["warnings"])
    text = run_wtc(repo, "report", "--run", "r", "--onto", "main")
    assert "NOT CHECKED for uses of names the run removed" in text.stdout, text.stdout

    code, body = wtc(repo, "land", "--run", "r", "--onto", "main", "--yes")
    assert code == 6 and body["error"]["kind"] == "unchecked", body
    assert "NOT CHECKED" in body["error"]["message"] and "--land-unchecked" in body["error"]["fix"]
    assert git(repo, "rev-parse", "main") == main

    code, body = wtc(repo, "land", "--run", "r", "--onto", "main", "--yes", "--land-unchecked")
    assert code == 0, body
    assert git(repo, "rev-parse", "main") == git(repo, "rev-parse", "wtc/r/integration")


def test_land_in_warn_mode_lands_an_unchecked_run_with_the_warning(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"pkg/__init__.py": "", "pkg/utils.py": UTILS} | _many(MAX_RUN_CHANGED))
    assert wtc(repo, "run", "start", "--run", "r", "--left-behind", "warn")[0] == 0
    git(repo, "checkout", "-q", "wtc/r/integration")
    write(repo, {"pkg/utils.py": RENAMED} | _each_edited(MAX_RUN_CHANGED))
    commit_all(repo, "by hand")
    git(repo, "checkout", "-q", "main")
    code, body = wtc(repo, "land", "--run", "r", "--onto", "main", "--yes")
    # Warn mode does not refuse for uses left behind; the look for files that no longer parse has
    # the same bound and no mode, so it refuses alone, saying which look it is.
    assert code == 6 and "files that no longer parse" in body["error"]["message"], body
    assert "left_behind_unchecked" not in body["error"].get("details", {}), body
    code, body = wtc(repo, "land", "--run", "r", "--onto", "main", "--yes", "--land-unchecked")
    assert code == 0, body


def test_finish_of_more_changed_files_than_the_look_reads_does_not_merge_unless_told_to(tmp_path: Path) -> None:
    # `task check` exits 6 for it (above), `land` refuses: the finish's merge read nothing and merged.
    files = {"pkg/__init__.py": "", "pkg/utils.py": UTILS, "pkg/user.py": "from pkg.utils import parse\n"} \
        | _many(MAX_CHANGED)
    repo = _task_edited(tmp_path, files, "rm", ("pkg/**",), {"pkg/utils.py": RENAMED} | _each_edited(MAX_CHANGED),
                        None)
    tip = git(repo, "rev-parse", "wtc/r1/integration")
    code, body = wtc(repo, "task", "finish", "rm", "--run", "r1")
    assert code == 6 and body["error"]["kind"] == "unchecked", body
    assert "NOT MERGED" in body["error"]["message"] and "more than the 100 read" in body["error"]["message"]
    assert "--merge-unchecked" in body["error"]["fix"] and "split the task" in body["error"]["fix"], body
    assert git(repo, "rev-parse", "wtc/r1/integration") == tip
    code, status = wtc(repo, "task", "check", "rm", "--run", "r1")
    assert code == 6 and "more than the 100 read" in status["left_behind_unchecked"], status
    code, body = wtc(repo, "task", "finish", "rm", "--run", "r1", "--merge-unchecked")
    assert code == 0 and body["state"] == "merged", body
    assert git(repo, "rev-parse", "wtc/r1/integration") != tip


def _mentioned_by_many(count: int) -> dict[str, str]:
    """`count` modules that each mention the word `parse` (in a comment: no use, but the look must read
    each to know)."""
    return {f"pkg/user{n}.py": f"# the input is read by parse first\nVALUE = {n}\n" for n in range(count)}


def test_more_files_mentioning_a_removed_name_than_the_look_reads_is_no_answer_at_every_face(tmp_path: Path) -> None:
    from worktree_coord.check.left_behind import MAX_FILES

    files = {"pkg/__init__.py": "", "pkg/utils.py": UTILS} | _mentioned_by_many(MAX_FILES + 1)
    repo = _task_edited(tmp_path, files, "rm", ("pkg/utils.py",), {"pkg/utils.py": RENAMED}, None)
    code, body = wtc(repo, "task", "check", "rm", "--run", "r1")
    assert code == 6 and f"{MAX_FILES} of the {MAX_FILES + 1} files" in body["left_behind_unchecked"], body
    tip = git(repo, "rev-parse", "wtc/r1/integration")
    code, body = wtc(repo, "task", "finish", "rm", "--run", "r1")
    assert code == 6 and body["error"]["kind"] == "unchecked" and "--merge-unchecked" in body["error"]["fix"], body
    assert git(repo, "rev-parse", "wtc/r1/integration") == tip


def test_wtc_check_with_more_files_mentioning_a_removed_name_than_it_reads_exits_6(tmp_path: Path) -> None:
    from worktree_coord.check.uses_left_behind import MAX_MENTIONING

    repo = make_repo(tmp_path / "repo", {"pkg/__init__.py": "", "pkg/utils.py": UTILS}
                     | _mentioned_by_many(MAX_MENTIONING + 1))
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {"pkg/utils.py": RENAMED})
    commit_all(repo, "feature: parse renamed")
    done = run_wtc(repo, "check", "--own", "pkg/utils.py", "--head", "feature", "--target", "main", "--json")
    body = json.loads(done.stdout)
    assert done.returncode == 6 and body["exit_code"] == 6, done.stdout
    assert f"{MAX_MENTIONING} of the {MAX_MENTIONING + 1} files" in body["left_behind_unchecked"], body
