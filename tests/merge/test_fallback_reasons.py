"""Each reason the merge gives for keeping git's line conflicts says what happened in the user's
terms (which construct, which version by the label its markers carry, which lines) and what to do.

Found driving wtc on spf13/cobra and again on sinatra/sinatra and slimphp/Slim: "structured result
was not smaller than the line merge" and "container delimiters changed on both sides" told a user
nothing they could act on, and "an input already holds conflict markers" did not say which input.
The faces print these notes as each conflicted file's `why` (finish, `task check`, `wtc report`,
`wtc merge-file`'s stderr): tests/queue/test_merge_queue.py and tests/report/test_fallback_why.py.
"""

from __future__ import annotations

import re

from worktree_coord.merge import merge_file

LABELS = ("integration r1", "base", "task t-b")
TAIL = re.compile(r"; git's line conflicts? \(lines? [\d, -]+\) stands?: in each, keep what `integration r1` "
                  r"\(above\) and `task t-b` \(below\) each meant, then remove the markers$")


def _why(base: bytes, left: bytes, right: bytes, path: str) -> str:
    result = merge_file(base, left, right, path, labels=LABELS)
    assert not result.clean and len(result.notes) == 1, result.notes
    [note] = result.notes
    assert TAIL.search(note), note          # what stands, its lines, the two sides and what to do
    return TAIL.sub("", note)


def test_a_delete_against_an_edit_names_the_declaration_not_the_engine() -> None:
    base = b"def a():\n    return 1\n\n\ndef b():\n    return 2\n"
    left = base.replace(b"def b():\n    return 2\n", b"")
    right = base.replace(b"return 2", b"return 22")
    why = _why(base, left, right, "m.py")
    assert "not smaller" not in why
    assert why == ("wtc's structured merge found the same overlap as git's line merge: one side deleted `def b`, "
                   "which the other side changed, and no declaration-level rule keeps the two edits apart")


def test_both_sides_changing_the_file_header_says_where_not_container_delimiters() -> None:
    why = _why(b"# header\n\nimport os\n", b"# header A\n\nimport os\nimport sys\n", b"# header B\n\nimport os\n",
               "m.py")
    assert "delimiters" not in why and "container" not in why
    assert why.endswith("both sides changed the lines around the declarations of the file (before the first "
                        "one: a header, an opening line; or after the last one)")


def test_committed_markers_name_the_version_that_holds_them() -> None:
    base = b"a = 1\n"
    why = _why(base, b"a = 2\n", b"<<<<<<< old\na = 3\n=======\na = 4\n>>>>>>> other\n", "m.py")
    assert why.startswith("the `task t-b` version holds conflict markers (lines of 7 `<`, `=` or `>`) committed "
                          "from an earlier merge"), why


def test_a_version_that_is_not_utf8_is_named() -> None:
    why = _why(b"x = 1\n", b"x = 2\n", b"x = '\xff'\n", "m.py")
    assert why.startswith("the `task t-b` version is not UTF-8 text"), why


def test_a_side_that_does_not_parse_is_named_with_its_line_and_the_fix() -> None:
    why = _why(b"def f():\n    return 1\n", b"def f():\n    return 2\n", b"def f(:\n    return 3\n", "m.py")
    assert why == ("the `task t-b` version does not parse as python (line 1:7) where the base did, so wtc's "
                   "structured merge could not read it: that side's edit has a syntax error to fix as well")


def test_an_entry_list_one_side_reordered_names_the_side_and_the_entry() -> None:
    why = _why(b"*.o\nbuild/\n", b"build/\n*.o\n", b"*.o\nbuild/\ndist/\n", ".gitignore")
    assert why == ("wtc's entry-by-entry merge of this ignore-list file could not run: the `integration r1` "
                   "version moves the entry '*.o' to another place in the list")


def test_no_reason_left_in_the_engine_words_users_could_not_act_on() -> None:
    # Every sentence a fallback can give, read from the source: none of the old engine words.
    from pathlib import Path

    import worktree_coord.merge as merge

    root = Path(merge.__file__).parent
    text = "".join(path.read_text() for path in root.rglob("*.py"))
    raised = re.findall(r"(?:Unmergeable|fallback)\(f?\"([^\"]*)", text)
    assert raised
    for words in ("not smaller than the line merge", "delimiters", "non-member", "round-trip", "an input ",
                  "structured result", "member order", "mid-line"):
        assert not [r for r in raised if words in r], words
