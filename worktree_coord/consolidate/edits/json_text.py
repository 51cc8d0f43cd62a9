"""Write a changed JSON document back over its old text, touching only the values that changed.

Stage: the last step of a package.json edit. Input: the file's bytes and the document it must now
hold. Output: bytes whose parsed value is exactly that document.
Invariants:
- every value equal to the old one (same type, same key order) keeps its old bytes, so a one-line
  `"workspaces": ["packages/*"]`, odd spacing or key order elsewhere survive an unrelated edit;
- a changed object that was laid out over several lines is rebuilt member by member: unchanged
  members verbatim, and the separators between members that were neighbours before; anything else that changed is written the way
  `JSON.stringify(value, null, indent)` (npm's own writer) writes it, at its nesting depth, with
  the file's end of line; a one-line array stays on one line;
- text before and after the top-level value (BOM, final newline or its absence) is kept.
"""

from __future__ import annotations

import json
import re
from dataclasses import field
from typing import Any

from worktree_coord.consolidate.textformat import JsonStyle, dump_json

from ...frozen import value_class

_WS = re.compile(r"[ \t\r\n]*")
_SCALAR = re.compile(r'"(?:[^"\\]|\\.)*"|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null')


@value_class(frozen=False)
class _Node:
    """One value of the old text: where it is, and for containers where its members are."""

    start: int
    end: int
    value: Any
    kind: str                                         # "object", "array" or "scalar"
    members: list[tuple[str, int, "_Node"]] = field(default_factory=list)   # (key, key start, value)
    items: list["_Node"] = field(default_factory=list)


class _Scanner:
    def __init__(self, text: str):
        self.text = text

    def skip(self, pos: int) -> int:
        return _WS.match(self.text, pos).end()

    def value(self, pos: int) -> _Node:
        pos = self.skip(pos)
        char = self.text[pos:pos + 1]
        if char == "{":
            return self._object(pos)
        if char == "[":
            return self._array(pos)
        match = _SCALAR.match(self.text, pos)
        if match is None:
            raise ValueError(f"no JSON value at offset {pos}")
        return _Node(pos, match.end(), json.loads(match.group()), "scalar")

    def _object(self, start: int) -> _Node:
        node = _Node(start, start, None, "object")
        pos = self.skip(start + 1)
        if self.text[pos] == "}":
            node.end, node.value = pos + 1, {}
            return node
        while True:
            key_match = _SCALAR.match(self.text, pos)
            if key_match is None or not key_match.group().startswith('"'):
                raise ValueError(f"no object key at offset {pos}")
            key = json.loads(key_match.group())
            pos = self.skip(key_match.end())
            if self.text[pos] != ":":
                raise ValueError(f"no ':' at offset {pos}")
            child = self.value(pos + 1)
            node.members.append((key, key_match.start(), child))
            pos = self.skip(child.end)
            if self.text[pos] == "}":
                node.end = pos + 1
                node.value = {k: c.value for k, _, c in node.members}
                return node
            if self.text[pos] != ",":
                raise ValueError(f"no ',' at offset {pos}")
            pos = self.skip(pos + 1)

    def _array(self, start: int) -> _Node:
        node = _Node(start, start, None, "array")
        pos = self.skip(start + 1)
        if self.text[pos] == "]":
            node.end, node.value = pos + 1, []
            return node
        while True:
            child = self.value(pos)
            node.items.append(child)
            pos = self.skip(child.end)
            if self.text[pos] == "]":
                node.end = pos + 1
                node.value = [c.value for c in node.items]
                return node
            if self.text[pos] != ",":
                raise ValueError(f"no ',' at offset {pos}")
            pos = self.skip(pos + 1)


def same(a: Any, b: Any) -> bool:
    """Equal as JSON text would be: types, values and key order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def _line_indent(text: str, pos: int) -> str:
    """The whitespace that starts the line `pos` is on."""
    line_start = text.rfind("\n", 0, pos) + 1
    return _WS.match(text, line_start).group().replace("\r", "").replace("\n", "")


class _Writer:
    def __init__(self, text: str, style: JsonStyle):
        self.text = text
        self.style = style

    def fresh(self, value: Any, indent: str) -> str:
        """`value` as JSON.stringify(value, null, style.indent) writes it, nested at `indent`."""
        dumped = json.dumps(value, indent=self.style.indent, ensure_ascii=False)
        return dumped.replace("\n", self.style.eol + indent)

    def render(self, node: _Node | None, value: Any, indent: str) -> str:
        if node is not None and same(node.value, value):
            return self.text[node.start:node.end]
        if node is not None and node.kind == "object" and isinstance(value, dict) and value \
                and node.members and "\n" in self.text[node.start:node.members[0][1]]:
            return self._object(node, value)
        if node is not None and node.kind == "array" and isinstance(value, list) \
                and "\n" not in self.text[node.start:node.end] \
                and not any(isinstance(v, (dict, list)) for v in value):
            # A one-line array of scalars stays on one line, spaced as its old items were.
            tight = len(node.items) >= 2 and not self.text[node.items[0].end:node.items[1].start].endswith(" ")
            return "[" + ("," if tight else ", ").join(json.dumps(v, ensure_ascii=False) for v in value) + "]"
        return self.fresh(value, indent)

    def _object(self, node: _Node, value: dict) -> str:
        member_indent = _line_indent(self.text, node.members[0][1])
        old = {key: (index, key_start, child) for index, (key, key_start, child) in enumerate(node.members)}
        out = [self.text[node.start:node.members[0][1]]]           # "{" and the whitespace before the first key
        previous: int | None = None
        for position, (key, new) in enumerate(value.items()):
            index, key_start, child = old.get(key, (None, 0, None))
            if position:
                if previous is not None and index == previous + 1:
                    # Neighbours before and after: keep the separator they had ("," and spacing).
                    out.append(self.text[node.members[previous][2].end:key_start])
                else:
                    out.append("," + self.style.eol + member_indent)
            if child is not None and same(child.value, new):
                out.append(self.text[key_start:child.end])
            else:
                out.append(json.dumps(key, ensure_ascii=False) + ": " + self.render(child, new, member_indent))
            previous = index
        out.append(self.text[node.members[-1][2].end:node.end])    # the whitespace before "}" and "}"
        return "".join(out)


def rewrite_json(data: bytes, document: Any, style: JsonStyle) -> bytes:
    """`data` changed to hold `document`, keeping the bytes of everything that did not change."""
    text = data.decode("utf-8")
    try:
        root = _Scanner(text).value(1 if text.startswith("\ufeff") else 0)
    except (ValueError, IndexError):
        root = None            # not plain JSON after all (the loader accepted it): write it fresh
    if root is None:
        return dump_json(document, style)
    out = text[:root.start] + _Writer(text, style).render(root, document, "") + text[root.end:]
    return out.encode("utf-8")
