"""tip_index.standing_words finds, in one pass over the runs of word characters, what its definition
says: the words of reach.words that no word character, `$` or byte past ASCII stands before (the
look-behind search it replaced, kept here as the statement), and the other words. Compared on
every fixture and source file of the repository and on random bytes."""

from __future__ import annotations

import random
import re
from pathlib import Path

from worktree_coord.merge.checks.reach import words
from worktree_coord.merge.checks.tip_index import standing_words

ROOT = Path(__file__).resolve().parents[2]
_STANDING = re.compile(rb"(?<![\w$\x80-\xff])[A-Za-z_$\x80-\xff][\w$\x80-\xff]*")


def _stated(data: bytes) -> tuple[frozenset[bytes], frozenset[bytes]]:
    clean = frozenset(_STANDING.findall(data))
    return clean, words(data) - clean


def test_standing_words_are_the_look_behind_searchs() -> None:
    files = [path for folder in ("fixtures", "worktree_coord") for path in (ROOT / folder).rglob("*") if path.is_file()]
    assert len(files) > 500
    for path in files:
        data = path.read_bytes()
        assert standing_words(data) == _stated(data), path
    rnd = random.Random(36)
    alphabet = b"ab_$0123456789 \n.x\x80\xc3\xa9-\t"
    for _ in range(5000):
        for data in (bytes(rnd.choice(alphabet) for _ in range(rnd.randint(0, 40))),
                     bytes(rnd.randint(0, 255) for _ in range(rnd.randint(0, 60)))):
            assert standing_words(data) == _stated(data), data
    assert standing_words(b"value = 0x1F + x1F_b 12 9$a") == (frozenset({b"value", b"x1F_b"}),
                                                                frozenset({b"x1F", b"$a"}))
