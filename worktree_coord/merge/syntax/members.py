"""Segmentation: one container node of one version cut into a prefix, members and a suffix.

Input: the source bytes, a tree-sitter container node and its profile rule. Output: `Segmented`,
whose pieces concatenate back to exactly the container's region (the container text, widened to
the start of its first line when only indentation precedes it). Each member owns its leading
trivia (blank lines, comments, indentation), its own text, its separator and the rest of its last
line when nothing else starts there: so comments and decorators travel with their declaration.
Each member gets an identity: its declaration key when the profile gives one, else its text.
Invariant: prefix + every member (with its own separator) + suffix == region bytes.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

import tree_sitter

from ...frozen import value_class
from ..languages.profiles import ContainerRule, Profile

_PART = re.compile(r"\{([^{}]+)\}")
_SPACE = re.compile(rb"\s+")
_BLANK_LINE = re.compile(rb"\n[ \t]*\r?\n")
_MAX_NAME = 200  # bytes: longer "names" are content (see _resolve)


class Unmergeable(Exception):
    """This container (or member) cannot be merged structurally; the caller falls back to lines."""


@value_class(frozen=False)
class Version:
    """One version of a file as the structured merge reads it: its bytes and their parse tree."""

    source: bytes
    root: tree_sitter.Node


@value_class
class Member:
    key: str | None          # declaration key, None for positional members
    ident: str               # identity used to match across versions (unique within a version)
    lead: bytes
    body: bytes
    has_sep: bool
    tail: bytes
    node: tree_sitter.Node
    start: int               # byte offset of `lead` in the version's source
    source: bytes            # that version's whole source (shared, not copied)
    # The declaration key a member had before it was matched by text because that key repeats
    # (overloads, several re-exports from one module): it is still a declaration, not a statement.
    repeated_key: str | None = None

    @property
    def content(self) -> bytes:
        """What decides "changed": everything but the separator (which follows position)."""
        return self.lead + self.body + b"\x00" + self.tail

    def render(self, sep: bytes | None, with_sep: bool) -> bytes:
        return self.lead + self.body + (sep if (sep and with_sep) else b"") + self.tail

    @property
    def own_text(self) -> bytes:
        return self.lead + self.body + (b"" if not self.has_sep else b"\x01") + self.tail


@value_class
class Segmented:
    prefix: bytes
    members: tuple[Member, ...]
    suffix: bytes
    separator: bytes | None
    start: int
    end: int

    @property
    def trailing_sep(self) -> bool:
        return bool(self.members) and self.members[-1].has_sep


def node_text(source: bytes, node: tree_sitter.Node) -> bytes:
    return source[node.start_byte:node.end_byte]


def _resolve(source: bytes, node: tree_sitter.Node, path: str, profile: Profile, depth: int,
             labels: bool = False) -> str | None:
    current: list[tree_sitter.Node] = [node]
    for step in path.split("."):
        if step in ("@text", "@content"):
            texts = [node_text(source, item) for item in current]
            # "@content": the text is the identity whatever its length (a Markdown list item that
            # wraps over lines: items commute, and an edited item is another item).
            if step == "@text" and any(b"\n" in text or len(text) > _MAX_NAME for text in texts):
                return None
            return " ".join(_SPACE.sub(b" ", text).decode("utf-8", "replace").strip() for text in texts)
        stepped = _step(current, step)
        if stepped is None:
            return None
        current = stepped
    parts = []
    for item in current:
        sub = declaration_key(source, item, profile, depth + 1, labels=labels) if depth < 4 else None
        if sub is None:
            text = node_text(source, item)
            # A name is short and on one line; a longer text is content, and content that
            # changes must never change identity (it would turn an edit into an addition).
            if b"\n" in text or len(text) > _MAX_NAME:
                return None
            sub = _SPACE.sub(b" ", text).decode("utf-8", "replace").strip()
        parts.append(sub)
    return ",".join(parts)


def _step(current: list[tree_sitter.Node], step: str) -> list[tree_sitter.Node] | None:
    """One step of a key path from every node of `current`: the child with that field name (else
    the first named child of that kind); "*name" maps over the children and skips misses; "+name"
    takes every direct child of that kind or field. None when a plain or "+" step finds nothing."""
    mapped = step.startswith("*")
    name = step.lstrip("*+")
    out: list[tree_sitter.Node] = []
    if step.startswith("+"):
        # Every direct child of that kind or field (HCL's block labels: `resource "type" "name"`).
        for item in current:
            found = [child for index, child in enumerate(item.children) if child.is_named
                     and (child.type == name or item.field_name_for_child(index) == name)]
            if not found:
                return None
            out.extend(found)
        return out
    for item in current:
        for candidate in (list(item.named_children) if mapped else [item]):
            found = candidate.child_by_field_name(name)
            if found is None:
                found = next((child for child in candidate.named_children if child.type == name), None)
            if found is not None:
                out.append(found)
            elif not mapped:
                return None
    return out


def _exists(node: tree_sitter.Node, path: str) -> bool:
    """True when every step of `path` (field name or node kind, "*" mapping) finds a node."""
    current: list[tree_sitter.Node] | None = [node]
    for step in path.split("."):
        if step in ("@text", "@content"):
            return True
        current = _step(current, step)
        if current is None:
            return False
    return True


@functools.lru_cache(maxsize=None)
def _key_regex(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def declaration_key(source: bytes, node: tree_sitter.Node, profile: Profile, depth: int = 0, *,
                    labels: bool = False) -> str | None:
    """The node's signature key per its profile template, or None when it has none; with
    `labels`, how it reads (its `[labels]` template where it has one: `declaration_label`).

    A template may list alternatives separated by "|": the first whose parts all resolve wins.
    A part "{?path}" only requires the path to exist and prints nothing; "{path=a,b}" resolves
    only when the path's text is one of the listed words (and prints it)."""
    template = (profile.label_templates if labels else profile.declaration_keys).get(node.type)
    if template is None:
        return None
    for alternative in template.split("|"):
        out = []
        position = 0
        for match in _PART.finditer(alternative):
            out.append(alternative[position:match.start()])
            part = match.group(1)
            if part.startswith("~"):
                # A pattern over the node's own text: its first group is the key (a requirement
                # string "anyio>=4.7" keyed by its package, so two specifiers of one package clash).
                found = _key_regex(part[1:]).match(node_text(source, node).decode("utf-8", "replace"))
                value = found.group(1) if found else None
            elif part.startswith("?"):
                # Existence only: the node may be long or span lines (a body, a `{...}` list).
                value = "" if _exists(node, part[1:]) else None
            elif "=" in part:
                # A text guard: the path's text must be one of the listed words (Elixir's
                # `def`/`defp` calls are declarations, its other calls are statements).
                path, words = part.split("=", 1)
                value = _resolve(source, node, path, profile, depth, labels)
                if value not in words.split(","):
                    value = None
            else:
                value = _resolve(source, node, part, profile, depth, labels)
            if value is None:
                break
            if not part.startswith("?"):
                out.append(value)
            position = match.end()
        else:
            out.append(alternative[position:])
            return "".join(out)
    return None


def declaration_label(member: Member, profile: Profile) -> str | None:
    """How a keyed member reads where a conflict names it: `const x` for the key `var x`, `x =`
    for Python's `= x` (profile `[labels]`); its key where the profile gives no label."""
    key = member.key if member.key is not None else member.repeated_key
    if key is None:
        return None
    return declaration_key(member.source, member.node, profile, labels=True) or key


def region_start(source: bytes, node: tree_sitter.Node) -> int:
    """The node's start, widened to its line start when only indentation precedes it there."""
    line_start = source.rfind(b"\n", 0, node.start_byte) + 1
    if source[line_start:node.start_byte].strip(b" \t") == b"":
        return line_start
    return node.start_byte


def content_end(source: bytes, node: tree_sitter.Node) -> int:
    """The node's end without trailing whitespace (some grammars end a TOML table after the blank
    lines that follow it; those belong to whatever comes next)."""
    end = node.end_byte
    while end > node.start_byte and source[end - 1:end] in (b" ", b"\t", b"\r", b"\n"):
        end -= 1
    return end


def _line_end(source: bytes, position: int) -> int:
    """Index just past the newline ending the line that holds `position` (or len(source))."""
    found = source.find(b"\n", position)
    return len(source) if found < 0 else found + 1


# How far containers are looked for below the root, and below a keyed member (as the structured
# merge searches them).
ROOT_DEPTH = 4
MEMBER_DEPTH = 3

# visit(container, index, member, rule, path, key) -> the member's own path to search below it, or None.
MemberVisitor = Callable[[tree_sitter.Node, int, tree_sitter.Node, ContainerRule, tuple[str, ...], str],
                         "tuple[str, ...] | None"]


def visit_keyed_members(profile: Profile, source: bytes, root: tree_sitter.Node, visit: MemberVisitor) -> None:
    """Call `visit` for every keyed member of every container reachable through keyed declarations
    (a few levels below the root or a member), depth first; below a member only when `visit` returns
    the path to search it under. The one walk both the cascade's declaration census and the
    forecast's declaration inventory use."""
    stack: list[tuple[tree_sitter.Node, tuple[str, ...], int]] = [(root, (), ROOT_DEPTH)]
    while stack:
        node, path, budget = stack.pop()
        rule = profile.container_rule(node, lambda item: declaration_key(source, item, profile))
        if rule is None:
            if budget > 0:
                stack.extend((child, path, budget - 1) for child in node.named_children)
            continue
        for index, child in enumerate(node.children):
            if not child.is_named or child.type in profile.comments:
                continue
            if rule.member_field is not None and node.field_name_for_child(index) != rule.member_field:
                continue
            key = declaration_key(source, child, profile)
            if key is None:
                continue
            below = visit(node, index, child, rule, path, key)
            if below is not None:
                stack.append((child, below, MEMBER_DEPTH))


def segment(source: bytes, container: tree_sitter.Node, rule: ContainerRule, profile: Profile,
            start: int | None = None, limit: int | None = None) -> Segmented:
    """Cut one container into prefix, members, suffix (see the module docstring).

    The region runs from the container's line start (or `start`) to its end, widened to the end of
    its last line when only whitespace follows (never past `limit`)."""
    begin = region_start(source, container) if start is None else start
    end = content_end(source, container)
    line_end = _line_end(source, end)
    if source[end:line_end].strip() == b"" and line_end <= (len(source) if limit is None else limit):
        end = line_end
    children = list(container.children)
    member_index: list[int] = []
    for index, child in enumerate(children):
        if not child.is_named or child.type in profile.comments:
            continue
        if rule.member_field is not None and container.field_name_for_child(index) != rule.member_field:
            continue
        member_index.append(index)
    separator = rule.separator.encode() if rule.separator else None
    if not member_index:
        return Segmented(prefix=source[begin:end], members=(), suffix=b"", separator=separator, start=begin, end=end)
    first = member_index[0]
    # The prefix ends after the last opening token before the first member (and its line break).
    opening = [child for child in children[:first] if child.type not in profile.comments]
    position = max(begin, opening[-1].end_byte) if opening else begin
    # The rest of the opening line goes to the prefix too when the container itself starts mid-line
    # with no opening token (XML's `content` right after `<tag>`): members then own whole lines.
    mid_line = not opening and position > 0 and source[position - 1:position] != b"\n"
    if opening or mid_line:
        line_end = _line_end(source, position)
        if source[position:line_end].strip() == b"" and line_end <= children[first].start_byte:
            position = line_end
    # A comment block that opens the container and is set apart by a blank line (a license
    # header, a module comment) belongs to the container, not to whichever member comes first.
    first_lead = source[position:children[first].start_byte]
    blank = None
    for match in _BLANK_LINE.finditer(first_lead):
        blank = match
    if blank is not None and first_lead[:blank.start()].strip():
        position += blank.end()
    prefix = source[begin:position]
    members: list[Member] = []
    seen: dict[str, int] = {}
    for order, index in enumerate(member_index):
        node = children[index]
        # Anything but comments, separators and members between two members: not a plain list.
        if order + 1 < len(member_index):
            for between in children[index + 1:member_index[order + 1]]:
                if between.is_named and between.type not in profile.comments:
                    raise Unmergeable(f"code that is no declaration ({between.type}) stands between two "
                                      "declarations, so they cannot be merged one by one")
        if node.start_byte < position:
            raise Unmergeable("wtc could not cut the code into separate declarations (two of them share a line)")
        lead = source[position:node.start_byte]
        body_end = content_end(source, node)
        has_sep = False
        follower = index + 1
        # Terminators (";" after a class field) belong to the member they end.
        while follower < len(children) and not children[follower].is_named and children[follower].type in profile.terminators:
            body_end = children[follower].end_byte
            follower += 1
        if follower < len(children) and separator is not None and children[follower].type == rule.separator:
            has_sep = True
            sep_end = children[follower].end_byte
            follower += 1
        else:
            sep_end = body_end
        next_start = end
        for later in children[follower:]:
            if later.type in profile.comments and later.start_byte < _line_end(source, sep_end):
                continue
            next_start = later.start_byte
            break
        line_end = _line_end(source, sep_end)
        owns_lines = position == 0 or source[position - 1:position] == b"\n"
        tail_end = line_end if (owns_lines and line_end <= next_start and line_end <= end) else sep_end
        between_body_sep = source[body_end:sep_end - (len(separator) if has_sep and separator else 0)]
        body = source[node.start_byte:body_end] + between_body_sep
        tail = source[sep_end:tail_end]
        key = declaration_key(source, node, profile)
        ident = key if key is not None else "text:" + _SPACE.sub(b" ", node_text(source, node)).decode("utf-8", "replace")
        count = seen.get(ident, 0)
        seen[ident] = count + 1
        if count:
            ident = f"{ident}#{count}"
        members.append(Member(key=key, ident=ident, lead=lead, body=body, has_sep=has_sep, tail=tail,
                              node=node, start=position, source=source))
        position = tail_end
    suffix = source[position:end]
    result = Segmented(prefix=prefix, members=tuple(members), suffix=suffix, separator=separator, start=begin, end=end)
    rebuilt = prefix + b"".join(m.render(separator, m.has_sep) for m in members) + suffix
    if rebuilt != source[begin:end]:
        raise Unmergeable("wtc could not cut the code into separate declarations")
    return result
