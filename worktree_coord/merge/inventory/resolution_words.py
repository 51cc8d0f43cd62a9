"""What a clean structured merge did to one file, in a line for the agent whose finish it settled.

Stage: after the cascade, for a file git's line merge conflicted on and the cascade merged cleanly
(the merge queue's `resolved` files). Input: the three versions and the `FileMerge`. Output: one
line, e.g. "imports of both sides combined; both sides' new declarations kept (this task: def
test_b; integration: def test_a)".

How: the words come from the merge's own record, never from a guess: the rules its `trace` names
(provenance: which rule settled each place both sides edited) mapped to plain words, in the order
recorded, and the declarations each side changed against the base (declarations.py), named per
side. A result with no recorded rule is described by its strategy (a line merge of the two sides).
Invariants: pure (bytes in, a string out); cheap next to the merge itself (the inventories parse
each version once).
"""

from __future__ import annotations

from .declarations import WHOLE_FILE, changed_declarations
from ..result import FileMerge, Strategy
from ..syntax.structured import COMMENT_OVER_HEAD, INSIDE, MOVED_AND_EDITED

MAX_NAMED = 3   # declarations named per side; more are counted

# Rule (or its prefix, before ": ") -> words, "{things}" standing for declarations or keys.
_RULES = {
    "python import union": "imports of both sides combined",
    "union of members": "both sides' new {things} kept",
    "same edit on both sides": "the same edit made on both sides, kept once",
    "line merge between members": "both sides' edits to neighbouring {things} joined",
    INSIDE: "a {thing} both sides edited, merged inside",
    "line merge inside one member": "a {thing} both sides edited, its lines merged",
    MOVED_AND_EDITED: "a {thing} one side moved and the other edited, kept moved with the edit",
    "move": "a {thing} one side moved, kept where it moved",
    "registrations at one place": "both sides' registrations at one place kept",
    "independent statements at one place": "both sides' statements at one place kept",
    "one call edited twice": "both sides' edits of one call combined",
    COMMENT_OVER_HEAD: "one side's comment kept over the other side's rewritten {thing}",
}


def _words(rule: str) -> str:
    data = rule.startswith("data: ")
    rule = rule[len("data: "):] if data else rule
    things, thing = ("keys", "key") if data else ("declarations", "declaration")
    if rule.endswith(" entries"):
        return "both sides' entries kept"
    text = _RULES.get(rule) or _RULES.get(rule.split(":", 1)[0]) or rule
    return text.format(things=things, thing=thing)


def _named(declarations: tuple[str, ...]) -> str:
    shown = [d for d in declarations if d != WHOLE_FILE]
    if not shown:
        return ""
    more = len(shown) - MAX_NAMED
    return ", ".join(shown[:MAX_NAMED]) + (f" and {more} more" if more > 0 else "")


def describe_resolution(base: bytes, ours: bytes, theirs: bytes, result: FileMerge, path: str, *,
                        ours_label: str = "integration", theirs_label: str = "this task") -> str:
    """One line saying what the clean merge `result` of `path` did (module docstring)."""
    said: list[str] = []
    for rule, _start, _end in result.trace:
        words = _words(rule)
        if words not in said:
            said.append(words)
    if not said:
        said.append("both sides' lines joined by a line merge" if result.strategy in (Strategy.LINE, Strategy.TRIVIAL)
                    else f"merged by the {result.strategy.value} merge")
    try:
        sides = [(theirs_label, _named(changed_declarations(base, theirs, path))),
                 (ours_label, _named(changed_declarations(base, ours, path)))]
    except Exception:  # noqa: BLE001 - naming is a courtesy: a file the inventory cannot read is still described
        sides = []
    named = "; ".join(f"{label}: {names}" for label, names in sides if names)
    return "; ".join(said) + (f" ({named})" if named else "")
