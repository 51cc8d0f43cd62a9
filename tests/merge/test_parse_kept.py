"""Profile.parse keeps the trees of the sources it parsed last (a merge's resolver and the post-merge
check parse a conflicted file's versions alike): a kept tree reads as a fresh parse, every caller gets
its own copy, parse aliases are part of what is kept, and the bounds hold (count, bytes, big sources
not kept)."""

from __future__ import annotations

import threading

import tree_sitter

from worktree_coord.merge.languages import profiles
from worktree_coord.merge.languages.profiles import profile_for_path


def _fresh(profile: profiles.Profile, source: bytes) -> str:
    return str(tree_sitter.Parser(profile.language).parse(profile._aliased(source)).root_node)


def test_a_kept_tree_reads_as_a_fresh_parse_and_is_the_callers_own() -> None:
    python, rust = profile_for_path("a.py"), profile_for_path("a.rs")
    source = b"import os\n\n\ndef f(x):\n    return os.path.join(x, 'a')\n"
    first, second = python.parse(source), python.parse(source)
    assert first is not second
    assert str(first.root_node) == str(second.root_node) == _fresh(python, source)
    # The same bytes under another grammar, and a Rust source with a parse alias (`try!`).
    assert str(rust.parse(source).root_node) == _fresh(rust, source)
    aliased = b"fn f() -> R { let x = try!(g()); x }\n"
    assert rust.parse_aliases
    assert str(rust.parse(aliased).root_node) == str(rust.parse(aliased).root_node) == _fresh(rust, aliased)


def test_the_kept_trees_stay_within_their_bounds() -> None:
    python = profile_for_path("a.py")
    for i in range(profiles.PARSED_KEPT * 2):
        python.parse(b"x = %d\n" % i)
    assert len(profiles._PARSED) <= profiles.PARSED_KEPT
    big = b"y = 1\n" * (profiles.PARSED_KEPT_SOURCE // 6 + 1)
    assert str(python.parse(big).root_node) == _fresh(python, big)
    assert all(key[3] != big for key in profiles._PARSED)
    chunk = b"z = 1\n" * (profiles.PARSED_KEPT_SOURCE // 6 - 1)
    for i in range(8):
        python.parse(chunk + b"# %d\n" % i)
    assert profiles._parsed_bytes == sum(len(key[3]) for key in profiles._PARSED) <= profiles.PARSED_KEPT_BYTES


def test_threads_parsing_one_source_each_read_a_whole_tree() -> None:
    python = profile_for_path("a.py")
    source = b"".join(b"def f%d(x):\n    return x + %d\n\n" % (i, i) for i in range(50))
    expected = _fresh(python, source)
    seen: list[str] = []

    def read() -> None:
        for _ in range(20):
            seen.append(str(python.parse(source).root_node))

    threads = [threading.Thread(target=read) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen == [expected] * 80


def test_a_source_that_is_not_bytes_is_parsed_and_not_kept() -> None:
    python = profile_for_path("a.py")
    source = bytearray(b"def g(y):\n    return y\n")
    assert str(python.parse(source).root_node) == _fresh(python, bytes(source))
    assert all(key[3] != bytes(source) for key in profiles._PARSED)
