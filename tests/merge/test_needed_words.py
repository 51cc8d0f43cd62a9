"""symbols.needed_words: a text one of which a source must hold for a query to match in it, read
from the query's `#eq?` tests; star_names answers a source without it as the query would, without
compiling the query (Python's `star_names` query: ~10 ms of CPU in every finish that changed a
Python file)."""

from __future__ import annotations

from pathlib import Path

from worktree_coord.merge.checks import symbols
from worktree_coord.merge.checks.semantic import semantic_profile

ROOT = Path(__file__).resolve().parents[2] / "fixtures"
SNIPPETS = [b"x = 1\n", b'__all__ = ["a", "b"]\n\ndef a(): pass\n', b"__all__ = names()\n", b"__all__ += ['c']\n",
            b"__all__.extend(['d'])\n", b"# __all__ = ['e']\nx = 1\n", b"s = '__all__'\n", b"def f():\n    __all__ = ['f']\n",
            b"__all__ = ('g',)\n", b"__all__ = [*other.__all__]\n", b"__all_ = ['h']\n", b"__al\\\nl__ = ['i']\n"]


def test_star_names_answers_as_the_query_for_every_python_source() -> None:
    profile = semantic_profile("m.py")
    assert symbols.needed_words(profile, profile.semantic.star_names) == (b"__all__",)
    sources = [path.read_bytes() for path in sorted(ROOT.rglob("*.py")) if path.is_file()] + SNIPPETS
    shortcut = 0
    for data in sources:
        assert symbols.star_names(profile, data) == symbols._star_names_read(profile, data), data[:200]
        shortcut += b"__all__" not in data
    assert shortcut > 50 and len(sources) - shortcut >= 8


def test_a_source_without_the_word_compiles_no_star_names_query() -> None:
    """What a finish's left-behind look asks of each version of a changed Python file: once the
    words are kept on disk (a first process derived them), no compile and no parse."""
    profile = semantic_profile("m.py")
    symbols.needed_words.cache_clear()                               # this test's own state folder:
    symbols.needed_words(profile, profile.semantic.star_names)       # kept on disk by a first process
    symbols.needed_words.cache_clear()
    symbols.star_names_query.cache_clear()
    assert symbols.star_names(profile, b"def f():\n    return 1  # t0001\n") is None
    assert symbols.star_names_query.cache_info().misses == 0
    assert symbols.star_names(profile, b'__all__ = ["f"]\n') == frozenset({"f"})
    assert symbols.star_names_query.cache_info().misses == 1


def test_a_query_with_a_pattern_that_tests_no_word_it_always_captures_needs_none() -> None:
    profile = semantic_profile("m.py")
    needs = {
        '((identifier) @a (#eq? @a "x"))': (b"x",),
        '((identifier) @a (#eq? @a "x"))\n((string) @s)': None,                                   # a pattern with no test
        '(assignment left: (identifier) @a right: (_)? @b (#eq? @b "y"))': None,                  # on an optional capture
        '((identifier) @a (#not-eq? @a "x"))': None,                                               # not an equality
        '((identifier) @a (#eq? @a "x"))\n((attribute attribute: (identifier) @b) (#eq? @b "z"))': (b"x", b"z"),
    }
    for text, words in needs.items():
        assert symbols.needed_words(profile, text) == words, text
