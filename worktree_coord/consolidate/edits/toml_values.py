"""Small tomlkit helpers shared by the TOML editors: inline tables in the common `{ a = 1 }` style."""

from __future__ import annotations

from typing import Any

import tomlkit


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
            node.add(part, tomlkit.table(is_super_table=index < len(parts) - 1))
        node = node[part]
    return node
