"""A second opinion on a structured result: the language's own strict parser, where Python has one.

Input: the language name and the three inputs plus the merged bytes. Output: False when the strict
parser accepts every input but rejects the merged result (then the cascade discards it); True
otherwise, including when no strict parser exists or an input itself is rejected (tree-sitter
already vouched for those, and a stricter parser that rejects the inputs has no opinion).
Strict parsers: `ast` for Python (the interpreter's own grammar), `json` for JSON (duplicate keys
rejected too), `tomllib` for TOML (duplicate keys and tables rejected).
"""

from __future__ import annotations

import ast
import json
import warnings
from typing import Any, Callable


def _python(data: bytes) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ast.parse(data)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError("duplicate key")
    return dict(pairs)


def _json(data: bytes) -> None:
    json.loads(data.decode("utf-8-sig"), object_pairs_hook=_no_duplicates)


def _toml(data: bytes) -> None:
    import tomllib   # here: a .py or .json merge loads no TOML parser (its regular expressions: ~3 ms)

    tomllib.loads(data.decode("utf-8-sig"))


_STRICT: dict[str, Callable[[bytes], None]] = {"python": _python, "json": _json, "toml": _toml}


def accepts(language: str | None, inputs: tuple[bytes, bytes, bytes], merged: bytes) -> bool:
    """False only when the strict parser takes all three inputs and refuses the merged result."""
    check = _STRICT.get(language or "")
    if check is None:
        return True
    # tomllib.TOMLDecodeError is a ValueError (as json's error is).
    errors = (SyntaxError, ValueError, UnicodeDecodeError, RecursionError, MemoryError)
    try:
        check(merged)
        return True
    except errors:
        pass
    try:  # only now ask whether the inputs pass (the common path parses once)
        for data in inputs:
            check(data)
    except errors:
        return True
    return False
