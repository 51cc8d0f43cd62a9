"""Receivers whose class a declaration spells, in a language whose classes nest (Java): where sure.

Stage: inside the semantic check's `targets` (semantic.py `_Check`), which asks, for a call on a
receiver, which definitions it may mean; the signature check reads the same answer. Input: the
check (its parsed versions, its package and import resolution), the using file, the reference.
Output: (file, class chain, method) targets, nothing when unsure.

Three shapes, each one step of a declared type and no more:
- a local, parameter or field of a class nested in another, spelled through it (`CodeBlock.Builder
  code`, grammars/java.toml `@typed.*` of a `scoped_type_identifier`): the outer class is found as a
  type is (the file's own, one it imports by name, or its package's), the inner is its member;
- a class's static member (`TypeName.INT.box()`, `CodeBlock.builder().addNamed(...)`): the field's
  declared type or the method's declared return type (profile `@typed.static`, `@typed.returns`:
  Symbols.member_types): the class itself, a class it nests, or another top-level class
  (`Store.open(k).put(v)`, Entry.java's `put`), found as the declaring file sees its name;
  a class it nests (`TypeSpec.Kind.CLASS`);
- an instance method called on a local or parameter whose class the file spells (`s.entry().put()`
  where `Store s`): the method's declared return type, as for a static one.
Never sure (nothing is said): a class the using file nests under that name (it is the one meant), a
local or member of the receiver's name, a class with bases or interfaces (a method it lost may be
inherited; a static member it declares may be overloaded by an inherited one), overloads of a
static method spelling two return types.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

from ..languages.profiles import SemanticRules, profile_for_path
from .symbols import CONTAINER_KINDS, Reference, Symbols, visible_import

# The check that asks (semantic._Check), typed loosely: this module is below semantic.py, which imports it.
_Check = Any

Target = tuple[str, tuple[str, ...], str]
_NAME = re.compile(r"[A-Za-z_$][\w$]*")
_FIELD = re.compile(r"([A-Za-z_$][\w$]*)\s*\.\s*([A-Za-z_$][\w$]*)")


def nested_type_targets(check: _Check, path: str, reference: Reference, merged: Symbols, rules: SemanticRules,
                        spelled: str) -> Iterator[Target]:
    """The method `reference.name` of the class `spelled` (`CodeBlock.Builder`: a class nested in
    another), the declared type of the receiver where `reference` stands."""
    chain = tuple(part.strip() for part in spelled.split("."))
    if not all(_NAME.fullmatch(part) for part in chain):
        return
    files = class_files(check, path, reference, merged, rules, chain[0])
    if files:
        yield from members_of(check, files, chain, reference.name)


def static_member_targets(check: _Check, path: str, reference: Reference, merged: Symbols,
                          rules: SemanticRules) -> Iterator[Target]:
    """The method `reference.name` called on a class's static member (`TypeName.INT.box()`,
    `CodeBlock.builder().addNamed(...)`), through that member's declared type."""
    through = _static_member(check, path, reference)
    if through is None:
        return
    head, member, called = through
    typed = _local_class(reference, merged, head)
    if typed is not None:
        # `s.entry().put()` where `Store s`: Store's `entry`, by its declared return type; `h.entry.put()`
        # where `Holder h`: Holder's field `entry`, by its declared type
        head = typed
    elif "." in head:
        return   # (`this.holder` of no declared class)
    elif reference.scopes & merged.local.get(head, set()) or any(
            merged.binds(reference.container[:depth], head) for depth in range(len(reference.container), 0, -1)):
        return   # a local, field or nested class of that name: not the top-level class
    files = class_files(check, path, reference, merged, rules, head)
    if files == []:
        # a class of the package no side changed (`Store.open(k).put(v)` where only Entry.java changed),
        # or of another package, imported by name (`import p.Store;`)
        imported = visible_import(merged, head, reference)
        files = check.tree_class_files(path, head, rules) if imported is None else check.tree_import_files(
            path, imported.module.rstrip(rules.module_separator) + rules.module_separator + imported.name, rules)
    if not files:
        return
    declaring: list[tuple[str, str]] = []
    for other in files:
        found = check.version_symbols(other)
        if found is None:
            continue
        if (head,) in found.heritage:
            return   # a static member of a base may answer it too
        if not called and any(d.name == member and d.container == (head,) and d.kind in CONTAINER_KINDS
                              for d in found.definitions):
            # a class it nests (`TypeSpec.Kind.CLASS`: the enum Kind's constant)
            yield from members_of(check, files, (head, member), reference.name)
            return
        spelled = found.member_types.get(((head,), member, called))
        if spelled is not None:
            declaring.append((other, spelled))
    if len(declaring) != 1 or not declaring[0][1]:
        return
    other, spelled = declaring[0]
    chain = tuple(part.strip() for part in spelled.split("."))
    if not all(_NAME.fullmatch(part) for part in chain):
        return
    if chain[0] == head:
        yield from members_of(check, [other], chain, reference.name)
        return
    if len(chain) != 1:
        return
    declarer = check.version_symbols(other)
    if declarer is None:
        return
    if any(d.name == chain[0] and d.container == (head,) and d.kind in CONTAINER_KINDS for d in declarer.definitions):
        # a class the member's class nests, by its own name (`Builder`)
        yield from members_of(check, [other], (head,) + chain, reference.name)
        return
    # Another top-level class (`Store.open(k).put(v)`, `open` declared `public static Entry open(..)`),
    # found as the declaring file sees the name: its own class, one it imports by name, its package's.
    at = Reference(chain[0], "class", None, (), frozenset(), 0, "")
    declaring_rules = profile_for_path(other)
    files = class_files(check, other, at, declarer, declaring_rules.semantic if declaring_rules else rules, chain[0])
    if files:
        yield from members_of(check, files, chain, reference.name)


def class_files(check: _Check, path: str, reference: Reference, merged: Symbols, rules: SemanticRules,
                name: str) -> list[str] | None:
    """The files that may declare the top-level class `name` as `path` sees it where `reference`
    stands: the file itself, the file of an import of it by name, or a file of its package (which
    needs no import, and comes before any `import a.b.*;`); None when unsure (a class the file nests
    by that name, an import of a package whole)."""
    if any(d.name == name and d.container and d.kind in CONTAINER_KINDS for d in merged.definitions):
        return None
    if any(d.name == name and not d.container and d.kind in CONTAINER_KINDS for d in merged.definitions):
        return [path]
    imported = visible_import(merged, name, reference)
    if imported is not None:
        if imported.name is None:
            return None
        separator = rules.module_separator
        return check.import_files(imported.module.rstrip(separator) + separator + imported.name, path, rules)
    return check.package_class_files(path, name, rules)


def members_of(check: _Check, files: list[str], chain: tuple[str, ...], name: str) -> Iterator[Target]:
    """(file, chain, name) for each of `files` when one of them declares the class `chain` (outer
    classes first) and none gives it a base (a method it lost may then be inherited)."""
    declared = False
    for other in files:
        versions = check.files.get(other)
        for which in ("base", "merged"):
            found = check.symbols(other, which, uses=False) if versions is not None and versions.exists(which) else None
            if found is None:
                continue
            if chain in found.heritage:
                return
            declared = declared or (which == "merged" and any(
                d.name == chain[-1] and d.container == chain[:-1] and d.kind in CONTAINER_KINDS
                for d in found.definitions))
    if declared:
        yield from ((other, chain, name) for other in files)


def _local_class(reference: Reference, merged: Symbols, name: str) -> str | None:
    """The class a local or parameter `name` is declared of where `reference` stands, where sure:
    bound in one function around it, every binding there spelling one class by a name alone."""
    scopes = reference.scopes & merged.local.get(name, set())
    if len(scopes) != 1:
        return None
    typed = merged.local_types.get(name, {}).get(next(iter(scopes)))
    return typed if typed and _NAME.fullmatch(typed) else None


def _static_member(check: _Check, path: str, reference: Reference) -> tuple[str, str, bool] | None:
    """(class, member, called) of a receiver that is a class's static member: `TypeName.INT` (read
    from its text) or `CodeBlock.builder(...)` (one call, read from the merged tree: its callee's
    receiver is a name alone); None for any other receiver."""
    receiver = reference.receiver or ""
    field = _FIELD.fullmatch(receiver)
    if field is None and receiver.startswith("this."):
        # `this.holder.entry`: the class's field holder (a local of its declared type in its methods:
        # symbols._fields_in_methods binds it as `this.holder`), then its field entry
        inner = _FIELD.fullmatch(receiver[len("this."):])
        if inner is not None:
            return "this." + inner.group(1), inner.group(2), False
    if field is not None:
        return field.group(1), field.group(2), False
    if not receiver.endswith(")") or reference.start_byte < 0:
        return None
    profile = profile_for_path(path)
    calls = dict(profile.semantic.signatures.calls) if profile is not None else {}
    tree = check.tree(path, "merged") if calls else None
    if tree is None:
        return None
    node = tree.root_node.named_descendant_for_byte_range(reference.start_byte,
                                                          reference.start_byte + len(reference.name.encode()))
    parent = node.parent if node is not None else None
    if parent is None:
        return None
    before = [child for child in parent.named_children if child.end_byte <= reference.start_byte and not child.is_extra]
    call = before[-1] if before else None
    if call is None or call.type not in calls:
        return None
    callee = call.child_by_field_name(calls[call.type])
    source = check.files[path].merged or b""
    if callee is None or source[call.start_byte:call.end_byte].decode("utf-8", "replace") != receiver:
        return None
    head = _FIELD.fullmatch(source[call.start_byte:callee.end_byte].decode("utf-8", "replace"))
    if head is None or head.group(2) != source[callee.start_byte:callee.end_byte].decode("utf-8", "replace"):
        return None
    return head.group(1), head.group(2), True
