"""Which namespace a definition stands in, and whether a use in another file sees it (C#).

Stage: asked by the post-merge semantic check (semantic.py) of a use that reaches a definition of
another file of a linked language whose profile has a `[semantic] namespaces` query. Input: the
profile, a version's tree and bytes. Output: the version's namespaces (their spans and whole
names) and the namespaces its `using` directives import (`NamespaceFacts`); `sees` answers whether
a use sees a definition.

Why: C#'s names are reached by namespace, not by file. Every file of a project is one compilation
(linked.py's package), but a type of namespace `N` is seen only by a use inside `N` (or a namespace
nested in it), in a file that imports `N` (`using N;`, or a `global using N;` in any file), or that
spells it (`N.T`, `using static N.T;`). A type `Timer` the repository removed from its own
namespace is not the `Timer` a file importing `System.Threading` uses: without this, every such use
would read as left behind. Unsure cases see nothing (precision first): an alias (`using X = N;`),
a `global using` in a file the merge does not read.

Kotlin's packages are namespaces that do not nest (profile `namespaces_nest = false`): a file of
package `a.b` sees its own package's names, those it imports by `import a.c.*` and those it imports
one by one (`import a.c.Store`, `@using.name`: then `Store.create()` too), and a name spelled with its
package is spelled whole (`a.c.Store()`); an explicit import of a name hides its own package's
(and a star import's) of that name, as Kotlin resolves it.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Iterable

import tree_sitter

from ...frozen import value_class

if TYPE_CHECKING:
    from ..languages.profiles import Profile

_SPACE = re.compile(r"\s+")


@value_class
class NamespaceFacts:
    """A version's namespaces, each (start, end, whole name, name as spelled), outermost first, and
    the namespaces it imports (each `using` also as its enclosing namespaces would read it)."""

    spans: tuple[tuple[int, int, str, str], ...] = ()
    usings: frozenset[str] = frozenset()
    global_usings: frozenset[str] = frozenset()
    static_usings: frozenset[str] = frozenset()   # the types `using static N.T;` imports the members of
    named: frozenset[tuple[str, str]] = frozenset()   # (whole name, name bound) of each `import a.b.C [as D]` (Kotlin)
    nest: bool = True                             # a namespace sees those around it (C#); Kotlin's packages do not
    name_starts: tuple[int, ...] = ()             # where each span's name starts (a part of it is a definition: Kotlin)


@functools.lru_cache(maxsize=None)
def namespaces_query(profile: "Profile") -> tree_sitter.Query:
    """The profile's `namespaces` query, compiled once."""
    return tree_sitter.Query(profile.language, profile.semantic.namespaces)


def _spelled(data: bytes, node: tree_sitter.Node) -> str:
    return _SPACE.sub("", data[node.start_byte:node.end_byte].decode("utf-8", "replace"))


def facts(profile: "Profile", tree: tree_sitter.Tree, data: bytes) -> NamespaceFacts:
    """What the version `data` (parsed as `tree`) declares and imports, by the profile's query."""
    found = []
    usings: list[tuple[str, int]] = []
    global_usings: set[str] = set()
    static_usings: set[str] = set()
    named: set[tuple[str, str]] = set()
    nest = profile.semantic.namespaces_nest
    for _, captures in tree_sitter.QueryCursor(namespaces_query(profile)).matches(tree.root_node):
        names = captures.get("namespace.name", [])
        for key in ("namespace", "namespace.rest"):
            for node in captures.get(key, []):
                if names:
                    end = len(data) if key == "namespace.rest" else node.end_byte
                    found.append((node.start_byte, end, _spelled(data, names[0]), names[0].start_byte))
        usings.extend((_spelled(data, node), node.start_byte) for node in captures.get("using", []))
        global_usings.update(_spelled(data, node) for node in captures.get("using.global", []))
        static_usings.update(_spelled(data, node) for node in captures.get("using.static", []))
        for node in captures.get("using.name", []):
            whole, alias = _spelled(data, node), captures.get("using.alias", [])
            named.add((whole, _spelled(data, alias[0]) if alias else whole.rsplit(".", 1)[-1]))
    spans: list[tuple[int, int, str, str]] = []
    starts: list[int] = []
    for start, end, spelled, name_start in sorted(found, key=lambda span: (span[0], -span[1])):
        outer = enclosing_spans(spans, start) if nest else ""
        spans.append((start, end, _joined(outer, spelled), spelled))
        starts.append(name_start)
    imported = {spelled for spelled, _ in usings if spelled not in static_usings}
    if nest:
        # (`namespace A { using B; }` may import A.B: a using reads its namespace's names first)
        imported.update(_joined(scope, spelled) for spelled, at in usings if spelled not in static_usings
                        for scope in outward(enclosing_spans(spans, at)))
    # (`import a.b.*` read as a name `b` of `a` imported too: a star import is no named one)
    named = {(whole, bound) for whole, bound in named if whole not in imported}
    return NamespaceFacts(tuple(spans), frozenset(imported), frozenset(global_usings), frozenset(static_usings),
                          frozenset(named), nest, tuple(starts))


def enclosing_spans(spans: list[tuple[int, int, str, str]] | tuple[tuple[int, int, str, str], ...], offset: int) -> str:
    """The whole name of the innermost namespace holding `offset` ("" for the global namespace)."""
    inner = ""
    for start, end, name, _ in spans:
        if start <= offset < end:
            inner = name
    return inner


def enclosing(found: NamespaceFacts, offset: int) -> str:
    return enclosing_spans(found.spans, offset)


def defined_in(found: NamespaceFacts, data: bytes, start: int, end: int, kind: str) -> str:
    """The namespace a definition spanning `start`..`end` stands in; for a namespace (`kind`), the
    whole name it defines: `A.B` for the `B` of `namespace A.B.C` (a definition of each part)."""
    if kind != "namespace":
        return enclosing(found, start)
    for index in range(len(found.spans) - 1, -1, -1):
        span_start, span_end, name, spelled = found.spans[index]
        if span_start <= start < span_end:
            if span_start == start:
                return name
            outer = name[:len(name) - len(spelled)]
            # (a definition of one part of the name, Kotlin's `b` of `package a.b.c`, names it from its start)
            name_start = min(start, found.name_starts[index]) if index < len(found.name_starts) else start
            return outer + _SPACE.sub("", data[name_start:end].decode("utf-8", "replace"))
    return ""


def outward(name: str) -> list[str]:
    """`A.B` and the namespaces around it: ["A.B", "A", ""]."""
    parts = name.split(".") if name else []
    return [".".join(parts[:count]) for count in range(len(parts), -1, -1)]


def _joined(scope: str, name: str) -> str:
    return f"{scope}.{name}" if scope and name else scope or name


def sees(definition_namespace: str, kind: str, name: str, member_of: str | None, use: NamespaceFacts,
         at: int, qualifier: str | None, global_usings: frozenset[str]) -> bool:
    """Whether a use at byte `at` of a version (`use`) sees a definition `name` (of `kind`, a member
    of the type `member_of` or a type itself) that stands in `definition_namespace`. `qualifier`: what
    the use spells before the type (`N` of `N.T`, `N.T.m()`), None when bare."""
    own = enclosing(use, at)
    scopes = outward(own) if use.nest else [own]
    qualified = scopes if use.nest else [""]   # (Kotlin: a package is spelled whole, from the root)
    if kind == "namespace":
        spelled = _joined(qualifier or "", name)
        return any(_joined(scope, spelled) == definition_namespace for scope in qualified)
    if qualifier:
        return any(_joined(scope, qualifier) == definition_namespace for scope in qualified)
    bound = member_of if member_of is not None else name   # the name the use spells first (`Store` of `Store.create()`)
    whole = _joined(definition_namespace, bound)
    if any(imported == bound and spelled != whole for spelled, imported in use.named):
        return False   # (Kotlin: an explicit import of another `bound` hides the package's and a star's)
    if definition_namespace in scopes or definition_namespace in use.usings or definition_namespace in global_usings:
        return True
    if (whole, bound) in use.named:
        return True
    return member_of is not None and _joined(definition_namespace, member_of) in use.static_usings


def declared(names: set[str], texts: Iterable[tuple[str, bytes | None]], keyword: str = "namespace") -> set[str]:
    """The namespaces among `names` (whole names) that one of `texts` ((path, bytes) pairs, read
    lazily and only until every name is found) declares: `namespace A.B` or a namespace nested in
    it by name (`namespace A.B.C`), in a block or file-scoped (`keyword`: the profile's
    `namespace_keyword`, Kotlin's `package`)."""
    patterns = {name: re.compile(rb"\b" + re.escape(keyword.encode()) + rb"\s+"
                                 + rb"\s*\.\s*".join(re.escape(part.encode()) for part in name.split(".")) + rb"(?!\w)")
                for name in names}
    found: set[str] = set()
    for _path, data in texts:
        if found == names:
            break
        if data is not None:
            found.update(name for name, pattern in patterns.items() if name not in found and pattern.search(data))
    return found
