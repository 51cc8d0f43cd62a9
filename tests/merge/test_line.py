"""The line stage: libgit2 through ctypes agrees byte for byte with the real `git merge-file`."""

from __future__ import annotations

import random

import pytest

from worktree_coord.merge import line_merge
from worktree_coord.merge.lines.line import binding_available, git_merge_file, raw_line_merge

CASES = {
    "clean": (b"a\nb\nc\nd\ne\n", b"A\nb\nc\nd\ne\n", b"a\nb\nc\nd\nE\n"),
    "conflict": (b"a\nb\nc\n", b"a\nB\nc\n", b"a\nbb\nc\n"),
    "crlf": (b"a\r\nb\r\nc\r\n", b"a\r\nB\r\nc\r\n", b"a\r\nbb\r\nc\r\n"),
    "no_final_newline": (b"a\nb", b"a\nB", b"a\nC"),
    "empty_base": (b"", b"x\n", b"y\n"),
    "both_same": (b"a\n", b"b\n", b"b\n"),
}


def test_binding_loads_in_process() -> None:
    assert binding_available()


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("marker_size", [7, 10])
def test_binding_matches_git_merge_file(name: str, marker_size: int) -> None:
    base, left, right = CASES[name]
    labels = ("task", "pinned", "integration")
    ours = raw_line_merge(base, left, right, marker_size=marker_size, labels=labels)
    git = git_merge_file(base, left, right, marker_size=marker_size, labels=labels)
    assert ours == git


def test_binding_matches_git_on_random_edits() -> None:
    rng = random.Random(7)
    base_lines = [f"line {i}\n".encode() for i in range(200)]
    for _ in range(25):
        sides = []
        for _side in range(2):
            lines = list(base_lines)
            for _edit in range(rng.randint(1, 8)):
                at = rng.randrange(len(lines))
                choice = rng.random()
                if choice < 0.4:
                    lines[at] = f"changed {rng.random()}\n".encode()
                elif choice < 0.7:
                    lines.insert(at, f"added {rng.random()}\n".encode())
                else:
                    del lines[at]
            sides.append(b"".join(lines))
        base = b"".join(base_lines)
        assert raw_line_merge(base, sides[0], sides[1]) == git_merge_file(base, sides[0], sides[1])


def test_line_merge_reports_each_block() -> None:
    base, left, right = CASES["conflict"]
    result = line_merge(base, left, right)
    assert not result.clean
    assert result.merged.startswith(b"a\n<<<<<<< ours\nB\n||||||| base\nb\n=======\nbb\n>>>>>>> theirs\n")
    (conflict,) = result.conflicts
    assert (conflict.start_line, conflict.end_line) == (2, 8)
    assert (conflict.ours, conflict.base, conflict.theirs) == ("B\n", "b\n", "bb\n")


@pytest.fixture
def cwd_removed(tmp_path, monkeypatch):
    """The process sits in a folder that no longer exists: a task's worktree its own finish removed
    while `wtc task finish` ran from inside it (README: `cd "$WORKTREE" ... wtc task finish`)."""
    gone = tmp_path / "worktree"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    yield


def test_git_merge_file_runs_when_the_cwd_was_removed(cwd_removed) -> None:
    # git refuses to start in a deleted folder ("Unable to read current working directory"): the
    # empty-base line merge (both sides inserting at one place) went through it, failed, and the
    # structured merge of a Gemfile both tasks added a gem to fell back "failed internally".
    merged, clean = git_merge_file(b"", b"x\n", b"y\n")
    assert not clean and b"x\n" in merged and b"y\n" in merged


def test_merge_file_diff3_runs_when_the_cwd_was_removed(cwd_removed) -> None:
    from worktree_coord.gitrepo.linemerge import merge_file_diff3

    done = merge_file_diff3(b"a\nB\n", b"a\nb\n", b"a\nbb\n", ("ours", "base", "theirs"))
    assert not done.failed and done.status == 1, done.stderr


def test_structured_merge_does_not_fail_when_the_cwd_was_removed(cwd_removed) -> None:
    from worktree_coord.merge import merge_file

    base = b"source 'https://rubygems.org'\n\ngem 'rake'\n"
    merged = merge_file(base, base + b"gem 'rubocop'\n", base + b"gem 'yard'\n", "Gemfile")
    assert not any("internally" in note for note in merged.notes), merged.notes
