"""left_behind.moved_files reads an added file's definitions only when a deleted or rewritten file
needs a place it moved to: a task that edits files and adds one, deleting none (the common change of
a drain), has each of its files read once by the look, not the added ones again to compare them with
files that still define what they did. The answers are the same (a move, a stub, a kept file)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import commit, git, make_repo
from worktree_coord.check.left_behind import _definitions_reader, moved_files
from worktree_coord.gitrepo import GitRepo

BASE = {"pkg/a.py": "def a1(x):\n    return 1\n\n\ndef a2(x):\n    return 2\n",
        "pkg/b.py": "def b1(x):\n    return 1\n\n\ndef b2(x):\n    return 2\n"}


def _head(root: Path) -> str:
    return git(root, "rev-parse", "HEAD").strip()


def _moves(root: Path, pin: str, tip: str) -> tuple[dict[str, str], list[str]]:
    git = GitRepo(root)
    changes = git.changes(pin, tip)
    read = _definitions_reader(None)
    asked: list[str] = []

    def definitions(path: str, oid: str, data: bytes):
        asked.append(path)
        return read(path, oid, data)
    found = moved_files(changes, git.read_blob, {c.path for c in changes if c.old_oid is not None}, stubs=True,
                        definitions=definitions)
    return found, asked


def test_an_added_file_is_not_read_when_every_changed_file_still_defines_its_names(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", BASE)
    pin = _head(root)
    tip = commit(root, {"pkg/a.py": BASE["pkg/a.py"].replace("return 1", "return 10"),
                        "pkg/new.py": "def n1(x):\n    return 1\n"}, "edit and add")
    found, asked = _moves(root, pin, tip)
    assert found == {}
    assert "pkg/new.py" not in asked


def test_a_deleted_file_and_a_stub_still_find_where_their_names_went(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", BASE)
    pin = _head(root)
    tip = commit(root, {"pkg/b.py": None, "pkg/b_moved.py": BASE["pkg/b.py"] + "\n\ndef b3(x):\n    return 3\n",
                        "pkg/a.py": "from .a_new import *\n", "pkg/a_new.py": BASE["pkg/a.py"],
                        "pkg/other.py": "def o(x):\n    return 0\n"}, "move, stub")
    found, asked = _moves(root, pin, tip)
    assert found == {"pkg/b.py": "pkg/b_moved.py", "pkg/a.py": "pkg/a_new.py"}
    assert "pkg/b_moved.py" in asked

