"""The post-merge duplicate check: a declaration the merged file holds twice.

Stage: after a merge (one file, or every file of a tree merge), beside the broken-names check
(semantic.py calls both). Input: per file, its path and the base, left, right and merged bytes.
Output: `SemanticFinding`s with `problem="duplicate"`, naming both places in the merged file.

A clean merge (git's line merge, or the structured merge) can hold one declaration twice: both
sides added the same function or import in different places, a member moved on one side and
edited or moved on the other (the line merge keeps both copies), moved on one side and deleted on
the other. That does not compile in Go, Rust, Java or TypeScript, and in Python the second silently
replaces the first. A declaration is reported when the merged file declares it more often in one
scope than the base and each side do (so a pair either side already had is not the merge's doing).

Where a profile keys declarations with their signature (overloads: Java, TypeScript), two
declarations of one name with two signatures are two overloads, and legal; but a name the base
did not declare in that scope, which both sides declare with a signature the other side does not
have, taking the same parameters by name (`mergeConfig(config1: C, config2?: C<D>)` on one side,
`mergeConfig(config1: C<D>, config2: C<D>)` on the other), while the merged file holds both, is
one new function written twice, not two overloads anyone asked for: reported as a pair too. A
name the base already declared, a side's signatures the other side also has, and overloads whose
parameters are named differently (`of(int x)`, `of(String s)`) stand. Two signatures that differ
only in their parameters' names are one (`parameter_name`: Java's `c(int x)` and `c(int y)`), and a
kind that can have only one body per name (`implementations`: TypeScript's functions and methods,
whose overloads are bodiless signatures) is keyed without its parameters at all.

Precision first (the profile's `[semantic.duplicates]` data says what counts; nothing here is
language-specific):
- only declaration kinds the profile lists count, and only where every node between them and the
  file's root is a listed body or wrapper, a declaration or a scope: a definition in an `if`, a
  `try`, a function's statements or a preprocessor branch is conditional or local, never counted;
- what is declared is the node's kind, the text before its name (modifiers, `async`, a Go
  receiver, `get`/`set`), its name, the profile's signature field (overloads: parameters), and
  the chain of enclosing declarations and scopes (Rust `impl` headers, not type names), so
  overloads, accessors, methods of different receivers and different trait impls never collide;
- a lead (decorator, attribute, `export`) matching the profile's `exempt` pattern (`@overload`,
  `@x.setter`, `#[cfg(...)]`) takes a declaration out of the count; what it holds is counted in a
  scope of its own, named with that lead (`#[cfg(test)] mod tests` and `#[cfg(unix)] mod imp`
  are scopes, their twins under other conditions other scopes);
- an import is the name it binds in its scope (from one path or two: `use crate::body::Body` and
  `use hyper::Body`), seen through the semantic query's `@import.*` captures and the profile's
  `bindings` query (Rust's nested use lists);
- a file version that does not parse cleanly gives nothing (never guessed).
Cost: a file whose merged bytes are one side's (what a tree merge gives every file only one side
changed) is never read; otherwise the merged file is parsed, and the others only when it holds a
declaration twice whose name the merge added occurrences of. Those are parsed from a tree already
made (`Profile.parse(like=...)`, reparse.py: tree-sitter re-reads only what the line diff touched,
and the tree is the one a fresh parse gives): the base from the merged file's, each side from the
base's (the pairs the semantic check diffs too, so their diffs are mostly kept), or from the merged
file's when there is no base.
"""

from __future__ import annotations

import collections
import functools
import re
from typing import Iterable

import tree_sitter

from ...frozen import value_class
from ..languages.profiles import DuplicateRules, Profile, profile_for_path
from ..languages.reparse import inverted
from ..lines.linediff import hunks
from ..result import SemanticFinding, name_word
from .symbols import query_for
from .versions import MAX_BYTES, Versions

_WORDS = re.compile(rb"[A-Za-z_$][\w$]*")
_SPACE = re.compile(r"\s+")
_EXCERPT_LINES = 6


@value_class
class Declaration:
    """One counted declaration: `key` is what it declares (equal keys may not repeat in a file)."""

    key: tuple[object, ...]
    name: str           # qualified by its enclosing declarations (`Store.get`)
    kind: str           # the capture's kind (function, method, class...), "import" or the header's node kind
    line: int
    start_byte: int
    end_byte: int
    parameters: tuple[str, ...] | None = None   # the signature's parameter names, where it has one


@functools.lru_cache(maxsize=65536)
def duplicate_rules(path: str) -> tuple[Profile, DuplicateRules] | None:
    profile = profile_for_path(path)
    if profile is None or not profile.semantic.enabled or not profile.semantic.duplicates.enabled:
        return None
    return profile, profile.semantic.duplicates


def find_duplicates(files: Iterable[Versions], *, labels: tuple[str, str, str] = ("ours", "base", "theirs"),
                    trees: dict[str, tree_sitter.Tree] | None = None) -> tuple[SemanticFinding, ...]:
    """Every declaration a merged file of `files` holds twice in one scope where neither the base nor
    either side did (module docstring), in path and line order. `trees`: parsed versions by name
    (base, left, right), for a one-file call."""
    out: list[SemanticFinding] = []
    files = list(files)
    for versions in files:
        # One side's version (every file only one side changed, in a tree merge): any pair in it is
        # that side's own. Compared by blob id where the versions have one, before any is read.
        if not versions.exists("merged") or versions.same("merged", "left") or versions.same("merged", "right"):
            continue
        found = duplicate_rules(versions.path)
        if found is None:
            continue
        merged = versions.merged
        if merged is None or merged == versions.version("left") or merged == versions.version("right"):
            continue
        out.extend(_check_file(versions, found[0], found[1], labels, trees if len(files) == 1 else None))
    return tuple(sorted(out, key=lambda f: (f.use_path, f.use_line, f.name)))


def _check_file(versions: Versions, profile: Profile, rules: DuplicateRules, labels: tuple[str, str, str],
                trees: dict[str, tree_sitter.Tree] | None) -> list[SemanticFinding]:
    merged = versions.merged
    assert merged is not None
    if not _readable(merged):
        return []
    merged_tree = profile.parse(merged)
    found = declarations(profile, rules, merged, merged_tree)
    if not found:
        return []
    groups: dict[tuple[object, ...], list[Declaration]] = collections.defaultdict(list)
    for item in found:
        groups[item.key].append(item)
    twice = {key: items for key, items in groups.items() if len(items) > 1 and key[1] not in rules.overloads}
    # One name declared with two or more signatures (keys): overloads, or one new name both sides
    # declared their own way (decided below, once the inputs are read).
    by_name: dict[tuple[object, ...], list[tuple[object, ...]]] = collections.defaultdict(list)
    if rules.signature:
        for key in groups:
            if len(key) == 5:
                by_name[key[:4]].append(key)
    overloaded = {name: keys for name, keys in by_name.items() if len(keys) > 1}
    if not twice and not overloaded:
        return []
    # The merge made a pair only when it added occurrences of the name's words: cheap, before parsing
    # the three inputs.
    counts = {which: collections.Counter(_WORDS.findall(versions.version(which) or b""))
              for which in ("base", "left", "right")}
    in_merged = collections.Counter(_WORDS.findall(merged))
    grown = {word for word, n in in_merged.items() if n > max(c[word] for c in counts.values())}
    twice = {key: items for key, items in twice.items()
             if any(word in grown for word in _WORDS.findall(name_word(items[0].name).encode()))}
    overloaded = {name: keys for name, keys in overloaded.items()
                  if any(word in grown for word in _WORDS.findall(str(name[3]).encode()))}
    if not twice and not overloaded:
        return []
    before: dict[str, collections.Counter[tuple[object, ...]]] = {}
    held: dict[str, tuple[bytes, tree_sitter.Tree]] = {"merged": (merged, merged_tree)}
    for which in ("base", "left", "right"):
        data = versions.version(which)
        if data is None:
            before[which] = collections.Counter()
            continue
        tree = (trees or {}).get(which)
        if tree is None and _readable(data):
            tree = _parse_from(profile, which, data, held)
        if tree is not None:
            held[which] = (data, tree)
        parsed = declarations(profile, rules, data, tree)
        if parsed is None:
            return []   # an input that does not parse: nothing is guessed
        before[which] = collections.Counter(item.key for item in parsed)
    pairs = [items for key, items in twice.items() if len(items) > max(before[which][key] for which in before)]
    declared = {which: {key[:4] for key in before[which] if len(key) == 5} for which in before}
    for name, keys in overloaded.items():
        if name in declared["base"]:
            continue   # overloads added to a name the base had: they stand
        left = {key for key in before["left"] if key[:4] == name}
        right = {key for key in before["right"] if key[:4] == name}
        only_left = [key for key in keys if key in left and key not in right]
        only_right = [key for key in keys if key in right and key not in left]
        same = [(a, b) for a in only_left for b in only_right if groups[a][0].parameters == groups[b][0].parameters]
        if same:
            pairs.append(sorted((groups[same[0][0]][0], groups[same[0][1]][0]), key=lambda d: d.start_byte))
    # A declaration inside one reported twice (a method of an impl both sides added) is that pair's.
    pairs = [items for items in pairs
             if not any(other is not items and o.start_byte <= items[0].start_byte < o.end_byte
                        and (o.start_byte, o.end_byte) != (items[0].start_byte, items[0].end_byte)
                        for other in pairs for o in other[:1])]
    out = []
    for items in pairs:
        first, second = items[0], items[1]
        text = merged[first.start_byte:first.end_byte].decode("utf-8", "replace").splitlines()
        excerpt = "\n".join(text[:_EXCERPT_LINES]) + ("\n..." if len(text) > _EXCERPT_LINES else "")
        lines = merged.split(b"\n")
        use = lines[second.line - 1].decode("utf-8", "replace").strip() if second.line <= len(lines) else ""
        out.append(SemanticFinding(
            name=first.name, kind=first.kind, definition_path=versions.path, definition_line=first.line,
            use_path=versions.path, use_line=second.line, removed_by=labels[0], used_by=labels[2],
            definition=excerpt, use=use, problem="duplicate"))
    return out


def _readable(source: bytes) -> bool:
    """Whether a version is read at all: not too big, not binary (`declarations` gives None for it)."""
    return len(source) <= MAX_BYTES and b"\x00" not in source[:8000]


def _parse_from(profile: Profile, which: str, data: bytes, held: dict[str, tuple[bytes, tree_sitter.Tree]]
                ) -> tree_sitter.Tree:
    """The tree of the input `which`, parsed from the tree of a version already parsed: the base
    from the merged file's, a side from the base's (else the merged file's). The diffs are asked
    from the base where it is one of the pair, as the semantic check asks them (linediff keeps them)."""
    if which == "base":
        old, old_tree = held["merged"]
        return profile.parse(data, like=(old, lambda: inverted(hunks(data, old)), old_tree))
    old, old_tree = held.get("base") or held["merged"]
    return profile.parse(data, like=(old, lambda: hunks(old, data), old_tree))


def declarations(profile: Profile, rules: DuplicateRules, source: bytes,
                 tree: tree_sitter.Tree | None = None) -> list[Declaration] | None:
    """The counted declarations of one file version, in file order (None: it does not parse
    cleanly, is binary or too big)."""
    if not _readable(source):
        return None
    if tree is None:
        tree = profile.parse(source)
    if tree.root_node.has_error:
        return None
    captured: dict[int, tuple[tree_sitter.Node, tree_sitter.Node, str]] = {}   # node id -> (node, name, kind)
    imports: list[dict[str, tree_sitter.Node]] = []
    for _, captures in tree_sitter.QueryCursor(query_for(profile, False)).matches(tree.root_node):
        names = captures.get("name", [])
        for capture, nodes in captures.items():
            if capture.startswith("definition.") and names:
                captured.setdefault(nodes[0].id, (nodes[0], names[0], capture.split(".", 1)[1]))
        if rules.imports:
            parts = {key.split(".", 1)[1]: nodes[0] for key, nodes in captures.items() if key.startswith("import.")}
            if parts and "wildcard" not in parts:
                imports.append(parts)
    headers = dict(rules.headers)
    scopes = {kind for kind, _ in profile.semantic.scopes} | set(headers)
    walker = _Walker(source, rules, captured, scopes)
    out: list[Declaration] = []
    for node, name_node, kind in captured.values():
        if node.type not in rules.declarations and node.type not in rules.overloads:
            continue
        name = _text(source, name_node)
        if name in rules.repeatable:
            continue
        chain = walker.chain(node.parent)
        if chain is None or walker.exempt(node):
            continue
        prefix = _normal(source[node.start_byte:name_node.start_byte])
        signature, parameters = "", None
        if rules.signature and node.type not in rules.implementations:
            field = node.child_by_field_name(rules.signature)
            if field is not None:
                signature = _signature_key(source, field, rules.parameter_name)
                parameters = tuple(_parameter_name(source, child) for child in field.named_children
                                   if not child.is_extra)
        out.append(Declaration((chain[0], node.type, prefix, name, signature), profile.semantic.member_name(chain[1], name), kind,
                               name_node.start_point[0] + 1, node.start_byte, node.end_byte, parameters))
    # An import is what it binds: the same name imported twice into one scope, from one module or
    # from two (`use crate::body::Body` and `use hyper::Body`), does not compile.
    anchors = [parts.get("alias") or parts.get("name") or parts.get("module") for parts in imports]
    if rules.bindings:
        anchors.extend(node for node in tree_sitter.QueryCursor(_bindings_query(profile)).captures(
            tree.root_node).get("bound", []))
    seen: set[int] = set()
    for anchor in anchors:
        if anchor is None or anchor.id in seen:
            continue
        seen.add(anchor.id)
        statement = anchor   # the import statement holding it (its own nodes are its parts)
        while statement is not None and statement.type not in rules.imports:
            statement = statement.parent
        if statement is None:
            continue
        chain = walker.chain(statement.parent)
        if chain is None:
            continue
        bound = _text(source, anchor)
        if bound in rules.repeatable:
            continue
        out.append(Declaration((chain[0], "import", bound), bound, "import", anchor.start_point[0] + 1,
                               anchor.start_byte, anchor.end_byte))
    if headers:
        for node in walker.header_nodes(tree.root_node, headers):
            chain = walker.chain(node.parent)
            if chain is None or walker.exempt(node):
                continue
            header = walker.header(node)
            out.append(Declaration((chain[0], node.type, header), header, node.type, node.start_point[0] + 1,
                                   node.start_byte, node.end_byte))
    out.sort(key=lambda d: d.start_byte)
    return out


class _Walker:
    """Places a declaration among its ancestors: the scope chain it declares in, or None when an
    ancestor makes it conditional or local (a node the profile does not list)."""

    def __init__(self, source: bytes, rules: DuplicateRules,
                 captured: dict[int, tuple[tree_sitter.Node, tree_sitter.Node, str]], scopes: set[str]):
        self.source, self.rules, self.captured, self.scopes = source, rules, captured, scopes
        self._chains: dict[int, tuple[tuple[object, ...], tuple[str, ...]] | None] = {}

    def chain(self, node: tree_sitter.Node | None) -> tuple[tuple[object, ...], tuple[str, ...]] | None:
        """(scope key, enclosing names) of what stands directly in `node`; None: not counted."""
        if node is None:
            return (), ()
        cache_key = node.id
        if cache_key in self._chains:
            return self._chains[cache_key]
        result: tuple[tuple[object, ...], tuple[str, ...]] | None
        if node.parent is None or node.type in self.rules.through:
            result = self.chain(node.parent)
        elif node.id in self.captured and node.type in self.rules.declarations:
            # An exempt declaration (`#[cfg(test)] mod tests`) is not counted itself, but it is a
            # scope of its own, named with its lead: what it holds may not repeat inside it, and
            # its twin under another condition is another scope.
            outer = self.chain(node.parent)
            _, name_node, _ = self.captured[node.id]
            name = _text(self.source, name_node)
            scope = (node.type, name) + ((self.lead(node),) if self.exempt(node) else ())
            result = None if outer is None else (outer[0] + (scope,), outer[1] + (name,))
        elif node.type in self.scopes:
            outer = self.chain(node.parent)
            scope = (node.type, self.header(node)) + ((self.lead(node),) if self.exempt(node) else ())
            result = None if outer is None else (outer[0] + (scope,), outer[1])
        else:
            result = None
        self._chains[cache_key] = result
        return result

    def exempt(self, node: tree_sitter.Node) -> bool:
        """Whether the node's lead matches the profile's `exempt` pattern."""
        pattern = self.rules.exempt
        if pattern is None:
            return False
        lead = self.lead(node)
        return bool(lead) and pattern.search(lead) is not None

    def lead(self, node: tree_sitter.Node) -> str:
        """The node's lead: its wrappers' text before it and the profile's `lead` siblings before it."""
        parts: list[bytes] = []
        current = node
        while True:
            sibling = current.prev_named_sibling
            while sibling is not None and (sibling.type in self.rules.lead or sibling.is_extra):
                parts.append(self.source[sibling.start_byte:sibling.end_byte])
                sibling = sibling.prev_named_sibling
            parent = current.parent
            if sibling is not None or parent is None or parent.parent is None or parent.type not in self.rules.through:
                break
            # Nothing but lead before it: the parent wraps it (decorated_definition, export_statement),
            # and the parent's own text before it (`export `) and lead are the declaration's too.
            parts.append(self.source[parent.start_byte:current.start_byte])
            current = parent
        return _normal(b"\n".join(parts)) if parts else ""

    def header(self, node: tree_sitter.Node) -> str:
        """The node's text before its body (`impl<T> Display for Foo<T>`), spaces normalized."""
        body = node.child_by_field_name("body")
        end = body.start_byte if body is not None else node.end_byte
        return _normal(self.source[node.start_byte:end])

    @staticmethod
    def header_nodes(root: tree_sitter.Node, headers: dict[str, str]) -> list[tree_sitter.Node]:
        """Nodes of a `headers` kind that have its field (`impl_item` with a `trait`), top-down."""
        out, stack = [], [root]
        while stack:
            node = stack.pop()
            if node.type in headers and node.child_by_field_name(headers[node.type]) is not None:
                out.append(node)
            stack.extend(reversed(node.named_children))
        return out


@functools.lru_cache(maxsize=None)
def _bindings_query(profile: Profile) -> tree_sitter.Query:
    """The profile's `bindings` query, compiled once (profiles.py checked it when the profile loaded)."""
    return tree_sitter.Query(profile.language, profile.semantic.duplicates.bindings)


def _signature_key(source: bytes, field: tree_sitter.Node, name_field: str | None) -> str:
    """What tells overloads apart: the parameter list's text, or, with `name_field`, each
    parameter's text without its name (`(int x)` and `(int y)` are one signature in Java)."""
    if name_field is None:
        return _normal(_text(source, field))
    parts = []
    for child in field.named_children:
        if child.is_extra:
            continue
        name = child.child_by_field_name(name_field)
        text = source[child.start_byte:child.end_byte] if name is None else \
            source[child.start_byte:name.start_byte] + b" " + source[name.end_byte:child.end_byte]
        parts.append(_normal(text))
    return "(" + ", ".join(parts) + ")"


def _parameter_name(source: bytes, node: tree_sitter.Node) -> str:
    """A parameter's name: its `name` field (Java), its `pattern` (TypeScript), else its text."""
    for field in ("name", "pattern"):
        child = node.child_by_field_name(field)
        if child is not None:
            return _normal(_text(source, child))
    return _normal(_text(source, node))


def _text(source: bytes, node: tree_sitter.Node) -> str:
    return source[node.start_byte:node.end_byte].decode("utf-8", "replace")


def _normal(data: bytes | str) -> str:
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    return _SPACE.sub(" ", text).strip()
