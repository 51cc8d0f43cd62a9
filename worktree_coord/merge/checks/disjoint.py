"""Tree merges known to be disjoint: the merged tree is ours with theirs' changes from the base.

Stage: noted by the integrate layer's fast path (integrate/fastpath.py), which merges three trees
only when no path was changed on both sides to different contents (it raises NotFast otherwise,
and then git merges), and read by the post-merge check over that merge (tree.check_tree_merge).
For such a merge every path of the merged tree is theirs where theirs changed it from the base and
ours everywhere else, so the merged tree's changes against ours are theirs' changes from the base
less the paths where ours holds theirs' version already (`step`): composed from the two diffs the
check has, not walked again (a walk of ours against the merged tree per merge of a drain).

A fact is keyed by the four trees' ids, which name their contents: it is never stale, and holds
in any repository. Bounded to the merges noted last (a drain's check asks right after its merge).
Nothing else here: no git, no parsing (the fast path's process may run no check).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

KEPT = 64   # facts kept: the merges noted last

_FACTS: "OrderedDict[tuple[bytes, bytes, bytes], bytes]" = OrderedDict()
_lock = threading.Lock()


def note(base: Any, ours: Any, theirs: Any, merged: Any) -> None:
    """Record that tree `merged` is the disjoint merge of trees `base`, `ours`, `theirs` (ids:
    anything with `.raw`, pygit2.Oid). Only a caller that proved it may say so (the fast path)."""
    key = (base.raw, ours.raw, theirs.raw)
    with _lock:
        _FACTS[key] = merged.raw
        _FACTS.move_to_end(key)
        while len(_FACTS) > KEPT:
            _FACTS.popitem(last=False)


def known(base: Any, ours: Any, theirs: Any, merged: Any) -> bool:
    """Whether `merged` was noted as the disjoint merge of `base`, `ours`, `theirs`."""
    with _lock:
        return _FACTS.get((base.raw, ours.raw, theirs.raw)) == merged.raw


Side = tuple[Any, int]   # a path's blob id (None: absent) and mode in one tree, as tree._changes gives it


def step(ours: Mapping[str, tuple[Side, Side]], theirs: Mapping[str, tuple[Side, Side]]
         ) -> dict[str, tuple[Side, Side]]:
    """The changes of a disjoint merge's tree against ours: for each path theirs changed from the
    base (`theirs`: base -> theirs), ours' side (ours' change of it, `ours`: base -> ours, else the
    base's) and theirs', where they differ; in `theirs`' order (the walk's path order, which the
    walk of ours against the merged tree lists them in too)."""
    out: dict[str, tuple[Side, Side]] = {}
    for path, (before, after) in theirs.items():
        mine = ours[path][1] if path in ours else before
        if not _same(mine, after):
            out[path] = (mine, after)
    return out


def _same(a: Side, b: Side) -> bool:
    """One side of a path alike in two trees: both absent (whatever mode a reader wrote for
    absent), or the same id and mode."""
    if a[0] is None or b[0] is None:
        return a[0] is None and b[0] is None
    return a[0] == b[0] and a[1] == b[1]
