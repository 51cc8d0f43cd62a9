"""Small edits of a JSON file's text that leave every other byte as it was.

Input: the file's bytes (strict JSON; comments tolerated by the parser), a path of object keys.
Output: new bytes with one member inserted, one array element appended, one value replaced or one
element removed. The tree-sitter JSON grammar (a dependency already, for merging) gives the byte
span of every value; an insertion takes the indentation, newline and one-line-or-not layout of the
container it goes into. Callers check the result with `json.loads` against the data they meant,
so a layout this module does not foresee costs formatting, never correctness.
"""

from __future__ import annotations

import json
import re
from typing import Any, Sequence


class JsonText:
    """One JSON document's bytes and its syntax tree (re-parsed after each edit)."""

    def __init__(self, data: bytes):
        self.data = data
        self._tree = _parser().parse(data)

    # ---- reading --------------------------------------------------------------------------------

    @property
    def root(self) -> Any:
        node = self._tree.root_node
        values = [c for c in node.named_children if c.type != "comment"]
        return values[0] if values else None

    def find(self, path: Sequence[str | int]) -> Any:
        """The value node at `path` (object keys, array indices), or None."""
        node = self.root
        for step in path:
            if node is None:
                return None
            if isinstance(step, int):
                items = self.elements(node) if node.type == "array" else []
                node = items[step] if 0 <= step < len(items) else None
            else:
                node = dict(self.members(node)).get(step) if node.type == "object" else None
        return node

    def members(self, node: Any) -> list[tuple[str, Any]]:
        """(key, value node) of an object node, in order."""
        out = []
        for pair in (c for c in node.named_children if c.type == "pair"):
            key = pair.child_by_field_name("key")
            value = pair.child_by_field_name("value")
            out.append((json.loads(self.data[key.start_byte:key.end_byte]), value))
        return out

    def elements(self, node: Any) -> list[Any]:
        return [c for c in node.named_children if c.type != "comment"]

    def _pair_of(self, value: Any) -> Any:
        parent = value.parent
        return parent if parent is not None and parent.type == "pair" else value

    # ---- layout ---------------------------------------------------------------------------------

    @property
    def newline(self) -> bytes:
        return b"\r\n" if b"\r\n" in self.data else b"\n"

    @property
    def unit(self) -> bytes:
        """One level of indentation as the file writes it (two spaces when it shows none)."""
        widths = []
        for line in self.data.splitlines():
            match = re.match(rb"^([ \t]+)\S", line)
            if match:
                if match.group(1).startswith(b"\t"):
                    return b"\t"
                widths.append(len(match.group(1)))
        return b" " * (min(widths) if widths else 2)

    def _line_indent(self, offset: int) -> bytes:
        start = self.data.rfind(b"\n", 0, offset) + 1
        return re.match(rb"[ \t]*", self.data[start:]).group(0)  # type: ignore[union-attr]

    def _render(self, value: Any, indent: bytes, multiline: bool) -> bytes:
        if not multiline:
            return json.dumps(value, ensure_ascii=False, separators=(", ", ": ")).encode()
        text = json.dumps(value, ensure_ascii=False, indent=self.unit.decode()).encode()
        return (self.newline + indent).join(text.split(b"\n"))

    # ---- editing --------------------------------------------------------------------------------

    def _replaced(self, start: int, end: int, text: bytes) -> "JsonText":
        return JsonText(self.data[:start] + text + self.data[end:])

    def replace_value(self, node: Any, value: Any) -> "JsonText":
        multiline = b"\n" in self.data[node.start_byte:node.end_byte]
        return self._replaced(node.start_byte, node.end_byte,
                              self._render(value, self._line_indent(node.start_byte), multiline))

    def add_member(self, node: Any, key: str, value: Any) -> "JsonText":
        """Insert `"key": value` as the last member of the object `node`."""
        return self._append(node, json.dumps(key, ensure_ascii=False).encode() + b": ", value)

    def append_element(self, node: Any, value: Any) -> "JsonText":
        return self._append(node, b"", value)

    def _append(self, node: Any, prefix: bytes, value: Any) -> "JsonText":
        items = [c for c in node.named_children if c.type != "comment"]
        own_indent = self._line_indent(node.start_byte)
        if not items:
            inner = own_indent + self.unit
            body = prefix + self._render(value, inner, True)
            opening, closing = self.data[node.start_byte:node.start_byte + 1], self.data[node.end_byte - 1:node.end_byte]
            text = opening + self.newline + inner + body + self.newline + own_indent + closing
            return self._replaced(node.start_byte, node.end_byte, text)
        last = items[-1]
        multiline = b"\n" in self.data[node.start_byte:node.end_byte]
        if multiline:
            indent = self._line_indent(items[0].start_byte)
            text = b"," + self.newline + indent + prefix + self._render(value, indent, True)
        else:
            text = b", " + prefix + self._render(value, b"", False)
        return self._replaced(last.end_byte, last.end_byte, text)

    def remove(self, value: Any) -> "JsonText":
        """Remove an array element, or the member whose value is `value`, with its comma; the last
        item of a container leaves it empty (`{}` / `[]`)."""
        item = self._pair_of(value)
        container = item.parent
        items = [c for c in container.named_children if c.type != "comment"]
        index = next(i for i, c in enumerate(items) if c.start_byte == item.start_byte)
        if len(items) == 1:
            brackets = self.data[container.start_byte:container.start_byte + 1] + self.data[container.end_byte - 1:
                                                                                            container.end_byte]
            return self._replaced(container.start_byte, container.end_byte, brackets)
        if index > 0:
            return self._replaced(items[index - 1].end_byte, item.end_byte, b"")
        return self._replaced(item.start_byte, items[1].start_byte, b"")


def _parser() -> Any:
    import tree_sitter
    import tree_sitter_json

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_json.language()))
