"""A member called on a receiver of unknown class, taken for the tree's one definition of it (Python).

Stage: inside the look for names left behind (check/left_behind.py), which reads every file of the
tree that spells a removed name (the check's `whole_words`): the semantic check's `uses` asks here
when `targets` had nothing to say (the receiver is another call's result, a local bound twice, a
parameter with no annotation), and its `broken` asks here whether a class with bases lost a member.
Input: the check (semantic._Check), the using file, its reference and symbols, the removals named
there. Output: the removals' (file, class, name) the use means, when sure enough; whether a class's
bases can give a member back.

Why: Python spells no receiver's class. `pretty_text = self.highlighter(pretty_text)`, then
`pretty_text.with_indent_guides(...)`: found driving wtc on Textualize/rich, a task renamed
`Text.with_indent_guides` and merged clean, and the landed tree failed 26 of rich's tests (pretty.py,
syntax.py, the tests and a benchmark called it; Text has a base, JupyterMixin, so even
`t = Text(); t.with_indent_guides()` was let go). A person reads it as the tree reads: one class
defines `with_indent_guides`, Text, and the file imports Text.

Sure enough means all of:
- the profile lists the members objects of the language's own types have (`common_members`) and the
  name is not one, nor a dunder: a list's `append`, a thread's `start` may be what a call means;
- the using file imports the removal's file (directly, or through a re-export of the class);
- the receiver is not a module the file imports whole (`np.anything()` is that module's);
- no file the check holds defines or binds the name at any version but the removal's class (another
  class's method or field, `self.name = ...`), nor writes it some other way (profile `member_writes`:
  `obj.name = ...`, `setattr(obj, "name", ...)`, `{ name: ... }`): the look read every file spelling it;
- the class answers no name at run time (`__getattr__`: profile `any_name`), and each of its bases is
  a class of the tree whose own bases are such, or a base giving no member outside common_members
  (`memberless_bases`: `object`, `Generic`, `Exception`), read to a depth of MAX_DEPTH.
Anything else is unsure, and nothing is said (never a false block on a guess).
"""

from __future__ import annotations

import re
from typing import Any, Iterable

from ..languages.profiles import profile_for_path
from .fields import member_writes
from .symbols import Reference, Symbols, visible_import

# The check that asks (semantic._Check), typed loosely: this module is below semantic.py, which imports it.
_Check = Any
Target = tuple[str, tuple[str, ...], str]
MAX_DEPTH = 6   # bases read up a class's hierarchy, at most
_LEADING = re.compile(r"[A-Za-z_]\w*")
_BASE = re.compile(r"[A-Za-z_][\w.]*")


def applies(path: str) -> bool:
    """Whether `path`'s language reads members this way (its profile lists `common_members` and says
    how a class spells its bases, `class_bases`)."""
    profile = profile_for_path(path)
    return profile is not None and bool(profile.semantic.common_members) and bool(profile.semantic.class_bases)


def sole_member_targets(check: _Check, path: str, reference: Reference, merged: Symbols,
                        removals: Iterable[Any]) -> list[Target]:
    """The removed members `reference` (`x.name(...)`, x of no class the file says) means: those of
    `removals` whose class is the one definer of the name in the tree (see the module docstring)."""
    name, receiver = reference.name, reference.receiver
    rules = profile_for_path(path).semantic   # type: ignore[union-attr]
    if receiver is None or not rules.common_members or name in rules.common_members or name.startswith("__"):
        return []
    head = _LEADING.match(receiver)
    if head is not None and head.group() != "new":
        imported = visible_import(merged, head.group(), reference)
        if imported is not None and imported.name is None and receiver[head.end():head.end() + 1] != "(":
            return []   # a module the file imports whole: its attribute, not a class's member
        if imported is not None and not check.reexports.locate(imported.module, path, rules):
            return []   # a name of a package outside the tree (`axios.create()`): its member
    found: list[Target] = []
    for removal in removals:
        definition = removal.definition
        if definition.name != name or not definition.container:
            continue
        if removal.path != path and removal.path not in check.imported_files(path) \
                and removal.path not in check.reexports.reached(path, {definition.container[0].encode()}):
            continue   # the file does not import the class's module: nothing says it deals in that class
        if sole_definer(check, removal.path, definition.container, name):
            found.append((removal.path, definition.container, name))
    return found


def sole_definer(check: _Check, path: str, container: tuple[str, ...], name: str) -> bool:
    """Whether the class `container` of `path` is the one definer of the member `name` among every file
    the check holds, and no base of it can give the name (cached on the check)."""
    rules = profile_for_path(path).semantic   # type: ignore[union-attr]
    if name in rules.common_members or name.startswith("__"):
        return False   # a base of Python's own types may give it (a dict's `get`)
    key = (path, container, name)
    cache = check.sole_cache
    if key not in cache:
        cache[key] = _no_other_definer(check, path, container, name) and bases_give_nothing(check, path, container)
    return cache[key]


def bases_give_nothing(check: _Check, path: str, container: tuple[str, ...], depth: int = 0) -> bool:
    """Whether the class `container` of `path` (its merged version) and its bases, to MAX_DEPTH, answer
    no name dynamically and give no member but common_members and those the tree's files define."""
    if depth > MAX_DEPTH or len(container) != 1:
        return False   # (a nested class's bases are not followed)
    rules = profile_for_path(path).semantic   # type: ignore[union-attr]
    symbols = _symbols(check, path)
    text = _text(check, path)
    if symbols is None or text is None:
        return False
    if any(d.name in rules.any_name and d.container == container for d in symbols.definitions):
        return False   # `__getattr__`: any name answers
    bases = base_list(text, container[0], rules.class_bases)
    if bases is None:
        return False
    for base in bases:
        last = base.rsplit(".", 1)[-1]
        if last in rules.memberless_bases and (base == last or base.split(".", 1)[0] in ("typing", "abc", "enum", "builtins")):
            continue
        if "." in base:
            return False   # (`models.Model`: a module's class, not followed)
        if any(d.name == base and not d.container and d.kind == "class" for d in symbols.definitions):
            if not bases_give_nothing(check, path, (base,), depth + 1):
                return False
            continue
        imported = next((item for item in symbols.imports if item.bound == base and item.scope is None), None)
        if imported is None or imported.name is None:
            return False
        files = [file for file in check.reexports.locate(imported.module, path, rules)
                 if (found := _symbols(check, file)) is not None
                 and any(d.name == imported.name and not d.container and d.kind == "class" for d in found.definitions)]
        if len(files) != 1 or not bases_give_nothing(check, files[0], (imported.name,), depth + 1):
            return False   # a base outside the tree (a framework's), or re-exported: may give the name
    return True


def _no_other_definer(check: _Check, path: str, container: tuple[str, ...], name: str) -> bool:
    """No file the check holds defines `name` at any version, nor assigns it as an attribute, but the
    class `container` of `path`."""
    for other, versions in check.files.items():
        writes = member_writes(other, name)
        describes = declares_only(other)
        for which in ("base", "left", "right", "merged"):
            data = versions.version(which)
            if data is None or name.encode() not in data:
                continue
            symbols = check.symbols(other, which, uses=False)
            if symbols is None:
                return False   # a version the check cannot read may define it
            if writes is not None and written_outside(writes, data, symbols, container if describes else None):
                return False
            if defines_elsewhere(symbols, other, path, container, name, describes):
                return False
    if check.whole_words or check.spelled is None:
        return True   # (the look: every file spelling the name is held)
    spelling = check.spelled(name)
    if spelling is None:
        return False   # the tree's files spelling it are not known: unsure
    for other in spelling:
        if other in check.files:
            continue   # (read above, at every version)
        data = check.tree_bytes(other)   # a file no side changed: the same in every tree
        if data is None or name.encode() not in data:
            continue
        describes = declares_only(other)
        writes = member_writes(other, name)
        symbols = check.tree_symbols(other)
        if symbols is None or (writes is not None and written_outside(writes, data, symbols, container if describes else None)):
            return False
        if defines_elsewhere(symbols, other, path, container, name, describes):
            return False
    return True


def defines_elsewhere(symbols: Symbols, other: str, path: str, container: tuple[str, ...], name: str,
                       describes: bool = False) -> bool:
    """Whether the file `other` (read as `symbols`) defines `name` but as the class `container` of `path`
    does: another class's method or field, a function, a name bound at its top level. `describes`: the
    file only describes code (a `.d.ts`), and a class of the same name there is the same class."""
    if any(d.name == name and d.kind != "import" and (other, d.container) != (path, container)
           and not (describes and d.container[-1:] == container[-1:]) for d in symbols.definitions):
        return True
    # a field another class binds (`self.name = ...` in its methods)
    return any(name in names and (other, bound) != (path, container) and not (describes and bound[-1:] == container[-1:])
               for bound, names in symbols.bound.items() if bound)


def declares_only(path: str) -> bool:
    """Whether `path` only describes code another file defines (a `.d.ts`: profile `declaration_files`), so
    that a class it declares is the one the removal's file defines, not another definer
    (found driving wtc on tj/commander.js: typings/index.d.ts declares `Option.attributeName()`, and a
    rename of it in lib/option.js merged clean past its 19 uses in lib/)."""
    profile = profile_for_path(path)
    return profile is not None and bool(profile.semantic.declaration_files) and path.endswith(profile.semantic.declaration_files)


def written_outside(writes: re.Pattern[bytes], data: bytes, symbols: Symbols, described: tuple[str, ...] | None) -> bool:
    """Whether `data` writes the member (`writes`, the profile's member_writes) outside the declaration of
    the class `described` (a declaration file's own class: `helpWidth?: number;` in its body)."""
    spans = [(d.start_byte, d.end_byte) for d in symbols.definitions
             if described is not None and d.kind != "import" and d.name == described[-1]]
    return any(not any(start <= found.start() < end for start, end in spans) for found in writes.finditer(data))


def _symbols(check: _Check, path: str) -> Symbols | None:
    if path in check.files:
        return check.symbols(path, "merged", uses=False) if check.files[path].merged is not None else None
    return check.tree_symbols(path)


def _text(check: _Check, path: str) -> bytes | None:
    if path in check.files:
        return check.files[path].merged
    return check.tree_bytes(path)


def base_list(text: bytes, name: str, pattern: str) -> list[str] | None:
    """The bases the one `class name` of `text` spells by the profile's `class_bases` (None where unsure:
    defined twice or not found, an argument list of calls, a metaclass not among them)."""
    found = list(re.finditer(pattern.replace("{name}", re.escape(name)).encode(), text, re.M))
    if len(found) != 1:
        return None
    spelled = (found[0].group(1) or b"").decode("utf-8", "replace")
    bases: list[str] = []
    for part in _split(spelled):
        part = part.strip()
        if not part:
            continue
        if "=" in part:   # a keyword: `metaclass=ABCMeta`, `total=False`
            keyword, _, value = part.partition("=")
            if keyword.strip() == "metaclass" and value.strip().rsplit(".", 1)[-1] not in ("ABCMeta", "EnumMeta", "type"):
                return None
            continue
        spelled_base = re.sub(r"\[.*\]$", "", part, flags=re.S).strip()   # `Generic[T]`
        if not _BASE.fullmatch(spelled_base):
            return None
        bases.append(spelled_base)
    return bases


def _split(spelled: str) -> list[str]:
    """The comma-separated parts of a base list, brackets kept whole (`Generic[K, V]`)."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(spelled):
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(spelled[start:index])
            start = index + 1
    parts.append(spelled[start:])
    return parts
