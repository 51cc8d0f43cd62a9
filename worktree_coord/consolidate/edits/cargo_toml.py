"""Cargo.toml edits with tomlkit: comments, inline tables and key order are kept."""

from __future__ import annotations

from typing import Any

import tomlkit

from worktree_coord.consolidate.edits.member_lists import edit_member_array
from worktree_coord.consolidate.edits.placement import slot
from worktree_coord.consolidate.edits.toml_values import edit_setting, inline_table, put_key_at, table_path
from worktree_coord.consolidate.intent import Intent, Op
from worktree_coord.consolidate.textformat import dump_toml, load_toml
from worktree_coord.errors import EditError


def group_path(group: str) -> list[str]:
    if group.startswith("target:"):
        _, rest = group.split(":", 1)
        cfg, kind = rest.rsplit(":", 1)
        return ["target", cfg, kind]
    if group == "workspace.dependencies":
        return ["workspace", "dependencies"]
    return [group]


def dep_value(intent: Intent) -> Any:
    """The TOML value Cargo reads back as this intent's dependency."""
    table: dict[str, Any] = {}
    if intent.spec is not None:
        table["version"] = intent.spec
    for key, value in intent.source or ():
        table[key] = list(value) if isinstance(value, tuple) else value
    if intent.package:
        table["package"] = intent.package
    if intent.features:
        table["features"] = list(intent.features)
    for key, value in intent.options:
        table[key] = list(value) if isinstance(value, tuple) else value
    if set(table) == {"version"}:
        return intent.spec
    return table


def set_dep(container, name: str, value: Any, intent: Intent) -> None:
    """Put the dependency `name` in a TOML table keyed by name (Cargo's, Poetry's, pixi's): an
    existing one changed in place, a new one where the task wrote it (edits/placement.py)."""
    current = container.get(name)
    if isinstance(value, dict) and isinstance(current, (tomlkit.items.InlineTable, tomlkit.items.Table)):
        # Update in place so the table keeps its layout and any key order the author chose.
        for key in [k for k in current if k not in value]:
            del current[key]
        for key, item in value.items():
            if current.get(key) != item:
                current[key] = item
        return
    item = inline_table(value) if isinstance(value, dict) else value
    if name in container:
        container[name] = item
    else:
        put_key_at(container, name, item, slot(list(container.keys()), intent, name))


def edit(path: str, data: bytes, intent: Intent) -> bytes:
    doc = load_toml(path, data)
    op = intent.op
    if op in (Op.ADD_DEP, Op.SET_SPEC):
        set_dep(table_path(doc, group_path(intent.group), create=True), intent.name, dep_value(intent), intent)
    elif op == Op.REMOVE_DEP:
        table = table_path(doc, group_path(intent.group), create=False)
        if table is not None and intent.name in table:
            del table[intent.name]
    elif op in (Op.ADD_MEMBER, Op.REMOVE_MEMBER):
        workspace = table_path(doc, ["workspace"], create=True)
        if "members" not in workspace:
            workspace["members"] = tomlkit.array()
        edit_member_array(workspace["members"], intent)
    elif op == Op.BUMP_VERSION:
        package = table_path(doc, ["package"], create=False)
        if package is None:
            raise EditError(f"{path} has no [package] table to bump (intent {intent.intent_id})")
        package["version"] = intent.spec
    elif op == Op.SET_RUNTIME and intent.name == "rust":
        table_path(doc, ["package"], create=True)["rust-version"] = intent.spec
    elif op in (Op.SET_OVERRIDE, Op.REMOVE_OVERRIDE):
        import json

        patch = table_path(doc, ["patch", "crates-io"], create=op == Op.SET_OVERRIDE)
        if op == Op.REMOVE_OVERRIDE:
            if patch is not None and intent.name in patch:
                del patch[intent.name]
        else:
            value = json.loads(intent.spec or "{}")
            patch[intent.name] = inline_table(value) if isinstance(value, dict) else value
    elif op in (Op.SET_KEY, Op.REMOVE_KEY):
        edit_setting(doc, intent)
    else:
        raise EditError(f"{path}: intent {intent.intent_id} ({op.value} {intent.name}) has no Cargo.toml form")
    return dump_toml(doc, data)
