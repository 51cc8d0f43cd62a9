"""The post-merge check's module index of a drain's tip, kept per tip and derived by each merge's paths.

Stage: inside the semantic check of a tree merge (semantic._Check._module_index), which resolves
imports against the merge's files: module path -> the files of it, a module path's last part ->
(file, parts), in the files' order (path order for a tip's merge), one index per language's rules.
A tip's merge holds every file the run changed, so the index was one pass over them at every merge
(1,000 files late in a 200-task drain: 2.5 ms a merge, growing with the run). `ModuleTables` holds
it for a tip's files (tree._Views, kept per (pin, tip)); the next tip's are derived from them by
the paths the merge added and removed (copied on write: the older tip's stay whole for a merge
retried against it), and a merge's index is the tip's with the merge's own files (`loose`) laid
over the keys they stand at (`overlay`), not built again.

Input: the paths, and `facts(path)` -> (module path, its parts) under the rules, or None (no
semantic profile reads it). Output: the two maps, answering `get` and `in` as the dicts a pass over
the merge's files builds (a key maps to a non-empty list). Invariant: a table is never changed once
another merge can read it.
"""

from __future__ import annotations

import bisect
from typing import Any, Callable, Iterable

Facts = Callable[[str], "tuple[str, list[str]] | None"]


class ModuleTables:
    """by_path: module path -> files; by_last: last part -> (file, parts); each list in path order."""

    __slots__ = ("by_path", "by_last")

    def __init__(self, by_path: dict[str, list[str]], by_last: dict[str, list[tuple[str, list[str]]]]):
        self.by_path, self.by_last = by_path, by_last

    @classmethod
    def build(cls, paths: Iterable[str], facts: Facts) -> "ModuleTables":
        """The tables of `paths` (in path order), as one pass over them builds them."""
        by_path: dict[str, list[str]] = {}
        by_last: dict[str, list[tuple[str, list[str]]]] = {}
        for path in paths:
            found = facts(path)
            if found is not None:
                by_path.setdefault(found[0], []).append(path)
                by_last.setdefault(found[1][-1], []).append((path, found[1]))
        return cls(by_path, by_last)

    def derived(self, removed: Iterable[str], added: Iterable[str], facts: Facts) -> "ModuleTables":
        """These tables with `removed` taken out and `added` put in (at their place in path order):
        the dicts copied, a list copied only where it changes."""
        by_path, by_last = dict(self.by_path), dict(self.by_last)
        for path in removed:
            found = facts(path)
            if found is not None:
                _drop(by_path, found[0], path)
                _drop(by_last, found[1][-1], (path, found[1]))
        for path in added:
            found = facts(path)
            if found is not None:
                _put(by_path, found[0], path)
                _put(by_last, found[1][-1], (path, found[1]))
        return ModuleTables(by_path, by_last)

    def overlay(self, loose: Iterable[str], present: Callable[[str], bool], facts: Facts) -> tuple[Any, Any]:
        """(by_path, by_last) of these tables' files less `loose`, plus those of `loose` that are
        `present` (files of the merge): only the keys a loose path stands at are made again."""
        loose = sorted(set(loose))
        paths: dict[str, list[str]] = {}
        lasts: dict[str, list[tuple[str, list[str]]]] = {}
        for path in loose:   # taken out where the tables hold them (a copy of each list it changes)
            found = facts(path)
            if found is None:
                continue
            paths.setdefault(found[0], self.by_path.get(found[0], []))
            lasts.setdefault(found[1][-1], self.by_last.get(found[1][-1], []))
            _drop(paths, found[0], path)
            _drop(lasts, found[1][-1], (path, found[1]))
            paths.setdefault(found[0], [])
            lasts.setdefault(found[1][-1], [])
        for path in loose:
            found = facts(path)
            if found is not None and present(path):
                _put(paths, found[0], path)
                _put(lasts, found[1][-1], (path, found[1]))
        return _Laid(self.by_path, paths), _Laid(self.by_last, lasts)


class _Laid:
    """A map's keys made again (`top`) over the map (`under`), read as one dict whose keys all map
    to non-empty lists."""

    __slots__ = ("under", "top")

    def __init__(self, under: dict, top: dict):
        self.under, self.top = under, top

    def get(self, key: Any, default: Any = None) -> Any:
        if key in self.top:
            return self.top[key] or default
        return self.under.get(key, default)

    def __contains__(self, key: Any) -> bool:
        return bool(self.top[key]) if key in self.top else key in self.under


def _sort_key(item: Any) -> str:
    return item if isinstance(item, str) else item[0]


def _put(table: dict, key: str, item: Any) -> None:
    """`item` into `table[key]` at its place in path order (the list copied: another table may share it)."""
    items = table.get(key)
    items = table[key] = [] if items is None else list(items)
    items.insert(bisect.bisect_left(items, _sort_key(item), key=_sort_key), item)


def _drop(table: dict, key: str, item: Any) -> None:
    """`item`'s path out of `table[key]` (the list copied; the key gone with its last file)."""
    items = table.get(key)
    if not items:
        return
    at = bisect.bisect_left(items, _sort_key(item), key=_sort_key)
    if at == len(items) or _sort_key(items[at]) != _sort_key(item):
        return
    if len(items) == 1:
        del table[key]
        return
    items = table[key] = list(items)
    del items[at]
