"""Which names a module's own `__getattr__` (the profile's `any_name`, PEP 562) answers.

Stage: the semantic check and the left-behind look, when a file defines at top level a function
the profile names in `any_name`. Input: that function's source text. Output: the names it answers,
or None when it may answer any name.

Why: a module `__getattr__` is mostly written to warn on one or two names (`__version__`) and
ends `raise AttributeError(name)` for every other. Taken as answering any name, it hid every
top-level name the module lost: found driving wtc on pallets/jinja, whose `__init__.py` keeps
such a `__getattr__`; a task dropped the re-export `make_logging_undefined`, the tests still
imported it from `jinja2`, and the run landed a tree whose tests do not import.

How: Python's own parser over the function (`any_name` is Python's key; a language without a
reading here answers any name, as before). It answers only the string literals it compares its
parameter with (`name == "x"`, `name in ("x", "y")`) when every `return` it makes stands under
such a comparison and its last statement raises `AttributeError`; anything else (a lookup in a
table, a lazy import of `name`, a return outside the comparisons) may answer any name: None.
"""

from __future__ import annotations

import ast
import functools

ANY = None   # what a `__getattr__` that may answer any name answers


@functools.lru_cache(maxsize=256)
def answered_names(source: bytes) -> frozenset[str] | None:
    """The names the one top-level function `source` holds answers, None when it may answer any.
    `source` is the function's text alone (a definition's bytes)."""
    try:
        module = ast.parse(source)
    except (SyntaxError, ValueError):
        return ANY
    if len(module.body) != 1 or not isinstance(module.body[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return ANY
    function = module.body[0]
    if not function.args.args or not function.body or not _raises_attribute_error(function.body[-1]):
        return ANY
    parameter = function.args.args[0].arg
    names: set[str] = set()
    if not _returns_guarded(function.body, parameter, False, names):
        return ANY
    return frozenset(names)


def answers(source: bytes, name: str) -> bool:
    """Whether the `__getattr__` in `source` answers `name`."""
    found = answered_names(source)
    return found is ANY or name in found


def _raises_attribute_error(statement: ast.stmt) -> bool:
    if not isinstance(statement, ast.Raise) or statement.exc is None:
        return False
    raised = statement.exc.func if isinstance(statement.exc, ast.Call) else statement.exc
    return isinstance(raised, ast.Name) and raised.id == "AttributeError"


def _returns_guarded(statements: list[ast.stmt], parameter: str, guarded: bool, names: set[str]) -> bool:
    """Whether every `return` in `statements` (nested functions and classes aside) stands under a
    comparison of `parameter` with literals; the literals go into `names`."""
    for statement in statements:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(statement, ast.Return) and not guarded:
            return False
        if isinstance(statement, ast.If):
            literals = _compared_literals(statement.test, parameter)
            if not _returns_guarded(statement.body, parameter, guarded or literals is not None, names):
                return False
            names.update(literals or ())
            if not _returns_guarded(statement.orelse, parameter, guarded, names):
                return False
            continue
        for field in ("body", "orelse", "finalbody", "handlers"):
            inner = getattr(statement, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], (ast.stmt, ast.excepthandler)):
                blocks = [h.body for h in inner] if isinstance(inner[0], ast.excepthandler) else [inner]
                if not all(_returns_guarded(block, parameter, guarded, names) for block in blocks):
                    return False
        if isinstance(statement, ast.Match):
            return False   # a `match name:` is not read: any name
    return True


def _compared_literals(test: ast.expr, parameter: str) -> set[str] | None:
    """The string literals `test` compares `parameter` with (`==`, `in`, joined by `or`), None when
    `test` is anything else."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        found: set[str] = set()
        for value in test.values:
            part = _compared_literals(value, parameter)
            if part is None:
                return None
            found |= part
        return found
    if not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return None
    left, right, op = test.left, test.comparators[0], test.ops[0]
    if isinstance(op, ast.Eq):
        if isinstance(right, ast.Name) and right.id == parameter:
            left, right = right, left
        if isinstance(left, ast.Name) and left.id == parameter and _string(right):
            return {right.value}  # type: ignore[attr-defined]
        return None
    if isinstance(op, ast.In) and isinstance(left, ast.Name) and left.id == parameter \
            and isinstance(right, (ast.Tuple, ast.List, ast.Set)) and right.elts and all(map(_string, right.elts)):
        return {element.value for element in right.elts}  # type: ignore[attr-defined]
    return None


def _string(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)
