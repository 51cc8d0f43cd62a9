"""A fanout task whose work leaves a file that no longer parses is repaired before it merges, and one
that merges it anyway (its last attempt) is not a plain "merged".

Found driving wtc on pydata/xarray with `wtc fanout`: an agent wrote a stray line into a module, its
finish merged with a note (syntax.py: a note, never a block), and the fanout said only "merged" and
exited 0: the note reached no screen, and the integrated tree did not import. Now the task's
progress line and the summary name the file ("merged with notes"), the summary's next steps say how
to fix or approve it, and the fanout exits 1: the lead must act before landing. While attempts are
left, the runner looks at the worktree before the finish and runs the agent again with the files as
its report (kind `unparsed`), as for a failed verification: the broken version never merges.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import git, make_repo
from tests.fanout.helpers import count, environment, fanout, task, write_plan

FILES = {"pkg/__init__.py": "", "pkg/dtypes/__init__.py": "def is_string(x):\n    return isinstance(x, str)\n"}
STRAY = "write pkg/dtypes/__init__.py def is_string(x):\\n    return isinstance(x, str)\\n\\ndef is_text(x) tells text"


def _plan(tmp_path: Path) -> Path:
    return write_plan(tmp_path / "plan.json", [task("dtypes", STRAY), task("fine", "write pkg/fine/x.py X = 1")],
                      attempts=1)


def test_a_merge_with_a_file_that_does_not_parse_is_named_and_the_fanout_exits_1(tmp_path):
    repo = make_repo(tmp_path / "repo", FILES)
    code, events, summary = fanout(repo, _plan(tmp_path), "r1", log=tmp_path / "log")
    assert code == 1 and summary["exit_code"] == 1, summary
    rows = {row["task"]: row for row in summary["tasks"]}
    assert rows["dtypes"]["outcome"] == "merged" and rows["fine"]["notes"] == [], rows
    assert [note.split(": ", 1)[0] for note in rows["dtypes"]["notes"]] == ["pkg/dtypes/__init__.py:4:1"], rows
    ended = [e for e in events if e["event"] == "task.end" and e["task"] == "dtypes"]
    assert ended and ended[0]["notes"] == rows["dtypes"]["notes"]
    assert any("--allow-unparsed pkg/dtypes/__init__.py" in step for step in summary["next"]), summary["next"]


def test_the_text_says_it_on_the_progress_line_and_in_the_summary(tmp_path):
    repo = make_repo(tmp_path / "repo", FILES)
    done = subprocess.run([sys.executable, "-m", "worktree_coord", "fanout", str(_plan(tmp_path)), "--run", "r1"],
                          cwd=repo, env=environment(tmp_path / "log"), capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "dtypes: merged WITH A FILE THAT DOES NOT PARSE: pkg/dtypes/__init__.py:4:1" in done.stdout, done.stdout
    summary = done.stdout[done.stdout.index("run r1: "):]
    assert "merged with notes:\n  dtypes: pkg/dtypes/__init__.py:4:1: does not parse as python" in summary, summary


def test_a_file_left_unparseable_is_repaired_before_it_merges(tmp_path):
    repo = make_repo(tmp_path / "repo", FILES)
    fixed = "write pkg/dtypes/__init__.py def is_string(x):\\n    return isinstance(x, str)\\n\\n\\ndef is_text(x):\\n    return True"
    plan = write_plan(tmp_path / "plan.json", [task("dtypes", "@1 " + STRAY, "@repair " + fixed)], attempts=2)
    code, events, summary = fanout(repo, plan, "r1", log=tmp_path / "log")
    assert code == 0, summary
    assert [e["reason"] for e in events if e["event"] == "repair"] == ["unparsed"], events
    assert count(tmp_path / "log")["dtypes"] == 2 and summary["tasks"][0]["notes"] == []
    prompt = (repo / ".git/wtc/fanout/r1/dtypes/run-2.prompt.md").read_text()
    assert "pkg/dtypes/__init__.py:4:1: does not parse as python (it did before this task)" in prompt, prompt
    # The broken version never reached the integration branch: one merge, of the fixed file.
    history = git(repo, "log", "-p", "wtc/r1/integration", "--", "pkg/dtypes/__init__.py")
    assert "tells text" not in history and "def is_text(x):" in history
