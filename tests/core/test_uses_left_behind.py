"""Finish names the uses a task's rename leaves behind in files it does not own (left_behind.py).

Found driving wtc on psf/requests: a task that owned `utils.py` renamed `guess_filename`, `models.py`
(another task's, or nobody's) still imported it; every merge was clean and the landed tree did not
import. The finish now says where, and the ways out; it never rejects (the task cannot fix them).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import git, make_repo, wtc

FILES = {
    "pkg/__init__.py": "",
    "pkg/utils.py": "def guess_filename(obj):\n    return getattr(obj, 'name', None)\n\n\ndef other():\n    return 1\n",
    "pkg/models.py": "from .utils import guess_filename\n\n\ndef upload_name(obj):\n    return guess_filename(obj)\n",
    "pkg/notes.py": "# guess_filename is described in utils\nTEXT = 'guess_filename'\n",
    "pkg/local.py": "def guess_filename(obj):\n    return 'mine'\n\n\nVALUE = guess_filename(None)\n",
}


def _finish_rename(tmp_path: Path, utils_after: str) -> dict:
    repo = make_repo(tmp_path / "repo", FILES)
    assert wtc(repo, "run", "start", "--run", "r1")[0] == 0
    code, body = wtc(repo, "task", "start", "rename", "--run", "r1", "--own", "pkg/utils.py")
    assert code == 0, body
    (Path(body["worktree"]) / "pkg/utils.py").write_text(utils_after)
    code, body = wtc(repo, "task", "finish", "rename", "--run", "r1")
    assert code == 0 and body["state"] == "merged", body
    return body


def test_a_rename_whose_old_name_another_file_imports_is_named_at_finish(tmp_path):
    body = _finish_rename(tmp_path, FILES["pkg/utils.py"].replace("def guess_filename", "def filename_of"))
    left = [note for note in body["notes"] if "still uses" in note]
    assert len(left) == 1, body["notes"]
    assert left[0].startswith("pkg/models.py:5 still uses guess_filename")   # the call the import serves
    assert "to filename_of" in left[0] and "wtc task widen rename --run r1 --own '/pkg/models.py'" in left[0]
    # a comment or a string naming it is no use; a file defining its own guess_filename is not ours
    assert not any("notes.py" in note or "local.py" in note for note in body["notes"])


def test_a_rename_that_keeps_the_old_name_as_an_alias_leaves_nothing_behind(tmp_path):
    after = FILES["pkg/utils.py"].replace("def guess_filename", "def filename_of") + "\n\nguess_filename = filename_of\n"
    body = _finish_rename(tmp_path, after)
    assert not any("still uses" in note for note in body["notes"]), body["notes"]


def test_an_edit_that_removes_no_name_reads_no_other_file(tmp_path):
    body = _finish_rename(tmp_path, FILES["pkg/utils.py"].replace("return 1", "return 2"))
    assert not any("still uses" in note for note in body["notes"]), body["notes"]
    assert git(tmp_path / "repo", "show", "wtc/r1/integration:pkg/utils.py").endswith("return 2")


def test_task_check_names_them_before_the_finish_without_counting_them_as_conflicts(tmp_path):
    repo = make_repo(tmp_path / "repo", FILES)
    assert wtc(repo, "run", "start", "--run", "r1")[0] == 0
    code, body = wtc(repo, "task", "start", "rename", "--run", "r1", "--own", "pkg/utils.py")
    worktree = Path(body["worktree"])
    (worktree / "pkg/utils.py").write_text(FILES["pkg/utils.py"].replace("def guess_filename", "def filename_of"))
    code, body = wtc(repo, "task", "check", "rename", "--run", "r1")      # uncommitted edits count
    assert code == 0 and body["clean"], body
    assert [(u["use_path"], u["use_lines"], u["name"], u["replacement"]) for u in body["left_behind"]] == \
        [("pkg/models.py", [5], "guess_filename", "filename_of")]
    assert "wtc task widen rename" in body["left_behind"][0]["note"]


def test_a_task_changing_more_files_than_finish_reads_says_it_did_not_look(tmp_path, monkeypatch):
    from worktree_coord.coordinator import left_behind
    from worktree_coord.gitrepo.repository import Change

    changes = [Change(f"pkg/m{i}.py", 0o100644, 0o100644, "0" * 40, "1" * 40) for i in range(left_behind.MAX_CHANGED + 1)]
    monkeypatch.setattr(left_behind, "semantic_profile", lambda path: object())
    with pytest.raises(left_behind.LookupTooLarge, match="more than the 100 finish reads"):
        left_behind.uses_left_behind(changes, lambda oid: b"", "HEAD", lambda commit, names: [], lambda c, p: None)
