"""The post-merge check for an import path one side replaced throughout and the other side still adds.

Stage: after a tree merge, beside the broken-names check (semantic.py calls it when the caller can
say what a side's whole tree still mentions: merge/tree.py can, a one-file merge cannot). Input:
the files of the merge (base, left, right, merged versions) and `mentions(side, modules)`: which of
the modules some file of that side's tree still names (one pass for all of them). Output: `SemanticFinding`s with
`problem="import_path"`.

The shape (`javax.servlet` -> `jakarta.servlet`, a Go module path bumped to `/v2`, a Python package
renamed): one side replaced every import of module P, the other side's new lines import P. The
merge is clean and does not build (P is gone from the tree or from the dependencies).

A finding needs all of (precision first):
- the using side added an import from P to a file (a name from P it did not import at the base;
  a file it added where it deleted one of the same name is a move, not new imports), and the
  merged file still holds that import;
- the other side replaced P in at least one file it changed: the base imported a name from P there
  and that side's version binds the same name from another module, or imports a module that is P
  moved (`P/v2`, or P's words split differently: `etcd/clientv3` -> `etcd/client/v3`): a move,
  not a dropped use;
- no file that side changed imports P any more, and no file of its whole tree mentions P
  (`mentions`; in a grouped import too: `use std::{ops::Deref}` mentions std::ops, `grouped_paths`),
  so the base's imports of P are gone from every file, changed or not;
- a relative P names the same path from the using file as from the file the other side replaced it
  in (`./b` in lib/cmd/new.js is lib/cmd/b.js, not the lib/util/b.js replaced in lib/util/x.js);
- P is not a relative module whose file that side and the merged tree still hold (a side that
  wrote `hooks` for `.hooks`, Python 2's implicit relative import, did not move it), and not an external
  dependency's module that the merge still declares as the base did (dependencies.py: that side
  stopped using it; the module is still there);
- every version read parses cleanly (nothing is guessed).
One finding per module and use line (a line importing several names of P is one place to fix).
Cost: without an import the using side added to a file both sides did not share, nothing is read;
the tree-wide look runs only for a module the other side replaced. A file's base version (a parse)
is read only where what it tells can matter: for what the using side added, where its version
imports a module the other side's tree no longer names (asked of the importing files first); for
what the other side replaced, where its base can import a module the using side's files import
(`imported_modules`: a drain's tip keeps them in its tables), and that side imports no more.
"""

from __future__ import annotations

import functools
import posixpath
import re
from typing import Callable, Iterable, Protocol

from ..ecosystems.dependencies import declared_dependency
from ..languages.profiles import profile_for_path
from ..result import SemanticFinding
from .reexports import module_parts
from .symbols import Import, Symbols
from .versions import Versions

_SIDES = ("left", "right")
_ALNUM = re.compile(r"[^0-9A-Za-z]")
# Whether a base version is read only where what it tells can matter (find_replaced_imports); tests
# turn it off to compare with the check reading every one.
NARROW = True


class _Symbolic(Protocol):
    def symbols(self, path: str, which: str, uses: bool = True) -> Symbols | None: ...

    def imports(self, path: str, which: str) -> Symbols | None: ...

    def still_holds(self, module: str, importer: str, side: str) -> bool: ...

    def changed_files(self, side: str) -> list[Versions]: ...

    def changed_count(self, side: str) -> int: ...

    def differing_count(self, side: str, other: str) -> int: ...

    def imported_modules(self, side: str, data: bytes) -> set[str] | None: ...


class Mentions(Protocol):
    """Which of `modules` some file of `side`'s whole tree still names (tree._Mentions), looking
    at the files `first` first."""

    def __call__(self, side: str, modules: Iterable[str], first: Iterable[str] = ()) -> set[str]: ...


TreeFile = Callable[[str, str], "bytes | None"]   # (which: base/left/right, path) -> that tree's bytes, None: absent


def find_replaced_imports(files: Iterable[Versions], check: _Symbolic, labels: dict[str, str],
                          mentions: Mentions, tree_file: TreeFile | None = None) -> list[SemanticFinding]:
    """The findings (module docstring); `check` gives each version's symbols (semantic._Check),
    `labels` the sides' names; `tree_file` reads any file of the base and sides' trees (the
    manifests: dependencies.py), None when there are no trees (then no dependency is known kept)."""
    files = list(files)
    out: list[SemanticFinding] = []
    reported: set[tuple[str, int, str]] = set()
    # Counted and listed by the check (semantic._Check): a tip's merge knows them without a walk.
    changed = {side: check.changed_count(side) for side in _SIDES}
    for used_side in _SIDES:
        other = "right" if used_side == "left" else "left"
        # The smaller side's files are read first, and the bigger side's only where they spell a
        # module the first step found (a queue merge: ~1,000 files of integration, a few of the task).
        # The tree-wide look comes before the bigger side's files: a module still named anywhere in
        # that side's tree (most: `os`, `fmt`) is found in its first files, and ends it there.
        # A file both sides changed alike adds no import the other side dropped (it imports the
        # same), so the first way reads only the files where the using side differs from the other:
        # chosen when those are fewer than the other side's files (a vendored tree bumped on both).
        # Neither way reads a file's base version (a parse) where what it tells cannot matter: an
        # import the using side added only of a module the other side's tree no longer names, a
        # module the other side replaced only where the using side's files import it.
        differing = check.differing_count(used_side, other)
        if differing <= changed[other]:
            using = check.changed_files(used_side)
            added = _added_imports(using, check, used_side, unnamed=None if not NARROW else lambda modules: set(
                modules) - mentions(other, modules, first=[versions.path for versions in using]))
            gone = set(added) - mentions(other, added)
            replaced = _replaced(check.changed_files(other), check, other, gone) if gone else {}
        else:
            replaced = _replaced(check.changed_files(other), check, other, None,
                                 imported=functools.partial(check.imported_modules, used_side) if NARROW else None)
            still_named = mentions(other, replaced) if replaced else set()
            replaced = {module: where for module, where in replaced.items() if module not in still_named}
            added = _added_imports(check.changed_files(used_side), check, used_side, set(replaced)) if replaced else {}
        if not added:
            continue
        for module, (where, line) in sorted(replaced.items()):
            if module not in added:
                continue
            for path, item in added[module]:
                if not _same_module(module, path, where):
                    continue   # a relative module spelled alike in another folder: another file
                merged = check.imports(path, "merged")
                if merged is None:
                    continue
                kept = [m for m in merged.imports if m.module == module and m.name == item.name and m.scope is None]
                if not kept or (path, kept[0].line, module) in reported:
                    continue   # one finding per use line: `use p::{A, B}` imports two names of p there
                if check.still_holds(module, path, other):
                    continue   # a relative module whose file that side still has (`.hooks` -> `hooks`)
                if tree_file is not None and _dependency_kept(module, path, used_side, other, tree_file):
                    continue   # an external dependency the merge still declares as the base did
                reported.add((path, kept[0].line, module))
                out.append(SemanticFinding(
                    name=module, kind="import", definition_path=where, definition_line=line, use_path=path,
                    use_line=kept[0].line, removed_by=labels[other], used_by=labels[used_side],
                    definition=f"{module} (imported at the base here)",
                    use=_line(_version_of(files, path, "merged"), kept[0].line), problem="import_path"))
    return out


def _version_of(files: list[Versions], path: str, which: str) -> bytes:
    for versions in files:
        if versions.path == path:
            return versions.version(which) or b""
    return b""


def _added_imports(files: list[Versions], check: _Symbolic, side: str, modules: set[str] | None = None,
                   unnamed: Callable[[set[str]], set[str]] | None = None) -> dict[str, list[tuple[str, Import]]]:
    """module -> (path, import) for each top-level import `side` added to a file (from a module;
    only from `modules` when given, and then a file that never spells one is not read). `files`:
    at least those `side` changed. `unnamed(modules)`, when given, keeps of the modules the
    side's versions import those it asks about (the caller's: not named in the other side's
    tree): an import of another is not listed, and a file importing none of them has its base
    version not read."""
    out: dict[str, list[tuple[str, Import]]] = {}
    other = "right" if side == "left" else "left"
    # A file the side added where it deleted one of the same name is a move (the check's diffs do
    # not pair renames): its imports are the old file's, not new ones.
    deleted = {posixpath.basename(v.path) for v in files
               if v.exists("base") and not v.exists(side)}
    importing: list[tuple[Versions, Symbols]] = []
    for versions in files:
        path = versions.path
        if versions.same(side, "base") or not versions.exists(side) or not versions.exists("merged"):
            continue
        if modules is not None and not _spells_any(versions.version(side) or b"", modules, path):
            continue
        if versions.same(side, other):
            continue   # the other side's version imports the same: a module it still imports in a file it changed
        if not versions.exists("base") and posixpath.basename(path) in deleted:
            continue
        mine = check.imports(path, side)
        if mine is None or not any(item.scope is None and item.module for item in mine.imports):
            continue   # it imports nothing at its top level: it added no import (its base is not read)
        importing.append((versions, mine))
    asked = None if unnamed is None else unnamed(
        {item.module for _, mine in importing for item in mine.imports if item.scope is None and item.module})
    for versions, mine in importing:
        if asked is not None and not any(item.scope is None and item.module in asked for item in mine.imports):
            continue   # it imports no module asked about: what it added is not asked (its base is not read)
        path = versions.path
        before = check.imports(path, "base") if versions.exists("base") else Symbols()
        if before is None:
            continue
        had = {(i.module, i.name) for i in before.imports if i.scope is None}
        for item in mine.imports:
            if item.scope is None and item.module and (item.module, item.name) not in had \
                    and (modules is None or item.module in modules) and (asked is None or item.module in asked):
                out.setdefault(item.module, []).append((path, item))
    return out


def _replaced(files: list[Versions], check: _Symbolic, side: str, modules: set[str] | None,
              imported: Callable[[bytes], set[str] | None] | None = None) -> dict[str, tuple[str, int]]:
    """module -> (path, base line) for each module (of `modules`, when given) that `side` replaced
    in a file it changed (module docstring) and imports in no file it changed. `files`: at least
    those `side` changed. `imported(text)`, when given, names the modules the other side's files
    import that `text` can import (None: any): a module neither of those nor imported by `side`
    now may be left out (its imports added on the other side are none), so a file whose base
    version can import none of them is not read (a parse)."""
    replaced: dict[str, tuple[str, int]] = {}
    still: set[str] = set()
    moving: list[tuple[Versions, Symbols]] = []
    for versions in files:
        path = versions.path
        if versions.same(side, "base"):
            continue
        # Cheap first: a file whose base and new version never spell a module's name is not read
        # (integration's side of a queue merge has changed ~1,000 files, the task's new imports few).
        if modules is not None and not any(_spells_any(versions.version(which) or b"", modules, path)
                                           for which in ("base", side)):
            continue   # (nor inside a group: `use futures::{task::{Context}}` imports futures::task)
        after = check.imports(path, side) if versions.exists(side) else None
        if versions.exists(side) and after is None:
            return {}   # a version that does not parse: its imports are unknown
        if after is not None:
            still.update(i.module for i in after.imports)
        if after is None or not versions.exists("base") or not any(item.scope is None for item in after.imports):
            continue   # nothing imported at its top level now: no name moved to another module (the base is not read)
        moving.append((versions, after))
    for versions, after in moving:
        path = versions.path
        if imported is not None:
            wanted = imported(versions.base or b"")
            if wanted is not None and wanted <= still:
                continue   # its base can import no module the other side imports that this side dropped
        before = check.imports(path, "base")
        if before is None:
            continue
        bound_after = {i.bound: i.module for i in after.imports if i.scope is None}
        had = {i.module for i in before.imports}
        new_modules = {i.module for i in after.imports if i.scope is None and i.module not in had}
        for item in before.imports:
            if (modules is None or item.module in modules) and item.scope is None and item.module not in replaced:
                moved_to = bound_after.get(item.bound)
                if (moved_to is not None and moved_to != item.module) or any(_moved(item.module, new) for new in new_modules):
                    replaced[item.module] = (path, item.line)
    return {module: where for module, where in replaced.items() if module not in still}


def _same_module(module: str, importer: str, other: str) -> bool:
    """Whether `module` names the same module imported from `importer` as from `other`: always for
    an absolute one; a relative one (`./b`, `..util`, `super::x`) only where both resolve to one path.
    Found driving wtc on npm/cli: one task moved lib/util/b.js and replaced `./b` in lib/util/x.js,
    another moved lib/old.js to lib/cmd/new.js, whose `require('./b')` is lib/cmd/b.js; the merge
    called it an import of the module the first task replaced throughout."""
    profile = profile_for_path(importer)
    if profile is None or profile_for_path(other) is not profile:
        return True
    rules = profile.semantic
    relative, up, parts = module_parts(module, rules)
    if not relative:
        return True

    def target(path: str) -> str:
        directory = posixpath.dirname(path)
        for _ in range(up):
            directory = posixpath.dirname(directory)
        return posixpath.normpath(posixpath.join(directory, *parts))
    return target(importer) == target(other)


def _moved(old: str, new: str) -> bool:
    """Whether `new` is `old` moved rather than another module: a version bump below it
    (`example.com/mod` -> `example.com/mod/v2`) or the same words split differently
    (`go.etcd.io/etcd/clientv3` -> `go.etcd.io/etcd/client/v3`)."""
    return new != old and (new.startswith(old + "/") or _ALNUM.sub("", new) == _ALNUM.sub("", old))


def _line(data: bytes, number: int) -> str:
    lines = data.split(b"\n")
    return lines[number - 1].decode("utf-8", "replace").strip() if 0 < number <= len(lines) else ""


def _dependency_kept(module: str, path: str, used_side: str, other: str, tree_file: TreeFile) -> bool:
    """Whether `module` is an external dependency's (dependencies.py) that the merge still declares:
    the manifest governing `path` declares it alike at the base and on `other` (the side that
    stopped importing it), the using side declares it too, and its source is not in the tree."""
    profile = profile_for_path(path)
    manifest = profile.semantic.manifest if profile is not None else ""
    if not manifest:
        return False
    found = []
    for which in ("base", other, used_side):
        chain = _manifests(manifest, path, which, tree_file)
        declared = declared_dependency(manifest, module, [data for _, data in chain]) if chain else None
        if declared is None or declared.local:
            return False
        found.append((chain[0][0], declared))
    (base_path, base), (other_path, theirs), (used_path, _) = found
    # The same manifest on every side (a crate the using side added has its own, which the base lacks).
    return base_path == other_path == used_path and base.entry == theirs.entry


def _manifests(manifest: str, path: str, which: str, tree_file: TreeFile) -> list[tuple[str, bytes]]:
    """The files named `manifest` in the folders holding `path`, nearest first, in one tree."""
    out = []
    folder = posixpath.dirname(path)
    while True:
        candidate = posixpath.join(folder, manifest) if folder else manifest
        data = tree_file(which, candidate)
        if data is not None:
            out.append((candidate, data))
        if not folder:
            return out
        folder = posixpath.dirname(folder)


_GROUP_WORD = re.compile(rb"[A-Za-z_][\w]*")


def _spells_any(data: bytes, modules: set[str], path: str) -> bool:
    """Whether `data` (a version of `path`) spells one of `modules`: whole, or inside a group."""
    if any(module.encode() in data for module in modules):
        return True
    profile = profile_for_path(path)
    return profile is not None and bool(grouped_modules(data, modules, profile.semantic.module_separator))


def grouped_modules(data: bytes, modules: Iterable[str], separator: str) -> set[str]:
    """Of `modules`, those `data` spells inside a group alone (`use std::{io, ops::Deref}` spells
    std::ops, `use futures::{task::{Context, Poll}}` futures::task, without writing either):
    only a path can hide in a group, and only where its last part is spelled (grouped_paths)."""
    wanted = [module for module in modules if separator == "::" and separator in module
              and module.rsplit(separator, 1)[1].encode() in data]
    if not wanted:
        return set()
    spelled = grouped_paths(data, separator)
    return {module for module in wanted if module in spelled or any(path.startswith(module + separator) for path in spelled)}


def grouped_paths(data: bytes, separator: str) -> set[str]:
    """Every path a grouped import spells out in `data`: `std::{io, ops::{Deref, DerefMut}}` gives
    std::io, std::ops::Deref, std::ops::DerefMut (Rust's use lists, PHP's group use), found by the
    text `<path><separator>{`; an alias (`b as c`) keeps the path (a::b). A file without that text
    costs one substring search. Read as text, not parsed: a comment that looks like a group counts
    (a mention too many only ever removes a finding)."""
    sep = separator.encode()
    if not sep or sep + b"{" not in data:
        return set()
    start = re.compile(rb"(?<![\w" + re.escape(sep[-1:]) + rb"])((?:[A-Za-z_][\w]*" + re.escape(sep) + rb")+)\{")
    out: set[str] = set()
    end = 0
    for match in start.finditer(data):
        if match.start() < end:
            continue   # an inner group of one already read
        end = _expand(data, match.end(), match.group(1), sep, out)
    return out


def _expand(data: bytes, at: int, prefix: bytes, sep: bytes, out: set[str]) -> int:
    """Read the group opened just before `at` (paths under `prefix`) into `out`; return where it ends."""
    stack, current, alias = [prefix], b"", False

    def flush() -> None:
        nonlocal current, alias
        if current:
            out.add((stack[-1] + current).decode("utf-8", "replace"))
        current, alias = b"", False

    while at < len(data) and stack:
        if data.startswith(sep, at):
            current += sep
            at += len(sep)
            continue
        char = data[at:at + 1]
        if char == b"{":
            stack.append(stack[-1] + current)
            current = b""
        elif char == b",":
            flush()
        elif char == b"}":
            flush()
            stack.pop()
        elif data.startswith(b"//", at):
            newline = data.find(b"\n", at)
            at = len(data) if newline < 0 else newline
            continue
        elif char.isspace():
            pass
        elif char == b"*":
            current += char
        else:
            word = _GROUP_WORD.match(data, at)
            if word is None:
                return at   # not a group after all (`;`, a string...): what was read stands
            if word.group() == b"as":
                alias = True
            elif not alias:
                current += word.group()
            at = word.end()
            continue
        at += 1
    return at
