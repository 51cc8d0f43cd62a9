"""Small tomlkit helpers shared by the TOML editors: inline tables in the common `{ a = 1 }` style."""

from __future__ import annotations

from typing import Any

import re

import tomlkit
from tomlkit.items import KeyType, SingleKey


def inline_table(values: dict[str, Any]):
    body = ", ".join(f"{key} = {tomlkit.item(value).as_string()}" for key, value in values.items())
    return tomlkit.parse(f"v = {{ {body} }}" if body else "v = {}")["v"]


def table_path(doc, parts: list[str], *, create: bool):
    """The (super-)table at `parts`, created as implicit tables when asked; None when absent."""
    node = doc
    for index, part in enumerate(parts):
        if part not in node:
            if not create:
                return None
            # Keys that need quoting are written as literal strings, as Cargo does: 'cfg(unix)'.
            key = part if re.fullmatch(r"[A-Za-z0-9_-]+", part) else SingleKey(part, t=KeyType.Literal)
            node.add(key, tomlkit.table(is_super_table=index < len(parts) - 1))
        node = node[part]
    return node
