"""Where both sides' insertions at one place go against each other, and tables kept sorted.

Stage: a helper of the structured merge (structured.py), after a group of both sides' hunks was
found to commute (a union of members) and before the entries are rendered.
Input: a run of (side, identity) insertions at one base position, or a container's merged
entries, with the three versions' members. Output: the run or the entries in their final order.
Rules:
  - where the base parts two groups with a blank line (an import block's standard library and its
    third-party packages) and one side appended to the group above it while the other opened the
    group below it, the appended run comes first and the blank line stays between the two
    (`group_order`), whatever the sorting rule would say;
  - one-line members of one kind added by both sides into a sorted run of such members (an import
    block) are interleaved in sorted order (`sorted_run`);
  - a table every version keeps sorted by key stays sorted (`sorted_table`: npm's dependencies);
  - when one side's moves sorted runs of one-line members, the merged runs are sorted too, the
    other side's new members placed where that order puts them (`sorted_as_moved`);
  - in a container that runs top to bottom (Python), no statement comes before the other side's
    statement binding a name it uses (`bind_before_use`, names from bindings.py and names.py).
Invariants: each side's own order is kept; when no order can be trusted (a name cycle, sides
taken in turns, already interleaved runs) the container is Unmergeable.
"""

from __future__ import annotations

import re

from . import names
from .bindings import names_bound, names_used
from .members import Member, Segmented, Unmergeable
from ..languages.profiles import Profile


def _blank(member: Member) -> bool:
    """Whether a blank line stands right above a member: in its lead, or where the member before
    it ends (a member's tail may take the line break that ends it)."""
    if member.lead.strip():
        return False
    before = member.source[:member.start]
    gap = before[len(before.rstrip()):] + member.lead
    return re.search(rb"\n[ \t\r]*\n", gap) is not None


def group_order(run, index, b_ids, bmap, lmap, rmap):  # type: ignore[no-untyped-def]
    """Both sides' runs before one base member whose lead holds a blank line (a group boundary),
    ordered by the group each run joined: the side that kept the blank line before the successor
    and wrote its run without one appended to the group above; the side whose run opens with
    the blank line and left the successor without one opened the group below. The appended run
    goes first, so the blank line stays between the groups (helm a0ee68f693: `log/slog` appended
    to the standard library imports where the other side deleted `fmt` and put
    `github.com/pkg/errors` at the head of the third-party group). None when the runs do not
    split that way."""
    sides = [side for side, _ in run]
    if len(set(sides)) < 2 or index >= len(b_ids):
        return None
    successor = b_ids[index]
    maps = {"L": lmap, "R": rmap}
    if not _blank(bmap[successor]) or successor not in lmap or successor not in rmap:
        return None
    own = {side: [ident for s, ident in run if s == side] for side in ("L", "R")}

    def appended(side: str) -> bool:
        smap = maps[side]
        return smap[successor].lead == bmap[successor].lead and _blank(smap[successor]) \
            and not any(_blank(smap[i]) for i in own[side])

    def opened(side: str) -> bool:
        smap = maps[side]
        first, *rest = own[side]
        return _takes_blank(smap, first, successor) and not any(_blank(smap[i]) for i in rest)
    for above, below in (("L", "R"), ("R", "L")):
        if appended(above) and opened(below):
            return [(above, ident) for ident in own[above]] + [(below, ident) for ident in own[below]]
    return None


def opens_group_below(side, start, end, inserted, b_ids, bmap, lmap, rmap) -> bool:  # type: ignore[no-untyped-def]
    """Whether a side's hunk replacing base members [start, end) put a run at the head of the
    group that begins at base member `end`: that member's base lead holds a blank line, the
    side's run begins with it, and the side left the member without one. Such a run is that
    group's, not the place of the members it replaced (`group_order` then orders it)."""
    if end <= start or not inserted or end >= len(b_ids):
        return False
    smap = lmap if side == "L" else rmap
    successor = b_ids[end]
    if successor not in smap or inserted[0] not in smap:
        return False
    return _blank(bmap[successor]) and _takes_blank(smap, inserted[0], successor)


def _takes_blank(smap, first: str, successor: str) -> bool:  # type: ignore[no-untyped-def]
    """A side's new member `first` has the blank line above it and the member it stands before no
    longer does: the side moved the group boundary above its run (it opened the group below)."""
    return _blank(smap[first]) and not _blank(smap[successor])


def sorted_run(run, index, b_ids, bmap, lmap, rmap):  # type: ignore[no-untyped-def]
    """Both sides' one-line members added at one place, interleaved in sorted order, when the
    place is a sorted run of one-line members of the same kind (an import block, a sorted
    table): that is how a person resolves it. None when the context is not sorted."""
    if len({side for side, _ in run}) < 2:
        return None
    members = [((lmap if side == "L" else rmap)[ident], side, ident) for side, ident in run]
    kinds = {member.node.type for member, _, _ in members}
    if len(kinds) != 1 or any(b"\n" in member.body.strip() for member, _, _ in members):
        return None
    def text(member: Member) -> bytes:
        return member.body.strip()
    neighbors = []
    if index > 0:
        neighbors.append(("before", bmap[b_ids[index - 1]]))
    if index < len(b_ids):
        neighbors.append(("after", bmap[b_ids[index]]))
    neighbors = [(where, m) for where, m in neighbors if m.node.type in kinds and b"\n" not in m.body.strip()]
    if not neighbors:
        return None
    same_kind = [text(bmap[i]) for i in b_ids if bmap[i].node.type in kinds and b"\n" not in bmap[i].body.strip()]
    if len(same_kind) < 2 or same_kind != sorted(same_kind):
        return None  # the container itself must be kept sorted, not just happen to be here
    for side in ("L", "R"):
        own = [text(member) for member, s, _ in members if s == side]
        if own != sorted(own):
            return None
    ordered = sorted(members, key=lambda item: text(item[0]))
    line = [text(m) for where, m in neighbors if where == "before"] + [text(m) for m, _, _ in ordered] + \
           [text(m) for where, m in neighbors if where == "after"]
    if line != sorted(line):
        return None
    return [(side, ident) for _, side, ident in ordered]


def sorted_table(entries, versions, bmap, lmap, rmap):  # type: ignore[no-untyped-def]
    """Keep a sorted table sorted (npm sorts dependency tables) when every version in
    `versions` was (all three, or the side whose moves sorted it)."""
    def is_sorted(seg: Segmented) -> bool:
        keys = [m.key for m in seg.members]
        return len(keys) >= 2 and None not in keys and keys == sorted(keys)  # type: ignore[type-var]
    if not all(is_sorted(s) for s in versions) or any(kind not in ("kept", "add", "moved") for kind, _ in entries):
        return entries

    def key_of(entry) -> str:  # type: ignore[no-untyped-def]
        kind, value = entry
        if kind in ("kept", "moved"):
            return bmap[value if isinstance(value, str) else value[0]].key
        side, ident = value[0], value[1]
        return (lmap if side == "L" else rmap)[ident].key
    if any(key_of(entry) is None for entry in entries):
        return entries
    return sorted(entries, key=key_of)


def _one_line_runs(members: list[Member], kinds: set[str]) -> list[list[Member]]:
    """Maximal runs of consecutive one-line members of these node kinds, a run broken by a blank
    line (a group of imports ends there)."""
    runs: list[list[Member]] = [[]]
    for member in members:
        if member.node.type in kinds and b"\n" not in member.body.strip() and b"\n\n" not in member.lead:
            runs[-1].append(member)
        else:
            runs.append([member] if member.node.type in kinds and b"\n" not in member.body.strip() else [])
    return [run for run in runs if run]


def sorted_as_moved(entries: list[tuple[str, object]], moved: set[str],
                    *sides: tuple[Segmented, dict[str, Member], set[str]], bmap: dict[str, Member]) -> list[tuple[str, object]]:
    """When one side's moves sorted runs of one-line members (an import block put in order: the
    moved members' kinds, each run holding a moved member sorted by its text afterwards), the
    merged runs are sorted too: the other side's new imports go where the order puts them, as
    the sorting side's tool (isort, gofmt) would put them. Otherwise the entries are unchanged."""
    for seg, smap, kept in sides:
        if not all(ident not in kept for ident in moved if ident in smap):
            continue
        kinds = {bmap[ident].node.type for ident in moved}
        runs = [run for run in _one_line_runs(list(seg.members), kinds) if any(m.ident in moved for m in run)]
        if not runs or any([m.body.strip() for m in run] != sorted(m.body.strip() for m in run) for run in runs):
            return entries
        maps = {"L": sides[0][1], "R": sides[1][1]}

        def member_of(entry: tuple[str, object]) -> Member | None:
            kind, value = entry
            if kind in ("kept", "moved"):
                ident = value if isinstance(value, str) else value[0]  # type: ignore[index]
                return smap.get(ident) or bmap[ident]  # type: ignore[arg-type]
            if kind == "add":
                return maps[value[0]][value[1]]  # type: ignore[index]
            return None
        out: list[tuple[str, object]] = []
        pending: list[tuple[Member, tuple[str, object]]] = []

        def flush() -> None:
            if any(member.ident in moved for member, _ in pending):
                pending.sort(key=lambda item: item[0].body.strip())
            out.extend(entry for _, entry in pending)
            pending.clear()
        for entry in entries:
            member = member_of(entry)
            if member is None or member.node.type not in kinds or b"\n" in member.body.strip() \
                    or (pending and b"\n\n" in member.lead):
                flush()
                if member is not None and member.node.type in kinds and b"\n" not in member.body.strip():
                    pending.append((member, entry))
                else:
                    out.append(entry)
            else:
                pending.append((member, entry))
        flush()
        return out
    return entries


def bind_before_use(run: list[tuple[str, str]], lmap: dict[str, Member],
                    rmap: dict[str, Member], profile: Profile, path: str) -> list[tuple[str, str]]:
    """Both sides' insertions at one place of a container that runs top to bottom, ordered so no
    statement comes before one of the other side's statements that binds a name it uses.

    Each side's own order is kept; among the statements free to go next, left's goes first (the
    usual union order), so a run with no such dependency is returned unchanged, and otherwise
    the binding statements are pulled ahead. When each side's next statement waits for the
    other's (a name cycle), when the order found takes the sides in turns (more than one
    hand-over), or when the runs were interleaved (sorted) already, no order is trusted."""
    sides = [side for side, _ in run]
    if len(set(sides)) < 2:
        return run
    maps = {"L": lmap, "R": rmap}
    queues: dict[str, list[tuple[str, str]]] = {"L": [], "R": []}
    used: dict[tuple[str, str], frozenset[str]] = {}
    bound: dict[tuple[str, str], frozenset[str]] = {}
    for item in run:
        side, ident = item
        member = maps[side][ident]
        used[item] = names_used(member.source, member.node, annotations=profile.annotations_run(path, member.source),
                                deferred_kinds=profile.deferred, name_kinds=profile.name_kinds)
        # Python's statements say what they bind in their own shape (assignments, imports); the
        # profile's `binds` query names what declarations bind in any language (C's declarators).
        bound[item] = names_bound(member.source, member.node) | frozenset(names.bound_names(profile, member.source, member.node))
        queues[side].append(item)
    own_bound = {side: frozenset().union(*(bound[item] for item in queues[side])) for side in queues}

    def waits_for(item: tuple[str, str], pending: list[tuple[str, str]]) -> bool:
        """True when `item` uses a name one of the other side's pending statements binds."""
        names = used[item] - own_bound[item[0]]
        return any(names & bound[other] for other in pending)

    if not any(waits_for(item, queues["R" if item[0] == "L" else "L"]) for item in run):
        return run
    if sides != [sides[0]] * sides.count(sides[0]) + [side for side in sides if side != sides[0]]:
        raise Unmergeable("both sides added code at one place, one side's new code using a name the other "
                          "side's new code defines, and the two are interleaved: no order of them defines every "
                          "name before its use")
    ordered: list[tuple[str, str]] = []
    while queues["L"] or queues["R"]:
        for side, other in (("L", "R"), ("R", "L")):
            if queues[side] and not waits_for(queues[side][0], queues[other]):
                ordered.append(queues[side].pop(0))
                break
        else:
            raise Unmergeable("both sides added code at one place, each using a name the other side's new code "
                              "defines: no order of the two defines every name before its use")
    if sum(1 for before, after in zip(ordered, ordered[1:]) if before[0] != after[0]) > 1:
        # Statements of the two sides taken turn about: which blank lines go between them was
        # written against other neighbours, and the order of the rest is a guess.
        raise Unmergeable("both sides added code at one place, and defining every name before its use would "
                          "interleave the two sides' new lines")
    return ordered
