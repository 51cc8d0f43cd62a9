"""The module declarations and `super::`/`self::` paths of a Rust file a task moved that name no file now.

Stage: part of own_imports.py's look (the task's own files), so every face that reads it (`task
check`, the finish's merge, `wtc check`, `report`, `land`) names these too, kind `own_import`.
Input: the task's Rust files (moved, added or edited), each one's place before the task, and
readers of the tree before and after it. Output: one (line, written path, the file it named
before) per line that named a file from the old place and names none from the new one.

Why: Rust finds a file module by the place of the file that declares it, not by a specifier a
resolver reads: `mod x;` in src/net/client.rs is src/net/client/x.rs (or .../x/mod.rs), and in
src/net/mod.rs it is src/net/x.rs; `use super::y` starts at the parent module's folder. A task
that moves client.rs to src/client.rs carries those lines along, and cargo then finds no x.rs
(E0583) and no `super::y` (E0432), while every other look reads files the task did not change.

How: Rust's module rules, read from the text: a line that starts (after `pub`, `pub(...)`) with
`mod NAME;`, and every path of `super::`/`self::` steps then a name (a `use` line's, each member
of its `{...}` group's, one in an expression or a type), comments and strings left out. A file module answers
the name (`NAME.rs` or `NAME/mod.rs` in the module's folder); for a `use` path, so does the
module's own file when it spells the name as a word (an item, or an import, it may define: never a
guess that it is missing). Named only when the old place was answered by a file and the new one is
answered by nothing; a file with a `#[path = ...]` attribute (a module put elsewhere by hand) is
not read. `crate::` paths start at the crate root, which a move inside the crate keeps.
"""

from __future__ import annotations

import posixpath
import re
from typing import Callable

Reader = Callable[[str], bytes | None]   # a tree's file text by path (None: no such file)

_VISIBILITY = r"(?:pub(?:\s*\([^)]*\))?\s+)?"
_MOD = re.compile(rb"^[ \t]*" + _VISIBILITY.encode() + rb"mod[ \t]+([A-Za-z_]\w*)[ \t]*;", re.MULTILINE)
# A path that starts at `super::`/`self::` (not after `::`, a word, `.` or `$`: `a::super` is no
# such path, `self.x` no path at all), then a name or a `{` group (`use super::{a, b::c}`).
_PATH = re.compile(rb"(?<![\w:.$])((?:(?:super|self)[ \t]*::[ \t]*)+)(\{|[A-Za-z_]\w*)")
_COMMENT = re.compile(rb"//[^\n]*|/\*.*?\*/", re.DOTALL)
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
_HEAD = re.compile(rb"\s*([A-Za-z_]\w*)")
_ROOTS = ("lib.rs", "main.rs", "mod.rs")
_ROOT_FOLDERS = ("tests", "examples", "benches")


def _children(path: str) -> str:
    """The folder the file modules of the module written in `path` live in."""
    name = posixpath.basename(path)
    folder = posixpath.dirname(path)
    # A crate root (src/lib.rs, src/bin/x.rs, tests/x.rs, build.rs) and a mod.rs keep theirs beside them.
    root = name in _ROOTS or name == "build.rs" or folder in _ROOT_FOLDERS \
        or folder.endswith(("/src/bin", "/tests", "/examples", "/benches")) or folder == "src/bin"
    return folder if root else posixpath.join(folder, name[:-3])


def _parent(children: str) -> str:
    """The folder of the parent module's file modules, for a module whose file modules live in `children`."""
    return posixpath.dirname(children)


def _module_files(children: str) -> list[str]:
    """The files that may hold the module whose file modules live in `children`."""
    return [posixpath.join(children, "mod.rs"), children + ".rs",
            posixpath.join(children, "lib.rs"), posixpath.join(children, "main.rs")]


def _file_module(folder: str, name: str, read: Reader) -> str | None:
    """The file of the file module `name` of the module whose file modules live in `folder`."""
    for candidate in (posixpath.join(folder, name + ".rs"), posixpath.join(folder, name, "mod.rs")):
        if read(candidate) is not None:
            return candidate
    return None


def _answered(place: str, steps: list[str], name: str, read: Reader, *, declared: bool) -> tuple[str | None, bool]:
    """(the file module that answers `name` from the file `place` after `steps` (super/self), whether
    anything may answer it): for a `use` path (`declared` False) the module's own file spelling the
    name answers it too (an item or an import of that name, perhaps)."""
    folder = _children(place)
    for step in steps:
        if step == "super":
            folder = _parent(folder)
    found = _file_module(folder, name, read)
    if found is not None or declared:
        return found, found is not None
    word = re.compile(rb"(?<![\w])" + re.escape(name.encode()) + rb"(?![\w])")
    for candidate in _module_files(folder):
        text = read(candidate)
        if text is not None and candidate != place and word.search(text):
            return None, True
    own = read(place)   # `self::name` may be an item of the file itself
    return None, bool(own is not None and "super" not in steps and word.search(own))


def _blanked(text: bytes) -> bytes:
    """`text` with its comments and string literals blanked (same length: offsets and lines hold)."""
    blank = lambda match: re.sub(rb"[^\n]", b" ", match.group())  # noqa: E731
    return _COMMENT.sub(blank, _STRING.sub(blank, text))


def _group_heads(code: bytes, start: int) -> list[str]:
    """The first name of each member of the `{` group opening before `start` (`{a, b::c, d as e}`:
    a, b, d); `self` (the module itself) and `*` name no module of their own."""
    depth, member, heads = 0, start, []
    for at in range(start, len(code)):
        char = code[at:at + 1]
        if char == b"{":
            depth += 1
        elif char in (b",", b"}") and depth == 0:
            head = _HEAD.match(code, member)
            if head is not None and head.group(1) != b"self":
                heads.append(head.group(1).decode())
            member = at + 1
            if char == b"}":
                break
        elif char == b"}":
            depth -= 1
    return heads


def _paths(text: bytes) -> list[tuple[int, list[str], str]]:
    """Each (offset, super/self steps, first name) of a `super::`/`self::` path of `text`: a `use`
    line's (`use super::util;`), each member of its group (`use super::{codec, util}`: E0432
    when the move leaves them naming nothing), and one in an expression or a type
    (`super::util::helper()`: E0433). Comments and strings are not read."""
    code = _blanked(text)
    found = []
    for match in _PATH.finditer(code):
        steps = re.findall(r"super|self", match.group(1).decode())
        names = _group_heads(code, match.end()) if match.group(2) == b"{" else [match.group(2).decode()]
        found.extend((match.start(), steps, name) for name in names)
    return found


def rust_own_imports(path: str, old_place: str, text: bytes, before: Reader,
                     after: Reader) -> list[tuple[int, str, str]]:
    """Each (line, the path as written, the file it named before) of the Rust file `path` (its text
    after the task: `text`; at `old_place` before it) whose `mod NAME;` or `use super::/self::`
    path named a file module from `old_place` in the tree before and names nothing from `path` now."""
    if b"#[path" in text:
        return []   # a module placed by hand: its file is where the attribute says
    found: list[tuple[int, str, str]] = []
    written_at = [(match.start(), [], match.group(1).decode(), True) for match in _MOD.finditer(text)]
    written_at += [(offset, steps, name, False) for offset, steps, name in _paths(text)]
    for offset, steps, name, declared in written_at:
        written = f"mod {name};" if declared else "::".join(steps + [name])
        was, _ = _answered(old_place, steps, name, before, declared=declared)
        if was is None:
            continue   # it named no file from the old place: not this task's doing (or an item)
        _, now = _answered(path, steps, name, after, declared=declared)
        if not now:
            found.append((text.count(b"\n", 0, offset) + 1, written, was))
    return found
