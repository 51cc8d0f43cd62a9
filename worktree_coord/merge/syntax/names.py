"""Names members bind and names a side's new code uses: what the structured merge checks before it
takes one side's deletion or rename, and before it trusts a result's imports.

Stage: a helper of the structured merge (structured.py) and of the cascade's last checks
(cascade.py). Input: a profile with a `binds` query (grammars/*.toml), source bytes and tree-sitter
nodes. Output: sets and counts of names.
Invariants: nothing language-specific here but the rule that turns an import path into a name (a
`@path` capture: its last segment, a `vN` major version segment skipped); a capture counts only for
the member it belongs to (not for a function or class nested in the member's body, nor for a member
of a container nested in it), so a deleted class does not take its methods' names with it; uses are
identifier tokens (any node kind ending in `identifier`, and a profile's `name_kinds`), never text
in strings or comments. Both directions err toward a conflict: a name used in new code that a side stopped binding is reported
even when another scope might bind it.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Set

import tree_sitter

from .members import declaration_key
from ..languages.profiles import Profile

_VERSION_SEGMENT = re.compile(r"v\d+")
_IDENTIFIER_TAIL = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")


def _path_name(literal: bytes) -> str | None:
    """The name an unnamed import of this path binds: its last segment (`"net/http"` -> `http`),
    the one before a major version segment (`".../chart/v2"` -> `chart`), without a `.vN` suffix
    or a `go-` prefix (`"gopkg.in/yaml.v3"` -> `yaml`)."""
    segments = [segment for segment in literal.decode("utf-8", "replace").strip("\"'`").split("/") if segment]
    if len(segments) > 1 and _VERSION_SEGMENT.fullmatch(segments[-1]):
        segments.pop()
    if not segments:
        return None
    last = re.sub(r"\.v\d+$", "", segments[-1]).removeprefix("go-")
    found = _IDENTIFIER_TAIL.search(last.replace("-", "_").replace(".", "_"))
    return found.group(0) if found else None


def _owned(profile: Profile, source: bytes, member: tree_sitter.Node, capture: tree_sitter.Node,
           is_import: bool) -> bool:
    """Whether a capture belongs to `member` itself: not inside a body (the member's own or that of
    something nested in it: a function's locals, a class's methods), and, for declarations, not a
    member of a container nested in it (an interface's methods are not the interface's names)."""
    node = capture
    while node.id != member.id:
        parent = node.parent
        if parent is None:
            return False
        body = parent.child_by_field_name("body")
        if body is not None and body.id == node.id:
            return False
        if not is_import and node.id != capture.id and \
                profile.container_rule(node, lambda item: declaration_key(source, item, profile)) is not None:
            return False
        node = parent
    return True


def bound_names(profile: Profile, source: bytes, member: tree_sitter.Node, *,
                imports_only: bool = False, among: Set[str] | None = None) -> Counter[str]:
    """The names `member` binds (with multiplicity), per the profile's `binds` query; with
    `among`, only those names are looked at (the cheap path for a large member)."""
    query = profile.binds_query
    out: Counter[str] = Counter()
    if query is None:
        return out
    if among is not None:
        # A name the member's text does not hold cannot be bound by it (an import path's name is
        # its last segment, so it is in the text too): skip the query.
        text = source[member.start_byte:member.end_byte]
        among = {name for name in among if name.encode("utf-8") in text}
        if not among:
            return out
    for kind, nodes in tree_sitter.QueryCursor(query).captures(member).items():
        if (imports_only and kind == "name") or kind.startswith("_"):
            continue
        for node in nodes:
            text = source[node.start_byte:node.end_byte]
            name = _path_name(text) if kind == "path" else text.decode("utf-8", "replace")
            if not name or (among is not None and name not in among):
                continue
            if _owned(profile, source, member, node, kind != "name"):
                out[name] += 1
    return out


def imported_names(profile: Profile, source: bytes, root: tree_sitter.Node) -> Counter[str]:
    """Names bound by the file's imports outside any body (module level), with multiplicity."""
    return bound_names(profile, source, root, imports_only=True)


def added_ranges(base: bytes, side: bytes) -> list[tuple[int, int]]:
    """Byte ranges of `side` on lines its line diff against `base` adds (sorted, disjoint)."""
    starts = [0] + [index + 1 for index, byte in enumerate(side) if byte == 10]
    import pygit2   # here: a clean line merge (`wtc merge-file`) never diffs, and pygit2 is ~40 ms to import

    out: list[tuple[int, int]] = []
    for hunk in pygit2.Patch.create_from(base, side, context_lines=0).hunks:
        if hunk.new_lines == 0:
            continue
        first = hunk.new_start - 1
        last = first + hunk.new_lines
        begin = starts[first] if first < len(starts) else len(side)
        end = starts[last] if last < len(starts) else len(side)
        out.append((begin, end))
    return out


def names_used_in(source: bytes, root: tree_sitter.Node, ranges: list[tuple[int, int]],
                  name_kinds: frozenset[str] = frozenset()) -> frozenset[str]:
    """Identifier tokens (node kinds ending in `identifier`, or in the profile's `name_kinds`, like
    Ruby's `constant`) that start inside the byte ranges."""
    ends = [end for _, end in ranges]
    found: set[str] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        slot = bisect.bisect_right(ends, node.start_byte)   # first range ending after the node starts
        if slot == len(ranges) or ranges[slot][0] >= node.end_byte:
            continue                                         # no range overlaps the node
        if node.type.endswith("identifier") or node.type in name_kinds:
            if ranges[slot][0] <= node.start_byte:
                found.add(source[node.start_byte:node.end_byte].decode("utf-8", "replace"))
            continue
        stack.extend(node.children)
    return frozenset(found)
