"""Uses a task left, in the very file it removed a name from, of that name.

Stage: the left-behind look (left_behind.py), for each file whose task version no longer defines a
top-level name its base version defined. Input: that file's path, its task version, the names gone
from it, and its base version's definitions. Output: one SemanticFinding (problem "broken", removed
and used by the task) for each bare use of a gone name the task version no longer binds.

Why: the look reads the uses in other files, and the merge's check the lines a side added; a use on
an untouched line of the renaming file itself was read by neither. Found driving wtc on Leaflet: a
task renamed `isFlat` to `isFlatLatLngs` in LineUtil.js and left `polylineCenter`'s `isFlat(latlngs)`
two functions below: every face was clean and the landed module threw ReferenceError when called.

How (precision first): only a bare use (`isFlat(x)`, not `obj.isFlat`) of a top-level name, where
the task version binds the name nowhere around the use (no definition, assignment or import of it
at the top, no parameter or local of a function around it, no definition of that name, a method or
a named function expression, holding the use: `f = function f() { off(f) }` in a class, as Leaflet's
Map.TapHold.js has it), and the language resolves a bare name
in the file itself: not where a star import may bring it (`from .x import *`), not in a language
whose directory is its package (Go: another file of the folder may define it), nor, in C, a name
that was not `static` (another file may define it), not inside a class
of a language whose members are in scope (Java), and not a name the language has built in.
"""

from __future__ import annotations

from typing import Any

from ..merge.checks.linked import file_local, surely_placed
from ..merge.checks.reach import spelling
from ..merge.checks.semantic import semantic_profile
from ..merge.checks.symbols import extract
from ..merge.checks.versions import MAX_BYTES
from ..merge.result import SemanticFinding


def own_file_uses(path: str, after: bytes, gone: set[str], before_symbols: Any,
                  after_symbols: Any = None, before: bytes | None = None) -> list[SemanticFinding]:
    """The bare uses in `after` (the task's version of `path`) of the top-level names `gone` from it
    that `after` no longer binds (module docstring); `before_symbols` are the base version's
    definitions (where each name was defined), `after_symbols` the task version's where the caller
    holds them already with their uses (a drain's merge index): else `after` is extracted, only
    when it spells a gone name at all (a rename's file mostly does not: a merge of a drain pays a
    word search, not an extraction). In a linked language (C) only a name `before` (the base
    version) defined for its file alone (`static`) is read: another file may define any other
    (a header the task added, lstate.h taking `typedef struct LX` from lstate.c in lua fa1382b5)."""
    profile = semantic_profile(path)
    if profile is None or not gone or len(after) > MAX_BYTES:
        return []
    rules = profile.semantic
    if rules.package == "linked":
        local = {d.name for d in (before_symbols.definitions if before_symbols is not None and before is not None else ())
                 if not d.container and d.name in gone and file_local(path, before, d)   # type: ignore[arg-type]
                 and surely_placed(path, before, d)}   # type: ignore[arg-type]
        gone = gone & local
    if not gone or rules.package == "directory" or spelling(name.encode() for name in gone).search(after) is None:
        return []
    symbols = after_symbols if after_symbols is not None and after_symbols.references else None
    if symbols is None:
        try:
            symbols = extract(profile, after)
        except (ValueError, UnicodeDecodeError):
            return []
    if symbols is None or symbols.wildcard:
        return []
    imported = {item.bound for item in symbols.imports if item.scope is None}
    defined = {d.name for d in symbols.definitions if not d.container}
    lines = after.split(b"\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    where = {d.name: d for d in (before_symbols.definitions if before_symbols is not None else ()) if not d.container}
    # Definitions of a gone name anywhere in the file (a member now, a named function expression):
    # a use inside one may mean it (`x = function x() { off(x) }`), and nothing is said there.
    spans = [(d.start_byte, d.end_byte) for d in symbols.definitions if d.name in gone]
    found = []
    for reference in symbols.references:
        name = reference.name
        if reference.receiver is not None or name not in gone or name in rules.globals:
            continue
        if name in defined or name in imported or symbols.binds((), name):
            continue
        at = reference.start_byte if reference.start_byte >= 0 else starts[min(reference.line, len(starts)) - 1]
        if any(start <= at < end for start, end in spans):
            continue
        if reference.scopes & symbols.local.get(name, set()):
            continue   # a parameter or local of that name, in a function around the use
        if reference.container and rules.members_in_scope:
            continue   # a member of the class around it may answer it
        definition = where.get(name)
        use = lines[reference.line - 1].decode("utf-8", "replace").strip() if 0 < reference.line <= len(lines) else ""
        found.append(SemanticFinding(name, definition.kind if definition is not None else "", path,
                                     definition.line if definition is not None else 0, path, reference.line,
                                     "task", "task", reference.declaration, "", use))
    return found
