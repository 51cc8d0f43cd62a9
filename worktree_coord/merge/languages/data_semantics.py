"""A semantic check of merged data files: the merged document must hold exactly the key-level
three-way merge of the three inputs' values.

Stage: after a clean structured merge of TOML (read with tomlkit, the format-preserving TOML
library) and JSON. Input: base, left, right and merged bytes. Output: True when the merged values
equal the expected merge, or when the expectation cannot be decided (a key changed differently on
both sides, an input that does not load): then the other checks decide. False means the structured
result moved, lost or altered a value that a key-level merge says it must hold, and the cascade falls
back to the line merge. The text-level merge keeps every byte nobody touched; this stage makes sure
the values it produced are the ones the three versions imply.
"""

from __future__ import annotations

import json
from typing import Any, Callable

_UNDECIDED = object()
_ABSENT = object()


def _load_toml(data: bytes) -> Any:
    import tomlkit   # only for a TOML file: every other merge imports this module too

    return tomlkit.parse(data.decode("utf-8-sig")).unwrap()


def _load_json(data: bytes) -> Any:
    return json.loads(data.decode("utf-8-sig"))


_LOADERS: dict[str, Callable[[bytes], Any]] = {"toml": _load_toml, "json": _load_json}


def accepts(language: str | None, base: bytes, left: bytes, right: bytes, merged: bytes) -> bool:
    """False only when the merged values provably differ from the key-level merge of the inputs."""
    load = _LOADERS.get(language or "")
    if load is None:
        return True
    try:
        values = [load(data) for data in (base, left, right)]
    except Exception:  # noqa: BLE001 - an input this loader refuses: no opinion
        return True
    expected = merge_values(*values)
    if expected is _UNDECIDED:
        return True
    try:
        return load(merged) == expected
    except Exception:  # noqa: BLE001 - the strict parsers judge syntax; here a refusal is a mismatch
        return False


def merge_values(base: Any, left: Any, right: Any) -> Any:
    """The key-level three-way merge of plain values; `_UNDECIDED` when both sides changed one value
    differently (a real conflict: not this stage's question)."""
    if left == right:
        return left
    if left == base:
        return right
    if right == base:
        return left
    if isinstance(left, dict) and isinstance(right, dict):
        base_dict = base if isinstance(base, dict) else {}
        out: dict[str, Any] = {}
        for key in list(dict.fromkeys([*left, *right, *base_dict])):
            value = merge_values(base_dict.get(key, _ABSENT), left.get(key, _ABSENT), right.get(key, _ABSENT))
            if value is _UNDECIDED:
                return _UNDECIDED
            if value is not _ABSENT:
                out[key] = value
        return out
    return _UNDECIDED
