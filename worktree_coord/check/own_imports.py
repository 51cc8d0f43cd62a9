"""The relative imports of a task's own files that its moves and deletions leave naming nothing.

Stage: beside the removed-names look of left_behind.py (its `_broken_uses` adds these findings), so
`task check`, `task finish`'s merge, `wtc check`, `wtc report` and `land` all see them. Input: the
task's changes, the tree before it (`since`) and after it (the task's side, or `at`), and the files
it moved (left_behind.moved_files). Output: `SemanticFinding`s of kind "own_import" (`name`: the
specifier as written, `definition_path`: the file it named before, `use_path`: the task's file),
one per import line.

Why: the other looks read the files a task did not change; a file it moved carries its relative
imports along, and each now starts from the new folder. Found driving wtc on socket.io: a task
moved lib/memory/in-memory-adapter.ts to lib/a/b/ and left a stub at the old path; `wtc check` was
clean, yet the moved file's `import { yeast } from "../contrib/yeast"` named lib/a/contrib/yeast,
which does not exist, and tsc failed. The use is in the task's own file, so the fix is the import,
not a wider boundary.

How: for each file the task moved, added or edited whose profile lists the modules a file loads
(`specifiers`), each relative specifier (profile `relative_parents`, Python's leading dots) read
in the tree after the task (semantic.tree_module_files, the resolution the other checks use) and,
from the file's place before the task (its old path for a move, its own path otherwise), in the
tree at `since`. It is named only when it named a file before and names none now: a specifier
already broken at the pin (a generated file, a path the project builds) is not the task's doing,
and a package's name (`react`, `os`) is not relative. A `from . import x` (no path below the dots)
is left out: `x` may be a name, and a folder without `__init__.py` still answers it. Go imports
packages by path, not relative to a file: not read here. Rust's `mod x;` and `super::` follow the
crate's module tree, which no `specifiers` query reads: own_imports_rust.py reads them.
"""

from __future__ import annotations

from typing import Callable, Iterable

from ..gitrepo.repository import Change
from ..merge.checks.semantic import semantic_profile
from .left_modules import module_resolvers
from ..merge.checks.symbols import module_specifiers
from ..merge.checks.versions import MAX_BYTES
from ..merge.languages.profiles import Profile
from ..merge.result import SemanticFinding

KIND = "own_import"


def own_imports_broken(changes: Iterable[Change], read_blob: Callable[[str], bytes], since: str,
                       file_at: Callable[[str, str], bytes | None], moved: Callable[[], dict[str, str]], *,
                       at: str | None = None,
                       folders_at: Callable[[str, str], list[str] | None] | None = None,
                       max_files: int = 100,
                       specifiers: Callable[[Profile, bytes], list[tuple[str, int, str]]] = module_specifiers
                       ) -> list[SemanticFinding]:
    """Each relative import, in a file the task moved, added or edited (read at `at` when given: a
    merged or landed tree), that named a file from the file's old place at `since` and names none
    now. `moved()` maps each path the task deleted to the path it moved that file to: asked only
    where a file's old place matters (a Rust file, a relative import that names no file now), as
    finding moves reads the definitions of the task's deleted and added files. `specifiers`: the
    reader of a version's modules (symbols.module_specifiers, or one that keeps them by content)."""
    changes = list(changes)
    known: list[dict[str, str]] = []

    def moved_from(path: str) -> str:
        """The path the task moved `path` from (`path` itself when it did not move it)."""
        if not known:
            known.append({new: old for old, new in moved().items()})
        return known[0].get(path, path)
    found = _rust_broken(changes, read_blob, since, file_at, moved_from, at=at, max_files=max_files)
    mine = [c for c in changes if c.new_oid is not None and _reads_specifiers(c.path)][:max_files]
    if not mine:
        return found
    # Here, not at the top: a finish imports this module, and the re-exports' reader (with the
    # ecosystems' path readers) only where a file the task moved or changed is read.
    from ..merge.checks.reexports import module_parts

    named_before, named_after, after = module_resolvers(changes, read_blob, since, file_at, at=at,
                                                        folders_at=folders_at)
    for change in mine:
        text = after("", change.path)
        if text is None or len(text) > MAX_BYTES:
            continue
        profile = semantic_profile(change.path)
        assert profile is not None
        try:
            loaded = specifiers(profile, text)
        except (ValueError, UnicodeDecodeError):
            continue
        lines = text.split(b"\n")
        for module, line, member in loaded:
            if member:
                continue   # `from .pkg import mod`: `mod` may be a name `.pkg` binds; `.pkg` itself is read
            relative, _up, parts = module_parts(module, profile.semantic)
            if not relative or not parts:
                continue
            if named_after(module, change.path):
                continue
            old_place = moved_from(change.path)
            was = named_before(module, old_place)
            if not was:
                continue   # it named nothing at the pin either: not this task's doing
            found.append(SemanticFinding(
                name=module, kind=KIND, definition_path=was[0], definition_line=1, use_path=change.path,
                use_line=line, removed_by="task", used_by="task",
                definition=old_place if old_place != change.path else "",
                use=lines[line - 1].decode("utf-8", "replace").strip() if line <= len(lines) else ""))
    return found


def _rust_broken(changes: list[Change], read_blob: Callable[[str], bytes], since: str,
                 file_at: Callable[[str, str], bytes | None], moved_from: Callable[[str], str], *,
                 at: str | None, max_files: int) -> list[SemanticFinding]:
    """The Rust files of the task whose `mod x;` or `super::`/`self::` path named a file module from
    their place before the task and names none now (own_imports_rust.py), as findings."""
    rust = [c for c in changes if c.new_oid is not None and c.path.endswith(".rs")][:max_files]
    if not rust:
        return []
    from .own_imports_rust import rust_own_imports

    _before, _after, after = module_resolvers(changes, read_blob, since, file_at, at=at)
    found: list[SemanticFinding] = []
    for change in rust:
        text = after("", change.path)
        if text is None or len(text) > MAX_BYTES:
            continue
        old_place = moved_from(change.path)
        lines = text.split(b"\n")
        for line, written, was in rust_own_imports(change.path, old_place, text, lambda p: file_at(since, p),
                                                   lambda p: after("", p)):
            found.append(SemanticFinding(
                name=written, kind=KIND, definition_path=was, definition_line=1, use_path=change.path,
                use_line=line, removed_by="task", used_by="task",
                definition=old_place if old_place != change.path else "",
                use=lines[line - 1].decode("utf-8", "replace").strip() if line <= len(lines) else ""))
    return found


def _reads_specifiers(path: str) -> bool:
    profile = semantic_profile(path)
    return profile is not None and bool(profile.semantic.specifiers)
