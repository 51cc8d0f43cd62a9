"""Which namespace a definition stands in, and whether a use in another file sees it (C#, PHP, Kotlin).

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
would read as left behind. A name imported by name (`using X = N.T;`, Kotlin's `import a.b.C [as D]`:
`named`) is seen under the name it binds, and an alias heading a receiver is spelled out (`X.F()` is
`N.T.F()`: `unaliased`). Unsure cases see nothing (precision first): a `global using` in a file the
merge does not read.

Kotlin's packages are namespaces that do not nest (profile `namespaces_nest = false`): a file of
package `a.b` sees its own package's names, those it imports by `import a.c.*` and those it imports
one by one (`import a.c.Store`, `@using.name`: then `Store.create()` too), and a name spelled with its
package is spelled whole (`a.c.Store()`). A name imported by name hides the same name of a namespace
imported whole (C#: its alias, a star's in Kotlin) and, where namespaces do not nest, of the file's
own package, as Kotlin resolves it (C# looks in the enclosing namespaces first).

PHP's namespaces are read here too (`\\` joins their parts, read as `.`; `namespace A;` holds up to
the next such statement); which name a PHP use means is name_imports.py's to say (its `use` clauses
import names one by one, by kind and case-insensitively: `@use`, `imported`; `by_name`).
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Iterable

import tree_sitter

from ...frozen import value_class
from .name_imports import NameImport, clause

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
    # (whole name, name bound) of each name imported by name: C#'s `using X = N.T;`, Kotlin's
    # `import a.b.C [as D]` (`@using.name`, with `@using.alias` where it binds another name)
    named: tuple[tuple[str, str], ...] = ()
    nest: bool = True                             # a namespace sees those around it (C#, PHP); Kotlin's packages do not
    name_starts: tuple[int, ...] = ()             # where each span's name is spelled (its parts' definitions start there)
    imported: tuple[NameImport, ...] = ()         # PHP's `use` clauses (`@use`): names imported one by one


@functools.lru_cache(maxsize=None)
def namespaces_query(profile: "Profile") -> tree_sitter.Query:
    """The profile's `namespaces` query, compiled once."""
    return tree_sitter.Query(profile.language, profile.semantic.namespaces)


def _spelled(data: bytes, node: tree_sitter.Node) -> str:
    """A namespace's name as the checks join names: spaces out, PHP's `\\` read as `.`."""
    return _dotted(data[node.start_byte:node.end_byte].decode("utf-8", "replace"))


def _dotted(text: str) -> str:
    return _SPACE.sub("", text).lstrip("\\").replace("\\", ".")


@functools.lru_cache(maxsize=None)
def by_name(profile: "Profile") -> bool:
    """Whether the profile's `use` clauses import names one by one (PHP: its query captures `@use`)."""
    if not profile.semantic.namespaces:
        return False
    query = namespaces_query(profile)
    return any(query.capture_name(index) == "use" for index in range(query.capture_count))


def facts(profile: "Profile", tree: tree_sitter.Tree, data: bytes) -> NamespaceFacts:
    """What the version `data` (parsed as `tree`) declares and imports, by the profile's query."""
    found = []
    rest: list[int] = []   # where each `namespace A;` statement starts: one holds up to the next
    usings: list[tuple[str, int]] = []
    global_usings: set[str] = set()
    static_usings: set[str] = set()
    named: dict[tuple[str, str], None] = {}   # (an ordered set)
    nest = profile.semantic.namespaces_nest
    clauses: list[tree_sitter.Node] = []
    for _, captures in tree_sitter.QueryCursor(namespaces_query(profile)).matches(tree.root_node):
        names = captures.get("namespace.name", [])
        for key in ("namespace", "namespace.rest"):
            for node in captures.get(key, []):
                if names:
                    end = len(data) if key == "namespace.rest" else node.end_byte
                    found.append((node.start_byte, end, _spelled(data, names[0]), names[0].start_byte))
                    if key == "namespace.rest":
                        rest.append(node.start_byte)
        usings.extend((_spelled(data, node), node.start_byte) for node in captures.get("using", []))
        global_usings.update(_spelled(data, node) for node in captures.get("using.global", []))
        static_usings.update(_spelled(data, node) for node in captures.get("using.static", []))
        for node in captures.get("using.name", []):
            whole, alias = _spelled(data, node), captures.get("using.alias", [])
            named[(whole, _spelled(data, alias[0]) if alias else whole.rsplit(".", 1)[-1])] = None
        clauses.extend(captures.get("use", []))
    rest.sort()
    spans: list[tuple[int, int, str, str]] = []
    name_starts: list[int] = []
    for start, end, spelled, name_start in sorted(found, key=lambda span: (span[0], -span[1])):
        if start in rest:
            end = next((later for later in rest if later > start), end)
        outer = enclosing_spans(spans, start) if nest else ""
        spans.append((start, end, _joined(outer, spelled), spelled))
        name_starts.append(name_start)
    imported_names = tuple(item for node in clauses
                           if (item := clause(node, data, enclosing_spans(spans, node.start_byte))) is not None)
    imported = {spelled for spelled, _ in usings if spelled not in static_usings}
    if nest:
        # (`namespace A { using B; }` may import A.B: a using reads its namespace's names first)
        imported.update(_joined(scope, spelled) for spelled, at in usings if spelled not in static_usings
                        for scope in outward(enclosing_spans(spans, at)))
    # (`import a.b.*` read as a name `b` of `a` imported too: a star import is no named one)
    return NamespaceFacts(tuple(spans), frozenset(imported), frozenset(global_usings), frozenset(static_usings),
                          tuple(pair for pair in named if pair[0] not in imported), nest, tuple(name_starts),
                          imported_names)


def unaliased(found: NamespaceFacts, receiver: str) -> str:
    """`receiver` with an alias at its head spelled out (`Acme.Core.Store.Inner` of `X.Inner` after
    `using X = Acme.Core.Store;`, `a.b.Store.create` of `S.create` after Kotlin's `import a.b.Store as
    S`); unchanged where its head is no alias (a name imported under its own name is read by `sees`)."""
    head, dot, rest = receiver.partition(".")
    for whole, bound in found.named:
        if bound == head and whole.rsplit(".", 1)[-1] != bound:
            return whole + dot + rest
    return receiver


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
            # (the part's text from where the name is spelled: C#'s part is a node spanning `A.B`,
            # PHP's and Kotlin's the word `B` alone of `A\B`, of `package A.B`)
            name_start = min(found.name_starts[index], start) if index < len(found.name_starts) else start
            return outer + _dotted(data[name_start:end].decode("utf-8", "replace"))
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
    if any(imported == bound and spelled != whole for spelled, imported in use.named) \
            and not (use.nest and definition_namespace in scopes):
        # (a name imported by name hides a whole namespace's of that name, and Kotlin's own package's;
        # C# looks in the namespaces around the use before the file's aliases)
        return False
    if definition_namespace in scopes or definition_namespace in use.usings or definition_namespace in global_usings:
        return True
    if (whole, bound) in use.named:
        return True
    return member_of is not None and _joined(definition_namespace, member_of) in use.static_usings


def declared(names: set[str], texts: Iterable[tuple[str, bytes | None]], keyword: str = "namespace") -> set[str]:
    """The namespaces among `names` (whole names) that one of `texts` ((path, bytes) pairs, read
    lazily and only until every name is found) declares: `namespace A.B` (PHP's `namespace A\\B`) or
    a namespace nested in it by name (`namespace A.B.C`), in a block or file-scoped (`keyword`: the
    profile's `namespace_keyword`, Kotlin's `package`)."""
    patterns = {name: re.compile(rb"\b" + re.escape(keyword.encode()) + rb"\s+\\?"
                                 + rb"\s*[.\\]\s*".join(re.escape(part.encode()) for part in name.split(".")) + rb"(?!\w)")
                for name in names}
    found: set[str] = set()
    for _path, data in texts:
        if found == names:
            break
        if data is not None:
            found.update(name for name, pattern in patterns.items() if name not in found and pattern.search(data))
    return found
