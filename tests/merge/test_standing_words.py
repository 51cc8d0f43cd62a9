"""tip_index.standing_words finds, in one pass over the runs of word characters, what its definition
says: the words of reach.words that no word character, `$` or byte past ASCII stands before (the
look-behind search it replaced, kept here as the statement), and the other words. Compared on
every fixture and source file of the repository and on random bytes."""

from __future__ import annotations

import re

from worktree_coord.merge.checks.reach import words
from worktree_coord.merge.checks.tip_index import standing_words

from tests.merge.word_samples import random_texts, repository_files

_STANDING = re.compile(rb"(?<![\w$\x80-\xff])[A-Za-z_$\x80-\xff][\w$\x80-\xff]*")


def _stated(data: bytes) -> tuple[frozenset[bytes], frozenset[bytes]]:
    clean = frozenset(_STANDING.findall(data))
    return clean, words(data) - clean


def test_standing_words_are_the_look_behind_searchs() -> None:
    for path in repository_files():
        data = path.read_bytes()
        assert standing_words(data) == _stated(data), path
    for data in random_texts(b"ab_$0123456789 \n.x\x80\xc3\xa9-\t"):
        assert standing_words(data) == _stated(data), data
    assert standing_words(b"value = 0x1F + x1F_b 12 9$a") == (frozenset({b"value", b"x1F_b"}),
                                                                frozenset({b"x1F", b"$a"}))
