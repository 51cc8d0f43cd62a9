"""A task that leaves a file its language's grammar cannot parse is told so at finish, by line.

The merge and its semantic checks read a version that does not parse as nothing, so such a task merged
without a word and the landed tree did not load (found driving wtc on click: a fanout agent wrote
`def fo-c_marker()`). A note, not a block: the run's verify command is the gate.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import git, make_repo, wtc_in_process
from worktree_coord.merge.checks.syntax import BrokenSyntax, broken_syntax


def test_a_finish_names_each_file_the_task_left_unparseable_and_only_those(tmp_path):
    repo = make_repo(tmp_path / "repo", {
        "pkg/a.py": "def ok():\n    return 1\n",
        "pkg/old_error.py": "def broken(:\n    pass\n",       # did not parse before the task either
        "conf.json": '{"a": 1}\n',
        "README.md": "# r\n",
    })
    assert wtc_in_process(repo, "run", "start", "-r", "r1")[0] == 0
    code, started = wtc_in_process(repo, "task", "start", "t1", "--run", "r1")
    assert code == 0
    worktree = Path(started["worktree"])
    (worktree / "pkg/a.py").write_text("def ok():\n    return 1\n\n\ndef fo-c_marker():\n    return 2\n")
    (worktree / "pkg/new.py").write_text("def new(:\n")
    (worktree / "pkg/fine.py").write_text("def fine():\n    return 3\n")
    (worktree / "pkg/old_error.py").write_text("def broken(:\n    pass\n# still broken\n")
    (worktree / "conf.json").write_text('{"a": 1,}\n')
    (worktree / "README.md").write_text("# r\n\nmore (\n")
    code, finished = wtc_in_process(repo, "task", "finish", "t1", "--run", "r1")
    assert code == 0 and finished["state"] == "merged", finished
    named = [note.split(": ", 1)[0] for note in finished["notes"] if "does not parse" in note]
    assert named == ["conf.json:1:8", "pkg/a.py:5:5", "pkg/new.py:1:9"], finished["notes"]
    a_note = next(note for note in finished["notes"] if note.startswith("pkg/a.py:"))
    assert "does not parse as python (it did before this task)" in a_note
    assert "a file this task added" in next(note for note in finished["notes"] if note.startswith("pkg/new.py:"))
    # The change itself merged as it was: a note never drops or blocks work.
    assert "fo-c_marker" in git(repo, "show", "wtc/r1/integration:pkg/a.py")


def test_a_task_whose_files_all_parse_gets_no_such_note(tmp_path):
    repo = make_repo(tmp_path / "repo", {"pkg/a.py": "def ok():\n    return 1\n"})
    assert wtc_in_process(repo, "run", "start", "-r", "r1")[0] == 0
    code, started = wtc_in_process(repo, "task", "start", "t1", "--run", "r1")
    assert code == 0
    (Path(started["worktree"]) / "pkg/a.py").write_text("def ok():\n    return 2\n")
    code, finished = wtc_in_process(repo, "task", "finish", "t1", "--run", "r1")
    assert code == 0 and not [note for note in finished["notes"] if "does not parse" in note], finished["notes"]


def test_broken_syntax_reads_each_pair_by_its_languages_grammar():
    found = broken_syntax([
        ("a.py", b"x = 1\n", b"x = (\n"),                   # broken by the change
        ("b.py", None, b"def f(:\n"),                        # added broken
        ("c.py", b"def f(:\n", b"def f(:\n  pass\n"),        # broken before: the grammar's gap or an old error
        ("d.py", b"x = 1\n", None),                          # deleted
        ("e.txt", b"a\n", b"(\n"),                           # no profile reads it
        ("f.go", b"package f\n", b"package f\nfunc (\n"),
        ("g.py", b"x = 1\n", b"x = 2\n"),                    # fine
    ])
    assert [(b.path, b.language) for b in found] == [("a.py", "python"), ("b.py", "python"), ("f.go", "go")]
    assert all(isinstance(b, BrokenSyntax) and b.line >= 1 and b.column >= 1 for b in found)


def test_the_line_named_is_where_the_grammar_stopped_reading_not_where_its_error_node_begins():
    """immer's types-external.ts (the false block hunt, user-drive13): the grammar wraps a whole
    interface (or the whole file) in one ERROR node, and the note named its first line (line 1 of a
    256-line file) while the token it could not read stood at line 182: `fix the syntax there`
    sent the reader to a line holding nothing wrong."""
    interface = (b'import {a} from "./a"\n\nexport interface P {\n\t<C>(\n\t\tr: C\n\t): C\n\n'
                 b'\t<R extends A>(r: R): X<\n\t\tR,\n\t\tfalse\n\t>\n\t<S>(r: S): S\n}\n\nexport type Q = P\n')
    [found] = broken_syntax([("src/p.ts", b"export type Q = number\n", interface)])
    assert (found.line, found.column) == (8, 13), found   # `A>(r: R)`: read as a type argument of C
