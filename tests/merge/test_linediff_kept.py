"""linediff.hunks keeps the diffs of the version pairs met last (the post-merge checks ask one pair
twice: the lines a side touched and the lines it added): a kept answer is the diff itself, for small
and large pairs, and a caller changing the list it got does not change what the next caller gets."""

from __future__ import annotations

from worktree_coord.merge.lines import linediff


def _uncached(old: bytes, new: bytes) -> list[tuple[int, int, int, int]]:
    return list(linediff._diff(old, new))


def test_kept_hunks_equal_a_fresh_diff_and_are_not_shared() -> None:
    base = b"".join(b"line %d\n" % i for i in range(200))
    new = base.replace(b"line 7\n", b"line seven\n").replace(b"line 150\n", b"") + b"tail\n"
    big_base = base * 400                                   # past HUNKS_KEPT_BYTES: diffed every time
    big_new = big_base.replace(b"line 3\n", b"three\n", 1)
    assert len(big_base) + len(big_new) > linediff.HUNKS_KEPT_BYTES
    for old, changed in ((base, new), (new, base), (base, base), (b"", new), (big_base, big_new)):
        first = linediff.hunks(old, changed)
        assert first == _uncached(old, changed)
        first.append((0, 0, 0, 0))                          # the caller's list is its own
        assert linediff.hunks(old, changed) == _uncached(old, changed)
    assert linediff.touched_lines(base, new) == [(8, 8), (151, 151)]
    assert linediff.added_lines(base, new) == [8, 200]
