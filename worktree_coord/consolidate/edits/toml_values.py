"""Small tomlkit helpers shared by the TOML editors: inline tables in the common `{ a = 1 }` style,
the tables on a key path, a new key or array entry where it goes, a setting intent's key put or
taken away, and a dependency in a table keyed by name (Cargo's, Poetry's, pixi's)."""

from __future__ import annotations

import re
from typing import Any

import tomlkit
from tomlkit.items import AoT, Array, KeyType, SingleKey, String, StringType, Table, Whitespace

from worktree_coord.consolidate.edits.placement import slot
from worktree_coord.consolidate.intent import Intent


def inline_table(values: dict[str, Any]):
    body = ", ".join(f"{key} = {tomlkit.item(value).as_string()}" for key, value in values.items())
    return tomlkit.parse(f"v = {{ {body} }}" if body else "v = {}")["v"]


def as_written(intent: Intent, value: Any):
    """The dependency as the task wrote it (its inline table's text, `placement`'s "text"), when
    that still reads as `value`: the task's key order and spacing kept (`{ path = "../x", develop =
    true }` landed as `{ develop = true, path = "../x" }`, the model's sorted order); None otherwise."""
    from worktree_coord.consolidate.edits.placement import written_text

    text = written_text(intent)
    if not text or not isinstance(value, dict) or not text.startswith("{"):
        return None
    try:
        item = tomlkit.parse(f"v = {text}")["v"]
    except Exception:  # noqa: BLE001 - text a TOML parser refuses is simply not used
        return None
    plain = {key: list(v) if isinstance(v, tuple) else v for key, v in value.items()}
    return item if item.unwrap() == plain else None


def array_string(array: Any, text: str):
    """`text` as a string item written in the array's own quoting: literal ('lxml>=4.6') when the
    array's strings all are and `text` can be one, else tomlkit's basic ("lxml>=4.6")."""
    strings = [item for item in array if isinstance(item, String)]
    literal = bool(strings) and all(item.type == StringType.SLL for item in strings)
    if literal and "'" not in text and "\n" not in text:
        return tomlkit.string(text, literal=True)
    return text


def array_insert(array: Array, position: int, value: Any) -> None:
    """Insert into a tomlkit array; at the front of a one-line array tomlkit drops the space after
    the new comma (`['igraph','lxml']`), so the first item moves up one and the new one takes its place."""
    if position == 0 and len(array) > 0 and "\n" not in array.as_string():
        first = array[0]
        array.insert(1, first)
        array[0] = value
    else:
        array.insert(position, value)
        _follow_previous(array, position)


def _follow_previous(array: Array, position: int) -> None:
    """Move the entry just inserted at `position` up to right after the entry before it. tomlkit
    puts it right before the entry it displaces (or, appended, after the array's last lines),
    below the comment lines above that entry, which are that entry's (dask's `importlib_metadata`
    has four): the new entry then splits a comment from what it explains. Private tomlkit state;
    anything unexpected leaves tomlkit's placement."""
    if position == 0:
        return
    try:
        groups, index_map = array._value, array._index_map
        new, previous = index_map[position], index_map[position - 1]
        if new == previous + 1:
            return
        group = groups.pop(new)
        groups.insert(previous + 1, group)
        if groups[previous].comma is None:   # the entry before had no trailing comma: it now needs one
            groups[previous].comma = Whitespace(",")
        array._reindex()
    except (AttributeError, KeyError, IndexError):
        return


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


def _toml_value(value: Any, form: str):
    """A setting's value as tomlkit writes it: the task's own tables as tables (with headers), else
    inline, as `key = { ... }` and `key = [ ... ]`."""
    if isinstance(value, dict) and form == "table":
        table = tomlkit.table()
        for key, item in value.items():
            table[key] = _toml_value(item, "table" if isinstance(item, dict) else form)
        return table
    if isinstance(value, list) and form == "table" and value and all(isinstance(v, dict) for v in value):
        return _aot(value)
    if isinstance(value, dict):
        return inline_table(value)
    return tomlkit.item(value)


def _aot(values: list[dict]):
    aot = tomlkit.aot()
    for value in values:
        aot.append(_toml_value(value, "table"))
    return aot


def _written(text: str, value: Any):
    """The value as the task wrote it (an array's comments, one item per line), when that text
    still reads as the value; None otherwise."""
    try:
        item = tomlkit.parse(f"v = {text}\n")["v"]
    except Exception:   # tomlkit raises several kinds; any of them means: write the value afresh
        return None
    return item if getattr(item, "unwrap", lambda: item)() == value else None


def _edit_in_place(array: Array, value: list) -> bool:
    """Make `array` hold `value` by taking items out and appending the new ones, so the items it
    keeps keep their comments and layout; False (nothing changed) when that cannot give `value`."""
    current = array.unwrap()
    if [x for x in current if x in value] != [x for x in value if x in current]:
        return False
    for index in reversed([i for i, x in enumerate(current) if x not in value]):
        del array[index]
    for item in value:
        if item not in current:
            array.append(item)
    return array.unwrap() == value


def set_key(doc, parts: tuple[str, ...], value: Any, form: str = "", after: str = "", text: str = "") -> None:
    """Put `value` at the dotted key `parts`, creating missing tables (as `[a.b]` headers); a new
    key goes right after `after` when its table holds that key (where the task put it), else last;
    `text`: the task's own spelling of the value, kept when it reads back as the value."""
    parent = table_path(doc, list(parts[:-1]), create=True) if parts[:-1] else doc
    current = parent.get(parts[-1]) if hasattr(parent, "get") else None
    if not text and isinstance(current, Array) and isinstance(value, list) and _edit_in_place(current, value):
        return
    item = (_written(text, value) if text else None) or _toml_value(value, form)
    container = parent.value if isinstance(parent, Table) else parent
    headed = isinstance(item, (Table, AoT))   # a table with a header goes after the others, as appended
    if parts[-1] not in parent and after and after in parent and not headed and _insert_after(container, after,
                                                                                                parts[-1], item):
        return
    if parts[-1] not in parent and not headed:
        put_new_key(parent, parts[-1], item)
    else:
        parent[parts[-1]] = item


def put_new_key(parent, key: str, item) -> None:
    """A new key right after the table's last key: before the blank lines and comments that end the
    table, which belong to the next header (alacritty's `# TODO: ...` above `[patch.crates-io]`);
    tomlkit alone appends it below them."""
    container = parent.value if isinstance(parent, Table) else parent
    body = getattr(container, "body", None) or []
    last = next((name.key for name, _ in reversed(body) if name is not None), None)
    _end_line(item)
    if last is None or not _insert_after(container, last, key, item):
        parent[key] = item


def _end_line(item) -> None:
    trivia = getattr(item, "trivia", None)
    if trivia is not None and not trivia.trail.endswith("\n"):
        trivia.trail += "\n"   # an inline table parsed alone ends its line with the next item's text


def put_key_at(parent, key: str, item, index: int) -> None:
    """A new key as the `index`-th key of the table `parent` (edits/placement.py chooses it): right
    after the key before it, or right before the first key; past the last key, or next to a key
    that is a table of its own (a `[dependencies.serde]` a plain key cannot follow), after the last
    plain key (`put_new_key`)."""
    container = parent.value if isinstance(parent, Table) else parent
    keys = list(parent.keys())
    _end_line(item)
    if 0 < index < len(keys) and not isinstance(parent.get(keys[index - 1]), (Table, AoT)) \
            and _insert_after(container, keys[index - 1], key, item):
        return
    body = getattr(container, "body", None) or []
    first = next((i for i, (name, _) in enumerate(body) if name is not None), None)
    if index == 0 and keys and first is not None and not isinstance(body[first][1], (Table, AoT)):
        try:
            container._insert_at(first, key, item)
            return
        except Exception:   # a layout tomlkit cannot insert into: append as below
            pass
    put_new_key(parent, key, item)


def _insert_after(container, after: str, key: str, item) -> bool:
    """Put a new key right after `after` in a tomlkit container; False: append it instead.

    tomlkit appends a new key after the table's trailing comments, which belong to the next header;
    placing it after its neighbour keeps both where people wrote them. tomlkit has no public insert:
    the position comes from the public `body`, the insert from `_insert_at` (in every tomlkit since
    0.7; 0.15.3 removed the `_insert_after` this used to call, so anything missing falls back)."""
    insert_at = getattr(container, "_insert_at", None)
    body = getattr(container, "body", None)
    if insert_at is None or body is None:
        return False
    index = next((i for i, (name, _) in enumerate(body) if name is not None and name.key == after), None)
    if index is None or index + 1 >= len(body):   # `after` is last: appending puts the key right after it
        return False
    try:
        insert_at(index + 1, key, item)
    except Exception:   # a layout tomlkit cannot insert into: append as before
        return False
    return True


def remove_key(doc, parts: tuple[str, ...]) -> None:
    """Take the key away; a table the removal leaves empty goes too (it only held that key)."""
    chain = [doc]
    for part in parts[:-1]:
        node = chain[-1].get(part) if hasattr(chain[-1], "get") else None
        if node is None:
            return
        chain.append(node)
    if parts[-1] not in chain[-1]:
        return
    del chain[-1][parts[-1]]
    for depth in range(len(chain) - 1, 0, -1):
        if len(chain[depth]) == 0:
            del chain[depth - 1][parts[depth - 1]]
        else:
            break


def edit_setting(doc, intent) -> None:
    """Apply a `set_key` / `remove_key` intent to a tomlkit document."""
    from worktree_coord.consolidate import settings
    from worktree_coord.consolidate.intent import Op

    parts = settings.parse_key(intent.name)
    if intent.op == Op.REMOVE_KEY:
        remove_key(doc, parts)
    else:
        options = dict(intent.options)
        set_key(doc, parts, settings.decode(intent.spec), options.get("form", ""), options.get("after", ""),
                options.get("toml", ""))


def table_dependency(intent: Intent) -> Any:
    """The TOML value a table keyed by name (Cargo's, pixi's) reads back as this intent's
    dependency: a bare version, else an inline table of its version, source and attributes."""
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
    item = (as_written(intent, value) or inline_table(value)) if isinstance(value, dict) else value
    if name in container:
        container[name] = item
    else:
        put_key_at(container, name, item, slot(list(container.keys()), intent, name))


def edit_keyed_tables(path: str, data: bytes, intent: Intent, table: list[str], put, form: str) -> bytes:
    """One intent on a TOML manifest whose dependencies sit in tables keyed by name (pixi.toml, a
    Gradle version catalog): `put(container)` writes the dependency into its table (`table`, created
    when missing); a removal deletes its key; any other key is a setting. `form` names the file
    in the error of an op it has no form for."""
    from worktree_coord.consolidate.intent import Op
    from worktree_coord.consolidate.textformat import dump_toml, load_toml
    from worktree_coord.errors import EditError

    doc = load_toml(path, data)
    op = intent.op
    if op in (Op.ADD_DEP, Op.SET_SPEC):
        put(table_path(doc, table, create=True))
    elif op == Op.REMOVE_DEP:
        found = table_path(doc, table, create=False)
        if found is not None and intent.name in found:
            del found[intent.name]
    elif op in (Op.SET_KEY, Op.REMOVE_KEY):
        edit_setting(doc, intent)
    else:
        raise EditError(f"{path}: intent {intent.intent_id} ({op.value} {intent.name}) has no {form} form",
                        fix=f"edit {form} in a task that owns it, or declare a dependency or setting intent")
    return dump_toml(doc, data)
