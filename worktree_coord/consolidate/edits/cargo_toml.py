"""Cargo.toml edits with tomlkit: comments, inline tables and key order are kept."""

from __future__ import annotations

import tomlkit

from worktree_coord.consolidate.edits.member_lists import edit_member_array
from worktree_coord.consolidate.edits.toml_values import edit_setting, inline_table, set_dep, table_dependency, table_path
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


def edit(path: str, data: bytes, intent: Intent) -> bytes:
    doc = load_toml(path, data)
    op = intent.op
    if op in (Op.ADD_DEP, Op.SET_SPEC):
        set_dep(table_path(doc, group_path(intent.group), create=True), intent.name, table_dependency(intent), intent)
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
