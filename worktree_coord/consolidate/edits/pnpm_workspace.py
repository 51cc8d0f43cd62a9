"""pnpm-workspace.yaml edits as careful line edits: untouched lines stay byte for byte.

Stage: apply (the structural edit of pnpm's workspace file). Input: the file's bytes and one intent
on `packages` (add/remove member), `catalog` / `catalogs.<name>` (add/set/remove dependency),
`overrides` (set/remove) or any other top-level key (set_key/remove_key: its whole block, written
as the task wrote it). Output: the new bytes.
Invariants:
- only the lines of the changed entry are written (an added entry copies the indentation and the
  quoting of its siblings); comments, quoting, indentation, blank lines and the end of line of
  every other line are kept, which a YAML round-trip library does not promise;
- the result is parsed back and must equal the old document with exactly this change; anything
  else (an unusual layout such as a multi-line flow collection or anchors) raises `EditError`
  naming the file, so a wrong edit is never written.

Why text and not ruamel.yaml: a round-trip load/dump re-indents sequences and re-flows long
lines by its own settings, so "untouched lines survive byte for byte" would not hold; the few
shapes pnpm's file has (top-level block mappings and sequences) are simple to edit as lines.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import yaml

from worktree_coord.consolidate.edits.package_json import npm_spec_text
from worktree_coord.consolidate.intent import Intent, Op
from worktree_coord.consolidate.manifests import normalize_member
from worktree_coord.consolidate.textformat import ManifestParseError, load_yaml
from worktree_coord.errors import EditError

_KEY_LINE = re.compile(r"""^(?P<indent>[ ]*)(?P<key>"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s#'"][^:#]*?)\s*:(?P<rest>(?:\s.*)?)$""")
_ITEM_LINE = re.compile(r"^(?P<indent>[ ]*)-(?P<rest>(?:\s.*)?)$")


# ------------------------------------------------------------------------------------ scalars

def _plain_ok(text: str) -> bool:
    """Whether `text` reads back as itself when written as a plain YAML scalar (key or value)."""
    if not text or text != text.strip() or " #" in text or ": " in text or text.endswith(":"):
        return False
    try:
        return yaml.safe_load(f"k: {text}") == {"k": text} and yaml.safe_load(f"{text}: v") == {text: "v"}
    except yaml.YAMLError:
        return False


def _scalar(text: str, quote: str) -> str:
    """`text` written in the sibling's quoting style (`quote` is '"', "'" or "" for plain)."""
    if quote == "" and _plain_ok(text):
        return text
    if quote == "'" or (quote == "" and "'" not in text):
        return "'" + text.replace("'", "''") + "'"
    return json.dumps(text, ensure_ascii=False)


def _quote_of(token: str) -> str:
    token = token.strip()
    return token[0] if token[:1] in ("'", '"') else ""


def _load_scalar(token: str) -> Any:
    return yaml.safe_load(token) if token.strip() else None


def _split_comment(rest: str) -> tuple[str, str]:
    """(value text, trailing comment with its leading spaces) of the part after `key:` or `-`."""
    in_single = in_double = False
    for index, char in enumerate(rest):
        if char == "'" and not in_double:
            in_single = not in_single
        elif char == '"' and not in_single and (index == 0 or rest[index - 1] != "\\"):
            in_double = not in_double
        elif char == "#" and not in_single and not in_double and (index == 0 or rest[index - 1] in " \t"):
            value = rest[:index]
            return value.strip(), rest[len(value.rstrip()):]
    return rest.strip(), ""


# ------------------------------------------------------------------------------------- blocks

class _Doc:
    """The file as lines (without their ends) plus the one end of line it uses."""

    def __init__(self, path: str, text: str):
        self.path = path
        self.eol = "\r\n" if "\r\n" in text else "\n"
        self.final_newline = text.endswith("\n") or not text
        self.lines = text.splitlines()

    def text(self) -> str:
        out = self.eol.join(self.lines)
        return out + self.eol if self.final_newline and self.lines else out

    @staticmethod
    def indent_of(line: str) -> int:
        return len(line) - len(line.lstrip(" "))

    @staticmethod
    def is_content(line: str) -> bool:
        stripped = line.strip()
        return bool(stripped) and not stripped.startswith("#")

    def find_key(self, start: int, end: int, indent: int, key: str) -> tuple[int, str] | None:
        """(line index, text after the colon) of `key` at exactly `indent` within [start, end)."""
        for index in range(start, end):
            line = self.lines[index]
            if not self.is_content(line) or self.indent_of(line) != indent:
                continue
            match = _KEY_LINE.match(line)
            if match and _load_scalar(match.group("key")) == key:
                return index, match.group("rest")
        return None

    def block_end(self, header: int) -> int:
        """One past the last content line more indented than the line `header` (its block)."""
        indent = self.indent_of(self.lines[header])
        last = header
        for index in range(header + 1, len(self.lines)):
            line = self.lines[index]
            if not self.is_content(line):
                continue
            here = self.indent_of(line)
            # A block sequence may sit at its key's own column ("packages:\n- a").
            if here < indent or (here == indent and not _ITEM_LINE.match(line)):
                break
            last = index
        return last + 1

    def child_indent(self, header: int, end: int, default: int) -> int:
        for index in range(header + 1, end):
            if self.is_content(self.lines[index]):
                return self.indent_of(self.lines[index])
        return default

    def append_top_level(self, lines: list[str]) -> None:
        # Keep a blank line between top-level sections when the file separates them that way.
        if self.lines and self.lines[-1].strip() and any(not line.strip() for line in self.lines):
            self.lines.append("")
        self.lines.extend(lines)
        self.final_newline = True


# ---------------------------------------------------------------------------------- sequences

def _edit_packages(doc: _Doc, intent: Intent) -> None:
    found = doc.find_key(0, len(doc.lines), 0, "packages")
    member = intent.name
    if found is None:
        if intent.op == Op.ADD_MEMBER:
            doc.append_top_level(["packages:", f"  - {_scalar(member, '')}"])
        return
    header, rest = found
    value, comment = _split_comment(rest)
    if value:
        _edit_flow(doc, header, value, comment, intent)
        return
    end = doc.block_end(header)
    items: list[tuple[int, str]] = []
    for index in range(header + 1, end):
        match = _ITEM_LINE.match(doc.lines[index])
        if match and doc.is_content(doc.lines[index]):
            items.append((index, _split_comment(match.group("rest"))[0]))
    spelled = [(index, token) for index, token in items
               if isinstance(_load_scalar(token), str) and normalize_member(_load_scalar(token)) == member]
    if intent.op == Op.REMOVE_MEMBER:
        for index, _ in reversed(spelled):
            del doc.lines[index]
        return
    if spelled:
        return
    if items:
        template = doc.lines[items[-1][0]]
        indent = " " * doc.indent_of(template)
        quote = _quote_of(items[0][1])
        after = _ITEM_LINE.match(template).group("rest")
        gap = after[:len(after) - len(after.lstrip())] or " "
        doc.lines.insert(items[-1][0] + 1, f"{indent}-{gap}{_scalar(member, quote)}")
    else:
        doc.lines.insert(end, f"  - {_scalar(member, '')}")


# ----------------------------------------------------------------------------------- mappings

def _mapping_path(intent: Intent) -> list[str]:
    if intent.op in (Op.SET_OVERRIDE, Op.REMOVE_OVERRIDE):
        return ["overrides"]
    if intent.group == "catalog":
        return ["catalog"]
    if intent.group.startswith("catalog:"):
        return ["catalogs", intent.group.split(":", 1)[1]]
    raise EditError(f"{intent.group!r} is not a pnpm-workspace.yaml section (intent {intent.intent_id})",
                    fix="use the group catalog or catalog:<name>, or edit the member's package.json")


def _entry_value(intent: Intent) -> str:
    if intent.op in (Op.SET_OVERRIDE,):
        return intent.spec or ""
    return npm_spec_text(intent)


def _edit_mapping(doc: _Doc, intent: Intent) -> None:
    path = _mapping_path(intent)
    removing = intent.op in (Op.REMOVE_DEP, Op.REMOVE_OVERRIDE)
    start, end, indent = 0, len(doc.lines), 0
    headers: list[int] = []
    for depth, part in enumerate(path):
        found = doc.find_key(start, end, indent, part)
        if found is None:
            if removing:
                return
            # Create the missing sections with the entry inside, two spaces a level.
            new = [f"{'  ' * (depth + i)}{_scalar(p, '')}:" for i, p in enumerate(path[depth:])]
            new.append(f"{'  ' * len(path)}{_scalar(intent.name, '')}: {_scalar(_entry_value(intent), '')}")
            if depth == 0:
                doc.append_top_level(new)
            else:
                doc.lines[end:end] = new
            return
        header, rest = found
        value, comment = _split_comment(rest)
        if value:
            if depth < len(path) - 1 or value not in ("{}",):
                raise EditError(f"{doc.path}: `{'.'.join(path[:depth + 1])}` is written inline ({value}); "
                                f"this edit keeps block mappings only (intent {intent.intent_id})",
                                fix=f"write `{'.'.join(path[:depth + 1])}` as a block mapping, one entry a line")
            doc.lines[header] = _drop_inline_empty(doc.lines[header], rest, comment)
        headers.append(header)
        start, end = header + 1, doc.block_end(header)
        indent = doc.child_indent(header, end, indent + 2)
    entries: list[tuple[int, str, str, str]] = []        # (line, key token, value token, comment)
    for index in range(start, end):
        line = doc.lines[index]
        if not doc.is_content(line) or doc.indent_of(line) != indent:
            continue
        match = _KEY_LINE.match(line)
        if match is None:
            raise EditError(f"{doc.path}: line {index + 1} is not a `key: value` entry of "
                            f"`{'.'.join(path)}`", fix="write the section as one `key: value` a line")
        value, comment = _split_comment(match.group("rest"))
        entries.append((index, match.group("key"), value, comment))
    hits = [e for e in entries if _load_scalar(e[1]) == intent.name]
    if removing:
        for index, *_ in reversed(hits):
            del doc.lines[index]
        if len(hits) == len(entries) and hits:
            for header in reversed(headers):          # an emptied section goes with its entry
                if doc.block_end(header) == header + 1:
                    del doc.lines[header]
                    # ... and with the blank line that set it apart, when nothing follows it closely.
                    following = doc.lines[header] if header < len(doc.lines) else ""
                    if header > 0 and not doc.lines[header - 1].strip() and not following.strip():
                        del doc.lines[header - 1]
        return
    new_value = _entry_value(intent)
    if hits:
        index, key, value, comment = hits[0]
        line = doc.lines[index]
        head = line[:line.index(key) + len(key)]
        colon = line[len(head):].split(":", 1)[0]
        doc.lines[index] = f"{head}{colon}: {_scalar(new_value, _quote_of(value))}{comment}"
        return
    # Quote a new key only when it needs it (or every sibling key is quoted), in the siblings' style.
    key_quotes = [_quote_of(k) for _, k, _, _ in entries]
    key_quote = "" if not key_quotes or "" in key_quotes else key_quotes[0]
    if key_quote == "" and not _plain_ok(intent.name):
        key_quote = next((q for q in key_quotes if q), "'")
    value_quote = _quote_of(entries[0][2]) if entries else ""
    line = f"{' ' * indent}{_scalar(intent.name, key_quote)}: {_scalar(new_value, value_quote)}"
    doc.lines.insert(entries[-1][0] + 1 if entries else end, line)


def _drop_inline_empty(line: str, rest: str, comment: str) -> str:
    """`catalog: {}` -> `catalog:` so block entries can follow (the comment stays)."""
    return line[:len(line) - len(rest)] + comment


def _edit_flow(doc: _Doc, header: int, value: str, comment: str, intent: Intent) -> None:
    """`packages: [a, b]` on one line: rewrite that one flow sequence, keeping its quoting."""
    try:
        items = yaml.safe_load(value)
    except yaml.YAMLError:
        items = None
    if not isinstance(items, list) or not value.startswith("[") or not value.endswith("]"):
        raise EditError(f"{doc.path}: `packages` is written as {value!r}; expected a block or one-line list",
                        fix="write `packages` as a block sequence (`- glob` a line)")
    tokens = [t.strip() for t in value[1:-1].split(",") if t.strip()]
    quote = _quote_of(tokens[0]) if tokens else ""
    names = [normalize_member(str(i)) for i in items]
    if intent.op == Op.ADD_MEMBER and intent.name not in names:
        tokens.append(_scalar(intent.name, quote))
    elif intent.op == Op.REMOVE_MEMBER:
        tokens = [t for t, n in zip(tokens, names) if n != intent.name]
    line = doc.lines[header]
    key_part = line[:line.index(":") + 1]
    doc.lines[header] = f"{key_part} [{', '.join(tokens)}]{comment}"


# ---------------------------------------------------------------------------------- expected

def _expected(before: dict, intent: Intent) -> dict:
    """The document the edit must produce: `before` with exactly this intent applied."""
    after = copy.deepcopy(before)
    if intent.op in (Op.SET_KEY, Op.REMOVE_KEY):
        if intent.op == Op.REMOVE_KEY:
            after.pop(intent.name, None)
        else:
            after[intent.name] = json.loads(intent.spec or "null")
        return after
    if intent.op in (Op.ADD_MEMBER, Op.REMOVE_MEMBER):
        members = list(after.get("packages") or [])
        names = [normalize_member(str(m)) for m in members]
        if intent.op == Op.ADD_MEMBER and intent.name not in names:
            after["packages"] = members + [intent.name]
        elif intent.op == Op.REMOVE_MEMBER:
            after["packages"] = [m for m, n in zip(members, names) if n != intent.name]
        return after
    path = _mapping_path(intent)
    holder = after
    for part in path[:-1]:
        holder = holder.setdefault(part, {}) if isinstance(holder.get(part), dict) or part not in holder \
            else holder[part]
    leaf = holder.get(path[-1])
    leaf = dict(leaf) if isinstance(leaf, dict) else {}
    if intent.op in (Op.REMOVE_DEP, Op.REMOVE_OVERRIDE):
        leaf.pop(intent.name, None)
    else:
        leaf[intent.name] = _entry_value(intent)
    if leaf:
        holder[path[-1]] = leaf
    else:
        holder.pop(path[-1], None)
    if path[0] == "catalogs" and not after.get("catalogs"):
        after.pop("catalogs", None)
    return after


# ----------------------------------------------------------------------------- whole top-level keys

def top_level_block(text: str, key: str) -> str | None:
    """The lines of top-level `key` (its line and its block) as the file writes them; None when absent."""
    doc = _Doc("", text)
    found = doc.find_key(0, len(doc.lines), 0, key)
    if found is None:
        return None
    return "\n".join(doc.lines[found[0]:doc.block_end(found[0])])


def _edit_setting(doc: _Doc, intent: Intent) -> None:
    """A top-level key outside packages, catalogs and overrides (`onlyBuiltDependencies`): its block
    replaced by the task's own lines (else `key: <value as a JSON flow>`, which YAML reads), removed,
    or appended at the end."""
    key = intent.name if _plain_ok(intent.name) else json.dumps(intent.name)
    found = doc.find_key(0, len(doc.lines), 0, intent.name)
    start, end = (found[0], doc.block_end(found[0])) if found else (len(doc.lines), len(doc.lines))
    if intent.op == Op.REMOVE_KEY:
        del doc.lines[start:end]
        return
    written = dict(intent.options).get("yaml") or f"{key}: {intent.spec}"
    lines = written.split("\n")
    if found:
        doc.lines[start:end] = lines
    else:
        doc.append_top_level(lines)


def edit(path: str, data: bytes, intent: Intent) -> bytes:
    before = load_yaml(path, data) or {}
    if not isinstance(before, dict):
        raise EditError(f"{path} must hold a YAML mapping", fix=f"make {path} a mapping (`packages:` ...)")
    doc = _Doc(path, data.decode("utf-8"))
    if intent.op in (Op.ADD_MEMBER, Op.REMOVE_MEMBER):
        _edit_packages(doc, intent)
    elif intent.op in (Op.ADD_DEP, Op.SET_SPEC, Op.REMOVE_DEP, Op.SET_OVERRIDE, Op.REMOVE_OVERRIDE):
        _edit_mapping(doc, intent)
    elif intent.op in (Op.SET_KEY, Op.REMOVE_KEY):
        _edit_setting(doc, intent)
    else:
        raise EditError(f"{path}: intent {intent.intent_id} ({intent.op.value} {intent.name}) has no "
                        f"pnpm-workspace.yaml form", fix="make this change in a package.json")
    out = doc.text().encode("utf-8")
    try:
        got = load_yaml(path, out) or {}
    except ManifestParseError as exc:
        raise EditError(f"{path}: the edit for intent {intent.intent_id} would not parse ({exc.message})",
                        fix=f"apply the change to {path} by hand") from exc
    if got != _expected(before, intent):
        raise EditError(f"{path}: the line edit for intent {intent.intent_id} did not give the intended document",
                        fix=f"apply the change to {path} by hand (its layout is unusual)")
    return out
