"""Which whole name a name spelled at a use means, where `use` clauses import names one by one (PHP).

Stage: asked by the post-merge semantic check (semantic.py `namespace_sees`) of a use, in one file,
of a definition another file removed, for a language whose profile's `[semantic] namespaces` query
captures `@use` clauses (PHP). Input: the use file's `use` clauses (each read here by `clause`,
kept in namespaces.NamespaceFacts `imported`), its namespace there, its bytes, the use's offset.
Output: whether the use means the definition (`means`).

Why: PHP finds a name by rule, not by search. A class name (and a qualified name's first part) is
what a `use` clause of the same namespace imports under it (`use A\\B\\C;`, `use A\\B\\C as D;`, a
group `use A\\{B, C}`), else the name inside the file's namespace; `\\A\\B\\C` is that name whatever
the namespace, `namespace\\C` the file's own. An unqualified function or constant is what `use
function` / `use const` imports, else the namespace's, else the global one (PHP falls back to it at
run time). C#'s `using N;` (namespaces.sees) lets a file see every type of N; PHP's clause imports one
name, so a class `Timer` the repository removed from `App\\Util` is not the `Timer` a file importing
`React\\EventLoop\\Timer` means, nor the one of its own namespace. Names compare case-insensitively
(PHP's classes, functions and namespaces are); a use a rule cannot place sees nothing.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ...frozen import value_class

if TYPE_CHECKING:
    import tree_sitter

_KINDS = {"function": "function", "const": "const"}   # a clause's `type` token; none: a class or namespace
_BEFORE = re.compile(rb"(?:\\?(?:[A-Za-z_\x80-\xff][\w\x80-\xff]*\\)+|\\)\Z")   # `\A\B\` ending where a name starts
_FUNCTIONS = frozenset({"function", "method"})
_CONSTANTS = frozenset({"constant", "define"})


@value_class
class NameImport:
    """One clause of a `use` declaration: what it imports (`whole`, dot-joined), under which name
    (`alias`, lowercased), of which kind ("class": a class or a namespace; "function"; "const"), in
    which namespace it stands, and where its declaration is (the offset of a group's `{`, or -1,
    with the group's prefix)."""

    kind: str
    alias: str
    whole: str
    namespace: str
    start: int
    end: int
    group: int = -1
    prefix: str = ""


def dotted(spelled: str) -> str:
    """A name as PHP spells it (`\\A\\B`), as the checks join names: `A.B`."""
    return spelled.strip().lstrip("\\").replace("\\", ".")


def clause(node: "tree_sitter.Node", data: bytes, namespace: str) -> NameImport | None:
    """The import of one `namespace_use_clause` node (in `namespace`), or None when it names nothing."""
    declaration = node.parent
    prefix, group = "", -1
    if declaration is not None and declaration.type == "namespace_use_group":
        group = declaration.start_byte
        declaration = declaration.parent
        named = next((c for c in declaration.named_children if c.type == "namespace_name"), None) \
            if declaration is not None else None
        prefix = dotted(_text(data, named)) if named is not None else ""
    if declaration is None:
        return None
    kind = "class"
    for holder in (node, declaration):
        token = holder.child_by_field_name("type")
        if token is not None:
            kind = _KINDS.get(_text(data, token), "class")
            break
    alias = node.child_by_field_name("alias")
    named = next((c for c in node.named_children if c.type in ("qualified_name", "name")
                  and (alias is None or c.id != alias.id)), None)
    if named is None:
        return None
    whole = ".".join(part for part in (prefix, dotted(_text(data, named))) if part)
    bound = _text(data, alias) if alias is not None else whole.rsplit(".", 1)[-1]
    return NameImport(kind, bound.lower(), whole, namespace, declaration.start_byte, declaration.end_byte, group, prefix)


def means(home: str, kind: str, name: str, member_of: str | None, use: tuple[NameImport, ...], data: bytes,
          at: int, receiver: str | None, current: str) -> bool:
    """Whether the use of `name` at byte `at` of `data` (a version whose `use` clauses are `use`, its
    namespace `current`), reached through `receiver` (`T` of `T::f()`; for a local, the class its binding spells),
    means the definition `name` of `kind` standing in namespace `home` (a member of the class
    `member_of` there, or top level; for a namespace, `home` is its whole name). A receiver whose
    class is not known (an untyped `$x`) is "$" (no class)."""
    if at < 0:
        return False   # (a receiver's own reference, placed nowhere: the name's own node is read as a use too)
    if member_of is None and (receiver is not None or kind == "method"):
        return False   # `T::make()`, `$x->make()` reach no function `make`; a method outside a class is an anonymous class's
    if member_of is not None:
        if receiver is None or receiver.startswith("$") or receiver.lower() in ("self", "static", "parent"):
            return False
        return _same(resolved(receiver, "class", use, current, at), _joined(home, member_of))
    before = _BEFORE.search(data, max(0, at - 256), at)
    spelled = (before.group().decode("utf-8", "replace") if before is not None else "") + name
    follows = data[at + len(name.encode()):at + len(name.encode()) + 1] == b"\\"
    inside = next((item for item in use if item.start <= at < item.end), None)
    if kind == "namespace" and not follows and inside is None:
        return False   # `Util` alone names a class, a function or a constant, never a namespace
    if kind != "namespace" and follows:
        return False   # `Util\Timer`'s `Util` is a namespace
    if inside is not None:
        # A clause's names are whole names (a group's after its prefix), whatever the file's namespace.
        whole = ".".join(part for part in (inside.prefix if at > inside.group >= 0 else "", dotted(spelled)) if part)
        return _same(whole, home if kind == "namespace" else _joined(home, name))
    if kind == "namespace":
        return _same(resolved(spelled, "class", use, current, at), home)
    wanted = "function" if kind in _FUNCTIONS else "const" if kind in _CONSTANTS else "class"
    target = _joined("" if kind == "define" else home, name)
    if wanted != "class" and "\\" not in spelled:
        imported = _imported(use, wanted, name, current, at)
        if imported is not None:
            return _same(imported, target)
        # PHP tries the namespace's function (or constant), then the global one.
        return _same(_joined(current, name), target) or _same(name, target)
    return _same(resolved(spelled, "class", use, current, at), target)


def resolved(spelled: str, kind: str, use: tuple[NameImport, ...], current: str, at: int) -> str:
    """The whole name (dot-joined) a class name spelled `spelled` at `at` means (`kind` "class"),
    by PHP's rules: fully qualified, `namespace\\`-relative, through a clause's alias, or in `current`."""
    spelled = spelled.strip()
    if spelled.startswith("\\"):
        return dotted(spelled)
    if spelled.lower().startswith("namespace\\"):
        return _joined(current, dotted(spelled[len("namespace\\"):]))
    head, _, rest = dotted(spelled).partition(".")
    imported = _imported(use, kind, head, current, at)
    if imported is not None:
        return _joined(imported, rest)
    return _joined(current, dotted(spelled))


def _imported(use: tuple[NameImport, ...], kind: str, alias: str, current: str, at: int) -> str | None:
    """The whole name a clause of kind `kind`, in the namespace around `at`, imports as `alias`."""
    lowered = alias.lower()
    for item in use:
        if item.kind == kind and item.alias == lowered and item.namespace == current:
            return item.whole
    return None


def _joined(scope: str, name: str) -> str:
    return f"{scope}.{name}" if scope and name else scope or name


def _same(one: str, other: str) -> bool:
    return one.lower() == other.lower()


def _text(data: bytes, node: "tree_sitter.Node") -> str:
    return data[node.start_byte:node.end_byte].decode("utf-8", "replace")
