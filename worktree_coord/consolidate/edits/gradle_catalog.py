"""gradle/libs.versions.toml edits with tomlkit: a `[libraries]` or `[plugins]` entry keyed by its
alias, written as the task wrote it (`"g:a:1.0"` or an inline table with `version.ref`; the text is
carried in the intent's placement), else as an inline table; `[versions]`, `[bundles]` and any
other key as settings. Comments, key order and the place the task wrote a new entry are kept."""

from __future__ import annotations

from typing import Any

import tomlkit

from worktree_coord.consolidate.edits.placement import slot
from worktree_coord.consolidate.edits.toml_values import edit_keyed_tables, inline_table, put_key_at
from worktree_coord.consolidate.intent import Intent


def entry_value(intent: Intent) -> Any:
    """The TOML value of a catalog entry from the intent's fields (a declared intent has no text)."""
    options = dict(intent.options)
    table: dict[str, Any] = {}
    if "module" in options:
        table["module"] = options.pop("module")
    if "id" in options:
        table["id"] = options.pop("id")
    if intent.spec is not None:
        table["version"] = intent.spec
    version = {key.split(".", 1)[1]: options.pop(key) for key in list(options) if key.startswith("version.")}
    if version:
        table["version"] = version
    table.update(options)
    if intent.group == "plugins" and set(table) == {"id"}:
        return table["id"]
    return inline_table(table)


def edit(path: str, data: bytes, intent: Intent) -> bytes:
    def put(table) -> None:
        # The whole entry as the task wrote it: `"g:a:1.0"` stays a string, a table stays a table.
        text = dict(intent.placement).get("text")
        item = tomlkit.parse(f"x = {text}\n")["x"] if isinstance(text, str) else entry_value(intent)
        if intent.name in table:
            table[intent.name] = item
        else:
            put_key_at(table, intent.name, item, slot(list(table.keys()), intent, intent.name))

    return edit_keyed_tables(path, data, intent, [intent.group], put, "gradle/libs.versions.toml")
