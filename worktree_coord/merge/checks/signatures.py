"""The post-merge signature check: a function one side reshaped, called the old way by the other.

Stage: after a merge (one file, or every file of a tree merge), beside the broken-names check
(semantic.py runs it on the same `_Check`, sharing its parsed versions and its module resolution).
Input: per file, its path and the base, left, right and merged bytes. Output: `SemanticFinding`s
with `problem="signature"`.

The clean merge it catches: one side adds (or drops) a parameter of `f` and updates every caller it
knows; the other side adds a call `f(x)` with the old number of arguments. git merges it cleanly;
the build breaks (Go, Java, Rust, TypeScript when compiled; Python when the call runs). A finding is
a function or method that
- the base, the changing side and the merged result each define exactly once (no overload kept),
  and the other side still defines as at the base (it did not reshape it too);
- whose parameter count is countable in every one of those versions and differs between the base
  and the changing side, while the merged result has the changing side's count;
- is called on a line the other side added, that call resolved to it with the sureness rules of
  semantic.py (a bare name to its own file, the file an import names, or its Go package; `self.f`
  to the enclosing class; `C.f` to a class C of the file or one an import names; never a call on
  an object of unknown type), with a countable argument list whose count is the base's and not the
  new one.
What counts is data (`[semantic.signatures]` in the profile, `SignatureRules`): the node kinds of a
parameter that counts, of a receiver, of an argument list, of a spread. Anything else (defaults,
optional, rest or variadic parameters, keyword arguments, spread arguments, decorators) makes a
count unknown, and an unknown count never flags. A method that takes a receiver (Python's `self`,
Rust's `&self`, a Go method) is counted only when called through its receiver (`self.f(x)`).
Cost: a file is parsed only when a side touched a line at or above a definition whose name a line
the other side added mentions; calls are looked for only in files whose bytes name the function.
"""

from __future__ import annotations

import bisect
import re
from typing import Iterable, Iterator, Protocol

import tree_sitter

from ...frozen import value_class
from ..lines.linediff import added_lines, added_text, edited_lines, follow, lines_text, touched_lines
from ..languages.profiles import Profile, SemanticRules, SignatureRules, member_name, profile_for_path
from .linked import is_linked, package_key, reading_profile
from .reach import NEAR
from ..result import SemanticFinding
from .record_fields import record_fields
from .symbols import CONTAINER_KINDS, FUNCTION_KINDS, Definition, Reference, Symbols, definition_node, extract, visible_import
from .versions import Versions


class _Check(Protocol):
    """What this check reads of semantic.py's `_Check` (shared parses, module resolution)."""

    files: dict[str, Versions]
    labels: dict[str, str]

    def symbols(self, path: str, which: str, uses: bool = True) -> Symbols | None: ...

    def in_order(self) -> Iterable[tuple[str, Versions]]: ...

    def tree(self, path: str, which: str) -> tree_sitter.Tree | None: ...

    def live(self, side: str, path: str) -> frozenset[bytes]: ...

    def live_paths(self, sides: tuple[str, ...]) -> list[str]: ...

    def module_token(self, path: str) -> bytes: ...

    def imported_from(self, module: str, name: str, importer: str,
                      rules: SemanticRules) -> Iterator[tuple[str, tuple[str, ...], str]]: ...

    def targets(self, path: str, reference: Reference,
                merged: Symbols) -> Iterator[tuple[str, tuple[str, ...], str]]: ...

    def package_wide(self, path: str) -> bool: ...

    def package_files(self, path: str) -> list[str]: ...

    def defined_in_merged(self, target: tuple[str, tuple[str, ...], str]) -> bool: ...

    def resolve(self, module: str, importer: str, rules: SemanticRules) -> list[str]: ...

    def merged_line(self, path: str, line: int) -> str: ...

    def imported_files(self, path: str) -> frozenset[str]: ...

    def reached_through(self, path: str, names: set[str]) -> frozenset[str]: ...


def _profile(path: str) -> Profile | None:
    """The profile whose `[semantic.signatures]` counts `path`'s parameters, or None."""
    profile = profile_for_path(path)
    if profile is None or not profile.semantic.enabled or not profile.semantic.signatures.enabled:
        return None
    return profile

_SIDES = ("left", "right")
_WORDS = re.compile(rb"[A-Za-z_$][\w$]*")
_LIST_EDGE = re.compile(r"(?<=\()\s+|,?\s+(?=\))")   # "( a, b, )" -> "(a, b)"
_SPACE = re.compile(r"\s+")
_HEADER_LINES = NEAR    # a parameter line this far below its definition's name still counts as near it
_SHAPE_CHARS = 160


@value_class
class Shape:
    """What a definition takes: `arity` arguments at a call (its receiver not counted), up to `most`
    (its optional parameters too: Python's `sep="-"`); `receiver`: it is a method called through its
    receiver; `text`: its name and parameter list, as written."""

    arity: int
    receiver: bool
    text: str
    most: int = -1

    @property
    def counts(self) -> tuple[int, int]:
        """(fewest, most) arguments a call may pass."""
        return self.arity, max(self.arity, self.most)

    def takes(self, count: int) -> bool:
        return self.counts[0] <= count <= self.counts[1]


@value_class
class Keywords:
    """The names a call may pass a function by keyword (`names`), and whether it takes any other too
    (`open`: Python's `**kwargs`)."""

    names: frozenset[str]
    open: bool

    def lost(self, now: "Keywords") -> frozenset[str]:
        """The names this took by keyword that `now` does not (none when `now` takes any)."""
        return frozenset() if now.open else self.names - now.names


@value_class
class _Change:
    path: str
    definition: Definition      # at the base
    side: str                   # the side that reshaped it
    old: Shape
    new: Shape
    merged_line: int            # where the merged result defines it
    counted: bool = True        # its count of arguments changed
    lost: frozenset[str] = frozenset()   # the keywords it no longer takes (a parameter renamed or dropped)


def may_change_a_call(base: bytes | None, left: bytes | None, right: bytes | None) -> bool:
    """Whether one side touched a base line near (at or up to `_HEADER_LINES` below) a line holding
    a word that a line the other side added holds: a finding needs it (the parameter list it
    reshaped sits at or below the definition's name; the call is an added line naming it). Cheap:
    two diffs, no parse."""
    if base is None or left is None or right is None:
        return False
    lines = base.split(b"\n")
    for side, other in ((left, right), (right, left)):
        touched = edited_lines(base, side)
        if not touched:
            continue
        near = b"\n".join(b"\n".join(lines[max(first - 1 - _HEADER_LINES, 0):last]) for first, last in touched)
        added = added_text(base, other)
        if set(_WORDS.findall(near)).intersection(_WORDS.findall(added)):
            return True
    return False


def find_signature_changes(check: _Check) -> tuple[SemanticFinding, ...]:
    """Every call the merge broke by a reshaped definition (module docstring), in path and line order."""
    files = check.files
    if len(files) == 1:
        versions = next(iter(files.values()))
        if not may_change_a_call(versions.base, versions.version("left"), versions.version("right")):
            return ()
    found: dict[tuple[str, int, str], SemanticFinding] = {}
    for side in _SIDES:
        other = "right" if side == "left" else "left"
        changes = list(_changes(check, side, other))
        for finding in _calls(check, changes, other):
            found.setdefault((finding.use_path, finding.use_line, finding.name), finding)
    return tuple(sorted(found.values(), key=lambda f: (f.use_path, f.use_line, f.name)))


# -- step 1: definitions one side reshaped ---------------------------------------------------------
def _changes(check: _Check, side: str, other: str) -> Iterator[_Change]:
    """Only a file where `side` touched a line near a word that the other side's new lines, in a
    file that can reach it, hold (`_Check.live`, reach.py) is read: of a big merge's thousands of
    files, a few."""
    for path in check.live_paths((side,)):
        versions = check.files[path]
        # By blob ids and paths first, then by the live words, before any parse.
        if versions.same(side, "base") or not (versions.exists("base") and versions.exists(side)
                                               and versions.exists(other) and versions.exists("merged")):
            continue
        used = check.live(side, path)
        if not used:
            continue
        profile = _profile(path)
        if profile is None:
            continue
        base, mine = versions.base, versions.version(side)
        assert base is not None and mine is not None
        touched = _Edited(edited_lines(base, mine))
        if not touched:
            continue
        before = check.symbols(path, "base", uses=False)
        if before is None:
            continue
        rules = profile.semantic.signatures
        candidates = [d for d in before.definitions if d.name.encode() in used and (
            d.kind in FUNCTION_KINDS and touched.meets(d.line, d.line, _HEADER_LINES)
            or _constructed(rules, d) and touched.meets(d.line, _last_line(base, d)))]
        if not candidates:
            continue
        base_tree = check.tree(path, "base")
        # Only a definition whose parameter list (a class: its body) this side touched can have been reshaped.
        candidates = [d for d in candidates if _constructed(rules, d)
                      or _touches(_parameter_list(rules, base_tree, d), touched)]
        if not candidates:
            continue
        after = check.symbols(path, side, uses=False)
        if after is None:
            continue
        member_of = {kind for kind, _ in profile.semantic.member_of}

        def shape(which: str, symbols: Symbols, key: tuple[tuple[str, ...], str]) -> tuple[Definition, Shape] | None:
            definition = _only(symbols, key)
            found = _shape(rules, member_of, check.tree(path, which), versions.version(which) or b"",
                           definition) if definition is not None else None
            return (definition, found) if definition is not None and found is not None else None

        def keywords(which: str, symbols: Symbols, key: tuple[tuple[str, ...], str]) -> tuple[Keywords, Shape] | None:
            return _takes(profile, check.tree(path, which), versions.version(which) or b"", symbols, key)

        seen: set[tuple[tuple[str, ...], str]] = set()
        for definition in candidates:
            key = (definition.container, definition.name)
            if key in seen:
                continue   # the same node captured twice (a method is a function too), or an overload
            seen.add(key)
            # The base's and this side's shapes first: the other versions are parsed only for a
            # definition whose count changed (rare), not for every one near an edit.
            old, new = shape("base", before, key), shape(side, after, key)
            counted = old is not None and new is not None and old[1].counts != new[1].counts \
                and old[1].receiver == new[1].receiver
            named = keywords("base", before, key), keywords(side, after, key)
            lost = named[0][0].lost(named[1][0]) if named[0] is not None and named[1] is not None else frozenset()
            if not counted and not lost:
                continue
            theirs, merged = check.symbols(path, other, uses=False), check.symbols(path, "merged", uses=False)
            if theirs is None or merged is None:
                continue
            if definition.container and any(definition.container in s.heritage for s in (before, after, theirs, merged)):
                continue   # a member of a class with bases: an inherited overload may take the old shape
            result = result_named = None   # the merged version's shape and keywords, read once
            if counted:
                kept, result = shape(other, theirs, key), shape("merged", merged, key)
                counted = kept is not None and kept[1].counts == old[1].counts and result is not None \
                    and result[1].counts == new[1].counts   # type: ignore[index]
            if lost:
                # The other side kept what the base took by keyword, and the merge has this side's.
                kept_named, result_named = keywords(other, theirs, key), keywords("merged", merged, key)
                lost = lost if kept_named is not None and kept_named[0] == named[0][0] and result_named is not None \
                    and result_named[0] == named[1][0] else frozenset()   # type: ignore[index]
            if not counted and not lost:
                continue
            written = result if counted else result_named
            assert written is not None
            yield _Change(path, definition, side, old[1] if old is not None else named[0][1],   # type: ignore[index]
                          written[1], _only(merged, key, _kinds(definition)).line, counted=counted, lost=lost)   # type: ignore[union-attr]


def _only(symbols: Symbols, key: tuple[tuple[str, ...], str], kinds: frozenset[str] = FUNCTION_KINDS) -> Definition | None:
    """The one definition of `key` of `kinds` (function-like unless told), or None (none, several:
    an overload, or of another kind)."""
    found: dict[tuple[int, int], Definition] = {}
    for d in symbols.definitions:
        if (d.container, d.name) == key:
            found.setdefault((d.start_byte, d.end_byte), d)
    # one node may be captured by two patterns (Rust's tags: a function in an impl is a method too)
    return next(iter(found.values())) if len(found) == 1 and next(iter(found.values())).kind in kinds else None


def _kinds(definition: Definition) -> frozenset[str]:
    """The kinds `_only` looks for of `definition`'s key: a class's, or a function's."""
    return CONTAINER_KINDS if definition.kind in CONTAINER_KINDS else FUNCTION_KINDS


def _constructed(rules: SignatureRules, definition: Definition) -> bool:
    """Whether `definition` is a class a call constructs, whose keywords this check reads (the
    profile names its constructor, or its records)."""
    return definition.kind in CONTAINER_KINDS and bool(rules.constructor or rules.records)


def _last_line(source: bytes, definition: Definition) -> int:
    """The line `definition`'s node ends on."""
    return source.count(b"\n", 0, definition.end_byte) + 1


def _takes(profile: Profile, tree: tree_sitter.Tree | None, source: bytes, symbols: Symbols,
           key: tuple[tuple[str, ...], str]) -> tuple[Keywords, Shape] | None:
    """What a call of the definition `key` takes by keyword (with its shape as written, its count
    unknown): a function's parameters; a class's constructor's (profile `constructor`: `__init__`),
    else the fields of a record the language makes it from (`Point(x=1)` of a dataclass:
    record_fields.py); None where unknown."""
    rules = profile.semantic.signatures
    function = _only(symbols, key)
    if function is not None:
        return _keywords(rules, tree, source, function)
    definition = _only(symbols, key, CONTAINER_KINDS)
    if definition is None or not _constructed(rules, definition):
        return None
    own = definition.container + (definition.name,)
    constructor = _only(symbols, (own, rules.constructor)) if rules.constructor else None
    if constructor is not None:
        found = _keywords(rules, tree, source, constructor)
        # (shown as the call writes it: `Point(self, x)` for `__init__(self, x)`)
        return None if found is None else (found[0], Shape(-1, False, definition.name + found[1].text.partition(
            rules.constructor)[2], -1))
    if any(d.container == own and d.name == rules.constructor for d in symbols.definitions):
        return None   # (several: overloads, or it is not a function)
    fields = record_fields(profile, tree, definition, own in symbols.heritage)
    if fields is None:
        return None
    return Keywords(frozenset(fields), False), Shape(-1, False, f"{definition.name}({', '.join(fields)})", -1)


def _shape(rules: SignatureRules, member_of: set[str], tree: tree_sitter.Tree | None, source: bytes,
           definition: Definition) -> Shape | None:
    """What `definition` takes, or None when it cannot be counted (module docstring)."""
    parameters, node = _listed(rules, tree, definition)
    if parameters is None or node is None or (node.parent is not None and node.parent.type in rules.wrappers
                                              and not _transparent(rules, node.parent, node, source)):
        return None
    counted = dict(rules.counted)
    arity, optional, receiver = 0, 0, False
    children = [child for child in parameters.named_children if not child.is_extra]
    if not children and rules.empty_unknown:
        return None   # C's `f()`: any arguments (not a function that takes none)
    if rules.none and len(children) == 1 and source[children[0].start_byte:children[0].end_byte].strip() == rules.none.encode():
        children = []   # C's `f(void)`: none
    for child in children:
        if child.type in rules.receivers:
            receiver = True
            continue
        if child.type in rules.optional:
            optional += 1
            continue
        if optional or child.type not in counted or any(child.child_by_field_name(f) is not None for f in rules.defaults) \
                or rules.default_tokens and any(token.type in rules.default_tokens for token in child.children):
            return None   # (a required parameter after an optional one: keyword-only, or unknown)
        field_name = counted[child.type]
        arity += max(1, len(child.children_by_field_name(field_name))) if field_name else 1
    if rules.uncountable and _holds(parameters, rules.uncountable):
        return None
    if definition.container:
        if rules.receiver_first:
            if arity == 0:
                return None
            arity, receiver = arity - 1, True
        elif node.type in member_of:
            receiver = True   # a Go method: its receiver is its own field, not a parameter
    return Shape(arity, receiver, _shown(source, node, parameters, definition.name), arity + optional)


def _shown(source: bytes, node: tree_sitter.Node, parameters: tree_sitter.Node, name: str) -> str:
    """A definition's name and parameter list as written, on one line, at most _SHAPE_CHARS."""
    shown = _SPACE.sub(" ", source[node.start_byte:parameters.end_byte].decode("utf-8", "replace"))
    # A list written one parameter a line (rustfmt's, black's) reads as it would on one line.
    shown = _LIST_EDGE.sub("", shown)
    start = shown.find(name + "(") if name + "(" in shown else shown.find(name)
    shown = shown[start:] if start >= 0 else shown
    return shown if len(shown) <= _SHAPE_CHARS else shown[:_SHAPE_CHARS - 3] + "..."


def _keywords(rules: SignatureRules, tree: tree_sitter.Tree | None, source: bytes,
              definition: Definition) -> tuple[Keywords, Shape] | None:
    """What `definition` takes by keyword (profile `keywords`), with its shape as written (its count
    unknown: -1), or None where the language names none or its list cannot be read."""
    if not rules.keywords:
        return None
    parameters, node = _listed(rules, tree, definition)
    if parameters is None or node is None:
        return None
    kinds = dict(rules.keywords)
    names: list[str] = []
    open_ = False
    children = [child for child in parameters.named_children if not child.is_extra]
    if definition.container and rules.receiver_first and children:
        children = children[1:]   # `self`: passed by the call's receiver, never by keyword
    for child in children:
        if child.type in rules.positional_only:
            names.clear()   # (those before `/` take no keyword)
        elif child.type in rules.keyword_open:
            open_ = True
        elif child.type in kinds:
            field_name = kinds[child.type]
            named = child.child_by_field_name(field_name) if field_name \
                else child if not child.named_children else child.named_children[0]
            if named is None:
                return None
            names.append(source[named.start_byte:named.end_byte].decode("utf-8", "replace"))
    return Keywords(frozenset(names), open_), Shape(-1, False, _shown(source, node, parameters, definition.name), -1)


def _listed(rules: SignatureRules, tree: tree_sitter.Tree | None,
            definition: Definition) -> tuple[tree_sitter.Node | None, tree_sitter.Node | None]:
    """`definition`'s parameter list and its own node in `tree` (None where either is not found)."""
    parameters = _parameter_list(rules, tree, definition)
    node = parameters.parent if parameters is not None else None
    while node is not None and (node.start_byte, node.end_byte) != (definition.start_byte, definition.end_byte):
        node = node.parent
    return parameters, node


def _transparent(rules: SignatureRules, wrapper: tree_sitter.Node, definition: tree_sitter.Node, source: bytes) -> bool:
    """Whether every decorator of `wrapper` around `definition` is one that keeps what the function
    takes (`@functools.lru_cache(100000)`: dask's `key_split`), read by its text without `@` and
    without a call's arguments."""
    others = [child for child in wrapper.named_children if child.id != definition.id and not child.is_extra]
    if not others or not rules.transparent:
        return False
    for decorator in others:
        text = source[decorator.start_byte:decorator.end_byte].decode("utf-8", "replace").lstrip("@").strip()
        name = text.split("(", 1)[0].strip()
        if name not in rules.transparent or (text != name and not text.endswith(")")):
            return False
    return True


def _parameter_list(rules: SignatureRules, tree: tree_sitter.Tree | None,
                    definition: Definition) -> tree_sitter.Node | None:
    """The parameter list node of `definition` in `tree` (None: not found, or it has none)."""
    node = definition_node(tree, definition)
    if node is None:
        return None
    for path in rules.parameters:
        current: tree_sitter.Node | None = node
        for step in path:
            current = current.child_by_field_name(step) if current is not None else None
        if current is not None:
            return current
    return None


class _Edited:
    """The line ranges (first, last) a diff edited (`edited_lines`), asked whether a range of lines
    meets one of them. A diff's hunks come in order, so both the firsts and the lasts rise (an
    insertion's (n, n + 1) ends where the next hunk may start): the first range ending at or after
    a line is found by bisection, and only it can start early enough (a file of many hunks and
    many functions compared each function with every hunk, twice: the left-behind look's
    reshaped test of bench_merge's task files, 24 of each). Ranges out of that order are scanned."""

    def __init__(self, ranges: list[tuple[int, int]]):
        self.ranges = ranges
        self.firsts = [first for first, _ in ranges]
        self.lasts = [last for _, last in ranges]
        self.ordered = all(a <= b for a, b in zip(self.firsts, self.firsts[1:])) \
            and all(a <= b for a, b in zip(self.lasts, self.lasts[1:]))

    def __bool__(self) -> bool:
        return bool(self.ranges)

    def meets(self, first: int, last: int, lead: int = 0) -> bool:
        """Whether an edited range, its first line moved `lead` lines up, shares a line with
        first..last."""
        if not self.ordered:
            return any(start - lead <= last and first <= end for start, end in self.ranges)
        at = bisect.bisect_left(self.lasts, first)
        return at < len(self.lasts) and self.firsts[at] - lead <= last


def _touches(node: tree_sitter.Node | None, touched: _Edited) -> bool:
    if node is None:
        return False
    return touched.meets(node.start_point[0] + 1, node.end_point[0] + 1)


def _holds(node: tree_sitter.Node, kinds: frozenset[str]) -> bool:
    stack = list(node.named_children)
    while stack:
        current = stack.pop()
        if current.type in kinds:
            return True
        stack.extend(current.named_children)
    return False


def reshaped(path: str, before: bytes, after: bytes, *,
             symbols: tuple[Symbols | None, Symbols | None] | None = None) -> set[tuple[tuple[str, ...], str]]:
    """The (container, name) of each function `after` reshaped: defined once in both versions, its
    parameter list touched by the edit, countable in both (the rules above), its count changed and
    its receiver not. For the left-behind look (check/left_behind.py), which then reads the calls
    the landed tree keeps of each through this module's `_calls`, the way a merge's added calls are
    read. `symbols`: both versions' definitions where the caller extracted them already.
    An edit that only inserts lines reshapes nothing unless a line goes in after one ending in `(`
    or `,`, inside a parameter list (a parameter inserted after the list's last one makes that line
    end with a comma: a touched line): most of a run's edits add code, and such a file is not read."""
    profile = _profile(path)
    if profile is None or before == after:
        return set()
    touched = _Edited(edited_lines(before, after))
    if not touched:
        return set()
    if not touched_lines(before, after):
        lines = before.split(b"\n")
        if not any(0 < first <= len(lines) and lines[first - 1].rstrip().endswith((b"(", b","))
                   for first, _last in touched.ranges):
            return set()
    try:
        profile = reading_profile(path, after, profile)   # (a C++ header named .h)
        old_tree, new_tree = profile.parse(before), profile.parse(after)
        old, new = symbols if symbols is not None else (None, None)
        old = old if old is not None else extract(profile, before, old_tree, uses=False)
        new = new if new is not None else extract(profile, after, new_tree, uses=False)
    except (ValueError, UnicodeDecodeError):
        return set()
    rules = profile.semantic.signatures
    member_of = {kind for kind, _ in profile.semantic.member_of}
    out: set[tuple[tuple[str, ...], str]] = set()
    for definition in old.definitions:
        key = (definition.container, definition.name)
        if key in out:
            continue
        if _constructed(rules, definition):
            # A class: a call of it passes its keywords to its constructor, or its record's fields.
            if touched.meets(definition.line, _last_line(before, definition)) \
                    and (was_takes := _takes(profile, old_tree, before, old, key)) is not None \
                    and (now_takes := _takes(profile, new_tree, after, new, key)) is not None \
                    and was_takes[0].lost(now_takes[0]):
                out.add(key)
            continue
        if definition.kind not in FUNCTION_KINDS \
                or not touched.meets(definition.line, definition.line, _HEADER_LINES) \
                or not _touches(_parameter_list(rules, old_tree, definition), touched):
            continue
        if definition.container and any(definition.container in s.heritage for s in (old, new)):
            continue   # a member of a class with bases: an inherited overload may take the old shape
        was, now = _only(old, key), _only(new, key)
        if was is None or now is None:
            continue
        old_shape, new_shape = _shape(rules, member_of, old_tree, before, was), _shape(rules, member_of, new_tree, after, now)
        if old_shape is not None and new_shape is not None and old_shape.counts != new_shape.counts \
                and old_shape.receiver == new_shape.receiver:
            out.add(key)
        elif (old_keywords := _keywords(rules, old_tree, before, was)) is not None \
                and (new_keywords := _keywords(rules, new_tree, after, now)) is not None \
                and old_keywords[0].lost(new_keywords[0]):
            out.add(key)   # a parameter renamed or dropped: its calls by keyword fail
    return out


# -- step 2: calls the other side added, the old way -----------------------------------------------
def _calls(check: _Check, changes: list[_Change], used_side: str) -> Iterator[SemanticFinding]:
    if not changes:
        return
    by_key = {(c.path, c.definition.container, c.definition.name): c for c in changes}
    tokens = {c.path: check.module_token(c.path) for c in changes}
    for path, versions in check.in_order():
        data, merged_data = versions.version(used_side), versions.merged
        if data is None or merged_data is None or versions.same(used_side, "base"):
            continue
        profile = _profile(path)
        if profile is None:
            continue
        here = package_key(path)
        spelled = [c for c in changes if c.definition.name.encode() in data]
        names = {c.definition.name for c in spelled
                 if c.path == path or tokens[c.path] in data
                 or (here is not None and check.package_wide(c.path) and package_key(c.path) == here)}
        through = [c for c in spelled if c.definition.name not in names]
        if through:
            # A name reached through a re-export or a crate path, whose file's module word the user
            # need not spell (ripgrep: `cli::parse_human_readable_size(&s)` after `use grep::cli;`,
            # defined in grep-cli's src/human.rs): as semantic.py's `uses` reads such a file.
            reached = check.reached_through(path, {c.definition.name for c in through}) | check.imported_files(path)
            names.update(c.definition.name for c in through if c.path in reached)
        if not names:
            continue
        added = added_lines(versions.base or b"", data)
        text = lines_text(data, added)
        if not any(name.encode() in text for name in names):
            continue
        merged = check.symbols(path, "merged")
        tree = check.tree(path, "merged")
        if merged is None or tree is None:
            continue
        followed = follow(data, merged_data, added)
        rules = profile.semantic.signatures
        for reference in merged.references:
            if reference.kind != "call" or reference.name not in names or reference.line not in followed:
                continue
            target = _target(check, path, reference, merged, by_key)
            if target is None:
                continue
            change = by_key.get(target[:3])
            if change is None:
                continue
            if change.lost and (passed := _keyword_arguments(rules, tree, reference) & change.lost):
                # (by keyword, the receiver does not matter: `obj.f(k=1)` and `C.f(obj, k=1)` alike)
                yield _finding(check, change, path, reference, used_side, 0, min(passed))
                continue
            if not change.counted or (change.new.receiver and target[3] != "self"):
                continue
            count = _arguments(rules, tree, reference)
            if count is None or not change.old.takes(count) or change.new.takes(count):
                continue
            yield _finding(check, change, path, reference, used_side, count)


def _target(check: _Check, path: str, reference: Reference, merged: Symbols,
            changed: "dict | frozenset" = frozenset()) -> tuple[str, tuple[str, ...], str, str] | None:
    """(file, container, name, how) of the one definition a call surely means, else None; `how`:
    "bare", "self" (through the enclosing type's receiver), "class" or "module". A linked
    language's function declared in a header and defined in a file is one function (C has no
    overloads): the first of its files in `changed` (the keys of the reshaped definitions)."""
    profile = _profile(path)
    assert profile is not None
    rules = profile.semantic
    name, receiver = reference.name, reference.receiver
    candidates: list[tuple[str, tuple[str, ...], str, str]] = []
    if receiver is None:
        imported = visible_import(merged, name, reference)
        if imported is not None and rules.members_in_scope and _member_in_scope(reference, merged, name):
            return None   # Java: a method of the enclosing class hides a static import of that name
        if imported is not None:
            if imported.name is not None and rules.member_imports:
                # `import static p.Util.quote;`: the member of class Util, in Util.java
                candidates += [(f, c, n, "bare") for f, c, n in check.imported_from(imported.module, imported.name, path, rules)]
            elif imported.name is not None:
                candidates += [(f, (), imported.name, "bare") for f in check.resolve(imported.module, path, rules)]
        elif reference.scopes & merged.local.get(name, set()) or name in rules.globals:
            return None
        else:
            if rules.members_in_scope and reference.container:
                for depth in range(len(reference.container), 0, -1):
                    container = reference.container[:depth]
                    if container in merged.heritage:
                        return None   # may be an inherited overload
                    if merged.binds(container, name):
                        return (path, container, name, "bare")
            if merged.wildcard:
                return None
            if merged.binds((), name):
                return (path, (), name, "bare")
            if rules.package in ("directory", "linked"):
                candidates += [(f, (), name, "bare") for f in check.package_files(path)
                               if check.defined_in_merged((f, (), name))]
    elif receiver in rules.self_receivers or receiver in reference.selves:
        if not reference.container or reference.container in merged.heritage:
            return None
        return (path, reference.container, name, "self")
    elif rules.module_separator != "." and receiver.partition(rules.module_separator)[0] in rules.module_roots \
            and visible_import(merged, receiver, reference) is None:
        # A path from a module root (`crate::to_value(x)`, `crate::value::to_value(x)`): the
        # definitions it leads to, through the crate root's `pub use` too, as the broken-names check reads it.
        candidates += [(f, c, n, "module") for f, c, n in check.imported_from(receiver, name, path, rules)]
    else:
        if (receiver,) in merged.bound or any(d.name == receiver and not d.container for d in merged.definitions):
            candidates.append((path, (receiver,), name, "class"))
        imported = visible_import(merged, receiver, reference)
        if imported is not None and imported.name is None:
            candidates += [(f, (), name, "module") for f in check.resolve(imported.module, path, rules)]
        elif imported is not None:
            separator = rules.module_separator
            whole = imported.module.rstrip(separator) + separator + imported.name
            if rules.package_roots:
                # A crate path imported by name and called through (`use grep::cli;` then
                # `cli::f(x)`): where it leads, re-exports followed, as the broken-names check reads it.
                candidates += [(f, c, n, "module") for f, c, n in check.imported_from(whole, name, path, rules)]
            candidates += [(f, (), name, "module") for f in check.resolve(whole, path, rules)]
            candidates += [(f, (imported.name,), name, "class") for f in check.resolve(whole, path, rules)]
            candidates += [(f, (imported.name,), name, "class") for f in check.resolve(imported.module, path, rules)]
        if not candidates:
            # What the broken-names check follows a receiver to where it is sure: a class of the
            # file's package that needs no import (Java's `Util.union(a, b)`), a local, parameter
            # or field whose declared type the file spells (`code.addNamed(...)`).
            candidates += [(f, c, n, "class") for f, c, n in check.targets(path, reference, merged)]
    defined = list(dict.fromkeys(c for c in candidates if check.defined_in_merged(c[:3])))
    if len(defined) > 1 and all(is_linked(package_key(c[0])) for c in defined):
        return next((c for c in defined if c[:3] in changed), defined[0])
    return defined[0] if len(defined) == 1 else None


def _member_in_scope(reference: Reference, merged: Symbols, name: str) -> bool:
    """Whether a class around `reference` declares `name`, or has a base that may (the call may
    then be its own method's, whatever an import of the name says)."""
    return any(reference.container[:depth] in merged.heritage or merged.binds(reference.container[:depth], name)
               for depth in range(len(reference.container), 0, -1))


def _arguments(rules: SignatureRules, tree: tree_sitter.Tree, reference: Reference) -> int | None:
    """How many arguments the call whose callee ends in `reference`'s name passes; None when the
    name is not what a call calls, or the count is unknown (a spread, a keyword argument)."""
    if reference.start_byte < 0:
        return None
    end = reference.start_byte + len(reference.name.encode())
    node = tree.root_node.named_descendant_for_byte_range(reference.start_byte, end)
    if node is not None and rules.token_lists and node.parent is not None and node.parent.type in rules.token_lists:
        # A call in a macro call's tokens (Rust's `tri!(to_value(x))`), which the parse leaves unparsed.
        return _token_arguments(rules, node) if node.end_byte == end else None
    calls = dict(rules.calls)
    while node is not None and node.type not in calls:
        node = node.parent
    if node is None:
        return None
    callee = node.child_by_field_name(calls[node.type])
    if callee is None or callee.end_byte != end:
        return None   # the name is not what this call calls (`f(g)`, `a.f.g()`)
    arguments = node.child_by_field_name(rules.arguments)
    if arguments is None or arguments.type not in rules.argument_lists:
        return None   # Python's `f(x for x in y)`
    items = [child for child in arguments.named_children if not child.is_extra]
    if any(child.type in rules.spread for child in items):
        return None
    return len(items)


def _keyword_arguments(rules: SignatureRules, tree: tree_sitter.Tree, reference: Reference) -> frozenset[str]:
    """The names the call whose callee ends in `reference`'s name passes by keyword (`f(s, max_width=2)`)."""
    if not rules.keyword_arguments or reference.start_byte < 0:
        return frozenset()
    end = reference.start_byte + len(reference.name.encode())
    node = tree.root_node.named_descendant_for_byte_range(reference.start_byte, end)
    calls = dict(rules.calls)
    while node is not None and node.type not in calls:
        node = node.parent
    callee = node.child_by_field_name(calls[node.type]) if node is not None else None
    if node is None or callee is None or callee.end_byte != end:
        return frozenset()
    arguments = node.child_by_field_name(rules.arguments)
    if arguments is None:
        return frozenset()
    kinds = dict(rules.keyword_arguments)
    return frozenset(name.text.decode("utf-8", "replace") for child in arguments.named_children
                     if child.type in kinds and (name := child.child_by_field_name(kinds[child.type])) is not None
                     and name.text is not None)


def _token_arguments(rules: SignatureRules, name: tree_sitter.Node) -> int | None:
    """How many arguments the parenthesized token list right after `name` passes: its runs of
    tokens between top-level commas (a trailing comma opens none); None when no such list follows,
    or a token that may hold a comma of its own at the top level (a closure's `|a, b|`, `<A, B>`)
    stands among them."""
    arguments = name.next_sibling
    if arguments is None or arguments.type not in rules.token_lists or arguments.child_count < 2 \
            or arguments.children[0].type != "(":
        return None
    count, run = 0, False
    for child in arguments.children[1:-1]:
        if child.type in rules.token_unknown:
            return None
        if child.type == ",":
            count, run = count + run, False
        else:
            run = True
    return count + run


def _finding(check: _Check, change: _Change, use_path: str, reference: Reference, used_side: str,
             count: int, keyword: str = "") -> SemanticFinding:
    definition = change.definition
    use = check.merged_line(use_path, reference.line)
    return SemanticFinding(
        name=member_name(change.path, definition.container, definition.name), kind=definition.kind,
        definition_path=change.path, definition_line=change.merged_line, use_path=use_path,
        use_line=reference.line, removed_by=check.labels[change.side], used_by=check.labels[used_side],
        declaration=reference.declaration, definition=change.old.text, use=use, problem="signature",
        replacement=change.new.text, arguments=count, keyword=keyword)
