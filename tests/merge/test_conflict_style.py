"""Conflict blocks in git's conflict styles, and the merge driver following `merge.conflictStyle`.

The driver always wrote diff3 blocks (the base section), whatever the repository's
`merge.conflictStyle` said (issue 35, section 2). The engine now writes a result's blocks in
`merge` (no base section), `diff3` or `zdiff3` (lines both sides share at a block's edges moved
out, as git's xdiff does); the driver reads the style from the repository, `wtc merge-file`
standalone keeps diff3 and takes `--conflict-style`.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from worktree_coord.errors import UsageError
from worktree_coord.merge import merge_file
from worktree_coord.merge.lines.line import git_merge_file
from worktree_coord.merge.lines.markers import parse_conflicts

WTC = str(Path(sys.executable).parent / "wtc")
TEXT = (b"A\nB\nC\n", b"A\nQ\nB\nC\nD\n", b"A\nQ\nX\nC\nY\n")
PY_BASE = b"def a():\n    x = 1\n    return x\n\n\ndef z():\n    return 0\n"
PY_LEFT = PY_BASE.replace(b"    x = 1\n", b"    x = 2\n    y = 1\n")
PY_RIGHT = PY_BASE.replace(b"    x = 1\n", b"    x = 3\n    y = 1\n")


def test_zdiff3_of_a_line_merge_is_what_git_writes() -> None:
    result = merge_file(*TEXT, "notes.txt", conflict_style="zdiff3")
    assert result.merged == git_merge_file(*TEXT, zdiff3=True)[0]
    assert result.merged.startswith(b"A\nQ\n<<<<<<< ours\nB\n||||||| base\nB\n=======\nX\n>>>>>>> theirs\n")


def test_merge_style_has_no_base_section_and_the_lines_follow_the_blocks() -> None:
    result = merge_file(*TEXT, "notes.txt", conflict_style="merge")
    assert b"|||||||" not in result.merged
    assert result.merged == (b"A\nQ\n<<<<<<< ours\nB\n=======\nX\n>>>>>>> theirs\nC\n"
                             b"<<<<<<< ours\nD\n=======\nY\n>>>>>>> theirs\n")
    read_back = parse_conflicts(result.merged)
    assert [(c.start_line, c.end_line) for c in result.conflicts] == [(c.start_line, c.end_line) for c in read_back]
    assert [(c.ours, c.theirs) for c in result.conflicts] == [("B\n", "X\n"), ("D\n", "Y\n")]
    assert result.conflicts[0].base == "B\n", "the base stays known to the caller, only the markers drop it"


@pytest.mark.parametrize("style, expected", [
    ("diff3", b"def a():\n<<<<<<< ours\n    x = 2\n||||||| base\n    x = 1\n=======\n    x = 3\n>>>>>>> theirs\n"),
    ("zdiff3", b"def a():\n<<<<<<< ours\n    x = 2\n||||||| base\n    x = 1\n=======\n    x = 3\n>>>>>>> theirs\n"),
    ("merge", b"def a():\n<<<<<<< ours\n    x = 2\n=======\n    x = 3\n>>>>>>> theirs\n"),
])
def test_structured_conflicts_take_the_style(style: str, expected: bytes) -> None:
    result = merge_file(PY_BASE, PY_LEFT, PY_RIGHT, "pkg/m.py", conflict_style=style)
    assert result.merged.startswith(expected + b"    y = 1\n    return x\n")
    [conflict] = result.conflicts
    assert (conflict.start_line, conflict.end_line) == (2, expected.count(b"\n"))


def test_zdiff3_moves_shared_edge_lines_out_of_a_structured_block() -> None:
    base = b"def a():\n    return 1\n"
    left = b"def a():\n    log()\n    return 2\n    # done\n"
    right = b"def a():\n    log()\n    return 3\n    # done\n"
    diff3 = merge_file(base, left, right, "pkg/m.py").merged
    zdiff3 = merge_file(base, left, right, "pkg/m.py", conflict_style="zdiff3")
    assert b"<<<<<<< ours\n    log()\n" in diff3
    assert zdiff3.merged == (b"def a():\n    log()\n<<<<<<< ours\n    return 2\n||||||| base\n    return 1\n=======\n"
                             b"    return 3\n>>>>>>> theirs\n    # done\n")
    assert [(c.start_line, c.end_line) for c in zdiff3.conflicts] == [(3, 9)]


def test_an_unknown_style_is_bad_input() -> None:
    with pytest.raises(UsageError):
        merge_file(*TEXT, "notes.txt", conflict_style="fancy")


def test_merge_file_flag_and_its_standalone_default(tmp_path: Path) -> None:
    paths = []
    for name, data in zip(("base.txt", "left.txt", "right.txt"), TEXT):
        (tmp_path / name).write_bytes(data)
        paths.append(str(tmp_path / name))
    plain = subprocess.run([WTC, "merge-file", *paths], capture_output=True, check=False)
    assert plain.returncode == 1 and plain.stdout == git_merge_file(*TEXT)[0], "diff3, as before"
    merge = subprocess.run([WTC, "merge-file", *paths, "--conflict-style", "merge"], capture_output=True, check=False)
    assert merge.returncode == 1 and b"|||||||" not in merge.stdout
    bad = subprocess.run([WTC, "merge-file", *paths, "--conflict-style", "fancy"], capture_output=True, check=False)
    assert bad.returncode == 2 and b"merge, diff3, zdiff3" in bad.stderr


def _conflicted_repo(tmp_path: Path, style: str | None) -> tuple[Path, dict[str, str]]:
    env = dict(os.environ, HOME=str(tmp_path / "home"), GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="t",
               GIT_AUTHOR_EMAIL="t@example.invalid", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.invalid")
    repo = tmp_path / "repo"
    repo.mkdir()

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, check=True)

    git("init", "-q", "-b", "main")
    (repo / "m.py").write_bytes(PY_BASE)
    git("add", "m.py")
    git("commit", "-qm", "base")
    git("checkout", "-qb", "other")
    (repo / "m.py").write_bytes(PY_RIGHT)
    git("commit", "-qam", "right")
    git("checkout", "-q", "main")
    (repo / "m.py").write_bytes(PY_LEFT)
    git("commit", "-qam", "left")
    if style is not None:
        git("config", "merge.conflictStyle", style)
    assert subprocess.run([WTC, "driver", "install", "--repo", str(repo)], env=env, capture_output=True).returncode == 0
    return repo, env


@pytest.mark.parametrize("style, base_section", [("diff3", True), ("zdiff3", True), ("merge", False), (None, False)])
def test_the_driver_writes_the_repository_conflict_style(tmp_path: Path, style: str | None, base_section: bool) -> None:
    repo, env = _conflicted_repo(tmp_path, style)
    done = subprocess.run(["git", "merge", "-q", "--no-edit", "other"], cwd=repo, env=env, capture_output=True)
    assert done.returncode != 0
    text = (repo / "m.py").read_bytes()
    assert text.count(b"<<<<<<< ") == 1 and text.count(b"\n=======\n") == 1
    assert (b"\n||||||| " in text) is base_section, text
    assert b"    y = 1\n    return x\n" in text, "the structured merge still localized the conflict"
