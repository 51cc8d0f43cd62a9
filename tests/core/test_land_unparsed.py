"""A landed tree whose files no longer parse does not land unseen.

Found driving wtc on pydata/xarray with `wtc fanout`: an agent wrote a stray line into
xarray/core/dtypes.py, its finish merged with a note (syntax.py: a note, never a block), and then
`wtc report` said "nothing left out" and `wtc land` landed a tree whose `import xarray` failed. Now
the report names each file of the integration tip that does not parse where the pin's version did
(or that the run added), with the tasks that changed it, and land refuses while one remains unless a
person approves it by path (`--allow-unparsed PATH`), as it does for names left behind.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.ci.ci_helpers import commit_all
from tests.conftest import git, make_repo, write, wtc_in_process
from worktree_coord.check.left_behind import MAX_RUN_CHANGED

FILES = {
    "pkg/__init__.py": "",
    "pkg/dtypes.py": "def is_string(x):\n    return isinstance(x, str)\n",
    "pkg/old_error.py": "def broken(:\n    pass\n",      # did not parse at the pin either: not the run's doing
    "pkg/fine.py": "def fine():\n    return 1\n",
}
STRAY = "def is_string(x):\n    return isinstance(x, str)\n\n\ndef is_text(x) returns whether x is text\n"


def _task(repo: Path, name: str, files: dict[str, str], *own: str, update: bool = False) -> dict:
    code, started = wtc_in_process(repo, "task", "start", name, "--run", "r", *[a for g in own for a in ("--own", g)])
    assert code == 0, started
    if update:   # a task starts from the pin: it takes the run's work in to fix it
        assert wtc_in_process(repo, "task", "update", name, "--run", "r")[0] == 0
    write(Path(started["worktree"]), files)
    code, finished = wtc_in_process(repo, "task", "finish", name, "--run", "r")
    assert code == 0 and finished["state"] == "merged", finished
    return finished


def _run_with_a_stray_line(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path / "repo", FILES)
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    finished = _task(repo, "stray", {"pkg/dtypes.py": STRAY, "pkg/fine.py": "def fine():\n    return 2\n",
                                     "pkg/old_error.py": "def broken(:\n    pass\n# still\n"}, "pkg/**")
    assert any(note.startswith("pkg/dtypes.py:5:") for note in finished["notes"]), finished["notes"]
    _task(repo, "added", {"pkg/new.py": "def new(:\n"}, "pkg/new.py")
    return repo


def test_the_report_names_each_file_the_run_left_unparseable_with_its_tasks(tmp_path):
    repo = _run_with_a_stray_line(tmp_path)
    code, report = wtc_in_process(repo, "report", "--run", "r", "--onto", "main")
    assert code == 0, report
    assert [(u["path"], u["language"], u["line"], u["added"], u["tasks"]) for u in report["unparsed"]] == [
        ("pkg/dtypes.py", "python", 5, False, ["stray"]), ("pkg/new.py", "python", 1, True, ["added"])]
    assert all(u["column"] >= 1 for u in report["unparsed"]) and report["unparsed_unchecked"] == ""
    warned = [w for w in report["warnings"] if w.startswith("does not parse: ")]
    assert len(warned) == 2 and "pkg/dtypes.py:5:" in warned[0] and "task stray changed it" in warned[0], warned
    assert "--allow-unparsed pkg/dtypes.py" in warned[0] and "a file the run added" in warned[1]

    text = subprocess.run([sys.executable, "-m", "worktree_coord", "report", "--run", "r"], cwd=repo,
                          capture_output=True, text=True)
    assert text.returncode == 0 and "warning: does not parse: pkg/dtypes.py:5:" in text.stdout, text.stdout
    assert "nothing left out" not in text.stdout


def test_land_refuses_while_a_file_does_not_parse_unless_approved_by_path(tmp_path):
    repo = _run_with_a_stray_line(tmp_path)
    main = git(repo, "rev-parse", "main")

    code, body = wtc_in_process(repo, "land", "--run", "r", "--onto", "main", "--yes")
    assert code == 1 and body["error"]["kind"] == "action_required", body
    assert "pkg/dtypes.py:5:" in body["error"]["message"] and "(task stray)" in body["error"]["message"]
    assert "pkg/new.py:1:" in body["error"]["message"] and "(task added)" in body["error"]["message"]
    assert "--allow-unparsed pkg/dtypes.py --allow-unparsed pkg/new.py" in body["error"]["fix"]
    assert "newer than wtc's grammar" in body["error"]["fix"]
    assert git(repo, "rev-parse", "main") == main

    # An approval of a path that is not unparsed is bad input, as a name not left behind is.
    code, body = wtc_in_process(repo, "land", "--run", "r", "--onto", "main", "--yes",
                                "--allow-unparsed", "pkg/old_error.py")
    assert code == 2 and "pkg/old_error.py" in body["error"]["message"], body
    # One approved, one not: still refused, naming only the other.
    code, body = wtc_in_process(repo, "land", "--run", "r", "--onto", "main", "--yes",
                                "--allow-unparsed", "pkg/dtypes.py")
    assert code == 1 and "pkg/new.py" in body["error"]["message"] and "dtypes" not in body["error"]["message"]
    assert git(repo, "rev-parse", "main") == main

    code, body = wtc_in_process(repo, "land", "--run", "r", "--onto", "main", "--yes",
                                "--allow-unparsed", "pkg/dtypes.py", "--allow-unparsed", "pkg/new.py")
    assert code == 0, body
    assert [u["path"] for u in body["unparsed"]] == ["pkg/dtypes.py", "pkg/new.py"]
    assert git(repo, "rev-parse", "main") == git(repo, "rev-parse", "wtc/r/integration")


def test_a_task_that_fixes_the_file_clears_the_refusal(tmp_path):
    repo = _run_with_a_stray_line(tmp_path)
    _task(repo, "fix", {"pkg/dtypes.py": FILES["pkg/dtypes.py"], "pkg/new.py": "def new():\n    pass\n"}, "pkg/**",
          update=True)
    code, report = wtc_in_process(repo, "report", "--run", "r")
    assert code == 0 and report["unparsed"] == [], report["unparsed"]
    code, body = wtc_in_process(repo, "land", "--run", "r", "--onto", "main", "--yes")
    assert code == 0, body


def test_the_land_prompt_names_the_files_and_approving_it_lands(tmp_path):
    from worktree_coord import Coordinator
    from worktree_coord.output import render

    repo = _run_with_a_stray_line(tmp_path)
    with Coordinator(repo) as coordinator:
        report = coordinator.report("r", onto="main")
        question = render.land_question(report, "main")
        assert "WITH FILES THAT DO NOT PARSE: pkg/dtypes.py:5:" in question and "pkg/new.py:1:" in question
        landed = coordinator.land("r", "main", approved=True, allow_unparsed=render.unparsed_paths(report))
    assert landed.exit_code == 0 and "landed files that do not parse" in render.landed(landed)


def test_more_changed_files_than_the_look_reads_is_not_checked_and_land_refuses_it(tmp_path):
    many = {f"pkg/m{n}.py": f"def f{n}():\n    return {n}\n" for n in range(MAX_RUN_CHANGED + 1)}
    repo = make_repo(tmp_path / "repo", many)
    assert wtc_in_process(repo, "run", "start", "--run", "r", "--left-behind", "off")[0] == 0
    git(repo, "checkout", "-q", "wtc/r/integration")   # by hand: a run that changed more files than are read
    write(repo, {path: text + "x = (\n" for path, text in many.items()})
    commit_all(repo, "by hand")
    git(repo, "checkout", "-q", "main")
    main = git(repo, "rev-parse", "main")

    code, report = wtc_in_process(repo, "report", "--run", "r")
    assert code == 0 and report["unparsed"] == [] and "more than the 400" in report["unparsed_unchecked"], report
    assert any(w.startswith("does not parse: NOT CHECKED") for w in report["warnings"]), report["warnings"]
    code, body = wtc_in_process(repo, "land", "--run", "r", "--onto", "main", "--yes")
    assert code == 6 and "NOT CHECKED for files that no longer parse" in body["error"]["message"], body
    assert "--land-unchecked" in body["error"]["fix"] and git(repo, "rev-parse", "main") == main
    code, body = wtc_in_process(repo, "land", "--run", "r", "--onto", "main", "--yes", "--land-unchecked")
    assert code == 0, body
