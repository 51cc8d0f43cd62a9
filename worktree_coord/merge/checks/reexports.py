"""Names imported through a module that re-exports them: which file of the merge defines them.

Stage: the post-merge semantic check (semantic.py), while it resolves a use to the definition it
means. Input: the check's files (their merged versions), and a reader of the files no side changed
(`TreeFile`: a tree merge's base tree; a task's pin for the left-behind advice). Output: for a name
imported from a file, the (file, name) pairs of the merge it may come from.

Why: a project that imports everything through one file (mobx's `import { hasProp } from
"../internal"`, where `internal.ts` is sixty lines of `export * from "./utils/utils"`; a Python
package's `__init__.py` of `from .util import parse`, imported as `from pkg import parse`) hides
the definition's file from the use. That file is rarely one a side changed, so the check used to
find nothing to resolve the use to: one task renamed `hasProp` in `utils.ts`, another added a call
of it in `eq.ts`, the merge was clean and the landed tree did not build (found driving wtc on
mobxjs/mobx).

How (precision first, nothing guessed):
- a module resolves to the files of the merge as before; where none answers, to the one file of
  the tree at the module's path (profile `module_files`: `{}.ts`, `{}/__init__.py`), relative
  modules only, or (module separator `.`, Python) an absolute module found under exactly one of the
  importer's directories or a source folder below one (profile `source_folders`: `src`, so that
  tests/test_app.py's `from pkg import parse` reads src/pkg/__init__.py), or (`@/utils`) the file
  the project's tsconfig `paths` maps it to (path_maps.py), or (`@acme/core`) the
  entry of the workspace package of that name (workspace_packages.py), or (Rust) the file a crate
  path leads to (crate_paths.py);
- a file whose top level imports the name (`export { x } from "./a"`, `from .a import x`) passes it
  on to that module, under its original name (an alias is followed); a star re-export (`export *
  from "./a"`, `from .a import *`) passes on every name its module's star list takes, and a file no
  side changed is followed through it where it spells the name, is a package's file of star
  imports, or star-imports, file by file, one that does (a chain of `from .b import *`);
- a module a file binds whole and passes on (`import * as X from './m'; export {X}`, `export * as X
  from './m'`) is followed where a use reads a member of it (`X.f()`, `whole_modules`), and through
  a path of such names read on a module bound whole (`lib.sub.parse()` after `import * as lib from
  './lib'`, whose index passes `sub` on whole: `modules_through`);
- a file of the merge at the end of the chain is a candidate (the check then asks, as for any use,
  whether a side removed the name there and the merged file lacks it); a file no side changed that
  defines the name itself answers the use: nothing is reported (`None`);
- a file no side changed is read only when its bytes hold the name as a word, at most
  MAX_FILES of them per check, and at most MAX_DEPTH re-exports deep; past either, nothing is
  reported (a missed finding, never a false one).
"""

from __future__ import annotations

import functools
import posixpath
import re
from typing import Callable, Iterable, Protocol

from ..ecosystems.crate_paths import CratePaths
from ..ecosystems.path_maps import PathMaps
from ..languages.profiles import PackageRules, SemanticRules, profile_for_path
from .reach import spelling

# profile_for_path by path, remembered: `reached` asks it for each of a drain's users on every merge.
_profile = functools.lru_cache(maxsize=65536)(profile_for_path)
from .symbols import EXPORTS, Symbols, exports_open, extract, fingerprint, star_names
from .versions import MAX_BYTES
from ..ecosystems.workspace_packages import TreeFolders, WorkspacePackages

MAX_FILES = 256    # files no side changed, read per check
MAX_DEPTH = 4      # re-exports followed from the imported file

_WORD = re.compile(rb"[\w$]+")   # a name as `reach.spelling` bounds it: no word character or `$` either side
# A `*` a star import may end with (`import *` at a line's end or before a comment, `::*;`, `.*;`,
# `::{*}`, `export * from`), not a product or `def f(*, x)`: the files without one are not parsed
# for star imports.
_STAR = re.compile(rb"\*[ \t]*(?:;|\}|#|//|\r?$|from\b)", re.MULTILINE)


@functools.lru_cache(maxsize=None)
def _path_heads(separator: str) -> re.Pattern[bytes]:
    """The first part of each path spelled with the profile's module separator (`grep_cli` of Rust's
    `grep_cli::parse_size(x)`): a name not after the separator's first character, a word character
    or `$`."""
    first = re.escape(separator[:1].encode())
    return re.compile(rb"(?<![\w$])(?<!" + first + rb")([A-Za-z_]\w*)" + re.escape(separator.encode()))

TreeFile = Callable[[str, str], "bytes | None"]   # (which: base/left/right, path) -> bytes, None: absent


class _Merge(Protocol):
    files: dict

    def symbols(self, path: str, which: str, uses: bool = True) -> Symbols | None: ...

    def imports(self, path: str, which: str) -> Symbols | None: ...

    def resolve(self, module: str, importer: str, rules: SemanticRules) -> list[str]: ...

    def files_at(self, key: tuple[str, str], rules: SemanticRules) -> tuple[str, ...]: ...


def module_parts(module: str, rules: SemanticRules) -> tuple[bool, int, list[str]]:
    """How a module spelled in an import names a path: (relative, directories up, parts below).
    `..util` is (True, 1, ["util"]); `./a/b.js` is (True, 0, ["a", "b"]); `crate::x` is
    (False, 0, ["x"]) where `crate` is a module root."""
    separator = rules.module_separator
    parts = module.split(separator)
    relative, up = False, 0
    if separator == "." and module.startswith("."):
        dots = len(module) - len(module.lstrip("."))
        relative, up, parts = True, dots - 1, module[dots:].split(".")
    while parts and (parts[0] == "." or parts[0] in rules.relative_parents):
        relative, up = True, up + (parts[0] != ".")
        parts = parts[1:]
    while parts and parts[0] in rules.module_roots:
        parts = parts[1:]
    parts = [p for p in parts if p]
    if parts and separator != "." and "." in parts[-1]:
        stem, _, suffix = parts[-1].rpartition(".")
        # './util.js' names util.ts as well; a package's name keeps its dots (`socket.io-adapter` is
        # no file socket.ts), but a Go path's last element names its package (`gopkg.in/yaml.v3`).
        if "." + suffix in _SCRIPT_SUFFIXES or rules.package == "directory":
            parts[-1] = stem
    return relative, up, parts


# (base tree id, module, importer's folder, rules) -> (the merge's files at each of the module's
# keys (_lead_keys), _leads' answer): what an import leads to, kept across the checks of a drain, whose
# merges share the pin's tree and ask it of the same tip files' imports (`import os` from each folder
# of the run) at every merge. Dropped whole past LEADS_KEPT.
_LEADS: dict[tuple, tuple] = {}
LEADS_KEPT = 65536
KEEP = True   # False: nothing kept across checks (the tests' unkept check to compare with)
# (base tree id, path, its merged blob id, rules) -> (((a key of its imports' modules, the merge's
# files at it), ...), `_leading_imports`' answer): what a tip file's imports lead to, kept across the
# checks of a drain in the same way. Dropped whole past LEADS_KEPT.
_USERS: dict[tuple, tuple] = {}


def _named(bound: str, names: "set[bytes] | frozenset[bytes]") -> bool:
    """Whether `bound` is one of `names` decoded (as `reached` decodes them: invalid UTF-8
    replaced), without decoding them: an ASCII name equals only its own bytes decoded."""
    if bound.isascii():
        return bound.encode() in names
    return any(n.decode("utf-8", "replace") == bound for n in names)


def _dotted_after(data: bytes, bound: str) -> list[list[str]]:
    """The paths of names read through `bound` in `data`, less the last (the member read):
    [['sub']] of `lib.sub.parse()`; none of `lib.parse()`."""
    found = {match.group(1) for match in re.finditer(
        rb"(?<![\w$.])" + re.escape(bound.encode()) + rb"((?:\s*\.\s*[A-Za-z_$][\w$]*)+)\s*\.\s*[A-Za-z_$]", data)}
    return [[part.strip().decode() for part in path.split(b".")[1:]] for path in sorted(found)]


def kept_rules(rules: SemanticRules) -> bool:
    """Whether what an import of `rules`' language resolves to may be kept across checks
    (`_lead_keys` answers for it)."""
    return KEEP and not (rules.package_roots or rules.path_maps or rules.packages.enabled or rules.root_module
                         or rules.package == "directory")


def _lead_keys(module: str, folder: str, rules: SemanticRules) -> tuple[tuple[str, str], ...] | None:
    """Keys of the merge's module index (semantic._Check.files_at: ("path", a module path) or
    ("last", a module path's last part)) for the files whose presence in a merge can change what
    `module`, imported from `folder`, is resolved (`resolve`) and located (`locate`) to, given the
    base tree; None where more decides (a crate path, a mapped or workspace name, a Go module
    path, a directory package: kept_rules).
    Why these: `resolve` answers a relative module by the files of its module path (`wanted`, or
    for `./index` spelled out the folder's), an absolute one by the files whose module path ends in
    its last part; `_in_tree` asks, of each path it tries, whether it is a file of the merge or of
    the base tree, and each path it tries is a module file (`{}.py`, `{}/__init__.py`) of the stem
    `wanted` (relative) or of a stem ending in the module's last part (absolute)."""
    if not kept_rules(rules):
        return None
    key = (module, folder, rules)
    found = _KEYS_OF.get(key)
    if found is None:
        if len(_KEYS_OF) >= LEADS_KEPT:
            _KEYS_OF.clear()
        found = _KEYS_OF[key] = _keys_of(module, folder, rules)
    return found


# (module, importer's folder, rules) -> _lead_keys' answer, pure in them: a drain asks it of every
# import of every file its merges pair (import_keys, _leading_imports_of), the same few hundred
# (module, folder) pairs at each merge. Dropped whole past LEADS_KEPT.
_KEYS_OF: dict[tuple, tuple[tuple[str, str], ...]] = {}


def _keys_of(module: str, folder: str, rules: SemanticRules) -> tuple[tuple[str, str], ...]:
    relative, up, parts = module_parts(module, rules)
    if relative:
        directory = folder
        for _ in range(up):
            directory = posixpath.dirname(directory)
        wanted = posixpath.normpath(posixpath.join(directory, *parts)) if parts else directory
        if parts and parts[-1] in rules.index_names:
            return (("path", wanted), ("path", posixpath.dirname(wanted)))
        return (("path", wanted),)
    return (("last", parts[-1]),) if parts else ()


def _written_with_suffix(module: str, rules: SemanticRules) -> bool:
    """Whether `module` is a path spelled with a script file's extension (`./foo.js`, not `./foo`)."""
    if rules.module_separator == ".":
        return False
    last = module.rsplit(rules.module_separator, 1)[-1]
    return "." in last.strip(".") and "." + last.rpartition(".")[2] in _SCRIPT_SUFFIXES


_SCRIPT_SUFFIXES = frozenset((".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts", ".json", ".node"))


class ReExports:
    """`origins(path, name)` and `reached(user, names)` over one check's merge (module docstring)."""

    def __init__(self, merge: _Merge, tree_file: TreeFile | None, tree_folders: TreeFolders | None = None):
        self._merge = merge
        self._tree_file = tree_file
        self._tree_folders = tree_folders
        self._workspaces: dict[PackageRules, WorkspacePackages] = {}   # read on the first bare specifier
        self._outside: dict[str, Symbols | None] = {}
        self._located: dict[tuple[str, str], list[str]] = {}
        self._leading: dict[tuple[str, str, SemanticRules], tuple[frozenset[str], tuple[str, ...]]] = {}   # _leads
        self._leading_of: dict[str, tuple] = {}   # _leading_imports, per user
        # The base tree's id when the tree reader names it (tree._Mentions.file): what `_leads` keeps
        # across checks is keyed by it (None: kept for this check only).
        self._tree_key = getattr(getattr(tree_file, "__self__", None), "base_key", None)
        # Asked again for every use of every name (each `origins` walks the chain afresh): a star
        # hub of 90 modules made 49,500 blob reads and searches for one task's check on networkx.
        self._words: dict[str, frozenset[bytes]] = {}
        self._hubs: dict[str, bool] = {}
        self._chains: dict[tuple[str, str], bool] = {}   # _star_chain_reaches, per file and name
        self._reads = 0
        self._crate_paths: dict[str, CratePaths] = {}
        self._path_maps: PathMaps | None = None
        self._star_lists: dict[tuple[str, bytes], frozenset[str] | None] = {}   # what `import *` takes, per version

    def locate(self, module: str, importer: str, rules: SemanticRules) -> list[str]:
        """The files `module`, imported from `importer`, names: the merge's (semantic.resolve), else
        the one file of the tree at its path (none if unsure, or nothing reads the tree)."""
        found = self._merge.resolve(module, importer, rules)
        if found or self._tree_file is None or not rules.module_files:
            return found
        key = (module, posixpath.dirname(importer))
        if key not in self._located:
            self._located[key] = self._in_tree(module, importer, rules)
        return self._located[key]

    def named_files(self, module: str, importer: str, rules: SemanticRules) -> list[str]:
        """Every file of the tree `module`, imported from `importer`, may name, where `locate`
        answers only a sure one: two candidates (`util.py` beside `util/__init__.py`) both count
        when the question is whether the import still finds a file (check/left_modules.py)."""
        patterns = rules.module_files or rules.specifier_files
        if self._tree_file is None or not patterns:
            return []
        return self._in_tree(module, importer, rules, every=True, patterns=patterns)

    def _in_tree(self, module: str, importer: str, rules: SemanticRules, every: bool = False,
                 patterns: tuple[str, ...] | None = None) -> list[str]:
        if rules.package_roots and rules.manifest:
            # Paths that start at a crate (crate_paths.py): computed from the path, not searched for,
            # so a file of the merge is as good an answer as any.
            files, stems = self._crates(rules).locate(module, importer)
            hits = [path for path in files if self._exists(path)]
            hits += [pattern.format(stem) for stem in stems for pattern in rules.module_files
                     if self._exists(pattern.format(stem))]
            return hits if every or len(hits) == 1 else []
        relative, up, parts = module_parts(module, rules)
        if not parts and not relative:
            return []
        if relative:
            directory = posixpath.dirname(importer)
            for _ in range(up):
                directory = posixpath.dirname(directory)
            stems = [posixpath.normpath(posixpath.join(directory, *parts)) if parts else directory]
        elif rules.module_separator == ".":
            # `from pkg import x` in src/pkg/app.py: pkg stands under one of the importer's directories,
            # or in a source folder below one (tests/test_app.py importing src/pkg: the src layout).
            stems, directory = [], posixpath.dirname(importer)
            while True:
                for folder in ("",) + rules.source_folders:
                    stem = posixpath.join(directory, folder, *parts)
                    if stem not in stems:
                        stems.append(stem)
                if not directory:
                    break
                directory = posixpath.dirname(directory)
        elif rules.path_maps or rules.packages.enabled:
            # A name the project's tsconfig maps (`@/utils`: src/utils.ts), read first as the compiler
            # does; else a package of the repository's own workspace names its entry file
            # (`@acme/core`: packages/core/src/index.ts); any other package's (`react`) no file of the tree.
            mapped = self._mapped(module, importer, rules)
            if mapped is not None or not rules.packages.enabled:
                return mapped or []
            workspace = self._workspaces.get(rules.packages)
            if workspace is None:
                assert self._tree_file is not None
                workspace = self._workspaces[rules.packages] = WorkspacePackages(
                    rules.packages, self._tree_file, self._tree_folders)
            found = workspace.locate(module, importer, rules.module_files)
            # A package one side deleted (moved out of the workspace, then taken from the registry,
            # as serde did with serde_test) is no file of the merged tree: its name names nothing.
            return [path for path in found if path not in self._merge.files
                    or all(self._merge.files[path].exists(side) for side in ("left", "right"))]
        else:
            return []   # a package's name (`react`, `github.com/x/y`) names no file of the tree
        hits = []
        # A path written with its file's extension (`require('./foo.js')`, `from './foo.js'`) names
        # that file (or, in TypeScript, its source `foo.ts`), never a folder's index file: Node
        # loads no foo/index.js for it (found: foo.js made foo/index.js counted as still found).
        written = rules.module_files if patterns is None else patterns
        patterns = tuple(pattern for pattern in written if not (_written_with_suffix(module, rules) and "/" in pattern))
        for stem in stems:
            if stem.startswith("../") or stem == "..":
                continue
            for pattern in patterns:
                if not stem and not pattern.startswith("{}/"):
                    continue   # the repository's root folder (`require('..')` from test/): its index file alone
                path = pattern.format(stem).lstrip("/")
                if self._exists(path):
                    hits.append(path)
        # Exactly one file, and none of the merge's: two directories, or `util.py` beside `util/__init__.py`
        # (one side turned the module into a package, pip 8ba11ed565), could be meant, and a file of the
        # merge that resolve() did not answer with was one it declined to guess between: do not guess.
        return hits if every or (len(hits) == 1 and hits[0] not in self._merge.files) else []

    def _mapped(self, module: str, importer: str, rules: SemanticRules) -> list[str] | None:
        """The one file a tsconfig `paths`/`baseUrl` mapping gives `module` (path_maps.py), at the
        first of its candidates that holds one ([] where one holds two: unsure); None when nothing
        maps it or no candidate holds a file (the compiler then looks for a package)."""
        if not rules.path_maps:
            return None
        if self._path_maps is None:
            assert self._tree_file is not None
            self._path_maps = PathMaps(self._tree_file, rules.path_maps)
        for stem in self._path_maps.candidates(module, importer) or ():
            hits = [pattern.format(stem) for pattern in rules.module_files if self._exists(pattern.format(stem))]
            if hits:
                return hits if len(hits) == 1 else []
        return None

    def _exists(self, path: str) -> bool:
        return path in self._merge.files or self._tree_file("base", path) is not None   # type: ignore[misc]

    def _crates(self, rules: SemanticRules) -> CratePaths:
        crates = self._crate_paths.get(rules.manifest)
        if crates is None:
            assert self._tree_file is not None
            crates = self._crate_paths[rules.manifest] = CratePaths(
                self._tree_file, rules.manifest, rules.package_roots, rules.index_names, rules.module_separator)
        return crates

    def origins(self, path: str, name: str, starred: set[tuple[str, str]] | None = None) -> list[tuple[str, str]] | None:
        """The (file of the merge, name there) pairs a `name` imported from `path` may be defined in,
        following `path`'s re-exports; None when a file no side changed defines it (the use is
        answered outside the merge) or the chain cannot be read. `starred`, when given, receives
        the origins the chain reaches only through a star import into the file defining the name:
        there the name must be one the star takes (its `__all__`), not only one the file defines."""
        found: set[tuple[str, str]] = set()
        through: dict[tuple[str, str], set[bool]] = {}
        if not self._follow(path, name, 0, set(), found, through=through):
            return None
        if starred is not None:
            starred.update(origin for origin in found if through.get(origin) == {True})
        return sorted(found)

    def _follow(self, path: str, name: str, depth: int, seen: set[tuple[str, str]],
                found: set[tuple[str, str]], star: bool = False,
                through: dict[tuple[str, str], set[bool]] | None = None) -> bool:
        """Add the origins of `name` from `path` to `found`; False: answered outside the merge, or
        unsure. `star`: the chain came into `path` through a star import; `through` records, per
        origin the file itself is, whether it was reached so (origins' `starred`)."""
        if (path, name) in seen:
            return True
        seen.add((path, name))
        profile = profile_for_path(path)
        if profile is None:
            return path not in self._merge.files
        rules = profile.semantic
        versions = self._merge.files.get(path)
        if versions is not None:
            symbols = self._merge.symbols(path, "merged", uses=False) if versions.exists("merged") else None
            if symbols is None:
                found.add((path, name))   # as the check always did: the file itself
                if through is not None:
                    through.setdefault((path, name), set()).add(False)
                return True
        else:
            symbols = self._read(path, name)
            if symbols is None:
                return False
        passed = [item for item in symbols.imports if item.scope is None and item.bound == name and item.name]
        own = any(d.name == name and not d.container and d.kind != "import" for d in symbols.definitions)
        if star and depth and passed and not own and versions is not None \
                and not self._star_takes(path, name, ("merged",)):
            # Reached through a star import, this file passes the name on by its own import, and its
            # star list (`__all__`) no longer takes it: the chain breaks here, whatever the imported
            # module defines. This file is where the use is lost (a STARRED origin of it).
            found.add((path, name))
            if through is not None:
                through.setdefault((path, name), set()).add(True)
            return True
        if versions is not None and not passed and not own and versions.exists("base") \
                and not (symbols.star_modules and self._stars_may_pass(path, symbols, name, rules)):
            # The merged file no longer passes the name on: a side renamed it and its re-export
            # (`pub use util::{parse}` -> `{parse_len}`). Where the base passed it from is where it
            # was removed; the check asks there whether the merge lost it.
            # Where it still stands defined (a file no side changed, or one the merged tree keeps it
            # in), the merge lost only this file's passing it on (socket.io-adapter's index.ts dropped
            # `SessionAwareAdapter` from its `export {...} from` list): that origin means nothing to
            # a use through this file, which asks here (below) instead.
            base = self._merge.symbols(path, "base", uses=False)
            lost: set[tuple[str, str]] = set()
            for item in base.imports if base is not None else ():
                if item.scope is None and item.bound == name and item.name:
                    for target in self.locate(item.module, path, rules):
                        if not self._follow(target, item.name, depth + 1, seen, lost) and depth:
                            return False
            found.update(origin for origin in lost if not self._merge.defined_in_merged((origin[0], (), origin[1])))
        if versions is not None and (own or not passed) and (depth == 0 or own or self._defined_at_base(path, name)):
            # The imported file itself, as the check always took it; a file reached through a
            # re-export only where it defines the name (a star re-export passes on no import:
            # eq.ts importing hasProp is not where hasProp comes from).
            found.add((path, name))
            if through is not None:
                through.setdefault((path, name), set()).add(star and depth > 0)
        elif versions is None and own:
            return False   # defined in a file no side changed: the use is fine
        if depth >= MAX_DEPTH:
            return not passed and not symbols.star_modules or versions is not None
        for item in passed:
            targets = self.locate(item.module, path, rules)
            if not targets and versions is None:
                return False   # passed on from a module nothing reads: unsure
            for target in targets:
                if not self._follow(target, item.name or name, depth + 1, seen, found, through=through):
                    return False
        if not passed and not own:   # (a file's own definition hides what its star imports bring)
            for module in symbols.star_modules:
                for target in self.locate(module, path, rules):
                    if target not in self._merge.files and not self._mentions(target, name) \
                            and not self._passes_stars_on(target, name):
                        continue   # a file no side changed that never spells the name: not from there
                    if not self._star_takes(target, name, ("base", "merged")):
                        continue   # its `__all__` leaves the name out, or a `_name`: the star does not pass it
                    if not self._follow(target, name, depth + 1, seen, found, star=True, through=through):
                        return False
        return True

    def whole_modules(self, path: str, name: str, depth: int = 0,
                      seen: set[tuple[str, str]] | None = None, deep: bool = False) -> list[tuple[str, str]]:
        """The (file, module) pairs where `name`, imported from `path`, is a module bound whole and
        passed on: a barrel's `import * as LineUtil from './LineUtil.js'; export {LineUtil}` (found
        driving wtc on Leaflet: its specs' `import {LineUtil} from 'leaflet'` then
        `LineUtil.clipSegment()`, a rename of clipSegment left them unnamed). Followed through named
        re-exports and star lines as `origins` follows a name (at most MAX_DEPTH deep, files no side
        changed read only where they spell the name, or, `deep`, where their star lines reach it: a
        path of names a use spells, `modules_through`); [] where the name is no whole module."""
        seen = set() if seen is None else seen
        if (path, name) in seen or depth > MAX_DEPTH:
            return []
        seen.add((path, name))
        profile = profile_for_path(path)
        if profile is None:
            return []
        rules = profile.semantic
        versions = self._merge.files.get(path)
        if versions is not None:
            symbols = self._merge.symbols(path, "merged", uses=False) if versions.exists("merged") else None
        else:
            symbols = self._read(path, name)
        if symbols is None:
            return []
        top = [item for item in symbols.imports if item.scope is None and item.bound == name]
        found = [(path, item.module) for item in top if item.name is None]
        if found or any(d.name == name and not d.container and d.kind != "import" for d in symbols.definitions):
            return found
        for item in top:
            for target in self.locate(item.module, path, rules):
                found += self.whole_modules(target, item.name or name, depth + 1, seen, deep)
        if not top:
            for module in symbols.star_modules:
                for target in self.locate(module, path, rules):
                    # (through a star line of a file no side changed that spells it not: `export *
                    # from './deep'`, deep.ts's `export * as sub from './sub'`)
                    if target in self._merge.files or self._mentions(target, name) \
                            or (deep and self._passes_stars_on(target, name)):
                        found += self.whole_modules(target, name, depth + 1, seen, deep)
        return found

    def modules_through(self, module: str, importer: str, parts: Iterable[str]) -> list[tuple[str, str]]:
        """The (file binding it, module) pairs a path of names read through a module bound whole
        leads to: `lib.sub` after `import * as lib from './lib'`, where lib/index.ts passes `sub`
        on whole (`export * as sub from './sub'`): [('lib/index.ts', './sub')]. Each part is a
        whole module the one before binds (whole_modules); [] where one is not."""
        found = [(importer, module)]
        for part in parts:
            step: list[tuple[str, str]] = []
            for binder, bound in found:
                profile = _profile(binder)
                if profile is None:
                    continue
                for target in self.locate(bound, binder, profile.semantic):
                    step += self.whole_modules(target, part, deep=True)
            found = step
            if not found:
                break
        return found

    def _stars_may_pass(self, path: str, symbols: Symbols, name: str, rules: SemanticRules) -> bool:
        """Whether one of the file's star re-exports may pass `name` on: a module it cannot find, a
        file of the merge, or one that spells the name or passes whole modules on itself. When none
        can, the file's star lines do not stand for the name its `export {..} from` line dropped
        (pdf.js drive: a barrel of `export { isPdfFile } from "./display_utils.js"` and `export *
        from "./content_disposition.js"`; the rename of isPdfFile there left transport_stream.js
        importing the old name through it, and nothing said so)."""
        for module in symbols.star_modules:
            targets = self.locate(module, path, rules)
            if not targets:
                return True
            for target in targets:
                if not self._star_takes(target, name, ("base", "merged")):
                    continue
                if self._merged_may_pass(target, name) if target in self._merge.files \
                        else self._mentions(target, name) or self._passes_stars_on(target, name):
                    return True
        return False

    def _merged_may_pass(self, path: str, name: str) -> bool:
        """Whether a file of the merge, as merged, may pass `name` on: it spells the name, passes
        modules on whole (a star line), exports what no pattern lists, or cannot be read. (A run's
        check holds every file the run changed: a barrel's other star lines name some of them, and
        taking each for passing every name let a dropped `export * from` land: Chart.js drive.)"""
        versions = self._merge.files[path]
        data = versions.merged if versions.exists("merged") else None
        if data is None or name.encode() in _WORD.findall(data):
            return True
        symbols = self._merge.symbols(path, "merged", uses=False)
        return symbols is None or bool(symbols.star_modules) or exports_open(symbols)

    def star_may_pass(self, path: str, symbols: Symbols, name: str) -> bool:
        """Whether the star imports of `path` (its version `symbols`) may bind `name`: False only when
        each names a file of the tree whose language says its star import does not take the name (a
        `__all__` that leaves it out, or no list and a `_name`: profile `star_names`, `star_hidden`),
        or that no side changed and that neither spells the name nor passes stars on.
        Found driving wtc on pydantic-ai: pydantic_graph/paths.py moved to routing/paths.py, whose
        `__all__` named one class, and the old path left as `from .routing.paths import *`; the
        importers of the other classes were taken for answered, and the landed tree did not import."""
        profile = _profile(path)
        if profile is None or not symbols.star_modules:
            return True
        rules = profile.semantic
        for module in symbols.star_modules:
            targets = self.locate(module, path, rules)
            if not targets:
                return True
            for target in targets:
                if not self._star_takes(target, name):
                    continue
                # A starred file of the tree that neither spells the name nor passes stars on
                # cannot bind it, list or no list (found driving wtc on Chart.js: a barrel of
                # `export *` lines dropped the one passing `formatNumber`, and its other star lines
                # were taken for binding every name).
                if self._merged_may_pass(target, name) if target in self._merge.files \
                        else self._mentions(target, name) or self._passes_stars_on(target, name):
                    return True
        return False

    def star_takes(self, path: str, name: str, which: str) -> bool:
        """Whether `from <path's module> import *` takes `name` from the `which` version of a file
        of the merge (absent: False; unknown: True)."""
        versions = self._merge.files[path]
        return versions.exists(which) and self._star_takes_from(path, name, versions.version(which))

    def star_list(self, path: str, which: str) -> bool:
        """Whether the `which` version of a file of the merge writes the list a star import takes
        (profile `star_names`: Python's `__all__`)."""
        versions = self._merge.files[path]
        profile = _profile(path)
        data = versions.version(which) if versions.exists(which) else None
        if profile is None or data is None or len(data) > MAX_BYTES or not profile.semantic.star_names:
            return False
        key = (path, data)
        if key not in self._star_lists:
            try:
                self._star_lists[key] = star_names(profile, data)
            except (ValueError, UnicodeDecodeError):
                return False
        return self._star_lists[key] is not None

    def _star_takes(self, path: str, name: str, which: tuple[str, ...] = ("merged",)) -> bool:
        """Whether `from <path's module> import *` takes `name` from one of the `which` versions of
        a file of the merge (a file no side changed: the tree's); unknown: True. A chain followed to
        where a name came from asks of the base too: the name a task dropped from `__all__` with its
        definition was passed on there."""
        versions = self._merge.files.get(path)
        if versions is None:
            return self._star_takes_from(path, name, self._tree_file("base", path) if self._tree_file is not None else None)
        held = [versions.version(version) for version in which if versions.exists(version)]
        return any(self._star_takes_from(path, name, data) for data in held)

    def _star_takes_from(self, path: str, name: str, data: bytes | None) -> bool:
        profile = _profile(path)
        if profile is None or data is None or len(data) > MAX_BYTES:
            return True
        key = (path, data)
        if key not in self._star_lists:   # a star hub asks once per name: each version parsed once
            try:
                self._star_lists[key] = star_names(profile, data)
            except (ValueError, UnicodeDecodeError):
                return True   # unreadable: anything may be taken
        listed = self._star_lists[key]
        if listed is not None:
            return name in listed
        hidden = profile.semantic.star_hidden
        return not (hidden and name.startswith(hidden))

    def _defined_at_base(self, path: str, name: str) -> bool:
        versions = self._merge.files[path]
        base = self._merge.symbols(path, "base", uses=False) if versions.exists("base") else None
        # An export counts (`export const Portal = Object.assign(...)`: a value no tag names a
        # definition, exported all the same): the name was there to import, and is gone.
        return base is not None and any(d.name == name and ((not d.container and d.kind != "import")
                                                            or (d.container == EXPORTS and d.kind == "export"))
                                        for d in base.definitions)

    def _mentions(self, path: str, name: str) -> bool:
        word = name.encode()
        if _WORD.fullmatch(word):
            if path not in self._words:   # each file's words once: a star hub asks of 90 files per name
                data = self._tree_file("base", path) if self._tree_file is not None else None
                self._words[path] = frozenset(_WORD.findall(data)) if data is not None else frozenset()
            return word in self._words[path]
        data = self._tree_file("base", path) if self._tree_file is not None else None
        return data is not None and spelling([word]).search(data) is not None

    def _passes_stars_on(self, path: str, name: str) -> bool:
        """Does a file no side changed re-export modules whole (a package's `__init__.py` of `from
        .shortest_paths import *`)? It passes the name on without spelling it: networkx's
        `nx.dijkstra_predecessor_and_distance` comes through three such files, and a task that
        deleted it from weighted.py landed a tree whose callers failed (found driving wtc on networkx).
        Any other file does where its star imports reach, file by file, one that spells the name or
        one a side changed (`__init__.py`: `from .a import *`, a.py: `from .b import *`, f defined in b)."""
        if path not in self._hubs:
            self._hubs[path] = self._star_hub(path, name)
        return self._hubs[path] or self._star_chain_reaches(path, name, frozenset())

    def _star_chain_reaches(self, path: str, name: str, seen: frozenset[str]) -> bool:
        """Whether the star imports of `path` (a file no side changed) reach `name`: a module of
        them that the star takes the name from (its `__all__`, its `_` names, at each level) and
        that a side changed, spells the name, or reaches it in turn. At most MAX_DEPTH files deep,
        each file once a chain (a cycle ends); only a file that may write a star import is parsed."""
        key = (path, name)
        if key in self._chains:
            return self._chains[key]
        if path in seen or len(seen) >= MAX_DEPTH:
            return False
        data = self._tree_file("base", path) if self._tree_file is not None else None
        profile = _profile(path)
        reaches = False
        if data is not None and profile is not None and _STAR.search(data):
            symbols = self._read(path, name)
            for module in symbols.star_modules if symbols is not None else ():
                for target in self.locate(module, path, profile.semantic):
                    if target != path and self._star_takes(target, name, ("base", "merged")) and \
                            (target in self._merge.files or self._mentions(target, name)
                             or self._star_chain_reaches(target, name, seen | {path})):
                        reaches = True
                        break
                if reaches:
                    break
        if reaches or not seen:   # (a False found inside a cycle's walk is that walk's, not the file's)
            self._chains[key] = reaches
        return reaches

    def _star_hub(self, path: str, name: str) -> bool:
        """_passes_stars_on, read once per file."""
        profile = _profile(path)
        folders = [form[2:] for form in (profile.semantic.module_files if profile is not None else ())
                   if form.startswith("{}/")]
        # Only a package's own file (`{}/__init__.py`, `{}/index.ts`): the hubs that re-export whole
        # modules. Reading every module a star import names costs six times the check on networkx.
        if not any(path == form[1:] or path.endswith(form) for form in folders):
            return False
        data = self._tree_file("base", path) if self._tree_file is not None else None
        if data is None or b"*" not in data:
            return False
        symbols = self._read(path, name)
        return symbols is not None and bool(symbols.star_modules)

    def _read(self, path: str, name: str) -> Symbols | None:
        """What a file no side changed defines and imports (None: absent, unreadable, over budget)."""
        if path in self._outside:
            return self._outside[path]
        if self._tree_file is None or self._reads >= MAX_FILES:
            return None
        self._reads += 1
        found = self._outside[path] = self._read_unbudgeted(path)
        return found

    def _read_unbudgeted(self, path: str) -> Symbols | None:
        """_read's answer, not counted against MAX_FILES nor kept for this check."""
        if self._tree_file is None:
            return None
        data = self._tree_file("base", path)
        profile = profile_for_path(path)
        found = None
        if data is not None and profile is not None and len(data) <= MAX_BYTES:   # a NUL: source still (semantic.py)
            def compute() -> Symbols | None:
                tree = profile.parse(data)
                return None if tree.root_node.has_error else extract(profile, data, tree, uses=False)

            index = getattr(self._merge, "index", None)
            found = compute() if index is None else index.symbols(fingerprint(profile), data, False, compute)
        return found

    def reached(self, user: str, names: Iterable[bytes] | Callable[[], Iterable[bytes]]) -> frozenset[str]:
        """The files of the merge that `user`'s merged imports of one of `names` reach through a
        re-export or a workspace package's name (a file its import names itself aside): where a use
        of that name added there may be defined. `names` may be a function giving them, asked only
        when the file imports something (reach.py's words of a task's added lines: a line diff per
        file, which a file importing nothing does not need)."""
        profile = _profile(user)
        if profile is None or not profile.semantic.module_files or not self._merge.files[user].exists("merged"):
            return frozenset()
        rules = profile.semantic
        if rules.package_roots:
            return self._reached_by_paths(user, names, rules)
        leading = self._leading_imports(user, rules)
        if not leading:
            return frozenset()   # no import leads to a file: nothing reached (names not even asked)
        given = names() if callable(names) else names
        given = given if isinstance(given, (set, frozenset)) else frozenset(given)
        wanted: list[str] | None = None   # sorted, decoded: the names a whole module may pass on
        out: set[str] = set()
        for module_name, name, bound, direct, targets in leading:
            whole = name is None   # (a module bound whole: `lib` of `import * as lib`)
            if name is None:
                # A star import (`from pkg import *`, then a bare `B()`) or a module imported whole
                # (`import pkg`, used as `pkg.parse()`): any of the names may be read through it.
                if wanted is None:
                    wanted = sorted({n.decode("utf-8", "replace") for n in given})
                throughs = wanted
            elif _named(bound, given):   # type: ignore[arg-type]
                throughs = [name]
            elif self._receiver_in(user, bound):
                throughs = []   # used as a receiver (`LineUtil.clipSegment()`): a module bound whole, maybe
            else:
                continue
            for target in targets:
                for through in throughs:
                    for origin, _ in self.origins(target, through) or ():
                        # The imported file itself is paired by its module's word (reach.py), unless no
                        # word of the import names it: a workspace package's entry (`@acme/core`).
                        if origin != target or target not in direct:
                            out.add(origin)
                if name is not None:
                    # A module the chain binds whole (`export {LineUtil}` of `import * as LineUtil`):
                    # a use of its member (`LineUtil.clipSegment()`) may mean the module's file.
                    for binder, module in self.whole_modules(target, name):
                        whole = True
                        out.update(file for file in self.locate(module, binder, _profile(binder).semantic)
                                   if file in self._merge.files)
            if whole and bound is not None and rules.module_separator != ".":
                # Modules passed on whole read through the one bound (`lib.sub.parse()` after
                # `import * as lib from './lib'`, lib/index.ts's `export * as sub from './sub'`):
                # a use of the last one's member may mean its file.
                for parts in _dotted_after(self._merge.files[user].merged or b"", bound):
                    for binder, module in self.modules_through(module_name, user, ([name] if name else []) + parts):
                        out.update(file for file in self.locate(module, binder, _profile(binder).semantic)
                                   if file in self._merge.files)
        return frozenset(out)

    def _receiver_in(self, user: str, bound: str) -> bool:
        """Whether `user`'s merged version spells `bound.` (the name a receiver: a module, maybe)."""
        return (bound + ".").encode() in (self._merge.files[user].merged or b"")

    def reaching(self, user: str) -> tuple[bool, frozenset[bytes]] | None:
        """What `reached(user, names)` can answer anything for: (whether an import of a whole
        module or a star import leads to a file: then any names; the names the user's other
        imports that lead to a file bind, as bytes): for names none of which is one of those,
        it answers nothing. None where that is not known (crate paths, a name past ASCII)."""
        profile = _profile(user)
        if profile is None or not profile.semantic.module_files or not self._merge.files[user].exists("merged"):
            return (False, frozenset())
        if profile.semantic.package_roots:
            return None
        leading = self._leading_imports(user, profile.semantic)
        bounds = [bound for _, name, bound, _, _ in leading if name is not None]
        if not all(bound.isascii() for bound in bounds):   # type: ignore[union-attr]
            return None
        # A name used as a receiver (`LineUtil.clipSegment()`) may be a module a barrel binds whole
        # (whole_modules): then, as for `import * as`, any name may be read through it.
        whole = any(name is None or self._receiver_in(user, bound) for _, name, bound, _, _ in leading)
        return (whole, frozenset(b.encode() for b in bounds))   # type: ignore[union-attr]

    def closed(self, user: str) -> bool:
        """Whether `reached(user, any names)` can answer no file but those `user`'s own imports
        lead to (the files at its imports' keys, reexports._lead_keys): no import of a whole module
        or star leads to a file (`reaching`), and each file a named import leads to defines the
        name itself and imports nothing under it, so the re-exports are followed no further
        (`origins` answers that file or nothing, `whole_modules` nothing). Then no file of a merge
        outside those keys is reached through `user`'s imports by any name: what the tip's tables
        keep of a drain's tip files (tip_index.TipIndex.closed), so a merge whose own files stand
        at none of their keys passes them over without asking. Read of each file as `reached`
        reads it, a file no side changed without counting against MAX_FILES (what a merge
        asks of `reached` does not depend on the answers kept)."""
        if not KEEP:
            return False   # (the tests' unkept check keeps nothing)
        profile = _profile(user)
        if profile is None or not profile.semantic.module_files or not self._merge.files[user].exists("merged"):
            return True   # reached() answers nothing
        rules = profile.semantic
        if not kept_rules(rules):
            return False   # more than the keys decides what its imports lead to
        found = self.reaching(user)
        if found is None or found[0]:
            return False
        return all(self._ends_at(target, name) for _, name, _, _, targets in self._leading_imports(user, rules)
                   for target in targets)

    def _ends_at(self, path: str, name: str) -> bool:
        """Whether following `name` from `path` (`_follow`, `whole_modules`) stops there: `path`
        defines the name and binds it by no import (or it has no readable symbols, where both stop)."""
        versions = self._merge.files.get(path)
        if versions is not None:
            symbols = self._merge.symbols(path, "merged", uses=False) if versions.exists("merged") else None
        else:
            symbols = self._read_unbudgeted(path)
        if symbols is None:
            return True
        return not any(item.scope is None and item.bound == name for item in symbols.imports) \
            and any(d.name == name and not d.container and d.kind != "import" for d in symbols.definitions)

    def _leading_imports(self, user: str, rules: SemanticRules) -> tuple:
        """The merged `user`'s imports `reached` follows that lead to a file, in its order (star
        modules, then the imports): (module, the name imported or None for a whole module or a
        star, the name bound, the files `resolve` answers, the files `locate` answers). A drain
        asks this of hundreds of a tip's users a merge, the same blobs from merge to merge: kept
        across checks by (base tree, path, blob, rules) with the merge's files each module's
        answer depends on (_lead_keys), taken again only while those are the same."""
        found = self._leading_of.get(user)   # asked again for each candidate the user is paired with
        if found is None:
            found = self._leading_of[user] = self._leading_imports_of(user, rules)
        return found

    def _leading_imports_of(self, user: str, rules: SemanticRules) -> tuple:
        blob = getattr(self._merge.files[user], "blob_id", None)
        blob = blob("merged") if blob is not None else None
        full = None
        if self._tree_key is not None and blob is not None and kept_rules(rules):
            full = (self._tree_key, user, blob, rules)
            kept = _USERS.get(full)
            if kept is not None:
                files_at = self._merge.files_at
                if all(files_at(key, rules) == named for key, named in kept[0]):
                    return kept[1]
        folder = posixpath.dirname(user)
        symbols = self._merge.imports(user, "merged")
        entries: list[tuple[str, str | None, str | None]] = []
        if symbols is not None:
            entries += [(module, None, None) for module in symbols.star_modules]
            for item in symbols.imports:
                if item.name is None and item.scope is None:
                    entries.append((item.module, None, item.bound))   # (`lib` of `import * as lib`)
                elif item.name is not None:
                    entries.append((item.module, item.name, item.bound))
                # (A module imported inside a function, `def test(): import sympy`, binds the module's
                # own name: no name of the module is passed on through it, nothing to follow.)
        leading = []
        for module, name, bound in entries:
            direct, targets = self._leads(module, user, rules)
            if targets:
                leading.append((module, name, bound, direct, targets))
        found = tuple(leading)
        if full is not None:
            keys = {key for module, _, _ in entries for key in _lead_keys(module, folder, rules)}   # type: ignore[union-attr]
            if len(_USERS) >= LEADS_KEPT:
                _USERS.clear()
            _USERS[full] = (tuple((key, self._merge.files_at(key, rules)) for key in keys), found)
        return found

    def _reached_by_paths(self, user: str, names: Iterable[bytes] | Callable[[], Iterable[bytes]],
                          rules: SemanticRules) -> frozenset[str]:
        """`reached` in a language whose paths start at a crate (Rust): its imports, and the crate
        paths it calls through with no `use`."""
        symbols = self._merge.imports(user, "merged")   # only what it imports is read here
        if symbols is None:
            return frozenset()
        wanted = {n.decode("utf-8", "replace") for n in (names() if callable(names) else names)}
        out: set[str] = set()
        modules = [(module, sorted(wanted)) for module in symbols.star_modules]
        heads: set[str] | None = None   # the path heads the file spells (`cli` of `cli::is_tty_stdout()`)
        for item in symbols.imports:
            if item.name is None and item.scope is None:
                modules.append((item.module, sorted(wanted)))
            elif item.bound in wanted and item.name is not None:
                modules.append((item.module, [item.name]))
            elif item.name is not None and item.scope is None:
                # A module imported by name and called through (`use grep::cli;` then
                # `cli::is_tty_stdout()`: ripgrep's binary, grep re-exporting grep_cli as `cli`).
                if heads is None:
                    heads = {m.decode() for m in _path_heads(rules.module_separator).findall(
                        self._merge.files[user].merged or b"")}
                if item.bound in heads:
                    modules.append((item.module.rstrip(rules.module_separator) + rules.module_separator + item.name,
                                    sorted(wanted)))
        for module, through in modules:
            direct, targets = self._leads(module, user, rules)
            for target in targets:
                for name in through:
                    for origin, _ in self.origins(target, name) or ():
                        if origin != target or target not in direct:   # a crate's root (`my_core`)
                            out.add(origin)
        return frozenset(out | self._through_crate_paths(user, symbols, wanted, rules))

    def _leads(self, module: str, user: str, rules: SemanticRules) -> tuple[frozenset[str], tuple[str, ...]]:
        """(the files of the merge `module`, imported from `user`, names (resolve), the files it
        leads to (locate)): both read no more of the importer than its folder, kept per folder, and
        across the checks of a drain where the tree reader names its base tree (`_LEADS`)."""
        folder = posixpath.dirname(user)
        key = (module, folder, rules)
        found = self._leading.get(key)
        if found is not None:
            return found
        keys = _lead_keys(module, folder, rules) if self._tree_key is not None else None
        if keys is None:
            found = self._leading[key] = (frozenset(self._merge.resolve(module, user, rules)),
                                          tuple(self.locate(module, user, rules)))
            return found
        # The answer is a function of the base tree, the module, the folder, the rules and the
        # files of the merge at `keys` (the proof is at _lead_keys): kept with those files, taken
        # again only while they are the same.
        files_at = self._merge.files_at
        named = tuple(files_at(key, rules) for key in keys)
        full = (self._tree_key, module, folder, rules)
        kept = _LEADS.get(full)
        if kept is not None and kept[0] == named:
            found = self._leading[key] = kept[1]
            return found
        found = self._leading[key] = (frozenset(self._merge.resolve(module, user, rules)),
                                      tuple(self.locate(module, user, rules)))
        if len(_LEADS) >= LEADS_KEPT:
            _LEADS.clear()
        _LEADS[full] = (named, found)
        return found

    def _through_crate_paths(self, user: str, symbols: Symbols, wanted: set[str], rules: SemanticRules) -> set[str]:
        """Where a path call through a crate's name reaches (`grep_cli::parse_size()` with no `use`:
        every crate is in scope in Rust 2018): the files its root re-exports the names from. The
        path's first part is read from the text (the imports-only parse has no calls); a part the
        file imports or a module root (`crate::`) is the imports' to follow, and a part naming no
        crate of the tree (`std::`, `Vec::`) leads nowhere."""
        data = self._merge.files[user].merged or b""
        bound = {item.bound for item in symbols.imports}
        out: set[str] = set()
        for head in sorted({m.decode() for m in _path_heads(rules.module_separator).findall(data)}):
            if head in bound or head in rules.module_roots:
                continue
            for target in self.locate(head, user, rules):
                for name in sorted(wanted):
                    out.update(origin for origin, _ in self.origins(target, name) or ())
        return out
