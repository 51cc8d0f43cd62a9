"""pom.xml edits as text edits anchored on parsed positions (consolidate/pom.py): a dependency of
`<dependencies>` or `<dependencyManagement>`, a `<module>`, the project's `<version>`, a
`<properties>` entry, a plugin of `<build>` (or of its `<pluginManagement>`) or another child of
`<build>`, a profile of `<profiles>` by its id (its dependencies and plugins one by one, any other
child whole), and any other top-level element as a whole block.

Only the bytes of the element an intent names change: the XML declaration, comments, blank lines,
attribute quoting and indentation of everything else stay as they were. A new element goes where
the task wrote it (after the sibling it followed in the task's file, else before the one it
preceded, else last; edits/placement.py), as the task wrote it (its `<dependency>` block, carried in
the intent's placement), re-indented to the column of its new siblings.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from worktree_coord.consolidate.edits.placement import slot
from worktree_coord.consolidate.intent import Intent, Op
from worktree_coord.consolidate.pom import (KEYED_CHILDREN, Element, as_utf8, dependency_key, dependency_list,
                                            from_utf8, keyed_child_key, parse)
from worktree_coord.consolidate.settings import decode, parse_key
from worktree_coord.errors import EditError

# Where a new top-level container goes when the file has none: before the first of these present.
_BEFORE = {
    "dependencies": ("build", "reporting", "profiles", "repositories", "pluginRepositories"),
    "dependencyManagement": ("dependencies", "build", "reporting", "profiles"),
    "properties": ("dependencyManagement", "dependencies", "build", "profiles"),
    "modules": ("properties", "dependencyManagement", "dependencies", "build", "profiles"),
}


def _line_start(data: bytes, offset: int) -> int:
    return data.rfind(b"\n", 0, offset) + 1


def _indent(data: bytes, element: Element) -> bytes:
    """The whitespace before the element on its line (b"" when something else precedes it there)."""
    before = data[_line_start(data, element.start):element.start]
    return before if not before.strip() else b""


def _unit(data: bytes, project: Element) -> bytes:
    """One level of the file's indentation, read from the project's first child."""
    first = project.children[0] if project.children else None
    found = _indent(data, first)[len(_indent(data, project)):] if first is not None else b""
    return found or b"  "


def _reindent(block: str, to: bytes, eol: bytes = b"\n") -> bytes:
    """A block as written at some column (its first line's leading whitespace) moved to the column
    `to`: every line that carries that column gets `to` in its place; its lines end with `eol`."""
    lines = block.replace("\r\n", "\n").strip("\n").split("\n")
    own = lines[0][:len(lines[0]) - len(lines[0].lstrip())]
    prefix = to.decode()
    out = [prefix + lines[0].lstrip()]
    out += [prefix + line[len(own):] if line.startswith(own) else line for line in lines[1:]]
    return eol.decode().join(out).encode("utf-8")


def _eol(data: bytes) -> bytes:
    """The file's end of line (a pom.xml written on Windows keeps its CRLF)."""
    return b"\r\n" if b"\r\n" in data else b"\n"


def _splice(data: bytes, start: int, end: int, new: bytes) -> bytes:
    return data[:start] + new + data[end:]


def _remove(data: bytes, element: Element) -> bytes:
    """Take the element out with its line when it stands alone on it."""
    start, end = element.start, element.end
    line = _line_start(data, start)
    rest = data[end:data.find(b"\n", end) + 1 if data.find(b"\n", end) >= 0 else len(data)]
    if not data[line:start].strip() and not rest.strip():
        start, end = line, end + len(rest)
    return _splice(data, start, end, b"")


def _insert(data: bytes, parent: Element, block: str, index: int, unit: bytes) -> bytes:
    """Put `block` as the parent's child at position `index` among its element children."""
    children, eol = parent.children, _eol(data)
    if children:
        if index < len(children):
            anchor = children[index]
            indent = _indent(data, anchor)
            at = _line_start(data, anchor.start) if indent or anchor.start == _line_start(data, anchor.start) \
                else anchor.start
            return _splice(data, at, at, _reindent(block, indent, eol) + eol)
        anchor = children[-1]
        return _splice(data, anchor.end, anchor.end, eol + _reindent(block, _indent(data, anchor), eol))
    indent = _indent(data, parent)
    inner = eol + _reindent(block, indent + unit, eol) + eol + indent
    if parent.empty:              # `<dependencies/>`: opened to hold the block
        name = parent.name.encode()
        return _splice(data, parent.start, parent.end, b"<" + name + b">" + inner + b"</" + name + b">")
    return _splice(data, parent.content_start, parent.content_end, inner)


def _set_text(data: bytes, element: Element, text: str) -> bytes:
    if element.empty:
        name = element.name.encode()
        return _splice(data, element.start, element.end, b"<" + name + b">" + escape(text).encode() + b"</" + name + b">")
    return _splice(data, element.content_start, element.content_end, escape(text).encode("utf-8"))


def _index_after(data: bytes, parent: Element, names: tuple[str, ...]) -> int:
    """Where a new top-level container goes: before the first element named in `names`, else last."""
    for position, child in enumerate(parent.children):
        if child.name in names:
            return position
    return len(parent.children)


def _container(data: bytes, project: Element, group: str, unit: bytes, first_child: str) -> tuple[bytes, bool]:
    """`data` with the list of `group` holding `first_child` (created around it when missing);
    True when the child was written with the new list."""
    if group == "dependencyManagement" and project.child("dependencyManagement") is not None:
        holder = project.child("dependencyManagement")
        if holder.child("dependencies") is None:
            block = "<dependencies>\n" + _reindent(first_child, unit).decode() + "\n</dependencies>"
            return _insert(data, holder, block, len(holder.children), unit), True
        return data, False
    name = "dependencies" if group == "dependencyManagement" else group
    if (project.child(group) if group != "dependencyManagement" else None) is not None:
        return data, False
    block = f"<{name}>\n" + _reindent(first_child, unit).decode() + f"\n</{name}>"
    if group == "dependencyManagement":
        block = "<dependencyManagement>\n" + _reindent(block, unit).decode() + "\n</dependencyManagement>"
    return _insert(data, project, block, _index_after(data, project, _BEFORE[group]), unit), True


def render_dependency(intent: Intent, unit: str) -> str:
    """A `<dependency>` for an intent declared by hand (no text of a task's to copy)."""
    group, artifact, *rest = intent.name.split(":")
    lines = [f"<groupId>{escape(group)}</groupId>", f"<artifactId>{escape(artifact)}</artifactId>"]
    if intent.spec:
        lines.append(f"<version>{escape(intent.spec)}</version>")
    if rest:
        lines.append(f"<type>{escape(rest[0])}</type>")
    if len(rest) > 1:
        lines.append(f"<classifier>{escape(rest[1])}</classifier>")
    for key, value in intent.options:
        if key == "exclusions":
            lines.append("<exclusions>")
            for excluded in value:
                g, _, a = str(excluded).partition(":")
                lines += [f"{unit}<exclusion>", f"{unit * 2}<groupId>{escape(g)}</groupId>",
                          f"{unit * 2}<artifactId>{escape(a)}</artifactId>", f"{unit}</exclusion>"]
            lines.append("</exclusions>")
        else:
            lines.append(f"<{key}>{escape(str(value))}</{key}>")
    return "<dependency>\n" + "\n".join(unit + line for line in lines) + "\n</dependency>"


def _dependency_block(intent: Intent, unit: bytes) -> str:
    text = dict(intent.placement).get("text")
    return text if isinstance(text, str) else render_dependency(intent, unit.decode())


def _edit_dependency(path: str, data: bytes, project: Element, intent: Intent, unit: bytes) -> bytes:
    listed = dependency_list(project, intent.group)
    found = {dependency_key(e): e for e in listed.all("dependency")} if listed is not None else {}
    current = found.get(intent.name)
    if intent.op == Op.REMOVE_DEP:
        return _remove(data, current) if current is not None else data
    block = _dependency_block(intent, unit)
    if current is not None:
        # A new version only: swap the version's text, so the rest of the entry stays as it is.
        kept = parse(path, block.encode("utf-8"))
        if [(c.name, c.text.strip()) for c in kept.children if c.name != "version"] == \
                [(c.name, c.text.strip()) for c in current.children if c.name != "version"]:
            version = current.child("version")
            if version is not None and intent.spec is not None:
                return _set_text(data, version, intent.spec)
        return _splice(data, current.start, current.end, _reindent(block, _indent(data, current), _eol(data)).lstrip())
    data_with, written = _container(data, project, intent.group, unit, block)
    if written:
        return data_with
    keys = list(found)
    return _insert(data, listed, block, slot(keys, intent, intent.name, sorted_in_order=False), unit)


def _edit_module(data: bytes, project: Element, intent: Intent, unit: bytes) -> bytes:
    modules = project.child("modules")
    present = {m.text.strip().rstrip("/"): m for m in modules.all("module")} if modules is not None else {}
    if intent.op == Op.REMOVE_MEMBER:
        return _remove(data, present[intent.name]) if intent.name in present else data
    if intent.name in present:
        return data
    block = f"<module>{escape(intent.name)}</module>"
    data_with, written = _container(data, project, "modules", unit, block)
    if written:
        return data_with
    before = dict(intent.options).get("before")
    keys = list(present)
    index = keys.index(before) if before in keys else len(keys)
    return _insert(data, modules, block, index, unit)


def _edit_setting(path: str, data: bytes, project: Element, intent: Intent, unit: bytes) -> bytes:
    parts = parse_key(intent.name)
    value = decode(intent.spec) if intent.op == Op.SET_KEY else None
    where = dict(intent.options)
    if parts[0] == "properties" and len(parts) > 1:
        parts = ("properties", ".".join(parts[1:]))     # a property's name may hold dots
        holder = project.child("properties")
        current = holder.child(parts[1]) if holder is not None else None
        if intent.op == Op.REMOVE_KEY:
            return _remove(data, current) if current is not None else data
        if current is not None:
            return _set_text(data, current, str(value))
        block = f"<{parts[1]}>{escape(str(value))}</{parts[1]}>"
        data_with, written = _container(data, project, "properties", unit, block)
        if written:
            return data_with
        keys = [child.name for child in holder.children]
        index = slot(keys, _placed(intent, where), parts[1], sorted_in_order=False)
        return _insert(data, holder, block, index, unit)
    if parts[0] in ("build", "profiles") and len(parts) > 1:
        return _edit_in_build(data, project, intent, parts, value, where, unit)
    if len(parts) != 1:
        raise EditError(f"{path}: intent {intent.intent_id} names {intent.name}, which is no property, "
                        "plugin or top-level element of a pom.xml",
                        fix='name a property as properties.NAME, a plugin as build.plugins."GROUP:ARTIFACT", '
                            "or a top-level element (build, profiles...)")
    current = project.child(parts[0])
    if intent.op == Op.REMOVE_KEY:
        return _remove(data, current) if current is not None else data
    block = str(value)
    if current is not None:
        return _splice(data, current.start, current.end, _reindent(block, _indent(data, current), _eol(data)).lstrip())
    keys = [child.name for child in project.children]
    index = slot(keys, _placed(intent, where), parts[0], sorted_in_order=False)
    return _insert(data, project, block, index, unit)


def _child_at(holder: Element, part: str) -> Element | None:
    """The child of `holder` a key part names: a plugin of `<plugins>` by groupId:artifactId, a
    profile of `<profiles>` by its id, a dependency by its coordinates (KEYED_CHILDREN), else the
    element of that name."""
    if holder.name in KEYED_CHILDREN:
        return next((c for c in holder.all(KEYED_CHILDREN[holder.name]) if keyed_child_key(c) == part), None)
    return holder.child(part)


def _block(name: str, value: object, unit: bytes) -> str:
    """An element as a setting carries it: its text as written, or (a table: an element that was
    empty, `<plugins/>`, or a new profile) built from its children's texts; `name` is the
    element's (`profile` for a profile keyed by its id)."""
    if isinstance(value, str):
        return value
    if not isinstance(value, dict) or not value:
        return f"<{name}/>"
    inner = "\n".join(_reindent(_block(KEYED_CHILDREN.get(name, key), item, unit), unit).decode()
                      for key, item in value.items())
    return f"<{name}>\n{inner}\n</{name}>"


def _edit_in_build(data: bytes, project: Element, intent: Intent, parts: tuple[str, ...], value: object,
                   where: dict, unit: bytes) -> bytes:
    """A plugin of `<build>` (`build.plugins."g:a"`, `build.pluginManagement.plugins."g:a"`) or
    another child of it, or a profile's (`profiles."ci"`, `profiles."ci".dependencies."g:a"`,
    `profiles."ci".build.plugins."g:a"`), set or removed; the containers on the way are made when
    missing."""
    chain = [project]
    for part in parts:
        found = _child_at(chain[-1], part)
        if found is None:
            break
        chain.append(found)
    missing = parts[len(chain) - 1:]
    # each part's element name: a keyed child's is its holder's kind (`profiles."ci"` is a <profile>)
    names = [KEYED_CHILDREN.get(holder, part) for holder, part in zip(("project",) + parts, parts)]
    # a keyed element carried whole (a new profile) is written as the task wrote it, its children in order
    block = where["xml"] if isinstance(value, dict) and where.get("xml") else _block(names[-1], value, unit)
    if not missing:
        target = chain[-1]
        if intent.op == Op.REMOVE_KEY:
            return _remove(data, target)
        return _splice(data, target.start, target.end, _reindent(block, _indent(data, target), _eol(data)).lstrip())
    if intent.op == Op.REMOVE_KEY:
        return data
    for name in reversed(names[len(chain) - 1:-1]):
        block = f"<{name}>\n" + _reindent(block, unit).decode() + f"\n</{name}>"
    parent = chain[-1]
    if len(missing) == 1:          # the parent holds its siblings: where the task wrote it
        keys = [keyed_child_key(c) if parent.name in KEYED_CHILDREN else c.name for c in parent.children]
        index = slot(keys, _placed(intent, where), parts[-1], sorted_in_order=False)
    elif parent is project:
        index = _index_after(data, project, ("reporting", "profiles", "repositories", "pluginRepositories"))
    else:
        index = len(parent.children)
    return _insert(data, parent, block, index, unit)


def _placed(intent: Intent, where: dict) -> Intent:
    """The intent with its setting's recorded neighbours as `slot` reads them."""
    import dataclasses

    runs = tuple((key, (where[key],) if isinstance(where[key], str) else tuple(where[key]))
                 for key in ("after", "before") if where.get(key))
    return dataclasses.replace(intent, placement=runs)


def edit(path: str, data: bytes, intent: Intent) -> bytes:
    """The pom.xml `data` with the intent applied, in the encoding the file declares."""
    data, encoding = as_utf8(path, data)
    return from_utf8(_edit(path, data, intent), encoding)


def _edit(path: str, data: bytes, intent: Intent) -> bytes:
    project = parse(path, data)
    unit = _unit(data, project)
    op = intent.op
    if op in (Op.ADD_DEP, Op.SET_SPEC, Op.REMOVE_DEP):
        if intent.group not in ("dependencies", "dependencyManagement"):
            raise EditError(f"{path}: intent {intent.intent_id} names the group {intent.group!r}",
                            fix="name dependencies or dependencyManagement")
        return _edit_dependency(path, data, project, intent, unit)
    if op in (Op.ADD_MEMBER, Op.REMOVE_MEMBER):
        return _edit_module(data, project, intent, unit)
    if op == Op.BUMP_VERSION:
        version = project.child("version")
        if version is None:
            raise EditError(f"{path} has no <version> of its own (it takes its parent's)",
                            fix="bump the parent's version, or give the project its own <version> in a task")
        return _set_text(data, version, intent.spec or "")
    if op in (Op.SET_KEY, Op.REMOVE_KEY):
        return _edit_setting(path, data, project, intent, unit)
    raise EditError(f"{path}: intent {intent.intent_id} ({op.value} {intent.name}) has no pom.xml form",
                    fix="edit pom.xml in a task, or declare a dependency, module, version or property intent")

