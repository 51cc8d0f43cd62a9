"""pixi.toml edits with tomlkit: a dependency in any of its tables (`[dependencies]`,
`[feature.test.pypi-dependencies]`, `[target.linux-64.dependencies]`, `[package.run-dependencies]`:
the intent's group is the table's dotted key path), and every other key as a setting. Comments,
key order and the place the task wrote a new dependency are kept (edits/placement.py)."""

from __future__ import annotations

from worktree_coord.consolidate.edits.toml_values import edit_setting, set_dep, table_dependency, table_path
from worktree_coord.consolidate.intent import Intent, Op
from worktree_coord.consolidate.settings import parse_key
from worktree_coord.consolidate.textformat import dump_toml, load_toml
from worktree_coord.errors import EditError


def edit(path: str, data: bytes, intent: Intent) -> bytes:
    doc = load_toml(path, data)
    op = intent.op
    if op in (Op.ADD_DEP, Op.SET_SPEC):
        set_dep(table_path(doc, list(parse_key(intent.group)), create=True), intent.name, table_dependency(intent),
                intent)
    elif op == Op.REMOVE_DEP:
        table = table_path(doc, list(parse_key(intent.group)), create=False)
        if table is not None and intent.name in table:
            del table[intent.name]
    elif op in (Op.SET_KEY, Op.REMOVE_KEY):
        edit_setting(doc, intent)
    else:
        raise EditError(f"{path}: intent {intent.intent_id} ({op.value} {intent.name}) has no pixi.toml form",
                        fix="edit pixi.toml in a task that owns it, or declare a dependency or setting intent")
    return dump_toml(doc, data)
