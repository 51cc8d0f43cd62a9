"""A fanout task that merges a file that no longer parses is not a plain "merged".

Found driving wtc on pydata/xarray with `wtc fanout`: an agent wrote a stray line into a module, its
finish merged with a note (syntax.py: a note, never a block), and the fanout said only "merged" and
exited 0: the note reached no screen, and the integrated tree did not import. Now the task's
progress line and the summary name the file ("merged with notes"), the summary's next steps say how
to fix or approve it, and the fanout exits 1: the lead must act before landing.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import make_repo
from tests.fanout.helpers import environment, fanout, task, write_plan

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
