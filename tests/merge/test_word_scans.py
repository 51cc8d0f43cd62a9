"""reach.words and reach._gone_words, computed the cheaper way (runs split by a byte table; the
code of a text cut out only for words a comment line holds), find what their statements say: the
regular-expression search of a name, and (words(touched base lines) - words(new)) united with the
same over both texts less their comment lines and one-line string literals, the words a
touched line quoted that `new` holds but quotes nowhere, and the same over both codes less the
names written after a `.` (members of another value). Compared on every fixture and source file of the
repository, on edits of them, and on random bytes."""

from __future__ import annotations

import random
import re

from worktree_coord.merge.checks.reach import _COMMENT_LINES, _QUOTED, _gone_words, words
from worktree_coord.merge.lines.linediff import ranges_text, touched_lines

from tests.merge.word_samples import edited_sources, random_line_edits, random_texts, repository_files

_NAME = re.compile(rb"[A-Za-z_$\x80-\xff][\w$\x80-\xff]*")
_MEMBER_NAME = re.compile(rb"(?<=\.)[A-Za-z_$\x80-\xff][\w$\x80-\xff]*")


def _words(data: bytes) -> frozenset[bytes]:
    return frozenset(_NAME.findall(data))


def _gone(base: bytes, new: bytes | None) -> frozenset[bytes]:
    if new is None:
        return _words(base)
    touched = touched_lines(base, new)
    if not touched:
        return frozenset()
    text = ranges_text(base, touched)
    # ... and a word a touched line quoted that `new` still holds but quotes nowhere (an `__all__` entry).
    quoted = (_words(text) & _words(new) & _words(b"\n".join(_QUOTED.findall(text)))) \
        - _words(b"\n".join(_QUOTED.findall(new)))
    # ... and a word the touched code spelled bare that `new`'s code spells only as a member (`Object.isFrozen`).
    members = _words(_MEMBER_NAME.sub(b"", _code(text))) - _words(_MEMBER_NAME.sub(b"", _code(new)))
    return (_words(text) - _words(new)) | (_words(_code(text)) - _words(_code(new))) | quoted | members


def _code(text: bytes) -> bytes:
    """A text less its comment lines and its one-line string literals (each left as '')."""
    return _QUOTED.sub(b"''", _COMMENT_LINES.sub(b"", text))


def _edited(data: bytes, rnd: random.Random) -> bytes:
    """`data` with a few lines dropped, commented out or changed: comment lines that keep a name."""
    lines = data.split(b"\n")
    for _ in range(rnd.randint(1, 4)):
        at = rnd.randrange(len(lines))
        lines[at] = rnd.choice([b"", b"# " + lines[at], b"// " + lines[at], lines[at] + b"2", b"-- x"])
    return b"\n".join(lines)


def test_words_are_the_name_search_over_the_repository_and_random_bytes() -> None:
    for path in repository_files():
        data = path.read_bytes()
        assert words(data) == _words(data), path
    for data in random_texts(b"ab_$0123456789 \n.x\x80\xc3\xa9-\t\x0b\x0c\r\x1c\x1f"):
        assert words(data) == _words(data), data
    assert words(b"value = 0x1F + x1F_b 12 9$a caf\xc3\xa9") == {b"value", b"x1F", b"x1F_b", b"$a", b"caf\xc3\xa9"}


def test_gone_words_are_their_statement_on_edited_files_and_random_lines() -> None:
    for path, data, new in edited_sources(_edited):
        assert _gone_words(data, new) == _gone(data, new), path
    parts = [b"a", b"b1", b"_", b"$", b"9", b"0x", b" ", b"\t", b"#", b"//", b"--", b"*", b"/*", b"\x80", b".", b"ab",
             b"'", b'"', b"\\"]
    for base, new in random_line_edits(parts, count=20000, lines=8, keep=0.6):
        assert _gone_words(base, new) == _gone(base, new), (base, new)
    # A name kept only in a comment is gone; one a code line still holds is not.
    assert _gone_words(b"def parse(x):\n    return x\n", b"# parse was here\ndef parse_text(x):\n    return x\n") \
        == {b"parse"}
    assert _gone_words(b"def parse(x):\n    return x\n", b"def parse_text(x):\n    return parse(x)\n") == frozenset()
    # So is one only a member of another value still spells (immer's `Object.isFrozen(obj)` beside a removed isFrozen).
    assert _gone_words(b"function isFrozen(o) {\n  return 1\n}\nf(isFrozen(x))\n", b"f(Object.isFrozen(x))\n") \
        == {b"isFrozen", b"o", b"function", b"return", b"1"} - {b"1"}
    assert _gone_words(b"a = self.parse(x)\n", b"b = self.parse(x)\n") == {b"a"}
    # So is one a string alone still spells (headlessui's `name: 'Portal'` beside a renamed Portal).
    assert _gone_words(b"export let Portal = make()\n", b"export let Teleport = make()\nconst n = 'Portal'\n") \
        == {b"Portal"}
    assert _gone_words(b'def parse(x):\n    return x\n', b'def parse_text(x):\n    return "parse"\n') == {b"parse"}
    # A name dropped from a list of quoted names (`__all__`) while still defined is gone too.
    assert _gone_words(b'__all__ = ["parse", "other"]\n\n\ndef parse(x):\n    return x\n',
                       b'__all__ = ["other"]\n\n\ndef parse(x):\n    return x\n') == {b"parse"}


def test_gone_words_read_the_touched_code_for_members_only_where_new_spells_one(monkeypatch) -> None:
    """The touched code's words less members (`Object.isFrozen`) are made only for a kept word that
    `new` spells after a `.`: a bench_merge task file (24 return lines each gaining `# task 7`)
    makes none; one whose kept word is a member somewhere does (the immer case above)."""
    from worktree_coord.merge.checks import reach

    cut: list[bytes] = []

    def counted(text: bytes) -> bytes:
        cut.append(text)
        return _code(text)
    monkeypatch.setattr(reach, "_code", counted)
    base = b"".join(b"def f%d(x):\n    return x * %d + 5\n\n" % (k, k) for k in range(24))
    new = b"".join(b"def f%d(x):\n    return x * %d + 5  # task 7\n\n" % (k, k) for k in range(24))
    assert _gone_words(base, new) == _gone(base, new) == frozenset()
    assert cut == []
    assert _gone_words(b"f(isFrozen(x))\n", b"f(Object.isFrozen(x))\n") == {b"isFrozen"} and cut
