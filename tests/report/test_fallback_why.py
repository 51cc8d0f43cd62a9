"""The faces show why the merge kept git's conflict, in words a user acts on: `task check` (each
conflicted file's why, as finish says it), finish's conflict report and `wtc report` (the lines
and the why of each task's conflicted file, which it listed as a bare path before).

The shape: two tasks rewrite a module's header comment, one adding an import below it; the reason
says which lines both changed (around the file's declarations, not "container delimiters"), what
stands (git's conflict, its lines, both sides by the labels on its markers) and what to do.
tests/merge/test_fallback_reasons.py holds every reason.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import make_repo, write, wtc_in_process
from worktree_coord.output.render import run_report, task_check
from worktree_coord.results import RunReport, TaskCheck

BASE = "# header\n\nimport os\n"
DELETED = "# header A\n\nimport os\nimport sys\n"
CHANGED = "# header B\n\nimport os\n"
SAYS = "both sides changed the lines around the declarations of the file (before the first one: a header"


def test_check_finish_and_report_say_why_in_the_users_terms(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"pkg/m.py": BASE})
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    for task, text in (("del", DELETED), ("edit", CHANGED)):
        code, started = wtc_in_process(repo, "task", "start", task, "--run", "r", "--own", "pkg/**")
        assert code == 0, started
        write(Path(started["worktree"]), {"pkg/m.py": text})

    code, checked = wtc_in_process(repo, "task", "check", "edit", "--run", "r")
    assert code == 1, checked
    shown = task_check(TaskCheck.from_json(checked))
    [why] = [line for line in shown.splitlines() if line.strip().startswith("why pkg/m.py:")]
    assert SAYS in why and "keep what `task edit` (above) and `task del` (below) each meant" in why, shown

    assert wtc_in_process(repo, "task", "finish", "del", "--run", "r")[0] == 0
    code, done = wtc_in_process(repo, "task", "finish", "edit", "--run", "r")
    assert code == 1 and done["state"] == "conflict", done
    [row] = done["conflicts"]
    assert any(SAYS in w and "git's line conflict (lines" in w for w in row["why"]), row
    assert "integration r" in row["why"][0] and "`task edit`" in row["why"][0]

    code, report = wtc_in_process(repo, "report", "--run", "r", "--onto", "main")
    text = run_report(RunReport.from_json(report))
    assert f"  conflict  pkg/m.py  lines {row['start_line']}-{row['end_line']} (task edit)" in text, text
    assert any(line.startswith("  why       pkg/m.py (task edit): ") and SAYS in line for line in text.splitlines())
