"""The keywords a call of a class passes to the constructor its language makes from the class's fields.

Stage: inside the signature check (signatures.py), for a class a side edited. Python's `@dataclass`,
`NamedTuple` and attrs' `@define` write `__init__` from the fields the class body declares (`x: int`),
so renaming a field (`x` -> `px`) leaves `Point(x=1)` elsewhere failing (TypeError: unexpected
keyword argument) exactly as renaming a parameter of a function does; the fields' reads (`p.x`) are
the broken-names check's (symbols.py `Symbols.fields`). Input: the profile's signature rules
(`records`: a query whose `@record` is such a class and each `@field` one of its fields), a version's
parse and the class's definition. Output: its fields in order, or None where the query does not call
it a record (then what its call takes is not known here).
"""

from __future__ import annotations

import functools

import tree_sitter

from ..languages.profiles import Profile
from .symbols import Definition, definition_node


@functools.lru_cache(maxsize=None)
def _records_query(profile: Profile) -> tree_sitter.Query:
    """The profile's `records` query, compiled once."""
    return tree_sitter.Query(profile.language, profile.semantic.signatures.records)


def record_fields(profile: Profile, tree: tree_sitter.Tree | None, definition: Definition,
                  based: bool = False) -> tuple[str, ...] | None:
    """The fields, in order, of the record class `definition` (whose node spans its bytes in `tree`);
    None when the query does not match it (not a record, or a record of no field it can read). A
    class that declares bases (`based`) is read only by a pattern that captures the base making it a
    record (`@base`: `NamedTuple`): another base may give it fields, or a constructor, of its own."""
    node = definition_node(tree, definition) if profile.semantic.signatures.records else None
    if node is None:
        return None
    # (the match's root is the class, or the decorated definition around it: profile `wrappers`)
    scope = node.parent if node.parent is not None and node.parent.type in profile.semantic.signatures.wrappers else node
    fields: dict[int, str] = {}
    for _, captures in tree_sitter.QueryCursor(_records_query(profile)).matches(scope):
        records = captures.get("record", [])
        if (not based or "base" in captures) \
                and any((r.start_byte, r.end_byte) == (definition.start_byte, definition.end_byte) for r in records):
            for field in captures.get("field", []):
                fields.setdefault(field.start_byte, (field.text or b"").decode("utf-8", "replace"))
    return tuple(fields[start] for start in sorted(fields)) if fields else None
