"""Which rule settles a group of both sides' hunks that touch, read off the group's members.

Stage: a helper of the structured merge (structured.py), for each group of overlapping or
touching hunks of the two sides (member_diff.py), before its entries are placed.
Input: the group ((side, (start, end, inserted identities)) items), the base identities and the
three versions' member maps (plus the profile where a rule reads it). Output: yes/no answers, or
the matched identities, for the container driver to pick the rule:
  - `same_hunks`: both sides made the same edit (taken once);
  - `one_call_edited_twice`: one positional call statement both sides replaced by one edited
    call of the same callee and name (`describe('x', ...)`), matched as that one member;
  - `moved_against_deletion` (over the whole container, once its groups are known): a base
    member both sides took out while exactly one of them holds a near copy of it in another group
    (moved and retitled, renamed and moved): a delete against a move, never a silent keep;
  - `all_keyed`, `ambiguous_order`, `replaced_on_both_sides`, `reworded_against_deletion`: in an
    unordered container both sides' additions and deletions of keyed members commute unless an
    insertion stands against a multi-member replacement, one member was replaced on both sides, or
    reworded on one and deleted on the other (`why_no_union` says which, for the census);
  - `registrations_added`: both sides' pure insertions at one place are calls of one function (a
    list of registrations) with no name written on both sides: left's run, then right's;
  - `independent_insertions` (with `insertion_by_edit`): in a sequence of statements, both sides'
    insertions at one place, or an insertion next to a statement the other side edited, that
    cannot affect each other: neither binds or assigns what the other binds or uses, neither holds
    a jump (unless the other only rewrote the statement next to it), no near copies.
Invariants: a rule answers no when unsure; the group then goes to the line merge of its region.
"""

from __future__ import annotations

from . import names
from .bindings import names_bound, names_used
from .members import Member
from .statement_forms import assigned, call_name, close_texts, holds_jump, registration_form, same_shape


def same_hunks(group, lmap, rmap) -> bool:  # type: ignore[no-untyped-def]
    lh = [(h[0], h[1], [lmap[i].content for i in h[2]]) for s, h in group if s == "L"]
    rh = [(h[0], h[1], [rmap[i].content for i in h[2]]) for s, h in group if s == "R"]
    return lh == rh



def one_call_edited_twice(group, b_ids, bmap, lmap, rmap) -> tuple[str, str, str] | None:  # type: ignore[no-untyped-def]
    """(base, left, right) identities when both sides replaced one positional base member by
    one member each, and all three are the same call with the same name (`describe('watch',
    ...)`, `test('x', ...)`: callee and first string argument): one statement edited on both
    sides, matched as such so its insides merge, instead of two unrelated replacements. (Any
    multi-line statement both sides rewrote close to its base, matched the same way, was
    measured in round 4 and not adopted: docs/merge-precision.md, "Candidates measured and not
    adopted"; the measurement: docs/merge-precision-history.md, "Round 4 (branch merge-reach-4)".)"""
    if len(group) != 2 or {side for side, _ in group} != {"L", "R"}:
        return None
    (_, (l_start, l_end, l_new)), (_, (r_start, r_end, r_new)) = sorted(group)
    if (l_start, l_end) != (r_start, r_end) or l_end - l_start != 1 or len(l_new) != 1 or len(r_new) != 1:
        return None
    base = bmap[b_ids[l_start]]
    if base.key is not None or l_new[0] in bmap or r_new[0] in bmap:
        return None
    name = call_name(base.source, base.node)
    if name is None or any(call_name(m.source, m.node) != name for m in (lmap[l_new[0]], rmap[r_new[0]])):
        return None
    return base.ident, l_new[0], r_new[0]



def all_keyed(profile, group, bmap, lmap, rmap, b_ids, rule=None) -> bool:  # type: ignore[no-untyped-def]
    """Every member the group adds or deletes is a keyed declaration that may commute (an
    anchored kind, like Python's `if COND:` block, is keyed only to be matched, never moved,
    unless the container's rule says its members commute: Maven's `<modules>` elements).
    A declaration whose key repeats (a second re-export from one module) is matched by its
    text but still commutes like one, unless both sides add one under the same key (two
    overloads of one function, in an order that may matter): then keeping both is a guess."""
    anchored = frozenset() if rule is not None and rule.commute else profile.anchored

    def commutes(member: Member) -> bool:
        return (member.key is not None or member.repeated_key is not None) and member.node.type not in anchored
    repeated: dict[str, set[tuple[str, str]]] = {"L": set(), "R": set()}   # (key, ident) added
    for side, (start, end, inserted) in group:
        smap = lmap if side == "L" else rmap
        if not all(commutes(bmap[i]) for i in b_ids[start:end]) or not all(commutes(smap[i]) for i in inserted):
            return False
        repeated[side].update((smap[i].repeated_key, i) for i in inserted
                              if smap[i].repeated_key is not None and i not in bmap)
    # The same text added by both sides is one member (placed once); the same key with two
    # texts is two sides' versions of one thing.
    return not any(key == other_key and ident != other_ident
                   for key, ident in repeated["L"] for other_key, other_ident in repeated["R"])



def ambiguous_order(group) -> bool:  # type: ignore[no-untyped-def]
    """True when one side inserts at the edge of (or inside) a run of base members the other side
    replaced by two or more members: whether the insertion goes before, between or after the
    replacement's members (a renamed method followed by new ones) cannot be told, so the union
    is not attempted (the region's line merge decides, usually a conflict)."""
    for side, (start, end, inserted) in group:
        if start != end or not inserted:
            continue
        for other, (o_start, o_end, o_inserted) in group:
            if other != side and o_start < o_end and len(o_inserted) >= 2 and o_start <= start <= o_end:
                return True
    return False



def replaced_on_both_sides(group, bmap, lmap, rmap, b_ids) -> bool:  # type: ignore[no-untyped-def]
    """True when both sides deleted one base member and each inserted new members of its kind
    in the group: most likely both edited it in a way that changed its key (both edited the
    first name of one `from m import a, b`, both renamed one function). A union would keep
    both edits side by side, so the region's line merge decides instead."""
    deleted: dict[str, set[str]] = {"L": set(), "R": set()}
    kinds: dict[str, set[str]] = {"L": set(), "R": set()}
    for side, (start, end, inserted) in group:
        smap = lmap if side == "L" else rmap
        deleted[side].update(b_ids[start:end])
        kinds[side].update(smap[i].node.type for i in inserted if i not in bmap)
    return any(bmap[i].node.type in kinds["L"] and bmap[i].node.type in kinds["R"]
               for i in deleted["L"] & deleted["R"])



def reworded_against_deletion(group, bmap, lmap, rmap, b_ids) -> bool:  # type: ignore[no-untyped-def]
    """True when both sides took one base member out and only one of them put in its place a
    new member of its kind whose text is close to it: that side reworded it (a CHANGELOG
    bullet, whose key is its text) or renamed it, while the other side deleted it. A union
    would keep the edit and drop the deletion unseen; the region's line merge decides instead
    (a delete/modify conflict)."""
    deleted: dict[str, set[str]] = {"L": set(), "R": set()}
    inserted: dict[str, list[Member]] = {"L": [], "R": []}
    for side, (start, end, idents) in group:
        smap = lmap if side == "L" else rmap
        deleted[side].update(b_ids[start:end])
        inserted[side].extend(smap[i] for i in idents if i not in bmap)
    for ident in deleted["L"] & deleted["R"]:
        base = bmap[ident]
        close = {side: any(member.node.type == base.node.type and close_texts(member.body, base.body)
                           for member in inserted[side]) for side in ("L", "R")}
        if close["L"] != close["R"]:
            return True
    return False



def moved_against_deletion(groups, b_ids, bmap, lmap, rmap) -> list[tuple[str, str, str]]:  # type: ignore[no-untyped-def]
    """(base identity, moving side, its copy's identity) for each member both sides took out while
    exactly one side holds, in another group of hunks, a new member of its kind whose text is close
    to it: that side moved it and changed its key on the way (a Markdown section moved up and
    retitled, a function renamed and moved), the other deleted it. Each side's deletion at the old
    place is "the same edit on both sides", and the moving side's copy elsewhere is its own
    insertion: a union keeps it and drops the deletion unseen. A near copy shares two whole lines
    with the member (so a one-line member never has one: a statement of the same shape is close by
    its words) and its words are close (`close_texts`); the closest is named. A near copy in the
    deletion's own group is `reworded_against_deletion`'s."""
    gone = [i for i in b_ids if i not in lmap and i not in rmap]
    if not gone:
        return []
    new = {"L": [(m, _lines(m.body)) for i, m in lmap.items() if i not in bmap and i not in rmap],
           "R": [(m, _lines(m.body)) for i, m in rmap.items() if i not in bmap and i not in lmap]}
    if not new["L"] and not new["R"]:
        return []
    group_of = {}
    for index, group in enumerate(groups):
        for _side, (start, end, inserted) in group:
            group_of.update((i, index) for i in b_ids[start:end])
            group_of.update((i, index) for i in inserted)
    found = []
    for ident in gone:
        base = bmap[ident]
        lines = _lines(base.body)
        if len(lines) < 2:
            continue   # one line: any statement of the same shape is "close" by its words
        words = base.body.split()
        near = {side: [(ratio, m.ident) for m, its_lines in new[side] if m.node.type == base.node.type
                       and len(lines & its_lines) >= 2 and (ratio := _near(words, m.body.split()))]
                for side in ("L", "R")}
        if bool(near["L"]) == bool(near["R"]):
            continue
        side = "L" if near["L"] else "R"
        if all(group_of.get(copy) != group_of.get(ident) for _ratio, copy in near[side]):
            found.append((ident, side, max(near[side])[1]))   # the closest copy
    return found


def _lines(text: bytes) -> set[bytes]:
    """A member's non-blank lines, stripped: a near copy shares at least two of them."""
    return {line.strip() for line in text.splitlines() if line.strip()}


def _near(first: list[bytes], second: list[bytes]) -> float:
    """`close_texts` on word lists, with difflib's cheap upper bounds first: the ratio when it is
    at least 0.6, else 0."""
    if not first or not second or 2 * min(len(first), len(second)) < 0.6 * (len(first) + len(second)):
        return 0.0
    import difflib

    matcher = difflib.SequenceMatcher(None, first, second, autojunk=False)
    if matcher.real_quick_ratio() < 0.6 or matcher.quick_ratio() < 0.6:
        return 0.0
    ratio = matcher.ratio()
    return ratio if ratio >= 0.6 else 0.0



def registrations_added(group, b_ids, bmap, lmap, rmap, calls_only: bool = False,  # type: ignore[no-untyped-def]
                        commands: frozenset[str] = frozenset()) -> bool:
    """True when, in a sequence (an ordered container: a function's statements), both sides
    only inserted statements at one place and every one of them, like the statement the
    insertions follow (or precede, at the start), is a call of the same function: a list of
    registrations (`test(...)`, `flags.BoolVar(...)`, `parser.add_argument(...)`) where two
    sides' additions do not depend on each other's order. Both sides' runs are then kept,
    left's first; any other overlap of edits in a sequence is left to the line merge.
    `calls_only`: the same for the positional members of an unordered container (a module's
    top-level `test(...)` or `register(...)` calls), where only calls count, not elements.
    `commands`: the profile's `registrations` (statement_forms.call_form)."""
    starts = {(start, end) for _side, (start, end, _idents) in group}
    if len(starts) != 1:
        return False
    start, end = next(iter(starts))
    if start != end or len(b_ids) == 0:
        return False
    neighbour = bmap[b_ids[start - 1]] if start > 0 else bmap[b_ids[start]]
    form = registration_form(neighbour.source, neighbour.node, commands)
    if form is None or (calls_only and form.startswith("element ")):
        return False
    inserted = {"L": [i for s, h in group if s == "L" for i in h[2]], "R": [i for s, h in group if s == "R" for i in h[2]]}
    if not inserted["L"] or not inserted["R"] or set(inserted["L"]) & set(inserted["R"]):
        return False  # the same statement added on both sides: once or twice is a guess
    maps = {"L": lmap, "R": rmap}
    if not all(registration_form(maps[side][i].source, maps[side][i].node, commands) == form
               for side in ("L", "R") for i in inserted[side]):
        return False
    # The same registration (callee and name: `test('fixes #10185', ...)`) written by both
    # sides, differently: keeping both would run it twice, keeping one is a guess.
    named = [{call_name(maps[side][i].source, maps[side][i].node, commands) for i in inserted[side]} - {None}
             for side in ("L", "R")]
    return not (named[0] & named[1])



def independent_insertions(profile, path, group, b_ids, bmap, lmap, rmap) -> bool:  # type: ignore[no-untyped-def]
    """True when, in a sequence of statements (an ordered container without separators: a
    function's body), both sides only inserted new statements at one place and the two runs
    cannot affect each other: neither binds a name the other binds or uses, neither holds a
    jump (`return`, `break`, `raise`...) that would cut the other's run off, and no statement
    of one is a near copy of one of the other (the same fix written twice). Both runs are
    then kept, left's first: in either order the statements do the same."""
    starts = {(start, end) for _side, (start, end, _idents) in group}
    maps = {"L": lmap, "R": rmap}
    editing = None   # the side that edited the statement the other side's insertion touches
    if len(starts) != 1 or next(iter(starts))[0] != next(iter(starts))[1]:
        editing = insertion_by_edit(group, b_ids, bmap, maps)
        if editing is None:
            return False
    if any(start == len(b_ids) for _side, (start, _end, _idents) in group):
        # Appended after the block's last statement: the blank lines before the block's end
        # belong to no statement, and where each side's run stands against them is a guess
        # (the replay eval's wrong layouts).
        return False
    runs = {side: [maps[side][i] for s, h in group if s == side for i in h[2]] for side in ("L", "R")}
    if not runs["L"] or not runs["R"] or any(m.ident in bmap for run in runs.values() for m in run):
        return False
    for side, other in (("L", "R"), ("R", "L")):
        # A jump may cut the other side's new statements off; but when the other side only
        # rewrote the statement this side's run stands next to (its new statements all stand
        # in that statement's place), what follows the jump is that statement on both sides.
        if editing != other and any(holds_jump(m.node) for m in runs[side]):
            return False
    if any(close_texts(a.body, b.body) or same_shape(a.body, b.body) for a in runs["L"] for b in runs["R"]):
        return False
    bound, used = {}, {}
    for side, run in runs.items():
        bound[side] = frozenset().union(*(names_bound(m.source, m.node) | frozenset(names.bound_names(profile, m.source, m.node))
                                          | assigned(m.source, m.node) for m in run))
        used[side] = frozenset().union(*(names_used(m.source, m.node, annotations=profile.annotations_run(path, m.source),
                                                    deferred_kinds=profile.deferred, name_kinds=profile.name_kinds)
                                         for m in run))
    return not (bound["L"] & bound["R"] or bound["L"] & used["R"] or bound["R"] & used["L"])



def insertion_by_edit(group, b_ids, bmap, maps) -> str | None:  # type: ignore[no-untyped-def]
    """The editing side when one side only inserted, right before or right after one base
    statement, and the other side edited that statement (replaced it by one member of its kind
    whose text is close to it) and maybe added statements with it: the insertion keeps its
    place against the edited statement (before it, or after it), as a line merge of two
    separate hunks would. None otherwise."""
    by_side: dict[str, list[tuple[int, int, list[str]]]] = {"L": [], "R": []}
    for side, hunk in group:
        by_side[side].append(hunk)
    for inserting, editing in (("L", "R"), ("R", "L")):
        if len(by_side[editing]) != 1 or not by_side[inserting]:
            continue
        start, end, new = by_side[editing][0]
        if end - start != 1 or not new:
            continue
        base = bmap[b_ids[start]]
        if not any(maps[editing][i].node.type == base.node.type and close_texts(base.body, maps[editing][i].body)
                   for i in new):
            continue
        if all(h_start == h_end and h_start in (start, end) for h_start, h_end, _ in by_side[inserting]):
            return editing
    return None



def why_no_union(profile, rule, group, b_ids, bmap, lmap, rmap) -> str:  # type: ignore[no-untyped-def]
    """Why a group of both sides' hunks went to a line merge of its region (the census note)."""
    if not rule.unordered:
        return "both sides' edits touch in an ordered container"
    if not all_keyed(profile, group, bmap, lmap, rmap, b_ids, rule):
        return "an unkeyed or anchored member among both sides' edits"
    if ambiguous_order(group):
        return "an insertion next to the other side's multi-member replacement"
    if replaced_on_both_sides(group, bmap, lmap, rmap, b_ids):
        return "one member replaced on both sides"
    return "a member reworded on one side and deleted on the other"
