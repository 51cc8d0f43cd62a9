"""What one version of a file defines, binds, imports and references: the semantic check's input.

Stage: extraction, for the post-merge semantic check (semantic.py). Input: a profile whose
`[semantic]` rules are enabled and the bytes of one file version. Output: `Symbols`.
How: the tags queries the grammar wheels ship (`queries/tags.scm`: `@definition.<kind>` and
`@reference.<kind>`, each with a `@name`), plus the profile's own patterns (`@binding`, `@field`,
`@import.*`, `@heritage`, `@typed.*`), run once over the tree; each capture is then placed by walking up to the enclosing
definitions: a definition inside a function-like one (function, method, macro) is local, one
inside a class-like one (or a profile `scopes` node, like a Rust `impl`) is a member of it, else
it is top level.
Invariants: nothing language-specific here, only the profile's data; a language's query is
compiled on first use and cached; a name the check cannot place is left out (never guessed), so an
unplaceable reference can only cost a finding, never invent one.
"""

from __future__ import annotations

import bisect
import functools
import re
import threading
from collections import OrderedDict
from dataclasses import field
from operator import itemgetter

import tree_sitter

from ...errors import ConfigError
from ...frozen import value_class
from ..languages.profiles import Profile, SemanticRules
from .macro_words import token_uses

# Capture kinds (`@definition.<kind>`) whose body is code that runs when called: names defined or
# bound inside are local. Other definition kinds that can hold definitions are containers of members.
FUNCTION_KINDS = frozenset({"function", "method", "macro"})
CONTAINER_KINDS = frozenset({"class", "interface", "module", "type", "enum", "struct", "trait", "union"})
_WORD = re.compile(r"[A-Za-z_$][\w$]*\Z")
_LEADING_WORD = re.compile(rb"[A-Za-z_$][\w$]*")
_ANY_WORD = re.compile(r"[\w$]")
_ACCESSORS = {b"", b".", b"::", b"->", b"?.", b"!.", b"?->"}   # (PHP's nullsafe `$x?->m()`)
_JOINING = _ACCESSORS - {b""}   # what joins two words of one path (words side by side are two things)

Container = tuple[str, ...]

# The names a module exports (the profile's `@export.*` captures), held as members of this container:
# in a language where only exports can be imported (JavaScript, TypeScript), a name dropped from
# `export { a, b }` is gone for its importers although the file still defines it for itself. No
# language spells a type `<exports>`, so it is never a class's name.
EXPORTS: Container = ("<exports>",)
OPEN_EXPORTS = "*"   # bound in EXPORTS when the file exports names the query cannot list (`module.exports = f()`)


def exports_closed(symbols: "Symbols") -> bool:
    """Whether `symbols` lists every name its file exports: it exports some, all of them spelled."""
    exported = symbols.bound.get(EXPORTS)
    return bool(exported) and OPEN_EXPORTS not in exported


def exports_open(symbols: "Symbols") -> bool:
    """Whether the file exports names its symbols cannot list (a value assigned to `module.exports`)."""
    return OPEN_EXPORTS in symbols.bound.get(EXPORTS, ())


class Definition(tuple):
    """A name defined at top level (`container` empty) or as a member of `container`: `name`,
    `kind`, `container`, `line` (1-based, of the name), `start_byte` and `end_byte` (the whole
    definition). A tuple of those, compared and hashed as the frozen dataclass it was (the same
    tuple of its fields), so sets of them order alike; a tuple because a drain loads ~200 of them
    a merge with a finished task's facts (merge_index.py), and a tuple is rebuilt by the unpickler
    in C (`tuple.__new__`), where a dataclass's state is set field by field: 0.56x the unpickling
    of a bench_merge task's row ("Cost of a merge")."""

    __slots__ = ()
    # (as a named tuple's: dataclasses.asdict of a Symbols rebuilds each by its fields)
    _fields = ("name", "kind", "container", "line", "start_byte", "end_byte")

    def __new__(cls, name: str, kind: str, container: Container, line: int, start_byte: int,
                end_byte: int) -> "Definition":
        return tuple.__new__(cls, (name, kind, container, line, start_byte, end_byte))

    def __reduce__(self) -> tuple:
        return tuple.__new__, (Definition, tuple(self))

    def __eq__(self, other: object) -> bool:
        # (a Definition equals no plain tuple, as the dataclass did not)
        return other.__class__ is Definition and tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = tuple.__hash__

    def __repr__(self) -> str:
        return ("Definition(name=%r, kind=%r, container=%r, line=%r, start_byte=%r, end_byte=%r)"
                % tuple(self))

    name: str = property(itemgetter(0))   # type: ignore[assignment]
    kind: str = property(itemgetter(1))   # type: ignore[assignment]
    container: Container = property(itemgetter(2))   # type: ignore[assignment]
    line: int = property(itemgetter(3))   # type: ignore[assignment]
    start_byte: int = property(itemgetter(4))   # type: ignore[assignment]
    end_byte: int = property(itemgetter(5))   # type: ignore[assignment]


def definition_node(tree: tree_sitter.Tree | None, definition: Definition) -> tree_sitter.Node | None:
    """The node of `tree` spanning exactly `definition`'s bytes (None: no tree, or no such node)."""
    if tree is None:
        return None
    node = tree.root_node.descendant_for_byte_range(definition.start_byte, definition.end_byte)
    if node is None or (node.start_byte, node.end_byte) != (definition.start_byte, definition.end_byte):
        return None
    return node


@value_class
class Reference:
    """A use of a name: `receiver` is the text before it (`util` in `util.parse()`), None when bare."""

    name: str
    kind: str
    receiver: str | None
    container: Container          # the enclosing classes (members' owners) at the use
    scopes: frozenset[int]        # ids of the enclosing function-like definitions
    line: int
    declaration: str              # where it stands: "class C > method run"
    selves: frozenset[str] = frozenset()   # receiver names that mean the enclosing type (Go's `s` of `func (s *S)`)
    start_byte: int = -1                   # where the name stands (signatures.py finds its call from it)


@value_class
class Import:
    """One imported name: `bound` is the name it has here, `name` None for a whole module."""

    bound: str
    module: str
    name: str | None
    scope: int | None             # the function-like definition it sits in; None at top level or in a class
    line: int = 0                 # 1-based line of the bound name (or the module, when that is all there is)


@value_class(frozen=False)
class Symbols:
    definitions: list[Definition] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)
    bound: dict[Container, set[str]] = field(default_factory=dict)   # names bound per container, () = top
    local: dict[str, set[int]] = field(default_factory=dict)         # name -> function scopes binding it
    imports: list[Import] = field(default_factory=list)
    # The fields a class binds on its instances (`self.limit = n` in a method: profile `@field`), each
    # as a member definition of kind "field" at its binding: bound (above) for what answers a read,
    # and listed here apart from `definitions` (which the duplicate and misplaced checks read: a field
    # bound in two methods is one field) for what a side can remove (semantic.py `removals`).
    fields: list[Definition] = field(default_factory=list)
    wildcard: bool = False                                           # a top-level star import/re-export
    star_modules: list[str] = field(default_factory=list)            # the modules those name (`./util`, `.util`)
    star_spans: list[tuple[int, int]] = field(default_factory=list)  # each one's `*` (its bytes), in that order
    heritage: set[Container] = field(default_factory=set)            # containers that declare bases
    # name -> {scope (None: top level) -> the type the file spells for it}: every binding of the name
    # in that scope is a profile `@typed.name` of the same `@typed.type` (`c *cobra.Command`)
    local_types: dict[str, dict[int | None, str]] = field(default_factory=dict)
    # (class, member, called) -> the type a class's static member is declared of: a field's (called
    # False, `TypeName.INT`), a method's return (called True, `CodeBlock.builder()`); "" where two
    # declarations of one name (overloads) spell two types (profile `@typed.static`, `@typed.returns`)
    member_types: dict[tuple[Container, str, bool], str] = field(default_factory=dict)
    # Modules the file reads by spelling their path, not by an import: through a module it imports at
    # its top (`click.utils` of `click.utils.f()` after `import click`), or whole (Java's
    # `com.x.util.Util.f()`): imported too, for what may reach them (_add_spelled_modules)
    spelled_modules: list[str] = field(default_factory=list)

    def binds(self, container: Container, name: str) -> bool:
        return name in self.bound.get(container, ())

    def bind(self, container: Container, name: str) -> None:
        self.bound.setdefault(container, set()).add(name)


@functools.lru_cache(maxsize=None)
def _tags_text(wheel: str) -> str:
    from ..languages.grammar_wheels import query_text   # read from the wheel's folder, its __init__ not run

    try:
        return query_text(wheel, "tags.scm")
    except (ImportError, FileNotFoundError, OSError) as error:
        raise ConfigError(f"grammar wheel {wheel!r} ships no queries/tags.scm ({error})",
                          fix="name another wheel in the profile's semantic.tags, or write the patterns "
                              "in semantic.query") from None


def query_for(profile: Profile, uses: bool = True, imports: bool = False) -> tree_sitter.Query:
    """The profile's semantic query (the wheels' tags, then its own patterns), compiled once; with
    uses=False only the patterns that define (definitions, imports, heritage): what a version needs
    when only the names it defines are asked for; with `imports` only those of imports (does a
    file import anything at all?)."""
    # One cache entry per query, however the call spells it: `query_for(p)` and `query_for(p, True)`
    # were two entries of the cache, and a finish compiled Python's full query twice (~13 ms each).
    return _query(profile, bool(uses) and not imports, bool(imports))


def compile_queries(profile: Profile) -> None:
    """Compile now, and keep, every query of `profile` a check can ask for (and its fingerprint).
    `wtc serve` does this for each profile before it forks its calls, so no call compiles one: a
    served finish compiled Python's (~40 ms of its CPU), a TypeScript file's take ~300 ms."""
    for uses, imports in ((True, False), (False, False), (False, True)):
        query_for(profile, uses, imports)
    if profile.semantic.hidden_names:
        hidden_query(profile)
    if profile.semantic.specifiers:
        specifiers_query(profile)
    if profile.semantic.guards:
        guards_query(profile)
    if profile.semantic.silent:
        silent_query(profile)
    fingerprint(profile)
    if profile.semantic.namespaces:
        from .namespaces import namespaces_query
        namespaces_query(profile)
    if profile.semantic_reading is not profile:
        compile_queries(profile.semantic_reading)   # (the profile the check reads with: C#'s masks)


@functools.lru_cache(maxsize=None)
def _query(profile: Profile, uses: bool, imports: bool) -> tree_sitter.Query:
    if imports:
        query = _compile(profile, b"\n".join(p for p in _pattern_texts(profile) if _imports_pattern(p)).decode("utf-8"))
        _IMPORTS_COMPILED.add(profile)
        return query
    if not uses:
        # Only the defining patterns, compiled from their own text: a query's compile time grows with
        # its patterns (TypeScript's full query takes ~100 ms), and a merge driver process pays it.
        return _compile(profile, b"\n".join(_defining_patterns(profile)).decode("utf-8"))
    return _compile(profile, _extraction_text(profile))


# Profiles whose imports-only query this process compiled (an imports-only extraction asks it
# whether a file imports, then). One left here after `_query.cache_clear()` only costs that
# query's compile again, never an answer.
_IMPORTS_COMPILED: set[Profile] = set()


def _imports_pattern(pattern: bytes) -> bool:
    """Whether a pattern of the full query is one of the imports-only query's."""
    return b"@import." in pattern or b"guarded" in pattern or b"@raises" in pattern


def _defining_patterns(profile: Profile) -> list[bytes]:
    """The full query's patterns that define (definitions, imports, heritage, exports, guards), in
    its order: the defining query's (`query_for(profile, False)`) pattern i is the i-th of these."""
    return [p for p in _pattern_texts(profile) if any(mark in p for mark in (b"@definition.", b"@import.", b"@heritage",
                                                                              b"@export.", b"@field", b"guarded", b"@raises"))]


@functools.lru_cache(maxsize=None)
def _import_places(profile: Profile) -> frozenset[int] | None:
    """The indexes, in the defining query, of the imports-only query's patterns (each of those is
    a defining pattern too); None when that query does not hold one pattern per text (never seen:
    then the imports-only query answers)."""
    defining = _defining_patterns(profile)
    if query_for(profile, False).pattern_count != len(defining):
        return None
    return frozenset(i for i, pattern in enumerate(defining) if _imports_pattern(pattern))


PATTERNS_CACHE = "query-patterns-v1"   # folder under the user's state folder (kept_on_disk.py)


@functools.lru_cache(maxsize=None)
def _pattern_texts(profile: Profile) -> tuple[bytes, ...]:
    """The texts of the full query's top-level patterns (`_extraction_text`: the guards are a query
    of their own), as tree-sitter bounds them. Finding the
    bounds takes compiling the full query (13 ms for Python's, ~100 ms for TypeScript's), which a
    `task finish` process otherwise pays only for this split: the bounds are kept on disk, keyed by
    the query text and this module's code and tree-sitter's version (`_code_fingerprint`), and a
    file that does not read back as bounds of this text is ignored (computed and written again)."""
    import json

    from ...kept_on_disk import keep, kept_path, read_kept

    encoded = _extraction_text(profile).encode("utf-8")
    path = kept_path(PATTERNS_CACHE, (encoded, _code_fingerprint()), ".json")
    try:
        bounds = json.loads(read_kept(path) or "null")
        if isinstance(bounds, list) and bounds and all(
                isinstance(b, list) and len(b) == 2 and all(type(x) is int for x in b) and 0 <= b[0] < b[1] <= len(encoded)
                for b in bounds):
            return tuple(encoded[start:end] for start, end in bounds)
    except ValueError:
        pass   # not what this code wrote: computed and written again
    full = query_for(profile)
    bounds = [[full.start_byte_for_pattern(i), full.end_byte_for_pattern(i)] for i in range(full.pattern_count)]
    keep(path, json.dumps(bounds))
    return tuple(encoded[start:end] for start, end in bounds)


@functools.lru_cache(maxsize=None)
def hidden_query(profile: Profile) -> tree_sitter.Query:
    """The profile's `hidden_names` query (names the parse does not place), compiled once."""
    return _compile(profile, profile.semantic.hidden_names)


@functools.lru_cache(maxsize=None)
def silent_query(profile: Profile) -> tree_sitter.Query:
    """The profile's `silent` query (nodes no name inside is a use in), compiled once."""
    return _compile(profile, profile.semantic.silent)


def _silent_spans(profile: Profile, tree: tree_sitter.Tree) -> tuple[list[int], list[int]]:
    """The (starts, ends) of the outermost `@silent` nodes of `tree`, in order."""
    nodes = tree_sitter.QueryCursor(silent_query(profile)).captures(tree.root_node).get("silent", [])
    starts: list[int] = []
    ends: list[int] = []
    for node in sorted(nodes, key=lambda n: (n.start_byte, -n.end_byte)):
        if ends and node.end_byte <= ends[-1]:
            continue   # inside the one before
        starts.append(node.start_byte)
        ends.append(node.end_byte)
    return starts, ends


def _within_spans(spans: tuple[list[int], list[int]], at: int) -> bool:
    index = bisect.bisect_right(spans[0], at) - 1
    return index >= 0 and at < spans[1][index]


@functools.lru_cache(maxsize=None)
def star_names_query(profile: Profile) -> tree_sitter.Query:
    """The profile's `star_names` query (a module's list of what a star import takes), compiled once."""
    return _compile(profile, profile.semantic.star_names)


def star_names(profile: Profile, source: bytes) -> frozenset[str] | None:
    """The names a star import takes from `source` by its explicit list (Python's `__all__`); None
    when it writes no such list, or writes it in a way no list shows (then anything may be taken)."""
    if not profile.semantic.star_names:
        return None
    words = needed_words(profile, profile.semantic.star_names)
    if words is not None and not any(word in source for word in words):
        # No pattern can match: the answer of a query with no match, without its compile (~10 ms
        # for Python's, in every finish that changed a Python file) or the parse.
        return None
    return _star_names_read(profile, source)


def _star_names_read(profile: Profile, source: bytes) -> frozenset[str] | None:
    """star_names, by running the profile's `star_names` query over the parsed source."""
    tree = profile.parse(source)
    captures = tree_sitter.QueryCursor(star_names_query(profile)).captures(tree.root_node)
    lists = captures.get("list", [])
    if captures.get("open") or not lists:
        return None
    names: set[str] = set()
    for node in lists:
        for element in node.named_children:
            if element.type == "comment":
                continue
            content = [child for child in element.named_children if child.type == "string_content"] \
                if element.type == "string" else None
            if not content or len(content) != 1 or len(element.named_children) != 3:
                return None   # a name the list computes (`*other.__all__`, an f-string): unknown
            names.add(_text(source, content[0]))
    return frozenset(names)


WORDS_CACHE = "query-words-v1"   # folder under the user's state folder (kept_on_disk.py)
_EQ_LITERAL = re.compile(rb'\(#eq\?\s+@([\w.-]+)\s+"([^"\\]*)"\s*\)')


@functools.lru_cache(maxsize=None)
def needed_words(profile: Profile, text: str) -> tuple[bytes, ...] | None:
    """Texts one of which a source must hold for the query `text` to match anything in it: each of
    its patterns tests, with `#eq?`, that a capture the pattern always makes (exactly one node) is a
    given literal, and a node's text is a part of the source. None when a pattern has no such test
    (then every source may match). Deriving this compiles the query, so the answer is kept on disk
    (keyed by the query text, this module's code and tree-sitter's version) for later processes."""
    import json

    from ...kept_on_disk import keep, kept_path, read_kept

    encoded = text.encode("utf-8")
    path = kept_path(WORDS_CACHE, (encoded, _code_fingerprint()), ".json")
    try:
        kept = json.loads(read_kept(path) or "false")
        if kept is None or (isinstance(kept, list) and kept and all(isinstance(w, str) and w for w in kept)):
            return None if kept is None else tuple(w.encode("utf-8") for w in kept)
    except ValueError:
        pass   # not what this code wrote: derived and written again
    query = star_names_query(profile) if text == profile.semantic.star_names else _compile(profile, text)
    names = {query.capture_name(i): i for i in range(query.capture_count)}
    words: set[str] = set()
    for pattern in range(query.pattern_count):
        word = _tested_literal(query, names, encoded[query.start_byte_for_pattern(pattern):query.end_byte_for_pattern(pattern)],
                               pattern)
        if word is None:
            keep(path, json.dumps(None))
            return None
        words.add(word)
    keep(path, json.dumps(sorted(words)))
    return tuple(w.encode("utf-8") for w in sorted(words))


def _tested_literal(query: tree_sitter.Query, names: dict[str, int], pattern_text: bytes, pattern: int) -> str | None:
    """The literal an `#eq?` of the pattern tests a capture it always makes against, or None."""
    for match in _EQ_LITERAL.finditer(pattern_text):
        capture = names.get(match.group(1).decode("utf-8"))
        try:
            always = capture is not None and query.capture_quantifier(pattern, capture) == ""   # "": exactly one
        except SystemError:   # tree-sitter's "not in this pattern", which its binding does not name
            always = False
        if always and match.group(2):
            return match.group(2).decode("utf-8")
    return None


def computed_star_list(profile: Profile, source: bytes) -> int | None:
    """The line (1-based) of the first write of the star list that no list shows (the profile's
    `star_names` `@open` capture: `__all__ += [...]`, `__all__ = a + b.__all__`, `__all__.extend(...)`),
    None when `source` writes none: where that list is computed, what a star import takes is unknown."""
    if not profile.semantic.star_names:
        return None
    tree = profile.parse(source)
    found = tree_sitter.QueryCursor(star_names_query(profile)).captures(tree.root_node).get("open", [])
    return min(node.start_point[0] for node in found) + 1 if found else None


@functools.lru_cache(maxsize=None)
def import_statements_query(profile: Profile) -> tree_sitter.Query:
    """The profile's `import_statements` query (`@import`: the statements that import), compiled once."""
    return _compile(profile, profile.semantic.import_statements)


@functools.lru_cache(maxsize=None)
def specifiers_query(profile: Profile) -> tree_sitter.Query:
    """The profile's `specifiers` query (every module a file loads), compiled once."""
    return _compile(profile, profile.semantic.specifiers)


def module_specifiers(profile: Profile, source: bytes) -> list[tuple[str, int, str]]:
    """(module as written, line, member) for each module `source` loads (profile `specifiers`), in
    file order; none when the profile has no such query or the file does not parse cleanly (nothing
    is guessed). A `@member` beside a `@module` in one match may be a module below it (Python's
    `from pkg import mod`, `from . import mod`): the two joined by the module separator count too,
    with `member` its name ("" for a module as written), since it may as well be a name the module
    itself binds (`from pkg import f`, f defined in pkg/__init__.py). A specifier inside a node of
    the profile's `guards` query (an import whose failure the file catches) is left out: it does not
    stop the file from loading."""
    if not profile.semantic.specifiers:
        return []
    tree = profile.parse(source)
    if tree.root_node.has_error:
        return []
    separator = profile.semantic.module_separator
    matches = tree_sitter.QueryCursor(specifiers_query(profile)).matches(tree.root_node)
    # The guards only where a specifier may stand inside one (_may_be_guarded, as extract does): a
    # file with no import, or none under a guard's root, compiles no guard pattern (Python's took
    # ~135 million instructions, a fifth of a merging `task finish`, for the look at own imports).
    anchors = [{"node": node} for _, captures in matches for nodes in captures.values() for node in nodes]
    guarded = guarded_ranges(profile, tree) if anchors and _may_be_guarded(profile, anchors) else []
    found: set[tuple[int, str, int, str]] = set()
    for _, captures in matches:
        for node in captures.get("module", []):
            if _inside(node, guarded):
                continue
            module = _text(source, node)
            found.add((node.start_byte, module, node.start_point[0] + 1, ""))
            for member in captures.get("member", []):
                name = _text(source, member)
                joined = module + name if module.endswith(separator) else module + separator + name
                found.add((member.start_byte, joined, member.start_point[0] + 1, name))
    return [(text, line, member) for _start, text, line, member in sorted(found) if text]


@functools.lru_cache(maxsize=None)
def guards_query(profile: Profile) -> tree_sitter.Query:
    """The profile's `guards` query (code whose failure to import the file catches), compiled once."""
    return _compile(profile, profile.semantic.guards)


_ROOT = re.compile(r"\(\s*([A-Za-z][\w.]*)(?=[\s)])")   # a pattern's root: `(try_statement ...`


@functools.lru_cache(maxsize=None)
def _guard_roots(profile: Profile) -> frozenset[str] | None:
    """The node types at the root of the profile's guards patterns, read from the query's text
    without compiling it; every node a match captures (its `@guarded` ones) lies inside that root.
    None when a pattern's root is not one plain named node type: a wildcard, an alternation, a
    group, an anonymous node, a supertype (whose nodes carry their subtypes' names) or a name the
    language lacks. Then any node may hold a guard."""
    roots: set[str] = set()
    text, depth, index = profile.semantic.guards, 0, 0
    while index < len(text):
        char = text[index]
        if char.isspace():
            index += 1
            continue
        if char == ";":                                   # a comment, to the end of its line
            end = text.find("\n", index)
            index = len(text) if end < 0 else end + 1
            continue
        if depth == 0:
            if char == "@" or char in "*+?":              # the capture or quantifier of the pattern before
                index += 1
                while char == "@" and index < len(text) and (text[index].isalnum() or text[index] in "_.-"):
                    index += 1
                continue
            root = _ROOT.match(text, index)
            if root is None:
                return None                               # `[...]`, `"..."`, `_`, `(_ ...)`, `((a) (b))`
            kind = profile.language.id_for_node_kind(root.group(1), True)
            if not kind or kind in profile.language.supertypes:
                return None
            roots.add(root.group(1))
        if char == '"':                                   # a string: its brackets are not the query's
            index += 1
            while index < len(text) and text[index] != '"':
                index += 2 if text[index] == "\\" else 1
            index += 1
            continue
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        index += 1
    return frozenset(roots)


def _may_be_guarded(profile: Profile, imports: list[dict[str, tree_sitter.Node]]) -> bool:
    """Whether a `@guarded` node of the profile's guards may hold one of the nodes of `imports`
    (the import matches' captures, the anchor `_add_import` tests among them). A guard's root
    holds what it captures; tree-sitter's siblings do not overlap, so a node whose bytes hold a
    node of nonzero width is an ancestor of it, or of its very bytes below it. So when no node
    of a guard's root type stands above (or at, or at the same bytes below) any of them, no
    guarded span holds one, and the guards' query is neither compiled nor run."""
    roots = _guard_roots(profile)
    if roots is None:
        return True
    for parts in imports:
        for node in parts.values():
            if node.start_byte == node.end_byte:
                return True                               # an empty node sits at a boundary: not decided here
            current: tree_sitter.Node | None = node
            while current is not None:
                if current.type in roots:
                    return True
                current = current.parent
            current = node
            while current is not None:
                current = next((child for child in current.children
                                if (child.start_byte, child.end_byte) == (node.start_byte, node.end_byte)), None)
                if current is not None and current.type in roots:
                    return True
    return False


def guarded_ranges(profile: Profile, tree: tree_sitter.Tree) -> list[tuple[int, int]]:
    """The (start, end) bytes of each `@guarded` node of the profile's `guards` query in `tree`
    that no `@unguarded` capture (a handler that raises) takes back."""
    if not profile.semantic.guards:
        return []
    guards = _Guards(profile.deferred)
    for _, captures in tree_sitter.QueryCursor(guards_query(profile)).matches(tree.root_node):
        guards.add(captures)
    return guards.spans()


class _Guards:
    """The guards query's rule, read from its matches (by its own query in guarded_ranges, by
    extract's one pass over the profile's query): a `@guarded` node guards, unless an `@unguarded`
    capture of the same span takes it back. An `@unguarded` match that also captures `@handler`
    nodes takes it back only where a `@raises` node (of any match) lies inside one of them: a raise
    at any depth of the handler (`except ImportError: if strict: raise`) may run, and a query
    pattern cannot say "anywhere below". A raise inside a `deferred` node (the profile's: a function
    the handler defines) below the handler is not the handler's own: it runs when that is called."""

    def __init__(self, deferred: frozenset[str] = frozenset()) -> None:
        self.deferred = deferred
        self.guarded: list[tree_sitter.Node] = []
        self.unguarded: set[tuple[int, int]] = set()
        self.if_raising: list[tuple[tuple[int, int], list[tree_sitter.Node]]] = []
        self.raises: list[tree_sitter.Node] = []

    def add(self, captures: dict[str, list[tree_sitter.Node]]) -> None:
        self.guarded += captures.get("guarded", ())
        self.raises += captures.get("raises", ())
        handlers = list(captures.get("handler", ()))
        for node in captures.get("unguarded", ()):
            span = (node.start_byte, node.end_byte)
            if handlers:
                self.if_raising.append((span, handlers))
            else:
                self.unguarded.add(span)

    def spans(self) -> list[tuple[int, int]]:
        """The spans of the `@guarded` nodes nothing takes back."""
        unguarded = self.unguarded | {span for span, handlers in self.if_raising
                                      if any(self._runs(node, handler) for handler in handlers for node in self.raises)}
        return [span for node in self.guarded if (span := (node.start_byte, node.end_byte)) not in unguarded]

    def _runs(self, node: tree_sitter.Node, handler: tree_sitter.Node) -> bool:
        """Whether the raise `node` lies inside `handler` and the handler runs it: no deferred node
        (a function's body) stands between them. (By node, not span: a handler whose one statement
        is a function spans what that function does.)"""
        if not (handler.start_byte <= node.start_byte and node.end_byte <= handler.end_byte):
            return False
        parent = node.parent
        while parent is not None and parent.id != handler.id:
            if parent.type in self.deferred:
                return False
            parent = parent.parent
        return True


def _inside(node: tree_sitter.Node, ranges: list[tuple[int, int]]) -> bool:
    return any(start <= node.start_byte and node.end_byte <= end for start, end in ranges)


@functools.lru_cache(maxsize=None)
def fingerprint(profile: Profile) -> str:
    """What an extraction under `profile` depends on besides the bytes: the query text, the
    profile's data and this module's code, hashed (merge_index.py keys kept symbols by it)."""
    import dataclasses

    from ...digest import sha1

    def stable(value: object) -> object:
        # Sets print in hash order, which changes between processes: sort them.
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return [(f.name, stable(getattr(value, f.name))) for f in dataclasses.fields(value)]
        if isinstance(value, (set, frozenset)):
            return sorted(repr(stable(v)) for v in value)
        if isinstance(value, dict):
            return sorted((repr(stable(k)), repr(stable(v))) for k, v in value.items())
        if isinstance(value, (list, tuple)):
            return [stable(v) for v in value]
        if isinstance(value, re.Pattern):
            return value.pattern
        return value if isinstance(value, (str, bytes, int, float, bool, type(None))) else type(value).__name__

    digest = sha1()
    digest.update(_query_text(profile).encode("utf-8"))
    digest.update(repr(stable(profile)).encode("utf-8"))
    digest.update(_code_fingerprint())
    return digest.hexdigest()


@functools.lru_cache(maxsize=None)
def _code_fingerprint() -> bytes:
    """This module's source and the grammar package's version: a changed extractor keys anew."""
    from ...digest import sha1

    try:
        import tree_sitter as ts
        version = getattr(ts, "__version__", "") or ""
        return sha1(open(__file__, "rb").read() + version.encode()).digest()
    except OSError:
        return b"unreadable"


def _query_text(profile: Profile) -> str:
    # What an extraction reads: its own patterns and the guards (the fingerprint's part).
    return "\n".join([_extraction_text(profile), profile.semantic.guards])


def _extraction_text(profile: Profile) -> str:
    """The full query extract runs over every tree: the wheels' tags and the profile's patterns.
    The guards (`guards_query`) are not part of it: they decide only whether an import is guarded,
    so extract runs them only where an import may stand inside one (`_may_be_guarded`). Python's
    six guard patterns took 12 of the 17 ms its defining query compiled in, and a merge driver
    process paid that for every .py merge whose file imports anything."""
    return "\n".join([_tags_text(wheel) for wheel in profile.semantic.tags] + [profile.semantic.query])


def _compile(profile: Profile, text: str) -> tree_sitter.Query:
    try:
        return tree_sitter.Query(profile.language, text)
    except (tree_sitter.QueryError, ValueError) as error:   # a pattern the grammar does not have
        raise ConfigError(f"language profile {profile.name}: the semantic query does not compile: {error}",
                          fix=f"fix [semantic] in grammars/{profile.name}.toml") from None


def _text(source: bytes, node: tree_sitter.Node) -> str:
    return source[node.start_byte:node.end_byte].decode("utf-8", "replace")


class _Placer:
    """Places nodes among the file's definitions: enclosing container, function scopes, path."""

    def __init__(self, profile: Profile, source: bytes, defs: dict[int, tuple[str, str]]):
        self.source = source
        self.defs = defs                                  # node id -> (kind, name)
        self.scopes = dict(profile.semantic.scopes)        # node kind -> field naming its type
        self.function_scopes = dict(profile.semantic.function_scopes)   # node kind -> field naming it
        self.anonymous = dict(profile.semantic.anonymous_classes)       # body kind -> parent's field naming its base
        self.anonymous_containers: set[Container] = set()   # each one met: its base may give any member
        self.member_of = dict(profile.semantic.member_of)
        self.self_fields = dict(profile.semantic.self_fields)
        self.type_names = profile.semantic.type_names
        # place()'s answers per (node id, whether a container stands below on the way up): a
        # reference 1500 attribute accesses deep (`X.a.a...a`) walked all 1500 parents for each of
        # its 1500 names, each parent found by a walk from the root: 114 s for one file at load 15.
        self._up: dict[tuple[int, bool], tuple[tuple[str, ...], tuple[int, ...], tuple[str, ...]]] = {}

    def type_name(self, node: tree_sitter.Node, field_name: str) -> str | None:
        """The first type name inside `node`'s field (`Foo` of `impl<T> Foo<T>`, of `(s *Foo)`)."""
        target = node.child_by_field_name(field_name)
        stack = [target] if target is not None else []
        while stack:
            current = stack.pop()
            if current.type in self.type_names:
                return _text(self.source, current)
            stack.extend(reversed(current.named_children))
        return None

    def owner(self, node: tree_sitter.Node) -> tuple[str, str] | None:
        """(role, name) when `node` holds definitions: role "function" or "container"."""
        found = self.defs.get(node.id)
        if found is not None:
            kind, name = found
            if kind in FUNCTION_KINDS:
                return "function", name
            if kind in CONTAINER_KINDS:
                return "container", name
            return None
        if node.type in self.scopes:
            name = self.type_name(node, self.scopes[node.type])
            return ("container", name) if name else None
        if node.type in self.anonymous and node.parent is not None:
            # An anonymous class (Java's `new Runnable() { ... }`): its own container, so its
            # `this.reset()` is never the enclosing class's reset (a false block when that one went).
            base = node.parent.child_by_field_name(self.anonymous[node.type])
            if base is not None:
                return "anonymous", f"new {_text(self.source, base)}"
        if node.type in self.function_scopes:
            # A function the tags define nothing for (Java's constructor): what it binds is its own,
            # not a member of its class (`CodeBlock(Builder builder)` hid a method `builder()`'s removal).
            named = node.child_by_field_name(self.function_scopes[node.type])
            return "function", _text(self.source, named) if named is not None else node.type
        return None

    def selves(self, node: tree_sitter.Node | None) -> frozenset[str]:
        """The names the enclosing methods give their receiver (profile `self_fields`): the first
        identifier in that field, `s` of Go's `func (s *Server) Get()`."""
        found: set[str] = set()
        while node is not None:
            if node.type in self.self_fields and node.id in self.defs:
                target = node.child_by_field_name(self.self_fields[node.type])
                stack = [target] if target is not None else []
                while stack:
                    current = stack.pop()
                    if current.type == "identifier":
                        found.add(_text(self.source, current))
                        break
                    stack.extend(reversed(current.named_children))
            node = node.parent
        return frozenset(found)

    def innermost_function(self, node: tree_sitter.Node | None) -> int | None:
        """The id of the nearest function-like definition holding `node` (itself included), if any:
        the scope a binding there binds in."""
        while node is not None:
            owner = self.owner(node)
            if owner is not None and owner[0] == "function":
                return node.id
            node = node.parent
        return None

    def container(self, node: tree_sitter.Node | None) -> tuple[Container, bool]:
        """`place`'s container and whether it is local, alone (what a definition, a binding and an
        import ask: no scope set or declaration path made for them)."""
        containers, functions, _path = self._ancestry(node, False)
        return tuple(reversed(containers)), bool(functions)

    def place(self, node: tree_sitter.Node | None) -> tuple[Container, frozenset[int], str, bool]:
        """(container, function scope ids, declaration path, local) for what stands inside `node`
        (`node` itself included). A definition inside a function is local whatever contains it; a
        reference's container is its enclosing classes, through the methods it stands in."""
        containers, functions, path = self._ancestry(node, False)
        return tuple(reversed(containers)), frozenset(functions), " > ".join(reversed(path)), bool(functions)

    def _ancestry(self, node: tree_sitter.Node | None, seen: bool
                  ) -> tuple[tuple[str, ...], tuple[int, ...], tuple[str, ...]]:
        """What the definitions holding `node` (itself included) give, innermost first: container
        names, function ids, declaration path parts; `seen`: a container stands below `node` (a
        method's receiver counts only for the innermost one). Each (node, seen) is answered once,
        from its parent's answer: a walk up stops at the first node answered before."""
        chain: list[tuple[tree_sitter.Node, bool, tuple[str, str] | None]] = []
        current = node
        top: tuple[tuple[str, ...], tuple[int, ...], tuple[str, ...]] = ((), (), ())
        while current is not None:
            known = self._up.get((current.id, seen))
            if known is not None:
                top = known
                break
            owner = self.owner(current)
            chain.append((current, seen, owner))
            if owner is not None and (owner[0] != "function" or (current.type in self.member_of and not seen
                                                                 and self.type_name(current, self.member_of[current.type]))):
                seen = True   # a container, or a method's receiver: the ones above are not innermost
            current = current.parent
        for current, below, owner in reversed(chain):
            containers, functions, path = top
            if owner is not None:
                role, name = owner
                # (a node no tag defines, a constructor, by its kind: "constructor Block")
                part = name if role == "anonymous" else \
                    f"{self.defs.get(current.id, (current.type.removesuffix('_declaration'),))[0]} {name}"
                if role == "function":
                    receiver = self.type_name(current, self.member_of[current.type]) \
                        if current.type in self.member_of and not below else None
                    top = (((receiver,) if receiver else ()) + containers, (current.id,) + functions, (part,) + path)
                else:
                    top = ((name,) + containers, functions, (part,) + path)
                    if role == "anonymous":
                        self.anonymous_containers.add(tuple(reversed(top[0])))
            self._up[(current.id, below)] = top
        return top


IMPORTS_ONLY = "imports"   # a mode of kept symbols (merge_index.py): extract(imports_only=True)

# The defining query's matches of the sources extracted last, with their trees (_defining_matches):
# a merge's check reads each new version of a task file for its imports, and the left-behind look
# then reads the same versions' definitions; the query is ~40% of a definitions extraction.
MATCHES_KEPT = 8
_MATCHES: "OrderedDict[tuple[int, Profile, bytes], tuple[tree_sitter.Tree, list]]" = OrderedDict()
_matches_lock = threading.Lock()


def _defining_matches(profile: Profile, source: bytes, tree: tree_sitter.Tree) -> list:
    """The defining query's matches over `tree` (a parse of `source`), kept with the tree for a
    later extraction of the same source in this thread that has no tree of its own (_kept_matches)."""
    matches = tree_sitter.QueryCursor(query_for(profile, False)).matches(tree.root_node)
    if len(source) <= MATCHES_KEPT_SOURCE and type(source) is bytes:
        key = (threading.get_ident(), profile, source)
        with _matches_lock:
            _MATCHES[key] = (tree, matches)
            _MATCHES.move_to_end(key)
            while len(_MATCHES) > MATCHES_KEPT:
                _MATCHES.popitem(last=False)
    return matches


MATCHES_KEPT_SOURCE = 64 * 1024   # (a bigger source is not kept: its tree and matches are large)


def _kept_matches(profile: Profile, source: bytes) -> tuple[tree_sitter.Tree | None, list | None]:
    """(tree, defining matches) this thread kept for `source` under `profile` (_defining_matches),
    or (None, None). Each is read once: the kept tree goes to one reader."""
    if type(source) is not bytes:
        return None, None
    with _matches_lock:
        return _MATCHES.pop((threading.get_ident(), profile, source), (None, None))

# What a capture's name makes it, for extract's one pass over a match (_role): the profiles' names
# are few, so each is read once a process.
_DEFINITION, _REFERENCE, _IMPORT, _EXPORT, _BINDING, _FIELD, _HERITAGE, _TYPED, _GUARD, _TOKENS, _OTHER = (
    "definition", "reference", "import", "export", "binding", "field", "heritage", "typed", "guard", "tokens", "other")
_ROLES: dict[str, tuple[str, str]] = {}


def _role(capture: str) -> tuple[str, str]:
    """(what the capture is, the rest of its name: a definition's or reference's kind, an import's
    or export's part) for one capture name of a semantic query."""
    for prefix, what in (("definition.", _DEFINITION), ("reference.", _REFERENCE), ("import.", _IMPORT),
                         ("export.", _EXPORT)):
        if capture.startswith(prefix):
            return what, capture.split(".", 1)[1]
    if capture == "binding":
        return _BINDING, ""
    if capture == "field":
        return _FIELD, ""
    if capture == "heritage":
        return _HERITAGE, ""
    if capture == "tokens":
        return _TOKENS, ""
    if capture in ("typed.type", "typed.name", "typed.field", "typed.static", "typed.returns"):
        return _TYPED, ""
    if capture in ("guarded", "raises", "handler", "unguarded"):
        return _GUARD, ""
    return _OTHER, ""


def extract(profile: Profile, source: bytes, tree: tree_sitter.Tree | None = None, *, uses: bool = True,
            imports_only: bool = False) -> Symbols:
    """The symbols of one file version (see the module docstring); with uses=False only its
    definitions, imports and heritage (no references, no local bindings): cheaper. With
    imports_only only its imports are whole (`imports`, `wildcard`, `star_modules`, and the
    names they bind): the definitions are matched, to place each import in its scope, but not
    placed themselves, which is most of an extraction's cost; what a check that asks only what a
    file imports reads (semantic._Check.imports)."""
    if imports_only:
        uses = False
    rules = profile.semantic
    matches = None
    if tree is None and not uses:
        # The defining query's matches of this source, where an extraction ran it last (the
        # post-merge check reads a task file's imports, the left-behind look then its definitions):
        # with the tree they were read from, so every node and id is of one parse.
        tree, matches = _kept_matches(profile, source)
    if tree is None:
        tree = profile.parse(source)
    if imports_only:
        places = None if profile in _IMPORTS_COMPILED else _import_places(profile)
        if places is not None:
            # Asked of the defining query (_no_import_matches), whose matches the extraction below reads
            # too: run once, not once to ask and again to extract (a file that imports, most of a
            # real run's, paid the defining query twice).
            if matches is None:
                matches = _defining_matches(profile, source, tree)
            if not any(index in places for index, _ in matches):
                return _spelled_only(source, rules)   # it imports nothing
        elif _no_import_matches(profile, tree, by_defining=False):
            return _spelled_only(source, rules)   # it imports nothing: the definitions, which only place imports, are not matched
    if matches is None:
        matches = _defining_matches(profile, source, tree) if not uses else \
            tree_sitter.QueryCursor(query_for(profile, uses)).matches(tree.root_node)
    defs: dict[int, tuple[str, str]] = {}
    raw_defs: list[tuple[tree_sitter.Node, tree_sitter.Node, str]] = []
    raw_refs: list[tuple[tree_sitter.Node, str]] = []
    raw_bindings: list[tree_sitter.Node] = []
    raw_instance_fields: list[tree_sitter.Node] = []   # names bound on the instances of the class around them (`@field`)
    raw_heritage: list[tree_sitter.Node] = []
    raw_tokens: list[tree_sitter.Node] = []   # text the grammar leaves unparsed, its words uses (`@tokens`)
    raw_typed: list[tuple[tree_sitter.Node, tree_sitter.Node]] = []   # (binding, the type spelled for it)
    raw_fields: list[tuple[tree_sitter.Node, tree_sitter.Node]] = []  # the same for a class's field (`@typed.field`)
    raw_members: list[tuple[tree_sitter.Node, tree_sitter.Node, bool]] = []  # a static member's (`@typed.static`, `.returns`)
    raw_imports: list[dict[str, tree_sitter.Node]] = []
    raw_exports: list[dict[str, tree_sitter.Node]] = []
    guards = _Guards(profile.deferred)   # the profile's `guards`, part of its query
    roles = _ROLES
    for _, captures in matches:
        names = captures.get("name")
        name_text: str | None = None
        parts: dict[str, tree_sitter.Node] | None = None      # an import's captures, by what they are
        exported: dict[str, tree_sitter.Node] | None = None   # an export's
        typed = guarded_match = False
        # One pass over the match's captures, each dispatched by its name's role (kept per name):
        # a test of every name's prefixes, and two passes more for imports and exports, were most
        # of an extraction's Python (bench_merge's files: 24 matches each).
        for capture, nodes in captures.items():
            role = roles.get(capture)
            if role is None:
                role = roles[capture] = _role(capture)
            what = role[0]
            if what is _DEFINITION:
                if names:
                    if name_text is None:
                        name_text = _text(source, names[0])
                    if _WORD.match(name_text):
                        defs[nodes[0].id] = (role[1], name_text)
                        raw_defs.append((nodes[0], names[0], role[1]))
            elif what is _REFERENCE:
                if names:
                    raw_refs.append((names[0], role[1]))
            elif what is _IMPORT:
                if parts is None:
                    parts = {}
                parts[role[1]] = nodes[0]
            elif what is _EXPORT:
                if exported is None:
                    exported = {}
                exported[role[1]] = nodes[0]
            elif what is _BINDING:
                raw_bindings.extend(nodes)
            elif what is _FIELD:
                raw_instance_fields.extend(nodes)
            elif what is _HERITAGE:
                raw_heritage.extend(nodes)
            elif what is _TOKENS:
                raw_tokens.extend(nodes)
            elif what is _TYPED:
                typed = True
            elif what is _GUARD:
                guarded_match = True
        if typed:
            typed_types = captures.get("typed.type", [])
            if len(typed_types) == 1:
                raw_typed.extend((node, typed_types[0]) for node in captures.get("typed.name", []))
                raw_fields.extend((node, typed_types[0]) for node in captures.get("typed.field", []))
                # (an instance field's declared type too: `h.entry.put()` where `Holder h`, declared_types.py)
                raw_members.extend((node, typed_types[0], False) for node in captures.get("typed.static", [])
                                   + captures.get("typed.field", []))
                raw_members.extend((node, typed_types[0], True) for node in captures.get("typed.returns", []))
        if guarded_match:
            guards.add(captures)
        if parts:
            raw_imports.append(parts)
        if exported:
            raw_exports.append(exported)
    if raw_imports and profile.semantic.guards and _may_be_guarded(profile, raw_imports):
        # The guards' own query, over the same tree: a pattern's matches do not depend on the other
        # patterns of its query, so these are the matches the guards gave inside the full query.
        for _, captures in tree_sitter.QueryCursor(guards_query(profile)).matches(tree.root_node):
            guards.add(captures)
    placer = _Placer(profile, source, defs)
    out = Symbols()
    guarded = guards.spans()
    if imports_only:
        for parts in raw_imports:
            _add_import(out, parts, source, placer, rules.module_binding, rules.module_separator, rules.version_suffix,
                        rules.path_prefixes, rules.default_export, guarded)
        _add_spelled_modules(out, source, rules)
        return out
    defined_at: set[int] = set()   # name nodes of definitions: never references of themselves
    for node, name_node, kind in raw_defs:
        defined_at.add(name_node.id)
        container, local = placer.container(node.parent)
        if kind in FUNCTION_KINDS and node.type in placer.member_of:
            receiver = placer.type_name(node, placer.member_of[node.type])
            if receiver and not local:
                container = container + (receiver,)
        if local:
            out.local.setdefault(defs[node.id][1], set()).add(placer.innermost_function(node.parent))  # type: ignore[arg-type]
            continue
        name = defs[node.id][1]
        out.definitions.append(Definition(name, kind, container, name_node.start_point[0] + 1,
                                          node.start_byte, node.end_byte))
        out.bind(container, name)
    for node in raw_instance_fields:
        # `self.limit = 3` in a method: `limit` is the class's member for every read through an instance
        container = placer.place(node.parent)[0]
        if container:
            name = _text(source, node)
            out.bind(container, name)
            statement = node.parent.parent if node.parent.parent is not None else node.parent
            out.fields.append(Definition(name, "field", container, node.start_point[0] + 1,
                                         statement.start_byte, statement.end_byte))
    for node in raw_heritage:
        container, local = placer.container(node)
        if not local:
            out.heritage.add(container)
    imported_at = {node.id for parts in raw_imports for key, node in parts.items() if key in ("name", "alias", "default")}
    scoped: dict[int, tuple[str, int | None]] = {}   # binding node -> (name, scope; None: top level)
    for node in raw_bindings:
        name = _text(source, node)
        if not _WORD.match(name) or node.id in imported_at:
            continue   # a name a destructured require binds is its import's (CommonJS), not a local definition
        container, local = placer.container(node.parent)
        if local:
            scope = placer.innermost_function(node.parent)
            out.local.setdefault(name, set()).add(scope)  # type: ignore[arg-type]
            scoped[node.id] = (name, scope)
        else:
            out.bind(container, name)
            if not container:
                scoped[node.id] = (name, None)
    if raw_typed or raw_fields:
        # A type spelled that names a class the file nests (Java's `static class Store` inside the
        # user) means that class, not the package's Store.java the check would follow it to: left
        # out (a miss at worst, never a block on another file's method).
        # (`Store.Entry` spelled: its outer class, Store, is the name that must not be one the file nests)
        nested = {_text(source, name_node) for node, name_node, kind in raw_defs
                  if kind in CONTAINER_KINDS and any(placer.place(node.parent)[::3])}
        raw_typed = [(node, type_node) for node, type_node in raw_typed + _fields_in_methods(
            out, raw_fields, raw_defs, placer, scoped, source, rules.self_receivers)
            if _text(source, type_node).split(".", 1)[0].strip() not in nested]
        _add_local_types(out, raw_typed, scoped, source)
    for name_node, type_node, called in raw_members:
        container, _, _, local = placer.place(type_node.parent.parent)   # (the member's class body)
        if container and not local:
            key, spelled = (container, _text(source, name_node), called), _text(source, type_node)
            out.member_types[key] = spelled if out.member_types.get(key, spelled) == spelled else ""
    for parts in raw_imports:
        _add_import(out, parts, source, placer, rules.module_binding, rules.module_separator, rules.version_suffix,
                    rules.path_prefixes, rules.default_export, guarded)
    _add_spelled_modules(out, source, rules)
    _add_exports(out, raw_exports, source, rules.default_export)
    quiet = _silent_spans(profile, tree) if rules.silent and raw_refs else None
    for name_node, kind in raw_refs:
        # An import made where it stands and called there (`require('./m')(x)`): its own use too, by its text.
        inline = kind == "call" and name_node.id in imported_at and name_node.named_child_count > 0
        if name_node.id in defined_at or (name_node.id in imported_at and not inline):
            continue   # an import's own name is the import (Rust's `use crate::parse;` is no path read as a value)
        if quiet and _within_spans(quiet, name_node.start_byte):
            continue   # no use where it stands (profile `silent`: C's `#ifdef X`)
        defined_at.add(name_node.id)   # one reference per name node, however many patterns found it
        name = _text(source, name_node)
        if not _WORD.match(name) and not inline:
            continue
        container, functions, declaration, _ = placer.place(name_node.parent)
        receiver = _receiver(source, name_node)
        selves = placer.selves(name_node.parent) if placer.self_fields and receiver else frozenset()
        out.references.append(Reference(name, kind, receiver, container, functions,
                                        name_node.start_point[0] + 1, declaration, selves, name_node.start_byte))
        leading = _LEADING_WORD.match(receiver.encode()) if receiver else None
        if leading and leading.group().decode() not in rules.self_receivers | selves:
            # `util.parse()` uses `util` too: a removed import or class is caught through it.
            out.references.append(Reference(leading.group().decode(), "receiver", None, container, functions,
                                            name_node.start_point[0] + 1, declaration))
    for node in raw_tokens:
        # A C macro's body: each word a use where the macro stands, its parameters bound there
        # (lua's `#define l_gettime(L,arg) luaL_checknumber(L, arg)`); kind "macro", no call
        # a signature could count the arguments of.
        container, functions, declaration, _ = placer.place(node)
        line = node.start_point[0] + 1
        for offset, name in token_uses(source[node.start_byte:node.end_byte]):
            at = node.start_byte + offset
            out.references.append(Reference(name, "macro", None, container, functions,
                                            line + source.count(b"\n", node.start_byte, at), declaration, frozenset(), at))
    out.heritage.update(placer.anonymous_containers)
    return out


def _fields_in_methods(out: Symbols, fields: list[tuple[tree_sitter.Node, tree_sitter.Node]],
                       raw_defs: list[tuple[tree_sitter.Node, tree_sitter.Node, str]], placer: "_Placer",
                       scoped: dict[int, tuple[str, int | None]], source: bytes,
                       self_receivers: frozenset[str] | set[str] = frozenset()
                       ) -> list[tuple[tree_sitter.Node, tree_sitter.Node]]:
    """A class's fields of spelled type (profile `@typed.field`: Java's `Store store = new Store();`,
    `private final Store store;` set in the constructor) as the typed locals they are in each method
    of that class that binds no local of the same name (a local or parameter hides the field there),
    and of the classes it nests (an inner class's method reads the outer's field); and as
    `this.store` (profile `self_receivers`) in the class's own methods, local or not: the method a
    name is bound in is its scope, so `store.put()` there is followed to Store's methods as a
    local's call is. The (binding, type) pairs to read as typed locals."""
    methods: dict[tuple[str, ...], list[int]] = {}
    for node, _name_node, kind in raw_defs:
        if kind in FUNCTION_KINDS:
            container, local = placer.container(node.parent)
            if container and not local:
                methods.setdefault(container, []).append(node.id)
    placed = [(name_node, type_node, _text(source, name_node), placer.place(name_node.parent))
              for name_node, type_node in fields]
    declared = {(place[0], name) for _, _, name, place in placed if not place[3]}   # (class, field name)
    out_pairs: list[tuple[tree_sitter.Node, tree_sitter.Node]] = []

    def bind(name: str, method: int, type_node: tree_sitter.Node) -> None:
        out.local.setdefault(name, set()).add(method)
        binding = _FieldBinding(-1 - len(out_pairs))   # (an id no node has: this binding is the field's)
        scoped[binding.id] = (name, method)
        out_pairs.append((binding, type_node))

    for name_node, type_node, name, (container, _, _, local) in placed:
        if local or not container or not _WORD.match(name):
            continue
        for owner, ids in methods.items():
            if owner[:len(container)] != container:
                continue
            # An inner class's methods see the outer class's field (`sp.print()` in `class Line`
            # inside Report), unless a class between declares a field of that name or has a base
            # (an inherited field of that name would be the one meant).
            between = [owner[:depth] for depth in range(len(container) + 1, len(owner) + 1)]
            if any((inner, name) in declared or inner in out.heritage for inner in between):
                continue
            for method in ids:
                if owner == container:
                    # `this.sp` in the class's own methods is the field, whatever local hides `sp`.
                    for receiver in self_receivers:
                        bind(f"{receiver}.{name}", method, type_node)
                if method not in out.local.get(name, ()):   # (a local or parameter of that name hides it)
                    bind(name, method, type_node)
    return out_pairs


class _FieldBinding:
    """A stand-in node for a field bound in one method (`_fields_in_methods`): only its id is read."""

    __slots__ = ("id",)

    def __init__(self, node_id: int):
        self.id = node_id


def _add_local_types(out: Symbols, raw: list[tuple[tree_sitter.Node, tree_sitter.Node]],
                     scoped: dict[int, tuple[str, int | None]], source: bytes) -> None:
    """`out.local_types`: a name's type in a scope, where each of its bindings there is a
    `@typed.name` and all spell one type (`c := f()` beside `var c T`, or two types: none)."""
    bindings: dict[tuple[str, int | None], set[int]] = {}
    for node_id, key in scoped.items():
        bindings.setdefault(key, set()).add(node_id)
    typed: dict[tuple[str, int | None], dict[int, str]] = {}
    for name_node, type_node in raw:
        key = scoped.get(name_node.id)
        if key is not None:
            typed.setdefault(key, {})[name_node.id] = _text(source, type_node)
    for key, types in typed.items():
        if types.keys() == bindings.get(key) and len(set(types.values())) == 1:
            out.local_types.setdefault(key[0], {})[key[1]] = next(iter(types.values()))


def _members_listed(out: Symbols, source: bytes, name: str) -> bool:
    """Whether `name`, given whole to the module's exports, is a function the file declares at its
    top level whose members are only those the exports' own assignments list (`exports.x = `,
    `module.exports.x = `): never assigned one by its name (`name.x = `, `name[k] = `), nor passed
    to a call that may give it some (`Object.assign(name, ...)`, `mixin(name, ...)`). Found driving
    wtc on express: `exports = module.exports = createApplication` made every name of lib/express.js
    "may be exported", and `exports.urlencoded` dropped while `express.urlencoded()` was used elsewhere
    merged and landed."""
    if not any(d.name == name and not d.container and d.kind in FUNCTION_KINDS for d in out.definitions):
        return False
    word = re.escape(name.encode())
    member_set = rb"(?<![\w$.])" + word + rb"\s*(?:\??\.\s*[\w$]+|\[[^\]]*\])\s*(?:[-+*/%&|^]|\*\*|<<|>>>?|&&|\|\||\?\?)?=(?!=)"
    passed = rb"[(,]\s*" + word + rb"\s*[,)]"
    return re.search(member_set, source) is None and re.search(passed, source) is None


def _add_exports(out: Symbols, raw: list[dict[str, tree_sitter.Node]], source: bytes, default_export: str = "") -> None:
    """The names the file exports, as definitions of kind "export" in EXPORTS (captures of one
    match: `name`, the exported name; `local`, set when the export names a binding of this file,
    `export { b }`; `as`, the name it is exported as instead of `name`'s, `default` of `export
    default function f`; `any`, an export the query cannot name; `default`, the module's default
    export (profile default_export) made by a statement that spells no name for it: CommonJS's
    `module.exports = function parse() {}`, TypeScript's `export = X`). A local export of a name the file
    spells nowhere else is no export (`function b` renamed, `export { b }` left as it was: the
    module does not load, and its importers of `b` are broken); a name spelled anywhere else, a
    comment included, is taken as declared (a missed finding, never a false one). `value`, a name
    given whole (`module.exports = createApplication`), exports what `any` does unless it is a
    function the file declares and gives no members but through the exports (`_members_listed`).
    `whole`, a value that passes another module's exports on (`module.exports = require('./m')`),
    is its star import, which the re-export look follows: not an export nothing lists."""
    seen: set[str] = set()
    whole = {parts["whole"].id for parts in raw if "whole" in parts}
    for parts in raw:
        if "whole" in parts or "any" in parts and parts["any"].id in whole:
            continue   # another module's exports passed on whole: its star import answers for them
        if "value" in parts and not _members_listed(out, source, _text(source, parts["value"])):
            out.bind(EXPORTS, OPEN_EXPORTS)
            continue
        if "any" in parts:
            out.bind(EXPORTS, OPEN_EXPORTS)
            continue
        node = parts.get("name")
        if "default" in parts and default_export:
            node, name = parts["default"], default_export
        elif node is None:
            continue
        else:
            name = _text(source, parts.get("as", node))
        if name in seen or not _WORD.match(name):
            continue
        if "local" in parts:
            word = re.escape(_text(source, parts["local"]).encode())
            if len(re.findall(rb"(?<![\w$])" + word + rb"(?![\w$])", source)) < 2:
                continue
        seen.add(name)
        out.definitions.append(Definition(name, "export", EXPORTS, node.start_point[0] + 1, node.start_byte, node.end_byte))
        out.bind(EXPORTS, name)


def _no_import_matches(profile: Profile, tree: tree_sitter.Tree, *, by_defining: bool) -> bool:
    """Whether no import pattern of the profile matches anywhere in `tree`, from the defining query
    (`by_defining`) or the imports-only one. An imports-only extraction asks it: a process that has
    not compiled the imports-only query (a CLI finish; `wtc serve` compiles every query before it
    forks) asks the defining query, whose import patterns are the same patterns (a pattern's matches
    do not depend on the others in its query), rather than compile both (the imports-only query is
    ~10 ms of Python's compile, ~13 ms of TypeScript's), and extracts from the same matches."""
    places = _import_places(profile) if by_defining else None
    if places is not None:
        return not any(index in places for index, _ in tree_sitter.QueryCursor(query_for(profile, False)).matches(tree.root_node))
    query = query_for(profile, False, True)
    return query.pattern_count == 0 or not tree_sitter.QueryCursor(query).matches(tree.root_node)


def visible_import(symbols: Symbols, bound: str, reference: Reference) -> Import | None:
    """The import that binds `bound` where `reference` stands (its function scope, or the top), if any."""
    for item in symbols.imports:
        if item.bound == bound and (item.scope is None or item.scope in reference.scopes):
            return item
    return None


def _add_import(out: Symbols, parts: dict[str, tree_sitter.Node], source: bytes, placer: _Placer,
                module_binding: str, separator: str, version_suffix: str = "",
                path_prefixes: tuple[tuple[str, str], ...] = (), default_export: str = "",
                guarded: list[tuple[int, int]] | None = None) -> None:
    """Add one import match's name to `out`. One inside a `guarded` range (the profile's `guards`:
    `try: import x` / `except ImportError:`) binds its name as the file's own, but is no `Import`:
    no removal in the module it names breaks it, so no check follows it there."""
    defaulted = "default" in parts
    if defaulted:
        if not default_export:
            return   # the profile names no default export: the binding stays a plain one
        # `import X from "./m"`: X is the module's default export, bound as X.
        parts = dict(parts, alias=parts["default"])
        parts.pop("default")
    anchor = parts.get("alias") or parts.get("name") or next(iter(parts.values()))   # the bound name's line
    container, local = placer.container(anchor.parent)
    prefix = _nested_prefix(parts.get("module") or anchor, source, path_prefixes, separator)
    if "wildcard" in parts:
        if not local and not container:
            out.wildcard = True
            if "module" in parts:
                out.star_modules.append(_joined(prefix, _text(source, parts["module"]).strip("\"'`"), separator))
                out.star_spans.append((parts["wildcard"].start_byte, parts["wildcard"].end_byte))
        return
    module = _text(source, parts["module"]).strip("\"'`") if "module" in parts else ""
    module = _joined(prefix, module, separator)
    name = _text(source, parts["name"]) if "name" in parts else default_export if defaulted else None
    if "self" in parts and module:
        # `lines::{self, ...}` binds the module `lines` itself, as `use crate::lines;` does.
        module, _, name = module.rpartition(separator)
    if "alias" in parts:
        bound = _text(source, parts["alias"])
    elif name is not None:
        bound = name
    elif module_binding == "last":
        path = module.rstrip(separator).split(separator)
        bound = path[-1]
        if bound in (".", ".."):
            # A path naming a folder by where it stands (Go's `import "."`) binds that folder's
            # package clause, which the path does not say: any name may come through it, as through
            # a star import with no module to follow (urfave/cli 75ffa2d83f: `cli.NewContext` after
            # `"github.com/codegangsta/cli"` became `"."`, the test's own package `cli`).
            if not local and not container:
                out.wildcard = True
            return
        if version_suffix and len(path) > 2 and re.fullmatch(version_suffix, bound):
            bound = path[-2]   # a version, not the module (the profile's semantic.version_suffix: Go's `/v2`)
    else:
        bound = module
    if not bound:
        return
    scope = placer.innermost_function(anchor.parent) if local else None
    if not (guarded and _inside(anchor, guarded)):
        out.imports.append(Import(bound, module, name, scope, anchor.start_point[0] + 1))
    simple = bound.split(".", 1)[0] if module_binding == "full" else bound
    if local:
        out.local.setdefault(simple, set()).add(scope)  # type: ignore[arg-type]
    else:
        out.bind(container, bound)
        out.bind(container, simple)
        if _WORD.match(simple):   # a removed import is a removed name like any other
            out.definitions.append(Definition(simple, "import", container, anchor.start_point[0] + 1,
                                              anchor.start_byte, anchor.end_byte))


def _spelled_only(source: bytes, rules: SemanticRules) -> Symbols:
    """The imports-only symbols of a file that imports nothing: only the modules it spells
    (Java's `com.x.util.Util.f()` needs no import)."""
    out = Symbols()
    _add_spelled_modules(out, source, rules)
    return out


MAX_SPELLED_MODULES = 64   # a file's attribute paths through its imports kept as modules (more: the first)


def _add_spelled_modules(out: Symbols, source: bytes, rules: SemanticRules) -> None:
    """Record in `out.spelled_modules` the modules a file reads by spelling their path: a type
    with its package where the profile's `qualified_names` matches (Java's `com.x.util.Util`), and
    a module below one the file imports at its top, by attribute: `click.utils` of
    `click.utils.make_str(x)` after `import click` (the package's own `from .utils import ...` made
    `utils` its attribute), `pkg.sub.inner` of `sub.inner.f()` after `from pkg import sub` (where
    a module path is spelled with the attribute dot and an import binds the whole path: the
    profile's module_separator ".", module_files, module_binding "full": Python). Read from the
    bytes: a path in a comment or a string only makes the file one more that may reach the module
    (what may reach a file is read, not decided, from this)."""
    found: dict[str, None] = {}
    if rules.qualified_names:
        for spelled in re.finditer(rules.qualified_names.encode(), source):
            found.setdefault(spelled.group(0).decode("utf-8", "replace"))
            if len(found) >= MAX_SPELLED_MODULES:
                break
    heads = {item.bound: item for item in out.imports if item.scope is None and item.module} \
        if rules.module_separator == "." and rules.module_files and rules.module_binding == "full" else {}
    if heads and len(found) < MAX_SPELLED_MODULES:
        for match in _attribute_paths(tuple(sorted(heads, key=len, reverse=True))).finditer(source):
            item = heads[match.group(1).decode("utf-8", "replace")]
            parts = match.group(2).decode("utf-8", "replace").strip(".").split(".")
            for depth in range(1, len(parts) + 1):
                found.setdefault(".".join(p for p in (item.module, item.name, *parts[:depth]) if p))
            if len(found) >= MAX_SPELLED_MODULES:
                break
    out.spelled_modules = list(found)[:MAX_SPELLED_MODULES]


@functools.lru_cache(maxsize=1024)
def _attribute_paths(heads: tuple[str, ...]) -> "re.Pattern[bytes]":
    """`head.a.b.name` for any of `heads` (longest first), not after a word or a dot: group 1 the
    head, group 2 the modules' part (`.a.b`), the last name left out (what the path reads)."""
    names = b"|".join(re.escape(head.encode("utf-8")) for head in heads)
    return re.compile(rb"(?<![\w.])(" + names + rb")((?:\.[A-Za-z_]\w*)+)\.[A-Za-z_]\w*")


def _nested_prefix(node: tree_sitter.Node, source: bytes, path_prefixes: tuple[tuple[str, str], ...],
                   separator: str) -> str:
    """The path the import lists around `node` lead with (`crate::lines` for `LineStep` in
    `use crate::{lines::{LineStep}}`): each enclosing node of a `path_prefixes` kind whose path field
    `node` is not part of, outermost first; "" when the import is not nested."""
    if not path_prefixes:
        return ""
    fields = dict(path_prefixes)
    parts: list[str] = []
    current = node.parent
    while current is not None:
        field = fields.get(current.type)
        if field is not None:
            path = current.child_by_field_name(field)
            if path is not None and not path.start_byte <= node.start_byte < path.end_byte:
                parts.append(_text(source, path))
        current = current.parent
    return separator.join(reversed(parts))


def _joined(prefix: str, module: str, separator: str) -> str:
    return f"{prefix}{separator}{module}" if prefix and module else prefix or module


def _receiver(source: bytes, name: tree_sitter.Node) -> str | None:
    """The expression `name` is reached through (`obj` of `obj.name`, `util` of `util::f`), or None
    when the name is bare: the nearest named node before it in its parent, joined to it by an
    accessor token (or nothing) rather than by a space or a keyword (`x int`, `impl T for S`)."""
    parent = name.parent
    if parent is None:
        return None
    earlier: list[tree_sitter.Node] = []
    for child in parent.named_children:
        if child.end_byte > name.start_byte:
            break
        # (JavaScript's `options?.f` holds its `?.` as a named node of its own between the two:
        # the receiver is the expression before it; found driving wtc on Leaflet)
        if not child.is_extra and child.type != "optional_chain":
            earlier.append(child)
    if not earlier or source[earlier[-1].end_byte:name.start_byte].strip() not in _ACCESSORS:
        return None
    # Tokens a parse leaves flat (a Rust macro call's `writeln!(std::io::stdout(), ..)`) hold a path
    # as words side by side: the receiver is all of `std::io`, never its last word `io` alone, which
    # would read as a use of a bare `io` (ripgrep 082245dadb dropped `use std::io` and kept this).
    start = len(earlier) - 1
    while start and source[earlier[start - 1].end_byte:earlier[start].start_byte].strip() in _JOINING:
        start -= 1
    text = source[earlier[start].start_byte:earlier[-1].end_byte].decode("utf-8", "replace")
    # A receiver spells a word: a string's opening quote before its content (a profile's
    # `@reference` on an `__all__` entry) reaches nothing through anything.
    return text if _ANY_WORD.search(text) else None
