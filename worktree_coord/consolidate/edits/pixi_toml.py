"""pixi.toml edits with tomlkit: a dependency in any of its tables (`[dependencies]`,
`[feature.test.pypi-dependencies]`, `[target.linux-64.dependencies]`, `[package.run-dependencies]`:
the intent's group is the table's dotted key path), and every other key as a setting. Comments,
key order and the place the task wrote a new dependency are kept (edits/placement.py)."""

from __future__ import annotations

from worktree_coord.consolidate.edits.toml_values import edit_keyed_tables, set_dep, table_dependency
from worktree_coord.consolidate.intent import Intent
from worktree_coord.consolidate.settings import parse_key


def edit(path: str, data: bytes, intent: Intent) -> bytes:
    return edit_keyed_tables(path, data, intent, list(parse_key(intent.group)),
                             lambda table: set_dep(table, intent.name, table_dependency(intent), intent), "pixi.toml")
