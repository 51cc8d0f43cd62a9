"""Entries: a line list or a keyed catalog cut into the entries a merge keeps, adds or edits.

Input: a file's bytes (UTF-8) and its format (`lines`, `po`, `properties`, from
grammars/append/kinds.toml). Output: a tuple of `Entry`, each its key (what names it across
versions), its text and whether it opens a new run (blank lines or comments lead it).
Invariant: the entries' texts concatenate back to exactly the input bytes. Comments and blank
lines travel with the entry below them (a `#: src/a.py:3` reference with its msgid, a `# docs`
heading with its first pattern); what follows the last entry is one trailing entry of its own.
Formats:
  lines       one entry a line (.gitignore, CODEOWNERS, requirements-style lists, AUTHORS), keyed by
              the line, its first field or its normalised project name
  po          gettext: one entry a paragraph, keyed by msgctxt and msgid (`#~` obsolete ones apart)
  properties  Java: one entry a logical line (backslash continuations joined), keyed by its key
"""

from __future__ import annotations

import re

from ...frozen import value_class

TRAILER = "\x00trailer"            # the key of what follows the last entry (blank lines, comments)
_REQUIREMENT = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_PO_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


class EntryError(ValueError):
    """The file cannot be cut into entries (the merge falls back to lines, saying why)."""


@value_class
class Entry:
    key: str
    text: bytes
    lead: bool = False      # blank lines or comments come first: a new run starts here
    pattern: str = ""       # the path pattern it matches (lines format), for order checks


def _lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True)


def _is_trivia(line: bytes, comment: str) -> bool:
    text = line.strip()
    return not text or (bool(comment) and text.startswith(comment.encode()))


def _line_key(text: str, rule: str) -> str:
    if rule == "first_field":
        return text.split()[0]
    if rule == "requirement":
        found = _REQUIREMENT.match(text)
        if found is None or text.lstrip().startswith("-"):
            return text                              # an option line (-r, -e, --index-url): itself
        return re.sub(r"[-_.]+", "-", found.group(1)).lower()
    return text


def _grouped(lines: list[bytes], is_trivia, key_of, *, trivia_leads: bool = True) -> tuple[Entry, ...]:  # type: ignore[no-untyped-def]
    """Lines -> entries, each entry its leading trivia lines and the lines `key_of` reads a key from.
    `key_of(lines, start)` returns (key, end) for an entry starting at `start`. With `trivia_leads`
    an entry after trivia opens a new run (a section of a list); a PO catalog's paragraphs are
    all separated by blank lines, so there they do not."""
    entries: list[Entry] = []
    index = 0
    while index < len(lines):
        start = index
        while index < len(lines) and is_trivia(lines[index]):
            index += 1
        if index == len(lines):
            entries.append(Entry(TRAILER, b"".join(lines[start:]), lead=True))
            break
        key, end = key_of(lines, index)
        entries.append(Entry(key, b"".join(lines[start:end]), lead=trivia_leads and index > start,
                             pattern=lines[index].decode("utf-8", "replace").split()[0] if lines[index].split() else ""))
        index = end
    return tuple(entries)


def cut_lines(data: bytes, *, comment: str = "#", key: str = "line") -> tuple[Entry, ...]:
    """A line list: one entry a line, comments and blank lines leading the entry below them."""
    def key_of(lines: list[bytes], index: int) -> tuple[str, int]:
        text = lines[index].decode("utf-8").strip()
        return _line_key(text, key), index + 1
    return _grouped(_lines(data), lambda line: _is_trivia(line, comment), key_of)


def cut_properties(data: bytes) -> tuple[Entry, ...]:
    """Java .properties: logical lines (a line ending in an odd number of backslashes continues),
    `#` and `!` comments and blank lines leading the entry below them."""
    def is_trivia(line: bytes) -> bool:
        text = line.strip()
        return not text or text[:1] in (b"#", b"!")

    def key_of(lines: list[bytes], index: int) -> tuple[str, int]:
        end = index
        while end < len(lines) and _continues(lines[end]):
            end += 1
        # ISO-8859-1 decodes any bytes; a UTF-8 file's non-ASCII keys read the same in every version.
        return _property_key(lines[index].decode("latin-1")), min(end + 1, len(lines))
    return _grouped(_lines(data), is_trivia, key_of)


def _continues(line: bytes) -> bool:
    body = line.rstrip(b"\r\n")
    return (len(body) - len(body.rstrip(b"\\"))) % 2 == 1


def _property_key(line: str) -> str:
    text = line.lstrip(" \t\f")
    key: list[str] = []
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\" and index + 1 < len(text):
            key.append(text[index:index + 2])
            index += 2
            continue
        if char in "=: \t\f\r\n":
            break
        key.append(char)
        index += 1
    return "".join(key)


def cut_po(data: bytes) -> tuple[Entry, ...]:
    """gettext PO/POT: one entry a paragraph (comments, msgctxt, msgid, msgid_plural, msgstr),
    keyed by its context and msgid; obsolete (`#~`) entries keyed apart from live ones; blank lines
    lead the entry below them."""
    def key_of(lines: list[bytes], index: int) -> tuple[str, int]:
        end = index
        while end < len(lines) and lines[end].strip():
            end += 1
        return _po_key(lines[index:end]), end
    return _grouped(_lines(data), lambda line: not line.strip(), key_of, trivia_leads=False)


def _po_key(lines: list[bytes]) -> str:
    fields: dict[str, str] = {}
    current: str | None = None
    obsolete = False
    for raw in lines:
        text = raw.decode("utf-8").strip()
        if text.startswith("#~"):
            obsolete = True
            text = text[2:].strip()
        elif text.startswith("#"):
            current = None
            continue
        head = text.split(None, 1)[0] if text else ""
        if head in ("msgctxt", "msgid"):
            current = head
            fields[current] = "".join(_PO_STRING.findall(text))
        elif text.startswith('"') and current is not None:
            fields[current] += "".join(_PO_STRING.findall(text))
        else:
            current = None
    if "msgid" not in fields:
        # A paragraph of comments only: named by its text (two identical ones repeat a key).
        return "\x00comment " + b"".join(lines).decode("utf-8").strip()
    return ("#~ " if obsolete else "") + (fields["msgctxt"] + "\x04" if "msgctxt" in fields else "") + fields["msgid"]


def cut(data: bytes, format: str, *, comment: str = "#", key: str = "line") -> tuple[Entry, ...]:
    """`data` in `format` cut into entries; EntryError when it is not UTF-8 (a .properties file
    may also be ISO-8859-1, the format's own encoding: its syntax is ASCII either way)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        if format != "properties":
            raise EntryError(f"not UTF-8 ({error})") from None
    if format == "lines":
        entries = cut_lines(data, comment=comment, key=key)
    elif format == "po":
        entries = cut_po(data)
    elif format == "properties":
        entries = cut_properties(data)
    else:
        raise EntryError(f"unknown entry format {format!r}")
    if b"".join(entry.text for entry in entries) != data:   # the invariant; never expected to fail
        raise EntryError(f"the {format} entries do not add up to the file")
    return entries
