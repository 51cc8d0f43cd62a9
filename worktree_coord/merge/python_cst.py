"""Stage 3 of the cascade, Python only: libcst refinements on a clean merge result.

Input: the three versions (base, left, right) and the clean `FileMerge` the generic cascade chose
(the line merge or the structured merge). Output: a `FileMerge` with strategy PYTHON when a
refinement applied, else the same result unchanged.

Refinements:
  * one import per module: when the merge put two or more module-level `from m import ...`
    statements for the same module where no input had more than one (both sides imported new
    names from m), they become one statement at the first one's place: names in first-seen order
    and de-duplicated (aliases kept), sorted when the inputs' name lists were sorted.
Also `accepts`: libcst's parser as the strict check of a Python result (the structured stage's
results are discarded when libcst refuses them and takes every input).

Invariants: the refined text parses with libcst and with `ast`; it binds exactly the names the
unrefined result bound (same set of (level, module, name, alias)); everything but the combined
statements is copied byte for byte. When any of that is in doubt (comments on the statements,
star imports, statements not at module level) the result is left as the generic engine had it:
precision beats reach.
"""

from __future__ import annotations

import ast
import re
import warnings
from dataclasses import dataclass, replace

import libcst as cst

from .result import FileMerge, Strategy

# Cheap gate before any parsing: a module imported from on two or more lines of the result.
_FROM_LINE = re.compile(rb"^from[ \t]+([\w.]+)[ \t]+import\b", re.MULTILINE)


def accepts(inputs: tuple[bytes, bytes, bytes], merged: bytes) -> bool:
    """False only when libcst parses all three inputs and refuses the merged result."""
    if _parses(merged):
        return True
    return not all(_parses(data) for data in inputs)


def _parses(data: bytes) -> bool:
    try:
        cst.parse_module(data)
    except (cst.ParserSyntaxError, RecursionError, UnicodeDecodeError, ValueError):
        return False
    return True


@dataclass(frozen=True)
class _FromImport:
    """A module-level `from m import a, b as c` statement that is alone on its line."""

    index: int                  # position in Module.body
    module: tuple[int, str]     # (relative level, dotted module name)
    names: tuple[tuple[str, str | None], ...]   # (name, alias)
    parenthesized: bool
    indent: str                 # indentation of the names when parenthesized on several lines
    plain: bool                 # no comments inside or after it: safe to rewrite


def _dotted(node: cst.BaseExpression | None) -> str:
    if node is None:
        return ""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    raise ValueError("not a dotted name")


def _from_imports(module: cst.Module) -> list[_FromImport]:
    out = []
    for index, statement in enumerate(module.body):
        if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
            continue
        node = statement.body[0]
        if not isinstance(node, cst.ImportFrom) or isinstance(node.names, cst.ImportStar):
            continue
        names = []
        for alias in node.names:
            asname = None
            if alias.asname is not None:
                asname = _dotted(alias.asname.name)  # type: ignore[arg-type]
            names.append((_dotted(alias.name), asname))
        code = module.code_for_node(node)
        indent = ""
        if node.lpar is not None and "\n" in code:
            second = code.split("\n", 1)[1]
            indent = second[: len(second) - len(second.lstrip(" \t"))]
        plain = "#" not in code and statement.trailing_whitespace.comment is None
        out.append(_FromImport(index=index, module=(len(node.relative), _dotted(node.module)), names=tuple(names),
                               parenthesized=node.lpar is not None, indent=indent, plain=plain))
    return out


def _counts(module: cst.Module) -> dict[tuple[int, str], int]:
    counts: dict[tuple[int, str], int] = {}
    for item in _from_imports(module):
        counts[item.module] = counts.get(item.module, 0) + 1
    return counts


def _type_key(name: str) -> tuple[int, str]:
    """isort's default order within one statement: CONSTANTS, Classes, functions, case-blind."""
    if name.isupper() and len(name) > 1:
        return (0, name.lower())
    if name[:1].isupper():
        return (1, name.lower())
    return (2, name.lower())


_SORT_KEYS = (lambda name: name, _type_key)


def _sort_key(evidence: list[list[str]]):  # type: ignore[no-untyped-def]
    """The order every multi-name list in `evidence` follows, or None when they follow none."""
    lists = [names for names in evidence if len(names) >= 2]
    if not lists:
        return None
    for key in _SORT_KEYS:
        if all(names == sorted(names, key=key) for names in lists):
            return key
    return None


def _render(item: _FromImport, names: list[tuple[str, str | None]], newline: str, width: int) -> str:
    level, module = item.module
    words = [name if alias is None else f"{name} as {alias}" for name, alias in names]
    head = f"from {'.' * level}{module} import "
    single = head + ", ".join(words)
    if not item.parenthesized and len(single) <= width:
        return single
    indent = item.indent or "    "
    return head + "(" + newline + "".join(f"{indent}{word},{newline}" for word in words) + ")"


def _bindings(module: cst.Module) -> set[tuple[tuple[int, str], str, str | None]]:
    return {(item.module, name, alias) for item in _from_imports(module) for name, alias in item.names}


def combine_from_imports(base: bytes, left: bytes, right: bytes, merged: bytes) -> bytes | None:
    """`merged` with the `from m import` statements the merge duplicated combined into one each,
    or None when there is nothing to combine or it is not safe (see the module docstring)."""
    modules = [match.group(1) for match in _FROM_LINE.finditer(merged)]
    if len(modules) == len(set(modules)):
        return None
    try:
        tree = cst.parse_module(merged)
        inputs = [cst.parse_module(data) for data in (base, left, right)]
    except (cst.ParserSyntaxError, RecursionError, UnicodeDecodeError, ValueError):
        return None
    input_counts = [_counts(module) for module in inputs]
    groups: dict[tuple[int, str], list[_FromImport]] = {}
    for item in _from_imports(tree):
        groups.setdefault(item.module, []).append(item)
    width = max(79, *(len(line) for data in (base, left, right) for line in data.decode("utf-8").splitlines()
                      if line.startswith(("from ", "import "))))
    body = list(tree.body)
    dropped: set[int] = set()
    changed = False
    for key, items in groups.items():
        if len(items) < 2 or any(counts.get(key, 0) > 1 for counts in input_counts):
            continue  # the duplication is the file's own, not the merge's
        if not all(item.plain for item in items):
            continue
        if any(body[item.index].leading_lines and any(line.comment for line in body[item.index].leading_lines)  # type: ignore[union-attr]
               for item in items[1:]):
            continue
        if any(body[item.index].leading_lines for item in items[1:]):  # type: ignore[union-attr]
            continue  # a blank line before a later statement: it sits in another block
        names: list[tuple[str, str | None]] = []
        for item in items:
            names.extend(name for name in item.names if name not in names)
        evidence = [[name for name, _ in item.names] for module in inputs for item in _from_imports(module)
                    if item.module == key]
        key_fn = _sort_key(evidence)
        if key_fn is None and all(len(names_) < 2 for names_ in evidence):
            # No list of this module's names to learn from: follow the file's other imports.
            key_fn = _sort_key([[name for name, _ in item.names] for item in _from_imports(inputs[0])])
        if key_fn is not None:
            names.sort(key=lambda pair: key_fn(pair[0]))  # type: ignore[misc]
        first = items[0]
        text = _render(first, names, tree.default_newline, width)
        new_statement = cst.parse_statement(text + tree.default_newline)
        body[first.index] = new_statement.with_changes(leading_lines=body[first.index].leading_lines)  # type: ignore[union-attr]
        dropped.update(item.index for item in items[1:])
        changed = True
    if not changed:
        return None
    new_tree = tree.with_changes(body=[statement for index, statement in enumerate(body) if index not in dropped])
    out = new_tree.code.encode(tree.encoding)
    if out == merged or _bindings(cst.parse_module(out)) != _bindings(tree) or not _parses(out):
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(out)
    except SyntaxError:
        return None
    return out


def refine(base: bytes, left: bytes, right: bytes, result: FileMerge) -> FileMerge:
    """Apply the refinements to a clean result; return it unchanged when none applies."""
    if not result.clean or result.conflicts:
        return result
    try:
        combined = combine_from_imports(base, left, right, result.merged)
    except Exception:  # noqa: BLE001 - a refinement must never cost the result it refines
        return result
    if combined is None:
        return result
    return replace(result, merged=combined, strategy=Strategy.PYTHON,
                   notes=result.notes + ("python: from-imports of one module combined",))
