"""The package a file shares its top-level names with, and what C and C++ need beside it.

Stage: asked by the post-merge checks (semantic.py, reach.py, tip_index.py, signatures.py) of a
path whose profile's `[semantic] package` is not "file". Input: a path (and, for the C family, a
definition's text or a version's tree). Output: the package key (`package_key`), whether a
definition is its file's alone (`file_local`), and the words a version writes where its parse
does not place them (`error_words`).

Why: Go's package is its folder (`package = "directory"`). C and C++ have one package: the
linker's. A function defined in lauxlib.c and declared in lauxlib.h is called from any file of the
repository that declares it, most through an `#include` of the header, which names no module the
check could follow; so every file of the linked languages shares one key (`package = "linked"`),
and a use in any of them may mean a definition in any other, unless it defines or declares the
name itself. A `static` definition (profile `file_local`) is its own file's alone, but in a header
(profile `included`), whose every includer holds it. The C
preprocessor defeats a parser in most real files (`cast(T*, x)`, `l_sinline`, a macro's arguments):
profile `partial_parse` reads such a version outside its ERROR nodes, and a name written inside one
is taken as possibly defined there (`error_words`), never as removed (precision first). A
macro's body is tokens the grammar leaves unparsed (`preproc_arg`): its words are uses
(macro_words.py), lua's `#define l_gettime(L,arg) luaL_checknumber(L, arg)` calls luaL_checknumber
wherever l_gettime is expanded. A prototype declares a function, it defines nothing: a body gone
is answered by another file's body, not by a header's `int f(void);` left behind (`answers`).
"""

from __future__ import annotations

import functools
import posixpath
import re
from typing import TYPE_CHECKING

from ..languages.profiles import profile_for_path

if TYPE_CHECKING:
    import tree_sitter

    from ..languages.profiles import Profile
    from .symbols import Definition, Symbols

_FUNCTIONS = frozenset({"function", "method"})

LINKED = "\0linked"   # the key of the linked languages' one package: no folder is spelled so
_WORD = re.compile(rb"[A-Za-z_]\w*")


@functools.lru_cache(maxsize=65536)
def package_key(path: str) -> str | None:
    """The package whose top-level names `path` shares (its folder for Go, LINKED for C and C++,
    LINKED:csharp for C#), None where its names are its own file's."""
    profile = profile_for_path(path)
    package = profile.semantic.package if profile is not None else "file"
    if package == "directory":
        return posixpath.dirname(path)
    if package != "linked":
        return None
    # A language whose names are reached by namespace (C#, profile `namespaces`) links only with
    # itself: a C function is no C# method, whatever their names.
    return f"{LINKED}:{profile.name}" if profile.semantic.namespaces else LINKED  # type: ignore[union-attr]


def is_linked(key: str | None) -> bool:
    """Whether a package key (`package_key`) is a linked language's one package."""
    return key is not None and key.startswith(LINKED)


def file_local(path: str, data: bytes, definition: "Definition") -> bool:
    """Whether `definition` (of `path`'s version `data`) is its file's alone: written `static`
    (`written_local`) in a file no other includes whole (profile `included`: a header's static
    is every includer's)."""
    profile = profile_for_path(path)
    if profile is None or posixpath.splitext(path)[1].lstrip(".") in profile.semantic.included:
        return False   # (a header's `static inline` function is every includer's: profile `included`)
    return written_local(path, data, definition)


def written_local(path: str, data: bytes, definition: "Definition") -> bool:
    """Whether the profile's `file_local` pattern (C's `static`) stands in `definition`'s text
    before its name: no file but its own (and, a header, its includers) sees it."""
    profile = profile_for_path(path)
    return _written_before_name(profile.semantic.file_local if profile is not None else "", data, definition)


def extension(path: str, data: bytes, definition: "Definition") -> bool:
    """Whether `definition` (of `path`'s version `data`) is an extension, the profile's `extension`
    pattern standing in its text before its name (Kotlin's `fun String.quoted()`): a call of it
    spells a receiver of any type (`name.quoted()`)."""
    profile = profile_for_path(path)
    return not definition.container and _written_before_name(
        profile.semantic.extension if profile is not None else "", data, definition)


def _written_before_name(pattern: str, data: bytes, definition: "Definition") -> bool:
    if not pattern:
        return False
    text = data[definition.start_byte:definition.end_byte]
    name = re.search(rb"(?<!\w)" + re.escape(definition.name.encode()) + rb"(?!\w)", text)
    head = text[:name.start()] if name is not None else text
    return re.search(pattern.encode(), head) is not None


def error_words(tree: "tree_sitter.Tree", data: bytes) -> frozenset[str]:
    """The words inside the ERROR nodes of `tree` (a version `data` of a profile with
    `partial_parse`): a definition whose name stands there may still be one."""
    found: set[str] = set()
    stack = [tree.root_node] if tree.root_node.has_error else []
    while stack:
        node = stack.pop()
        if node.type == "ERROR":
            found.update(word.decode("utf-8", "replace") for word in _WORD.findall(data[node.start_byte:node.end_byte]))
        else:
            stack.extend(child for child in node.children if child.has_error)
    return frozenset(found)


def reading_profile(path: str, data: bytes | None, profile: "Profile") -> "Profile":
    """The profile a version `data` of `path` is read with: `profile` (its path's), or, for a file of
    the linked languages, the one that claims it by its contents (a `.h` holding a class or a
    namespace is C++'s: cpp.toml `claims`), when that one has a semantic check too."""
    if data is None or profile.semantic.package != "linked":
        return profile
    claimed = profile_for_path(path, data)
    return claimed.semantic_reading if claimed is not None and claimed.semantic.enabled else profile


def surely_placed(path: str, data: bytes, definition: "Definition") -> bool:
    """Whether a top-level `definition` of a version `data` of `path` surely stands at the top:
    always, unless the profile reads versions in part (`partial_parse`), the version's parse
    has ERROR nodes, and the definition's line is indented. The parser's recovery from an ERROR
    can close a function or class early and leave its locals or members at the top (leveldb
    a7dc502e: a function's `MutexLock lock(...)` read as a top-level `lock`, then as removed);
    a top-level C declaration starts its line."""
    profile = profile_for_path(path)
    if profile is None or not profile.semantic.partial_parse:
        return True
    line_start = data.rfind(b"\n", 0, definition.start_byte) + 1
    if not data[line_start:definition.start_byte].strip(b" \t") == b"" or line_start == definition.start_byte:
        return True   # it starts its line, or something stands before it there
    return not reading_profile(path, data, profile.semantic_reading).parse(data).root_node.has_error


def conditional(path: str, data: bytes, definition: "Definition") -> bool:
    """Whether `definition` (of `path`'s version `data`) stands inside a block the preprocessor may
    compile out (profile `conditional`: C#'s `#if` ... `#endif`): a polyfill for an older framework
    (Newtonsoft.Json's own ConcurrentDictionary under `#if !HAVE_CONCURRENT_DICTIONARY`) whose users
    mean System.Collections.Concurrent's in every other build; its removal is no sure one."""
    profile = profile_for_path(path)
    pair = profile.semantic.conditional if profile is not None else ()
    return bool(pair) and _depth_at(pair, data, definition.start_byte) > 0


def _depth_at(pair: tuple[str, ...], data: bytes, offset: int) -> int:
    """How many blocks opened by `pair[0]` and not yet closed by `pair[1]` (line patterns) hold `offset`."""
    opening, closing = (re.compile(pattern.encode(), re.MULTILINE) for pattern in pair)
    marks = sorted([(m.start(), 1) for m in opening.finditer(data, 0, offset)]
                   + [(m.start(), -1) for m in closing.finditer(data, 0, offset)])
    depth = 0
    for _, step in marks:
        depth = max(0, depth + step)
    return depth

def prototype(data: bytes, definition: "Definition") -> bool:
    """Whether `definition` (of a version `data`) is a function declared with no body: the
    declaration `int f(void);`, not the definition `int f(void) { ... }`."""
    return definition.kind in _FUNCTIONS and data[definition.start_byte:definition.end_byte].rstrip().endswith(b";")


def answers(symbols: "Symbols", data: bytes | None, removed: "Definition", removed_from: bytes | None) -> bool:
    """Whether a file of the linked package, read as `symbols` from `data`, answers a use of
    `removed` (a top-level definition of the version `removed_from` that the merge lost): it binds
    the name, and where `removed` had a body (a function with external linkage), by more than
    prototypes. A header's `int f(void);` left while the .c renamed `int f(void) {...}` to g links
    no call of f (a prototype gone is answered by any declaration or definition left)."""
    if not symbols.binds(removed.container, removed.name):
        return data is not None and not removed.container and qualified_body(data, removed.name)
    if removed.container or data is None or removed_from is None or removed.kind not in _FUNCTIONS \
            or prototype(removed_from, removed):
        return True
    return not declared_only(data, symbols, removed.name) or qualified_body(data, removed.name)


def qualified_body(data: bytes, name: str) -> bool:
    """Whether a version `data` defines a function `name` by its qualified name (C++'s `int
    kv::f(int x) {`, outside its namespace's block), which the query reads as no definition."""
    return re.search(rb"\w\s*::\s*" + re.escape(name.encode()) + rb"\s*\([^;{}()]*\)[^;{}()]*\{", data) is not None


def body_lost(before: bytes, definition: "Definition", after: bytes | None, symbols: "Symbols") -> bool:
    """Whether the top-level function `definition`, with a body in `before`, has none in `after`
    (read as `symbols`), which holds only its prototypes: `int f(void);` kept above a body renamed
    to g. The prototype defines nothing, so the file no longer defines f."""
    return not definition.container and definition.kind in _FUNCTIONS and not prototype(before, definition) \
        and declared_only(after, symbols, definition.name) and not qualified_body(after or b"", definition.name)


def declared_only(data: bytes | None, symbols: "Symbols", name: str) -> bool:
    """Whether a version `data` (read as `symbols`) holds its top-level `name` as function
    prototypes alone: it declares a function some other file defines."""
    same = [d for d in symbols.definitions if d.name == name and not d.container]
    return data is not None and bool(same) and all(prototype(data, d) for d in same)
