"""Calls a task left, in the very file it renamed a method in, of the method's old name on an instance.

Stage: the left-behind look (left_behind.py), once it has read every file of the tree that spells a
removed name (`whole`: none left unread). Input: each changed file whose task version lost members of
its classes (the file, its task version, the (class, name) pairs gone), and the texts of the other files
spelling those names. Output: one SemanticFinding (problem "broken", removed and used by the task) for
each call of a gone member through `self`/`this` inside its class, or through a receiver of no class the
file says, where the class is the tree's one definer of the name.

Why: the look reads the uses in other files, and own_uses.py the reads through a type's own name
(`Color.RED`); a call through the instance in the renaming file itself was read by neither. Found
driving wtc on tj/commander.js: a task renamed `Help.padWidth` in lib/help.js and merged clean, leaving
`formatHelp`'s `helper.padWidth(cmd, helper)` twenty lines up in the same class; `Option.attributeName`
renamed left DualOptions' `option.attributeName()` in lib/option.js. In Python the same: a method renamed
and its class's own `self.pad_width()` left.

Sure enough (the reading of merge/checks/sole_members.py, asked of the file itself): the language lists
its types' own members (`common_members`) and the name is none of them unless the receiver is the class's
own `self`/`this` (click's `Command.format_usage`, also argparse's), nor a dunder; exactly one class
of the file lost the name; the class declares no base but memberless ones, answers no name at run time
(`__getattr__`), and binds the name nowhere (`self.name = ...`); no other class of the file, and no other
file spelling the name, defines, binds or writes it (a subclass overriding it answers `self.name()`; a
`.d.ts` declaring the same class does not: profile `declaration_files`); the receiver is `self`/`this`
inside that class, or a receiver the file imports nothing as (not a module, not another package's
object) and names no type of. Anything else is unsure, and nothing is said.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from ..merge.checks.fields import member_writes
from ..merge.checks.semantic import semantic_profile
from ..merge.checks.sole_members import applies, base_list, declares_only, defines_elsewhere, written_outside
from ..merge.checks.symbols import EXPORTS, Symbols, extract, visible_import
from ..merge.checks.versions import MAX_BYTES
from ..merge.result import SemanticFinding
from .own_uses import own_finding, task_symbols

_LEADING = re.compile(r"[A-Za-z_$][\w$]*")
Pair = tuple[tuple[str, ...], str]


def own_member_calls(path: str, after: bytes, gone: set[Pair], before_symbols: Any, after_symbols: Any,
                     others: Mapping[str, bytes], said: set[tuple[str, int]]) -> list[SemanticFinding]:
    """The calls in `after` (the task's version of `path`) of members `gone` from its classes, through
    the instance (module docstring). `others`: every other file spelling a gone name, as the merged tree
    holds it; `said`: (name, line) pairs already found in this file (own_uses.py)."""
    profile = semantic_profile(path)
    if profile is None or not applies(path) or len(after) > MAX_BYTES:
        return []
    rules = profile.semantic
    members: dict[str, list[tuple[str, ...]]] = {}
    for container, name in gone:
        if container and container != EXPORTS and not name.startswith("__"):   # (a module's exports are no class)
            members.setdefault(name, []).append(container)
    members = {name: containers for name, containers in members.items()
               if len(containers) == 1 and len(containers[0]) == 1 and name.encode() in after}
    if not members:
        return []
    symbols = task_symbols(profile, after, after_symbols)
    if symbols is None:
        return []
    sure = {name: container for name, (container,) in members.items()
            if _sole(path, after, symbols, container, name, others, rules)}
    if not sure:
        return []
    lines = after.split(b"\n")
    where = {(d.container, d.name): d for d in (before_symbols.definitions if before_symbols is not None else ())}
    out: list[SemanticFinding] = []
    for reference in symbols.references:
        container = sure.get(reference.name)
        if container is None or reference.receiver is None or (reference.name, reference.line) in said:
            continue
        if reference.name in rules.common_members and reference.receiver not in rules.self_receivers:
            continue   # (a list's `append`: any receiver but the class's own instance may be another type's)
        if not _means(reference, container, symbols, rules):
            continue
        said.add((reference.name, reference.line))
        out.append(own_finding(rules, path, container, reference.name, reference, where, lines))
    return out


def _means(reference: Any, container: tuple[str, ...], symbols: Symbols, rules: Any) -> bool:
    """Whether the call's receiver is an instance of `container`, as sure as the module docstring says."""
    receiver = reference.receiver
    if receiver in rules.self_receivers:
        return reference.container[-1:] == container   # `self.f()` in the class (a nested class's is its own)
    head = _LEADING.match(receiver)
    if head is None:
        return True   # an expression's result: `make().f()`, `(a || b).f()`
    word = head.group()
    if word == "new":
        return False   # `new Other().f()`: the class it constructs (semantic.py follows it)
    if word in rules.self_receivers:
        return True   # `this.helper.f()`: an instance of no class the file says
    if visible_import(symbols, word, reference) is not None:
        return False   # a module, or another package's object: its member
    return not (symbols.binds((), word) and any(d.name == word and not d.container and d.kind in ("class", "interface")
                                                 for d in symbols.definitions))


def _sole(path: str, after: bytes, symbols: Symbols, container: tuple[str, ...], name: str,
          others: Mapping[str, bytes], rules: Any) -> bool:
    """Whether the class `container` of `path` is the one definer of `name` among the file and `others`,
    and no base of it can give the name back."""
    if symbols.binds(container, name) or any(d.name in rules.any_name and d.container == container
                                             for d in symbols.definitions):
        return False
    if container in symbols.heritage:
        bases = base_list(after, container[0], rules.class_bases)
        if bases is None or any(base.rsplit(".", 1)[-1] not in rules.memberless_bases for base in bases):
            return False   # a base may give it (not followed here: the look's reading follows the tree's bases)
    if defines_elsewhere(symbols, path, path, container, name):
        return False   # another class of the file defines or binds it (a subclass overriding it)
    writes = member_writes(path, name)
    if writes is not None and writes.search(after):
        return False
    for other, data in others.items():
        if other == path or name.encode() not in data:
            continue
        profile = semantic_profile(other)
        if profile is None:
            continue
        try:
            found = extract(profile, data)
        except (ValueError, UnicodeDecodeError):
            return False   # a file not read may define it
        if found is None:
            return False
        describes = declares_only(other)
        if defines_elsewhere(found, other, path, container, name, describes):
            return False
        other_writes = member_writes(other, name)
        if other_writes is not None and written_outside(other_writes, data, found, container if describes else None):
            return False
    return True

