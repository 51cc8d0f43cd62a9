"""Placement: whether a clean merge kept each member in the container its side put it in.

Stage: a second opinion on a merge git's line merge calls clean, for a file both sides changed
(the cascade's step 3, before it returns the line merge; the post-merge check of a tree merge,
checks/misplaced.py). Input: a profile and the base, left, right and merged versions (bytes and
parse trees). Output: the census of each version (how many times each (path of keys, key) occurs
in unordered containers: the cascade's duplicate and lost-declaration tests) and the members the
merge holds in another container than any side put them in.

Why: git's line merge knows lines, not containers. One side moves a block (swaps two `impl E` of a
file, or two classes) and the other appends a method to the block that moved: the diff3 of the
two keeps the appended lines where the base's lines around them stood, which is now the end of the
other block (user-drive12, serde_json-like): clean, and the method sits in another impl (other
bounds, other generics) or another class.

How: each container of a version (the body its keyed members sit in: the file's, a class's, an
impl's; not a list with separators, whose names may move between two imports of one module when
a refinement joins them) is matched to one of the base's: the one base container of the same path of keys, else
among several (two `impl E`) the one it shares the most members with, else (a container a side
renamed) one it shares at least half its members with, else it is new (named by its path). For
each (base container, member key), a merge should hold left + right - base of them (the counts
each version holds there); a key the merged file holds more often than that in one container and
less often in another has moved where no side put it. A container matched to none of several
candidates, or to two equally, makes its keys unknown: nothing is said of them (never a guess).
"""

from __future__ import annotations

import collections
from collections.abc import Sequence

import tree_sitter

from ...frozen import value_class
from ..languages.profiles import ContainerRule, Profile
from .members import visit_keyed_members

KeyCount = collections.Counter  # Counter[tuple[tuple[str, ...], str]]


@value_class
class Placed:
    """One member the merge put in another container than its side did: its key, the path of keys
    of the container it stands in (merged) and of the one it belonged in (its side's), and its
    line in the merged file."""

    key: str
    path: tuple[str, ...]
    wanted: tuple[str, ...]
    line: int
    side: str       # "left" or "right": the side that put it in `wanted`


class Layout:
    """The keyed members of one version's unordered containers, by container."""

    def __init__(self, profile: Profile, source: bytes, root: tree_sitter.Node):
        self.census: KeyCount = collections.Counter()
        self.paths: list[tuple[str, ...]] = []                    # per container: its path of keys
        self.keys: list[collections.Counter[str]] = []            # per container: its members' keys
        self.bare: list[collections.Counter[str]] = []            # the same without their conditions
        self.lines: list[dict[str, list[int]]] = []               # per container: each key's lines
        index: dict[int, int] = {}

        def visit(container: tree_sitter.Node, position: int, child: tree_sitter.Node, rule: ContainerRule,
                  path: tuple[str, ...], key: str) -> tuple[str, ...] | None:
            if child.type in profile.repeatable:
                return None
            if rule.unordered and child.type not in profile.anchored:
                full = key + variant(profile, source, container, position)
                self.census[(path, full)] += 1
                if rule.separator:
                    # A list (imports of one module, a `use` group, fields): names that move between
                    # two lists of one key are one import statement split or joined, not misplaced.
                    return path + (key,)
                at = index.get(container.id)
                if at is None:
                    at = index[container.id] = len(self.paths)
                    self.paths.append(path)
                    self.keys.append(collections.Counter())
                    self.bare.append(collections.Counter())
                    self.lines.append({})
                self.keys[at][full] += 1
                self.bare[at][key] += 1
                self.lines[at].setdefault(full, []).append(child.start_point[0] + 1)
            # An anchored member (an `if COND:` block) is named by its kind, not its key: an edited
            # condition must not read as its whole body lost and found elsewhere.
            return path + ((child.type,) if child.type in profile.anchored else (key,))

        visit_keyed_members(profile, source, root, visit)


def variant(profile: Profile, source: bytes, parent: tree_sitter.Node, index: int) -> str:
    """The conditions (attributes/comments starting with a variant marker, like Rust's
    `#[cfg(unix)]`) right before child `index`, as a key suffix: `#[cfg(unix)] fn f` and
    `#[cfg(windows)] fn f` are two variants of one item, not a duplicate ("" when none)."""
    found: list[str] = []
    while profile.variant_markers and index > 0 and parent.children[index - 1].type in profile.comments:
        index -= 1
        text = source[parent.children[index].start_byte:parent.children[index].end_byte]
        if any(text.startswith(marker.encode()) for marker in profile.variant_markers):
            found.append(" ".join(text.decode("utf-8", "replace").split()))
    return "".join(f" {condition}" for condition in reversed(found))


_UNKNOWN = None
_NEW = ("new",)


def _match(version: Layout, at: int, other: Layout, by_path: dict[tuple[str, ...], list[int]]) -> object:
    """The container of `other` that container `at` of `version` is: the one of the same path of
    keys, else among several the one sharing the most members (by key without conditions), else one
    sharing at least half of them; _NEW when none shares any, _UNKNOWN when that is not sure."""
    path = version.paths[at]
    same = by_path.get(path, [])
    if len(same) == 1:
        return same[0]
    keys = version.bare[at]
    pool = same or range(len(other.paths))
    scores = sorted(((sum((keys & other.bare[candidate]).values()), candidate) for candidate in pool), reverse=True)
    best = scores[0][0] if scores else 0
    if best > 0 and (len(scores) == 1 or scores[1][0] < best) and (same or 2 * best >= sum(keys.values())):
        return scores[0][1]
    return _UNKNOWN if same or best > 0 else _NEW


def _by_path(layout: Layout) -> dict[tuple[str, ...], list[int]]:
    found: dict[tuple[str, ...], list[int]] = collections.defaultdict(list)
    for at, path in enumerate(layout.paths):
        found[path].append(at)
    return found


def _matched(version: Layout, base: Layout, sides: Sequence[tuple[Layout, list[object]]] = ()) -> list[object]:
    """Per container of `version`, the base container it is (its index), ("new", path), or None
    (unknown). One the base has no match for is matched through `sides` (each a layout and its own
    matches): the merged file's container one side renamed and the other changed every member of
    (`impl State` renamed `impl Guard`, `fn incr` renamed) is the one both sides' containers are."""
    base_paths = _by_path(base)
    side_paths = [_by_path(layout) for layout, _ in sides]
    out: list[object] = []
    for at, path in enumerate(version.paths):
        found = _match(version, at, base, base_paths)
        for (layout, matches), paths in zip(sides, side_paths):
            if found is not _NEW:
                break
            through = _match(version, at, layout, paths)
            if isinstance(through, int):
                found = matches[through]
        out.append(("new", path) if found is _NEW else found)
    return out


def misplaced(layouts: Sequence[Layout]) -> list[Placed]:
    """The members the merged version (layouts: base, left, right, merged) holds in a container more
    often than left + right - base there, while holding fewer than that in another (module docstring)."""
    base = layouts[0]
    counts: list[collections.Counter[tuple[object, str]]] = []
    unknown: set[str] = set()
    where: dict[tuple[object, str], list[int]] = {}
    paths: dict[object, tuple[str, ...]] = {}
    matches: list[list[object]] = []
    for number, layout in enumerate(layouts):
        matched = list(range(len(base.paths))) if number == 0 else \
            _matched(layout, base, list(zip(layouts[1:3], matches[1:3])) if number == 3 else ())
        matches.append(matched)
        count: collections.Counter[tuple[object, str]] = collections.Counter()
        for at, bucket in enumerate(matched):
            if bucket is _UNKNOWN:
                unknown.update(layout.keys[at])
                continue
            paths.setdefault(bucket, base.paths[bucket] if isinstance(bucket, int) else bucket[1])  # type: ignore[index]
            for key, n in layout.keys[at].items():
                count[(bucket, key)] += n
                if number == 3:
                    where.setdefault((bucket, key), []).extend(layout.lines[at][key])
        counts.append(count)
    b, left, right, merged = counts
    over: dict[str, list[object]] = collections.defaultdict(list)
    under: dict[str, list[object]] = collections.defaultdict(list)
    for place in set(b) | set(left) | set(right) | set(merged):
        bucket, key = place
        if key in unknown:
            continue
        expected = max(0, left[place] + right[place] - b[place])
        if merged[place] > expected:
            over[key].append(bucket)
        elif merged[place] < expected:
            under[key].append(bucket)
    out = []
    for key in sorted(over.keys() & under.keys()):
        home = under[key][0]
        side = "left" if left[(home, key)] > b[(home, key)] else "right"
        for bucket in over[key]:
            out.append(Placed(key, paths[bucket], paths[home], where[(bucket, key)][-1], side))
    return sorted(out, key=lambda p: p.line)
