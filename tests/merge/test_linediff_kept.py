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


def _pygit2_hunks(old: bytes, new: bytes) -> tuple[tuple[int, int, int, int], ...]:
    """What linediff reads with pygit2: its Patch of the two buffers, as text, zero context lines."""
    import pygit2

    from worktree_coord.merge.lines.linediff import DIFF_FORCE_TEXT

    patch = pygit2.Patch.create_from(old, new, flag=DIFF_FORCE_TEXT, context_lines=0)
    return tuple((h.old_start, h.old_lines, h.new_start, h.new_lines) for h in patch.hunks)


def test_the_line_merges_libgit2_binding_diffs_exactly_as_pygit2() -> None:
    """linediff diffs through the line merge's ctypes binding of the bundled libgit2 (no pygit2
    import: `wtc merge-file`'s semantic check diffs the sides), the same git_patch_from_buffers
    pygit2 calls: every hunk equal on edits of every shape, empty, binary, CRLF and unterminated
    versions (a NUL-holding one diffed as text: linediff's flag; a layout the binding does not
    recognise falls back to pygit2 itself)."""
    import random

    from worktree_coord.merge.lines.line import libgit2_hunks

    rnd = random.Random(36)
    pairs = [(b"", b""), (b"", b"a\n"), (b"a\n", b""), (b"a", b"b"), (b"a\nb\n", b"a\r\nb\r\n"),
             (b"\x00binary", b"\x00binarz"), (b"x\n" * 5, b"x\n" * 6), (b"a\n" * 3000, b"a\n" * 2999 + b"b\n")]
    for _ in range(300):
        lines = [rnd.choice([b"a", b"b", b"", b"def f():", b"    return 1", b"}"]) for _ in range(rnd.randint(0, 40))]
        new = list(lines)
        for _ in range(rnd.randint(0, 6)):
            choice = rnd.random()
            if choice < 0.3 and new:
                del new[rnd.randrange(len(new))]
            elif choice < 0.6:
                new.insert(rnd.randint(0, len(new)), rnd.choice([b"z", b"a", b"  q"]))
            elif new:
                new[rnd.randrange(len(new))] = b"changed"
        pairs.append((b"\n".join(lines) + b"\n" * rnd.randint(0, 1), b"\n".join(new) + b"\n" * rnd.randint(0, 1)))
    for old, new in pairs:
        assert libgit2_hunks(old, new) == _pygit2_hunks(old, new), (old, new)


def test_a_process_with_pygit2_loaded_diffs_through_it(monkeypatch) -> None:
    """Where pygit2 is loaded already (a drain, a finish), the diff is read through it, not through
    the ctypes binding (a call and a struct read per hunk from Python: 3x the time for 24 hunks);
    the answers are the same libgit2 diff (the test above)."""
    import pygit2  # noqa: F401  (loaded, as in any process that merges)

    from worktree_coord.merge.lines import line

    def refuse(old: bytes, new: bytes) -> None:
        raise AssertionError("diffed through the ctypes binding with pygit2 loaded")

    monkeypatch.setattr(line, "libgit2_hunks", refuse)
    base = b"".join(b"line %d\n" % i for i in range(40))
    new = base.replace(b"line 7\n", b"line seven\n").replace(b"line 30\n", b"")
    assert linediff._diff(base, new) == _pygit2_hunks(base, new) == ((8, 1, 8, 1), (31, 1, 30, 0))
