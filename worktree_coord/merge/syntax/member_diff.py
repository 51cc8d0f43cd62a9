"""Step 2 of a container's merge: each side's member sequence diffed against base into hunks.

Stage: a helper of the structured merge (structured.py), between segmenting a container's three
versions into members (members.py) and grouping the two sides' hunks.
Input: the members' identities (the declaration key, or the text of a positional member) of base
and of one side. Output: the base members the side kept in place, and the side's hunks: (first
deleted base index, end, inserted identities); then the checks a set of hunks must pass.
Rules:
  - a member whose key repeats in any version is matched by its text instead
    (`positional_duplicates`), so a shifted occurrence is never merged into the wrong one; unless
    every version holds the key equally often and each side's occurrences are, in order, the ones
    closest to base's (`_paired_in_order`): then the n-th of each is one member (Rust's two
    `impl Error` blocks, each side editing inside the second, merge as inside a single one);
  - a member one side moved (kept, but out of base order: `kept_in_place` keeps the most members,
    weighing those the other side touched) is a deletion at its old place and an insertion at its
    new one (`side_hunks`);
  - with moves on both sides no moved member may cross the other side's edit
    (`check_moves_cross_nothing`); in an ordered container a moved member's two places may not
    touch the other side's hunks (`check_moves_apart`);
  - new members whose text repeats the edge of a neighbour the other side edited, when the side's
    own line diff puts them inside that neighbour, are read two ways (`check_no_slide`).
Invariants: a check that fails raises Unmergeable (the caller keeps the line merge), never guesses.
"""

from __future__ import annotations

from dataclasses import replace
from difflib import SequenceMatcher

from .members import Member, Segmented, Unmergeable


def positional_duplicates(*segs: Segmented) -> tuple[Segmented, ...]:
    """Members whose key repeats in any version (overloads, several `from m import`) lose the key:
    they are matched by text, so a shifted occurrence can never be merged into the wrong one."""
    repeated: set[str] = set()
    for seg in segs:
        seen: set[str] = set()
        for member in seg.members:
            if member.key is not None:
                if member.key in seen:
                    repeated.add(member.key)
                seen.add(member.key)
    if not repeated:
        return segs
    in_order = {key for key in repeated if _paired_in_order([[m for m in seg.members if m.key == key] for seg in segs])}
    out = []
    for seg in segs:
        members = []
        counts: dict[str, int] = {}
        for member in seg.members:
            if member.key in in_order:
                # The n-th occurrence in every version: one member, still a declaration (labelled
                # by its key in a conflict's path), never matched by a key that repeats.
                count = counts.get(member.key, 0)
                counts[member.key] = count + 1
                member = replace(member, key=None, ident=f"occurrence:{member.key}#{count}", repeated_key=member.key)
            elif member.key in repeated:
                ident = "text:" + b" ".join(member.body.split()).decode("utf-8", "replace")
                count = counts.get(ident, 0)
                counts[ident] = count + 1
                member = replace(member, key=None, ident=ident if not count else f"{ident}#{count}",
                                 repeated_key=member.key)
            members.append(member)
        out.append(replace(seg, members=tuple(members)))
    return tuple(out)


# At most this many occurrences of one key are paired by position (each pairing compares every
# occurrence of a side with every one of base's); more, and they are matched by text.
_MOST_PAIRED = 8
# An occurrence a side kept this little of (a ratio of lines, difflib's) is a rewrite, not an edit.
_LEAST_KEPT = 0.5


def _paired_in_order(occurrences: list[list[Member]]) -> bool:
    """Whether the occurrences of one key (base's first, then each side's) pair up by position:
    the same number in every version, and each side's n-th the one of its occurrences closest to
    base's n-th and base's n-th the one closest to it (so a side that reordered them, or rewrote one
    beyond recognition, is matched by text as before)."""
    base, *sides = occurrences
    if not 2 <= len(base) <= _MOST_PAIRED or any(len(side) != len(base) for side in sides):
        return False
    base_lines = [m.content.splitlines() for m in base]
    for side in sides:
        if all(s.content == b.content for s, b in zip(side, base)):
            continue
        side_lines = [m.content.splitlines() for m in side]
        score = [[SequenceMatcher(None, b, s, autojunk=False).ratio() for s in side_lines] for b in base_lines]
        for n, row in enumerate(score):
            best = row[n]
            if best < _LEAST_KEPT:
                return False
            # Strictly closest both ways: a tie (two identical blocks) is no evidence of which is which.
            if any(other >= best for k, other in enumerate(row) if k != n):
                return False
            if any(score[k][n] >= best for k in range(len(base)) if k != n):
                return False
    return True


def kept_in_place(base_ids: list[str], side_ids: list[str], heavy: set[str] = frozenset()) -> set[str]:  # type: ignore[assignment]
    """The base members a side kept in their base order; the side's other surviving base members
    were moved. Of all orders that explain the side, the one keeping the most members in place,
    where members in `heavy` (those the other side changed or deleted) count far more: a swap of
    two neighbours is read as a move of the one the other side left alone. A maximum-weight
    increasing subsequence of base positions, O(n log n) with a Fenwick tree of prefix maxima."""
    side_set, base_set = set(side_ids), set(base_ids)
    in_side_order = [i for i in side_ids if i in base_set]
    if [i for i in base_ids if i in side_set] == in_side_order:
        return set(in_side_order)
    position = {ident: index for index, ident in enumerate(base_ids)}
    size = len(base_ids)
    tree: list[tuple[int, int]] = [(0, -1)] * (size + 1)
    best: list[int] = []
    previous: list[int] = []
    for k, ident in enumerate(in_side_order):
        at, found = position[ident], (0, -1)
        while at > 0:                                   # best chain ending before this position
            found = max(found, tree[at])
            at -= at & -at
        best.append(found[0] + (len(base_ids) + 1 if ident in heavy else 1))
        previous.append(found[1])
        at = position[ident] + 1
        while at <= size:
            tree[at] = max(tree[at], (best[k], k))
            at += at & -at
    end = max(range(len(best)), key=lambda k: (best[k], k))
    kept: set[str] = set()
    while end != -1:
        kept.add(in_side_order[end])
        end = previous[end]
    return kept


def side_hunks(base_ids: list[str], side_ids: list[str], kept: set[str]) -> list[tuple[int, int, list[str]]]:
    """Hunks of one side against base: (first deleted base index, end, inserted identities).

    `kept` are the base members the side kept in place (`kept_in_place`); a moved member shows
    as deleted where base had it and inserted where the side put it."""
    out = []
    i = j = 0
    while i < len(base_ids) or j < len(side_ids):
        if i < len(base_ids) and j < len(side_ids) and base_ids[i] == side_ids[j] and base_ids[i] in kept:
            i += 1
            j += 1
            continue
        start = i
        inserted = []
        while i < len(base_ids) and base_ids[i] not in kept:
            i += 1
        while j < len(side_ids) and side_ids[j] not in kept:
            inserted.append(side_ids[j])
            j += 1
        if start == i and not inserted:
            raise Unmergeable("one side reordered declarations the other side changed")
        out.append((start, i, inserted))
    return out


def check_moves_cross_nothing(b_ids: list[str], moved: set[str],
                              *sides: tuple[list[str], set[str], list[tuple[int, int, list[str]]]]) -> None:
    """With moves on both sides, a moved member and the other side's edits must keep apart: the
    base span the member was moved across (from its old place to between the base members that now surround it) may not
    hold or touch any hunk of the other side. A side that re-sorts a block while the other adds
    to it, or moves code across the other's edit, is an ordering question the engine does not
    answer (the line merge and the import refinements get it)."""
    index = {ident: position for position, ident in enumerate(b_ids)}
    for side_ids, kept, other_hunks in sides:
        for at, ident in enumerate(side_ids):
            if ident not in moved or ident not in index or ident in kept:
                continue
            before = next((index[i] for i in reversed(side_ids[:at]) if i in kept), -1)
            after = next((index[i] for i in side_ids[at + 1:] if i in kept), len(b_ids))
            lo, hi = min(index[ident], before + 1), max(index[ident] + 1, after)
            if any(start <= hi and end >= lo for start, end, _ in other_hunks):
                raise Unmergeable("one side moved a declaration past lines the other side changed")


def check_moves_apart(b_ids: list[str], moved: set[str],
                      *sides: tuple[list[tuple[int, int, list[str]]], list[tuple[int, int, list[str]]]]) -> None:
    """A moved member's two places (the hunk that takes it from its old place, the hunk that
    puts it in its new one) may not touch a hunk of the other side: a side that re-sorts a block
    while the other adds at one of the places, or moves a member to where the other side
    inserted, is an ordering question the engine does not answer (the line merge gets it). Edits
    of the other side elsewhere in the span the member crossed stay where they are anchored, as
    they would in a line merge."""
    for own_hunks, other_hunks in sides:
        for start, end, inserted in own_hunks:
            if not any(ident in moved for ident in inserted) and not any(ident in moved for ident in b_ids[start:end]):
                continue
            if any(o_start <= end and o_end >= start for o_start, o_end, _ in other_hunks):
                raise Unmergeable("one side moved a declaration next to lines the other side changed")


def check_no_slide(b_ids: list[str], bmap: dict[str, Member], sep: bytes | None,
                   *sides: tuple[list[tuple[int, int, list[str]]], dict[str, Member], dict[str, Member]]) -> None:
    """An inserted run whose last lines repeat the last lines of the member before it (or whose
    first lines repeat the first lines of the member after it) can be read two ways: as new
    members next to that one (the tree's reading) or as text put inside it (the line diff may
    slide it there). When the side's own line diff does put it inside, and the other side edited
    those very lines, the two readings merge differently (a method's `return` ending up in the
    last inserted method instead of its own): no structured answer is trusted, the line merge of
    the enclosing region decides. New text only: a moved member is a copy of base text."""
    for hunks, mine, other in sides:
        cuts: list[int] | None = None
        for start, end, inserted in hunks:
            if not inserted or any(ident in bmap for ident in inserted):
                continue
            run = [line for ident in inserted for line in mine[ident].render(sep, True).splitlines(keepends=True)]
            for neighbour, at_end in ((b_ids[start - 1] if start > 0 else None, True),
                                      (b_ids[end] if end < len(b_ids) else None, False)):
                if neighbour is None or neighbour not in mine or neighbour not in other:
                    continue
                base_member = bmap[neighbour]
                if other[neighbour].content == base_member.content:
                    continue
                own = mine[neighbour].render(sep, True).splitlines(keepends=True)
                shared = _common_edge_lines(run, own, at_end=at_end)
                if not shared:
                    continue
                base_lines = base_member.render(sep, True).splitlines(keepends=True)
                other_lines = other[neighbour].render(sep, True).splitlines(keepends=True)
                edge = slice(-shared, None) if at_end else slice(0, shared)
                if len(base_lines) >= shared and base_lines[edge] == other_lines[edge]:
                    continue
                if cuts is None:
                    cuts = _line_cuts(base_member.source, mine[neighbour].source)
                first, last = _body_lines(base_member)
                # Anywhere inside: the side may also have edited the member (a blank line taken
                # out of it), which moves where its line diff starts the insertion.
                if any(first <= cut < last for cut in cuts):
                    raise Unmergeable("one side's new lines fall inside a declaration the other side changed")


def _common_edge_lines(first: list[bytes], second: list[bytes], *, at_end: bool) -> int:
    """How many lines `first` and `second` share at their ends (at_end) or starts, not counting
    a shared run made only of blank lines."""
    count = 0
    limit = min(len(first), len(second))
    while count < limit:
        a, b = (first[-1 - count], second[-1 - count]) if at_end else (first[count], second[count])
        if a != b:
            break
        count += 1
    shared = first[len(first) - count:] if at_end else first[:count]
    return count if any(line.strip() for line in shared) else 0


def _line_cuts(base: bytes, side: bytes) -> list[int]:
    """Where the side's line diff (libgit2's xdiff, as the line merge sees it) puts new text: for
    each hunk that adds lines, the number of base lines before it."""
    import pygit2   # here: a clean line merge (`wtc merge-file`) never diffs, and pygit2 is ~40 ms to import

    patch = pygit2.Patch.create_from(base, side, context_lines=0)
    return [hunk.old_start if hunk.old_lines == 0 else hunk.old_start - 1
            for hunk in patch.hunks if hunk.new_lines > 0]


def _body_lines(member: Member) -> tuple[int, int]:
    """First and last line (1-based, in its version's file) of the member's body."""
    begin = member.start + len(member.lead)
    finish = max(begin, begin + len(member.body) - 1)
    return member.source.count(b"\n", 0, begin) + 1, member.source.count(b"\n", 0, finish) + 1


def side_region(side_ids: list[str], b_ids: list[str], lo: int, hi: int, smap: dict[str, Member]) -> list[Member]:
    """The side's members between the surviving base members that bound [lo, hi)."""
    start = 0
    if lo > 0:
        start = side_ids.index(b_ids[lo - 1]) + 1
    stop = len(side_ids)
    if hi < len(b_ids):
        stop = side_ids.index(b_ids[hi])
    return [smap[i] for i in side_ids[start:stop]]


def base_span(b: Segmented, b_ids: list[str], bmap: dict[str, Member], lo: int, hi: int) -> tuple[int, int]:
    """Base byte range of members lo..hi (a point before member lo, or at the container's end,
    when the group only inserts): where a group of hunks stands, for provenance."""
    if lo < hi:
        last = bmap[b_ids[hi - 1]]
        return bmap[b_ids[lo]].start, last.start + len(last.lead + last.body)
    if lo < len(b_ids):
        member = bmap[b_ids[lo]]
        return (point := member.start + len(member.lead)), point
    if b_ids:
        last = bmap[b_ids[-1]]
        return (point := last.start + len(last.lead + last.body)), point
    return b.start, b.start


def group_shape(group: list[tuple[str, tuple[int, int, list[str]]]]) -> str:
    """What each side did in a group of hunks: both only inserted ("insert/insert"), one only
    deleted where the other only inserted ("delete next to insert"), else "edit/edit"."""
    did = {side: (any(end > start for _s, (start, end, _i) in group if _s == side),
                  any(inserted for _s, (_b, _e, inserted) in group if _s == side)) for side in ("L", "R")}
    if not did["L"][0] and not did["R"][0]:
        return "insert/insert"
    if sorted(did.values()) == [(False, True), (True, False)]:
        return "delete next to insert"
    return "edit/edit"
