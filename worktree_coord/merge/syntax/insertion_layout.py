"""The layout of inserted members: the blank lines, comments and whitespace they take.

Stage: a helper of the structured merge (structured.py), as a union of members places new
members among kept ones, and when a nested container is cut out of its member.
Input: a run of insertions before one base member (its successor), or the merged entries, with
the three versions' members. Output: lead (and tail) overrides for inserted members and their
successor, or the entries with those overrides in place.
Rules:
  - both sides' runs before one successor are chained as a developer would write them: the base
    lead cut once, at a line boundary every side's lead fits (`run_leads`);
  - a run put where the other side removed the member before the successor takes the lead that
    side gave the successor (`lead_over_deletion`);
  - both sides' runs filling a container the base held empty (an empty file, `[]`, `{}`): the
    second run's first member takes the lead that separates members in a run (`leads_into_empty`);
  - a member inserted into a one-line list the other side broke onto lines takes the other
    side's layout (`relayout_insertions`);
  - a member inserted among members the other side re-indented throughout (a formatter run:
    two spaces to tabs) takes that indentation, level for level (`reindent_insertions`);
  - blank lines between a nested container's header (`class C:`) and its first member belong to
    that member's lead, so they travel with it (`over_blank_lines`).
Invariants: only layout moves (text a side wrote is never dropped or invented); when a rule's
conditions do not all hold, the sides' own layout is left as written.
"""

from __future__ import annotations

from collections.abc import Iterator

from .members import Member


def run_leads(run, index, b_ids, bmap, lmap, rmap, moved) -> tuple[dict[str, bytes], bytes | None]:  # type: ignore[no-untyped-def]
    """Leading trivia when both sides insert runs before the same base member (the successor).

    Each side inserted its text somewhere in the successor's base lead `g0` (its blank lines,
    comments, indentation): g0 = p + q, and the side wrote p, its run, its own trailing blank
    lines, then q and the successor. Chaining the runs A then B the way a developer (and a line
    concatenation) would gives p, A's run, A's trailing blank lines, B's own leading blank
    lines, B's run, B's trailing blank lines, q, successor. So B's first member gets (what A
    gave the successor minus q) + (B's first lead minus p) and the successor gets what B gave
    it. The cut p|q is searched at line boundaries of g0, longest p first (p = g0 is the plain
    case: B wrote its run right after the base text); it must fit all four leads, else the
    sides are left as they wrote them. Returns lead overrides per inserted identity and the
    successor's new lead (None: leave everything as the sides wrote it)."""
    sides = [side for side, _ in run]
    if len(set(sides)) < 2 or index >= len(b_ids) or b_ids[index] not in lmap or b_ids[index] not in rmap \
            or b_ids[index] in moved:
        return {}, None
    first, second = sides[0], next(side for side in sides if side != sides[0])
    if sides != [first] * sides.count(first) + [second] * sides.count(second):
        return {}, None  # interleaved (sorted) runs: no single hand-over point
    successor = b_ids[index]
    base_lead = bmap[successor].lead
    maps = {"L": lmap, "R": rmap}
    first_first = next(ident for side, ident in run if side == first)
    second_first = next(ident for side, ident in run if side == second)
    a_lead, b_lead = maps[first][first_first].lead, maps[second][second_first].lead
    a_succ, b_succ = maps[first][successor].lead, maps[second][successor].lead
    cuts = [len(base_lead)] + [i + 1 for i in range(len(base_lead) - 1, -1, -1) if base_lead[i:i + 1] == b"\n"
                               and i + 1 < len(base_lead)] + ([0] if base_lead else [])
    for cut in cuts:
        p, q = base_lead[:cut], base_lead[cut:]
        if not (a_lead.startswith(p) and b_lead.startswith(p) and a_succ.endswith(q) and b_succ.endswith(q)):
            continue
        # A cut inside a run of spaces is no hand-over point: the side re-indented the gap
        # rather than writing its run into it (vite 8a3a3133: `{ a }` broken onto lines by both
        # sides, `' '` then `'  '` gave a new member three spaces).
        if any(_splits_blanks(lead[:len(p)], lead[len(p):]) for lead in (a_lead, b_lead)) or any(
                _splits_blanks(succ[:len(succ) - len(q)], q) for succ in (a_succ, b_succ)):
            continue
        # A cut at a line boundary of the base lead is one in the sides' leads of the successor too:
        # q matched from a line's middle (a side's whitespace-only line `    \n` before its
        # indentation) would glue that line's spaces to the next run's indentation (mockito
        # b8cfa22bd4: `        @Test`).
        if q and any(succ[:len(succ) - len(q)][-1:] not in (b"", b"\n") for succ in (a_succ, b_succ)):
            continue
        joined = a_succ[:len(a_succ) - len(q)] + b_lead[len(p):]
        return {second_first: joined}, b_succ
    return {}, None


def lead_over_deletion(run, index, b_ids, bmap, lmap, rmap, deleted) -> tuple[dict[str, bytes], bytes | None]:  # type: ignore[no-untyped-def]
    """Leading trivia when one side took away the member before base member `index` (deleted
    or moved it) and gave the successor a new lead for it (the first member of a module loses
    its blank lines above), while the other side inserted a run right there: the run now
    stands where the removed member stood, so its first member takes the lead the removing side
    gave the successor, and the successor keeps the lead it had after a member (base's: the
    inserting side left it so). Returns the lead override of the run's first member and the
    successor's lead, or ({}, None) when the case does not apply."""
    sides = {side for side, _ in run}
    if len(sides) != 1 or index == 0 or index >= len(b_ids):
        return {}, None
    inserting = sides.pop()
    removing = "R" if inserting == "L" else "L"
    successor = b_ids[index]
    maps = {"L": lmap, "R": rmap}
    if deleted.get(b_ids[index - 1]) != removing or successor not in lmap or successor not in rmap:
        return {}, None
    base_lead, new_lead = bmap[successor].lead, maps[removing][successor].lead
    # Only layout (blank lines, indentation): a comment the removing side wrote is the
    # successor's own and stays with it.
    if maps[inserting][successor].lead != base_lead or new_lead == base_lead or new_lead.strip() \
            or base_lead.strip():
        return {}, None
    return {run[0][1]: new_lead}, base_lead


def leads_into_empty(run, lmap, rmap) -> dict[str, bytes]:  # type: ignore[no-untyped-def]
    """Leading trivia when both sides filled a container the base held empty: each side's first
    member took the container's opening gap as its lead (nothing before `"a"` in `["a", "c"]`, no
    blank line above a file's first function), so the second run would be glued to the first
    (`["a", "c","b"]`). Its first member takes the lead that stands between two members of one
    run instead: the first side's, else its own side's; with one member on each side there is
    none to read, and the sides' layout is left as written. Returns lead overrides by identity."""
    sides = [side for side, _ in run]
    if len(set(sides)) < 2:
        return {}
    first, second = sides[0], next(side for side in sides if side != sides[0])
    if sides != [first] * sides.count(first) + [second] * sides.count(second):
        return {}  # interleaved (sorted) runs: no single hand-over point
    maps = {"L": lmap, "R": rmap}

    def between(side: str) -> bytes | None:
        idents = [ident for s, ident in run if s == side]
        if len(idents) < 2:
            return None
        lead = maps[side][idents[1]].lead
        return lead if not lead.strip() else None   # whitespace only: a comment is its member's own

    lead = between(first)
    lead = lead if lead is not None else between(second)
    second_first = next(ident for side, ident in run if side == second)
    if lead is None or maps[second][second_first].lead.strip():
        return {}
    return {second_first: lead}


def _kept_ident(entry: tuple[str, object]) -> str | None:
    kind, value = entry
    if kind != "kept":
        return None
    return value if isinstance(value, str) else value[0]  # type: ignore[index,return-value]


def _unlaid_insertions(entries: list[tuple[str, object]]) -> Iterator[tuple[int, str, str]]:
    """(index, side, ident) of each inserted member no earlier rule gave a layout of its own."""
    for index, (kind, value) in enumerate(entries):
        if kind == "add":
            side, ident, *layout = value  # type: ignore[misc]
            if not layout:
                yield index, side, ident


def relayout_insertions(entries: list[tuple[str, object]], bmap: dict[str, Member], lmap: dict[str, Member],
                        rmap: dict[str, Member]) -> list[tuple[str, object]]:
    """New members take the layout the other side gave their neighbours.

    When one side broke a one-line container onto lines (`{ a, b }` -> one member per line: only
    the whitespace around its members changed) and the other side inserted a member laid out as its own
    neighbour was (on the same line), the inserted member gets the whitespace the re-flowing side
    gave that neighbour: `a,\n  new,\n  b,` instead of `a,\n new,  b,`. The neighbour is the
    kept base member after the insertion (else before it); nothing changes unless the inserting
    side left that neighbour's whitespace as base had it and the member matched it exactly."""
    out = list(entries)
    for index, side, ident in _unlaid_insertions(entries):
        neighbour = next((_kept_ident(e) for e in entries[index + 1:] if e[0] != "add"), None) \
            or next((_kept_ident(e) for e in reversed(entries[:index]) if e[0] != "add"), None)
        if neighbour is None:
            continue
        mine, theirs = (lmap, rmap) if side == "L" else (rmap, lmap)
        member, base_n = mine[ident], bmap[neighbour]
        if neighbour not in mine or neighbour not in theirs:
            continue
        own_n, other_n = mine[neighbour], theirs[neighbour]
        if (own_n.lead, own_n.tail) != (base_n.lead, base_n.tail) or (member.lead, member.tail) != (own_n.lead, own_n.tail):
            continue
        # Only a list the other side broke onto lines: base kept the neighbour on a shared line.
        if b"\n" in base_n.lead + base_n.tail or b"\n" not in other_n.lead + other_n.tail \
                or (other_n.lead + other_n.tail).strip() or (base_n.lead + base_n.tail).strip():
            continue
        out[index] = ("add", (side, ident, other_n.lead, other_n.tail))
    return out


def reindent_insertions(entries: list[tuple[str, object]], bmap: dict[str, Member], lmap: dict[str, Member],
                        rmap: dict[str, Member]) -> list[tuple[str, object]]:
    """New members take the indentation the other side gave every member of the container.

    When one side re-indented the container throughout (a formatter turned two spaces into a tab
    per level: every kept member's lines moved from `u` to `v` per level, and nothing else about
    their indentation changed) and the other side, which kept base's indentation, inserted a member
    written in it, the member's lines take the same indentation, level for level: a tab-indented
    manifest does not get one four-space line (got cf95ab94ef). Nothing changes unless both
    readings are whole: every kept line of the re-indenting side moved by one unit pattern, every
    kept line of the inserting side stayed as base had it, and every line of the inserted member
    stands at a whole number of base units. A member holding a token over several lines (a
    template string, a block comment) is left as written: its inner lines are text, not layout."""
    maps = {"L": lmap, "R": rmap}
    units: dict[str, tuple[bytes, bytes] | None] = {}
    out = list(entries)
    for index, side, ident in _unlaid_insertions(entries):
        other = "R" if side == "L" else "L"
        if side not in units:
            units[side] = _reindent_units(bmap, maps[side], maps[other])
        unit = units[side]
        if unit is None:
            continue
        member = maps[side][ident]
        shifted = _reindented(member, *unit)
        if shifted is not None:
            out[index] = ("add", (side, ident, shifted[0], member.tail, shifted[1]))
    return out


def _indent(line: bytes) -> bytes:
    return line[:len(line) - len(line.lstrip(b" \t"))]


def _at_line_start(member: Member) -> bool:
    return member.start == 0 or member.source[member.start - 1:member.start] == b"\n"


def _lines(member: Member) -> list[bytes]:
    """The member's lines from its lead on; text before the lead's first line end continues
    another line (`a, b` on one line) and is not one of them."""
    lines = (member.lead + member.body).split(b"\n")
    return lines if _at_line_start(member) else lines[1:]


def _indent_pairs(old: Member, new: Member) -> list[tuple[bytes, bytes]]:
    """(old indentation, new indentation) of each line the two versions of a member share after
    their indentation; none when their lines do not pair up one to one (an edit added lines)."""
    a, b = _lines(old), _lines(new)
    if len(a) != len(b):
        return []
    return [(_indent(x), _indent(y)) for x, y in zip(a, b) if x.strip() and x.lstrip(b" \t") == y.lstrip(b" \t")]


def _reindent_units(bmap: dict[str, Member], inserting: dict[str, Member],
                    other: dict[str, Member]) -> tuple[bytes, bytes] | None:
    """(base unit, new unit) when the other side re-indented every kept member by one unit pattern
    (base indentation `u * n` became `v * n`) and the inserting side re-indented nothing; else None."""
    moved: dict[bytes, bytes] = {}
    kept = [ident for ident in bmap if ident in inserting and ident in other]
    for ident in kept:
        for a, b in _indent_pairs(bmap[ident], other[ident]):
            # An indented line the other side left where it was: no re-indentation throughout
            # (u * n is never v * n when u is not v). The common case, so it ends the reading early.
            if (a and a == b) or moved.setdefault(a, b) != b:
                return None
    if any(a != b for ident in kept for a, b in _indent_pairs(bmap[ident], inserting[ident])):
        return None
    levels = sorted((a for a in moved if a), key=len)
    if not levels or moved[levels[0]] == levels[0] or not moved[levels[0]]:
        return None
    u, v = levels[0], moved[levels[0]]
    if any(_levels(a, u) is None or moved[a] != v * _levels(a, u) for a in moved):  # type: ignore[operator]
        return None
    return u, v


def _levels(indent: bytes, unit: bytes) -> int | None:
    n = len(indent) // len(unit)
    return n if unit * n == indent else None


def _reindented(member: Member, u: bytes, v: bytes) -> tuple[bytes, bytes] | None:
    """The member's lead and body with each line's `u * n` indentation made `v * n`, or None when a
    line stands at no whole number of units, a token spans lines, or nothing moves."""
    if _multiline_token(member.node):
        return None
    text = member.lead + member.body
    lines = text.split(b"\n")
    first = 0 if _at_line_start(member) else 1
    out = lines[:first]
    for line in lines[first:]:
        indent = _indent(line)
        n = _levels(indent, u)
        if n is None:
            if line.strip():
                return None
            out.append(line)   # a whitespace-only line at no level: left as written
            continue
        out.append(v * n + line[len(indent):])
    shifted = b"\n".join(out)
    if shifted == text:
        return None
    # The body starts on the lead's last line, after its indentation: only the start of a line
    # moved, so the lead ends as many bytes further on as that line grew.
    k = member.lead.count(b"\n")
    lead_end = len(member.lead) + sum(len(out[i]) - len(lines[i]) for i in range(k + 1))
    return shifted[:lead_end], shifted[lead_end:]


def _multiline_token(node) -> bool:  # type: ignore[no-untyped-def]
    stack = [node]
    while stack:
        current = stack.pop()
        if current.child_count == 0:
            if current.end_point[0] > current.start_point[0]:
                return True
        else:
            stack.extend(current.children)
    return False


def _splits_blanks(before: bytes, after: bytes) -> bool:
    """Whether `before + after` is cut inside a run of spaces or tabs (both sides of the cut are)."""
    return before[-1:] in (b" ", b"\t") and after[:1] in (b" ", b"\t")


def over_blank_lines(source: bytes, start: int, floor: int) -> int:
    """Move a nested container's line-start `start` back over the blank lines above it (never
    before `floor`): a blank line a side put between a header (`class C:`) and its first member
    belongs to that member's lead, so it travels with it instead of staying under the header
    when the other side inserts members first."""
    if start == 0 or source[start - 1:start] != b"\n":
        return start
    while start > floor:
        previous = source.rfind(b"\n", 0, start - 1) + 1
        if previous < floor or source[previous:start].strip():
            break
        start = previous
    return start
