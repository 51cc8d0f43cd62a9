"""Whether a field a class no longer binds on its instances may still be there at run time.

Stage: inside the semantic check's `broken` (semantic.py), for a removal of kind "field": a name a
class bound on its instances (`self.item_limit = n` in `__init__`, profile `@field`; symbols.py
`Symbols.fields`) that a side renamed or dropped, and the other side still reads (`s.item_limit`,
`self.item_limit`). Input: the check, the class's file and name, the field's name. Output: whether
something other than a binding the extraction reads may give it (then the removal breaks nothing
sure, and nothing is said).

Why: a binding on `self` is the only definition Python has of an instance attribute, so renaming it
in `__init__` and not at its reads merges clean yet fails with AttributeError where a read runs.
But an attribute is also given by:
- the class answering any name (`__getattr__`: profile `any_name`);
- its name spelled as a string in the class's file (`__slots__ = ("item_limit",)`,
  `setattr(self, "item_limit", n)`, `getattr(self, "item_limit")`, a field list);
- a write through another object in any file the check holds (profile `member_writes`:
  `store.item_limit = 3`, `setattr(store, "item_limit", 3)`).
A base class may bind it too: the caller's heritage rule (semantic.py `broken`) says so.
"""

from __future__ import annotations

import re
from typing import Any

from ..languages.profiles import profile_for_path

_Check = Any   # semantic._Check (this module is below semantic.py, which imports it)


def answered(check: _Check, path: str, container: tuple[str, ...], name: str) -> bool:
    """Whether the field `name` of the class `container` of `path` may still be given (the module
    docstring's ways), as the merged files the check holds read."""
    rules = profile_for_path(path).semantic   # type: ignore[union-attr]
    merged = check.symbols(path, "merged", uses=False) if check.files[path].merged is not None else None
    if merged is None or any(d.name in rules.any_name and d.container == container for d in merged.definitions):
        return True
    quoted = re.compile(rb"""["']%s["']""" % re.escape(name.encode()))
    if quoted.search(check.files[path].merged or b""):
        return True
    for other, versions in check.files.items():
        data = versions.merged
        if data is None or name.encode() not in data:
            continue
        writes = member_writes(other, name)
        if writes is not None and writes.search(data):
            return True
    return False


def member_writes(path: str, name: str) -> re.Pattern[bytes] | None:
    """The profile's `member_writes` of `name` for `path`'s language (None: it says none)."""
    profile = profile_for_path(path)
    pattern = profile.semantic.member_writes if profile is not None else ""
    return re.compile(pattern.replace("{name}", re.escape(name)).encode(), re.M) if pattern else None
