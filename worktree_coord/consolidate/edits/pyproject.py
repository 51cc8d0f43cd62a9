"""pyproject.toml edits (PEP 621 arrays, dependency groups, [tool.uv.*], Poetry tables) with tomlkit."""

from __future__ import annotations

import re
from typing import Any

import tomlkit
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from worktree_coord.consolidate.edits.member_lists import edit_member_array
from worktree_coord.consolidate.edits.placement import slot, written_text
from worktree_coord.consolidate.edits.toml_values import (array_insert, array_string, as_written, edit_setting,
                                                          inline_table, put_key_at, table_path)
from worktree_coord.consolidate.intent import Ecosystem, Intent, Op
from worktree_coord.consolidate.manifests import ManifestParseError, pep508, pep508_entries
from worktree_coord.consolidate.specs import same_spec
from worktree_coord.consolidate.textformat import dump_toml, load_toml
from worktree_coord.errors import EditError


# An operator followed by a space: a spec written in the spaced style.
_SPACED_SPEC = re.compile(r"(===|~=|==|!=|<=|>=|<|>)\s")


def requirement_text(intent: Intent, name: str | None = None) -> str:
    """The PEP 508 string for the intent: name[extras]spec; markers (or @ url)."""
    text = name or intent.name.split(";")[0].strip()
    if intent.extras:
        text += f"[{','.join(intent.extras)}]"
    url = dict(intent.source or ()).get("url")
    if url:
        text += f" @ {url}"
    elif intent.spec:
        # A spec written with spaces (`>= 2.0`, from the task's `"tomli >= 2.0"`) is set off from the
        # name as the task set it off: `tomli>= 2.0` is no one's way of writing it.
        text += f" {intent.spec}" if _SPACED_SPEC.match(intent.spec) else intent.spec
    if intent.markers:
        text += f"; {intent.markers}"
    return text


def _array_path(group: str) -> list[str]:
    if group == "dependencies":
        return ["project", "dependencies"]
    if group.startswith("optional:"):
        return ["project", "optional-dependencies", group.split(":", 1)[1]]
    if group.startswith("group:"):
        return ["dependency-groups", group.split(":", 1)[1]]
    if group == "uv:dev-dependencies":
        return ["tool", "uv", "dev-dependencies"]
    raise EditError(f"unknown pyproject dependency group {group!r}")


def _matches(item: Any, name: str) -> bool:
    if not isinstance(item, str):
        return False
    try:
        req = Requirement(item)
    except InvalidRequirement:
        return False
    key = canonicalize_name(req.name)
    if ";" in name:   # a marker-qualified key (the same name twice under different markers)
        return f"{key}; {req.marker}" == name
    return key == name


def _edit_array(doc, intent: Intent) -> None:
    parts = _array_path(intent.group)
    parent = table_path(doc, parts[:-1], create=True)
    array = parent.get(parts[-1])
    if array is None:
        if intent.op == Op.REMOVE_DEP:
            return
        array = tomlkit.array()
        indent = _siblings_indent(parent)
        if indent is None:
            array.append(array_string(array, _entry_text(intent)))
        else:        # one entry a line, indented as the arrays beside it are
            array.add_line(array_string(array, _entry_text(intent)), indent=indent)
            array.add_line(indent="")
        if intent.group.startswith("optional:"):   # a new extra where the task wrote it among the others
            put_key_at(parent, parts[-1], array, slot([canonicalize_name(k) for k in parent.keys()], intent,
                                                      parts[-1], table="group", sorted_in_order=False))
        else:
            parent[parts[-1]] = array
        return
    indices = [i for i, item in enumerate(array) if _matches(item, intent.name)]
    if intent.op == Op.REMOVE_DEP:
        for index in reversed(indices):
            del array[index]
        return
    item = array_string(array, _entry_text(intent))   # networkx's arrays are single-quoted: a new entry is too
    if indices:
        array[indices[0]] = item
        for index in reversed(indices[1:]):
            del array[index]
        return
    # Where the task wrote it, else where `uv add` would (edits/placement.py)
    array_insert(array, slot(_entry_keys(array), intent, intent.name), item)


def _entry_keys(array) -> list[str | None]:
    """Each entry's key as the manifest model keys it (None: not a string)."""
    entries = iter(pep508_entries(list(array), "pyproject.toml"))
    return [next(entries)[0] if isinstance(item, str) else None for item in array]


def _entry_text(intent: Intent) -> str:
    """The entry's text: as the task wrote it (its quotes, spaces and marker spelling), when that
    still says what the intent says (planning may have narrowed the spec), else built from the intent."""
    written = written_text(intent)
    if written is not None:
        try:
            name, value = pep508(written, intent.manifest)
        except ManifestParseError:
            name, value = "", None
        if value is not None and name == canonicalize_name(intent.name.split(";")[0].strip()) \
                and value.extras == intent.extras and value.markers == intent.markers \
                and dict(value.source or ()).get("url") == dict(intent.source or ()).get("url") \
                and same_spec(intent.ecosystem, value.spec, intent.spec):
            return written
    return requirement_text(intent)


def _siblings_indent(table) -> str | None:
    """The indentation of a new array's entry in `table` when it is written one entry a line: when
    every array beside it is (httpx's optional-dependencies, driven as a user: the task wrote `yaml = [`
    and its entry on a line of its own, as its neighbours are, and consolidation wrote
    `yaml = ["pyyaml>=6"]`), indented as the first of them (httpx's two spaces, not tomlkit's four);
    None: on one line."""
    arrays = [value.as_string() for value in table.values() if isinstance(value, tomlkit.items.Array)]
    if not arrays or not all("\n" in text for text in arrays):
        return None
    line = arrays[0].split("\n")[1]
    return line[:len(line) - len(line.lstrip())] or "    "


def _edit_sources(doc, intent: Intent) -> None:
    source = intent.source_dict()
    if source is None or "url" in (source or {}):
        sources = table_path(doc, ["tool", "uv", "sources"], create=False)
        if sources is not None:
            for key in [k for k in sources if canonicalize_name(k) == intent.name]:
                del sources[key]
        return
    sources = table_path(doc, ["tool", "uv", "sources"], create=True)
    existing = [k for k in sources if canonicalize_name(k) == intent.name]
    if existing:
        sources[existing[0]] = inline_table(source)
    else:   # where the task wrote it, else last (where `uv add` puts a source, sorted table or not)
        put_key_at(sources, intent.name, inline_table(source),
                   slot([canonicalize_name(k) for k in sources], intent, intent.name, table="sources",
                        sorted_in_order=False))


def _uses_pep621(doc, group: str) -> bool:
    """Poetry 2 reads [project] and [dependency-groups] too: edit those when the project uses them."""
    if group == "dependencies":
        return "dependencies" in (doc.get("project") or {})
    if group.startswith("group:"):
        return group.split(":", 1)[1] in (doc.get("dependency-groups") or {})
    return group.startswith("optional:")


def _poetry_table(doc, group: str):
    if group == "dependencies":
        return table_path(doc, ["tool", "poetry", "dependencies"], create=True)
    if group.startswith("group:"):
        return table_path(doc, ["tool", "poetry", "group", group.split(":", 1)[1], "dependencies"], create=True)
    raise EditError(f"unknown Poetry dependency group {group!r}")


def _edit_poetry(doc, intent: Intent) -> None:
    table = _poetry_table(doc, intent.group)
    existing = [k for k in table if canonicalize_name(k) == intent.name]
    if intent.op == Op.REMOVE_DEP:
        for key in existing:
            del table[key]
        return
    value: dict[str, Any] = {}
    if intent.spec is not None:
        value["version"] = intent.spec
    value.update(intent.source_dict() or {})
    if intent.extras:
        value["extras"] = list(intent.extras)
    if intent.markers:
        value["markers"] = intent.markers
    value.update({k: v for k, v in intent.options})
    item = tomlkit.item(intent.spec) if set(value) == {"version"} else as_written(intent, value) or inline_table(value)
    if existing:
        table[existing[0]] = item
    else:
        # (no sorted slot: `poetry add` appends, even to a table that happens to be in order)
        put_key_at(table, intent.name, item,
                   slot([canonicalize_name(k) for k in table], intent, intent.name, sorted_in_order=False))


def edit(path: str, data: bytes, intent: Intent) -> bytes:
    doc = load_toml(path, data)
    op = intent.op
    if op in (Op.ADD_DEP, Op.SET_SPEC, Op.REMOVE_DEP):
        if intent.ecosystem == Ecosystem.POETRY and not _uses_pep621(doc, intent.group):
            _edit_poetry(doc, intent)
        else:
            _edit_array(doc, intent)
            if op != Op.REMOVE_DEP or intent.source is not None:
                _edit_sources(doc, intent)
    elif op in (Op.ADD_MEMBER, Op.REMOVE_MEMBER):
        workspace = table_path(doc, ["tool", "uv", "workspace"], create=True)
        if "members" not in workspace:
            workspace["members"] = tomlkit.array()
        edit_member_array(workspace["members"], intent)
    elif op == Op.BUMP_VERSION:
        table = table_path(doc, ["tool", "poetry"] if intent.ecosystem == Ecosystem.POETRY else ["project"],
                           create=False)
        if table is None:
            raise EditError(f"{path} has no [project] table to bump (intent {intent.intent_id})")
        table["version"] = intent.spec
    elif op == Op.SET_RUNTIME and intent.name == "python":
        if intent.ecosystem == Ecosystem.POETRY:
            table_path(doc, ["tool", "poetry", "dependencies"], create=True)["python"] = intent.spec
        else:
            table_path(doc, ["project"], create=True)["requires-python"] = intent.spec
    elif op in (Op.SET_OVERRIDE, Op.REMOVE_OVERRIDE):
        uv = table_path(doc, ["tool", "uv"], create=True)
        overrides = uv.get("override-dependencies")
        if overrides is None:
            overrides = tomlkit.array()
            uv["override-dependencies"] = overrides
        for index in reversed([i for i, item in enumerate(overrides) if _matches(item, intent.name)]):
            del overrides[index]
        if op == Op.SET_OVERRIDE:
            overrides.append(intent.spec if intent.spec and intent.spec[:1].isalpha() else f"{intent.name}{intent.spec or ''}")
    elif op in (Op.SET_KEY, Op.REMOVE_KEY):
        edit_setting(doc, intent)
    else:
        raise EditError(f"{path}: intent {intent.intent_id} ({op.value} {intent.name}) has no pyproject form")
    return dump_toml(doc, data)
