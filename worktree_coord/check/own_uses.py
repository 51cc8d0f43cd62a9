"""Uses a task left, in the very file it removed a name from, of that name.

Stage: the left-behind look (left_behind.py), for each file whose task version no longer defines a
name its base version defined. Input: that file's path, its task version, the definitions gone from
it (container, name), and its base version's definitions. Output: one SemanticFinding (problem
"broken", removed and used by the task) for each bare use of a gone top-level name the task version
no longer binds, and each read of a gone member through the name of a type the file defines
(`Kind.INTERFACE` in the class nesting the enum Kind: found driving wtc on javapoet's TypeSpec.java).

Why: the look reads the uses in other files, and the merge's check the lines a side added; a use on
an untouched line of the renaming file itself was read by neither. Found driving wtc on Leaflet: a
task renamed `isFlat` to `isFlatLatLngs` in LineUtil.js and left `polylineCenter`'s `isFlat(latlngs)`
two functions below: every face was clean and the landed module threw ReferenceError when called.

How (precision first): only a bare use (`isFlat(x)`, not `obj.isFlat`) of a top-level name, where
the task version binds the name nowhere around the use (no definition, assignment or import of it
at the top, no parameter or local of a function around it, no definition of that name, a method or
a named function expression, holding the use: `f = function f() { off(f) }` in a class, as Leaflet's
Map.TapHold.js has it), and the language resolves a bare name
in the file itself: not where a star import may bring it (`from .x import *`), not in a language
whose directory is its package (Go: another file of the folder may define it), nor, in C, a name
that was not `static` (another file may define it), not inside a class
of a language whose members are in scope (Java), and not a name the language has built in. A
member only where the receiver names a type of the file (not a local of that name), the type still
stands, neither declares the member nor has a base that may give it (a Rust variant: none does), and
no assignment writes it back (`Store.limit = 3` after the class). In a language that reads a class
whole (linked by namespace: C#, PHP), a member of a class with no base is also read through the
class's own receiver (`self::f()`, `$this->f()`, `this.F()`) where no assignment writes it.
"""

from __future__ import annotations

import re
import functools
import posixpath
from typing import Any, Callable, Mapping

from ..merge.checks import namespaces
from ..merge.checks.linked import surely_placed, written_local
from ..merge.checks.reach import spelling
from ..merge.checks.semantic import semantic_profile
from ..merge.checks.symbols import EXPORTS, exports_open, extract
from ..merge.checks.versions import MAX_BYTES
from ..merge.result import SemanticFinding

_WORD = re.compile(r"[A-Za-z_$][\w$]*")


def own_file_uses(path: str, after: bytes, gone: set[tuple[tuple[str, ...], str]], before_symbols: Any,
                  after_symbols: Any = None, before: bytes | None = None,
                  package_top: Callable[[str], bool] | None = None) -> list[SemanticFinding]:
    """The uses in `after` (the task's version of `path`) of the definitions `gone` from it, each a
    (container, name), that `after` no longer binds (module docstring): a top-level name used bare,
    a member read through its type's name; `before_symbols` are the base version's definitions
    (where each name was defined), `after_symbols` the task version's where the caller holds them
    already with their uses (a drain's merge index): else `after` is extracted, only when it
    spells a gone name at all (a rename's file mostly does not: a merge of a drain pays a word
    search, not an extraction). In a linked language (C) only a name `before` (the base version)
    defined for its file alone (`static`) is read: another file may define any other (a header the
    task added, lstate.h taking `typedef struct LX` from lstate.c in lua fa1382b5). `package_top`: whether
    another file of `path`'s package, as the task leaves it, defines a name at its top level (a member
    of a class moved there is still named bare inside it: own_class_calls)."""
    profile = semantic_profile(path)
    if profile is None or not gone or len(after) > MAX_BYTES:
        return []
    rules = profile.semantic
    if rules.package == "linked":
        local = {d.name for d in (before_symbols.definitions if before_symbols is not None and before is not None else ())
                 if not d.container and written_local(path, before, d)   # type: ignore[arg-type]
                 and surely_placed(path, before, d)}   # type: ignore[arg-type]
        # C# (profile `namespaces`): a member of a class declaring no base and no other part
        # (`partial`: both are its `@heritage`) is defined in this file alone.
        owned = {(d.container, d.name) for d in (before_symbols.definitions if before_symbols is not None else ())
                 if d.container and rules.namespaces and d.container not in before_symbols.heritage}  # type: ignore[union-attr]
        gone = {(container, name) for container, name in gone if (not container and name in local) or (container, name) in owned}
    if not gone or rules.package == "directory" or spelling(name.encode() for _, name in gone).search(after) is None:
        return []
    symbols = task_symbols(profile, after, after_symbols)
    if symbols is None:
        return []
    lines = after.split(b"\n")
    where = {(d.container, d.name): d for d in (before_symbols.definitions if before_symbols is not None else ())}
    found = [] if symbols.wildcard else _bare_uses(symbols, {name for container, name in gone if not container},
                                                  rules, lines)
    members = {pair for pair in gone if pair[0]}
    if members and (not symbols.wildcard or rules.members_in_scope):
        found += _member_uses(symbols, members, rules, after, where)
    if members and rules.members_in_scope:
        found += _own_class_calls(symbols, members, rules, package_top)
    out = []
    seen: set[tuple[tuple[str, ...], str, int]] = set()
    for (container, name), reference in found:
        if (container, name, reference.line) in seen:
            continue   # (one line, two uses: `self::f() ? a : static::f()`)
        seen.add((container, name, reference.line))
        out.append(own_finding(rules, path, container, name, reference, where, lines))
    return out


def package_top(path: str, after: bytes, others: Mapping[str, Callable[[], bytes | None]]) -> Callable[[str], bool]:
    """Whether one of `others` (the files the task changed, each its version as the task leaves it,
    read only when asked) of `path`'s package defines a name at its top level: a file of its folder
    in its language, declaring the same namespace where the language has them (Kotlin's `package`,
    C#'s `namespace`; Java's package is its folder). Files the task did not change are not read: a
    name moved out of a class goes to a file the move writes."""
    profile = semantic_profile(path)
    folder = posixpath.dirname(path)
    candidates = [other for other in others if other != path and posixpath.dirname(other) == folder
                  and semantic_profile(other) is profile]
    if profile is None or not candidates:
        return lambda _name: False

    def spans(data: bytes) -> frozenset[str]:
        return frozenset(span[2] for span in namespaces.facts(profile, profile.parse(data), data).spans) \
            if profile.semantic.namespaces else frozenset()

    @functools.lru_cache(maxsize=None)
    def texts() -> tuple[bytes, ...]:   # (read once, at the first bare use asked of)
        home = spans(after)
        return tuple(data for other in candidates if (data := others[other]()) is not None
                     and len(data) <= MAX_BYTES and spans(data) == home)

    def defines(name: str) -> bool:
        word = re.compile(rb"\b" + re.escape(name.encode()) + rb"\b")
        return any(word.search(data) and (found := extract(profile, data, uses=False)) is not None
                   and found.binds((), name) for data in texts())
    return defines


def task_symbols(profile: Any, after: bytes, after_symbols: Any) -> Any:
    """The task version's symbols with their uses: `after_symbols` where the caller holds them so (a
    drain's merge index), else extracted (None: it does not parse)."""
    if after_symbols is not None and after_symbols.references:
        return after_symbols
    try:
        return extract(profile, after)
    except (ValueError, UnicodeDecodeError):
        return None


def own_finding(rules: Any, path: str, container: tuple[str, ...], name: str, reference: Any,
                where: dict[tuple[tuple[str, ...], str], Any], lines: list[bytes]) -> SemanticFinding:
    """The finding of a use, in the task's own version of `path`, of the name (container, name) gone from
    it (`where`: the base version's definitions by (container, name); `lines`: the task version's)."""
    definition = where.get((container, name))
    use = lines[reference.line - 1].decode("utf-8", "replace").strip() if 0 < reference.line <= len(lines) else ""
    return SemanticFinding(name if container == EXPORTS else rules.member_name(container, name),
                           definition.kind if definition is not None else "", path,
                           definition.line if definition is not None else 0, path, reference.line,
                           "task", "task", reference.declaration, "", use)


def _bare_uses(symbols: Any, gone: set[str], rules: Any, lines: list[bytes]) -> list[tuple[tuple[tuple[str, ...], str], Any]]:
    """The bare uses of the top-level names `gone` the file no longer binds around them."""
    if not gone:
        return []
    imported = {item.bound for item in symbols.imports if item.scope is None}
    defined = {d.name for d in symbols.definitions if not d.container}
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    # Definitions of a gone name anywhere in the file (a member now, a named function expression):
    # a use inside one may mean it (`x = function x() { off(x) }`), and nothing is said there.
    spans = [(d.start_byte, d.end_byte) for d in symbols.definitions if d.name in gone]
    found = []
    for reference in symbols.references:
        name = reference.name
        if reference.receiver is not None or name not in gone or name in rules.globals:
            continue
        if name in defined or name in imported or symbols.binds((), name):
            continue
        at = reference.start_byte if reference.start_byte >= 0 else starts[min(reference.line, len(starts)) - 1]
        if any(start <= at < end for start, end in spans):
            continue
        if reference.scopes & symbols.local.get(name, set()):
            continue   # a parameter or local of that name, in a function around the use
        if reference.container and rules.members_in_scope:
            continue   # a member of the class around it may answer it
        found.append((((), name), reference))
    return found


def _member_uses(symbols: Any, gone: set[tuple[tuple[str, ...], str]], rules: Any, after: bytes,
                 where: dict[tuple[tuple[str, ...], str], Any]) -> list[tuple[tuple[tuple[str, ...], str], Any]]:
    """The reads through a type's name (`Color.RED`, `Kind.INTERFACE` in the class nesting Kind,
    Rust's `Color::Red`) of the members `gone` from a type the file itself defines, where the type
    still stands and neither declares nor inherits the member: javac, rustc or the first call fails
    there. Found driving wtc on javapoet: TypeSpec.Kind's constant renamed left TypeSpec's own
    `Kind.INTERFACE`, which no face named."""
    found = []
    names = {name for _, name in gone}
    for reference in symbols.references:
        receiver = reference.receiver
        if receiver is None or reference.name not in names:
            continue
        if receiver in rules.export_receivers:
            # `types.map(exports.normalizeType)` (express's lib/utils.js): the file's own export, gone
            # where nothing else exports names (`module.exports = makeApi()`) and no local hides `exports`
            if exports_open(symbols) or reference.scopes & symbols.local.get(receiver.split(".", 1)[0], set()):
                continue
            container, parts = EXPORTS, (receiver,)
        elif receiver in rules.self_receivers:
            # `self::f()`, `$this->f()` (PHP), `this.F()` (C#): the class around the use, where a
            # language reads each class whole (linked, by namespace) and so no other file gives
            # it a member (`gone` holds only members of classes with no base or other part).
            # Found on composer: Platform::isWindows renamed left its own four `self::isWindows()`.
            if not (rules.package == "linked" and rules.namespaces) or not reference.container:
                continue
            container, parts = reference.container, (receiver,)
        else:
            parts = tuple(receiver.replace(rules.member_separator, ".").split("."))
            if not all(_WORD.fullmatch(part) for part in parts) or reference.scopes & symbols.local.get(parts[0], set()):
                continue   # an expression, or a parameter or local of the receiver's name
            found_type = _type_named(symbols, reference.container if rules.members_in_scope else (), parts)
            if found_type is None:
                continue
            container = found_type
        if (container, reference.name) not in gone or symbols.binds(container, reference.name):
            continue
        definition = where.get((container, reference.name))
        if container in symbols.heritage and not (definition is not None and definition.kind in rules.own_kinds):
            continue   # a base may give it
        # `Store.limit = 3` after the class: an assignment defines the member again (JavaScript, Python)
        assigned = re.compile(rb"(?<![\w$])" + re.escape(parts[-1].encode()) + rb"\s*(?:\.|::|->)\s*"
                              + re.escape(reference.name.encode()) + rb"\s*=(?!=)")
        if assigned.search(after) is None:
            found.append(((container, reference.name), reference))
    return found


def _own_class_calls(symbols: Any, gone: set[tuple[tuple[str, ...], str]], rules: Any,
                     package_top: Callable[[str], bool] | None = None) -> list[tuple[tuple[tuple[str, ...], str], Any]]:
    """The calls of members `gone` from a class, inside that class, bare or through `this` (`padWidth(c)`,
    `this.padWidth(c)`), in a language that resolves them where it compiles (Java, C#: profile
    `members_in_scope`): where neither the class nor a class around it still declares the name, none of
    them declares a base (`@heritage`: C#'s `partial` too) that may give it, and no static import may
    bring it, javac or csc fails there. Found driving wtc on commander.js, then asked of Java and C#: a
    method renamed in its class left the class's own calls of it, and no face named them. A bare use
    the package's top level answers is no such call: a nested class moved out of its class, to the
    file's top or another file of the package (`package_top`), is named bare as before (Kotlin: okhttp
    d86233eb4547 moved DnsMessageReader's DnsMessage, Question, ResourceRecord to DnsMessage.kt)."""
    found = []
    names = {name for _, name in gone}
    static = {item.bound for item in symbols.imports}
    for reference in symbols.references:
        container, name, receiver = reference.container, reference.name, reference.receiver
        if name not in names or not container or (container, name) not in gone or name in rules.all_members:
            continue
        if receiver is not None and receiver not in rules.self_receivers:
            continue
        around = [container[:depth] for depth in range(1, len(container) + 1)]
        if any(symbols.binds(outer, name) or outer in symbols.heritage for outer in around):
            continue   # still declared around the call, or a base may give it
        if receiver is None and (name in static or symbols.wildcard or reference.scopes & symbols.local.get(name, set())):
            continue   # a static import, a star import, a local of that name may answer a bare call
        if receiver is None and (symbols.binds((), name) or (package_top is not None and package_top(name))):
            continue   # the package's top-level name of that spelling answers it
        found.append(((container, name), reference))
    return found


def _type_named(symbols: Any, around: tuple[str, ...], parts: tuple[str, ...]) -> tuple[str, ...] | None:
    """The container of the file a receiver names (`("Color",)` for `Color`, `("TypeSpec", "Kind")` for
    `Kind` read inside TypeSpec, whose members are in scope there: `around`, the containers around
    the use, innermost first), or None: it names no type the file defines."""
    for depth in range(len(around), -1, -1):
        container = around[:depth] + parts
        if container in symbols.bound and symbols.binds(container[:-1], container[-1]):
            return container
    return None
