"""Stage 2 of the cascade: the declaration-level three-way merge over tree-sitter trees.

Input: the three parsed versions of a file and its language profile. Output: a list of pieces
(bytes, or `Conflict` records: pieces.py) that render to the merged file, or `Unmergeable` when
the structure cannot be trusted (then the caller keeps the line merge).

This module is the driver (`StructuredMerge`): it walks containers, groups both sides' hunks,
picks the rule that settles each group and merges the members both sides kept. Each rule lives
with its job, and documents itself there:
  members.py           a container's versions cut into members, matched by identity
  member_diff.py       each side's members diffed against base into hunks; moves; checks on hunks
  group_rules.py       which rule settles a group of both sides' hunks that touch
  statement_forms.py   what one statement is (a call and its name, a registration, a jump, targets)
  insertion_order.py   the order of both sides' insertions at one place; tables kept sorted
  insertion_layout.py  the leads and whitespace inserted members take
  name_loss.py         names a side's edit takes away that the other side's new code uses
  bindings.py, names.py  what a member binds and uses
  pieces.py            `Conflict`, `Piece`, and the conflicts of a line merge as pieces

How a container merges (module, class body, object literal, import list, ...):
  1. each version is segmented into members (members.py) matched by identity: the declaration key
     for declarations, the text for positional members;
  2. the member sequences are diffed against base into hunks (member_diff.py); a member one side
     moved is a deletion at its old place and an insertion at its new one, accepted when the
     other side kept it in place (the other side's edit of it, if any, is merged into it where it
     now stands) and made no edit touching either place, unless, in an unordered container, the
     group's union of keyed members places it (the other side's new member stays anchored where
     it was written; a side whose moves sorted runs of one-line members, an import block, gets
     the merged runs sorted: insertion_order.py); a member moved on both sides, moved on one and
     deleted on the other, or moves on both sides where a moved member was changed or crossed an
     edit are Unmergeable. Hunks of the two sides that overlap or touch form a group, settled by
     the first rule that holds (group_rules.py):
       - the same edit on both sides: taken once;
       - one positional call statement both sides replaced by one edited call of the same callee
         and name (`describe('x', ...)`): merged as that one member;
       - in an unordered container, both hunks only add or delete keyed, non-anchored members:
         a union (added on one side -> kept; deleted and unchanged on the other -> deleted;
         deleted vs modified -> conflict; the same key added twice -> once if identical, else
         conflict; no union when one base member was replaced on both sides, reworded on one
         and deleted on the other, or next to a multi-member replacement); both sides' runs at one
         place -> left's first, a pure insertion before the other side's one-member replacement,
         sorted into a sorted run, and, in an order-sensitive container (a Python module or class
         body), a side's statements using a name the other side's statements bind after them
         (insertion_order.py), their blank lines chained (insertion_layout.py); a base member
         both sides deleted while one side put a member of its kind binding the same name in (an
         import re-pointed to a new path) is that side's edit against the other's deletion: a
         delete/modify conflict in one group, Unmergeable when the new key moved it elsewhere
         (name_loss.py);
       - in an ordered container, both sides' pure insertions at one place that are all calls of
         one function (registrations), or in a sequence of statements (`statements = true`: a
         function's body) independent runs, or an insertion next to a statement the other side
         edited: both kept, left's first;
       - otherwise git's line merge of just that region, between members both sides kept (a
         conflict localized to lines; a `delete_use` conflict when a side's edit there takes a
         name the other side's new code uses);
  3. members kept on both sides merge their content: one side changed -> that side (but a conflict
     when the change drops a name the member bound and the other side's new code uses it:
     name_loss.py; the same for a member one side deleted); one side only the leading trivia and
     the other only the rest -> both; both -> recursively through a nested container if the
     member has one (unless one side's edit of the member's head drops a name the other side's new
     lines inside use: a renamed parameter), else a line merge of the member's text, whose
     conflicts are then localized to that declaration. A member a side inserted into a one-line
     list the other side broke onto lines takes the other side's layout, and one inserted among
     members the other side re-indented throughout takes that indentation (insertion_layout.py).
A container the base holds empty (`{}`, `[]`, an empty or blank file: no members) takes both
sides' members as insertions at one place, by the same rules (a union where the container's members
commute; a side's run after the other's, the layout of `insertion_layout.leads_into_empty`).
Invariants: code nobody touched is copied byte for byte; a move of one member on both sides, a move
against a deletion, a move touching the other side's edit that no union of keyed members places,
new members a side's line diff puts inside a neighbour the other side edited (member_diff.py), an
unexpected node between members, or a conflict that would not start and end on a line boundary
makes the container Unmergeable (never a guess). Blank lines between a nested container's header
(`class C:`) and its first member belong to that member's lead, so they travel with it.
"""

from __future__ import annotations

import re
import time
from dataclasses import replace

import tree_sitter

from .group_rules import (all_keyed, ambiguous_order, independent_insertions, moved_against_deletion,
                          one_call_edited_twice, registrations_added, replaced_on_both_sides, reworded_against_deletion, same_hunks,
                          why_no_union)
from .insertion_layout import (lead_over_deletion, leads_into_empty, over_blank_lines, reindent_insertions,
                               relayout_insertions, run_leads)
from .insertion_order import bind_before_use, group_order, opens_group_below, sorted_as_moved, sorted_run, sorted_table
from ..lines.line import raw_line_merge
from .member_diff import (base_span, check_moves_apart, check_moves_cross_nothing, check_no_slide, group_shape,
                          kept_in_place, positional_duplicates, side_hunks, side_region)
from .members import (Member, Segmented, Unmergeable, Version, declaration_key, declaration_label, region_start,
                      segment)
from .name_loss import NameLoss
from .pieces import (Conflict, Piece, at_line_start, check_aligned, join_declaration, pick3, pick_flag,
                     pieces_from_markers)
from ..languages.profiles import ContainerRule, Profile


# The provenance record of a member both sides edited that merged through its nested container.
INSIDE = "both edited one member: merged inside"
# ... of a member where one side wrote new comment or attribute lines above it and the other rewrote
# its first line (its head: a signature, a type's definition).
COMMENT_OVER_HEAD = "lead and body of one member: comment over a rewritten head"


# ... of a member one side moved and the other side edited: the edit applied where the member now stands.
MOVED_AND_EDITED = "move: a member moved on one side, edited on the other"


# The step of the conflict a member moved or renamed on one side and deleted on the other leaves
# where the moving side's copy stands (git's line merge keeps the copy without a word).
MOVED_AGAINST_DELETION = "member: moved or renamed on one side, deleted on the other"


class StructuredTimeout(Unmergeable):
    """The structured attempt passed its time limit."""


class StructuredMerge:
    """One structured merge of one file: holds the profile, the options and the deadline."""

    def __init__(self, profile: Profile, *, marker_size: int, labels: tuple[str, str, str],
                 deadline: float, path: str = "") -> None:
        self.profile = profile
        # The file's path: the profile tells from it (and the source) whether type annotations
        # run where they stand, i.e. whether they count as uses for bind-before-use.
        self.path = path
        self.marker_size = marker_size
        self.labels = labels
        self.deadline = deadline
        # The name checks (delete_use, rename_use, re-bound members) of the file being merged.
        self._name_loss = NameLoss(profile, {})
        # Provenance (provenance.py): which rule merged which base bytes, where both sides edited
        # one place: (rule, base start, base end). Internal; read by the quality eval.
        self.trace: list[tuple[str, int, int]] = []

    # -- entry -------------------------------------------------------------------------------
    def merge(self, base: Version, left: Version, right: Version) -> list[Piece]:
        self._name_loss = NameLoss(self.profile, {"B": base, "L": left, "R": right})
        self.trace = []
        found = [self._find_container(v.source, v.root, 4) for v in (base, left, right)]
        blank = not base.source.strip()
        # An empty file (or one of blank lines) is a container with no members, whatever kind the
        # sides fill it with (an empty JSON file holds no object yet): their members are insertions
        # into it, merged by the same rules as into a base that held the container.
        empty_base = found[0] is None and blank and found[1] is not None
        if empty_base:
            found[0] = found[1]
        if any(item is None for item in found) or len({item[0].type for item in found}) != 1:  # type: ignore[index]
            raise Unmergeable("the versions do not share one top-level structure (a side changed what the file "
                              "holds at its top, such as a JSON object into an array)")
        (bnode, brule), (lnode, _), (rnode, _) = found  # type: ignore[misc]
        segs = []
        for version, node in zip((base, left, right), (bnode, lnode, rnode)):
            if version is base and empty_base:
                separator = brule.separator.encode() if brule.separator else None
                segs.append(Segmented(prefix=base.source, members=(), suffix=b"", separator=separator,
                                      start=0, end=len(base.source)))
                continue
            seg = segment(version.source, node, brule, self.profile)
            # Text around the top-level container counts as its prefix and suffix.
            segs.append(replace(seg, prefix=version.source[:seg.start] + seg.prefix,
                                suffix=seg.suffix + version.source[seg.end:]))
        try:
            pieces = self._merge_container([], segs[0], segs[1], segs[2], brule)
        except StructuredTimeout:
            raise
        except Unmergeable:
            if blank and segs[1].members and segs[2].members:
                # Said to people too (`task update` names why a file keeps markers): both sides
                # filled a new (or empty) file, with different text around their declarations (a
                # header, a license line); "container" would mean nothing to them.
                raise Unmergeable("both sides added this file, each its own way") from None
            raise
        check_aligned(pieces, at_line_start=True)
        return pieces

    def _label(self, member: Member) -> str | None:
        """How a member reads in a conflict's declaration path: `const x`, not its key `var x`
        (profile `[labels]`; members.declaration_label). Paths are for people: never matched."""
        return declaration_label(member, self.profile)

    def _record(self, rule: str, start: int, end: int) -> None:
        self.trace.append(("data: " + rule if self.profile.data else rule, start, end))

    # -- containers --------------------------------------------------------------------------
    def _find_container(self, source: bytes, node: tree_sitter.Node, limit: int) -> tuple[tree_sitter.Node, ContainerRule] | None:
        """The first container at most `limit` levels below `node` (breadth first)."""
        queue = [(node, 0)]
        while queue:
            current, level = queue.pop(0)
            rule = self.profile.container_rule(current, lambda item: declaration_key(source, item, self.profile))
            if rule is not None:
                return current, rule
            if level < limit:
                queue.extend((child, level + 1) for child in current.named_children)
        return None

    def _merge_container(self, path: list[str], b: Segmented, l: Segmented, r: Segmented,
                         rule: ContainerRule) -> list[Piece]:
        """One container's three versions merged, in the steps of the module docstring's "How a
        container merges": the delimiters, each side's moves, each side's hunks against base and the
        checks on them, the groups of both sides' hunks that touch (each settled by the first rule
        that holds), then the merged entries ordered, laid out and rendered."""
        if time.monotonic() > self.deadline:
            raise StructuredTimeout("time limit")
        prefix = pick3(b.prefix, l.prefix, r.prefix)
        suffix = pick3(b.suffix, l.suffix, r.suffix)
        if prefix is None or suffix is None:
            raise Unmergeable(f"both sides changed the lines around the declarations of {' > '.join(path) or 'the file'} "
                              "(before the first one: a header, an opening line; or after the last one)")
        b, l, r = positional_duplicates(b, l, r)
        bmap = {m.ident: m for m in b.members}
        lmap = {m.ident: m for m in l.members}
        rmap = {m.ident: m for m in r.members}
        b_ids = [m.ident for m in b.members]
        l_ids = [m.ident for m in l.members]
        r_ids = [m.ident for m in r.members]
        l_kept, r_kept, moved, moved_by = _moves(b_ids, l_ids, r_ids, bmap, lmap, rmap)
        added_twice, left_hunks, right_hunks = self._side_hunks(b, b_ids, bmap, (l_ids, lmap, l_kept),
                                                                (r_ids, rmap, r_kept), moved, moved_by, rule)
        _check_edges(b, l, r, b_ids, bmap, left_hunks, right_hunks)
        groups = _touching_groups(left_hunks, right_hunks)
        self._name_loss.check_rebound_together(groups, b_ids, bmap, lmap, rmap)
        # Both sides took a member out, one of them to put a near copy elsewhere (moved and
        # retitled, renamed and moved): a move against a delete, a conflict where the copy stands.
        moved_away = moved_against_deletion(groups, b_ids, bmap, lmap, rmap)
        entries = self._settle_groups(path, groups, b, b_ids, bmap, (l_ids, lmap), (r_ids, rmap), rule,
                                      added_twice, moved)
        name = " > ".join(path)
        sep = b.separator
        if moved_away:
            entries = self._moved_against_deletion(entries, moved_away, bmap, lmap, rmap, name, sep)
        if rule.keep_sorted:
            entries = sorted_table(entries, (b, l, r), bmap, lmap, rmap)
        elif moved:
            entries = sorted_as_moved(entries, moved, (l, lmap, l_kept), (r, rmap, r_kept), bmap=bmap)
        entries = relayout_insertions(entries, bmap, lmap, rmap)
        entries = reindent_insertions(entries, bmap, lmap, rmap)
        return [prefix] + self._render_entries(path, entries, b, l, r, bmap, lmap, rmap) + [suffix]

    def _side_hunks(self, b: Segmented, b_ids: list[str], bmap: dict[str, Member], left: _SideKept, right: _SideKept,
                    moved: set[str], moved_by: dict[str, set[str]], rule: ContainerRule
                    ) -> tuple[set[str], list[_Hunk], list[_Hunk]]:
        """Each side's hunks against base (`left`, `right`: a side's ids, member map and members
        kept in place), a declaration both sides added taken out of right's, each move recorded,
        and the checks on moves and hunks: (added twice, left hunks, right hunks)."""
        (l_ids, lmap, l_kept), (r_ids, rmap, r_kept) = left, right
        # A declaration added on both sides is placed once, where left put it: identical texts
        # merge into one, different texts become one insert/insert conflict there.
        added_twice = {i for i in lmap if i in rmap and i not in bmap
                       and (lmap[i].key is not None or lmap[i].repeated_key is not None)}
        right_hunks = []
        for start, end, inserted in side_hunks(b_ids, r_ids, r_kept):
            kept = [i for i in inserted if i not in added_twice]
            if kept or start != end:
                right_hunks.append((start, end, kept))
        left_hunks = side_hunks(b_ids, l_ids, l_kept)
        for ident in moved:
            stayed = lmap[ident] if ident in l_kept else rmap[ident]  # the side that did not move it
            edited = stayed.content != bmap[ident].content
            self._record(MOVED_AND_EDITED if edited else "move",
                         bmap[ident].start, bmap[ident].start + len(bmap[ident].lead + bmap[ident].body))
        if moved_by["L"] and moved_by["R"]:
            # Both sides moved members: each side's reading of the other's order is its own (a
            # block both sides re-sorted differently), so nothing may stand in a span a member
            # crossed (the rule before issue 13 round 5).
            check_moves_cross_nothing(b_ids, moved, (l_ids, l_kept, right_hunks), (r_ids, r_kept, left_hunks))
        if moved and not rule.unordered:
            # In an unordered container a move next to the other side's edit may still commute
            # (a re-sorted import block beside a new import): the group's union decides, below.
            check_moves_apart(b_ids, moved, (left_hunks, right_hunks), (right_hunks, left_hunks))
        check_no_slide(b_ids, bmap, b.separator, (left_hunks, lmap, rmap), (right_hunks, rmap, lmap))
        return added_twice, left_hunks, right_hunks

    def _settle_groups(self, path: list[str], groups: list[_Group], b: Segmented, b_ids: list[str],
                       bmap: dict[str, Member], left: tuple[list[str], dict[str, Member]],
                       right: tuple[list[str], dict[str, Member]], rule: ContainerRule, added_twice: set[str],
                       moved: set[str]) -> list[tuple[str, object]]:
        """The container's entries: base members nobody touched, and each group of both sides'
        hunks settled by the first rule that holds (one side only; one call edited twice; the same
        edit; a union; registrations or independent statements; else the line merge of its
        region). One algorithm: the rules are tried in this order for every group, and a group's
        entries must follow the base members before it, so it stays one loop."""
        (l_ids, lmap), (r_ids, rmap) = left, right
        # entries: ("member", ident) resolved later, or ("conflict", Conflict)
        entries: list[tuple[str, object]] = []
        name = " > ".join(path)
        position = 0
        sep = b.separator

        overrides: dict[str, bytes] = {}  # base member -> lead given by chained insertions before it

        def emit_base_until(stop: int) -> None:
            nonlocal position
            while position < stop:
                ident = b_ids[position]
                entries.append(("kept", (ident, overrides.pop(ident)) if ident in overrides else ident))
                position += 1

        def text_of(members: list[Member]) -> bytes:
            return b"".join(m.render(sep, m.has_sep) for m in members)

        for group in groups:
            lo = min(h[0] for _, h in group)
            hi = max(h[1] for _, h in group)
            emit_base_until(lo)
            sides = {s for s, _ in group}
            span = base_span(b, b_ids, bmap, lo, hi)
            union = len(sides) == 2 and rule.unordered and all_keyed(self.profile, group, bmap, lmap, rmap, b_ids, rule) \
                and not ambiguous_order(group) and not replaced_on_both_sides(group, bmap, lmap, rmap, b_ids) \
                and not reworded_against_deletion(group, bmap, lmap, rmap, b_ids)
            has_move = any(i in moved for _, h in group for i in h[2] + b_ids[h[0]:h[1]])
            if len(sides) == 2 and not union and has_move:
                # Only a union of keyed members says where the other side's edit goes once the
                # member moved; any other reading of the group is an order the engine would guess.
                raise Unmergeable("one side moved a declaration next to lines the other side changed")
            if len(sides) == 1:
                self._apply_one_side(entries, group, b_ids, lo, hi, bmap, lmap, rmap, name, sep, added_twice,
                                     moved=moved)
            elif not has_move and (pair := one_call_edited_twice(group, b_ids, bmap, lmap, rmap)) is not None:
                entries.append(("pair", pair))
                self._record("one call edited twice", *span)
            elif not has_move and same_hunks(group, lmap, rmap):
                only_left = [item for item in group if item[0] == "L"]
                self._apply_one_side(entries, only_left, b_ids, lo, hi, bmap, lmap, rmap, name, sep, added_twice, both=True)
                self._record("same edit on both sides", *span)
            elif union:
                self._apply_union(entries, group, b_ids, lo, hi, bmap, lmap, rmap, name, sep, added_twice, overrides, moved)
                self._record("union of members: " + group_shape(group), *span)
            elif (registrations := registrations_added(group, b_ids, bmap, lmap, rmap, calls_only=rule.unordered,
                                                     commands=self.profile.registrations)) \
                    or (rule.statements and independent_insertions(self.profile, self.path, group, b_ids, bmap, lmap, rmap)):
                self._apply_union(entries, group, b_ids, lo, hi, bmap, lmap, rmap, name, sep, added_twice, overrides, moved)
                self._record("registrations at one place" if registrations else "independent statements at one place",
                             *span)
            else:
                lefts = side_region(l_ids, b_ids, lo, hi, lmap)
                rights = side_region(r_ids, b_ids, lo, hi, rmap)
                region = [text_of([bmap[i] for i in b_ids[lo:hi]]), text_of(lefts), text_of(rights)]
                if self._name_loss.region_loses_used_name(b_ids[lo:hi], bmap, lmap, rmap):
                    # A side's deletion or rename in the region takes a name the other side's new
                    # code uses: whatever the line merge makes of it, the result would not resolve.
                    entries.append(("conflict", Conflict(base=region[0], ours=region[1], theirs=region[2],
                                                         declaration=name, kind="delete_use",
                                                         step="region: a side's edit takes a name the other's new code uses")))
                    position = hi
                    continue
                # Ordered edits that touch: git's line merge of just this region, between members
                # both sides kept, localizes the conflict to lines (it may even be clean).
                merged, clean = raw_line_merge(*region, marker_size=self.marker_size, labels=self.labels)
                kind = "insert_insert" if lo == hi else "content"
                step = "region: " + why_no_union(self.profile, rule, group, b_ids, bmap, lmap, rmap)
                pieces = [merged] if clean else pieces_from_markers(merged, self.marker_size, name, kind, step)
                entries.append(("region", pieces))
                if clean:
                    self._record("line merge between members: " + group_shape(group), *span)
            position = hi
        emit_base_until(len(b_ids))
        return entries

    def _moved_against_deletion(self, entries, moved_away, bmap, lmap, rmap, name, sep):  # type: ignore[no-untyped-def]
        """The entries with each moving side's near copy of a member the other side deleted
        turned into a delete/modify conflict where the copy stands (the base text, the copy, and
        nothing from the deleting side). A copy the entries do not hold as that side's plain
        insertion (a region's line merge took it) makes the container Unmergeable instead."""
        conflicts = {}
        for ident, side, copy in moved_away:
            member = (lmap if side == "L" else rmap)[copy]
            text = member.render(sep, True)
            ours, theirs = (text, b"") if side == "L" else (b"", text)
            conflicts[(side, copy)] = Conflict(
                base=bmap[ident].render(sep, True), ours=ours, theirs=theirs,
                declaration=join_declaration(name, self._label(bmap[ident])), kind="delete_modify",
                step=MOVED_AGAINST_DELETION)
        out = []
        for kind, value in entries:
            if kind == "add" and tuple(value[:2]) in conflicts:  # type: ignore[index]
                out.append(("conflict", conflicts.pop(tuple(value[:2]))))  # type: ignore[index]
            else:
                out.append((kind, value))
        if conflicts:
            raise Unmergeable("one side moved or renamed a declaration the other side deleted")
        return out

    def _deletion(self, entries, ident, bmap, other_map, name, deleting_side: str, sep, own_map=None) -> None:  # type: ignore[no-untyped-def]
        """A base member deleted by one side: gone if the other side left it alone, else conflict;
        also a conflict when the other side's new code uses a name only the member bound."""
        other = other_map.get(ident)
        if other is None:
            return
        if other.content == bmap[ident].content:
            if own_map is None or not self._name_loss.lost_and_used(bmap[ident], None, own_map, deleting_side):
                return
            kind = "delete_use"
        else:
            kind = "delete_modify"
        base_text = bmap[ident].render(sep, bmap[ident].has_sep)
        kept = other.render(sep, other.has_sep)
        ours, theirs = (b"", kept) if deleting_side == "L" else (kept, b"")
        entries.append(("conflict", Conflict(base=base_text, ours=ours, theirs=theirs,
                                             declaration=join_declaration(name, self._label(bmap[ident])), kind=kind,
                                             step=f"member: {kind}")))

    def _apply_one_side(self, entries, group, b_ids, lo, hi, bmap, lmap, rmap, name, sep, twice, both=False,  # type: ignore[no-untyped-def]
                        moved=frozenset()) -> None:
        for side, (start, end, inserted) in sorted(group, key=lambda item: item[1][0]):
            smap, other = (lmap, rmap) if side == "L" else (rmap, lmap)
            first = len(entries)
            for ident in b_ids[start:end]:
                if not both and ident not in moved:
                    self._deletion(entries, ident, bmap, other, name, side, sep, smap)
            if self._replaced_against_edit(entries, first, side, b_ids[start:end], inserted, bmap, smap, other, sep,
                                           twice, moved):
                continue
            for ident in inserted:
                if ident in moved:
                    # A member this side moved: it stands where this side put it, with the other
                    # side's edit of it (if any) merged in.
                    entries.append(("moved", ident))
                elif ident in twice and lmap[ident].content != rmap[ident].content:
                    entries.append(("addboth", ident))
                else:
                    entries.append(("add", (side, ident)))

    def _replaced_against_edit(self, entries, first, side, deleted, inserted, bmap, smap, other, sep,  # type: ignore[no-untyped-def]
                               twice, moved) -> bool:
        """A side that replaced base members with new ones (a statement rewritten: its key changed)
        where the other side edited one of them: one conflict block holding the replacement as that
        side's text, as git's line merge shows an edit against an edit, instead of a delete/modify
        block with that side empty and its new text standing below it. Found driving wtc on
        networkx: `return not G.degree(n)` against `return G.degree(n) == 0  # comment`; keeping
        integration's side of that block kept both returns. True when the entries hold it so."""
        made = entries[first:]
        if not inserted or not made or any(kind != "conflict" or value.kind != "delete_modify" for kind, value in made):
            return False
        if any(ident in moved or ident in twice for ident in inserted):
            return False
        mine = b"".join(smap[ident].render(sep, smap[ident].has_sep) for ident in inserted)
        base = b"".join(bmap[ident].render(sep, bmap[ident].has_sep) for ident in deleted)
        theirs = b"".join(other[ident].render(sep, other[ident].has_sep) for ident in deleted if ident in other)
        ours, theirs = (mine, theirs) if side == "L" else (theirs, mine)
        entries[first:] = [("conflict", replace(made[0][1], base=base, ours=ours, theirs=theirs, kind="content",
                                                step="member: replaced on one side, edited on the other"))]
        return True

    def _apply_union(self, entries, group, b_ids, lo, hi, bmap, lmap, rmap, name, sep, twice, overrides, moved) -> None:  # type: ignore[no-untyped-def]
        deleted: dict[str, str] = {}
        inserts: dict[int, list[tuple[str, str]]] = {}
        replacing: set[str] = set()   # side + base index where that side's hunk deletes members
        for side, (start, end, inserted) in group:
            for ident in b_ids[start:end]:
                deleted.setdefault(ident, side)
                if ident in deleted and deleted[ident] != side:
                    deleted[ident] = "both"
            # A side that replaced the members ending at a group boundary with a run that opens
            # the group below (it took the successor's blank line) inserted that run at the
            # successor, where the other side's additions to either group are ordered against it.
            at = end if opens_group_below(side, start, end, inserted, b_ids, bmap, lmap, rmap) else start
            inserts.setdefault(at, []).extend((side, ident) for ident in inserted)
            if end > start:
                replacing.add(side + str(start))
        placed: set[str] = set()
        # A base member both sides deleted, where one side put a member binding the same name in
        # the group (an import whose path changed: `chart/loader` -> `chart/v2/loader`), was edited
        # by that side and deleted by the other: delete/modify, as if its key had not changed.
        rebound = self._name_loss.rebound_on_one_side(group, deleted, bmap, lmap, rmap, b_ids)
        placed.update(i for _side, replacement in rebound.values() for i in replacement)
        for index in range(lo, hi + 1):
            # A side's pure insertion before base member i goes before the other side's
            # replacement of member i (new text standing where i stood): the insertion sat
            # right after member i - 1, as in a line merge. Otherwise left's run comes first.
            run = sorted(inserts.get(index, []), key=lambda item: (item[0] + str(index) in replacing, item[0]))
            run = group_order(run, index, b_ids, bmap, lmap, rmap) or sorted_run(run, index, b_ids, bmap, lmap, rmap) or run
            if self.profile.order_sensitive:
                run = bind_before_use(run, lmap, rmap, self.profile, self.path)
            leads, successor_lead = run_leads(run, index, b_ids, bmap, lmap, rmap, moved)
            if successor_lead is None:
                leads, successor_lead = lead_over_deletion(run, index, b_ids, bmap, lmap, rmap, deleted)
            if not b_ids:
                leads = leads_into_empty(run, lmap, rmap)
            if successor_lead is not None:
                overrides[b_ids[index]] = successor_lead
            for side, ident in run:
                if ident in placed:
                    continue
                placed.add(ident)
                if ident in moved:
                    entries.append(("moved", ident))
                elif ident in twice and lmap[ident].content != rmap[ident].content:
                    entries.append(("addboth", ident))
                elif ident in leads:
                    entries.append(("add", (side, ident, leads[ident])))
                else:
                    entries.append(("add", (side, ident)))
            if index < hi:
                ident = b_ids[index]
                who = deleted.get(ident)
                if who is None and ident in overrides:
                    entries.append(("kept", (ident, overrides.pop(ident))))
                elif who is None:
                    entries.append(("kept", ident))
                elif who == "both" and ident in rebound:
                    side, replacement = rebound[ident]
                    text = b"".join((lmap if side == "L" else rmap)[i].render(sep, True) for i in replacement)
                    ours, theirs = (text, b"") if side == "L" else (b"", text)
                    entries.append(("conflict", Conflict(base=bmap[ident].render(sep, True), ours=ours, theirs=theirs,
                                                         declaration=join_declaration(name, self._label(bmap[ident])),
                                                         kind="delete_modify", step="member: delete_modify")))
                elif ident in moved:
                    pass  # taken to where its side put it (a "moved" entry of that side's run)
                elif who == "L":
                    self._deletion(entries, ident, bmap, rmap, name, "L", sep, lmap)
                elif who == "R":
                    self._deletion(entries, ident, bmap, lmap, name, "R", sep, rmap)

    # -- rendering members -------------------------------------------------------------------
    def _render_entries(self, path, entries, b, l, r, bmap, lmap, rmap) -> list[Piece]:  # type: ignore[no-untyped-def]
        sep = b.separator
        member_positions = [i for i, (kind, _) in enumerate(entries) if kind not in ("conflict", "region")]
        trailing = pick_flag(b.trailing_sep, l.trailing_sep, r.trailing_sep)
        out: list[Piece] = []
        for index, (kind, value) in enumerate(entries):
            with_sep = True if not member_positions or index != member_positions[-1] else trailing
            if kind == "conflict":
                out.append(value)
            elif kind == "region":
                out.extend(value)
            elif kind == "add":
                side, ident, *layout = value
                member = (lmap if side == "L" else rmap)[ident]
                if layout:
                    member = replace(member, lead=layout[0])
                if len(layout) > 1:
                    member = replace(member, tail=layout[1])
                if len(layout) > 2:
                    member = replace(member, body=layout[2])
                out.append(member.render(sep, with_sep))
            elif kind == "pair":
                base_ident, left_ident, right_ident = value
                out.extend(self._merge_member(path, bmap[base_ident], lmap[left_ident], rmap[right_ident], sep,
                                              with_sep, maps=(lmap, rmap)))
            elif kind == "addboth":
                lm, rm = lmap[value], rmap[value]
                union = self._union_added_twice(lm, rm, sep, with_sep)
                if union is not None:
                    out.extend(union)
                    continue
                out.append(Conflict(base=b"", ours=lm.render(sep, with_sep), theirs=rm.render(sep, with_sep),
                                    declaration=join_declaration(" > ".join(path), self._label(lm)), kind="insert_insert",
                                    step="member: one declaration added by both sides with two texts"))
            elif kind == "moved":
                out.extend(self._merge_member(path, bmap[value], lmap[value], rmap[value], sep, with_sep,
                                              maps=(lmap, rmap)))
            elif isinstance(value, tuple):  # kept, with the lead a chained insertion gave it
                ident, lead = value
                members = [replace(m[ident], lead=lead) for m in (bmap, lmap, rmap)]
                out.extend(self._merge_member(path, *members, sep, with_sep, maps=(lmap, rmap)))
            else:
                out.extend(self._merge_member(path, bmap[value], lmap[value], rmap[value], sep, with_sep,
                                              maps=(lmap, rmap)))
        return out

    def _merge_member(self, path: list[str], bm: Member, lm: Member, rm: Member, sep: bytes | None,
                      with_sep: bool, maps: tuple[dict[str, Member], dict[str, Member]] | None = None) -> list[Piece]:
        if lm.content == rm.content or lm.content == bm.content or rm.content == bm.content:
            side, changed = ("R", rm) if lm.content == bm.content else ("L", lm)
            # One side changed the member; when the change drops a name it bound (a rename) that the
            # other side's new code uses, taking it would leave those uses dangling.
            if maps is not None and lm.content != rm.content and changed.content != bm.content \
                    and self._name_loss.lost_and_used(bm, changed, maps[0] if side == "L" else maps[1], side):
                return [Conflict(base=bm.render(sep, with_sep), ours=lm.render(sep, with_sep),
                                 theirs=rm.render(sep, with_sep), declaration=join_declaration(" > ".join(path), self._label(bm)),
                                 kind="rename_use", step="member: rename_use")]
            return [changed.render(sep, with_sep)]
        # One side changed only the member's leading trivia (its comment, the blank lines above it:
        # e.g. the member before it moved away), the other only the member itself: both edits
        # are disjoint parts of the member, so each is taken from the side that made it.
        end = bm.start + len(bm.lead + bm.body)
        for lead_side, body_side in ((lm, rm), (rm, lm)):
            if lead_side.body == bm.body and lead_side.tail == bm.tail and body_side.lead == bm.lead:
                self._record(COMMENT_OVER_HEAD if _comment_over_new_head(bm, lead_side, body_side)
                             else "lead and body of one member", bm.start, end)
                return [replace(body_side, lead=lead_side.lead).render(sep, with_sep)]
        inner_path = path + [self._label(bm)] if bm.key or bm.repeated_key else path
        why = "both sides edited it and it holds no container"
        try:
            pieces = self._merge_nested(inner_path, bm, lm, rm, sep, with_sep)
            if pieces is not None:
                check_aligned(pieces, at_line_start=at_line_start(bm))
                # Recorded for the member as a whole: provenance names a region by the rules
                # inside it when there are any, by this one when the sides' edits inside were apart.
                self._record(INSIDE, bm.start, end)
                return pieces
            why = "both sides edited its head or its container differs"
        except StructuredTimeout:
            raise
        except Unmergeable as error:
            why = f"its container is not mergeable ({error})"
        texts = [m.render(sep, with_sep) for m in (bm, lm, rm)]
        merged, clean = raw_line_merge(texts[0], texts[1], texts[2], marker_size=self.marker_size, labels=self.labels)
        if clean:
            self._record("line merge inside one member", bm.start, end)
            return [merged]
        return pieces_from_markers(merged, self.marker_size, " > ".join(inner_path), step=f"member: {why}")

    def _merge_nested(self, path: list[str], bm: Member, lm: Member, rm: Member, sep: bytes | None,
                      with_sep: bool) -> list[Piece] | None:
        """Merge a member through the container nested in it (a class body, an object value)."""
        # Four levels reach a callback's statements (`describe('x', () => { ... })`: statement,
        # call, arguments, function, body).
        found = [self._find_container(m.source, m.node, 4) for m in (bm, lm, rm)]
        if any(item is None for item in found):
            return None
        if len({item[0].type for item in found}) != 1:  # type: ignore[index]
            return None
        segs = []
        shells = []
        for member, (node, rule) in zip((bm, lm, rm), found):  # type: ignore[misc]
            shell, seg = self._shell(member, node, rule)
            shells.append(shell)
            segs.append(seg)
        head = pick3(*(s[0] for s in shells))
        foot = pick3(*(s[1] for s in shells))
        tail = pick3(*(s[2] for s in shells))
        if head is None or foot is None or tail is None:
            return None
        if _head_drops_used_name(shells, segs):
            return None
        inner = self._merge_container(path, segs[0], segs[1], segs[2], found[0][1])  # type: ignore[index]
        return [head] + inner + [foot + (sep if (sep and with_sep) else b"") + tail]


    def _shell(self, member: Member, node: tree_sitter.Node, rule: ContainerRule
               ) -> tuple[tuple[bytes, bytes, bytes], Segmented]:
        """A member cut around the container nested in it: (head, foot, tail) and the container's
        segments."""
        src = member.source
        # The member's lead may not be its source's (chained insertions before it gave it a
        # new one: `run_leads`): the head is then that lead plus the source from the body on.
        body_start = member.node.start_byte
        own_lead = src[member.start:body_start] == member.lead
        floor = member.start if own_lead else body_start
        start = over_blank_lines(src, max(region_start(src, node), floor), floor)
        body_end = body_start + len(member.body)
        limit = body_end + (0 if member.has_sep else len(member.tail))
        seg = segment(src, node, rule, self.profile, start=start, limit=limit)
        tail = member.tail
        if seg.end > body_end:
            tail = tail[seg.end - body_end:]
        head = src[member.start:seg.start] if own_lead else member.lead + src[body_start:seg.start]
        return (head, src[min(seg.end, body_end):body_end], tail), seg

    def _union_added_twice(self, lm: Member, rm: Member, sep: bytes | None, with_sep: bool) -> list[Piece] | None:
        """One container both sides added at one place with two texts, of a kind whose members
        commute (the profile's `union_when_added_twice`: a Markdown list both sides started under
        one heading): left's members, then right's that left does not hold, a member both added
        once. None (the caller's conflict stands) unless every member has a key, a key both added
        has one text, and the two containers' own text around their members is the same."""
        if lm.node.type not in self.profile.union_when_added_twice or rm.node.type != lm.node.type:
            return None
        first_line = lm.body.split(b"\n", 1)[0].decode("utf-8", "replace")
        if self.profile.added_twice_conflict is not None and self.profile.added_twice_conflict.search(first_line):
            return None
        found = [self._find_container(m.source, m.node, 0) for m in (lm, rm)]
        if found[0] is None or found[1] is None:
            return None
        try:
            (left_shell, left), (right_shell, right) = (self._shell(m, *item) for m, item in zip((lm, rm), found))
        except Unmergeable:
            return None
        if left_shell != right_shell or (left.prefix, left.suffix) != (right.prefix, right.suffix):
            return None
        if any(m.key is None or m.node.type in self.profile.anchored for m in (*left.members, *right.members)):
            # Members that keep their places (a section's paragraphs, its `###` subsections): both
            # kept only where their order is the same on both sides.
            return self._ordered_added_twice(left_shell, left, right, sep, with_sep)
        members = list(left.members)
        held = {m.key: m for m in left.members}
        for member in right.members:
            if member.key in held:
                if held[member.key].body != member.body:
                    return None   # one key, two texts: the caller's conflict
                continue
            members.append(member)
        if right.members and right.members[0].key not in held:
            # Right's first member leads with the gap that opens its container (the blank line under
            # a heading); first after left's members, it takes the lead of a member that follows another.
            inner = next((m.lead for m in (*left.members[1:], *right.members[1:])), b"")
            members[len(left.members)] = replace(right.members[0], lead=inner)
        return _in_shell(left_shell, left, [m.render(left.separator, m.has_sep) for m in members], sep, with_sep)

    def _ordered_added_twice(self, shell: tuple[bytes, bytes, bytes], left: Segmented, right: Segmented,
                              sep: bytes | None, with_sep: bool) -> list[Piece] | None:
        """One ordered container both sides added under one head (a Markdown `## Unreleased`
        section both sides opened): the members both hold, in the same order on both sides, are
        anchors; a member both hold with two texts merges the same way when it is a container of
        `union_when_added_twice` (a `### Fixed` under it, the list under that), and what only one
        side added between two anchors goes there. None (the caller's conflict stands) when the
        anchors' order differs, both sides added members between the same two anchors (sections and
        paragraphs never commute), or a member both hold with two texts does not merge."""
        left_ids = [m.ident for m in left.members]
        right_ids = [m.ident for m in right.members]
        shared = [ident for ident in left_ids if ident in set(right_ids)]
        if shared != [ident for ident in right_ids if ident in set(left_ids)]:
            return None
        lmap = {m.ident: m for m in left.members}
        rmap = {m.ident: m for m in right.members}
        body: list[bytes] = []
        li = ri = 0
        for anchor in [*shared, None]:
            left_gap, right_gap = [], []
            while li < len(left_ids) and left_ids[li] != anchor:
                left_gap.append(lmap[left_ids[li]])
                li += 1
            while ri < len(right_ids) and right_ids[ri] != anchor:
                right_gap.append(rmap[right_ids[ri]])
                ri += 1
            if left_gap and right_gap:
                return None
            body.extend(m.render(left.separator, m.has_sep) for m in left_gap or right_gap)
            if anchor is None:
                break
            lm, rm = lmap[anchor], rmap[anchor]
            li, ri = li + 1, ri + 1
            if lm.content == rm.content:
                body.append(lm.render(left.separator, lm.has_sep))
                continue
            merged = self._union_added_twice(lm, rm, left.separator, lm.has_sep)
            if merged is None or not all(isinstance(piece, bytes) for piece in merged):
                return None
            body.extend(merged)   # type: ignore[arg-type]
        return _in_shell(shell, left, body, sep, with_sep)


def _in_shell(shell: tuple[bytes, bytes, bytes], container: Segmented, body: list[bytes], sep: bytes | None,
              with_sep: bool) -> list[Piece]:
    """A merged container's members put back into its member's text: head, the container's own
    text around the members, foot, the separator when one follows, and the member's tail."""
    head, foot, tail = shell
    return [head + container.prefix + b"".join(body) + container.suffix + foot
            + (sep if (sep and with_sep) else b"") + tail]


_IDENTIFIER = re.compile(rb"[A-Za-z_$][A-Za-z0-9_$]*")
_WORD = re.compile(rb"[A-Za-z0-9_$']+")


def _head_drops_used_name(shells: list[tuple[bytes, bytes, bytes]], segs: list[Segmented]) -> bool:
    """True when one side's edit of a member's head (a function's signature: a parameter renamed
    or removed) drops a name that the other side's new lines inside the member still use: the
    members inside would merge, and the result would use a name the head no longer binds."""
    base_head = set(_IDENTIFIER.findall(shells[0][0]))
    base_lines = set(_region_text(segs[0]).splitlines())
    for mine, other in ((1, 2), (2, 1)):
        if shells[mine][0] == shells[0][0]:
            continue
        lost = base_head - set(_IDENTIFIER.findall(shells[mine][0]))
        if not lost:
            continue
        new_lines = [line for line in _region_text(segs[other]).splitlines() if line not in base_lines]
        if any(name in lost for line in new_lines for name in _IDENTIFIER.findall(line)):
            return True
    return False


def _region_text(seg: Segmented) -> bytes:
    return seg.prefix + b"".join(m.render(seg.separator, m.has_sep) for m in seg.members) + seg.suffix


def _comment_over_new_head(base: Member, lead_side: Member, body_side: Member) -> bool:
    """One side's lead holds a line the base lead did not (a comment, an attribute, a decorator)
    while the other side rewrote the member's first line: changed its words (a name, a parameter,
    a lifetime), not only its layout or punctuation (a formatter's run keeps what a comment says)."""
    old = {line.strip() for line in base.lead.splitlines()}
    added = [line for line in lead_side.lead.splitlines() if line.strip() and line.strip() not in old]

    def words(member: Member) -> list[bytes]:
        return _WORD.findall(member.body.split(b"\n", 1)[0])
    return bool(added) and words(body_side) != words(base)


# -- a container's steps, read off its three versions -------------------------------------------
_Hunk = tuple[int, int, list[str]]      # one side's hunk: (first deleted base index, end, inserted identities)
_Group = list[tuple[str, _Hunk]]       # hunks of both sides ("L", "R") that overlap or touch
_SideKept = tuple[list[str], dict[str, Member], set[str]]   # a side's ids, members and base members kept in place


def _moves(b_ids: list[str], l_ids: list[str], r_ids: list[str], bmap: dict[str, Member], lmap: dict[str, Member],
           rmap: dict[str, Member]) -> tuple[set[str], set[str], set[str], dict[str, set[str]]]:
    """(left's members kept in place, right's, the members a side moved, by side)."""
    # Moves: a side may move members the other side kept in place and left unchanged (a
    # re-sorted import block, a function moved down): the move is that side's edit, shown as
    # a deletion at the old place and an insertion at the new one. A member moved by both
    # sides, or moved by one and changed or deleted by the other, is not guessed at.
    touched_by = {side: {i for i in b_ids if i not in smap or smap[i].content != bmap[i].content}
                  for side, smap in (("L", lmap), ("R", rmap))}
    l_kept, r_kept = kept_in_place(b_ids, l_ids, touched_by["R"]), kept_in_place(b_ids, r_ids, touched_by["L"])
    moved = set()
    moved_by: dict[str, set[str]] = {"L": set(), "R": set()}
    for side, mine, kept, other, other_kept in (("L", lmap, l_kept, rmap, r_kept), ("R", rmap, r_kept, lmap, l_kept)):
        for ident in mine:
            if ident in bmap and ident not in kept:
                if ident not in other:
                    raise Unmergeable("one side moved a declaration the other side deleted")
                if ident not in other_kept:
                    raise Unmergeable("both sides moved the same declaration")
                moved.add(ident)
                moved_by[side].add(ident)
    # A member one side moved may carry the other side's edit only when the other side moved
    # nothing here: with moves on both sides, which side's order explains an edited member
    # (the other side may have moved its neighbours instead) is a guess.
    if moved_by["L"] and moved_by["R"] and any(
            (rmap if side == "L" else lmap)[ident].content != bmap[ident].content
            for side in ("L", "R") for ident in moved_by[side]):
        raise Unmergeable("both sides moved declarations, and one side changed a declaration the other moved")
    return l_kept, r_kept, moved, moved_by


def _check_edges(b: Segmented, l: Segmented, r: Segmented, b_ids: list[str], bmap: dict[str, Member],
                 left_hunks: list[_Hunk], right_hunks: list[_Hunk]) -> None:
    """Unmergeable when a side changed the text around the members next to the other side's
    insertions there."""
    # A side that only changed the text before the first (after the last) member, next to
    # members the other side inserted there: which comes first is anyone's guess.
    edge = {"L": {(h[0], h[1]) for h in left_hunks if h[2]}, "R": {(h[0], h[1]) for h in right_hunks if h[2]}}
    for side, other, mine, theirs in (("L", "R", l, r), ("R", "L", r, l)):
        if mine.prefix != b.prefix and theirs.prefix != mine.prefix and any(start == 0 for start, _ in edge[other]):
            raise Unmergeable("one side changed the text before the first declaration (a header, a comment) "
                              "where the other side added a declaration")
        if mine.suffix != b.suffix and theirs.suffix != mine.suffix and any(end == len(b_ids) for _, end in edge[other]):
            raise Unmergeable("one side changed the text after the last declaration where the other side added "
                              "a declaration")
        # The same one level down: both sides changed the last member (both may have appended
        # to its body) and this side also changed only the blank lines after it: whether they
        # belong after this side's appended text or at the very end is a guess.
        last = b_ids[-1] if b_ids else None
        if mine.suffix != b.suffix and theirs.suffix == b.suffix and mine.suffix.strip() == b.suffix.strip() \
                and last is not None and l.members and r.members \
                and l.members[-1].ident == last == r.members[-1].ident \
                and l.members[-1].content != bmap[last].content and r.members[-1].content != bmap[last].content:
            raise Unmergeable("one side changed the blank lines after the last declaration, which both sides edited")


def _touching_groups(left_hunks: list[_Hunk], right_hunks: list[_Hunk]) -> list[_Group]:
    """Both sides' hunks, in base order, grouped where they overlap or touch."""
    hunks = [("L", h) for h in left_hunks] + [("R", h) for h in right_hunks]
    hunks.sort(key=lambda item: (item[1][0], item[1][1]))
    groups: list[_Group] = []
    reach = -1
    for item in hunks:
        start, end, _ = item[1]
        if groups and start <= reach:
            groups[-1].append(item)
            reach = max(reach, end)
        else:
            groups.append([item])
            reach = end
    return groups
