"""A use left behind in a file the task already owns is advised as the task's to update, not widened.

Found driving wtc on scrapy: a task removed `JsonRequest` from `scrapy/http/__init__.py`, was
widened to the three test files importing it, and updated two; its finish named the third and
advised "the lead widens the task (`wtc task widen ... --own '/tests/test_http_request_json.py'`)",
a file the task already owned. The lead ran a widen that changed nothing; the agent needed to hear
that the file is its own to edit.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import make_repo, wtc_in_process

FILES = {
    "pkg/__init__.py": "",
    "pkg/utils.py": "def unquote(s):\n    return s.strip('\"')\n\n\ndef other():\n    return 1\n",
    "pkg/auth.py": "from pkg.utils import unquote\n\n\ndef auth(x):\n    return unquote(x)\n",
}


def _finish_removing_unquote(tmp_path: Path, *owns: str) -> list[str]:
    repo = make_repo(tmp_path / "repo", FILES)
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    code, body = wtc_in_process(repo, "task", "start", "t", "--run", "r", *[a for own in owns for a in ("--own", own)])
    assert code == 0, body
    (Path(body["worktree"]) / "pkg/utils.py").write_text("def other():\n    return 1\n")
    code, check = wtc_in_process(repo, "task", "check", "t", "--run", "r")
    assert code == 1, check
    code, body = wtc_in_process(repo, "task", "finish", "t", "--run", "r")
    assert (code, body["state"]) == (1, "conflict"), body
    return [note for note in body["notes"] if "still use" in note]


def test_a_use_in_a_file_the_task_owns_is_advised_as_its_own_to_update(tmp_path):
    notes = _finish_removing_unquote(tmp_path, "pkg/utils.py", "pkg/auth.py")
    assert len(notes) == 1 and notes[0].startswith("pkg/auth.py (lines 1, 5: 2 uses) still uses unquote"), notes
    assert "wtc task widen" not in notes[0], notes
    assert "or update the use in pkg/auth.py: the task's boundary holds it" in notes[0], notes


def test_a_use_in_a_file_the_task_does_not_own_still_advises_the_widen(tmp_path):
    notes = _finish_removing_unquote(tmp_path, "pkg/utils.py")
    assert len(notes) == 1 and "`wtc task widen t --run r --own '/pkg/auth.py' --why '...'`" in notes[0], notes
