"""The post-merge semantic check: names a clean merge broke.

Stage: after a merge (one file, or every file of a tree merge), before its result is called clean.
Input: per file, its path and the base, left, right and merged bytes (None where the file does not
exist). Output: `SemanticFinding`s. A finding is a name defined at the base, no longer defined by
one side (removed, renamed, or its file deleted), used by lines the other side added, and still not
defined in the merged result; the use may stand in the same file or in another file of the merge
that imports the name (or, for a language whose directories are packages, like Go, in a file of
the same directory).

Precision first (a flag that is usually wrong gets turned off, so fewer and surer flags):
- a use is resolved only where its target is sure: a bare name that no local binding shadows and
  no builtin (profile `globals`) answers goes to its own file's top level, to the file an import of
  it names, or (Go) to its directory's files; `self.f()` (profile `self_receivers`) and `C.f()`,
  for a class C of the file, go to the members of that class; a call on any other object is never
  resolved (its type is unknown), nor a name imported from a module no file of the merge is, unless
  that module's file, read from the tree, re-exports it from one (reexports.py: a barrel of `export *
  from`, a package's `__init__.py`); a Go method's receiver (profile `self_fields`) counts as `self`;
- a member is never flagged when its class declares bases (it may be inherited), a top-level name
  never when the file has a star import or re-export;
- the side that added the use must still define the name (else it broke it itself), and the
  merged file must not: any definition, binding or import of it at that level counts, so a
  definition moved elsewhere in the file or re-imported, or added again by the using side, is fine;
- overloads: a name stays defined while any definition of it remains;
- a version that does not parse cleanly, is binary or over MAX_BYTES gives no removals and no
  uses (nothing is guessed).
The same entry points also report a declaration the merged file holds twice where the base and
each side hold it once (duplicates.py: a finding with `problem="duplicate"`), a member a clean
merge put in another class or impl block than the side that added it (misplaced.py:
`problem="misplaced"`), and, over a tree
merge, an import of a module one side replaced throughout that the other side added
(import_paths.py: `problem="import_path"`), and a call a side added that passes what a function's
base shape takes where the other side changed its parameters (signatures.py: `problem="signature"`).
Names, kinds and scopes come from symbols.py (the grammar wheels' tags queries and the profile's
data); nothing here is language-specific.
"""

from __future__ import annotations

import dataclasses
import functools
import operator
import posixpath
import re
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator

import tree_sitter

from ...frozen import value_class
from .declared_types import nested_type_targets, static_member_targets
from . import attribute_guards, fields, sole_members
from .duplicates import find_duplicates
from .linked import (LINKED, answers, body_lost, conditional, declared_only, error_words, extension, file_local,
                     is_linked, package_key, qualified_body, reading_profile, surely_placed)
from . import name_imports, namespaces
from .misplaced import find_misplaced
from ..languages.profiles import Profile, SemanticRules, member_name, profile_for_path
from ..languages.reparse import inverted
from .reach import CHAIN_HEAD, JAVA_PACKAGE, Reach, star_list_added, words
from ..result import SemanticFinding
from .signatures import find_signature_changes
from ..lines.linediff import (added_lines as _added_lines, added_text, follow as _follow, hunks as _hunks, lines_text,
                              ranges_text, touched_lines as _touched_lines)
from .fixtures import fixture_requests
from .symbols import (CONTAINER_KINDS, EXPORTS, FUNCTION_KINDS, IMPORTS_ONLY, Definition, Reference, Symbols, exports_closed, exports_open, extract,
                      fingerprint, hidden_query, visible_import as _visible_import)
from .module_index import ModuleTables
from .tip_index import PathFacts, TipIndex
from .versions import MAX_BYTES, FileVersions, Versions

# Loaded where a tree merge's check uses them: the import-path check (with `mentions`) and the merge
# index (with `index`); a one-file check (`wtc merge-file`, once per conflicted file git asks about)
# uses neither (issue 36: start-up).
# So are the re-exports' reader (reexports.py, with the ecosystems' crate paths, path maps and
# workspace packages it reads): a check loads it on the first import it resolves or follows, which
# a clean one-file merge whose new lines use no import does not.
if TYPE_CHECKING:
    from ..ecosystems.workspace_packages import TreeFolders
    from .import_paths import TreeFile
    from .merge_index import MergeIndex
    from .reexports import ReExports

_SIDES = ("left", "right")
# A target (path, STARRED, name) of a use: the top-level `name` of `path`, reached only through a star
# import into `path` (`from ._urls import *`): the name must be one that star takes there (its
# `__all__`: profile `star_names`, `star_hidden`), not only one the file defines. No language spells a
# type `<star>`, so it is never a class's name; removals stay keyed by the plain top-level container.
STARRED: tuple[str, ...] = ("<star>",)
# A target (path, EXTENDED, name) of a use: the top-level `name` of `path` if it is an extension
# (profile `extension`: Kotlin's `fun String.quoted()`), called on a value the use spells before it
# (`title.quoted()`), whose type is not known: as if the use were bare.
EXTENDED: tuple[str, ...] = ("<extension>",)
_WORDS = re.compile(rb"[A-Za-z_$][\w$]*")
# A receiver that names a type or namespace (C#'s `N.T`, PHP's `\N\T`, `namespace\T`)
_QUALIFIED = re.compile(r"(?:\\|namespace\\)?[A-Za-z_]\w*(?:[.\\][A-Za-z_]\w*)*")
_PARTS = re.compile(r"[.\\]")
_LEADING_NAME = re.compile(r"[A-Za-z_]\w*")   # a receiver that is one name: a crate's, in a Rust path call
# The qualifiers right before a C++ qualified name (`a::b::`, `Box<int>::`, `::kv::`), ending where it stands.
_QUALIFIERS = re.compile(rb"(?:[A-Za-z_]\w*\s*(?:<[^<>;{}()]*>)?\s*::\s*)+\Z")
_LOCAL_NAME = re.compile(r"\$?[A-Za-z_]\w*")   # a local's name (PHP's `$s`)
_EXCERPT_LINES = 6
_FEW_REMOVALS = 256    # up to this many removals, a file is searched for each (else its words are scanned)


@value_class
class _Removal:
    path: str
    definition: Definition
    side: str


@functools.lru_cache(maxsize=65536)
def semantic_profile(path: str) -> Profile | None:
    """The profile that gives `path` a semantic check, or None (no profile, or no `[semantic]`)."""
    profile = profile_for_path(path)
    return profile.semantic_reading if profile is not None and profile.semantic.enabled else None


# package_files(path) -> the other files of `path`'s package (Go: the files of its folder) as the
# merge's sides hold them, as (path, bytes) pairs (a path once per version that differs: ours' and
# theirs'); None when they cannot be read (no repository).
PackageFiles = Callable[[str], "Iterable[tuple[str, bytes]] | None"]


def check_file(base: bytes, left: bytes, right: bytes, merged: bytes, path: str, *,
               labels: tuple[str, str, str] = ("ours", "base", "theirs"),
               trees: dict[str, tree_sitter.Tree] | None = None,
               package_files: PackageFiles | None = None) -> tuple[SemanticFinding, ...]:
    """The check within one file (`trees`, optional: already parsed versions by name). The other
    files of the merge are unknown here, so in a language whose directories are packages (Go) a
    name gone from this file may have moved to another file of the package: `package_files` (the
    caller's reader of them: a git merge driver's repository) says whether one still defines it;
    without it the inputs cannot tell, and the finding stands (a driver must not merge clean what
    it cannot check; `package_unseen` says which findings those are)."""
    return find_broken_names([FileVersions(path, base, left, right, merged)], labels=labels, trees=trees,
                             complete=False, package_files=package_files)


def package_unseen(finding: SemanticFinding) -> bool:
    """Whether a one-file check (`check_file`) found `finding` without seeing the rest of the
    definition's package: a top-level name of a language whose directories are packages (Go), so
    another file of that package may still define it."""
    profile = semantic_profile(finding.definition_path)
    return (finding.problem == "broken" and finding.kind != "import" and profile is not None
            and profile.semantic.package in ("directory", "linked"))


def find_broken_names(files: Iterable[Versions], *, labels: tuple[str, str, str] = ("ours", "base", "theirs"),
                      trees: dict[str, tree_sitter.Tree] | None = None,
                      complete: bool = True,
                      mentions: Callable[[str, Iterable[str]], set[str]] | None = None,
                      tree_file: TreeFile | None = None,
                      tree_folders: TreeFolders | None = None,
                      every_use: bool = False,
                      package_files: PackageFiles | None = None,
                      index: "MergeIndex | None" = None, tip: "TipIndex | None" = None,
                      loose: Iterable[str] = (), readable: bool = False,
                      unreadable: set[str] | None = None, manifests: str = "base",
                      modules: "Callable[[SemanticRules, Callable], ModuleTables] | None" = None,
                      by_path: dict[str, Versions] | None = None,
                      whole_words: bool = False,
                      spelled: "Callable[[str], list[str] | None] | None" = None) -> tuple[SemanticFinding, ...]:
    """Every name the merge of `files` broke (see the module docstring), in path and line order,
    each (use file, use line, problem, name) once. `complete`: `files` hold every file either side
    changed (what a tree merge gives); when not, a package-wide name (Go) gone from one file is
    looked up in the rest of its package through `package_files`, and reported when that cannot
    be read (the name may be defined there, or not: the inputs cannot tell). `mentions(side,
    modules)`: which of the modules some file of that side's whole tree still names; given (a tree
    merge), imports of a module one side replaced throughout are checked too (import_paths.py), and
    `tree_file(which, path)` (any file of the base, left or right tree: their manifests) tells a
    dependency the merge still declares.
    `tree_folders(which, folder)`: the names of a folder's subfolders there (a workspace's package
    folders, found by its globs: workspace_packages.py). `every_use`: an import of a broken name is
    named even where the file's calls of it are (a use left behind, which nobody wrote in this merge:
    the import is what fails first). `index`: where symbols are kept between checks, by content
    (merge_index.py); None parses every version this check reads. `tip` (tip_index.py, with
    `files` in path order): the left side's changed files are a tip's, and those outside `loose`
    are the right side's and the merged tree's as the pin and the tip hold them; reach.py then
    answers them from the tip's tables instead of walking them. `readable`: every file of `files`
    has a semantic profile (tree._tree_files lists only those): not filtered again, which was a
    pass over every file the run changed, at every merge of a drain. `unreadable`, when given,
    receives the path of each file a version of which the check parsed and could not read cleanly
    (it reads nothing of such a version). `manifests`: the tree (`tree_file`'s `which`) whose
    manifests say which module a folder is (Go's go.mod and go.work: profile `root_module`,
    `workspace`): the base's, or the left side's where that side is a task whose uses are read in
    its own tree (check/left_behind.py: a nested go.mod the task adds makes its folder a module).
    `modules(rules, facts)` (with `tip`): the module index of the tip's files outside the merge's
    own (module_index.ModuleTables, kept per tip), which the check lays the merge's own files over
    instead of indexing every file. `by_path` (with `tip` and `readable`): `files` by path, in any
    order (tree._tip_files: the tip's copied, not a mapping built from every file at every merge).
    `whole_words`: `files` hold every file of the tree spelling a removed name (the look for names left
    behind, when it read them all): a member called on a receiver of unknown class is then the one
    class's that defines it, where sure (sole_members.py). `spelled(word)` (a tree merge's): the files of
    the merged tree spelling `word` (None: not known), which that reading asks of only the removed
    members a use on such a receiver names, instead of `files` holding them all."""
    checked = files if readable and isinstance(files, list) else [f for f in files if semantic_profile(f.path) is not None]
    check = _Check(checked, labels, trees or {}, complete, tree_file, tree_folders, package_files,
                   by_path=by_path if readable and tip is not None else None)
    check.index = index
    check.tip, check.loose = tip, frozenset(loose)
    check.tip_modules = modules if tip is not None else None
    check.every_use = every_use
    check.whole_words = whole_words
    check.spelled = spelled
    check.unreadable = unreadable
    check.manifests = manifests
    # A tip's file outside `loose` is ours' version in the merged tree: no duplicate to find there.
    # (`files` of a tip's merge are in path order: the loose ones, in path order, are in the same order.)
    doubled = checked if tip is None else [check.files[path] for path in sorted(check.loose) if path in check.files]
    try:
        found = check.run() + find_duplicates(doubled, labels=labels, trees=trees) \
            + find_misplaced(doubled, labels=labels, trees=trees) + find_signature_changes(check) \
            + tuple(fixture_requests(check, semantic_profile))
        if mentions is not None and len(checked) > 1:
            from .import_paths import find_replaced_imports

            found += tuple(find_replaced_imports(checked, check, check.labels, mentions, tree_file))
    finally:
        check.close()
    unique: dict[tuple[str, int, str, str], SemanticFinding] = {}
    for finding in found:   # the same place, problem and name found twice is one thing to fix
        unique.setdefault((finding.use_path, finding.use_line, finding.problem, finding.name), finding)
    return tuple(sorted(unique.values(), key=lambda f: (f.use_path, f.use_line, f.name)))


def tree_module_files(tree_file: TreeFile, tree_folders: TreeFolders | None = None) -> Callable[[str, str], list[str]]:
    """`files(module, importer)`: every file of one tree (`tree_file(which, path)`, read whatever
    `which`) that `module`, as `importer` writes it, may name, by the resolution this check follows
    imports and re-exports with (reexports.py: relative paths, `module_files`, a src layout, tsconfig
    paths, workspace packages, crates); none for a module no file of the tree is (`react`, `os`)."""
    check = _Check([], ("", "", ""), {}, True, tree_file, tree_folders)
    reexports: list[ReExports] = []   # made on the first question (reexports.py loaded then), held here, not by the check:
    # the reader holds the check, and the two holding each other were left to the collector at every merge

    def files(module: str, importer: str) -> list[str]:
        profile = semantic_profile(importer)
        if profile is None:
            return []
        if not reexports:
            reexports.append(check.reexports)
            check.close()
        return reexports[0].named_files(module, importer, profile.semantic)
    return files


class _Check:
    def __init__(self, files: list[Versions], labels: tuple[str, str, str], trees: dict[str, tree_sitter.Tree],
                 complete: bool = True, tree_file: TreeFile | None = None,
                 tree_folders: TreeFolders | None = None, package_files: PackageFiles | None = None,
                 by_path: dict[str, Versions] | None = None):
        # By path; in `files`' order, unless given (`by_path`: the same files in another order,
        # gone over in path order, which is then `files`' order: in_order()).
        self.files = {f.path: f for f in files} if by_path is None else by_path
        self._sorted = by_path is not None
        self.index: MergeIndex | None = None   # find_broken_names(index=...)
        self.tip: TipIndex | None = None       # find_broken_names(tip=..., loose=...)
        self.loose: Iterable[str] = ()
        self.tip_modules: Callable[[SemanticRules, Callable], ModuleTables] | None = None   # find_broken_names(modules=)
        self.package_reader = package_files   # the rest of a one-file check's package (PackageFiles)
        self._outside: dict[str, list[Symbols] | None] = {}   # the rest of a file's package, when read
        # A name imported through a file that re-exports it (a barrel, a package's __init__.py):
        # which file of the merge defines it (reexports.py; files no side changed read through tree_file).
        self._reexports: ReExports | None = None   # made on first use (the `reexports` property)
        self._tree_folders = tree_folders
        self._tree_file = tree_file
        self._modules_of: dict[tuple[str, str], tuple[tuple[str, str], ...] | None] = {}   # modules(), per folder
        self._tree_texts: dict[str, str | None] = {}   # manifests and workspace files read (_tree_text)
        self._tree_symbols: dict[str, Symbols | None] = {}   # files no side changed, read for a class (tree_symbols)
        self.manifests = "base"   # find_broken_names(manifests=...): the tree those are read from
        self.complete = complete
        self.every_use = False   # find_broken_names(every_use=...)
        self.whole_words = False   # find_broken_names(whole_words=...)
        self.spelled: Callable[[str], list[str] | None] | None = None   # find_broken_names(spelled=...)
        self.sole_cache: dict[tuple[str, tuple[str, ...], str], bool] = {}   # sole_members.sole_definer's answers
        self.unreadable: set[str] | None = None   # find_broken_names(unreadable=...)
        self.labels = {"left": labels[0], "right": labels[2]}
        self.trees = trees
        self._symbols: dict[tuple[str, bytes, bool], Symbols | None] = {}   # (path, bytes, uses)
        self._imports_asked: dict[tuple[str, Any], Symbols | None] = {}     # (path, blob id or which): imports()
        self._may_import_keys: dict[str, tuple] = {}   # user -> (rules, its imports' keys) or (): may_import
        self._trees: dict[tuple[str, bytes], tree_sitter.Tree] = {}
        self._parsed: dict[str, tuple[str, bytes]] = {}   # path -> the version of it parsed last (which, bytes)
        # resolve()'s index, per rules: module path -> files, and last module part -> (file, parts).
        # Built once: a merge of thousands of files resolves thousands of imports (cortex 531e91f0:
        # 150 s, most of it recomputing every file's module path for each import).
        self._directories: dict[str, list[str]] | None = None   # package key -> files, for package_files
        self._typed_packages: dict[str, list[str]] | None = None   # Java package -> files (typed_package_files)
        self._modules: dict[int, tuple[dict[str, list[str]], dict[str, list[tuple[str, list[str]]]]]] = {}
        self._reach: Reach | None = None                                # live words, per side and file
        self._hidden: dict[tuple[str, bytes], frozenset[str]] = {}       # hidden(), per (path, bytes)
        self._resolved: dict[tuple[str, str, SemanticRules], tuple[str, ...]] = {}   # resolve(), per folder
        self._named: dict[tuple[tuple[str, str], SemanticRules], tuple[str, ...]] = {}   # files_at()
        self._namespaces: dict[tuple[str, str], namespaces.NamespaceFacts] = {}   # (path, which): namespace_facts()
        self._new_packages: dict[tuple[str, str], bool] = {}   # (side, folder): package_may_define()
        self._global_usings: frozenset[str] | None = None   # every merged file's `global using`s
        self._members_named: dict[str, bool] = {}   # member_named(), per name: C#'s receivers, Kotlin's extensions
        self._converted: dict[tuple[str, str], bool] = {}   # converted(), per (package, class)

    def close(self) -> None:
        """Drop the readers that hold this check's own methods (its reach's, its re-exports'): the
        check and all it read (a drain's merge: its files' versions, the tip's tables it held) are
        freed by their counts when it ends, not left to the collector (which a drain keeps from
        walking what is alive: MergeIndex.settle freezes it)."""
        self._reach = None
        self._reexports = None

    def in_order(self) -> Iterable[tuple[str, Versions]]:
        """(path, versions) of every file, in the order of the files the check was given."""
        return sorted(self.files.items(), key=_PATH_OF) if self._sorted else self.files.items()

    @property
    def reexports(self) -> ReExports:
        """The re-exports' reader of this check, made (and reexports.py loaded) on first use."""
        if self._reexports is None:
            from .reexports import ReExports

            self._reexports = ReExports(self, self._tree_file, self._tree_folders)
        return self._reexports

    def symbols(self, path: str, which: str, uses: bool = True) -> Symbols | None:
        """The symbols of one version (None: absent, or it does not parse cleanly); uses=False
        asks only for what it defines (a full extraction answers that too)."""
        versions = self.files[path]
        if self.index is not None and hasattr(versions, "blob_id"):
            # Known by its id: integration's files, unchanged since the last merge, are not even read.
            blob_id = versions.blob_id(which)
            if blob_id is not None:
                from .merge_index import MISSING

                profile = semantic_profile(path)
                assert profile is not None
                kept = self.index.known_symbols(fingerprint(profile), blob_id, (True, False) if not uses else (True,))
                if kept is not MISSING:
                    return kept
        data = versions.version(which)
        if data is None:
            return None
        for key in ((data, True), (data, False)) if not uses else ((data, True),):
            if (path,) + key in self._symbols:
                return self._symbols[(path,) + key]
        profile = semantic_profile(path)
        assert profile is not None
        profile = reading_profile(path, data, profile)   # (a C++ header named .h)
        # A NUL byte does not make a file a profile reads binary (git's guess is for diffs): a Python
        # file holding one still imports a name, and a use in it is a use (found: `from pkg.u import
        # parse` missed when the file held a NUL). A file marked binary by its attributes is not read
        # as source (left_behind.source_reader).
        if len(data) > MAX_BYTES:
            self._symbols[(path, data, uses)] = None   # too big: never guessed at
            return None

        def compute() -> Symbols | None:
            tree = self._trees.get((path, data))
            if tree is None:
                # (the caller's tree is the merge's parse: not where the check reads with masks of its own)
                given = self.trees.get(which) if len(self.files) == 1 and not profile.semantic.parse_masks else None
                tree = given or self._parse(profile, path, which, data)
                self._trees[(path, data)] = tree
            if tree.root_node.has_error and not profile.semantic.partial_parse:
                self._unreadable(path)
                return None
            return extract(profile, data, tree, uses=uses)

        # Kept by content across merges (merge_index.py): integration's files, unchanged from one
        # merge of a drain to the next, are parsed once, not once a merge.
        found = compute() if self.index is None else self.index.symbols(fingerprint(profile), data, uses, compute)
        self._symbols[(path, data, uses)] = found
        return found

    def _unreadable(self, path: str) -> None:
        """Say `path` did not parse cleanly, where the caller asked (find_broken_names(unreadable=))."""
        if self.unreadable is not None:
            self.unreadable.add(path)

    def imports(self, path: str, which: str) -> Symbols | None:
        """What one version imports (None: absent, or it does not parse cleanly): a Symbols whose
        `imports`, `wildcard` and `star_modules` are whole, its definitions perhaps not. Kept
        symbols of any extraction answer; else only the imports are placed (symbols.extract's
        imports_only): the read of a file the check asks nothing but its imports (the task's
        files, for the import-path check and the re-exports its new lines reach). Answered once
        per version and check: the re-exports step and both ways of the import-path check ask a
        task file's (three questions, each three lookups in the merge index's memory before)."""
        # By the version's blob id where known: a task file's version is its merged one too.
        blob_id = getattr(self.files[path], "blob_id", None)
        key = (path, (blob_id(which) if blob_id is not None else None) or which)
        found = self._imports_asked.get(key, _UNKNOWN)
        if found is _UNKNOWN:
            found = self._imports_asked[key] = self._imports(path, which)
        return found   # type: ignore[return-value]

    def _imports(self, path: str, which: str) -> Symbols | None:
        versions = self.files[path]
        profile = semantic_profile(path)
        assert profile is not None
        if self.index is not None and hasattr(versions, "blob_id"):
            blob_id = versions.blob_id(which)
            if blob_id is not None:
                from .merge_index import MISSING

                kept = self.index.known_symbols(fingerprint(profile), blob_id, (True, False, IMPORTS_ONLY))
                if kept is not MISSING:
                    if kept is None:
                        self._unreadable(path)   # kept None: it did not parse (as symbols() says it)
                    return kept
        data = versions.version(which)
        if data is None:
            return None
        for mode in (True, False, IMPORTS_ONLY):
            if (path, data, mode) in self._symbols:
                found = self._symbols[(path, data, mode)]
                if found is None and len(data) <= MAX_BYTES:
                    self._unreadable(path)
                return found
        if len(data) > MAX_BYTES:
            self._symbols[(path, data, IMPORTS_ONLY)] = None   # too big: never guessed at (a NUL: above)
            return None

        def compute() -> Symbols | None:
            tree = self._trees.get((path, data))
            if tree is None:
                tree = self._trees[(path, data)] = self._parse(profile, path, which, data)
            if tree.root_node.has_error:
                # (as symbols() does: the left-behind look reads such a file again in pieces; found
                # when the imports came to be read alone, and seven looks at such files went silent)
                self._unreadable(path)
                return None
            return extract(profile, data, tree, imports_only=True)

        found = compute() if self.index is None else self.index.symbols(fingerprint(profile), data, IMPORTS_ONLY,
                                                                          compute)
        self._symbols[(path, data, IMPORTS_ONLY)] = found
        return found

    def hidden(self, path: str, which: str) -> frozenset[str]:
        """The names the version writes where the parse does not place them (profile `hidden_names`:
        identifiers in a macro call's tokens, `pin_project! { struct S {...} }`). A definition moved
        there is not removed; the check cannot tell a definition from a use there, so any such name
        counts (precision first). Asked only for a definition about to be reported removed."""
        profile = semantic_profile(path)
        assert profile is not None
        data = self.files[path].version(which)
        if not (profile.semantic.hidden_names or profile.semantic.partial_parse) or data is None:
            return frozenset()
        found = self._hidden.get((path, data))
        if found is None:
            tree = self.tree(path, which)
            if profile.semantic.partial_parse:   # (C: words inside the parse's ERROR nodes, linked.py)
                found = error_words(tree, data) if tree is not None else frozenset()
            else:
                captures = tree_sitter.QueryCursor(hidden_query(profile)).captures(tree.root_node) if tree else {}
                found = frozenset(data[node.start_byte:node.end_byte].decode("utf-8", "replace")
                                  for node in captures.get("name", ()))
            self._hidden[(path, data)] = found
        return found

    def still_holds(self, module: str, importer: str, side: str) -> bool:
        """Whether `module`, imported from `importer`, is relative (`.hooks`, `./util`) and names a
        file of this merge that `side` and the merged tree still hold (import_paths.py: a module
        that side did not move, whatever it now writes for it)."""
        profile = semantic_profile(importer)
        assert profile is not None
        rules = profile.semantic
        head = module.split(rules.module_separator, 1)[0]
        relative = ((rules.module_separator == "." and module.startswith("."))
                    or head == "." or head in rules.relative_parents)
        return relative and any(self.files[target].exists("merged") and self.files[target].exists(side)
                                for target in self.resolve(module, importer, rules))

    def tree(self, path: str, which: str) -> tree_sitter.Tree | None:
        """The parsed tree of one version (None: absent, or it does not parse cleanly)."""
        data = self.files[path].version(which)
        if data is None or self.symbols(path, which, uses=False) is None:
            return None
        tree = self._trees.get((path, data))
        if tree is None:   # the symbols came from the index: parse now (it parsed cleanly before)
            profile = semantic_profile(path)
            assert profile is not None
            tree = self._trees[(path, data)] = self._parse(reading_profile(path, data, profile), path, which, data)
        return tree

    def _parse(self, profile: Profile, path: str, which: str, data: bytes) -> tree_sitter.Tree:
        """The tree of one version, parsed from the tree of the version of the same file parsed
        before it when that one is still kept (`Profile.parse(like=...)`: a task changes a few
        lines of a file, and tree-sitter then re-reads those). Its diff is asked from the base
        version where one of the two is the base, the direction the check's other diffs take
        (linediff keeps them)."""
        before = self._parsed.get(path)
        self._parsed[path] = (which, data)
        if before is None or before[1] == data:
            return profile.parse(data)
        old = before[1]
        if which == "base":
            return profile.parse(data, like=(old, lambda: inverted(_hunks(data, old)), self._trees.get((path, old))))
        return profile.parse(data, like=(old, lambda: _hunks(old, data), self._trees.get((path, old))))

    def run(self) -> tuple[SemanticFinding, ...]:
        if len(self.files) == 1 and not self._may_break_a_name(next(iter(self.files.values()))):
            return ()
        removals = list(self.removals())
        if not removals:
            return ()
        found: dict[tuple[str, int, str, str], SemanticFinding] = {}
        for used_side in _SIDES:
            mine = [r for r in removals if r.side != used_side]
            if mine:
                for finding in self.uses(mine, used_side):
                    found.setdefault((finding.use_path, finding.use_line, finding.definition_path, finding.name), finding)
        return tuple(sorted(found.values(), key=lambda f: (f.use_path, f.use_line, f.name)))

    @staticmethod
    def _may_break_a_name(versions: Versions) -> bool:
        """Whether one side touched (deleted or changed) a base line holding a word that a line the
        other side added holds. A finding needs both (its definition's name line is touched, its use
        is an added line), so without one no file is parsed and no query compiled: most one-file
        merges (a git merge driver call) end here. A side that deleted the file goes to the full check."""
        base = versions.base
        if base is None:
            return False                      # nothing was defined before either side
        for side, other in (("left", "right"), ("right", "left")):
            mine, theirs = versions.version(side), versions.version(other)
            if mine is None or theirs is None:
                return True
            touched = _touched_lines(base, mine)
            if not touched:
                continue
            gone = set(_WORDS.findall(ranges_text(base, touched)))
            added = added_text(base, theirs)
            if gone.intersection(_WORDS.findall(added)):
                return True
        return False

    # -- step 1: what each side no longer defines -----------------------------------------------
    def removals(self) -> Iterator[_Removal]:
        """Base definitions a side no longer defines. Only a definition whose name's line the side
        deleted or changed can have gone (a file deleted takes all of them), and it matters only
        when lines the other side added, in a file that can reach it, hold its name (reach.py: the
        live words, found before parsing). So a side that only adds lines, or edits inside bodies,
        costs one diff, and of a big merge's thousands of files only those a new use can reach
        are parsed. One insertion is read all the same: a star list (`__all__`) written anew hides
        the names it leaves out from a star import without touching their lines (star_lost)."""
        for path in self.live_paths():
            versions = self.files[path]
            if not versions.exists("base"):
                continue
            live = {side: self.live(side, path) if not versions.same(side, "base") else frozenset() for side in _SIDES}
            if not any(live.values()):
                continue   # by paths and blob ids: nothing of the file is read
            assert versions.base is not None
            touched: dict[str, list[tuple[int, int]]] = {}
            listed: dict[str, bool] = {}   # the side wrote the star list anew (reach.star_list_added)
            for side in _SIDES:
                touched[side] = _touched_lines(versions.base, versions.version(side)) if live[side] else []
                if touched[side]:
                    text = ranges_text(versions.base, touched[side])
                    if not live[side] & _spelled(path, words(text)):
                        touched[side] = []
                new = versions.version(side)
                listed[side] = bool(live[side]) and new is not None and bool(_star_list_word(path)) \
                    and star_list_added(_star_list_word(path), versions.base, new)
            if not any(touched.values()) and not any(listed.values()):
                continue
            base = self.symbols(path, "base", uses=False)
            if base is None:
                continue
            for side in _SIDES:
                ranges = touched[side]
                candidates = [d for d in base.definitions if _within(d.line, ranges) and d.name.encode() in live[side]
                              and (d.container or surely_placed(path, versions.base, d))
                              and not conditional(path, versions.base, d)]
                # A field the class bound on its instances (`self.item_limit = n`), whose binding the side
                # changed: gone where no binding of it stands (`defines` reads every one), see broken().
                candidates += [d for d in base.fields if _within(d.line, ranges) and d.name.encode() in live[side]]
                if candidates:
                    # `function b` renamed while `export { b }` stayed: the export went with it (symbols.py).
                    own = {d.name for d in candidates if not d.container}
                    candidates += [d for d in base.definitions if d.container == EXPORTS and d.name in own
                                   and not _within(d.line, ranges)]
                # A name the file keeps but its star import no longer takes (its `__all__` line
                # changed, not the definition's): gone for the uses that reach it through that star.
                unstarred = self.star_lost(path, side, base, live[side]) if ranges or listed[side] else set()
                candidates += [d for d in base.definitions if not d.container and d.name in unstarred
                               and d not in candidates]
                if not candidates:
                    continue
                after = self.symbols(path, side) if versions.exists(side) else Symbols()
                if after is None:
                    continue
                seen: set[tuple[tuple[str, ...], str]] = set()
                for definition in candidates:
                    key = (definition.container, definition.name)
                    if key not in seen and (not self.defines(path, after, definition, side) or (
                            not definition.container and definition.name in unstarred)) \
                            and definition.name not in self.hidden(path, side):
                        seen.add(key)
                        yield _Removal(path, definition, side)

    def imported_modules(self, side: str, data: bytes) -> set[str] | None:
        """Of the modules the files `side` changed import at their top level, those `data` can
        import (its words hold every word of the module): for a tip's merge, the tip's from its
        tables (TipIndex.importing_modules), the task's from its few files' imports (read for the
        check anyway); None: not known here (any module may be)."""
        if self.tip is None:
            return None
        held = words(data)
        if side == "left":
            return self.tip.importing_modules(held)
        found: set[str] = set()
        for versions in self.changed_files(side):
            symbols = self.imports(versions.path, side) if versions.exists(side) else None
            if symbols is not None:
                found.update(item.module for item in symbols.imports
                             if item.scope is None and item.module and words(item.module.encode()) <= held)
        return found

    def changed_files(self, side: str) -> list[Versions]:
        """The files `side` changed, in the files' order: for the right side of a tip's merge,
        among `loose` only (a tip's file outside it is the pin's on that side)."""
        if self.tip is not None and side == "right":
            return [self.files[path] for path in sorted(set(self.loose) & self.files.keys())
                    if not self.files[path].same(side, "base")]
        return [versions for _, versions in self.in_order() if not versions.same(side, "base")]

    def changed_count(self, side: str) -> int:
        """len(changed_files(side)); for the left side of a tip's merge, from the tip's tables."""
        if self.tip is not None and side == "left":
            # The tip's records are its changed files the check reads, but for a loose one the
            # merge made unreadable (a symlink now): the files then lack it.
            records = self.tip.records
            return len(records) - sum(1 for path in self.loose if path in records and path not in self.files)
        return len(self.changed_files(side))

    def differing_count(self, side: str, other: str) -> int:
        """How many files `side` changed to other than what `other` holds."""
        if self.tip is not None and side == "left":
            same = sum(1 for path in set(self.loose) & self.files.keys()
                       if not self.files[path].same(side, "base") and self.files[path].same(side, other))
            return self.changed_count(side) - same
        return sum(1 for versions in self.changed_files(side) if not versions.same(side, other))

    def live_paths(self, sides: Iterable[str] = _SIDES) -> list[str]:
        """The files with live words on any of `sides`, in the files' order (reach.py)."""
        return self._reach_of().live_paths(sides)

    def live(self, side: str, path: str) -> frozenset[bytes]:
        """The names a definition `side` removed or reshaped in `path` can have and still be used
        by the other side's new lines (reach.py); empty: nothing there can break."""
        return self._reach_of().live(side, path)

    def _reach_of(self) -> Reach:
        if self._reach is None:
            self._reach = Reach(self.files, module_path=self.module_path, module_token=self.module_token,
                                package_wide=self.package_wide, imported_files=self.imported_files,
                                # not self.reexports.reached: that would load reexports.py for every check
                                reexported=lambda user, names: self.reexports.reached(user, names),
                                reaching=lambda user: self.reexports.reaching(user),
                                closed=lambda user: self.reexports.closed(user),
                                barrels=_barrels, memo=self.index, tip=self.tip, loose=self.loose,
                                may_import=self.may_import,
                                package_of=_typed_package, unspelled=_unspelled, spelled=_spelled,
                                star_list=_star_list_word, package_key=package_key)
        return self._reach

    def reached_through(self, path: str, names: set[str]) -> frozenset[str]:
        """The files of the merge `path`'s imports of one of `names` reach through a re-export or a
        crate path (reexports.reached), for signatures.py, which does not load reexports itself."""
        return self.reexports.reached(path, {name.encode() for name in names})

    def imported_files(self, path: str) -> frozenset[str]:
        """The files of this merge that an import of the merged `path` names, as `targets` resolves
        them (a module, or a module's name that is itself a module or a class): every file a use
        there can reach through an import. Nothing when the merged version does not parse (its
        uses are never read). reach.py asks it of hundreds of a drain tip's files a merge, the same
        blobs from merge to merge: in a language whose imports `resolve` alone answers, kept across
        checks by (path, blob, rules) with the merge's files its modules' answers depend on
        (reexports._lead_keys), taken again only while those are the same."""
        profile = semantic_profile(path)
        blob = getattr(self.files[path], "blob_id", None)
        blob = blob("merged") if blob is not None else None
        if blob is None or profile is None or not resolved_alone(profile.semantic):
            return self._imported_files(path)
        rules = profile.semantic
        full = (path, blob, rules)
        kept = _IMPORTED.get(full)
        if kept is not None and all(self.files_at(key, rules) == named for key, named in kept[0]):
            return kept[1]
        found = self._imported_files(path)
        keys = self._import_keys(path, blob, rules)
        if len(_IMPORTED) >= 65536:
            _IMPORTED.clear()
        _IMPORTED[full] = (tuple((key, self.files_at(key, rules)) for key in keys), found)
        return found

    def may_import(self, user: str, path: str) -> bool:
        """Whether imported_files(user) may hold `path`; False only where it surely does not, told
        without resolving anything: what `user`'s imports can answer is a file of the merge at
        one of their keys (reexports._lead_keys: a module path, or a module path's last part), and
        `path`'s module is at neither of its own. The keys are pure in the user's path and blob, so
        a drain's tip file, paired by a module's word with a task's file it cannot import (each
        package's `from .utils import x`, a task's other `utils.py`), is told apart by two set
        lookups, not by resolving its imports again at every merge (what it costs grew with the
        tip: every tip file spelling the word, every merge)."""
        known = self._may_import_keys.get(user)
        if known is None:
            # (the user's rules, its keys), or () where the keys do not tell: asked once a check
            # per user, then once per pair only the candidate's module facts.
            profile = semantic_profile(user)
            blob = getattr(self.files[user], "blob_id", None)
            blob = blob("merged") if blob is not None else None
            known = () if blob is None or profile is None or not resolved_alone(profile.semantic) \
                else (profile.semantic, self._import_keys(user, blob, profile.semantic))
            self._may_import_keys[user] = known
        if not known:
            return True
        rules, keys = known
        found = module_fact(path, rules)   # None: no module index of the merge holds it (_module_index)
        return found is not None and (("path", found[0]) in keys or ("last", found[1][-1]) in keys)

    def _import_keys(self, path: str, blob: bytes, rules: SemanticRules) -> frozenset[tuple[str, str]]:
        """The keys of the merge's module index that imported_files(path) answers from (every
        module it imports, each imported name as a module, its star modules): kept by (path,
        merged blob, rules), in which they are pure."""
        keys = _IMPORT_KEYS.get((path, blob, rules))
        if keys is None:
            keys = kept_import_keys(self.imports(path, "merged") if self.files[path].exists("merged") else None,
                                    path, blob, rules)
        return keys

    def _imported_files(self, path: str) -> frozenset[str]:
        # Its imports only (`imports`): a task file's merged version, paired with a tip's files, was
        # extracted twice a merge, its imports for the re-exports' reader and its definitions here,
        # which read nothing of them (the one-file check's given tree aside, the same parse).
        merged = self.imports(path, "merged") if self.files[path].exists("merged") else None
        if merged is None:
            return frozenset()
        profile = semantic_profile(path)
        assert profile is not None
        rules = profile.semantic
        out: set[str] = set()
        for item in merged.imports:
            found = self.import_files(item.module, path, rules)
            if not found and (rules.packages.enabled or rules.path_maps) and not _module_parts(item.module, rules)[0]:
                # A workspace package's name (`@acme/core/util`), a tsconfig alias (`@/utils`): the file
                # it names, as `targets` reads it (reexports.py), although its word may name another
                # of the merge's (`util`).
                found = [f for f in self.reexports.locate(item.module, path, rules) if f in self.files]
            out.update(found)
            if item.name is not None:
                out.update(self.import_files(item.module.rstrip(rules.module_separator) + rules.module_separator
                                             + item.name, path, rules))
        for module in merged.star_modules:
            out.update(self.import_files(module, path, rules))   # a glob's module: `targets` reads it too
        for module in merged.spelled_modules:
            out.update(self.import_files(module, path, rules))   # `click.utils` of `click.utils.f()`: `targets` too
        separator = rules.module_separator
        if separator not in (".", "/"):
            # A path through modules (`crate::routing::util::parse()`): `targets` resolves its
            # receiver's module too, so the file's uses are read. Not for `/` (Go, JavaScript): a
            # receiver holding it is a parenthesized or indexed expression (`(a/b).f()`), whose
            # first part is never a module root or an imported name, so `targets` resolves nothing.
            with_uses = self.symbols(path, "merged")
            for reference in with_uses.references if with_uses is not None else ():
                # (a call from a module root alone, `crate::to_value(x)`, `$crate::to_value(x)` in a
                # macro_rules! body, is such a path too: found driving wtc on serde_json)
                if reference.receiver is not None and (separator in reference.receiver or (
                        reference.kind == "call" and reference.receiver in rules.module_roots)):
                    module = _path_module(reference.receiver, rules, with_uses, reference)
                    if module is not None:
                        out.update(target for target, _, _ in self.imported_from(module, reference.name, path, rules))
        return frozenset(out)

    # -- step 2: uses the other side added, resolved in the merged result ----------------------
    def uses(self, removals: list[_Removal], used_side: str) -> Iterator[SemanticFinding]:
        by_key = {(r.path, r.definition.container, r.definition.name): r for r in removals}
        tokens = {r.path: self.import_token(r.path) for r in removals}
        wide = {path: self.package_wide(path) for path in tokens}
        directories = {path: package_key(path) for path in tokens}
        removed_paths = set(tokens)
        wide_directories = {directories[path] for path in tokens if wide[path]}
        # Java: a class's file is seen by its package's files without an import (profile package_types).
        typed_directories = {package for path in tokens if (package := _typed_package(path)) is not None}
        by_name: dict[bytes, list[_Removal]] = {}
        spelled = {id(r): use_word(r.path, r.definition.container, r.definition.name).encode() for r in removals}
        # Kotlin (packages that do not nest): a file sees a name of package `p` only where it spells
        # `p` (its own package clause, an import, a qualified use), whatever else it holds.
        homes = {id(r): self.home(r.path, "base", r.definition).encode() for r in removals if whole_packages(r.path)}
        for removal in removals:
            by_name.setdefault(spelled[id(removal)], []).append(removal)
        for path, versions in self.in_order():
            if versions.same(used_side, "base") or not versions.exists(used_side) or not versions.exists("merged"):
                continue
            data = versions.version(used_side)
            assert data is not None and versions.merged is not None
            # Cheapest first: a use in another file reaches a definition only through an import
            # naming its module (or, Go, from the same directory), so the file must mention it.
            # With many removals (a big merge has thousands, and thousands of files), by the words
            # the file holds first: one scan of the file instead of a search per removal.
            here = package_key(path)
            candidates = (removals if len(removals) <= _FEW_REMOVALS
                          else [r for word in by_name.keys() & set(_WORDS.findall(data)) for r in by_name[word]])
            mentioned: dict[bytes, bool] = {}   # module token -> in this file (many removals share one)
            names = set()
            through: list[_Removal] = []        # named here, but the file does not spell their module
            reached: frozenset[str] = frozenset()
            chained: set[str] = set()   # their files whose member it reads after a call's result (`).put`)
            for r in candidates:
                token = tokens[r.path]
                if token not in mentioned:
                    mentioned[token] = token in data
                if spelled[id(r)] not in data or (id(r) in homes and r.path != path and homes[id(r)] not in data):
                    continue
                if r.path == path or mentioned[token] or (wide[r.path] and directories[r.path] == here):
                    names.add(r.definition.name)
                else:
                    through.append(r)
            if not names and not through:
                continue
            added = _added_lines(versions.base or b"", data)
            if not added:
                continue
            text = lines_text(data, added)
            through = [r for r in through if spelled[id(r)] in text]
            if through:   # imported through a file that re-exports it (`from "../internal"`)
                reached = self.reexports.reached(path, {r.definition.name.encode() for r in through})
                # or imported from it by a path that does not spell its module token: an index
                # file's token is its folder's name, which `from '../index.js'` or `from '..'` need
                # not spell (Chart.js drive: a re-export dropped from src/index.ts went unseen)
                direct = self.imported_files(path) if any(r.path not in reached for r in through) else frozenset()
                chained = {r.path for r in through if _called_on_a_result(r, text)}
                names.update(r.definition.name for r in through if r.path in reached or r.path in direct
                             or r.path in chained)
            words_used = {spelled[id(r)] for r in candidates if r.definition.name in names}
            if not any(word in text for word in words_used):
                continue   # cheap: no added line even mentions a removed name
            # A use resolves only to its own file, a file of its package (Go), a file one of its
            # imports names (`targets`) or one a re-export leads that import to: with no removal in
            # any of those, nothing here can break, and the merged file's uses are never extracted.
            # (The re-exports are read last, and only for names the file spelled its way to: `utils`
            # spells the token of util.rs, yet reaches it only through the crate root's `pub use`.)
            if path not in removed_paths and here not in wide_directories \
                    and not (typed_directories and _typed_package(path) in typed_directories) \
                    and not reached & removed_paths and not chained \
                    and not self.imported_files(path) & removed_paths \
                    and not (names and self.reexports.reached(path, _reached_by(names, candidates)) & removed_paths):
                continue
            merged_lines = _follow(data, versions.merged, added)
            merged = self.symbols(path, "merged")
            if merged is None:
                continue
            reported: set[str] = set()
            defaults = {semantic_profile(r.path).semantic.default_export for r in candidates  # type: ignore[union-attr]
                        if r.definition.container == EXPORTS and r.definition.name in names}
            # A module's default export is used through the name its import binds (`import X from`).
            bound = names | {item.bound for item in merged.imports
                             if (item.name in defaults if item.name else defaults & names)}
            uses = [(reference, self._targets_or_sole(path, reference, merged, candidates)) for reference in merged.references
                    if reference.line in merged_lines and reference.name in bound]
            for reference, targets in uses + list(self._imports_as_uses(path, merged, merged_lines, names)):
                if reference.kind == "import" and reference.name in reported and not self.every_use:
                    continue   # the file's calls of it are reported already: its import is one more line to fix
                gone = [by_key[key] for target in targets if (key := _removal_key(target)) in by_key]
                if any(_removal_key(target) not in by_key and self.answered_in_merged(target, gone)
                       and self.seen_in_merged(target, path, reference) for target in targets):
                    continue   # another file the use may mean defines it (a package moved: Go's vendor/)
                for target in targets:
                    removal = by_key.get(_removal_key(target))
                    starred = target[1] == STARRED
                    seen_as = reference
                    if removal is not None and target[1] == EXTENDED:
                        if not extension(removal.path, self.files[removal.path].base or b"", removal.definition):
                            continue   # (`x.parse()` calls no top-level `parse` that is no extension)
                        seen_as = dataclasses.replace(reference, receiver=None)   # (the receiver is a value)
                    if removal is not None and removal.path != path and self.file_local(removal):
                        continue   # C's `static`: its own file's name, whatever another file calls so
                    if removal is not None and removal.path != path and not self.namespace_sees(
                            removal.path, "base", removal.definition, path, seen_as):
                        continue   # C#: a name of a namespace the use neither stands in, imports nor spells
                    if removal is not None and self.broken(removal, used_side, starred):
                        if attribute_guards.guarded(versions.merged, reference.line, reference.receiver, reference.name,
                                                    semantic_profile(path).semantic.attribute_guards):  # type: ignore[union-attr]
                            break   # read only where `hasattr(x, "n")` said it stands
                        reported.add(reference.name)
                        yield self.finding(removal, path, reference, used_side, starred)
                        break

    def _targets_or_sole(self, path: str, reference: Reference, merged: Symbols,
                         removals: list[_Removal]) -> list[tuple[str, tuple[str, ...], str]]:
        """`targets`; where it has nothing to say of a member called on a receiver of unknown class,
        and the check read every file spelling the name (`whole_words`), the one class defining it
        (sole_members.py)."""
        found = list(self.targets(path, reference, merged))
        if not found and self.reads_every_speller and reference.receiver is not None and sole_members.applies(path):
            found = sole_members.sole_member_targets(self, path, reference, merged, removals)
        return found

    @property
    def reads_every_speller(self) -> bool:
        """Whether every file of the tree spelling a removed name is known: held (`whole_words`, the
        look's), or found when asked (`spelled`, a tree merge's)."""
        return self.whole_words or self.spelled is not None

    def _imports_as_uses(self, path: str, merged: Symbols, lines: set[int] | frozenset[int],
                         names: set[str]) -> Iterator[tuple[Reference, list[tuple[str, tuple[str, ...], str]]]]:
        """The imports of a removed name on the given lines, each as a use with the definitions it
        may mean. An import of a name its module no longer has is broken by itself (Rust E0432,
        Python's ImportError, TypeScript 2305), called or not: a re-export (`pub use
        tracing_core::dispatcher::has_been_set;`, `export { hasProp } from "./utils"`) is often all
        a file does with it; one inside a function (`const { Portal } = require('./portal')`, Python's
        `from .m import x` in a body) breaks when the function runs, and counts the same. Only where modules are files the profile can find (`module_files`:
        Python, TypeScript, JavaScript, Rust); a name imported from a package (Java, Go) is not a
        module's top-level name."""
        profile = semantic_profile(path)
        if profile is None or not profile.semantic.module_files:
            return
        for item in merged.imports:
            if item.name is None or item.line not in lines or item.name not in names:
                continue
            defaulted = item.name == profile.semantic.default_export
            if defaulted and self.whole_default(item.module, path, profile.semantic):
                continue   # `import X from` a CommonJS module: its exports object, which it always has
            # (a default import is named by the name it binds: the module's `default` is spelled nowhere)
            named = item.bound if defaulted else item.name
            reference = Reference(named, "import", None, (), frozenset(), item.line, "")
            yield reference, list(self.imported_from(item.module, item.name, path, profile.semantic))

    def _after_separator(self, path: str, reference: Reference, separator: str) -> bool:
        """Whether the merged `path` spells the module separator right before `reference`'s name
        (`my_cli::parse_size`, not the method call `lines.count()` on a value it cannot place)."""
        data = self.files[path].merged or b""
        start = reference.start_byte
        return start >= len(separator) and data[:start].rstrip().endswith(separator.encode())

    def defines(self, path: str, symbols: Symbols, definition: Definition, which: str) -> bool:
        """`_defines`, where a star import is taken to bind only what its module lets it take
        (reexports.star_may_pass: a `__all__` that leaves the name out, a `_name`); `symbols` is
        `path`'s version `which`."""
        if not definition.container and _answers(path, symbols, definition.name, self.files[path].version(which)):
            return True   # its module's `__getattr__` answers the name (profile `any_name`)
        if not _defines(symbols, definition):
            return False
        base = self.files[path].base
        if package_key(path) == LINKED and base is not None and body_lost(base, definition, self.files[path].version(which), symbols):
            return False   # its body renamed under the file's own prototype (trust-left12's note)
        # (an export, `export {formatNumber} from`, is a top-level name a star re-export may pass too)
        if symbols.binds(definition.container, definition.name) or definition.container not in ((), EXPORTS) \
                or not symbols.wildcard or self.reexports is None:
            return True
        return self.reexports.star_may_pass(path, symbols, definition.name)

    def package_may_define(self, removal: _Removal) -> bool:
        """Whether the side that removed a PHP definition requires a Composer package its base did
        not (composer_requires.py): the name may have moved there, whole (Slim's Http classes to
        slim/http). Only where names are imported one by one and the tree can be read."""
        profile = semantic_profile(removal.path)
        if self._tree_file is None or profile is None or not namespaces.by_name(profile):
            return False
        key = (removal.side, posixpath.dirname(removal.path))
        if key not in self._new_packages:
            from ..ecosystems.composer_requires import requires_new_package

            self._new_packages[key] = requires_new_package(self._tree_file, removal.side, removal.path)
        return self._new_packages[key]

    def answered_in_merged(self, target: tuple[str, tuple[str, ...], str], removals: list[_Removal]) -> bool:
        """`defined_in_merged`, where in the linked package (C) a file holding only prototypes of a
        function answers no use of one of `removals` that had a body (linked.answers): a header's
        `int f(void);` left behind links no call of f."""
        defined = self.defined_in_merged(target)
        if not defined or not removals or package_key(target[0]) != LINKED:
            return defined
        found = self.symbols(target[0], "merged", uses=False)
        # The target's own place, not the removal's: a nested class moved to its package's top level
        # (Kotlin: okhttp d86233eb4547's DnsMessageReader.DnsMessage made DnsMessage.kt's) answers a bare use.
        container = () if target[1] == EXTENDED else target[1]
        return found is not None and all(answers(found, self.files[target[0]].merged, Definition(
            removal.definition.name, removal.definition.kind, container, *removal.definition[3:]),
            self.files[removal.path].base) for removal in removals)

    def seen_in_merged(self, target: tuple[str, tuple[str, ...], str], path: str, reference: Reference) -> bool:
        """Whether the use `reference` of the merged `path` may mean a definition of the target's name
        the merged `target` file holds: always, but where a file sees only the namespaces it stands
        in or imports (separate_namespaces: C#, PHP, Kotlin): a `Serializer` of another namespace (or a
        `serialize` of another package) answers no use of the removed one the use sees."""
        other, container, name = _removal_key(target)
        if other == path or target[1] == STARRED or not separate_namespaces(other):
            return True
        found = self.symbols(other, "merged", uses=False)
        seen_as = dataclasses.replace(reference, receiver=None) if target[1] == EXTENDED else reference
        return found is None or any(self.namespace_sees(other, "merged", d, path, seen_as)
                                    for d in found.definitions if d.container == container and d.name == name)

    def defined_in_merged(self, target: tuple[str, tuple[str, ...], str]) -> bool:
        path, container, name = target
        versions = self.files.get(path)
        if versions is None or not versions.exists("merged") or name.encode() not in versions.merged:  # type: ignore[operator]
            return False   # (a file that does not spell the name binds none: not parsed for it)
        found = self.symbols(path, "merged", uses=False)
        if container == EXTENDED:
            container = ()   # (any top-level definition of the name answers: an extension of another type)
        if container == STARRED:
            return found is not None and found.binds((), name) and self.reexports.star_takes(path, name, "merged")
        return found is not None and found.binds(container, name)

    def star_lost(self, path: str, side: str, base: Symbols, live: frozenset[bytes]) -> set[str]:
        """The top-level names `path` defines at the base and on `side` alike that a star import of
        it took at the base and no longer takes on `side` (dropped from its `__all__`, or an
        `__all__` written that leaves them out: profile `star_names`, `star_hidden`), among `live`.
        Found driving wtc on httpx: `QueryParams` renamed in _urls.py and kept as an alias outside
        its `__all__`; the package's `from ._urls import *` no longer took it, and `import httpx` failed."""
        profile = semantic_profile(path)
        versions = self.files[path]
        if profile is None or not (profile.semantic.star_names or profile.semantic.star_hidden) \
                or not versions.exists(side):
            return set()
        after = self.symbols(path, side, uses=False)
        if after is None:
            return set()
        # An imported name counts: a star import of the file takes it as well (`from ._b import B`
        # passed on by listing "B" in `__all__`), and dropping it from the list loses it the same way.
        names = {d.name for d in base.definitions if not d.container
                 and d.name.encode() in live and after.binds((), d.name)}
        return {name for name in names if self.reexports.star_takes(path, name, "base")
                and not self.reexports.star_takes(path, name, side)}

    def targets(self, path: str, reference: Reference, merged: Symbols) -> Iterator[tuple[str, tuple[str, ...], str]]:
        """The definitions (path, container, name) the use may mean; nothing when unsure."""
        profile = semantic_profile(path)
        assert profile is not None
        rules = profile.semantic
        name, receiver = reference.name, reference.receiver
        form = _receiver_form(receiver, rules) if receiver is not None and rules.receiver_forms else None
        if form is not None:
            kind, spelled = form
            if kind == "name":   # `s!.putItem()`, `(s).putItem()`: the local s
                yield from self.targets(path, dataclasses.replace(reference, receiver=spelled), merged)
            elif not reference.scopes & merged.local.get(spelled, set()):   # `(s as Store).putItem()`
                yield from self.class_member_targets(path, reference, merged, rules, spelled)
            return
        if receiver in rules.export_receivers and not reference.scopes & merged.local.get(receiver.split(".", 1)[0], set()):
            yield (path, EXPORTS, name)   # `exports.normalizeType(...)` in its own file: the file's export
            return
        if receiver is None:
            imported = _visible_import(merged, name, reference)
            if imported is not None and imported.scope is None and reference.scopes & merged.local.get(name, set()):
                return   # a local of the same name, in a function around the use, hides the module's import
            if imported is not None:
                if imported.name is not None and imported.name == rules.default_export \
                        and reference.kind not in _CALLED and self.whole_default(imported.module, path, rules):
                    return   # a CommonJS module's exports object, read for its members: it has one whatever it assigns
                if imported.name is not None:
                    yield from self.imported_from(imported.module, imported.name, path, rules)
                elif rules.default_export and reference.kind in _CALLED:
                    # A module imported whole and called or constructed (`const parse = require('./m');
                    # parse()`): what it calls is the module's value, its default export.
                    yield from self.imported_from(imported.module, rules.default_export, path, rules)
                return
            if reference.scopes & merged.local.get(name, set()) or name in rules.globals:
                return
            if rules.members_in_scope and reference.container:
                for depth in range(len(reference.container), 0, -1):
                    container = reference.container[:depth]
                    if merged.binds(container, name):
                        return
                    if container in merged.heritage and reference.kind != "class":
                        return   # an inherited field or method may answer it
                    # A type (`new InvocationsPrinter()`) is not looked for in the bases: an
                    # inherited member type of that name would have hidden the import anyway, so
                    # an import one side removed and the other side's new `new X()` still needs is
                    # a broken name (mockito's DefaultMockingDetails implements MockingDetails;
                    # the merged file did not compile; found driving wtc on mockito).
                    yield (path, container, name)
                    if rules.namespaces:
                        # C#: a partial class's other parts, in other files, define members too
                        for other in self.package_files(path):
                            yield (other, container, name)
            if merged.binds((), name) and not (rules.package == "linked" and declared_only(self.files[path].merged, merged, name)):
                return   # (C: a file's own prototype of a function declares the linked package's, defines none)
            if merged.wildcard:
                # A glob import (`use crate::lines::*;`, `from .util import *`) then `locate(3)`: where
                # every glob's module is a file of the tree, the name comes from one of them, and the
                # file's re-export chains (reexports.py, as for a barrel) say which; a module the tree
                # does not hold (`std::io::prelude::*`) or one a file no side changed defines it in
                # may answer it, and nothing is said (found driving wtc on ripgrep).
                if rules.module_files and merged.star_modules \
                        and all(self.reexports.locate(module, path, rules) for module in merged.star_modules):
                    starred: set[tuple[str, str]] = set()
                    yield from ((origin, STARRED if (origin, original) in starred else (), original)
                                for origin, original in self.reexports.origins(path, name, starred) or ()
                                if origin != path)
                elif not rules.module_files and len(merged.star_modules) == 1 \
                        and not merged.binds((), name) and not reference.scopes & merged.local.get(name, set()):
                    # A package's names made bare (Go's `import . "example.com/m/util"`): no re-export
                    # passes them on, so a bare name is the package's where it defines it. (Two such
                    # imports: which one answers is not known, and nothing is said.)
                    yield from self.imported_from(merged.star_modules[0], name, path, rules)
                return
            yield (path, (), name)
            if rules.package in ("directory", "linked"):
                for other in self.package_files(path):
                    yield (other, (), name)
            elif rules.package_types:
                # Java: a class of the same package is used bare, unimported (`new LineWrapper(...)`):
                # its file, the package's file named for it. A class deleted, renamed or moved to
                # another package left every such use behind (found driving wtc on javapoet).
                for other in self.package_class_files(path, name, rules):
                    yield (other, (), name)
        elif receiver in rules.self_receivers or receiver in reference.selves:
            if reference.container:
                yield (path, reference.container, name)
                owner = reference.container[-1]
                if len(reference.container) == 1 and _visible_import(merged, owner, reference) is not None:
                    # The member of a type another module defines, whose impl this file holds (`use
                    # crate::color::Color; impl Color { ... Self::Green ... }`): the type's, as `Color::Green`.
                    yield from self.targets(path, dataclasses.replace(reference, receiver=owner), merged)
        elif rules.package == "linked" and not namespaces.by_name(profile) and self._after_separator(path, reference, "::"):
            # (C++'s `Store::Make()`; PHP's `Store::make()` is a class's member, found below as C#'s)
            yield from self.qualified_targets(path, reference)
        else:
            if rules.extension and name not in rules.all_members and not self.member_named(path, name):
                # Kotlin: `value.quoted()` on a value of a type the check does not know may call a
                # top-level extension function of any file of the package (one the removal's text
                # says is an extension: linked.extension), where no class of the merged files has
                # a member of that name (a member wins over an extension).
                for other in [path] + self.package_files(path):
                    yield (other, EXTENDED, name)
            separator = rules.module_separator
            rooted = reference.kind == "call" and receiver in rules.module_roots   # `crate::f(x)`
            if separator != "." and (separator in receiver or rooted) and _visible_import(merged, receiver, reference) is None:
                # (a receiver an import binds whole is that import, though it spells the
                # separator: `require('./m').x()`, the javascript profile's inline require)
                # A path through modules (`crate::routing::util::parse()`, `util::parse()` where
                # `util` is a module the file declares or imports, `my_core::parse()` through the
                # crate root's `pub use`): resolved when it starts at a module root, at a name the
                # file binds to a module, or (crate_paths.py) at a crate of the tree;
                # `std::mem::take()` names no file of the tree and is left alone.
                module = _path_module(receiver, rules, merged, reference)
                if module is None:
                    return
                yield from self.imported_from(module, name, path, rules)
                return
            if rules.members_in_scope and reference.container \
                    and not reference.scopes & merged.local.get(receiver, set()):
                # Java: a type nested in a class around the use is named bare there (`Kind.INTERFACE`
                # in TypeSpec, which nests the enum Kind; in its sibling Builder too), and hides any
                # class of that name another file holds: the member is the nested type's (found
                # driving wtc on javapoet: a constant renamed left TypeSpec's own `Kind.INTERFACE`).
                for depth in range(len(reference.container), 0, -1):
                    nested = reference.container[:depth] + (receiver,)
                    if nested in merged.bound and merged.binds(reference.container[:depth], receiver):
                        yield (path, nested, name)
                        return
            # A module-level local of evident class (`store = ErrorStore()` at a file's top: Python
            # reads it as a top-level "constant") is no type of the file: only a class or type of
            # that name is, and `store.put()` is then followed to the local's class (typed_local_targets).
            typed_top = None in merged.local_types.get(receiver, {})
            own_type = (receiver,) in merged.bound or any(
                d.name == receiver and not d.container and (not typed_top or d.kind in CONTAINER_KINDS)
                for d in merged.definitions)
            if own_type:
                yield (path, (receiver,), name)
            imported = _visible_import(merged, receiver, reference)
            head = _LEADING_NAME.match(receiver)
            if imported is not None and imported.scope is None and head is not None \
                    and reference.scopes & merged.local.get(head.group(), set()):
                return   # a parameter or local of the receiver's name (`function V(P) { P.Portal }`) hides the import
            if imported is None and separator == "." and separator in receiver and rules.module_files:
                # A submodule read through its package's import (`import click`, then
                # `click.utils.make_str(x)`: the package's `from .utils import ...` made `utils` its
                # attribute): the name is the submodule's, as with `import click.utils`. Found driving
                # wtc on click: a rename left tests/test_utils' `click.utils._make_default_short_help`.
                module = _submodule_of_import(receiver, merged, reference)
                if module is not None:
                    yield from self.imported_from(module, name, path, rules)
                    return
            if imported is None and separator != "." and "." in receiver and rules.module_files:
                # A module a barrel passes on whole, read through the barrel bound whole (`import *
                # as lib from './lib'`, lib/index.ts's `export * as sub from './sub'`, then
                # `lib.sub.parse()`) or by name (`import {ns} from './lib'; ns.sub.parse()`): the
                # member is the last module's (trust-left12's note: a rename of parse passed).
                head, *rest = (part.strip() for part in receiver.split("."))
                through = _visible_import(merged, head, reference)
                if through is not None and not reference.scopes & merged.local.get(head, set()):
                    for binder, module in self.reexports.modules_through(
                            through.module, path, ([through.name] if through.name else []) + rest):
                        yield from self.imported_from(module, name, binder, rules)
                    return
            if imported is None and rules.namespaces and receiver.split(".", 1)[0] != (
                    spelled := namespaces.unaliased(self.namespace_facts(path, "merged"), receiver)).split(".", 1)[0] \
                    and not reference.scopes & merged.local.get(receiver.split(".", 1)[0], set()):
                # C#: `X.F()` after `using X = N.T;` is `N.T.F()` (trust-left12's note)
                yield from self.targets(path, dataclasses.replace(reference, receiver=spelled), merged)
                return
            if imported is None and rules.namespaces and _QUALIFIED.fullmatch(receiver) \
                    and not reference.scopes & merged.local.get(receiver.split(".", 1)[0], set()) \
                    and not any(merged.binds(reference.container[:depth], receiver.split(".", 1)[0])
                                for depth in range(len(reference.container), 0, -1)) \
                    and not (any(reference.container[:depth] in merged.heritage for depth in range(1, len(reference.container) + 1))
                             and self.member_named(path, receiver.split(".", 1)[0])):
                # C#: `T.m()`, `N.T.m()`: a member of a type T of any file of the compilation;
                # `N.T`: a type (or namespace) of namespace N. Which of them the use sees is the
                # namespaces' to say (namespace_sees). A receiver its class or a local binds is
                # that value, not a type, and so may be a member of that name another file defines,
                # where the class has bases or other parts (`PropertyNameTable.Get()` in
                # JsonTextReader.Async.cs, the property JsonTextReader.cs defines: Newtonsoft.Json
                # 2d5eba55 renamed the class PropertyNameTable). (A type of the file's own is one of
                # them, its other parts in other files too: a partial class.)
                parts = tuple(part for part in _PARTS.split(receiver) if part)   # (PHP's `\N\T` too)
                for other in [path] + self.package_files(path):
                    # (`Outer.Inner.F()`: a member of the type Inner nested in Outer, trust-left12's note)
                    for depth in range(1, len(parts) + 1):
                        yield (other, parts[-depth:], name)
                    yield (other, (), name)
                return
            if imported is None:
                if rules.package_roots and not own_type and _LEADING_NAME.fullmatch(receiver) \
                        and not reference.scopes & merged.local.get(receiver, set()) and not merged.binds((), receiver) \
                        and self._after_separator(path, reference, separator):
                    # A crate's name alone (`grep_cli::parse_size()`, no `use`): in scope everywhere
                    # in Rust 2018; crate_paths.py finds its root where the tree holds it (found driving
                    # wtc on ripgrep), and a type or module of no crate of the tree leads nowhere.
                    yield from self.imported_from(receiver, name, path, rules)
                    return
                if rules.qualified_names and not own_type and separator in receiver \
                        and re.fullmatch(rules.qualified_names, receiver) and not reference.scopes & merged.local.get(
                            receiver.split(separator, 1)[0], set()):
                    # A class spelled by its package (Java's `com.x.util.Util.f(1)`, no import: the
                    # profile's `qualified_names`, which the extraction read into spelled_modules):
                    # the member is the class's, as after `import com.x.util.Util;`.
                    owner = receiver.rsplit(separator, 1)[1]
                    for target in self.import_files(receiver, path, rules):
                        yield (target, (owner,), name)
                if rules.package_types and not own_type and not reference.scopes & merged.local.get(receiver, set()):
                    # Java: a class of the same package needs no import (mockito's StringUtilTest
                    # calls StringUtil.decamelizeMatcherName; a rename in StringUtil.java left them).
                    for other in self.package_class_files(path, receiver, rules):
                        yield (other, (receiver,), name)
                if not own_type and merged.local_types:
                    yield from self.typed_local_targets(path, reference, merged, rules)
                constructed = _constructed(receiver, rules)
                if constructed is not None and not reference.scopes & merged.local.get(constructed.split(".", 1)[0], set()):
                    # The instance a receiver constructs (`Text(x).with_indent_guides()`, `new Store().put(3)`):
                    # its class's member, as for a local bound to it (found driving wtc on Textualize/rich).
                    yield from self.class_member_targets(path, reference, merged, rules, constructed)
                if rules.package_types and not own_type:
                    # Java: a class's static member (`TypeName.INT.box()`), by its declared type
                    yield from static_member_targets(self, path, reference, merged, rules)
                return
            if imported.name is None:   # a module: `util.parse()`
                # (not of a module whose exports no pattern lists, `module.exports = makeApi()`: its
                # members are the value's, not the file's definitions)
                yield from (target for target in self.imported_from(imported.module, name, path, rules)
                            if not self.exports_unlisted(target[0]))
                return
            # A name from a module: a module itself (`from pkg import util`), or a class of the
            # module's file (`from pkg.mod import Cls`; Java's `import com.x.Util`).
            separator = rules.module_separator
            for target in self.import_files(imported.module.rstrip(separator) + separator + imported.name, path, rules):
                yield (target, (), name)
                yield (target, (imported.name,), name)
            for target in self.import_files(imported.module, path, rules):
                yield (target, (imported.name,), name)
            if rules.module_files:
                # A module a barrel binds whole and passes on (`import * as LineUtil from
                # './LineUtil.js'; export {LineUtil}`, the package's own name leading there):
                # the member is that module's.
                for target in self.reexports.locate(imported.module, path, rules):
                    for binder, module in self.reexports.whole_modules(target, imported.name):
                        yield from self.imported_from(module, name, binder, rules)

    def qualified_targets(self, path: str, reference: Reference) -> Iterator[tuple[str, tuple[str, ...], str]]:
        """What a C++ qualified name (`Store::Make()`, `kv::Hash()`, `a::b::f()`, `Box<int>::make()`,
        `Color::Red`) may mean, in the linked package: the static member of a class of its last
        qualifier's name (its template arguments aside), in any file; a function of a namespace of
        that path, in a file that opens each of its parts in turn (`namespace a { namespace b {`,
        `namespace a::b {`): a namespace holds no names of its own, its functions are top-level
        ones (`std::move` leads to no file of the tree that opens `namespace std`; `c::b::f()` to
        none that opens only `a::b`); an enumerator of an enum of that name, in a file that declares
        it (`enum class Color { Red }`: its constants are top-level names to the query)."""
        qualifiers = self._qualifier_path(path, reference)
        if not qualifiers:
            return   # (a qualifier the check cannot read: `decltype(x)::f()`)
        qualifier = qualifiers[-1]
        opens = re.compile(rb"\bnamespace\s+" + rb"(?:\s*(?:::|\{[^{}]*?\bnamespace)\s*)".join(
            re.escape(part.encode()) for part in qualifiers) + rb"\s*\{") if len(qualifiers) > 1 else \
            re.compile(rb"\bnamespace\s+(?:\w+\s*::\s*)*" + re.escape(qualifier.encode()) + rb"\s*\{")
        enum = re.compile(rb"\benum\s+(?:class\s+|struct\s+)?" + re.escape(qualifier.encode()) + rb"\s*(?::[^{;]*)?\{")
        for file in [path] + self.package_files(path):
            yield (file, (qualifier,), reference.name)
            versions = self.files[file]
            if any(opens.search(data) or enum.search(data) for data in (versions.merged, versions.base) if data is not None):
                yield (file, (), reference.name)

    def _qualifier_path(self, path: str, reference: Reference) -> tuple[str, ...]:
        """The qualifiers spelled before a C++ qualified name, outermost first, template arguments
        aside (`('a', 'b')` of `::a::b::f()`, `('Box',)` of `Box<int>::make()`); () where one is
        no plain name."""
        data = self.files[path].merged or b""
        found = _QUALIFIERS.search(data, max(0, reference.start_byte - 512), reference.start_byte)
        if found is None:
            return ()
        return tuple(part.decode() for part in re.findall(rb"([A-Za-z_]\w*)\s*(?:<[^<>;{}()]*>)?\s*::", found.group()))

    def typed_local_targets(self, path: str, reference: Reference, merged: Symbols,
                            rules: SemanticRules) -> Iterator[tuple[str, tuple[str, ...], str]]:
        """The methods a call on a local whose type the file spells may mean (`c.CommandPath()`
        after `c *cobra.Command`, profile `@typed.*`): the type's members, in each file of the merge
        its package holds. Only where sure: the receiver is bound in one scope around the use (or
        at top level, and then in no function), every binding there spells the one type, that type is the repository's (an
        import of a package of the tree, or the file's own package) and a file of the merge declares
        it, embedding no type (a method of an embedded type is promoted: it may answer the call)."""
        receiver, name = reference.receiver or "", reference.name
        # `this.store` is a field's binding of its own (symbols._fields_in_methods) when the class declares one.
        named = _LOCAL_NAME.fullmatch(receiver.split(".", 1)[1] if receiver.split(".", 1)[0] in rules.self_receivers
                                      and "." in receiver else receiver)
        if not named or receiver not in merged.local_types or name in rules.all_members:
            return   # (a member every class has, Java's `toString`: answered whatever the class declares)
        scopes = reference.scopes & merged.local.get(receiver, set())
        if len(scopes) > 1 or (not scopes and not merged.binds((), receiver)):
            return   # bound in two functions around the use (a closure's own), or not in this file
        if not scopes and receiver in merged.local:
            # A module-level local a function binds too may be rebound by it (`global store` then
            # `store = other()`; JavaScript's `x = other` in a function assigns the module's `x`):
            # its class is then not sure wherever the call stands.
            return
        typed = merged.local_types[receiver].get(next(iter(scopes)) if scopes else None)
        if not typed:
            return
        yield from self.class_member_targets(path, reference, merged, rules, typed)

    def class_member_targets(self, path: str, reference: Reference, merged: Symbols, rules: SemanticRules,
                             typed: str) -> Iterator[tuple[str, tuple[str, ...], str]]:
        """The member `reference.name` of the class `typed` as `path` spells it (a typed local's, or the
        class a receiver constructs, `Text(x)`, `new Store()`), in each file of the merge declaring it:
        only where sure (see typed_local_targets); C#'s extension methods of it too (extension_targets)."""
        name = reference.name
        if rules.namespaces and not namespaces.by_name(semantic_profile(path)):   # type: ignore[arg-type]
            # C#'s `using X = N.T;`, Kotlin's `import N.T as X`: a local typed X is a T, which the
            # namespaces then say is the one of N (namespace_sees)
            facts = self.namespace_facts(path, "merged")
            whole = namespaces.unaliased(facts, typed)
            typed = whole.rsplit(".", 1)[-1] if whole != typed else typed
        qualifier, _, type_name = typed.rpartition(".")
        if rules.namespaces:
            yield from self.extension_targets(path, type_name, name)
        if qualifier and rules.package_types:
            # Java: `CodeBlock.Builder`, a class nested in another (declared_types.py)
            yield from nested_type_targets(self, path, reference, merged, rules, typed)
            return
        classes_only = False   # an imported name may be a factory function: only a class is a type
        if qualifier:
            imported = _visible_import(merged, qualifier, reference)
            if imported is None or imported.name is not None:
                return
            # The repository's own package by its whole path, where a manifest names a module's
            # (go.mod's `module`): `github.com/spf13/cobra` is no folder `cobra` of a repository
            # whose module is another, though the imports' suffix match would take it for one.
            files = (self.through_modules(imported.module, path, rules) or []) \
                if rules.root_module else self.import_files(imported.module, path, rules)
        else:
            files = [path] + (self.package_files(path) if rules.package in ("directory", "linked") else [])
            imported = _visible_import(merged, type_name, reference)
            if imported is not None and imported.name is not None and rules.package_types:
                # Java: `import p.Store;` names Store.java itself (a class, never a function).
                separator = rules.module_separator
                files = self.import_files(imported.module.rstrip(separator) + separator + imported.name, path, rules)
            elif imported is None and rules.package_types:
                # Java: a class of the file's own package needs no import: Store.java beside it.
                files = [path] + self.package_class_files(path, type_name, rules)
            elif imported is not None and imported.name is not None:
                # A class the file imports by name (`from pkg.errors import ErrorStore`, then
                # `store = ErrorStore()`): the module's file declares it, under its own name. Found on
                # marshmallow: `ErrorStore.store_error` renamed, schema.py's `error_store.store_error(...)`.
                files, type_name, classes_only = self.import_files(imported.module, path, rules), imported.name, True
        declared = False
        for other in files:
            for which in ("base", "merged"):
                found = self.symbols(other, which, uses=False) if self.files[other].exists(which) else None
                if found is None:
                    continue
                if (type_name,) in found.heritage:
                    if rules.package == "linked" and which == "merged":
                        # C++: a member the derived class does not declare is its one base's
                        # (`Derived d; d.Put()`, Put of Store), where the head names one base alone
                        yield from self.base_member_targets(path, other, found, type_name, name)
                    return   # it embeds a type: a method it lost may be promoted from that one
                declared = declared or (which == "merged" and any(
                    d.name == type_name and not d.container and d.kind != "import"
                    and (d.kind == "class" or not classes_only) for d in found.definitions))
        if declared:
            yield from ((other, (type_name,), name) for other in files)

    def extension_targets(self, path: str, type_name: str, name: str) -> Iterator[tuple[str, tuple[str, ...], str]]:
        """C#: the extension methods `name` of the class `type_name` (`static int Twice(this Store
        s)` of `s.Twice()`, where `Store s`), of the files of the merge whose base declares one: a
        method of their static class. None where a merged file still declares such an extension (it
        moved) or the class a method of that name (an instance method hides every extension)."""
        extension = re.compile(rb"\b" + re.escape(name.encode()) + rb"\s*(?:<[^>]*>\s*)?\(\s*this\s+(?:[\w.]+\.)?"
                               + re.escape(type_name.encode()) + rb"(?![\w.])")
        files = [path] + self.package_files(path)
        declaring = [other for other in files if extension.search(self.files[other].base or b"")]
        if not declaring or any(extension.search(self.files[other].merged or b"") for other in files):
            return
        for other in files:
            found = self.symbols(other, "merged", uses=False) if self.files[other].exists("merged") else None
            if found is not None and found.binds((type_name,), name):
                return
        for other in declaring:
            found = self.symbols(other, "base", uses=False)
            for definition in found.definitions if found is not None else ():
                if definition.name == name and len(definition.container) == 1 and definition.kind == "method":
                    yield (other, definition.container, name)

    def base_member_targets(self, path: str, declaring: str, found: Symbols, derived: str,
                            name: str) -> Iterator[tuple[str, tuple[str, ...], str]]:
        """The member `name` of the one base class the C++ class `derived` (of `declaring`'s merged
        version, read as `found`) names in its head (`class Cached : public Store {`), in every file
        of the linked package, where `derived` declares no member of that name itself; nothing for
        two bases or a template's. A base that has bases of its own stays unknown (broken's
        heritage test)."""
        if found.binds((derived,), name):
            return
        head = re.search(rb"\b(?:class|struct)\s+(?:[A-Z_][A-Z0-9_]*\s+)?" + re.escape(derived.encode())
                         + rb"\s*(?:final\s*)?:\s*(?:(?:public|protected|private|virtual)\s+)*"
                         rb"((?:\w+\s*::\s*)*\w+)\s*\{", self.files[declaring].merged or b"")
        if head is None:
            return
        base = head.group(1).rsplit(b"::", 1)[-1].strip().decode()
        for other in [path] + self.package_files(path):
            yield (other, (base,), name)

    def module_path(self, path: str) -> str:
        """The module `path` is, as a path (`_module_path`)."""
        return _file_module(path)

    def module_token(self, path: str) -> bytes:
        """The last part of the module `path` is (`util` of pkg/util.py, `pkg` of pkg/__init__.py,
        the directory of a Go file): an import of it names it."""
        return _module_token(path)

    def import_token(self, path: str) -> bytes:
        """The word an import of `path`'s module spells: its module token (`module_token`), but for
        the root folder of a module whose import path is read from a manifest (go.mod's `module
        example.com/helpers` in tools/), the last part of that path (`helpers`), which an importer's
        text holds where the folder's name (`tools`) it need not."""
        token = self.module_token(path)
        profile = semantic_profile(path)
        rules = profile.semantic if profile is not None else None
        if rules is None or not rules.root_module or self._tree_file is None:
            return token
        folder = posixpath.dirname(path)
        if self._nearest(folder, rules.manifest) != folder:
            return token
        name = self._module_name(folder, rules)
        return name.rsplit(rules.module_separator, 1)[-1].encode() if name else token

    def package_wide(self, path: str) -> bool:
        return _package_wide(path)

    def package_files(self, path: str) -> list[str]:
        if self._directories is None:   # once: a big merge asks for thousands of packages
            self._directories = {}
            for p, _ in self.in_order():
                key = package_key(p)
                if key is not None:
                    self._directories.setdefault(key, []).append(p)
        key = package_key(path)
        return [p for p in self._directories.get(key, ()) if p != path] if key is not None else []

    def typed_package_files(self, path: str) -> list[str]:
        """The merge's other files of `path`'s package where a class needs no import (Java): its
        directory, or the same folder below another source set (src/main/java and src/test/java)."""
        if self._typed_packages is None:   # once: asked for every `Math.max()` of every Java file
            self._typed_packages = {}
            for p, _ in self.in_order():
                package = _typed_package(p)
                if package is not None:
                    self._typed_packages.setdefault(package, []).append(p)
        return [p for p in self._typed_packages.get(_typed_package(path), ()) if p != path]  # type: ignore[arg-type]

    def tree_class_files(self, path: str, name: str, rules: SemanticRules) -> list[str]:
        """The file of `path`'s package named for the class `name` (Java: `Store.java` beside it, or in
        the package's folder below another source set) that the merge does not hold and the tree does:
        a class a receiver names whose file no side changed (declared_types.py reads its declared types)."""
        if self._tree_file is None or not rules.specifier_files:
            return []
        folder, file_name = posixpath.dirname(path), rules.specifier_files[0].format(name)
        folders = [folder]
        found = re.search(rules.source_sets, folder) if rules.source_sets else None
        if found is not None:
            lead = folder[:found.start()] + ("/" if found.group().startswith("/") else "")
            folders += [lead + source + folder[found.end():] for source in rules.source_folders]
        return [candidate for candidate in dict.fromkeys(posixpath.join(f, file_name) for f in folders)
                if candidate not in self.files and self.tree_symbols(candidate) is not None]

    def tree_import_files(self, path: str, module: str, rules: SemanticRules) -> list[str]:
        """The file of the class a Java import names (`p.Store` of `import p.Store;`) that the merge
        does not hold and the tree does, below the source root `path` stands in (its folder less its
        own `package q;`): a class another package's file reaches by import, which no side changed."""
        if self._tree_file is None or not rules.specifier_files:
            return []
        declared = JAVA_PACKAGE.search(self.files[path].merged or b"")
        folder = posixpath.dirname(path)
        own = declared.group(1).decode("utf-8", "replace").replace(".", "/").replace(" ", "") if declared else ""
        if own and not (folder == own or folder.endswith("/" + own)):
            return []
        root = folder[:len(folder) - len(own)] if own else folder + "/"
        parts = module.split(rules.module_separator)
        candidate = root + "/".join(parts[:-1] + [rules.specifier_files[0].format(parts[-1])])
        return [candidate] if candidate not in self.files and self.tree_symbols(candidate) is not None else []

    def tree_symbols(self, path: str) -> Symbols | None:
        """The definitions of a file of the tree the merge does not hold (read as the manifests are),
        once; None where it is absent, too big or does not parse cleanly."""
        if path not in self._tree_symbols:
            data = self._tree_file(self.manifests, path) if self._tree_file is not None else None
            profile = semantic_profile(path)
            found = None
            if data is not None and profile is not None and len(data) <= MAX_BYTES:
                try:
                    found = extract(profile, data)   # (the declared types are read with the uses)
                except (ValueError, UnicodeDecodeError):
                    found = None
            self._tree_symbols[path] = found
        return self._tree_symbols[path]

    def version_symbols(self, path: str) -> Symbols | None:
        """The merged symbols of `path` with its members' declared types (Symbols.member_types, read
        with the uses): the merge's version, else the tree's (tree_symbols)."""
        if path in self.files:
            return self.symbols(path, "merged") if self.files[path].exists("merged") else None
        return self.tree_symbols(path)

    def package_class_files(self, path: str, name: str, rules: SemanticRules) -> list[str]:
        """The file of `path`'s package named for the class `name` (Java: `Name.java`, in any of the
        package's source sets), which a file of the package uses with no import."""
        return [other for other in self.typed_package_files(path) if posixpath.basename(_module_path(other, rules)) == name]

    def imported_from(self, module: str, name: str, importer: str,
                      rules: SemanticRules) -> Iterator[tuple[str, tuple[str, ...], str]]:
        """The definitions (path, (), name there) `name`, imported from `module` in `importer`, may
        mean: the module's file of the merge, or where its re-exports lead (reexports.py)."""
        if not rules.module_files:
            for target in self.resolve(module, importer, rules):
                yield (target, (), name)
                owner = module.rsplit(rules.module_separator, 1)[-1]
                if rules.member_imports and posixpath.basename(_module_path(target, rules)) == owner:
                    # Java's `import static org.mockito.internal.util.Checks.checkItemsNotNull;`
                    # names a member of the class its file is named for (mockito: a task removed
                    # Checks.checkItemsNotNull, MockInjection.java still imported it, nothing said so).
                    yield (target, (owner,), name)
            return
        located = self.reexports.locate(module, importer, rules)
        for target in located:
            # Where a re-export leads first: a finding names the definition's file, not the
            # `pub use` / `export {}` line that passed it on.
            starred: set[tuple[str, str]] = set()
            for origin, original in sorted(self.reexports.origins(target, name, starred) or (),
                                           key=lambda o: o[0] == target):
                yield (origin, EXPORTS if self.exports_listed(origin) or self._default_kept_file(origin, original, rules)
                       else STARRED if (origin, original) in starred else (), original)
        separator = rules.module_separator
        if not located and separator in module.strip(separator):
            # A path through a module to a type's member (`color::Config::LIMIT`, `use
            # color::Color::{self, Red}`): no file is the module `color::Config`, so the member is
            # that of the type the module `color` defines or passes on (where its re-exports lead).
            parent, _, owner = module.rstrip(separator).rpartition(separator)
            for target in self.reexports.locate(parent, importer, rules):
                for origin, original in self.reexports.origins(target, owner) or ():
                    yield (origin, (original,), name)

    def whole_default(self, module: str, importer: str, rules: SemanticRules) -> bool:
        """Whether a default import of `module` in `importer` is the merged module's exports object
        whole (its profile's `whole_default`: CommonJS), which stands whatever the module assigns."""
        for target in self.import_files(module, importer, rules):
            profile = semantic_profile(target)
            pattern = profile.semantic.whole_default if profile is not None else ""
            versions = self.files.get(target)
            data = (versions.merged if versions.exists("merged") else None) if versions is not None else self.tree_bytes(target)
            if pattern and data is not None and _compiled(pattern).search(data) is not None:
                return True
        return False

    def _default_kept_file(self, path: str, name: str, rules: SemanticRules) -> bool:
        """Whether `name` is the default export (an export only: no definition bears its name) of a
        file the merged tree keeps. (A file deleted whole is its importers' module to name, by its
        path: check/left_modules.py.)"""
        versions = self.files.get(path)
        return bool(rules.default_export) and name == rules.default_export \
            and versions is not None and versions.exists("merged")

    def exports_unlisted(self, path: str) -> bool:
        """Whether the merged `path` exports names no pattern lists (symbols.exports_open)."""
        versions = self.files.get(path)
        merged = self.symbols(path, "merged", uses=False) if versions is not None and versions.exists("merged") else None
        return merged is not None and exports_open(merged)

    def exports_listed(self, path: str) -> bool:
        """Whether an import from `path` means a name it exports rather than any it defines: its
        language imports exports only (profile `@export.*` captures), and its merged version lists
        them (or its base did and the merged file exports nothing). A file whose exports no pattern
        lists (`module.exports = f()`), or that never exported anything, answers by its definitions."""
        versions = self.files.get(path)
        merged = self.symbols(path, "merged", uses=False) if versions is not None and versions.exists("merged") else None
        if merged is None or exports_open(merged):
            return False
        if exports_closed(merged):
            return True
        base = self.symbols(path, "base", uses=False) if versions.exists("base") else None
        return base is not None and exports_closed(base)

    def import_files(self, module: str, importer: str, rules: SemanticRules) -> list[str]:
        """The files an import of `module` in `importer` names, as `targets` and `imported_files`
        both read it: a crate's path (`use tracing_core::dispatcher;`) exactly, from the crate it
        starts at (crate_paths.py through reexports.locate); any other module by `resolve`."""
        if rules.package_roots:
            return self.reexports.locate(module, importer, rules)
        return self.resolve(module, importer, rules)

    def resolve(self, module: str, importer: str, rules: SemanticRules) -> list[str]:
        """The files of this merge that `module`, imported from `importer`, names (none if unsure).
        Answered once per (module, the importer's folder, rules) and check: the answer reads no more
        of the importer than its folder, and a merge whose files import asks it for every import
        of every user reach.py pairs (`import os`, `from .base import f` in each of a tip's files:
        2,100 questions a merge of bench_merge --imports, a few hundred of them distinct)."""
        key = (module, posixpath.dirname(importer), rules)
        found = self._resolved.get(key)
        if found is None:
            found = self._resolved[key] = tuple(self._resolve(module, importer, rules))
        return list(found)

    def files_at(self, key: tuple[str, str], rules: SemanticRules) -> tuple[str, ...]:
        """The files of this merge at a key of its module index by `rules`, in the files' order:
        ("path", m) those whose module path is m, ("last", t) those whose module path ends in the
        part t. What an import's answer depends on (reexports._lead_keys)."""
        found = self._named.get((key, rules))
        if found is None:
            by_path, by_last = self._module_index(rules)
            found = tuple(by_path.get(key[1], ())) if key[0] == "path" \
                else tuple(path for path, _ in by_last.get(key[1], ()))
            self._named[(key, rules)] = found
        return found

    def _resolve(self, module: str, importer: str, rules: SemanticRules) -> list[str]:
        relative, up, parts = _module_parts(module, rules)
        by_path, by_last = self._module_index(rules)
        if relative:
            directory = posixpath.dirname(importer)
            for _ in range(up):
                directory = posixpath.dirname(directory)
            wanted = posixpath.normpath(posixpath.join(directory, *parts)) if parts else directory
            if wanted not in by_path and parts and parts[-1] in rules.index_names:
                # `./index` spelled out: the folder's index file, which is keyed by its folder.
                return [p for p in by_path.get(posixpath.dirname(wanted), ())
                        if posixpath.basename(p).rsplit(".", 1)[0] == parts[-1]]
            return list(by_path.get(wanted, ()))
        if not parts:
            return []
        if rules.root_module:
            through = self.through_modules(module, importer, rules)
            if through is not None:
                return through
            if self._tree_file is None and len(self.files) == 1:
                # A one-file check (`wtc merge-file`, a git merge driver) reads no manifest: which
                # module the importer is, so which folder the path names, is unknown, and the only
                # file the path could name is the importer itself, which no Go file imports (by its
                # last part an external test package's `import "example.com/m/foo"` would be its own
                # foo/foo_test.go). Nothing is said rather than a wrong answer.
                return []
        best: list[str] = []
        longest = 0
        for candidate, own in by_last.get(parts[-1], ()):   # a file whose last part differs shares none
            common = 0
            while common < min(len(own), len(parts)) and own[-1 - common] == parts[-1 - common]:
                common += 1
            if common < min(len(own), len(parts)) or common == 0:
                continue
            if common > longest:
                best, longest = [candidate], common
            elif common == longest:
                best.append(candidate)
        if len(best) > 1 and rules.package != "directory" \
                and len({_module_path(candidate, rules) for candidate in best}) > 1:
            # Two modules could be meant: do not guess. (Files of one module path are one module
            # in two forms, pkg/fast.py and pkg/fast/__init__.py, one of them replacing the other:
            # a use means whichever defines the name, and the check reads both.)
            return []
        return _without_stubs(best, rules) if len(best) > 1 else best

    def through_modules(self, module: str, importer: str, rules: SemanticRules) -> list[str] | None:
        """The files of the merge in the folder that `module`, imported from `importer`, names through
        a module's import path (the profile's `root_module` over a `manifest`): the module whose path
        is the longest that `module` starts with, among those `importer` builds against (modules());
        a path below it names the folder below, if that folder's nearest manifest is still that
        module's (else the folder is another module's). None when no manifest above `importer` can
        be read (no tree: a one-file check), where the caller matches the path by its last parts.
        Found driving wtc on caddy (Go): `import "github.com/caddyserver/caddy/v2"` names the root
        folder's package; and `import "github.com/spf13/cobra"` is no local folder `cobra/` of a
        module named otherwise (its removed `cobra.F` was taken for one the importer used)."""
        modules = self.modules(posixpath.dirname(importer), rules)
        if modules is None:
            return None
        separator = rules.module_separator
        best: tuple[str, str] | None = None
        for path, folder in modules:
            if (module == path or module.startswith(path + separator)) and (best is None or len(path) > len(best[0])):
                best = (path, folder)
        if best is None:
            return []   # a published module's package: no file of this repository
        target = _joined(best[1], module[len(best[0]):].strip(separator))
        if target is None or self._nearest(target, rules.manifest) != best[1]:
            return []
        return list(self._module_index(rules)[0].get(target, ()))

    def modules(self, folder: str, rules: SemanticRules) -> tuple[tuple[str, str], ...] | None:
        """(import path, folder) of each module a file in `folder` builds against from this
        repository: its own (the `manifest` nearest above), the local folders that manifest's
        `module_replaces` name, and the modules the nearest `workspace` file above uses (and
        replaces). None when no manifest stands above `folder` (or none can be read)."""
        key = (folder, rules.root_module)
        if key in self._modules_of:
            return self._modules_of[key]
        found: tuple[tuple[str, str], ...] | None = None
        own = self._nearest(folder, rules.manifest) if self._tree_file is not None else None
        if own is not None:
            out: dict[str, str] = {}
            manifests = [own]
            workspace = self._nearest(folder, rules.workspace) if rules.workspace else None
            if workspace is not None:
                text = self._tree_text(_joined(workspace, rules.workspace) or rules.workspace)
                for line in re.finditer(rules.workspace_modules, text, re.M):
                    member = _joined(workspace, line.group(1))
                    if member is not None and member not in manifests:
                        manifests.append(member)
            for manifest in manifests:
                path = self._module_name(manifest, rules)
                if path:
                    out.setdefault(path, manifest)
            for where, name in [(own, rules.manifest)] + ([(workspace, rules.workspace)] if workspace is not None else []):
                if rules.module_replaces:
                    for line in re.finditer(rules.module_replaces, self._tree_text(_joined(where, name) or name), re.M):
                        local = _joined(where, line.group(2))
                        if local is not None:
                            out[line.group(1)] = local
            found = tuple(out.items())
        self._modules_of[key] = found
        return found

    def _module_name(self, folder: str, rules: SemanticRules) -> str:
        """The import path the manifest in `folder` declares (its `root_module` group), or ""."""
        found = re.search(rules.root_module, self._tree_text(_joined(folder, rules.manifest) or rules.manifest), re.M)
        return found.group(1) if found else ""

    def _nearest(self, folder: str, name: str) -> str | None:
        """The folder at or above `folder` holding a file `name` in the base tree, or None."""
        while True:
            if self._tree_text(_joined(folder, name) or name, None) is not None:
                return folder
            if not folder:
                return None
            folder = posixpath.dirname(folder)

    def tree_bytes(self, path: str) -> bytes | None:
        """A file of the tree the merge does not hold, as `tree_symbols` reads it (None where absent)."""
        return self._tree_file(self.manifests, path) if self._tree_file is not None else None

    def _tree_text(self, path: str, absent: Any = "") -> Any:
        """A manifest of the `manifests` tree (the base's, unless the caller says) as text (`absent`
        where it is not there, or no tree is read)."""
        if path not in self._tree_texts:
            data = self._tree_file(self.manifests, path) if self._tree_file is not None else None
            self._tree_texts[path] = None if data is None else data.decode("utf-8", "replace")
        found = self._tree_texts[path]
        return absent if found is None else found

    def _module_index(self, rules: SemanticRules) -> tuple[Any, Any]:
        """(module path -> files, last part -> (file, parts)) of this merge's files, in their order.
        A tip's merge lists every file the run changed: the tip's index is kept (`tip_modules`,
        module_index.py) and this merge's own files laid over it, not a pass over them all."""
        index = self._modules.get(id(rules))
        if index is None:
            facts = functools.partial(module_fact, rules=rules)
            if self.tip_modules is not None:
                index = self.tip_modules(rules, facts).overlay(self.loose, self.files.__contains__, facts)
            else:
                # in the files' order, so resolve() answers as a scan would
                found = ModuleTables.build(self.files, facts)
                index = (found.by_path, found.by_last)
            self._modules[id(rules)] = index
        return index

    def _gives(self, symbols: Symbols, removal: _Removal, side: str, starred: bool) -> bool:
        """Whether the removal's file on `side` (read as `symbols`) still gives a use its definition:
        it defines it, and for a use through a star import (`starred`) its star still takes it."""
        return self.defines(removal.path, symbols, removal.definition, side) and (
            not starred or self.reexports.star_takes(removal.path, removal.definition.name, side))

    def broken(self, removal: _Removal, used_side: str, starred: bool = False) -> bool:
        """Is the removed definition still wanted by the using side and missing from the merge?
        `starred`: the use reaches it only through a star import (STARRED), so a definition the
        merged file keeps but its star no longer takes is missing too."""
        definition = removal.definition
        kept = self.symbols(removal.path, used_side) if self.files[removal.path].version(used_side) else None
        if kept is None or not self._gives(kept, removal, used_side, starred):
            return False   # the using side removed it too, or its star did not take it (or cannot be read): not the merge's doing
        merged = self.symbols(removal.path, "merged") if self.files[removal.path].merged is not None else Symbols()
        if merged is None or self._gives(merged, removal, "merged", starred):
            return False
        base = self.symbols(removal.path, "base", uses=False)
        rules = semantic_profile(removal.path).semantic   # type: ignore[union-attr]
        if rules.package_types and self.converted(removal):
            return False   # (Java: the class stands in a Kotlin file of its package now, converted)
        if definition.kind == "namespace" and rules.namespaces and self.complete:
            # (C#: every file of a namespace declares it, and a merge holds only the files its sides
            # changed: one that dropped the declaration says nothing of the others. The left-behind
            # look, which finds them, tells: check/left_namespaces.py.)
            return False
        if self.package_may_define(removal):
            return False
        if definition.kind == "field" and fields.answered(self, removal.path, definition.container, definition.name):
            return False   # a field some other way may still bind (`__slots__`, setattr, `obj.x = `, `__getattr__`)
        own_kind = definition.kind in rules.own_kinds
        if definition.container and not own_kind and any(definition.container in s.heritage for s in (merged, base, kept) if s) \
                and not (self.reads_every_speller and sole_members.applies(removal.path)
                         and sole_members.sole_definer(self, removal.path, definition.container, definition.name)):
            return False   # (unless no base can give it back: sole_members.py)
        if self.package_wide(removal.path) and definition.kind != "import":   # imports are the file's own
            linked = is_linked(package_key(removal.path))
            if linked and not definition.container and qualified_body(self.files[removal.path].merged or b"", definition.name):
                return False   # (C++: `int kv::f() {` written for `int f() {` in kv's block: still defined)
            if not self.complete and not linked:
                # One file of the package is seen (a git merge driver): the name may have moved to
                # another. Where the caller reads them, they say; where not, nothing can, and the
                # use stands reported (never a clean merge nobody checked).
                return not self.defined_outside(removal.path, definition)
            for other in self.package_files(removal.path):
                # (C: a header declared it at the base as well as the file defining it; only one
                # still standing in the merged tree answers a use)
                for which in ("merged",) if linked else ("base", "merged"):
                    data = self.files[other].version(which)
                    if data is None or definition.name.encode() not in data:
                        continue   # (a file that does not spell the name defines none: not parsed for it)
                    found = self.symbols(other, which, uses=False)
                    if found is not None and (answers(found, self.files[other].version(which), definition,
                                                      self.files[removal.path].base) if linked
                                              else found.binds(definition.container, definition.name)) \
                            and self.same_namespace(removal, other, which, found):
                        return False   # defined in another file of the package (moved, or a build variant)
            if linked and not self.complete:
                # (C: the merge's files are those that spell the name, the left-behind look's; a
                # caller's reader of more, a git merge driver's, may know one more definition)
                return not self.defined_outside(removal.path, definition, self.files[removal.path].base)
        return True

    def member_named(self, path: str, name: str) -> bool:
        """Whether a class of a merged file of `path`'s package binds `name` as a member, read only
        in the files that spell the name (C#: a receiver of that name, in a class with bases or parts
        elsewhere, may be that member; Kotlin: `x.name()` may call it, whatever extension of that
        name the package has)."""
        if name not in self._members_named:
            word = re.compile(rb"(?<![\w$])" + re.escape(name.encode()) + rb"(?![\w$])")
            self._members_named[name] = any(
                found is not None and any(container and name in names for container, names in found.bound.items())
                for other in [path] + self.package_files(path)
                if self.files[other].exists("merged") and word.search(self.files[other].merged or b"")
                for found in (self.symbols(other, "merged", uses=False),))
        return self._members_named[name]

    def namespace_facts(self, path: str, which: str) -> namespaces.NamespaceFacts:
        """The namespaces of `path`'s version `which` and those it imports (namespaces.py), once."""
        key = (path, which)
        if key not in self._namespaces:
            profile = semantic_profile(path)
            data = self.files[path].version(which)
            tree = self.tree(path, which) if data is not None else None
            self._namespaces[key] = namespaces.facts(profile, tree, data) \
                if profile is not None and tree is not None and data is not None else namespaces.NamespaceFacts()
        return self._namespaces[key]

    def global_usings(self) -> frozenset[str]:
        """The namespaces a `global using` of any merged file imports for every file."""
        if self._global_usings is None:
            self._global_usings = frozenset(
                name for path, versions in self.in_order() if versions.exists("merged")
                and (profile := semantic_profile(path)) is not None and profile.semantic.namespaces
                for name in self.namespace_facts(path, "merged").global_usings)
        return self._global_usings

    def converted(self, removal: _Removal) -> bool:
        """Whether the class a removal of a file whose package is its folder (Java) is, or is a member
        of, is declared at the top of a merged file of a language reached by whole packages (Kotlin)
        in that package: the class converted to Kotlin (okhttp's `Convert X to Kotlin` commits, X.java
        deleted, X.kt added), which its Java users reach as before, its properties through getters."""
        definition = removal.definition
        owner = definition.container[0] if definition.container else definition.name
        rules = semantic_profile(removal.path).semantic   # type: ignore[union-attr]
        folder = posixpath.dirname(removal.path)
        found_set = re.search(rules.source_sets, folder) if rules.source_sets else None
        package = folder[found_set.end():].strip("/").replace("/", ".") if found_set is not None else None
        if package is None:
            return False   # (a folder no source set names: its package is not known from its path)
        if (package, owner) not in self._converted:
            self._converted[(package, owner)] = any(
                whole_packages(path) and versions.merged is not None
                and declares_type(path, versions.merged, package, owner)
                for path, versions in self.in_order())
        return self._converted[(package, owner)]

    def home(self, path: str, which: str, definition: Definition) -> str:
        """The namespace `definition` (of `path`'s version `which`) stands in (namespaces.defined_in)."""
        return namespaces.defined_in(self.namespace_facts(path, which), self.files[path].version(which) or b"",
                                     definition.start_byte, definition.end_byte, definition.kind)

    def namespace_sees(self, defining: str, which: str, definition: Definition, path: str, reference: Reference) -> bool:
        """Whether the use `reference` in the merged `path` sees `definition` (of `defining`'s
        version `which`) through the namespaces (profile `namespaces`: C#, PHP, Kotlin): always where
        the language has none. PHP's `use` clauses are name_imports.py's to read; the others' are
        namespaces.sees'."""
        profile = semantic_profile(defining)
        if profile is None or not profile.semantic.namespaces or semantic_profile(path) is not profile:
            return True
        home = self.home(defining, which, definition)
        member_of = definition.container[0] if definition.container else None
        if namespaces.by_name(profile):
            # PHP: the name spelled at the use means one whole name, by the file's `use` clauses
            # and namespace (name_imports.py); a local's class is the one its bindings spell.
            use = self.namespace_facts(path, "merged")
            receiver = reference.receiver
            if receiver is not None and receiver.startswith("$"):
                receiver = self.typed_receiver(path, reference) or "$"
            return name_imports.means(home, definition.kind, definition.name, member_of, use.imported,
                                      self.files[path].merged or b"", reference.start_byte, receiver,
                                      namespaces.enclosing(use, reference.start_byte))
        qualifier = reference.receiver
        if qualifier is not None:
            # (`new N.T()` spells the type N.T; `X` of `using X = N.T;` spells N.T, and so does a
            # local's type: `X x = new X(); x.F()`)
            typed = self.typed_receiver(path, reference) if _LOCAL_NAME.fullmatch(qualifier) else None
            qualifier = namespaces.unaliased(self.namespace_facts(path, "merged"),
                                             typed or _constructed(qualifier, profile.semantic) or qualifier)
        if definition.container and qualifier is not None:
            # What the use spells before the member's type (`N` of `N.Outer.Inner.F()`, a member of Inner)
            parts = qualifier.split(".")
            size = len(definition.container) if tuple(parts[-len(definition.container):]) == definition.container else 1
            qualifier = ".".join(parts[:-size]) or None
        return namespaces.sees(home, definition.kind, definition.name, member_of, self.namespace_facts(path, "merged"),
                               reference.start_byte, qualifier, self.global_usings())

    def same_namespace(self, removal: _Removal, other: str, which: str, found: Symbols) -> bool:
        """Whether `other`'s version `which` (read as `found`) defines the removed definition in the
        namespace it stood in, where a file sees only the namespaces it stands in or imports
        (separate_namespaces: a class `Serializer` of another PHP namespace answers no use of
        `App\\Core\\Serializer`, a C# one of Acme.Legacy none of Acme.Core's, a Kotlin `serialize` of
        another package none of the renamed one); always elsewhere. PHP's names compare
        case-insensitively, a `define()`d constant is global."""
        if not separate_namespaces(removal.path):
            return True
        definition = removal.definition
        fold = str.lower if namespaces.by_name(semantic_profile(removal.path)) else str   # type: ignore[arg-type]
        home = fold(self.home(removal.path, "base", definition))
        return any(d.container == definition.container and d.name == definition.name and (
            definition.kind == "define" == d.kind or fold(self.home(other, which, d)) == home)
            for d in found.definitions)

    def typed_receiver(self, path: str, reference: Reference) -> str | None:
        """The class a local receiver's bindings all spell where `reference` stands (typed_local_targets'
        rule: PHP's `Serializer $s`, then `$s->encode()`), None where not sure."""
        merged = self.symbols(path, "merged")
        receiver = reference.receiver or ""
        if merged is None or receiver not in merged.local_types:
            return None
        scopes = reference.scopes & merged.local.get(receiver, set())
        if len(scopes) != 1:
            return None
        return merged.local_types[receiver].get(next(iter(scopes))) or None

    def file_local(self, removal: _Removal) -> bool:
        """Whether the removed definition is its file's alone (profile `file_local`: C's `static`)."""
        base = self.files[removal.path].base
        return base is not None and file_local(removal.path, base, removal.definition)

    def defined_outside(self, path: str, definition: Definition, base: bytes | None = None) -> bool:
        """Whether another file of `path`'s package, read through `package_reader` (any version
        given: ours' or theirs'), defines `definition`; False when they cannot be read. With `base`
        (the linked package: `path`'s version that held it), a body is answered by a body, not a
        prototype (linked.answers)."""
        if path not in self._outside:
            listed = self.package_reader(path) if self.package_reader is not None else None
            profile = semantic_profile(path)
            self._outside[path] = None if listed is None else [
                (extract(profile, data, uses=False), data) for other, data in listed
                if other != path and semantic_profile(other) is profile]
        found = self._outside[path]
        return found is not None and any(answers(symbols, data, definition, base) if base is not None
                                         else symbols.binds(definition.container, definition.name)
                                         for symbols, data in found)

    def merged_line(self, path: str, line: int) -> str:
        """Line `line` of the merged `path`, stripped: the use a finding shows ("" past its end)."""
        lines = (self.files[path].merged or b"").split(b"\n")
        return lines[line - 1].decode("utf-8", "replace").strip() if line <= len(lines) else ""

    def finding(self, removal: _Removal, use_path: str, reference: Reference, used_side: str,
                starred: bool = False) -> SemanticFinding:
        definition = removal.definition
        base = self.files[removal.path].base or b""
        text = base[definition.start_byte:definition.end_byte].decode("utf-8", "replace").splitlines()
        excerpt = "\n".join(text[:_EXCERPT_LINES]) + ("\n..." if len(text) > _EXCERPT_LINES else "")
        use = self.merged_line(use_path, reference.line)
        if definition.container != EXPORTS:
            name = member_name(removal.path, definition.container, definition.name)
        else:   # an export: as the use names it (a default export, by the name its import binds)
            name = definition.name if use_word(removal.path, EXPORTS, definition.name) == definition.name else reference.name
        replacement = self.replacement(removal)
        return SemanticFinding(
            name=name, kind=self._kind(removal),
            definition_path=removal.path, definition_line=definition.line, use_path=use_path,
            use_line=reference.line, removed_by=self.labels[removal.side], used_by=self.labels[used_side],
            declaration=reference.declaration, definition=excerpt, use=use,
            replacement="" if replacement == name else replacement,
            star_list=self.star_list_kept(removal) if starred else "")

    def star_list_kept(self, removal: _Removal) -> str:
        """The name of the list a star import takes (profile `star_list`: `__all__`) where the
        removing side's version of the definition's file writes one: a use reaching the name through
        a star import needs it listed there too ("" where it writes none)."""
        profile = semantic_profile(removal.path)
        if profile is None or not profile.semantic.star_list:
            return ""
        return profile.semantic.star_list if self.reexports.star_list(removal.path, removal.side) else ""

    def _kind(self, removal: _Removal) -> str:
        """What a finding says was removed: an export whose definition the side removed too (a rename,
        a deletion) is that definition's kind; "export" only when the file still defines the name."""
        definition = removal.definition
        if not definition.container and removal.side != "merged" and self.files[removal.path].exists(removal.side):
            after = self.symbols(removal.path, removal.side, uses=False)
            if after is not None and after.binds((), definition.name) and not (
                    package_key(removal.path) == LINKED and body_lost(self.files[removal.path].base or b"", definition,
                                                                      self.files[removal.path].version(removal.side), after)):
                return "export"   # still defined there: its star import no longer takes it (star_lost)
        if definition.container != EXPORTS:
            return definition.kind
        base = self.symbols(removal.path, "base", uses=False)
        after = self.symbols(removal.path, removal.side, uses=False) if self.files[removal.path].exists(removal.side) else None
        own = [d for d in base.definitions if not d.container and d.name == definition.name] if base else []
        if own and (after is None or not after.binds((), definition.name)):
            return own[0].kind
        return definition.kind

    def replacement(self, removal: _Removal) -> str:
        """The name a removed definition was likely renamed to: the removing side's version of the
        file holds exactly one definition of the same kind in the same container that the base did
        not (several, or none: nothing is guessed)."""
        definition = removal.definition
        after = self.symbols(removal.path, removal.side, uses=False) if self.files[removal.path].exists(removal.side) else None
        before = self.symbols(removal.path, "base", uses=False)
        if after is None or before is None:
            return ""
        old = {(d.container, d.name) for d in before.definitions}
        new = {d.name for d in after.definitions
               if d.kind == definition.kind and d.container == definition.container and (d.container, d.name) not in old}
        if len(new) != 1:
            return ""
        return new.pop() if definition.container == EXPORTS else member_name(removal.path, definition.container, new.pop())


def _path_module(receiver: str, rules: SemanticRules, merged: Symbols, reference: Reference) -> str | None:
    """The module a path receiver names (`crate::routing::util` of `crate::routing::util::parse()`;
    through the file's import of its first part, `util::parse()`; the whole path where crates are
    known, `my_core::util`), or None when it starts at neither a module root nor a name the file
    imports."""
    separator = rules.module_separator
    head, _, rest = receiver.partition(separator)
    if head in rules.module_roots:
        return receiver
    through = _visible_import(merged, head, reference)
    if through is None:
        # A crate's name (`tracing_core::dispatcher`), read exactly by crate_paths.py where the
        # profile knows where crates stand; else unknown.
        return receiver if rules.package_roots else None
    return separator.join(p for p in (through.module, through.name, rest) if p)


def _submodule_of_import(receiver: str, merged: Symbols, reference: Reference) -> str | None:
    """The module a dotted receiver names below a module the file imports whole at its top
    (`click.utils` of `click.utils.f()` after `import click`; `pkg.sub.inner` after
    `from pkg import sub`), by its longest such prefix; None when no prefix is one."""
    parts = receiver.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        through = _visible_import(merged, ".".join(parts[:cut]), reference)
        if through is not None:
            if through.scope is None and reference.scopes & merged.local.get(parts[0], set()):
                return None   # a parameter or local of the package's name hides the import
            return ".".join(p for p in (through.module, through.name, *parts[cut:]) if p)
    return None


# Reference kinds (the tags' `@reference.<kind>`) that call or construct what they name.
_CALLED = frozenset({"call", "class"})


@functools.lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[bytes]:
    """A profile's regex, compiled once (for bytes)."""
    return re.compile(pattern.encode())


def _reached_by(names: set[str], removals: list[_Removal]) -> set[bytes]:
    """The words a re-export may pass `names` on by: the names, and for a class's member its class (found
    driving wtc on tj/commander.js: tests/help.padWidth.test.js reached lib/help.js's Help through index.js's
    `export { Help }` and `new commander.Help()`, and a rename of `Help.padWidth` was not looked for there)."""
    words = {name.encode() for name in names}
    words.update(r.definition.container[0].encode() for r in removals
                 if r.definition.name in names and r.definition.container and r.definition.container != EXPORTS)
    return words


def _receiver_form(receiver: str, rules: SemanticRules) -> tuple[str, str] | None:
    """("name", the local) or ("type", the class) a receiver spells by one of the profile's
    `receiver_forms` (TypeScript's `s!`, `(s as Store)`), else None."""
    for form in rules.receiver_forms:
        match = re.fullmatch(form, receiver)
        if match is not None:
            kind = "name" if "name" in match.groupdict() else "type"
            return kind, match.group(kind)
    return None


def _constructed(receiver: str, rules: SemanticRules) -> str | None:
    """The class a receiver constructs whole (profile `constructs`: `Text(x)`, `new Store()`), else None: the
    call's parentheses must close at the receiver's end (`Text(x).strip()` constructs nothing: a method's result)."""
    if not rules.constructs or not receiver.endswith(")"):
        return None
    match = re.match(rules.constructs, receiver)
    if match is None:
        return None
    depth = 0
    for index in range(match.end() - 1, len(receiver)):
        char = receiver[index]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return match.group(1) if index == len(receiver) - 1 else None
    return None


def _called_on_a_result(removal: _Removal, text: bytes) -> bool:
    """Whether `text` (a file's added lines) reads the removed member through a call's result or a
    field (`Store.open(k).put(v)`, `s.entry().put(v)`, `h.entry.put(v)`), in a language whose classes need no import in
    their package (Java: profile package_types): the declared return type leads to the member's
    class (declared_types.py), which the file need not spell."""
    profile = semantic_profile(removal.path)
    return bool(removal.definition.container) and profile is not None and profile.semantic.package_types \
        and re.search(CHAIN_HEAD + re.escape(removal.definition.name.encode()) + rb"\b", text) is not None


def use_word(path: str, container: tuple[str, ...], name: str) -> str:
    """The word a use of the definition (`container`, `name`) of `path` spells in another file: its
    name, or for the module's default export (profile default_export), which an import binds to a
    name of its own (`import X from "./m"`), the last part of the module it names (`m`)."""
    profile = semantic_profile(path)
    if container == EXPORTS and profile is not None and name == profile.semantic.default_export:
        return _module_token(path).decode("utf-8", "surrogateescape")
    return name


@functools.lru_cache(maxsize=65536)
def _unspelled(path: str) -> frozenset[bytes]:
    """The names a definition of `path` may have that its uses never spell (use_word)."""
    profile = semantic_profile(path)
    return frozenset({profile.semantic.default_export.encode()}) if profile and profile.semantic.default_export \
        else frozenset()


@functools.lru_cache(maxsize=65536)
def _default_spellings(path: str) -> frozenset[bytes]:
    """The words that, on a line of `path`, may spell its default export (profile default_words,
    and the default's own name): such a line changed may have taken it away."""
    names = _unspelled(path)
    profile = semantic_profile(path)
    return names | frozenset(word.encode() for word in profile.semantic.default_words) if names and profile else names


@functools.lru_cache(maxsize=65536)
def _star_list_word(path: str) -> bytes:
    """The name of the list a star import of `path` takes (profile `star_list`: `__all__`), b"" for none."""
    profile = semantic_profile(path)
    return profile.semantic.star_list.encode() if profile is not None and profile.semantic.star_names else b""


def _spelled(path: str, text_words: frozenset[bytes]) -> frozenset[bytes]:
    """`text_words` (of lines of `path`) with the default export's name where they spell it."""
    return text_words | _unspelled(path) if text_words & _default_spellings(path) else text_words


def _file_module(path: str) -> str:
    profile = semantic_profile(path)
    assert profile is not None
    return _module_path(path, profile.semantic)


@functools.lru_cache(maxsize=65536)   # asked for every file of every merge of a drain
def _module_token(path: str) -> bytes:
    return posixpath.basename(_file_module(path)).encode()


def _package_key(directory: str, source_sets: str) -> str:
    """A directory as its package: the source set's folder (`src/test/java`) made one for all sets."""
    return re.sub(source_sets, "<source set>", directory, count=1) if source_sets else directory


@functools.lru_cache(maxsize=65536)   # asked for every file of a merge, and again per drain
def declares_type(path: str, data: bytes, namespace: str, name: str) -> bool:
    """Whether a version `data` of `path` (a language reached by namespaces) declares a top-level
    type (class, object, interface, enum) `name` in `namespace`: a class a Java file held converted
    to Kotlin, which its Java users reach by the same package and name."""
    profile = semantic_profile(path)
    if profile is None or name.encode() not in data:
        return False
    tree = profile.parse(data)
    found = extract(profile, data, tree, uses=False)
    spans = namespaces.facts(profile, tree, data)
    return any(d.name == name and not d.container and d.kind in CONTAINER_KINDS
               and namespaces.defined_in(spans, data, d.start_byte, d.end_byte, d.kind) == namespace
               for d in found.definitions)


def separate_namespaces(path: str) -> bool:
    """Whether `path`'s language reaches names by namespace (profile `namespaces`: C#, PHP, Kotlin):
    a file sees only the namespaces it stands in or imports, so a definition of the same name in
    another namespace answers no use that does not see it (C#'s `using N;` and Kotlin's `import p.*`
    whole, PHP's `use` clauses and Kotlin's imports name by name)."""
    profile = semantic_profile(path)
    return profile is not None and bool(profile.semantic.namespaces)


def whole_packages(path: str) -> bool:
    """Whether `path`'s language reaches names by packages that do not nest (Kotlin: profile
    `namespaces` with `namespaces_nest = false`), each spelled whole where it is seen."""
    profile = semantic_profile(path)
    return profile is not None and bool(profile.semantic.namespaces) and not profile.semantic.namespaces_nest


def _typed_package(path: str) -> str | None:
    """The package of a file whose language sees its package's classes unimported (Java), else None."""
    profile = semantic_profile(path)
    if profile is None or not profile.semantic.package_types:
        return None
    return _package_key(posixpath.dirname(path), profile.semantic.source_sets)


def _package_wide(path: str) -> bool:
    profile = semantic_profile(path)
    return profile is not None and profile.semantic.package in ("directory", "linked")


def _barrels(path: str) -> bool:
    """Whether `path`'s language re-exports names (profile module_files)."""
    return bool(semantic_profile(path).semantic.module_files)   # type: ignore[union-attr]


# (path, its merged blob id, rules) -> (((a key of its imports' modules, the merge's files at it), ...),
# imported_files' answer): see imported_files. Dropped whole past 65,536.
_IMPORTED: dict[tuple, tuple] = {}
# (path, merged blob id, rules) -> the module-index keys its imports answer from (_Check._import_keys).
_IMPORT_KEYS: dict[tuple, frozenset] = {}


def import_keys(symbols: Symbols | None, path: str, rules: SemanticRules) -> frozenset[tuple[str, str]]:
    """The keys of a merge's module index (`_Check.files_at`) that what `path`'s imports (`symbols`:
    its imports, None: it imports nothing readable) name is answered from: every module it
    imports, each imported name as a module, its star modules (reexports._lead_keys). Pure in the
    path, the imports and the rules; the tip's tables keep them per file (tip_index.py)."""
    from .reexports import _lead_keys

    modules = [] if symbols is None else [item.module for item in symbols.imports] + [
        item.module.rstrip(rules.module_separator) + rules.module_separator + item.name
        for item in symbols.imports if item.name is not None] + list(symbols.star_modules) + list(symbols.spelled_modules)
    folder = posixpath.dirname(path)
    return frozenset(key for module in modules for key in _lead_keys(module, folder, rules) or ())


def kept_import_keys(symbols: Symbols | None, path: str, blob: bytes, rules: SemanticRules) -> frozenset[tuple[str, str]]:
    """import_keys of `path`'s version `blob` (`symbols`: its imports, as the check reads them by
    the blob), kept by (path, blob, rules): a task's new file has them computed by its merge's
    check (_Check._import_keys) and again by the next tip's tables, which take the file in."""
    full = (path, blob, rules)
    keys = _IMPORT_KEYS.get(full)
    if keys is None:
        keys = import_keys(symbols, path, rules)
        if len(_IMPORT_KEYS) >= 65536:
            _IMPORT_KEYS.clear()
        _IMPORT_KEYS[full] = keys
    return keys


def module_keys(path: str, index_names: Iterable[str]) -> set[tuple[str, str]]:
    """The keys of a merge's module index (`_Check.files_at`) `path` stands at by the rules of any
    language whose index names (`__init__`, `index`) are among `index_names`: its module path
    (`_module_path`) and that path's last part, for the file as a module and, named for its
    folder, as its folder's. (A language whose folders are packages keeps no answer by keys:
    reexports.kept_rules.)"""
    stem = _stem(path)
    modules = [stem, posixpath.dirname(stem)] if posixpath.basename(stem) in index_names else [stem]
    return {key for module in modules for key in (("path", module), ("last", module.split("/")[-1]))}


def _index_names(path: str) -> frozenset[str]:
    profile = semantic_profile(path)
    return profile.semantic.index_names if profile is not None else frozenset()


def resolved_alone(rules: SemanticRules) -> bool:
    """Whether imported_files answers by `resolve` alone in this language (no crate paths, mapped
    or workspace names, paths through modules), so that reexports._lead_keys says what it reads."""
    from .reexports import kept_rules

    return kept_rules(rules) and rules.module_separator in (".", "/")


def _readable(path: str) -> bool:
    return semantic_profile(path) is not None


# How the check names a file, for the tables of a tip's files (tip_index.py).
PATH_FACTS = PathFacts(readable=_readable, module_token=_module_token, module_path=_file_module,
                       package_wide=_package_wide, barrels=_barrels, module_keys=module_keys, package_key=package_key,
                       index_names=_index_names)


def _removal_key(target: tuple[str, tuple[str, ...], str]) -> tuple[str, tuple[str, ...], str]:
    """The key of the removal a use's target may mean: a STARRED or EXTENDED target means the top-level name."""
    return (target[0], (), target[2]) if target[1] in (STARRED, EXTENDED) else target


def _answers(path: str, symbols: Symbols, name: str, data: bytes | None) -> bool:
    """Whether the file (`symbols`, read from `data`) defines at top level a function that answers
    `name` asked of its module (the profile's `any_name`: Python's module `__getattr__`; one that
    compares its parameter with a few names and raises AttributeError for the rest answers only
    those: languages/python_getattr.py)."""
    profile = semantic_profile(path)
    names = profile.semantic.any_name if profile is not None and profile.semantic is not None else ()
    found = [d for d in symbols.definitions if names and not d.container and d.name in names and d.kind in FUNCTION_KINDS]
    if not found:
        return False
    from ..languages.python_getattr import answers   # Python's parser loads only for a module that has one

    return any(data is None or answers(data[d.start_byte:d.end_byte], name) for d in found)


def _defines(symbols: Symbols, definition: Definition) -> bool:
    if symbols.binds(definition.container, definition.name):
        return True
    if definition.container == EXPORTS and exports_open(symbols):
        return True   # it exports names nothing lists: the name may be one
    return (not definition.container or definition.container == EXPORTS) and symbols.wildcard


_UNKNOWN = object()
_PATH_OF = operator.itemgetter(0)   # (path, versions) -> path: in_order() sorts by it alone
_MODULE_FACTS: dict[int, tuple[SemanticRules, dict[str, Any]]] = {}
_MODULE_FACTS_KEPT = 200_000   # paths per profile's rules, at most: then forgotten all at once


def _module_facts(rules: SemanticRules) -> dict[str, Any]:
    """path -> (its module path, that path's parts), or None where no semantic profile reads the
    path, for `rules`: pure in the path and the rules (kept with them, so a rules object's id is
    not reused while its entries are), so never stale. resolve()'s index reads them: before, each
    merge of a drain asked the profile and the (cached, but keyed by the whole rules) module path
    of every file the run had changed: 1.7-2.3 ms for 1,000 paths, now 0.5-0.8 (a dict lookup
    each; the index itself is still one pass over the merge's files)."""
    kept = _MODULE_FACTS.get(id(rules))
    if kept is None or kept[0] is not rules or len(kept[1]) > _MODULE_FACTS_KEPT:
        kept = _MODULE_FACTS[id(rules)] = (rules, {})
    return kept[1]


def _stem(path: str) -> str:
    """`path` without its extension (`pkg/util.py` -> pkg/util)."""
    return path.rsplit(".", 1)[0] if "." in posixpath.basename(path) else path


def module_fact(path: str, rules: SemanticRules) -> tuple[str, list[str]] | None:
    """(`path`'s module path by `rules`, its parts), or None where no semantic profile reads it:
    kept for the process (_module_facts), so the merges of a drain do not compute it again."""
    facts = _module_facts(rules)
    found = facts.get(path, _UNKNOWN)
    if found is _UNKNOWN:
        if semantic_profile(path) is None:
            found = None
        else:
            module = _module_path(path, rules)
            found = (module, module.split("/"))
        facts[path] = found
    return found   # type: ignore[return-value]


@functools.lru_cache(maxsize=65536)   # asked for every file of every merge of a drain
def _module_path(path: str, rules: SemanticRules) -> str:
    """The module a file is, as a path: `pkg/util.py` -> pkg/util, `pkg/__init__.py` -> pkg; for a
    language whose directories are packages, the directory."""
    if rules.package == "directory":
        return posixpath.dirname(path)
    stem = _stem(path)
    if posixpath.basename(stem) in rules.index_names:
        return posixpath.dirname(stem)
    return stem


def _without_stubs(paths: list[str], rules: SemanticRules) -> list[str]:
    """`paths` (files of one module) without the type checkers' stubs among them (profile `stubs`),
    when a file that runs is there too: the import loads `pkg/__init__.py`, whatever
    `pkg/__init__.pyi` declares. Found driving wtc on attrs: `fields_dict` dropped from
    src/attrs/__init__.py while its stub kept it was taken as still defined, and the landed tree's
    `attrs.fields_dict(...)` failed."""
    if not rules.stubs:
        return paths
    running = [path for path in paths if path.rsplit(".", 1)[-1] not in rules.stubs]
    return running or paths


def _joined(folder: str, relative: str) -> str | None:
    """`relative` (a module's folder, `../x`, `.`) below the repository folder `folder`, normalized
    ("" is the root), or None where it leads outside the repository."""
    joined = posixpath.normpath(posixpath.join(folder, relative)) if relative else folder
    if joined == ".":
        return ""
    return None if joined == ".." or joined.startswith("../") or joined.startswith("/") else joined


def _within(line: int, ranges: list[tuple[int, int]]) -> bool:
    return any(first <= line <= last for first, last in ranges)


def _module_parts(module: str, rules: SemanticRules) -> tuple[bool, int, list[str]]:
    """reexports.module_parts, loading reexports.py on the first import a check reads."""
    from .reexports import module_parts

    return module_parts(module, rules)
