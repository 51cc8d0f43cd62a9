"""Names one side's edit takes away while the other side's new code uses them, and members re-bound.

Stage: a helper of the structured merge (structured.py), consulted as it settles a deletion, a
member one side changed, or a region both sides edited, for a profile with a `binds` query.
Input: the profile and the file's three versions (built once per file merge), then base members
and a side's member map. Output: the names lost and used (a non-empty set makes the member a
`delete_use` or `rename_use` conflict), and the members re-bound (base identity -> the side and
its members binding the same name under a new key: an import whose path changed).
Rules: a name counts as lost when the base member bound it, the side's version of the member
(or, deleted, nothing) and nothing else in the side's container binds it, and the lines the
other side added use it (names.py); a member both sides deleted is re-bound when exactly one side
inserted members of its kind binding a name it bound, and the other side binds none of them anew.
Invariants: without a `binds` query nothing is lost or re-bound (no rule fires); each side's new
uses are read once per file merge.
"""

from __future__ import annotations

from . import names
from .members import Member, Unmergeable, Version
from ..languages.profiles import Profile


class NameLoss:
    """The name checks of one file merge: the profile, the three versions, each side's new uses."""

    def __init__(self, profile: Profile, versions: dict[str, Version]) -> None:
        self.profile = profile
        self._versions = versions
        self._new_uses: dict[str, frozenset[str]] = {}

    def uses_new_to(self, side: str) -> frozenset[str]:
        """Identifiers on the lines `side` added to the file (its new code), computed once."""
        if side not in self._new_uses:
            version = self._versions[side]
            ranges = names.added_ranges(self._versions["B"].source, version.source)
            self._new_uses[side] = names.names_used_in(version.source, version.root, ranges, self.profile.name_kinds)
        return self._new_uses[side]

    def lost_and_used(self, bm: Member, sm: Member | None, side_map: dict[str, Member], side: str) -> frozenset[str]:
        """Names base member `bm` bound that the side's version `sm` (None: deleted) no longer
        binds, nothing else in the side's container binds, and the other side's new code uses:
        taking the side's change would leave those uses dangling (a rename on one side, a new
        call on the other)."""
        profile = self.profile
        if profile.binds_query is None:
            return frozenset()
        used = self.uses_new_to("R" if side == "L" else "L")
        lost = set(names.bound_names(profile, bm.source, bm.node, among=used))
        if lost and sm is not None:
            lost -= set(names.bound_names(profile, sm.source, sm.node, among=lost))
        for member in side_map.values():
            if not lost:
                break
            lost -= set(names.bound_names(profile, member.source, member.node, among=lost))
        return frozenset(lost)

    def region_loses_used_name(self, idents: list[str], bmap: dict[str, Member], lmap: dict[str, Member],
                               rmap: dict[str, Member]) -> bool:
        """True when a base member of a region one side deleted or changed, and the other side
        kept, bound a name the first side no longer binds and the other side's new code uses."""
        for ident in idents:
            for side, mine, other in (("L", lmap, rmap), ("R", rmap, lmap)):
                if ident not in other or (ident in mine and mine[ident].content == bmap[ident].content):
                    continue
                if self.lost_and_used(bmap[ident], mine.get(ident), mine, side):
                    return True
        return False

    def check_rebound_together(self, groups, b_ids, bmap, lmap, rmap) -> None:  # type: ignore[no-untyped-def]
        """A member both sides deleted and one side put back elsewhere under a new key but the
        same name (an import whose path changed moves in a sorted block) is that side's edit of it
        against the other side's deletion; `StructuredMerge._apply_union` reports it as delete/modify when both
        stand in one group of hunks, otherwise the container is not merged structurally."""
        if self.profile.binds_query is None:
            return
        gone = [ident for ident in b_ids if ident not in lmap and ident not in rmap]
        if not gone:
            return
        inserted = {"L": [i for i in lmap if i not in bmap], "R": [i for i in rmap if i not in bmap]}
        rebound = self.rebound(gone, inserted, bmap, lmap, rmap)
        if not rebound:
            return
        where = {}
        for number, group in enumerate(groups):
            for side, (start, end, idents) in group:
                where.update({ident: number for ident in b_ids[start:end]})
                where.update({(side, ident): number for ident in idents})
        for ident, (side, replacement) in rebound.items():
            if any(where.get((side, other)) != where.get(ident) for other in replacement):
                raise Unmergeable("one side deleted a declaration the other side moved and renamed")

    def rebound_on_one_side(self, group, deleted, bmap, lmap, rmap, b_ids) -> dict[str, tuple[str, list[str]]]:  # type: ignore[no-untyped-def]
        """`rebound` within one group of hunks."""
        inserted: dict[str, list[str]] = {"L": [], "R": []}
        for side, (_start, _end, idents) in group:
            inserted[side].extend(i for i in idents if i not in bmap)
        return self.rebound([ident for ident, who in deleted.items() if who == "both"], inserted, bmap, lmap, rmap)

    def rebound(self, gone: list[str], inserted: dict[str, list[str]], bmap, lmap, rmap) -> dict[str, tuple[str, list[str]]]:  # type: ignore[no-untyped-def]
        """Of the base members both sides deleted (`gone`), those for which exactly one side
        inserted members binding a name the base member bound (per the profile's `binds` query):
        that side's replacement (base ident -> (side, replacing idents)). The members must be of
        the base member's kind, and the other side must bind none of those names anew."""
        if self.profile.binds_query is None:
            return {}
        maps = {"L": lmap, "R": rmap}
        out: dict[str, tuple[str, list[str]]] = {}
        taken: set[str] = set()
        for ident in gone:
            base_member = bmap[ident]
            bound = set(names.bound_names(self.profile, base_member.source, base_member.node))
            if not bound:
                continue
            found = {}
            for side in ("L", "R"):
                found[side] = [i for i in inserted[side] if i not in taken
                               and maps[side][i].node.type == base_member.node.type
                               and bound & set(names.bound_names(self.profile, maps[side][i].source,
                                                                 maps[side][i].node, among=bound))]
            sides = [side for side in ("L", "R") if found[side]]
            if len(sides) == 1:
                out[ident] = (sides[0], found[sides[0]])
                taken.update(found[sides[0]])
        return out
