"""Where a new dependency goes in its array, table or object: where the task wrote it, else where
its tool would put it.

Stage: apply (the structural editors of pyproject.toml, Cargo.toml, package.json and pixi.toml).
Input: the keys of the entries there now, in order, and the intent, whose `placement` derive.py
recorded from the task's file. Output: the index the new entry takes (`slot`).
Why: a dependency list is a set to every tool, so where an entry sits is layout; but the
consolidated commit is read as a diff, and an entry moved from where the task wrote it is churn
nobody asked for (dask, driven as a user: `tomli` written after `toolz` landed at the end of the
list, as `uv add` appends to a list that is not sorted).
Rule: right after the nearest entry that preceded it in the task's file and is there now; else right
before the nearest one that followed it; else (a declared intent, or its neighbours gone) where the
tools put a new entry: in order in a list kept sorted (`uv add`, `cargo add`, `npm install`), else
last. Each recorded run of neighbours ends at one the task's base had, so several entries a task
added side by side keep their order whichever is applied first.
"""

from __future__ import annotations

import bisect
from typing import Collection, Iterable, Sequence

from worktree_coord.consolidate.intent import Intent


def slot(keys: Sequence[str | None], intent: Intent, new_key: str, *, table: str = "", sorted_in_order: bool = True
         ) -> int:
    """The index at which the entry `new_key` goes among entries keyed `keys` (None: an entry
    without a key, such as a string that is no requirement). `table`: the placement recorded for
    another table the intent writes to (`sources`: its `[tool.uv.sources]` entry);
    `sorted_in_order=False`: the tool appends even to a sorted table (`uv add` to the sources)."""
    where = dict(intent.placement)
    prefix = f"{table}_" if table else ""
    for key in where.get(f"{prefix}after", ()):
        if key in keys:
            return len(keys) - list(reversed(keys)).index(key)
    for key in where.get(f"{prefix}before", ()):
        if key in keys:
            return list(keys).index(key)
    folded = [key.lower() for key in keys if key is not None]
    if sorted_in_order and len(folded) == len(keys) and folded == sorted(folded):
        return bisect.bisect_left(folded, new_key.lower())
    return len(keys)


def neighbours(keys: Sequence[str], had: Collection[str], key: str, prefix: str = "") -> tuple[tuple[str, tuple], ...]:
    """Where `key` sits among `keys` (the task's file, in order) as `slot` reads it: the entries
    before it, nearest first, up to and including the nearest one its base had (`had`), likewise
    the entries after it; runs left empty are left out."""
    at = list(keys).index(key)

    def to_anchor(entries: Iterable[str]) -> tuple[str, ...]:
        out: list[str] = []
        for entry in entries:
            out.append(entry)
            if entry in had:
                break
        return tuple(out)

    runs = ((f"{prefix}after", to_anchor(reversed(keys[:at]))), (f"{prefix}before", to_anchor(keys[at + 1:])))
    return tuple((name, run) for name, run in runs if run)


def written_text(intent: Intent) -> str | None:
    """The requirement as the task wrote it (a PEP 508 array's entry), None when none was recorded."""
    text = dict(intent.placement).get("text")
    return text if isinstance(text, str) else None
