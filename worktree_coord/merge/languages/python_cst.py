"""Stage 3 of the cascade, Python only: libcst refinements on a clean merge result.

Input: the three versions (base, left, right) and the clean `FileMerge` the generic cascade chose
(the line merge or the structured merge). Output: a `FileMerge` with strategy PYTHON when a
refinement applied, else the same result unchanged.

Refinements:
  * one import per module: when the merge put two or more module-level `from m import ...`
    statements for the same module where no input had more than one (both sides imported new
    names from m), they become one statement at the first one's place: names in first-seen order
    and de-duplicated (aliases kept), sorted when the inputs' name lists were sorted.
Also `accepts`: the structured stage's Python result keeps the kind of its `__all__`. (It once also
asked libcst's parser to take the result: validate.py's `ast`, the interpreter's own grammar, has
already taken it by then, and libcst's grammar follows the interpreter's, so a refusal could only be
a gap of libcst's. Over the history corpus's 879 Python files it refused none of the 166 structured
results it saw, while the parse cost 13% of their merge time, and 0.95 s of a 5,100-line module's.)

Invariants: the refined text parses with libcst and with `ast`; it binds exactly the names the
unrefined result bound (same set of (level, module, name, alias)); everything but the combined
statements is copied byte for byte. When any of that is in doubt (comments on the statements,
star imports, statements not at module level) the result is left as the generic engine had it:
precision beats reach.
"""

from __future__ import annotations

import functools
import re
import warnings
from collections import Counter
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ...frozen import value_class
from ..result import FileMerge, Strategy


class _LibCST:
    """libcst, imported on first use: it costs about 0.2 s, and most merges never reach it (a file of
    another language, a clean line merge without a duplicated from-import)."""

    def __getattr__(self, name: str) -> Any:
        import libcst

        globals()["cst"] = libcst  # later lookups go straight to the module
        return getattr(libcst, name)


if TYPE_CHECKING:
    import ast

    import libcst as cst
else:
    cst = _LibCST()

# Cheap gate before any parsing: a module imported from on two or more lines of the result.
_FROM_LINE = re.compile(rb"^from[ \t]+([\w.]+)[ \t]+import\b", re.MULTILINE)
# A whole import statement on one line (no parenthesis left open, no continuation, no comment).
_ONE_LINE_IMPORT = re.compile(r"^(?:import|from)[ \t][^#(\\]*\r?\n$|^(?:import|from)[ \t][^#\\]*\)[ \t]*\r?\n$")


def accepts(inputs: tuple[bytes, bytes, bytes], merged: bytes) -> bool:
    """False when the merged `__all__` is no longer the kind of sequence every input had (a one-name
    tuple that lost its comma is a string: `("b")`); the caller has checked that `ast` parses it."""
    return _all_kind(merged) in {_all_kind(data) for data in inputs}


def _all_kind(data: bytes) -> str | None:
    """The node type of the value of a module-level `__all__ = ...`, if any."""
    found = re.search(rb"^__all__[ \t]*=[ \t]*(.)", data, re.MULTILINE)
    if found is None:
        return None
    import ast   # here, not at the top: a merge that reads no `__all__` never needs it (start-up)

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError):
        return None
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return type(node.value).__name__
    return None


_PARSE_ERRORS = (RecursionError, UnicodeDecodeError, ValueError)   # and cst.ParserSyntaxError


@functools.lru_cache(maxsize=8)
def _parsed(data: bytes) -> tuple[cst.Module | None, BaseException | None]:
    try:
        return cst.parse_module(data), None
    except (cst.ParserSyntaxError, *_PARSE_ERRORS) as error:
        return None, error


def _module(data: bytes) -> cst.Module:
    """`cst.parse_module(data)`, each text parsed once per merge (`refine` empties the cache when it
    returns): one merge asks for the same four versions
    (base, left, right, merged) from the strict check, the import union, the from-import combiner
    and the binding counts, and a 2,000-line module costs ~0.1-0.4 s to parse (aiohttp
    `tests/test_client_request.py` was parsed 29 times in one merge_file: 3 s CPU). libcst trees
    are immutable, so sharing one is safe."""
    module, error = _parsed(data)
    if error is not None:
        raise error
    assert module is not None
    return module


def _parses(data: bytes) -> bool:
    try:
        _module(data)
    except (cst.ParserSyntaxError, *_PARSE_ERRORS):
        return False
    return True


@value_class
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
    if _only_the_files_own(base, left, right, merged):
        return None
    try:
        tree = _module(merged)
        inputs = [_module(data) for data in (base, left, right)]
    except (cst.ParserSyntaxError, RecursionError, UnicodeDecodeError, ValueError):
        return None
    input_counts = [_counts(module) for module in inputs]
    if any(count > 1 for counts in input_counts for count in counts.values()) \
            and not any(len(item.names) > 1 for module in inputs for item in _from_imports(module)):
        return None  # the file imports one name per line (a module on several lines): its style
    groups: dict[tuple[int, str], list[_FromImport]] = {}
    for item in _from_imports(tree):
        groups.setdefault(item.module, []).append(item)
    # A longer line than any import line the inputs hold (and than PEP 8's 79) gets wrapped.
    width = max([79] + [len(line) for data in (base, left, right) for line in data.decode("utf-8").splitlines()
                        if line.startswith(("from ", "import "))])
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
    if out == merged or _bindings(_module(out)) != _bindings(tree) or not _parses(out):
        return None
    import ast

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(out)
    except SyntaxError:
        return None
    return out


def _ast_body(data: bytes) -> list[ast.stmt] | None:
    """The module's statements as CPython's parser reads them (its warnings on odd escapes are
    not ours to show), or None when it refuses the text."""
    import ast

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(data).body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _ast_counts(data: bytes) -> dict[tuple[int, str], int] | None:
    """`_counts` read through `ast` (CPython's parser: ~20x faster than libcst's), or None when
    `ast` refuses the text: module-level `from m import` statements alone on their lines (no other
    statement shares a line with them), star imports left out, per (relative level, module)."""
    body = _ast_body(data)
    if body is None:
        return None
    import ast

    counts: dict[tuple[int, str], int] = {}
    for index, node in enumerate(body):
        if not isinstance(node, ast.ImportFrom) or any(alias.name == "*" for alias in node.names):
            continue
        if (index > 0 and body[index - 1].end_lineno == node.lineno) or \
                (index + 1 < len(body) and body[index + 1].lineno == node.end_lineno):
            continue   # `x = 1; from m import a`: not alone on its line
        key = (node.level, node.module or "")
        counts[key] = counts.get(key, 0) + 1
    return counts


def _only_the_files_own(base: bytes, left: bytes, right: bytes, merged: bytes) -> bool:
    """True when every module the merged result imports from on two or more statements already has
    two in some input: `combine_from_imports` would combine nothing (it leaves a file's own
    duplication alone), so its four libcst parses (0.1-0.4 s each on a 1,500-line module) are
    skipped. Read with `ast`; when `ast` refuses a version, False (libcst decides, as before)."""
    counts = [_ast_counts(data) for data in (merged, base, left, right)]
    if any(found is None for found in counts):
        return False
    merged_counts, inputs = counts[0], counts[1:]
    assert merged_counts is not None
    return all(any(found.get(key, 0) > 1 for found in inputs if found is not None)
               for key, count in merged_counts.items() if count > 1)


def refine(base: bytes, left: bytes, right: bytes, result: FileMerge) -> FileMerge:
    """Apply the refinements; return the result unchanged when none applies.

    A conflicted result whose every conflict holds only import statements becomes the import
    union (what either side added, minus what either removed); a clean result gets its duplicated
    `from m import` statements combined."""
    try:
        return _refine(base, left, right, result)
    finally:
        _parsed.cache_clear()   # the trees serve one merge (and a benchmark's repeats start cold)


def _refine(base: bytes, left: bytes, right: bytes, result: FileMerge) -> FileMerge:
    notes = result.notes
    original = result
    try:
        if result.conflicts:
            resolved = resolve_import_conflicts(base, left, right, result)
            if resolved is None:
                return result
            result = replace(result, merged=resolved, clean=True, conflicts=(), strategy=Strategy.PYTHON,
                             trace=result.trace + (("python import union", -1, -1),))
            notes += ("python: import conflicts resolved as a union",)
        combined = combine_from_imports(base, left, right, result.merged)
    except Exception:  # noqa: BLE001 - a refinement must never cost the result it refines
        return result
    if combined is not None:
        result = replace(result, merged=combined, strategy=Strategy.PYTHON)
        notes += ("python: from-imports of one module combined",)
    if result is not original and result.strategy == Strategy.PYTHON and _binds_more_often(base, left, right, result.merged):
        # The union left one name imported by two statements (`from functools import partial,
        # wraps` and `from functools import cache, partial`) and they could not be combined.
        return replace(original, notes=original.notes + ("python: import union would import a name twice",))
    return replace(result, notes=notes)


def _binding_counts(data: bytes) -> Counter[str]:
    """How many module-level import statements bind each name."""
    counts: Counter[str] = Counter()
    for statement in _module(data).body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for node in statement.body:
            if isinstance(node, (cst.Import, cst.ImportFrom)) and not isinstance(node.names, cst.ImportStar):
                for alias in node.names:
                    name = alias.asname.name if alias.asname is not None else alias.name
                    counts[_dotted(name).split(".")[0]] += 1  # type: ignore[arg-type]
    return counts


def _binds_more_often(base: bytes, left: bytes, right: bytes, merged: bytes) -> bool:
    """True when the merged module imports some name more often than every input did."""
    most: Counter[str] = Counter()
    for data in (base, left, right):
        for name, count in _binding_counts(data).items():
            most[name] = max(most[name], count)
    return any(count > max(most[name], 1) for name, count in _binding_counts(merged).items())


# -- conflicts that only hold imports ---------------------------------------------------------

def _import_lines(text: str) -> list[str] | None:
    """The region's statements as normalized one-statement texts, when it holds nothing but
    plain import statements (no comments, no blank lines, no star), else None."""
    if not text.strip():
        return []
    try:
        module = cst.parse_module(text)
    except (cst.ParserSyntaxError, RecursionError, ValueError):
        return None
    if module.header or module.footer:
        return None
    out = []
    for statement in module.body:
        if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1 or statement.leading_lines:
            return None
        node = statement.body[0]
        if not isinstance(node, (cst.Import, cst.ImportFrom)) or isinstance(getattr(node, "names", None), cst.ImportStar):
            return None
        code = module.code_for_node(statement)
        if "#" in code:
            return None
        out.append(code.rstrip("\r\n"))
    return out


def _norm(statement: str) -> str:
    return " ".join(statement.replace("(", " ").replace(")", " ").replace(",", " , ").split())


def _module_of(statement: str) -> str:
    return statement.split()[1].lower()


# Orders an import block may follow: isort's default (`import x` lines before `from x import`
# lines) and its force_sort_within_sections (by module alone); ties by the statement's text, as is
# or case-blind (`from typing import Type` before `from typing import TYPE_CHECKING`).
_BLOCK_KEYS = (
    lambda s: (0 if s.split()[0] == "import" else 1, _module_of(s), _norm(s)),
    lambda s: (_module_of(s), _norm(s)),
    lambda s: (0 if s.split()[0] == "import" else 1, _module_of(s), _norm(s).lower()),
    lambda s: (_module_of(s), _norm(s).lower()),
)


def _union_imports(base: list[str], ours: list[str], theirs: list[str]) -> list[str] | None:
    """Three-way union of import statements: what either side added, minus what either removed.

    Ours' order is kept; theirs' additions go to their sorted place when ours' block is sorted in
    one of the orders isort writes (the orders theirs' block also follows, when it follows any);
    None when no order fits or the fitting orders disagree on a place. With fewer than two
    statements on ours' side there is no order to follow: theirs' additions come after."""
    b, o, t = ({_norm(s) for s in side} for side in (base, ours, theirs))
    out = [s for s in ours if _norm(s) in t or _norm(s) not in b]
    added = [s for s in theirs if _norm(s) not in b and _norm(s) not in o]
    if not added:
        return out
    if len(out) < 2:
        return out + added
    def fits(block: list[str], key) -> bool:  # type: ignore[no-untyped-def]
        return [key(s) for s in block] == sorted(key(s) for s in block)
    keys = [key for key in _BLOCK_KEYS if fits(out, key)]
    # Theirs' block, with its additions where theirs wrote them, tells the orders apart (a block of
    # from-imports alone fits both isort orders; theirs' `import x` line shows which one it is).
    keys = [key for key in keys if fits(theirs, key)] or keys
    if not keys:
        return None  # ours' block follows no order we know: where theirs' imports go is a guess
    results = []
    for block_key in keys:
        merged = list(out)
        for statement in added:
            key = block_key(statement)
            position = next((i for i, s in enumerate(merged) if block_key(s) > key), len(merged))
            merged.insert(position, statement)
        results.append(merged)
    if any(result != results[0] for result in results[1:]):
        return None  # the orders the evidence allows disagree on the place
    return results[0]


def _statement_binds(statement: str) -> set[str]:
    """The names one import statement binds (`import a.b` binds `a`)."""
    out: set[str] = set()
    for node in cst.parse_module(statement + "\n").body[0].body:  # type: ignore[attr-defined]
        if isinstance(node, (cst.Import, cst.ImportFrom)) and not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                if alias.asname is not None:
                    out.add(_dotted(alias.asname.name))  # type: ignore[arg-type]
                else:
                    out.add(_dotted(alias.name).split(".")[0])
    return out


def _rebinds_deleted(base: list[str], ours: list[str], theirs: list[str]) -> bool:
    """True when a module-level import statement both sides removed bound a name that exactly one
    side binds again with a new statement (`from pkg.chart import loader` -> `from pkg.chart.v2
    import loader`): that side edited the import, the other deleted it, and a union would keep
    the edit. Whole files are compared: a conflict block may hold only part of a side's edit."""
    b, o, t = ({_norm(s) for s in side} for side in (base, ours, theirs))
    gone = [s for s in base if _norm(s) not in o and _norm(s) not in t]
    if not gone:
        return False
    new_binds = [set().union(*(_statement_binds(s) for s in side if _norm(s) not in b)) for side in (ours, theirs)]
    for statement in gone:
        names = _statement_binds(statement)
        if bool(names & new_binds[0]) != bool(names & new_binds[1]):
            return True
    return False


def resolve_import_conflicts(base: bytes, left: bytes, right: bytes, result: FileMerge) -> bytes | None:
    """The merged text with every conflict resolved as an import union, or None when some conflict
    holds anything but plain import statements (then the result stays as it is)."""
    if not result.conflicts:
        return None
    lines = result.merged.decode("utf-8").splitlines(keepends=True)
    newline = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
    out: list[str] = []
    cursor = 0
    for index, conflict in enumerate(result.conflicts):
        # The one-line imports right above and below belong to the same block: the union is
        # ordered over the whole block (a side that re-sorted it keeps it sorted).
        start, end = conflict.start_line - 1, conflict.end_line
        while start > cursor and _ONE_LINE_IMPORT.match(lines[start - 1]):
            start -= 1
        stop = result.conflicts[index + 1].start_line - 1 if index + 1 < len(result.conflicts) else len(lines)
        while end < stop and _ONE_LINE_IMPORT.match(lines[end]):
            end += 1
        above, below = "".join(lines[start:conflict.start_line - 1]), "".join(lines[conflict.end_line:end])
        parts = [_import_lines(above + text + below) for text in (conflict.base, conflict.ours, conflict.theirs)]
        if any(part is None for part in parts):
            return None
        union = _union_imports(*parts)  # type: ignore[arg-type]
        if union is None:
            return None
        out.extend(lines[cursor:start])
        out.extend(statement + newline for statement in union)
        cursor = end
    out.extend(lines[cursor:])
    merged = "".join(out).encode("utf-8")
    # The binding rule below, read first through `ast` (four libcst parses cost 0.5-1 s on a
    # 1,500-line module, and most unions fail it): the same sets when `ast` reads all four.
    quick = [_ast_bindings(data) for data in (base, left, right, merged)]
    if all(found is not None for found in quick):
        b, o, t, m = quick  # type: ignore[misc]
        if m != (o & t) | (o - b) | (t - b):
            return None
    if not _parses(merged):
        return None
    # Every name either side bound and the other did not unbind must be bound in the result.
    try:
        trees = [_module(data) for data in (base, left, right, merged)]
    except (cst.ParserSyntaxError, RecursionError, ValueError):
        return None
    if _rebinds_deleted(*(_import_lines_of(tree) for tree in trees[:3])):
        return None
    sets = [_all_bindings(tree) for tree in trees]
    b, o, t, m = sets
    if m != (o & t) | (o - b) | (t - b):
        return None
    # ... and no import statement may be repeated more often than some input repeats it.
    repeats = [Counter(_norm(line) for line in _import_lines_of(tree)) for tree in trees]
    if any(count > max(side.get(text, 0) for side in repeats[:3]) and count > 1 for text, count in repeats[3].items()):
        return None
    return merged


def _ast_bindings(data: bytes) -> set[tuple[str, str, str | None]] | None:
    """`_all_bindings` read through `ast`, or None when `ast` refuses the text."""
    body = _ast_body(data)
    if body is None:
        return None
    import ast

    out: set[tuple[str, str, str | None]] = set()
    for node in body:
        if isinstance(node, ast.Import):
            out.update(("", alias.name, alias.asname) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not any(alias.name == "*" for alias in node.names):
            source = "." * node.level + (node.module or "")
            out.update((source, alias.name, alias.asname) for alias in node.names)
    return out


def _import_lines_of(module: cst.Module) -> list[str]:
    """The module-level import statements' texts (one per statement)."""
    return [module.code_for_node(statement).strip() for statement in module.body
            if isinstance(statement, cst.SimpleStatementLine)
            and any(isinstance(node, (cst.Import, cst.ImportFrom)) for node in statement.body)]


def _all_bindings(module: cst.Module) -> set[tuple[str, str, str | None]]:
    """Module-level import bindings: (module or "", name, alias)."""
    out: set[tuple[str, str, str | None]] = set()
    for statement in module.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for node in statement.body:
            if isinstance(node, cst.Import):
                for alias in node.names:
                    out.add(("", _dotted(alias.name), _dotted(alias.asname.name) if alias.asname else None))  # type: ignore[arg-type]
            elif isinstance(node, cst.ImportFrom) and not isinstance(node.names, cst.ImportStar):
                source = "." * len(node.relative) + _dotted(node.module)
                for alias in node.names:
                    out.add((source, _dotted(alias.name), _dotted(alias.asname.name) if alias.asname else None))  # type: ignore[arg-type]
    return out
