"""Names a member binds and names it uses, for containers that run top to bottom.

Stage: a helper of the structured merge (structured.py), used when both sides insert statements at
one place of an order-sensitive container (a Python module, a class body, a C translation unit:
see Profile.order_sensitive).
Input: one member's tree-sitter node and its source. Output: frozen sets of names.
Invariants: `used` over-approximates (every identifier token in the member counts, any node kind
ending in `identifier`, except inside the body of a profile's `deferred` kinds, like a Python
function or lambda, which runs only when called): a false dependency costs a reorder or a
conflict, a missed one a NameError (or, in C, a use before its declaration). `bound` takes only the names a statement itself introduces (a def/class name, an
assignment's plain target names, an import's names), so a dependency is never invented from an
attribute write like `a.b = 1`.
"""

from __future__ import annotations

import tree_sitter

_IDENTIFIER = "identifier"
# Wrappers whose inner statement does the binding (a decorated def, an expression statement).
_WRAPPERS = {"decorated_definition": "definition"}
# Fields holding a type annotation: a parameter's or an annotated assignment's `type`, a return type.
_ANNOTATION_FIELDS = {"type", "return_type"}
_IMPORTS = {"import_statement", "import_from_statement", "future_import_statement"}


def names_used(source: bytes, node: tree_sitter.Node, *, annotations: bool = True,
               deferred_kinds: frozenset[str] = frozenset(), name_kinds: frozenset[str] = frozenset()) -> frozenset[str]:
    """Every identifier token inside `node` (an over-approximation of the names it reads), but for
    the bodies of `deferred_kinds` (Python's functions and lambdas: their bodies run only when
    called; their decorators, defaults and annotations run where they stand and still count);
    with annotations=False also not inside type annotations (for stubs and modules with
    `from __future__ import annotations`, where they are never run). `name_kinds`: node kinds that
    are names too without ending in `identifier` (Ruby's `constant`)."""
    found: set[str] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type.endswith(_IDENTIFIER) or current.type in name_kinds:
            found.add(source[current.start_byte:current.end_byte].decode("utf-8", "replace"))
        deferred = current.child_by_field_name("body") if current.type in deferred_kinds else None
        for index, child in enumerate(current.children):
            if deferred is not None and child.id == deferred.id:
                continue
            if not annotations and current.field_name_for_child(index) in _ANNOTATION_FIELDS:
                continue
            stack.append(child)
    return frozenset(found)


def _target_names(source: bytes, node: tree_sitter.Node, out: set[str]) -> None:
    """Plain names an assignment target binds: `a`, `a, b`, `[a, *b]`; not `a.b` or `a[i]`."""
    if node.type == _IDENTIFIER:
        out.add(source[node.start_byte:node.end_byte].decode("utf-8", "replace"))
    elif node.type in ("pattern_list", "tuple_pattern", "list_pattern", "list_splat_pattern", "tuple", "list",
                       "expression_list", "parenthesized_expression"):
        for child in node.named_children:
            _target_names(source, child, out)


def names_bound(source: bytes, node: tree_sitter.Node) -> frozenset[str]:
    """The names the statement `node` introduces in its container."""
    while node.type in _WRAPPERS and node.child_by_field_name(_WRAPPERS[node.type]) is not None:
        node = node.child_by_field_name(_WRAPPERS[node.type])  # type: ignore[assignment]
    out: set[str] = set()
    if node.type in _IMPORTS:
        for index, child in enumerate(node.children):
            if node.field_name_for_child(index) == "module_name":
                continue
            if child.type == "aliased_import":
                alias = child.child_by_field_name("alias")
                if alias is not None:
                    out.add(source[alias.start_byte:alias.end_byte].decode("utf-8", "replace"))
            elif child.type == "dotted_name" and child.named_children:
                first = child.named_children[0]   # `import a.b` binds `a`
                out.add(source[first.start_byte:first.end_byte].decode("utf-8", "replace"))
        return frozenset(out)
    name = node.child_by_field_name("name")
    if name is not None and name.type == _IDENTIFIER:
        out.add(source[name.start_byte:name.end_byte].decode("utf-8", "replace"))
        return frozenset(out)
    statements = node.named_children if node.type == "expression_statement" else [node]
    for statement in statements:
        while statement.type == "assignment":
            left = statement.child_by_field_name("left")
            if left is not None:
                _target_names(source, left, out)
            right = statement.child_by_field_name("right")
            if right is None or right.type != "assignment":   # `a = b = 1` chains
                break
            statement = right
        if statement.type == "augmented_assignment":
            left = statement.child_by_field_name("left")
            if left is not None:
                _target_names(source, left, out)
    return frozenset(out)
