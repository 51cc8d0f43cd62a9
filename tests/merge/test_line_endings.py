"""One line-ending convention per merged file: the side that changed the endings wins (issue 35, 1.7).

Base LF; left converts the file to CRLF and adds a function; right (LF) adds another: the merge was
clean and held both CRLF and LF lines. The result now takes the convention a side changed the file
to (as git's renormalisation reads it), else the base's, for every line: the line merge's and the
structured merge's, conflict markers included.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from worktree_coord.merge import Strategy, merge_file
from worktree_coord.merge.lines.line_endings import result_convention

WTC = str(Path(sys.executable).parent / "wtc")
BASE = b"import os\n\n\ndef a():\n    return os.sep\n\n\ndef z():\n    return 26\n"
WITH_B = BASE.replace(b"\n\n\ndef z", b"\n\n\ndef b():\n    return 2\n\n\ndef z")
WITH_Y = BASE + b"\n\ndef y():\n    return 25\n"
BOTH = BASE.replace(b"\n\n\ndef z", b"\n\n\ndef b():\n    return 2\n\n\ndef z") + b"\n\ndef y():\n    return 25\n"


def crlf(data: bytes) -> bytes:
    return data.replace(b"\n", b"\r\n")


def endings(data: bytes) -> tuple[int, int]:
    """(line breaks, of which CRLF)."""
    return data.count(b"\n"), data.count(b"\r\n")


def test_left_converting_to_crlf_makes_the_whole_result_crlf() -> None:
    result = merge_file(BASE, crlf(WITH_B), WITH_Y, "pkg/mod.py")
    assert result.clean and result.merged == crlf(BOTH)
    # Both sides adding at one place: the structured merge settles it, in the same convention.
    at_end = BASE + b"\n\ndef b():\n    return 2\n"
    result = merge_file(BASE, crlf(at_end), WITH_Y, "pkg/mod.py")
    assert result.clean and result.strategy is Strategy.STRUCTURED
    assert result.merged == crlf(at_end + b"\n\ndef y():\n    return 25\n")


def test_a_conversion_alone_changes_no_line() -> None:
    # Merged in one convention, left's conversion is no edit: right's edit applies to the CRLF file.
    edited = BASE.replace(b"return 26", b"return 0")
    result = merge_file(BASE, crlf(BASE), edited, "notes.txt")
    assert result.clean and result.merged == crlf(edited)


def test_right_converting_to_crlf_wins_too() -> None:
    result = merge_file(BASE, WITH_B, crlf(WITH_Y), "pkg/mod.py")
    assert result.clean and result.merged == crlf(BOTH)


def test_a_side_converting_crlf_to_lf_makes_the_whole_result_lf() -> None:
    result = merge_file(crlf(BASE), WITH_B, crlf(WITH_Y), "pkg/mod.py")
    assert result.clean and result.merged == BOTH
    result = merge_file(crlf(BASE), crlf(WITH_B), WITH_Y, "pkg/mod.py")
    assert result.clean and result.merged == BOTH


def test_crlf_left_unchanged_on_both_sides_stays_crlf() -> None:
    structured = merge_file(crlf(BASE), crlf(WITH_B), crlf(WITH_Y), "pkg/mod.py")
    assert structured.clean and structured.merged == crlf(BOTH)
    lines = merge_file(crlf(BASE), crlf(BASE.replace(b"return os.sep", b"return '/'")),
                       crlf(BASE.replace(b"return 26", b"return 0")), "pkg/mod.py")
    assert lines.clean and lines.strategy is Strategy.LINE
    assert lines.merged == crlf(BASE.replace(b"return os.sep", b"return '/'").replace(b"return 26", b"return 0"))


@pytest.mark.parametrize("path", ["pkg/mod.py", "notes.txt"])
def test_conflict_markers_take_the_convention_too(path: str) -> None:
    left = crlf(BASE.replace(b"return os.sep", b"return 'left'"))
    right = BASE.replace(b"return os.sep", b"return 'right'")
    result = merge_file(BASE, left, right, path)
    assert not result.clean and result.has_markers
    total, with_cr = endings(result.merged)
    assert total == with_cr and b"<<<<<<< ours\r\n" in result.merged and b"\r\n=======\r\n" in result.merged
    # Merged in one convention, the conflict is the one line both sides changed, not the whole file.
    assert [(c.ours, c.theirs) for c in result.conflicts] == [("    return 'left'\r\n", "    return 'right'\r\n")]


@pytest.mark.parametrize("path, base, left, right", [
    ("src/app.ts", b"export const a = 1;\n\nexport const z = 26;\n",
     b"export const a = 1;\r\n\r\nexport const b = 2;\r\n\r\nexport const z = 26;\r\n",
     b"export const a = 1;\n\nexport const z = 26;\n\nexport const y = 25;\n"),
    ("pkg/app.go", b"package app\n\nfunc A() int {\n\treturn 1\n}\n",
     b"package app\r\n\r\nfunc A() int {\r\n\treturn 1\r\n}\r\n\r\nfunc B() int {\r\n\treturn 2\r\n}\r\n",
     b"package app\n\nfunc A() int {\n\treturn 1\n}\n\nfunc C() int {\n\treturn 3\n}\n"),
    ("conf/app.json", b'{\n  "a": 1\n}\n', b'{\r\n  "a": 1,\r\n  "b": 2\r\n}\r\n', b'{\n  "a": 1,\n  "c": 3\n}\n'),
])
def test_other_languages_give_one_convention(path: str, base: bytes, left: bytes, right: bytes) -> None:
    result = merge_file(base, left, right, path)
    assert result.clean, result.notes
    total, with_cr = endings(result.merged)
    assert total == with_cr > 0


def test_an_input_that_mixes_conventions_gives_no_rule() -> None:
    # A file that holds both on purpose (a fixture of a parser's tests) keeps its bytes as merged.
    mixed = b"a = 1\r\nb = 2\n"
    assert result_convention(mixed, mixed, mixed) is None
    assert result_convention(b"", b"x\r\n", b"y\n") == "crlf"     # no base convention: left's
    assert result_convention(b"x\n", b"x\n", b"y\n") == "lf"
    result = merge_file(mixed + b"c = 3\n", mixed + b"c = 4\n", b"a = 0\r\nb = 2\nc = 3\n", "pkg/data.py")
    assert result.clean and result.merged == b"a = 0\r\nb = 2\nc = 4\n"


def test_merge_file_writes_one_convention(tmp_path: Path) -> None:
    files = []
    for name, data in (("base.py", BASE), ("left.py", crlf(WITH_B)), ("right.py", WITH_Y)):
        (tmp_path / name).write_bytes(data)
        files.append(str(tmp_path / name))
    done = subprocess.run([WTC, "merge-file", *files], capture_output=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout == crlf(BOTH)


def test_git_merge_through_the_driver_gives_one_convention(tmp_path: Path) -> None:
    """A real `git merge` of a branch that converted the file to CRLF, through `wtc driver install`."""
    import os

    env = dict(os.environ, HOME=str(tmp_path / "home"), GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="t",
               GIT_AUTHOR_EMAIL="t@example.invalid", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.invalid")
    repo = tmp_path / "repo"
    repo.mkdir()

    def git(*args: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, check=False)

    git("init", "-q", "-b", "main")
    (repo / "mod.py").write_bytes(BASE)
    git("add", "mod.py")
    git("commit", "-qm", "base")
    git("checkout", "-qb", "windows")
    (repo / "mod.py").write_bytes(crlf(WITH_B))
    git("commit", "-qam", "CRLF and b")
    git("checkout", "-q", "main")
    (repo / "mod.py").write_bytes(WITH_Y)
    git("commit", "-qam", "y")
    assert subprocess.run([WTC, "driver", "install", "--repo", str(repo)], env=env, capture_output=True).returncode == 0
    done = git("merge", "-q", "--no-edit", "windows")
    assert done.returncode == 0, done.stderr
    assert (repo / "mod.py").read_bytes() == crlf(BOTH)
