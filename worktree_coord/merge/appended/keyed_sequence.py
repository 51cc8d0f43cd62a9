"""The three-way merge of keyed entry sequences: both sides' additions to one list become a union.

Input: base, left (ours) and right (theirs) as tuples of `entries.Entry` (a key and its text), and
an optional `clash(left_new, right_new)` saying when both sides' new entries at one place cannot
be put in either order. Output: pieces (bytes, or `pieces.Conflict` for an entry left to the
user) whose concatenation is the merged file.
Rules, per entry (by key): one side's change is taken; both sides' same change is taken once; both
sides editing one entry differently, one side deleting what the other edits, both adding one key
with different texts, or both deleting an entry and putting different entries in its place, is a
conflict. New entries go where their side put them (after the last base entry before them that
the side kept): at one place, left's then right's, an entry both sides add appearing once. When
every version is sorted (each run of entries between blank lines or comments in order, by key or
by case-folded key), the new entries at each place are sorted too.
Invariants: no entry either side kept or added is dropped, none appears twice, and base entries
never change their order (a side that reorders them, or names a key twice, is Unmergeable: the
caller keeps the line merge).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from .entries import TRAILER, Entry
from ..syntax.members import Unmergeable
from ..syntax.pieces import Conflict, Piece, pick3

Clash = Callable[[Sequence[Entry], Sequence[Entry]], bool]


def _casefold(key: str) -> str:
    return key.casefold()


def _identity(key: str) -> str:
    return key


def sorted_order(*versions: Sequence[Entry]) -> Callable[[str], str] | None:
    """The order every version keeps its entries in (plain, then case-folded keys), or None.

    A version is sorted when each run of entries (broken by an entry that blank lines or comments
    lead) is in order; a file counts as sorted only when its base has a run of three or more, so
    two entries in order by chance do not decide where new ones go."""
    def runs(version: Sequence[Entry]) -> list[list[str]]:
        found: list[list[str]] = []
        for entry in version:
            if entry.key == TRAILER:
                continue
            if entry.lead or not found:
                found.append([])
            found[-1].append(entry.key)
        return found

    base_runs = runs(versions[0])
    if not any(len(run) >= 3 for run in base_runs):
        return None
    for order in (_identity, _casefold):
        if all(all(order(a) <= order(b) for run in runs(version) for a, b in zip(run, run[1:]))
               for version in versions):
            return order
    return None


def _check(name: str, version: Sequence[Entry]) -> None:
    repeated = [key for key, count in Counter(entry.key for entry in version).items() if count > 1]
    if repeated:
        raise Unmergeable(f"the `{name}` version holds the entry {repeated[0]!r} more than once, so its "
                          "entries are no set to merge")


def _gaps(side: Sequence[Entry], base_index: dict[str, int], name: str) -> list[list[Entry]]:
    """A side's new entries by place: place g is after base entry g-1 (0: before the first)."""
    gaps: list[list[Entry]] = [[] for _ in range(len(base_index) + 1)]
    last = -1
    for entry in side:
        at = base_index.get(entry.key)
        if at is None:
            gaps[last + 1].append(entry)
            continue
        if at < last:
            raise Unmergeable(f"the `{name}` version moves the entry {entry.key!r} to another place in the list")
        last = at
    return gaps


def _after_trailer(base: Sequence[Entry], side: Sequence[Entry]) -> Sequence[Entry]:
    """A side that appended below the base's trailing blank lines or comments took them as its new
    entry's lead; read it as keeping them and appending after them, so that two sides appending
    there are two additions, not two rewrites of the trailer."""
    if not base or base[-1].key != TRAILER or any(entry.key == TRAILER for entry in side):
        return side
    trailer = base[-1].text
    last = base[-2].key if len(base) > 1 else None      # the entry the trailer follows
    keys = [entry.key for entry in side]
    at = keys.index(last) + 1 if last in keys else (0 if last is None else -1)
    if 0 <= at < len(side):
        entry = side[at]
        if entry.key not in {e.key for e in base} and entry.text.startswith(trailer) and len(entry.text) > len(trailer):
            rest = Entry(entry.key, entry.text[len(trailer):], lead=False, pattern=entry.pattern)
            return (*side[:at], base[-1], rest, *side[at + 1:])
    return side


def _text(entries: Sequence[Entry]) -> bytes:
    return b"".join(entry.text for entry in entries)


def merge_entries(base: Sequence[Entry], left: Sequence[Entry], right: Sequence[Entry], *,
                  clash: Clash | None = None, labels: tuple[str, str, str] = ("ours", "base", "theirs")) -> list[Piece]:
    """The merged entries as pieces (module docstring: rules and invariants); `labels` name the
    versions (ours, base, theirs) in the reason an Unmergeable gives."""
    for name, version in ((labels[1], base), (labels[0], left), (labels[2], right)):
        _check(name, version)
    left, right = _after_trailer(base, left), _after_trailer(base, right)
    base_index = {entry.key: at for at, entry in enumerate(base)}
    left_map = {entry.key: entry for entry in left}
    right_map = {entry.key: entry for entry in right}
    left_gaps, right_gaps = _gaps(left, base_index, labels[0]), _gaps(right, base_index, labels[2])
    order = sorted_order(base, left, right)

    def gone_on_both(at: int) -> bool:
        return at < len(base) and base[at].key not in left_map and base[at].key not in right_map

    pieces: list[Piece] = []
    at = 0          # the next base entry; its place (gap) comes first
    gap_done = False
    while at <= len(base):
        if not gap_done and gone_on_both(at) and (left_gaps[at] or left_gaps[at + 1]) \
                and (right_gaps[at] or right_gaps[at + 1]):
            # Both sides took this entry out and put something in its place: an edit on each side
            # unless they put the same thing (a line list has no other way to edit an entry).
            end = at
            while gone_on_both(end + 1):
                end += 1
            ours = _text([e for gap in left_gaps[at:end + 2] for e in gap])
            theirs = _text([e for gap in right_gaps[at:end + 2] for e in gap])
            if ours == theirs:
                pieces.append(ours)
            else:
                pieces.append(Conflict(base=_text(base[at:end + 1]), ours=ours, theirs=theirs,
                                       declaration=base[at].key))
            # Every new entry of the region is spoken for: drop them from the maps' "added" view.
            for gap in (*left_gaps[at:end + 2], *right_gaps[at:end + 2]):
                gap.clear()
            at, gap_done = end + 1, True
            continue
        if not gap_done:
            pieces.extend(_place(left_gaps[at], right_gaps[at], left_map, right_map, clash, order))
        gap_done = False
        if at == len(base):
            break
        entry = base[at]
        ours, theirs = left_map.get(entry.key), right_map.get(entry.key)
        if ours is not None and theirs is not None:
            picked = pick3(entry.text, ours.text, theirs.text)
            pieces.append(picked if picked is not None else
                          Conflict(base=entry.text, ours=ours.text, theirs=theirs.text, declaration=entry.key))
        elif ours is not None or theirs is not None:
            kept = ours if ours is not None else theirs
            assert kept is not None
            if kept.text != entry.text:     # one side deleted what the other edited
                pieces.append(Conflict(base=entry.text, ours=ours.text if ours else b"",
                                       theirs=theirs.text if theirs else b"", declaration=entry.key))
        at += 1
    return pieces


def _place(left_new: list[Entry], right_new: list[Entry], left_map: dict[str, Entry],
           right_map: dict[str, Entry], clash: Clash | None,
           order: Callable[[str], str] | None) -> list[Piece]:
    """Both sides' new entries at one place: left's then right's (or sorted), each key once."""
    placed: list[Entry] = []
    pieces: list[Piece] = []
    for entry in left_new:
        other = right_map.get(entry.key)
        if other is None or other.text == entry.text:
            placed.append(entry)
        else:
            pieces.append(Conflict(base=b"", ours=entry.text, theirs=other.text, declaration=entry.key))
    rest = [entry for entry in right_new if entry.key not in left_map]
    if clash is not None and placed and rest and clash(placed, rest):
        return [Conflict(base=b"", ours=_text(placed), theirs=_text(rest),
                         declaration=placed[0].key if placed[0].key != TRAILER else "")] + pieces
    placed += rest
    if order is not None and not pieces:
        placed.sort(key=lambda entry: (entry.key == TRAILER, order(entry.key)))
    return [entry.text for entry in placed] + pieces
