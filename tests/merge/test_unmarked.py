"""reach._unmarked (the words of each changed line that only lost words: `export` dropped) makes a
pair of lines' words only where every word of the new line is a part of the old line's bytes: a
line that gained a word (most edits: bench_merge's tasks append `# task N` to 24 lines of a file)
cannot have only lost words, and neither line's word set is made. Equal to its statement on every source file
of the repository with lines edited, and on random lines."""

from __future__ import annotations

import random

from worktree_coord.merge.checks import reach
from worktree_coord.merge.checks.reach import _unmarked, words
from worktree_coord.merge.lines.linediff import hunks

from tests.merge.word_samples import edited_sources, random_line_edits


def _statement(base: bytes, new: bytes) -> frozenset[bytes]:
    """Every pair of lines of a hunk that replaces as many lines as it had: the new line's words,
    where they are fewer than the old line's and all among them."""
    found: set[bytes] = set()
    old_lines, new_lines = base.split(b"\n"), new.split(b"\n")
    for old_start, old_count, new_start, new_count in hunks(base, new):
        if old_count and old_count == new_count:
            for offset in range(old_count):
                before, after = words(old_lines[old_start - 1 + offset]), words(new_lines[new_start - 1 + offset])
                if after and after < before:
                    found |= after
    return frozenset(found)


def _edited(data: bytes, rnd: random.Random) -> bytes:
    lines = data.split(b"\n")
    for _ in range(rnd.randint(1, 6)):
        at = rnd.randrange(len(lines))
        words_of = lines[at].split(b" ")
        lines[at] = rnd.choice([b" ".join(words_of[1:]), lines[at] + b"  # more", b"export " + lines[at],
                                lines[at].replace(b"(", b"( ", 1), b" ".join(reversed(words_of))])
    return b"\n".join(lines)


def test_unmarked_is_its_statement_on_edited_sources_and_random_lines() -> None:
    for path, data, new in edited_sources(_edited):
        assert _unmarked(data, new) == _statement(data, new), path
    parts = [b"a", b"ab", b"b1", b"1b", b"_", b"$", b"9", b" ", b"(", b".", b"export ", b"pub ", b"\x80"]
    for base, new in random_line_edits(parts, count=5000, lines=6, keep=0.5):
        assert _unmarked(base, new) == _statement(base, new), (base, new)
    # The cases it was written for: `export` or `pub` dropped, and a word dropped beside a kept one.
    assert _unmarked(b"export enum MessageType {\n", b"enum MessageType {\n") == {b"enum", b"MessageType"}
    assert _unmarked(b"pub fn parse(\n", b"fn parse(\n") == {b"fn", b"parse"}
    assert _unmarked(b"x = a + b\n", b"x = a + bb\n") == frozenset()


def test_a_line_that_gained_a_word_is_not_scanned_again(monkeypatch) -> None:
    """A task file of bench_merge's drains: each of 24 functions' return line gains `# task 7`: no
    line's word set is made (48 before: each old line's and each new line's)."""
    base = b"".join(b"def f%d(x):\n    return x * %d + 5\n\n" % (k, k) for k in range(24))
    new = b"".join(b"def f%d(x):\n    return x * %d + 5  # task 7\n\n" % (k, k) for k in range(24))
    scanned: list[bytes] = []

    def counted(text: bytes) -> frozenset[bytes]:
        scanned.append(text)
        return words(text)
    monkeypatch.setattr(reach, "words", counted)
    assert _unmarked(base, new) == frozenset()
    assert scanned == []
