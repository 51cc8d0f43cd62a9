"""A member read only where the code has just asked whether the object has it is no use to block on.

Stage: inside the semantic check's `uses` (semantic.py), for a use it would report. Input: the using
file's text, the use's line, its receiver and name, and the profile's `attribute_guards` (a pattern
of a test for one attribute, `hasattr(R, "N")`, with `{receiver}` and `{name}` in it). Output:
whether a block opened by such a test (`if`, `elif`, `while`; or by a name bound to one above,
`has = hasattr(x, "n")` then `if has:`), or the use's own line before it (`hasattr(x, "n") and x.n()`),
guards the use.

Why: the false block hunt on pallets/click flagged ae46cfd6bc99, which removed `StreamMixer.__del__`
and added a test `if hasattr(StreamMixer, "__del__"): assert StreamMixer.__del__ is object.__del__`:
the read runs only while the member stands. Blocks are read by indentation (the language's own
rule for Python), up to the function or class around the use.
"""

from __future__ import annotations

import re

_HEADER = re.compile(rb"[ \t]*(?:if|elif|while)\b")
_SCOPE = re.compile(rb"[ \t]*(?:async[ \t]+)?(?:def|class)\b")
_BOUND = re.compile(rb"[ \t]*([A-Za-z_]\w*)[ \t]*=(?!=)")
_WORDS = re.compile(rb"[A-Za-z_]\w*")


def guarded(text: bytes, line: int, receiver: str | None, name: str, pattern: str) -> bool:
    """Whether the use of `receiver.name` on `line` (1-based) of `text` stands where `pattern` (the
    profile's attribute_guards) has tested for it."""
    if not pattern or receiver is None:
        return False
    test = re.compile(pattern.replace("{receiver}", re.escape(receiver)).replace("{name}", re.escape(name)).encode())
    lines = text.split(b"\n")
    if not 0 < line <= len(lines):
        return False
    own = lines[line - 1]
    found = _asks(test, own)
    if found is not None and own.find(f".{name}".encode(), found.end()) >= 0:
        return True   # `hasattr(x, "n") and x.n()`
    indent = _indent(own)
    headers: list[bytes] = []   # the blocks' headers around the use, innermost first
    flags: set[bytes] = set()   # names bound to the test's answer above the use (`has = hasattr(x, "n")`)
    for index in range(line - 2, -1, -1):
        text_line = lines[index]
        if not text_line.strip() or text_line.lstrip().startswith(b"#"):
            continue
        if (bound := _BOUND.match(text_line)) is not None and _asks(test, text_line, bound.end()):
            flags.add(bound.group(1))
        depth = _indent(text_line)
        if depth >= indent:
            continue
        if _HEADER.match(text_line):
            headers.append(text_line)
        if _SCOPE.match(text_line) or depth == 0:
            break
        indent = depth
    return any(_asks(test, header) or flags & set(_WORDS.findall(header)) for header in headers)


def _asks(test: re.Pattern[bytes], text: bytes, start: int = 0) -> re.Match[bytes] | None:
    """The test in `text` that says the member stands (not one negated: `if not hasattr(x, "n"):`)."""
    for found in test.finditer(text, start):
        if not re.search(rb"\bnot\s*\(?\s*$", text[:found.start()]):
            return found
    return None


def _indent(line: bytes) -> int:
    return len(line) - len(line.lstrip(b" \t"))
