"""The words of a C macro's body that read a name: what the semantic check takes as its uses.

Stage: asked by symbols.extract for each profile `@tokens` capture (C's and C++'s `#define` value,
which tree-sitter leaves as one unparsed `preproc_arg`). Input: the body's bytes. Output: (offset,
word) of each use. Why: lua's `#define l_gettime(L,arg) luaL_checknumber(L, arg)` calls
luaL_checknumber wherever l_gettime is expanded; a rename of it left loslib.c unnamed. What reads
nothing: a word in a comment or literal, a member after `.`, `->` or `::`, a word `#` quotes or `##`
pastes (`x##_fn` names no `x`); the macro's parameters are bound in it by the profile's query.
"""

from __future__ import annotations

import re

# One C token a macro body's words are read from: a comment, a string or character literal, a
# number (`0x1fUL`, `1e5f`: no word), a `##` or `#` (what they touch is pasted or quoted, no use),
# an accessor (`.`, `->`, `::`: the word after it is a member, no name of its own), or a word.
_TOKEN = re.compile(rb"""/\*.*?(?:\*/|\Z)|//[^\n]*|"(?:[^"\\\n]|\\.)*"?|'(?:[^'\\\n]|\\.)*'?"""
                    rb"""|\.?\d(?:[\w.]|[eEpP][+-])*|\#\#|\#|->|::|\.|([A-Za-z_]\w*)|\S""", re.S)


def token_uses(text: bytes) -> list[tuple[int, str]]:
    """(offset, word) of each word of a macro body `text` (C preprocessor tokens) that reads a name:
    not one inside a comment or literal, not a member after an accessor (`L->top`, `s.n`), not one
    a `#` quotes or a `##` pastes (`x##_fn` names no `x`)."""
    found: list[tuple[int, str]] = []
    tokens = list(_TOKEN.finditer(text))
    for index, token in enumerate(tokens):
        if token.group(1) is None:
            continue
        before = tokens[index - 1].group() if index else b""
        after = tokens[index + 1].group() if index + 1 < len(tokens) else b""
        if before in (b".", b"->", b"::", b"#", b"##") or after == b"##":
            continue
        found.append((token.start(), token.group(1).decode("utf-8", "replace")))
    return found
