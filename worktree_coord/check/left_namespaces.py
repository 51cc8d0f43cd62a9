"""Namespaces a changed file stopped declaring that other files still declare: not removed.

Stage: the left-behind look (left_behind.py), as it reads what a changed file removed. Input: the
file's path, its version before, that version's definitions, the (container, name) pairs read as
removed, and readers of the tree (a word grep, a file's bytes). Output: the pairs, less the
namespaces (definitions of kind `namespace`, profile `[semantic] namespaces`: C#) another file still
declares.

Why: a C# namespace is declared by every file of it. A test file deleted from
`Newtonsoft.Json.Tests.Issues` (Newtonsoft.Json 03f7c0b8) read as removing the namespaces
`Newtonsoft`, `Json`, `Tests` and `Issues`, which 898 files mention (their own declarations): the
look read 400 of them and gave no answer (exit 6). The namespace is gone only where no other file
declares it; the declarations are found by a grep of its last word and a pattern over the bytes of
the files it lists, read until each namespace is found (most are, in the first file).
"""

from __future__ import annotations

from typing import Any, Callable

from ..merge.checks import namespaces
from ..merge.checks.semantic import semantic_profile


def still_declared(path: str, before: bytes, found_before: Any, pairs: set[tuple[tuple[str, ...], str]],
                   mentioning: Callable[[list[str]], list[str]],
                   read: Callable[[str], bytes | None]) -> set[tuple[tuple[str, ...], str]]:
    """`pairs` (read as removed from `path`, whose version `before` defines `found_before`) without
    the namespaces a file `mentioning` lists (not `path`), read by `read`, still declares."""
    profile = semantic_profile(path)
    if profile is None or not profile.semantic.namespaces or found_before is None:
        return pairs
    gone = {(d.container, d.name): d for d in found_before.definitions
            if d.kind == "namespace" and (d.container, d.name) in pairs}
    if not gone:
        return pairs
    facts = namespaces.facts(profile, profile.parse(before), before)
    whole = {pair: namespaces.defined_in(facts, before, d.start_byte, d.end_byte, d.kind) for pair, d in gone.items()}
    others = (other for other in mentioning(sorted({name for _, name in gone})) if other != path)
    kept = namespaces.declared(set(whole.values()), ((other, read(other)) for other in others),
                              profile.semantic.namespace_keyword)
    return {pair for pair in pairs if pair not in whole or whole[pair] not in kept}
