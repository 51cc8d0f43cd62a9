"""Where a Rust path leads: the file of the crate module a `use` names, found from the path itself.

Stage: the post-merge semantic check, inside reexports.py's lookup of a module no file of the merge
answers (profile `[semantic] package_roots`). Input: a module path as an import spells it
(`crate::util`, `mycrate`, `super::a`, `util`), the importing file, and a reader of the base tree.
Output: the files the path may name (the crate's root file) and the path stems below which its
module file stands (`src/util` for `{}.rs` / `{}/mod.rs`), or nothing when unsure.

Why: a crate re-exports what its modules define from its root (`pub use util::{parse, other};` in
src/lib.rs), and its tests, examples and sibling crates import it from there (`use mycrate::parse;`
in tests/it.rs; `use crate::parse;` in a module). The file that defines the name is then hidden
from the use: one task renames `parse` in src/util.rs (and its `pub use`), another adds a test that
calls it; git merges cleanly, and the check found nothing because `mycrate` and `crate` named no
file.

How (Rust's own rules; nothing searched for, nothing guessed):
- `crate::` is the importing file's crate root: the package's root file (`src/lib.rs`, else
  `src/main.rs`; the package is the nearest folder above holding the manifest, `Cargo.toml`) for a
  file under its `src/` (not `src/bin/`); a file outside `src/` (tests, examples) is a crate of its
  own, and is left alone;
- the package's own name (`[package] name`, `[lib] name`, `-` read as `_`), and a dependency whose
  source is a folder of the tree (`path = "../core"`, or `workspace = true` with the workspace's
  entry a path), is that package's library root (`[lib] path`, else `src/lib.rs`), where the base
  and both sides' trees agree on it: a side that moved the crate out (serde's serde_test, deleted
  for `serde_test = "1.0.176"` from the registry) leaves its name to no file of the tree;
- `self::` is the importing module, `super::` its parent; any other first part is a module the
  importing module declares (`mod util;` then `use util::parse;`), whose file stands below the
  importing module's folder (`src/a.rs`'s children in `src/a/`; a root or `mod.rs` file's beside
  it). An external crate's name leads to no file of the tree, so nothing is found for it.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any, Callable, Iterator

from .dependencies import workspace_entry

TreeFile = Callable[[str, str], "bytes | None"]   # (which: base/left/right, path) -> bytes, None: absent

# An item-level macro call other than macro_rules! (`cfg_if! {`, `crate_root!();`) at the start of a line
# (an item of the root: a call inside a function body is indented): it may declare modules.
_ITEM_MACRO = re.compile(rb"(?m)^(?!macro_rules!)[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)*![ \t]*[({\[]")
_GROUPS = ("dependencies", "dev-dependencies", "build-dependencies")
_TREES = ("base", "left", "right")


_COMMENT_OR_LITERAL = re.compile(rb'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])\'|//[^\n]*|/\*[\s\S]*?\*/')
_USE = re.compile(rb"\buse\s([^;]*);")
_EXTERN_CRATE = re.compile(rb"\bextern\s+crate\s+([A-Za-z_][A-Za-z0-9_]*)(?:\s+as\s+([A-Za-z_][A-Za-z0-9_]*))?\s*;")


def _code(text: bytes) -> bytes:
    """A Rust file without its comments (doc comments and their examples included): string and
    character literals kept whole, so a `//` inside one is not taken for a comment."""
    return _COMMENT_OR_LITERAL.sub(lambda m: m.group(0) if m.group(0)[:1] in b"\"'" else b" ", text)
_USE_TOKEN = re.compile(r"::|[{},*]|(?:r#)?[A-Za-z_][A-Za-z0-9_]*")


def _use_bindings(text: bytes) -> list[tuple[tuple[str, ...], str]]:
    """(path, name bound) of each name a file's `use` declarations bind (`use a::{b::c as d, self}`:
    (a, b, c) as d, (a,) as a); a glob binds "*". Unreadable trees bind what was read of them."""
    out: list[tuple[tuple[str, ...], str]] = []
    for found in _USE.finditer(text):
        tokens = _USE_TOKEN.findall(found.group(1).decode("utf-8", "replace"))
        _use_tree(tokens, 0, (), out)
    return out


def _use_tree(tokens: list[str], at: int, prefix: tuple[str, ...], out: list[tuple[tuple[str, ...], str]]) -> int:
    """One use tree of `tokens` from `at` below `prefix`, its bindings added to `out`; the index
    after it."""
    path = prefix
    while at < len(tokens):
        token = tokens[at]
        if token == "::":
            at += 1
        elif token == "{":
            at += 1
            while at < len(tokens) and tokens[at] != "}":
                at = _use_tree(tokens, at, path, out)
                if at < len(tokens) and tokens[at] == ",":
                    at += 1
            return at + 1
        elif token == "*":
            out.append((path, "*"))
            return at + 1
        elif token in (",", "}"):
            return at
        else:
            at += 1
            if token == "self" and path:
                token, path = path[-1], path[:-1]   # `{self}`: the module the list is in
            path = (*path, token.removeprefix("r#"))
            if at < len(tokens) and tokens[at] == "as":
                out.append((path, tokens[at + 1] if at + 1 < len(tokens) else "_"))
                return at + 2
            if at >= len(tokens) or tokens[at] != "::":
                out.append((path, path[-1]))
                return at
    return at


class CratePaths:
    """`locate(module, importer)` over one tree, reading each manifest once."""

    def __init__(self, tree_file: TreeFile, manifest: str, package_roots: tuple[str, ...],
                 index_names: frozenset[str], separator: str = "::"):
        self._tree_file = tree_file
        self._manifest = manifest
        self._roots = package_roots
        self._index_names = index_names
        self._separator = separator
        self._manifests: dict[str, dict[str, Any] | None] = {}
        self._codes: dict[tuple[str, str], bytes | None] = {}   # (tree, path) -> the file without comments

    def locate(self, module: str, importer: str) -> tuple[list[str], list[str]]:
        """(files, stems): the files `module` names itself (a crate root) and the stems its module
        file may stand at; both empty when unsure."""
        parts = [p for p in module.split(self._separator) if p]
        if not parts:
            return [], []
        head, rest = parts[0], parts[1:]
        if head in ("crate", "$crate"):   # `$crate::` in a macro_rules! body: the macro's own crate
            root = self._crate_root(importer)
        elif head in ("self", "super"):
            folder, below = self._module_folder(importer), parts
            while below and below[0] in ("self", "super"):
                if below[0] == "super":
                    if not folder:
                        return [], []
                    folder = posixpath.dirname(folder)
                below = below[1:]
            return [], ([posixpath.join(folder, *below)] if below else [])
        else:
            root = self._named_crate(head, importer)
            if root is None:   # a module the importing module declares (or an external crate: no file)
                return [], [posixpath.join(self._module_folder(importer), *parts)]
        if root is None:
            return [], []
        while rest and (crate := self._extern_crate(root, rest[0])) is not None:
            # `pub extern crate grep_cli as cli;` in grep's root: `grep::cli` is grep_cli's root
            root = self._named_crate(crate, root)
            if root is None:
                return [], []
            rest = rest[1:]
        if not rest:
            return [root], []
        if self._bound_elsewhere(root, rest[0]):
            return [], []
        return [], [posixpath.join(posixpath.dirname(root), *rest)]

    def _bound_elsewhere(self, root: str, name: str) -> bool:
        """Whether, in some tree, the crate root gives `name` by other means than a module of its own
        (`pub use core_x::ser;`, a glob, a macro that may declare it) instead of `mod name;`: the path
        then leads there, not to the module file. Found in serde f3869307cc, which moved `ser` into
        serde_core and re-exported it: every `crate::ser::Serialize` use was taken for a use of the
        deleted serde/src/ser.rs. A root that gives `name` no way at all (the module deleted with its
        `mod`) is not unsure: the use is broken."""
        declared = re.compile(rb"\bmod\s+(?:r#)?" + re.escape(name.encode()) + rb"\s*[;{]")
        used = re.compile(rb"\buse\s[^;]*(?:\b" + re.escape(name.encode()) + rb"\b|\*)[^;]*;")
        for which in _TREES:
            # (without comments: a doc comment's example, `//! assert_eq!(...)`, `/// use x::y;`, is no item)
            text = self._code_of(which, root)
            if text is None:
                continue
            if declared.search(text):
                continue
            if _ITEM_MACRO.search(text):
                return True
            if used.search(text) and any(bound == "*" or (bound == name and not self._a_function(path, root, which))
                                         for path, bound in _use_bindings(text)):
                return True
        return False

    def _code_of(self, which: str, path: str) -> bytes | None:
        """`path` in one tree without its comments (_code), read and stripped once."""
        key = (which, path)
        if key not in self._codes:
            text = self._tree_file(which, path)
            self._codes[key] = None if text is None else _code(text)
        return self._codes[key]

    def _extern_crate(self, root: str, name: str) -> str | None:
        """The crate a root's `extern crate CRATE as name;` (or `extern crate name;`) binds `name`
        to, the same in every tree holding the root; None for any other name. Found in ripgrep,
        whose `grep` facade re-exports its parts so (`pub extern crate grep_cli as cli;`) and whose
        binary calls `cli::is_tty_stdout()` after `use grep::cli;`: a rename of that function in
        grep-cli left the calls behind unseen."""
        crates = set()
        for which in _TREES:
            text = self._code_of(which, root)
            if text is not None:
                if b"extern" not in text:
                    crates.add(None)
                    continue
                bound = {(alias or crate).decode(): crate.decode() for crate, alias in _EXTERN_CRATE.findall(text)}
                crates.add(bound.get(name))
        return crates.pop() if len(crates) == 1 else None

    def _a_function(self, path: tuple[str, ...], importer: str, which: str) -> bool:
        """Whether the item a `use` path leads to is a function of a module file of the tree, which
        a path goes through no further (`crate::escape::x` is no path through `fn escape`): found in
        ripgrep's grep-cli, whose root re-exports `pub use crate::text::escape::{escape, ...}` after
        a task moved src/escape.rs to src/text/escape.rs, while src/pattern.rs kept `use
        crate::escape::{escape, escape_os};`. False when unsure (the module in no file here, the
        name also a module, type or import there)."""
        if len(path) < 2:
            return False
        files, stems = self.locate(self._separator.join(path[:-1]), importer)
        name = re.escape(path[-1].encode())
        for candidate in [*files, *(stem + suffix for stem in stems for suffix in (".rs", "/mod.rs"))]:
            text = self._code_of(which, candidate)
            if text is None:
                continue
            other = re.compile(rb"\b(?:mod|enum|struct|trait|type|union|use|macro_rules!)\s[^;{]*\b" + name + rb"\b")
            return re.search(rb"\bfn\s+" + name + rb"\b", text) is not None and other.search(text) is None
        return False

    def _module_folder(self, path: str) -> str:
        """The folder a file's child modules stand in: beside a root or `mod.rs` file, else below
        the file's own name (`src/a.rs` -> `src/a`)."""
        stem = path.rsplit(".", 1)[0]
        return posixpath.dirname(stem) if posixpath.basename(stem) in self._index_names else stem

    def _package(self, path: str, which: str = "base") -> str | None:
        """The nearest folder above `path` holding the manifest."""
        folder = posixpath.dirname(path)
        while True:
            if self._read(folder, which) is not None:
                return folder
            if not folder:
                return None
            folder = posixpath.dirname(folder)

    def _read(self, folder: str, which: str = "base") -> dict[str, Any] | None:
        key = f"{which}:{folder}"
        if key not in self._manifests:
            data = self._tree_file(which, posixpath.join(folder, self._manifest))
            doc = None
            if data is not None:
                try:
                    import tomllib   # here, where a manifest is read: a merge that reads none loads no TOML parser

                    doc = tomllib.loads(data.decode("utf-8"))
                except (ValueError, UnicodeDecodeError):
                    doc = None
            self._manifests[key] = doc
        return self._manifests[key]

    def _exists(self, path: str, which: str = "base") -> bool:
        return self._tree_file(which, path) is not None

    def _crate_root(self, importer: str) -> str | None:
        package = self._package(importer)
        if package is None:
            return None
        source = posixpath.join(package, "src")
        if posixpath.dirname(importer) == source and posixpath.basename(importer).rsplit(".", 1)[0] in self._index_names:
            return importer   # the root file itself
        if not importer.startswith(source + "/") or importer.startswith(source + "/bin/"):
            return None       # a test, example or binary: a crate of its own
        roots = [posixpath.join(package, root) for root in self._roots]
        return next((root for root in roots if self._exists(root)), None)

    def _library_root(self, package: str, which: str = "base") -> str | None:
        doc = self._read(package, which) or {}
        lib = doc.get("lib") if isinstance(doc.get("lib"), dict) else {}
        declared = lib.get("path") if isinstance(lib.get("path"), str) else None
        root = posixpath.normpath(posixpath.join(package, declared)) if declared else posixpath.join(package, self._roots[0])
        return root if self._exists(root, which) else None

    def _named_crate(self, name: str, importer: str) -> str | None:
        """The library root of the crate `name` means in `importer`'s package, the same in the base
        and both sides' trees: a side that moved the crate out of the tree (serde's serde_test, now
        `serde_test = "1.0.176"` from the registry) leaves its name to a crate no file here is."""
        roots = {self._named_crate_in(name, importer, which) for which in _TREES}
        return roots.pop() if len(roots) == 1 else None

    def _named_crate_in(self, name: str, importer: str, which: str) -> str | None:
        """The library root of the crate `name` means in `importer`'s package in one tree: the
        package itself, or a dependency whose source is a folder of the tree; None for any other."""
        package = self._package(importer, which)
        if package is None:
            return None
        doc = self._read(package, which) or {}
        own = [(doc.get("package") or {}).get("name"), (doc.get("lib") or {}).get("name")]
        if name in {str(n).replace("-", "_") for n in own if isinstance(n, str)}:
            return self._library_root(package, which)
        for key, value in self._dependencies(doc):
            if key.replace("-", "_") != name:
                continue   # code names a dependency by its key (`core = { package = "my-core", ... }`)
            folder = self._path_of(key, value, package, which)
            return self._library_root(folder, which) if folder is not None else None
        return None

    @staticmethod
    def _dependencies(doc: dict[str, Any]) -> list[tuple[str, Any]]:
        tables = [doc.get(group) or {} for group in _GROUPS]
        for target in (doc.get("target") or {}).values():
            if isinstance(target, dict):
                tables.extend(target.get(group) or {} for group in _GROUPS)
        return [(key, value) for table in tables if isinstance(table, dict) for key, value in table.items()]

    def _path_of(self, key: str, value: Any, package: str, which: str) -> str | None:
        """The folder a dependency's source is, when it is one of the tree (relative to the root)."""
        if not isinstance(value, dict):
            return None
        if isinstance(value.get("path"), str):
            return posixpath.normpath(posixpath.join(package, value["path"]))
        if value.get("workspace") is True:
            inherited = workspace_entry(key, self._upward(package, which))
            if inherited is not None:
                entry, folder = inherited
                if isinstance(entry, dict) and isinstance(entry.get("path"), str):
                    return posixpath.normpath(posixpath.join(folder, entry["path"]))
        return None

    def _upward(self, folder: str, which: str) -> Iterator[tuple[str, dict[str, Any]]]:
        """The manifests at and above `folder` in one tree, nearest first, each with its folder
        (read as they are asked for: the nearest workspace usually ends the walk)."""
        while True:
            doc = self._read(folder, which)
            if doc is not None:
                yield folder, doc
            if not folder:
                return
            folder = posixpath.dirname(folder)
