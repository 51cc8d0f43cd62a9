"""Language profiles: the data that makes the structured engine generic over languages.

Input: `grammars/<language>.toml`, read through importlib.resources from the installed package
`worktree_coord.grammars`. Output: validated, frozen `Profile` objects, looked up by file path.
Invariant: every node kind and field named in a profile exists in its tree-sitter grammar; a typo
is a `ConfigError` when the profile loads, never a silent no-op. A profile (and its grammar) loads
on its first use, so merging one file pays for its own language only; `load_profiles()` loads all.

Profile keys:
    name, extensions, filenames, grammar (module), grammar_function (default "language"),
    claims (`{ extensions = [...], marker = "regex" }`, in the profile's head: a file with one of
    those extensions whose content matches the marker is this profile's, although another
    profile lists the extension: a `.h` holding a class or a namespace is C++, not C),
    comments (node kinds bundled with the next member: comments, decorators, attributes),
    terminators (anonymous tokens that end the member before them, like ";"),
    anchored (keyed node kinds that are matched by key but never commute: a new or deleted one
    is never placed by the union of an unordered container, e.g. Python's `if COND:` blocks),
    union_when_added_twice (container kinds whose members commute, keyed: one that both sides
    added at one place with two texts, a Markdown list both sides started under one heading,
    merges as the union of its members, left's first, a member both added once; one key with two
    texts keeps the conflict; a container whose members keep their places, a section, merges
    only where both sides' members run in one order, and each place gets one side's new members),
    added_twice_conflict (a regex: a container added twice whose first line matches it keeps the
    conflict whatever union_when_added_twice says, a Markdown release `## 1.2.0` both sides cut),
    repeatable (keyed node kinds whose key may legitimately repeat in a file, like assignments to
    one target: left out of the declaration census, so a line merge repeating one is not suspect),
    order_sensitive (true when containers run top to bottom, as Python modules and class bodies do,
    or declare before use, as a C translation unit does: both sides' insertions at one place are
    ordered so a name is bound, per bindings.py and the `binds` query, before it is used),
    deferred (for order_sensitive profiles: node kinds whose `body` runs only later, like Python's
    `function_definition` and `lambda`; identifiers in such a body do not order statements),
    name_kinds (node kinds that are name tokens without ending in `identifier`, like Ruby's
    `constant`: uses that order insertions and that a side's deletion may not take away),
    registrations (names of commands, in a language whose call statements otherwise keep their
    order, whose calls at one place are a list of registrations: Ruby's `gem` in a Gemfile; both
    sides' new calls of one such command there are both kept, left's first, unless both name the
    same thing, `gem 'rake'` twice; group_rules.registrations_added),
    lazy_annotations (for order_sensitive profiles: `extensions` whose files never run their type
    annotations, like Python stubs, and a `marker` regex whose presence in a file means the same,
    like `from __future__ import annotations`: annotations then do not count as uses),
    section_opener (a regex matching a line that opens a section, like a Markdown heading: where both
    sides insert at one place and one side's text opens a section, the other's may belong above or
    under it; the `section_owner` guard keeps git's conflict there),
    variant_markers (lead texts, like Rust's "#[cfg", marking conditional variants of one item:
    the duplicate census keys such items by their conditions too, so `#[cfg(unix)] fn f` and
    `#[cfg(windows)] fn f` are not a duplicate, while the same condition twice still is),
    parse_aliases (pairs `["try!", "tri!"]` of texts of equal length: where the first stands as a
    word, the parser reads the second; only the parse sees it, so every offset of the tree is the
    source's and the merge copies the source's own bytes. For code the grammar rejects although
    the compiler accepts it: Rust 2015's `try!(...)` and `try::`, which tree-sitter-rust reads as
    the 2018 keyword of `try { }` blocks and reports as ERROR),
    parse_masks (regexes, each with a group named `mask`: what a match's group holds is read as
    spaces by the parse only, newlines kept, so the tree keeps the source's offsets; applied in
    order, after parse_aliases. For code a preprocessor makes legal that the grammar cannot read:
    C's API and calling-convention macros, `LUA_API int f (void)`, which tree-sitter-c reads as a
    function named `int` with `f` in an ERROR node, and then a whole file as unparseable),
    binds (a tree-sitter query over one member: `@name` captures the names a declaration binds,
    `@import` the names an import binds, `@path` an import path whose last segment is the name, as
    Go's; captures named `@_...` serve predicates only; read by names.py: the lost-binding and
    duplicate-import checks of the structured merge),
    [[containers]] kind, parent?, parent_key? (a key; "prefix *" matches every key starting with
    the prefix; keys joined by " > " name the keyed ancestors outermost first: `[project] >
    dependencies`), top_level?, unordered, member_field?, separator?, keep_sorted?, statements? (an
    ordered container whose members are statements that run in order, a function's body: both
    sides' independent insertions at one place may be kept, group_rules.py; not a struct's fields,
    whose order is layout), commute? (an unordered container whose members commute even when
    their kind is anchored: Maven's `<modules>` among XML's ordered elements)
    [declarations] kind = key template: "{path}" parts resolve a child by field name or, failing
    that, by node kind; steps join with "."; "*field" maps over named children; "+kind" takes every
    direct child of that kind or field (joined with ","); "@text" is the
    node's own text when it is short and on one line (else no key: a longer text is content);
    "@content" is the node's text whatever its length, spaces normalized (the content is the
    identity: Markdown list items that wrap); "{~regex}" is the regex's first group where it matches
    the start of the node's text (no match: no key; a requirement string keyed by its package);
    "{?path}" only requires the path; "{path=a,b,c}" resolves only when the path's text is one of
    those words (Elixir: a `call` whose target is `def` is a declaration, other calls are
    statements); alternatives are separated by "|". When no alternative resolves, the node has no
    key (it stays positional, matched by its text).
    [labels] kind = template, in the same language: how a keyed declaration reads where a conflict
    names it (`MergeConflict.declaration`), when its key does not read like the code: a key is an
    identity, so `let x` and `const x` share the key `var x` (one member edited, not one deleted and
    one added) while the label says `const x` as written; Python's `= x` key reads `x =`. A kind
    with no label is named by its key.
    [semantic] the post-merge semantic check's data (see `SemanticRules`; the check is symbols.py
    and semantic.py). Its keys and types are validated at load; its query is compiled on first
    use (a language's query is only paid for when a file of it is checked), and a test compiles
    every shipped one.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import tree_sitter

from ...errors import ConfigError
from ...frozen import value_class
from .reparse import reparse
from .profile_index import (_claims, _head, _shipped, _shipped_index, _toml, profile_name_for_path,  # noqa: F401
                            shipped_toml)

_PART = re.compile(r"\{([^{}]+)\}")
# Profile.parse's `like`: (another version of the file, a function giving the hunks of its line diff to
# the source, that version's tree or None). A function: a source whose tree is kept needs no diff.
Similar = tuple[bytes, Callable[[], Sequence[tuple[int, int, int, int]]], "tree_sitter.Tree | None"]


def _hash_kept(cls: type) -> type:
    """A frozen dataclass whose hash is computed once per object, then kept. A profile's hash
    walks every field of it and of its nested rules (33 us for Python's), and the checks key
    their caches by profile and rules dozens of times a merge (a drain paid ~0.9 ms a merge for
    it). Frozen, so the hash cannot change; not pickled, since a string's hash differs from one
    process to the next."""
    computed = cls.__hash__

    def __hash__(self: Any) -> int:
        try:
            return self.__dict__["_kept_hash"]
        except KeyError:
            value = computed(self)
            object.__setattr__(self, "_kept_hash", value)
            return value

    def __getstate__(self: Any) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "_kept_hash"}

    cls.__hash__ = __hash__  # type: ignore[method-assign,assignment]
    cls.__getstate__ = __getstate__  # type: ignore[attr-defined]
    return cls


@value_class
class ContainerRule:
    """A node kind whose members merge one by one (unordered: members commute)."""

    kind: str
    parent: str | None = None
    unordered: bool = True
    member_field: str | None = None
    separator: str | None = None
    keep_sorted: bool = False
    parent_key: str | None = None   # only inside the declaration with this key (e.g. "= __all__")
    top_level: bool = False         # only when the parent sits directly in the file's root node
    statements: bool = False        # ordered members that are statements run in order (a body)
    commute: bool = False           # its members commute even of an anchored kind (Maven's <modules>)


@value_class
class DuplicateRules:
    """Which declarations the merged file may not hold twice (`[semantic.duplicates]`; duplicates.py).

    `declarations`: node kinds (captured by the semantic query's `@definition.*`) that declare a
    name once per scope. `through`: node kinds such a declaration may stand in (bodies, wrappers,
    import lists): a declaration under any other node (an `if`, a `try`, a function body's
    statements) is conditional or local and never counted. `signature`: a field whose text is part
    of what is declared (Java's overloads: the parameters). `headers`: node kind -> field it must
    have to count itself, declared by its text before its body (Rust's `impl Trait for T`: one per
    trait and type); any `scopes` node is a scope named by that text. `lead`: kinds of preceding
    siblings that belong to a declaration (Rust attributes). `exempt`: a regex; a declaration whose
    lead (decorators, attributes, `export`) matches is never counted (`@overload`, `#[cfg(...)]`).
    `repeatable`: names a language lets repeat (Go's `init`, `_`). `imports`: the node kinds of
    import statements (what holds a semantic query's `@import.*` captures) whose imports count:
    one name bound by two imports of one scope (from one module or two) is an error in Go, Rust
    and TypeScript; harmless in Python, and allowed in Java for one type (none listed there).
    `bindings`: a query whose `@bound` captures are names an import statement binds that the
    semantic query's `@import.*` patterns do not see (Rust's `use a::{b::C}`), counted the same.
    `overloads`: declaration kinds that may repeat under one key (TypeScript's bodiless overload
    signatures), counted only for a new name both sides declared with two signatures."""

    declarations: frozenset[str] = frozenset()
    through: frozenset[str] = frozenset()
    signature: str | None = None
    headers: tuple[tuple[str, str], ...] = ()
    lead: frozenset[str] = frozenset()
    exempt: re.Pattern[str] | None = None
    repeatable: frozenset[str] = frozenset()
    imports: frozenset[str] = frozenset()
    bindings: str = ""
    overloads: frozenset[str] = frozenset()
    implementations: frozenset[str] = frozenset()
    parameter_name: str | None = None

    @property
    def enabled(self) -> bool:
        return bool(self.declarations or self.headers or self.imports)


@value_class
class SignatureRules:
    """How to count a function's parameters and a call's arguments (`[semantic.signatures]`;
    signatures.py). Everything not listed makes a count unknown, and an unknown count never flags.

    `parameters`: field paths ("a/b": field b of field a) from a definition node (what a semantic
    query's `@definition.function`/`.method` captures) to its parameter list; the first present is
    used. `counted`: node kind of a parameter -> "" (counts one) or a field whose children it counts
    (Go's `a, b int`: two). `receivers`: parameter kinds that are the receiver (Rust `&self`): not
    counted, and the definition is a method called through its receiver. `receiver_first`: a
    member's first parameter is its receiver (Python's `self`). Any other named child of the list
    (a default, a rest or optional parameter, a separator, an attribute) makes the count unknown, as
    does an `uncountable` kind anywhere inside it or a `defaults` field on a counted parameter (TS
    `x = 1`). `wrappers`: a definition under one of these (Python's decorators) is never counted.
    `calls`: call node kind -> the field holding what is called; `arguments`: the field holding a
    call's arguments, which must be one of `argument_lists`; an argument of a `spread` kind (`*xs`,
    `xs...`, `...xs`, a keyword argument) makes the count unknown. `token_lists`: node kinds of the
    unparsed tokens a macro call holds (Rust's `token_tree`): a name followed there by such a list
    opening with `(` is a call whose arguments are the list's `,`-separated runs, its count unknown
    when a token of `token_unknown` (a closure's `|`, generics' `<`, a macro's `$`) stands among them.
    `empty_unknown`: an empty parameter list takes any arguments (C's `f()`, before C23); `none`:
    the text of a lone parameter that means the function takes none (C's `f(void)`).
    `default_tokens`: tokens that give a counted parameter a default where no field holds it (C#'s
    `int x = 1`: its `=`): such a parameter makes the count unknown, as a `defaults` field does.
    `keywords`: parameter kind -> the field holding the name a call passes it by keyword ("": the node
    itself, or its first named child: Python's `x: int`), `keyword_open`: kinds that take any keyword
    (`**kwargs`), `positional_only`: a kind after which the parameters before it take none (Python's
    `/`), `keyword_arguments`: a call's keyword argument kind -> its name's field. A call passing a
    keyword the reshaped function no longer names (a parameter renamed) is called the old way.
    `optional`: parameter kinds a call may leave out (Python's `sep="-"`): counted between the
    fewest and the most arguments a call passes; a counted parameter after one makes the count
    unknown. `transparent`: decorators that keep what a function takes (Python's `functools.lru_cache`), by
    their text without `@` and without a call's arguments: a definition whose wrappers hold only
    these is counted. `constructor`: the method a call of a class runs with its arguments (Python's
    `__init__`): the keywords a call of the class passes are that method's; `records`: a query whose
    `@record` is a class without one whose constructor the language makes from the fields its body
    declares, each `@field` (Python's `@dataclass`, `NamedTuple`, attrs' `@define`): a field renamed
    leaves `Point(x=1)` failing as a renamed parameter does (record_fields.py)."""

    parameters: tuple[tuple[str, ...], ...] = ()
    counted: tuple[tuple[str, str], ...] = ()
    keywords: tuple[tuple[str, str], ...] = ()
    keyword_open: frozenset[str] = frozenset()
    positional_only: frozenset[str] = frozenset()
    keyword_arguments: tuple[tuple[str, str], ...] = ()
    receivers: frozenset[str] = frozenset()
    receiver_first: bool = False
    uncountable: frozenset[str] = frozenset()
    defaults: frozenset[str] = frozenset()
    wrappers: frozenset[str] = frozenset()
    calls: tuple[tuple[str, str], ...] = ()
    arguments: str = "arguments"
    argument_lists: frozenset[str] = frozenset()
    spread: frozenset[str] = frozenset()
    token_lists: frozenset[str] = frozenset()
    token_unknown: frozenset[str] = frozenset()
    transparent: frozenset[str] = frozenset()
    optional: frozenset[str] = frozenset()
    empty_unknown: bool = False     # an empty list takes any arguments (C's `f()` before C23)
    default_tokens: frozenset[str] = frozenset()   # a counted parameter holding one has a default (C#'s `=`)
    none: str = ""                  # the text of a lone parameter that means none (C's `void`)
    constructor: str = ""           # the method a call of a class runs (Python's `__init__`)
    records: str = ""               # a query: `@record` classes whose constructor takes their `@field`s (dataclasses)

    @property
    def enabled(self) -> bool:
        return bool(self.parameters and self.counted and self.calls and self.argument_lists)


@value_class
class PackageRules:
    """How a bare import specifier names a package of the repository's own workspace
    (`[semantic.packages]`; workspace_packages.py). Nothing set: a bare specifier names no file.

    `workspaces`: where the root declares the workspace's package folders, each `file:key.path`
    (`package.json:workspaces`, `pnpm-workspace.yaml:packages`; a JSON or YAML file at the tree's
    root holding a list of globs). `manifest`: each package's file, whose `name` is the package's
    name. `entry_fields`: its fields naming the entry file, in order (`types`, `main`, `exports`);
    a field's value is a path, or a map of subpaths (`"."`, `"./util"`) and `conditions` (read in
    their order). `built_folders` and `built_extensions`: a path the tree lacks is built output
    (`dist/index.d.ts`): its source is the same path without them, under a `source_folders` folder or
    the package's own; `entries`: the entry's path (no extension) where no field leads to a file.
    `dependency_fields`: the importing package's fields whose range for the name must take the
    workspace's package (`workspace:*`, or its version), not a release or an alias. `source_roots`:
    where a package's own config names its source folder, each `file:key.path` of a JSON (or JSONC)
    file in the package's folder (`tsconfig.json:compilerOptions.rootDir`: lib/), looked in before
    `source_folders`."""

    workspaces: tuple[tuple[str, tuple[str, ...]], ...] = ()
    manifest: str = ""
    entry_fields: tuple[str, ...] = ()
    conditions: tuple[str, ...] = ()
    built_folders: frozenset[str] = frozenset()
    built_extensions: tuple[str, ...] = ()
    source_folders: tuple[str, ...] = ()
    entries: tuple[str, ...] = ()
    dependency_fields: tuple[str, ...] = ()
    source_roots: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @property
    def enabled(self) -> bool:
        return bool(self.workspaces and self.manifest)


@_hash_kept
@value_class
class SemanticRules:
    """What the semantic check needs to know about a language (`[semantic]` in its profile).

    `tags`: grammar wheels whose shipped `queries/tags.scm` to use, in order (`@definition.<kind>`
    and `@reference.<kind>` captures, each with a `@name`). `query`: the profile's own patterns,
    added to the tags: `@binding` (a name a parameter, assignment, loop... binds where it stands),
    `@import.module` / `@import.name` / `@import.alias` (one imported name: where from, which, bound
    as), `@import.wildcard` (a star import or re-export: any name may come from it), `@export.name`
    (a name the module exports, with `@export.local` when it is the file's own binding, `@export.as`
    when it is exported under that node's text instead, `@export.default` for the module's default
    export made by a statement that names none, `module.exports = function f() {}`, `@export.any` for exports no pattern can
    list: where any capture them, an import from the file means its exports, not its definitions),
    `@field` (a name a method binds on every instance of its class, Python's `self.limit = 3`: a
    read through an instance finds it there, so a class attribute of that name dropped is no removal for
    it), `@heritage`
    (a class, or a `scopes` node, that declares bases: its members may be inherited, so a member it
    no longer defines is not known to be gone), `@typed.name` with one `@typed.type` (a name bound
    to a value of the type the file spells there: Go's `c *cobra.Command`, `c := &cobra.Command{}`;
    a call on it, `c.CommandPath()`, means that type's method), and more definitions or references
    where the tags miss them. `manifest`: the file name of the language's dependency manifest (dependencies.py: a
    module of a dependency the merge still declares unchanged is never "replaced"). `hidden_names`:
    a query whose `@name`s are identifiers the parse does not place (tokens inside a macro call): a
    definition whose name still stands there is not taken as removed. `module_files`: where a
    module's file may stand, each a pattern of its path without extension (`{}.ts`, `{}/index.ts`,
    `{}/__init__.py`): the check reads a file no side changed through them, to follow a re-export
    (`export * from "./util"`, `from .util import parse` in a package's `__init__.py`) to the file
    that defines the name (semantic.py). `source_folders`: folders that hold a project's absolute
    modules below any directory above the importer (`src`, the src layout): `from pkg import parse`
    in tests/test_app.py may name src/pkg/__init__.py (Java's `src/main/java`: a test source set's
    `import a.b.C;` names src/main/java/a/b/C.java). `package_roots`: where a package's root
    module file stands below the folder of its `manifest` (`src/lib.rs`): `crate::`, the package's
    own name and a path dependency's name lead there (crate_paths.py). `packages`: how a bare
    specifier names a package of the repository's own workspace (`@acme/core`:
    packages/core/src/index.ts; workspace_packages.py). `path_maps`: the config files whose
    `compilerOptions.paths` and `baseUrl` map a bare specifier to the project's own files
    (`tsconfig.json`: `@/utils` -> src/utils.ts; path_maps.py), read before a workspace's packages.
    `qualified_names`: a pattern of a type spelled with its package where no import names it (Java's
    `com.x.util.Util.f(1)`): the file reads that module as if it imported it (symbols.Symbols.
    spelled_modules). `version_suffix`: a pattern of the last part of an imported module's path that is a version, not
    the module (Go's `github.com/caddyserver/caddy/v2`): with `module_binding = "last"` the part
    before it is bound. `root_module`: a pattern over the repository root's `manifest` whose first
    group is the import path of the root folder (Go's `module` line of go.mod): an import of that
    path names the root folder's package, and one below it the folder below. The same pattern reads
    the `manifest` nearest above any folder (a nested module: its own import path), and an import
    path names a folder only through such a module's path (never by its last parts: `github.com/spf13/
    cobra` is no folder `cobra/` of a module named otherwise). `module_replaces`: a pattern over a
    `manifest` whose two groups are a module path and the local folder (relative to the manifest's)
    that stands in for it (go.mod's `replace example.com/x => ../x`); `workspace`: the file name of a
    workspace (`go.work`), whose `workspace_modules` pattern's first group is each folder (relative to
    the workspace's) of a module it builds together: the importers below it see those modules' paths
    as those folders. `specifiers`: a query
    whose `@module` captures are every module a file loads, however it binds it (a default or
    namespace import, `const x = require(...)`, `import './setup.js'`, `import pkg.mod`): the
    left-behind look (check/left_modules.py) reads them to find the importers of a file a task
    deleted or moved, which no removed name leads to. `specifier_files`: where such a module's file
    stands, for that look alone, in a language whose checks do not read imports as files (no
    `module_files`: Java's `import a.b.C;` names a/b/C.java below a folder above the importer).
    `import_statements`: a query whose `@import` captures are the top-level statements that import
    (`import x`, `from m import x`, Go's and Java's import declarations) or re-export from a module
    (`export { x } from "m"`): what the left-behind look keeps of a file its parser does not read
    cleanly (check/left_behind.py `_imports_alone`).
    `guards`: a query whose `@guarded` nodes hold
    imports whose failure the file catches (Python's `try:` body with `except ImportError:`): such an
    import is not a use a removal breaks (the file still loads), so neither look counts it, and the
    names it binds are the file's own bindings. An `@unguarded` capture of the same span takes a
    `@guarded` node back (a handler that raises); one whose match also captures `@handler` nodes
    takes it back only where a `@raises` capture lies inside one of them (at any depth: `if strict:
    raise` in the handler).
    `path_prefixes`: node kinds whose field holds the path an import nested inside them continues
    (Rust's `use crate::{lines::{self, LineStep}}`: a `scoped_use_list`'s `path`), so `LineStep` is
    imported from `crate::lines`; an `@import.self` capture binds the module its path names (`lines`).
    `default_export`: the name a module's default export is exported as (`default`): an
    `@import.default` capture binds its text to that name of the module (`import X from "./m"`), and
    a use of it spells the module, not the name. `default_words`: words a statement that makes the
    module's default export spells where it writes no `default` (`module.exports = f`: `exports`;
    `export = X`: `export`): a change to a line holding one may have taken the default export away.
    `whole_default`: a regex a module's text matches when its default import is its exports object
    whatever it assigns (CommonJS's `exports.x = `, `module.exports = `, which Node gives `import X
    from` whole): such a module losing its default export (`module.exports = f` now `exports.f = f`)
    breaks only a call or `new` of the import, never a read of its members.
    `root_specifiers`: the literal texts (quotes and all) an import of the repository's root module
    may spell where it spells no word of that module (`require('..')`, `import x from '.'`): a root
    `index.js`, whose module token is empty; the look for a use of its removed default export greps
    for these, its index name and the package's name (check/root_imports.py).
    `star_names`: a query whose `@list` is the list of names a star import (`from m import *`) takes
    from the module (Python's `__all__ = [...]`, its string elements), and whose `@open` is any other
    write of it (`__all__ += ...`): then nothing is known. `star_hidden`: the prefix of the names a star
    import never takes from a module with no such list (`_`). With either, a name a star re-export
    cannot pass on is not taken for defined by it (reexports.py `star_may_pass`). `star_list`: the
    name of that list as the left-behind notes say it (`__all__`): a name kept for a use that
    reaches it through a star import must be listed there too. `star_named`: how the `*` of a star
    import is written as the names it stands for (`{%s}`, `%s` the names, comma-separated): a star
    re-export a file dropped reads as those names dropped (check/left_behind.py `_unpassed`). `stubs`: the extensions of files only
    type checkers read (Python's `pyi`): where one module path has its own file and a stub beside it
    (`pkg/__init__.py`, `pkg/__init__.pyi`), a use at run time means the module's file, so a name the
    stub still declares does not answer for one the module dropped; a module with a stub alone (an
    extension module) is answered by its stub. `any_name`: the names of a top-level function that
    answers any name asked of its module (Python's module `__getattr__`, PEP 562): a module defining
    one has no top-level name gone, whatever its definitions lost (marshmallow moved `__version__`
    into one to warn on its use). `all_members`: the members every class has (Java's Object methods):
    a call of one on a local whose class the file spells is answered whatever that class declares.
    `common_members`: the members objects of the language's own types have (a list's `append`): a call of
    one on a receiver of unknown class is never taken for the tree's one definition of it; enables
    that reading (merge/checks/sole_members.py). `memberless_bases`: bases that give a class no other member.
    `declaration_files`: the endings of files that only describe code another file defines (TypeScript's
    `.d.ts`): the class such a file declares is the one a `.js` file defines, not another definer of its members.
    `own_kinds`: the definition kinds (`@definition.<kind>`) of members no base gives (Rust's enum
    variants: a trait impl adds methods and consts, never a variant): one gone from its type is gone
    though the type declares bases (`@heritage`).
    `fixture_files`, `fixture_decorator`, `fixture_requesters`, `fixture_calls`, `fixture_supplied`: a
    test framework's fixtures (pytest's), which a test requests by its parameter's name or a string,
    never an import: check/left_fixtures.py reads a fixture a `fixture_files` file stopped defining.
    `package = "linked"`: every file of the languages so marked shares one package, the linker's
    (C, C++: a use in any file may mean a definition in any other, merge/checks/linked.py);
    `file_local`: a pattern of a definition's text before its name that makes it its file's alone
    (C's `static`), except in a file of an `included` extension (a header: what it defines `static`
    is every includer's, `static inline int f(...)`); `partial_parse`: a version the parser does not read cleanly is read outside its
    ERROR nodes, and a name written inside one is never taken as removed (C's macros defeat the
    parser in most real files). `silent`: a query whose `@silent` nodes hold no use of a name (C's
    `#if defined(X)`: a macro undefined there reads as 0, no break). `namespaces`: a query over a
    file's namespaces and namespace imports (C#: `@namespace`, `@namespace.rest`, `@namespace.name`,
    `@using`, `@using.global`, `@using.static`; merge/checks/namespaces.py): a linked language's
    definition is seen only by a use inside its namespace, in a file importing it, or spelling it
    (`N.T`), and its package is its own language's, not C's. `parse_masks`: the profile's
    `parse_masks`, for the semantic check's reading alone (`Profile.semantic_reading`): C#'s
    preprocessor lines and `#else` branches, which the structured merge keeps as members.
    `conditional`: two line patterns, opening and closing a block the preprocessor may compile out
    (C#'s `#if`, `#endif`): a definition inside one is never taken as removed (linked.conditional).
    `extension`: a pattern of a definition's text before its name that makes it an extension
    (Kotlin's `fun String.quoted()`): a call on a value whose type the check does not know
    (`name.quoted()`) may mean it, where no class of the package has a member of that name.
    `namespaces_nest`: a namespace sees the names of those around it (C#'s `namespace A.B` sees A's),
    or, false, only its own (Kotlin's package `a.b` sees none of `a`'s; a qualified name is spelled
    whole). `namespace_keyword`: the word that declares a namespace (`namespace`; Kotlin's
    `package`), which the left-behind look greps for (check/left_namespaces.py).
    """

    tags: tuple[str, ...] = ()
    query: str = ""
    self_receivers: frozenset[str] = frozenset()    # `self.f()`: f is a member of the enclosing class
    members_in_scope: bool = False                  # a bare `f()` may call a member (Java)
    member_imports: bool = False                    # `import static a.C.m`: m is a member of C.java's class C
    package_types: bool = False                     # `C.m()` with no import of C: C.java of the same directory
    source_sets: str = ""                           # a pattern of the folders one package spans (`src/main/java`)
    module_separator: str = "."                     # between the parts of an imported module's name
    member_separator: str = "."                     # between a type and its member as the language writes it (`Color::Red`)
    module_roots: frozenset[str] = frozenset()      # leading parts naming the package root (`crate`)
    relative_parents: frozenset[str] = frozenset()  # leading parts meaning "up one directory" (`..`, `super`)
    index_names: frozenset[str] = frozenset()       # files named for their directory (`__init__`, `index`)
    module_binding: str = "full"                    # `import a.b` binds "a.b" (full) or "b" (last part)
    package: str = "file"                           # "directory": a directory's files share top-level names (Go);
                                                    # "linked": every file of the linked languages does (C, C++)
    scopes: tuple[tuple[str, str], ...] = ()        # node kind -> field naming the type whose members it holds
    function_scopes: tuple[tuple[str, str], ...] = ()  # node kind -> field naming it: a function no tag defines
    anonymous_classes: tuple[tuple[str, str], ...] = ()  # body kind -> its parent's field naming the type it extends
    member_of: tuple[tuple[str, str], ...] = ()     # definition kind -> field naming its type (Go receivers)
    self_fields: tuple[tuple[str, str], ...] = ()   # definition kind -> field whose name is its `self` (Go receivers)
    type_names: frozenset[str] = frozenset()        # node kinds naming a type inside those fields
    globals: frozenset[str] = frozenset()           # names defined everywhere (builtins, prelude)
    manifest: str = ""                              # the file declaring dependencies (`Cargo.toml`): dependencies.py
    hidden_names: str = ""                          # a query: `@name`s the parse does not place (a macro call's tokens)
    module_files: tuple[str, ...] = ()              # where a module's file stands: `{}.ts`, `{}/__init__.py`
    source_folders: tuple[str, ...] = ()            # folders holding absolute modules (`src`): reexports.py
    package_roots: tuple[str, ...] = ()             # a package's root module file (`src/lib.rs`): crate_paths.py
    path_maps: tuple[str, ...] = ()                 # configs mapping bare specifiers (`tsconfig.json`): path_maps.py
    version_suffix: str = ""                        # a last path part that is a version (`v2`): bind the one before
    qualified_names: str = ""                       # a type spelled with its package, no import (`com.x.util.Util`)
    root_module: str = ""                           # the root manifest's import path of the root folder (go.mod's `module`)
    module_replaces: str = ""                       # a manifest's (module path, local folder) replacements (go.mod `replace`)
    workspace: str = ""                             # a workspace file building several modules together (`go.work`)
    workspace_modules: str = ""                     # a pattern of the workspace file: each module folder it uses
    specifiers: str = ""                            # a query: `@module`s a file loads, bound or not (left_modules.py)
    import_statements: str = ""                     # a query: `@import` statements that import or re-export from a module (left_behind.py)
    specifier_files: tuple[str, ...] = ()           # where a specifier's file stands, for left_modules.py alone (`{}.java`)
    guards: str = ""                                # a query: `@guarded` code whose import failure the file catches
    path_prefixes: tuple[tuple[str, str], ...] = () # node kind -> field: a nested import list's leading path (Rust)
    default_export: str = ""                        # the name of a module's default export (`default`)
    default_words: frozenset[str] = frozenset()     # words a default export's statement spells (`exports`)
    whole_default: str = ""                         # a regex: a module matching it is imported by default as its exports whole (CommonJS)
    root_specifiers: tuple[str, ...] = ()           # literal imports of the root module that spell no word (`'..'`)
    star_names: str = ""                            # a query: a module's `@list` of what a star import takes (`__all__`), `@open` a write of it no list shows
    star_hidden: str = ""                           # a prefix of names a star import never takes from a module with no such list (`_`)
    star_list: str = ""                             # that list's name as the notes say it (`__all__`)
    star_named: str = ""                            # a star import's `*` written as a list of names instead (`{%s}`)
    stubs: tuple[str, ...] = ()                     # extensions of type checkers' stubs (`pyi`): the module's own file runs
    any_name: tuple[str, ...] = ()                  # a top-level function of this name answers any name asked of its module (`__getattr__`)
    all_members: frozenset[str] = frozenset()       # members every class has (Java's Object methods, `toString`)
    common_members: frozenset[str] = frozenset()    # members the language's own types have: never a sole definer's (sole_members.py)
    constructs: str = ""                             # a regex: a receiver constructing an instance, group 1 its class (`new Store(`)
    export_receivers: frozenset[str] = frozenset()  # receivers that are the file's own exports (CommonJS's `exports.f()`)
    receiver_forms: tuple[str, ...] = ()             # regexes a whole receiver matches: group `name` the local it is (`s!`), `type` the class it asserts (`(s as Store)`)
    attribute_guards: str = ""                       # a regex with {receiver}, {name}: a test that guards a member's reads (`hasattr`)
    class_bases: str = ""                            # a regex with {name}: a class's header, group 1 its bases (sole_members.py)
    member_writes: str = ""                          # a regex with {name}: a write of the member other than a definition
    memberless_bases: frozenset[str] = frozenset()  # bases giving no member outside common_members (`object`, `Generic`)
    declaration_files: tuple[str, ...] = ()          # endings of files that only describe another file's code (`.d.ts`)
    own_kinds: frozenset[str] = frozenset()         # member kinds no base gives (Rust's `variant`): heritage hides none
    file_local: str = ""                            # a pattern of a definition's text before its name: its file's alone (C's `static`)
    # Test fixtures a test names by a parameter or a string, not an import (pytest's; check/left_fixtures.py):
    fixture_files: tuple[str, ...] = ()             # the files whose fixtures the files of their folder and below see (conftest.py)
    fixture_decorator: str = ""                     # a pattern of a decorator's text making a function a fixture
    fixture_requesters: str = ""                    # a pattern of the names of functions whose parameters name fixtures (tests)
    fixture_calls: tuple[str, ...] = ()             # the callees whose string arguments name fixtures (`usefixtures`)
    fixture_supplied: str = ""                      # a pattern of a decorator's text supplying parameters by name (`parametrize`)
    extension: str = ""                             # a pattern of a definition's text before its name: called on a value of any type (Kotlin's `fun String.quoted`)
    included: frozenset[str] = frozenset()          # extensions of files included whole: no definition there is its file's alone (`h`)
    partial_parse: bool = False                     # a version with ERROR nodes is read outside them (C's macros): linked.py
    silent: str = ""                                # a query: `@silent` nodes no name inside is a use in (C's `#if X`)
    namespaces: str = ""                            # a query: a file's namespaces and `using`s (C#): namespaces.py
    namespaces_nest: bool = True                    # a namespace sees its enclosing ones' names (C#), or only its own (Kotlin)
    namespace_keyword: str = "namespace"            # the word declaring one (`namespace`, Kotlin's `package`): left_namespaces.py
    parse_masks: tuple[str, ...] = ()               # more masks for the semantic reading alone (C#'s `#else` branches)
    conditional: tuple[str, ...] = ()               # line patterns opening and closing a block that may be compiled out (`#if`, `#endif`)
    duplicates: DuplicateRules = DuplicateRules()   # what may not be declared twice (duplicates.py)
    signatures: SignatureRules = SignatureRules()   # how parameters and arguments count (signatures.py)
    packages: PackageRules = PackageRules()         # a workspace package's name -> its entry (workspace_packages.py)

    @property
    def enabled(self) -> bool:
        return bool(self.tags or self.query)

    def member_name(self, container: tuple[str, ...], name: str) -> str:
        """`name` inside its containers as the language writes it: `Color.RED`, Rust's `Color::Red`."""
        return self.member_separator.join(container + (name,))


# The manifests dependencies.py reads (profile `[semantic] manifest`); named here so that loading a
# profile does not load their readers.
MANIFESTS = ("Cargo.toml", "go.mod", "package.json", "pyproject.toml")

_SEMANTIC_KEYS = {"tags", "query", "self_receivers", "members_in_scope", "member_imports", "package_types", "source_sets",
                  "module_separator", "member_separator",
                  "module_roots", "relative_parents", "index_names", "module_binding", "package", "scopes", "function_scopes", "anonymous_classes",
                  "member_of", "self_fields", "type_names", "globals", "manifest", "hidden_names", "duplicates",
                  "signatures", "module_files", "source_folders",
                  "package_roots", "packages", "path_maps", "version_suffix", "qualified_names", "root_module", "specifiers",
                  "module_replaces", "workspace", "workspace_modules",
                  "guards", "path_prefixes", "default_export", "default_words", "whole_default", "root_specifiers",
                  "specifier_files", "star_names", "star_hidden", "star_list", "star_named", "stubs",
                  "import_statements", "any_name", "all_members", "common_members", "memberless_bases", "constructs", "export_receivers", "receiver_forms", "attribute_guards", "class_bases", "member_writes", "declaration_files", "own_kinds", "file_local",
                  "fixture_files", "fixture_decorator", "fixture_requesters", "fixture_calls", "fixture_supplied",
                  "extension", "included", "partial_parse", "silent", "namespaces", "namespaces_nest", "namespace_keyword",
                  "parse_masks", "conditional"}
_SIGNATURE_KEYS = {"parameters", "counted", "keywords", "keyword_open", "positional_only", "keyword_arguments", "receivers", "receiver_first", "uncountable", "defaults", "wrappers",
                   "calls", "arguments", "argument_lists", "spread", "token_lists", "token_unknown",
                   "transparent", "optional", "empty_unknown", "none", "default_tokens", "constructor", "records"}
_PACKAGE_KEYS = {"workspaces", "manifest", "entry_fields", "conditions", "built_folders", "built_extensions",
                 "source_folders", "entries", "dependency_fields", "source_roots"}
_DUPLICATE_KEYS = {"declarations", "through", "signature", "headers", "lead", "exempt", "repeatable", "imports",
                   "bindings", "overloads", "implementations", "parameter_name"}


# A tree takes ~27 times its source's bytes (695 KB of this package's Python sources kept: 18.9 MB),
# so the kept trees are bounded by their sources' bytes: 256 KB, ~7 MB of trees.
PARSED_KEPT = 32                # trees kept by Profile.parse, of the sources parsed last ...
PARSED_KEPT_BYTES = 1 << 18     # ... whose sources hold this many bytes in all at most
PARSED_KEPT_SOURCE = 1 << 16    # a bigger source is parsed every time, not kept
_PARSED: "OrderedDict[tuple, tree_sitter.Tree]" = OrderedDict()
_parsed_bytes = 0
_parsed_lock = threading.Lock()


@functools.lru_cache(maxsize=None)
def _alias_pattern(aliases: tuple[tuple[bytes, bytes], ...]) -> re.Pattern[bytes]:
    """The aliased texts, each where it starts a word (`retry!` is not `try!`)."""
    return re.compile(rb"(?<![A-Za-z0-9_])(?:" + b"|".join(re.escape(text) for text, _ in aliases) + rb")")


@functools.lru_cache(maxsize=None)
def _masks(patterns: tuple[str, ...]) -> tuple[re.Pattern[bytes], ...]:
    return tuple(re.compile(pattern.encode(), re.MULTILINE) for pattern in patterns)


def _blank_mask(match: re.Match[bytes]) -> bytes:
    """The match with its `mask` group read as spaces (newlines kept: rows and columns stay)."""
    start, end = match.span("mask")
    whole = match.group(0)
    offset = match.start()
    hidden = re.sub(rb"[^\n]", b" ", whole[start - offset:end - offset])
    return whole[:start - offset] + hidden + whole[end - offset:]


@_hash_kept
@value_class
class Profile:
    name: str
    extensions: tuple[str, ...]
    filenames: tuple[str, ...]
    grammar: str
    grammar_function: str
    comments: frozenset[str]
    terminators: frozenset[str]
    containers: tuple[ContainerRule, ...]
    declarations: tuple[tuple[str, str], ...]
    labels: tuple[tuple[str, str], ...] = ()   # how a declaration reads where its key does not ([labels])
    data: bool = False
    anchored: frozenset[str] = frozenset()
    union_when_added_twice: frozenset[str] = frozenset()
    repeatable: frozenset[str] = frozenset()
    order_sensitive: bool = False            # containers run top to bottom (Python module, class body)
    deferred: frozenset[str] = frozenset()   # kinds whose body runs later (Python def, lambda)
    name_kinds: frozenset[str] = frozenset()  # name tokens not ending in "identifier" (Ruby constant)
    registrations: frozenset[str] = frozenset()   # commands whose calls are a list (Ruby `gem`)
    variant_markers: tuple[str, ...] = ()    # lead text marking a conditional variant (Rust `#[cfg`)
    lazy_annotation_extensions: tuple[str, ...] = ()   # files whose annotations never run (Python stubs)
    lazy_annotation_marker: re.Pattern[bytes] | None = None   # text meaning the same (`from __future__ ...`)
    semantic: SemanticRules = SemanticRules()   # the semantic check's data; disabled when empty
    binds: str | None = None                 # query source: names members bind (names.py)
    claimed: tuple[str, ...] = ()            # extensions taken from another profile by content (`claims`)
    section_opener: re.Pattern[str] | None = None   # a line opening a section (Markdown heading): guards.py
    added_twice_conflict: re.Pattern[str] | None = None   # first lines that keep union_when_added_twice off
    parse_aliases: tuple[tuple[bytes, bytes], ...] = ()   # text read as another of equal length, parse only
    parse_masks: tuple[str, ...] = ()   # regexes whose group `mask` the parse reads as spaces (_masks)

    def parse(self, source: bytes, like: Similar | None = None) -> tree_sitter.Tree:
        """The tree of `source` under this profile's grammar, `parse_aliases` applied (offsets
        are the source's: each alias has the length of the text it stands for). The trees of the
        sources parsed last are kept (PARSED_KEPT): a merge's resolver parses a conflicted file's
        versions and the post-merge check parses them again (a drain of 6 tasks adding to one
        file parsed 12 contents 51 times). Each caller gets its own copy (a tree is read by one
        thread at a time; copying is shallow).

        `like`: another version of the same file, a function giving the line diff's hunks from it
        to `source`, and that version's tree from this profile's `parse` if the caller holds it (else a kept one is
        looked for). `source` is then parsed from that tree (reparse.py: tree-sitter re-reads what
        the diff touched), which gives the tree a fresh parse gives."""
        keyed = len(source) <= PARSED_KEPT_SOURCE and type(source) is bytes   # a bytearray: no key
        key = (self.grammar, self.grammar_function, (self.parse_aliases, self.parse_masks), source)
        similar = None
        if keyed or like is not None:
            with _parsed_lock:
                kept = _PARSED.get(key) if keyed else None
                if kept is not None:
                    _PARSED.move_to_end(key)
                    return kept.copy()
                if like is not None:
                    similar = like[2] if like[2] is not None else _PARSED.get(key[:3] + (like[0],))
                    similar = None if similar is None else similar.copy()
        parser = tree_sitter.Parser(self.language)
        tree = None
        if similar is not None and like is not None:
            tree = reparse(parser, similar, self._aliased(like[0]), self._aliased(source), like[1]())
        if tree is None:
            tree = parser.parse(self._aliased(source))
        if not keyed:
            return tree
        global _parsed_bytes
        with _parsed_lock:
            if key not in _PARSED:
                _PARSED[key] = tree
                _parsed_bytes += len(source)
                while len(_PARSED) > PARSED_KEPT or _parsed_bytes > PARSED_KEPT_BYTES:
                    old, _ = _PARSED.popitem(last=False)
                    _parsed_bytes -= len(old[3])
        return tree.copy()

    def _aliased(self, source: bytes) -> bytes:
        """What the parser reads for `source`: its aliases and masks applied, its length kept."""
        if self.parse_aliases and any(text in source for text, _ in self.parse_aliases):
            source = _alias_pattern(self.parse_aliases).sub(lambda match: dict(self.parse_aliases)[match.group(0)],
                                                            source)
        for pattern in _masks(self.parse_masks):
            source = pattern.sub(_blank_mask, source)
        return source

    def annotations_run(self, path: str, source: bytes) -> bool:
        """Whether type annotations in `source` (a file at `path`) run where they stand."""
        if path.rsplit(".", 1)[-1] in self.lazy_annotation_extensions:
            return False
        return self.lazy_annotation_marker is None or self.lazy_annotation_marker.search(source) is None

    @functools.cached_property
    def language(self) -> tree_sitter.Language:
        return _language(self.grammar, self.grammar_function)

    @functools.cached_property
    def binds_query(self) -> tree_sitter.Query | None:
        """The compiled `binds` query (None when the profile has none)."""
        return tree_sitter.Query(self.language, self.binds) if self.binds else None

    @functools.cached_property
    def semantic_reading(self) -> "Profile":
        """This profile as the semantic check reads a version: its `[semantic] parse_masks` added to
        its own (C#'s `#if`/`#else` lines, which the structured merge keeps as members, read as spaces
        by the check alone); itself where it has none."""
        if not self.semantic.parse_masks or self.parse_masks[-len(self.semantic.parse_masks):] == self.semantic.parse_masks:
            return self   # (no masks of its own, or this is the reading already)
        return dataclasses.replace(self, parse_masks=self.parse_masks + self.semantic.parse_masks)

    @functools.cached_property
    def declaration_keys(self) -> dict[str, str]:
        return dict(self.declarations)

    @functools.cached_property
    def label_templates(self) -> dict[str, str]:
        """The templates a declaration's label is read by: its `[labels]` one, else its key's."""
        return dict(self.declarations) | dict(self.labels)

    def container_rule(self, node: tree_sitter.Node,
                       key_of: Callable[[tree_sitter.Node], str | None] | None = None) -> ContainerRule | None:
        """The rule that makes `node` a container, if any (the first matching one wins).

        Rules with a `parent_key` match only when `key_of` gives that key to the nearest keyed
        ancestor (at most three levels up)."""
        for rule in self.containers:
            if rule.kind != node.type:
                continue
            if rule.parent is not None and (node.parent is None or node.parent.type != rule.parent):
                continue
            if rule.top_level and (node.parent is None or node.parent.parent is None
                                   or node.parent.parent.parent is not None):
                continue
            if rule.parent_key is not None and not self._inside_key(node, rule.parent_key, key_of):
                continue
            return rule
        return None

    @staticmethod
    def _inside_key(node: tree_sitter.Node, wanted: str,
                    key_of: Callable[[tree_sitter.Node], str | None] | None) -> bool:
        """Whether the nearest keyed ancestor's key is `wanted`; a `wanted` of parts joined by " > "
        names the keyed ancestors outermost first (`[project] > dependencies`: the pair
        `dependencies` of the table `[project]`). A "*" in a part matches any text."""
        if key_of is None:
            return False
        parts = wanted.split(" > ")
        ancestor = node.parent
        for part in reversed(parts):
            for _ in range(3):
                if ancestor is None:
                    return False
                key = key_of(ancestor)
                ancestor = ancestor.parent
                if key is not None:
                    if not _key_matches(part, key):
                        return False
                    break
            else:
                return False
        return True


@functools.lru_cache(maxsize=None)
def _key_pattern(part: str) -> re.Pattern[str]:
    return re.compile(".*".join(re.escape(piece) for piece in part.split("*")), re.DOTALL)


def _key_matches(part: str, key: str) -> bool:
    """`part` with each "*" standing for any text (keys hold brackets and dots, so no glob classes)."""
    if "*" not in part:
        return key == part
    return _key_pattern(part).fullmatch(key) is not None


@functools.lru_cache(maxsize=None)
def _language(module_name: str, function: str) -> tree_sitter.Language:
    from .grammar_wheels import language_function   # the wheel's binding, without its __init__'s imports

    try:
        found = language_function(module_name, function)
    except ImportError as error:
        raise ConfigError(f"grammar wheel {module_name!r} is not installed",
                          fix=f"pip install {module_name.replace('_', '-')}") from error
    return tree_sitter.Language(found())


_PROFILE_KEYS = frozenset({
    "name", "grammar", "grammar_function", "extensions", "filenames", "comments", "terminators", "containers",
    "declarations", "labels", "data", "anchored", "repeatable", "order_sensitive", "deferred", "name_kinds",
    "variant_markers", "lazy_annotations", "binds", "semantic", "claims", "section_opener", "parse_aliases",
    "parse_masks", "union_when_added_twice", "added_twice_conflict", "code", "registrations"})
_CONTAINER_KEYS = frozenset({"kind", "parent", "unordered", "member_field", "separator", "keep_sorted", "parent_key",
                             "top_level", "statements", "commute"})


def _registrations(raw: dict[str, Any], source: str) -> frozenset[str]:
    """The profile's `registrations`: a list of command names (plain identifiers), or `*.NAME` for
    the method NAME called on any receiver (`spec.add_dependency`)."""
    names = raw.get("registrations", [])
    if not isinstance(names, list) or not all(isinstance(n, str) and n.removeprefix("*.").isidentifier()
                                              for n in names):
        raise ConfigError(f"language profile {source}: registrations must be a list of command names, got {names!r}",
                          fix='write registrations = ["gem", "*.add_dependency"]')
    return frozenset(names)


class _Grammar:
    """The grammar a profile names, and the checks that each node kind, field and key template the
    profile mentions exists in it (a `ConfigError` naming the setting and the fix otherwise)."""

    def __init__(self, source: str, name: str, function: str) -> None:
        self.source, self.name = source, name
        self.language = _language(name, function)

    def kind(self, kind: str, where: str, named: bool = True) -> None:
        if self.language.id_for_node_kind(kind, named) is None:
            raise ConfigError(f"language profile {self.source}: unknown node kind {kind!r} in {where}",
                              fix=f"use a node kind of the {self.name} grammar")

    def field(self, field_name: str, where: str) -> None:
        if self.language.field_id_for_name(field_name) is None:
            raise ConfigError(f"language profile {self.source}: unknown field {field_name!r} in {where}",
                              fix=f"use a field name of the {self.name} grammar")

    def kinds(self, raw: dict[str, Any], key: str) -> frozenset[str]:
        """The node kinds listed under `key`, each checked."""
        kinds = frozenset(raw.get(key, []))
        for kind in kinds:
            self.kind(kind, key)
        return kinds

    def template(self, kind: str, template: str, what: str) -> None:
        """A key or label template: each `{part}` a pattern with a group, or a path of fields and node kinds."""
        for part in _PART.findall(template):
            if part.startswith("~"):
                try:
                    groups = re.compile(part[1:]).groups
                except re.error as error:
                    raise ConfigError(f"language profile {self.source}: {what} of {kind!r}: bad pattern {part[1:]!r} "
                                      f"({error})") from error
                if groups < 1:
                    raise ConfigError(f"language profile {self.source}: {what} of {kind!r}: pattern {part[1:]!r} "
                                      "needs a group (the key)")
                continue
            for step in part.lstrip("?").split("=", 1)[0].split("."):
                step = step.lstrip("*+")
                if step in ("@text", "@content"):
                    continue
                if self.language.field_id_for_name(step) is None and self.language.id_for_node_kind(step, True) is None:
                    raise ConfigError(f"language profile {self.source}: {what} of {kind!r} names {step!r}, "
                                      "which is neither a field nor a node kind of the grammar")


def _validate(raw: dict[str, Any], source: str) -> Profile:
    """One profile's TOML table, every setting checked against its grammar, frozen. Each group of
    settings is checked by its own step below, in the order their errors are reported."""
    name = _need(raw, source, "name", str)
    grammar = _Grammar(source, _need(raw, source, "grammar", str), raw.get("grammar_function", "language"))
    comments = grammar.kinds(raw, "comments")
    for kind in raw.get("terminators", []):
        grammar.kind(kind, "terminators", named=False)
    anchored = grammar.kinds(raw, "anchored")
    union_when_added_twice = grammar.kinds(raw, "union_when_added_twice")
    repeatable = grammar.kinds(raw, "repeatable")
    deferred = grammar.kinds(raw, "deferred")
    name_kinds = grammar.kinds(raw, "name_kinds")
    unknown_keys = set(raw) - _PROFILE_KEYS
    if unknown_keys:
        raise ConfigError(f"language profile {source}: unknown setting(s) {sorted(unknown_keys)}")
    claims = _claims(raw, source)
    lazy, marker = _lazy_annotations(raw, source)
    added_twice_conflict = _regex_setting(raw, "added_twice_conflict", source)
    opener = _regex_setting(raw, "section_opener", source)
    aliases = _parse_aliases(raw, source)
    binds = _binds(raw, grammar)
    containers = _containers(raw, grammar)
    declarations, labels = _keys_and_labels(raw, grammar)
    return Profile(
        name=name, extensions=tuple(raw.get("extensions", [])), filenames=tuple(raw.get("filenames", [])),
        grammar=grammar.name, grammar_function=raw.get("grammar_function", "language"), comments=comments,
        terminators=frozenset(raw.get("terminators", [])), containers=tuple(containers),
        declarations=tuple(declarations.items()), labels=tuple(labels.items()), data=bool(raw.get("data", False)),
        anchored=anchored,
        union_when_added_twice=union_when_added_twice,
        repeatable=repeatable, order_sensitive=bool(raw.get("order_sensitive", False)), deferred=deferred,
        name_kinds=name_kinds, registrations=_registrations(raw, source),
        variant_markers=tuple(raw.get("variant_markers", [])),
        lazy_annotation_extensions=tuple(lazy.get("extensions", [])), lazy_annotation_marker=marker,
        binds=binds, claimed=claims[0] if claims else (), section_opener=opener,
        added_twice_conflict=added_twice_conflict,
        parse_aliases=tuple((text.encode(), alias.encode()) for text, alias in aliases),
        parse_masks=_parse_masks(raw, source),
        semantic=_semantic_rules(raw.get("semantic", {}), source, grammar.kind, grammar.field, grammar.language),
    )


def _need(raw: dict[str, Any], source: str, key: str, kind: type) -> Any:
    if key not in raw or not isinstance(raw[key], kind):
        raise ConfigError(f"language profile {source}: missing or invalid {key!r}",
                          fix=f"set {key} to a {kind.__name__}")
    return raw[key]


def _lazy_annotations(raw: dict[str, Any], source: str) -> tuple[dict[str, Any], re.Pattern[bytes] | None]:
    """The `lazy_annotations` table and its compiled `marker`."""
    lazy = raw.get("lazy_annotations", {})
    if not isinstance(lazy, dict) or set(lazy) - {"extensions", "marker"}:
        raise ConfigError(f"language profile {source}: lazy_annotations takes `extensions` and `marker`")
    try:
        marker = re.compile(lazy["marker"].encode(), re.MULTILINE) if lazy.get("marker") else None
    except re.error as exc:
        raise ConfigError(f"language profile {source}: lazy_annotations.marker is not a regex: {exc}") from None
    return lazy, marker


def _regex_setting(raw: dict[str, Any], key: str, source: str) -> re.Pattern[str] | None:
    try:
        return re.compile(raw[key]) if raw.get(key) else None
    except (re.error, TypeError) as exc:
        raise ConfigError(f"language profile {source}: {key} is not a regex: {exc}") from None


def _parse_aliases(raw: dict[str, Any], source: str) -> list[list[str]]:
    """`parse_aliases`: pairs of texts of one length (the parse tree keeps the source's offsets)."""
    aliases = raw.get("parse_aliases", [])
    if not isinstance(aliases, list) or not all(
            isinstance(pair, list) and len(pair) == 2 and all(isinstance(text, str) and text for text in pair)
            and len(pair[0].encode()) == len(pair[1].encode()) for pair in aliases):
        raise ConfigError(f"language profile {source}: parse_aliases must be pairs of texts of equal length",
                          fix='write e.g. parse_aliases = [["try!", "tri!"]] (the parse tree keeps the source\'s offsets)')
    return aliases


def _conditional(raw: dict[str, Any], source: str) -> tuple[str, ...]:
    """`[semantic] conditional`: two regexes (a line opening a block the preprocessor may compile
    out, a line closing one), or none."""
    pair = raw.get("conditional", [])
    if not isinstance(pair, list) or len(pair) not in (0, 2) or not all(isinstance(p, str) for p in pair):
        raise ConfigError(f"language profile {source}: semantic.conditional must be two regexes (opening, closing)",
                          fix="write e.g. conditional = ['^[ \\t]*#[ \\t]*if\\b', '^[ \\t]*#[ \\t]*endif\\b']")
    for pattern in pair:
        try:
            re.compile(pattern)
        except re.error as error:
            raise ConfigError(f"language profile {source}: semantic.conditional {pattern!r} does not compile: {error}",
                              fix="write a Python regular expression") from None
    return tuple(pair)


def _parse_masks(raw: dict[str, Any], source: str, key: str = "parse_masks") -> tuple[str, ...]:
    """`parse_masks`: regexes that compile and name a group `mask` (what the parse reads as spaces)."""
    masks = raw.get("parse_masks", [])
    fix = f"write e.g. {key} = ['^(?P<mask>API_MACRO )'] (a regex with a group named mask)"
    if not isinstance(masks, list) or not all(isinstance(mask, str) for mask in masks):
        raise ConfigError(f"language profile {source}: {key} must be a list of regexes", fix=fix)
    for mask in masks:
        try:
            compiled = re.compile(mask.encode(), re.MULTILINE)
        except re.error as error:
            raise ConfigError(f"language profile {source}: {key} {mask!r} does not compile: {error}",
                              fix=fix) from None
        if "mask" not in compiled.groupindex:
            raise ConfigError(f"language profile {source}: {key} {mask!r} has no group named mask", fix=fix)
    return tuple(masks)


def _binds(raw: dict[str, Any], grammar: _Grammar) -> str | None:
    """The `binds` query: it compiles for the grammar and captures only what names.py reads."""
    binds = raw.get("binds")
    if binds is None:
        return None
    source = grammar.source
    if not isinstance(binds, str):
        raise ConfigError(f"language profile {source}: binds must be a tree-sitter query string")
    from ...kept_on_disk import keep, read_kept

    mark = _valid_binds_mark(binds, grammar)
    if read_kept(mark) is not None:
        return binds    # this text was found valid for this very grammar by an earlier process
    try:
        query = tree_sitter.Query(grammar.language, binds)
    except (tree_sitter.QueryError, ValueError, NameError, SyntaxError) as exc:
        raise ConfigError(f"language profile {source}: binds is not a valid query for {grammar.name}: {exc}",
                          fix="check the node kinds and fields against the grammar") from None
    # `@_...` captures only serve predicates (`(#any-of? @_def "def" "defp")`): names.py skips them.
    unknown_captures = {query.capture_name(i) for i in range(query.capture_count)
                        if not query.capture_name(i).startswith("_")} - {"name", "import", "path"}
    if unknown_captures:
        raise ConfigError(f"language profile {source}: binds captures {sorted(unknown_captures)}",
                          fix="capture only @name, @import and @path (and @_helpers for predicates)")
    keep(mark, "")
    return binds


VALID_BINDS = "valid-binds-v1"   # folder under the user's state folder (kept_on_disk.py)


def _valid_binds_mark(binds: str, grammar: _Grammar) -> Any:
    """The file whose presence says `binds` compiled, with only the captures names.py reads, for
    this grammar: keyed by the text, the grammar's compiled library (path, size, modification time),
    tree-sitter's version and this module's code. Validating compiled the query at each load of the
    profile (~6 ms of Python's, in every process that loads it: each CLI finish), though only
    processes that merge by names (`binds_query`) use it. None when the grammar's library is not
    found: then it is compiled each time, as before."""
    import os
    import sys

    from ...kept_on_disk import kept_path, source_of

    library = getattr(sys.modules.get(f"{grammar.name}._binding"), "__file__", None)
    code = source_of(__file__)
    try:
        info = os.stat(library) if library else None
    except OSError:
        return None
    if info is None or code is None:
        return None
    return kept_path(VALID_BINDS, [code] + [part.encode("utf-8", "surrogateescape") for part in (
        binds, grammar.name, library, str(info.st_size), str(info.st_mtime_ns),
        getattr(tree_sitter, "__version__", "") or "")])


def _containers(raw: dict[str, Any], grammar: _Grammar) -> list[ContainerRule]:
    """The `[[containers]]` rules, each option and node kind checked."""
    source = grammar.source
    containers = []
    for item in raw.get("containers", []):
        rule = ContainerRule(kind=item["kind"], parent=item.get("parent"), unordered=item.get("unordered", True),
                             member_field=item.get("member_field"), separator=item.get("separator"),
                             keep_sorted=item.get("keep_sorted", False), parent_key=item.get("parent_key"),
                             top_level=bool(item.get("top_level", False)),
                             statements=bool(item.get("statements", False)),
                             commute=bool(item.get("commute", False)))
        grammar.kind(rule.kind, "containers")
        if rule.commute and not rule.unordered:
            raise ConfigError(f"language profile {source}: container {rule.kind!r} has commute = true but is ordered",
                              fix="members commute only in an unordered container: drop commute, or unordered = false")
        if rule.parent:
            grammar.kind(rule.parent, "containers.parent")
        if rule.member_field:
            grammar.field(rule.member_field, "containers.member_field")
        if rule.separator:
            grammar.kind(rule.separator, "containers.separator", named=False)
        unknown = set(item) - _CONTAINER_KEYS
        if unknown:
            raise ConfigError(f"language profile {source}: unknown container option(s) {sorted(unknown)}")
        containers.append(rule)
    return containers


def _keys_and_labels(raw: dict[str, Any], grammar: _Grammar) -> tuple[dict[str, str], dict[str, str]]:
    """`[declarations]` (how a declaration's key is formed) and `[labels]` (how a keyed one reads)."""
    source = grammar.source
    declarations = _need(raw, source, "declarations", dict)
    for kind, template in declarations.items():
        grammar.kind(kind, "declarations")
        grammar.template(kind, template, "key")
    labels = raw.get("labels", {})
    if not isinstance(labels, dict) or not all(isinstance(template, str) for template in labels.values()):
        raise ConfigError(f"language profile {source}: labels must be a table of node kind = template")
    for kind, template in labels.items():
        grammar.kind(kind, "labels")
        if kind not in declarations:
            raise ConfigError(f"language profile {source}: label of {kind!r}, which has no key in [declarations]",
                              fix="a label says how a keyed declaration reads: give the kind a key first")
        grammar.template(kind, template, "label")
    return declarations, labels


def _semantic_rules(raw: Any, source: str, check_kind: Callable[[str, str], None],
                    check_field: Callable[[str, str], None],
                    language: tree_sitter.Language | None = None) -> SemanticRules:
    """The `[semantic]` table, its keys, types and node kinds checked (the query compiles lazily)."""
    if not isinstance(raw, dict):
        raise ConfigError(f"language profile {source}: [semantic] must be a table")
    unknown = set(raw) - _SEMANTIC_KEYS
    if unknown:
        raise ConfigError(f"language profile {source}: unknown [semantic] setting(s) {sorted(unknown)}",
                          fix=f"use only {sorted(_SEMANTIC_KEYS)}")

    def strings(key: str) -> tuple[str, ...]:
        value = raw.get(key, [])
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise ConfigError(f"language profile {source}: semantic.{key} must be a list of strings")
        return tuple(value)

    def text(key: str, default: str, allowed: tuple[str, ...] = ()) -> str:
        value = raw.get(key, default)
        if not isinstance(value, str) or (allowed and value not in allowed):
            raise ConfigError(f"language profile {source}: semantic.{key} must be "
                              + (" or ".join(repr(a) for a in allowed) if allowed else "a string"))
        return value

    def kind_to_field(key: str) -> tuple[tuple[str, str], ...]:
        value = raw.get(key, {})
        if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
            raise ConfigError(f"language profile {source}: semantic.{key} maps node kinds to field names")
        for kind, field_name in value.items():
            check_kind(kind, f"semantic.{key}")
            check_field(field_name, f"semantic.{key}")
        return tuple(value.items())

    for wheel in strings("tags"):
        if not wheel.isidentifier():
            raise ConfigError(f"language profile {source}: semantic.tags names {wheel!r}, not a module",
                              fix="name a grammar wheel's module, like tree_sitter_python")
    for kind in strings("type_names"):
        check_kind(kind, "semantic.type_names")
    for pattern in strings("module_files") + strings("specifier_files"):
        if pattern.count("{}") != 1 or pattern.startswith("/"):
            raise ConfigError(f"language profile {source}: semantic.module_files or specifier_files entry {pattern!r} must hold `{{}}` "
                              "once (the module's path) and be relative", fix='write it like "{}.ts" or "{}/__init__.py"')
    if strings("package_roots") and not raw.get("manifest"):
        raise ConfigError(f"language profile {source}: semantic.package_roots needs semantic.manifest "
                          "(the file whose folder a package root stands below)", fix='add manifest = "Cargo.toml"')
    for name in strings("path_maps"):
        if not name or "/" in name:
            raise ConfigError(f"language profile {source}: semantic.path_maps entry {name!r} must be a file name",
                              fix='write it like "tsconfig.json"')
    for key in ("source_folders", "package_roots"):
        for folder in strings(key):
            if not folder or folder.startswith("/") or ".." in folder.split("/"):
                raise ConfigError(f"language profile {source}: semantic.{key} entry {folder!r} must be a "
                                  "path below the project", fix='write it like "src" or "src/lib.rs"')
    for key in ("version_suffix", "qualified_names", "root_module", "source_sets", "module_replaces", "workspace_modules",
                "file_local", "extension", "fixture_decorator", "fixture_requesters", "fixture_supplied"):
        try:
            found = re.compile(text(key, ""))
        except re.error as error:
            raise ConfigError(f"language profile {source}: semantic.{key} is not a regular expression ({error})",
                              fix="write a Python regular expression") from None
        if key == "root_module" and found.pattern and (found.groups < 1 or not raw.get("manifest")):
            raise ConfigError(f"language profile {source}: semantic.root_module needs a group (the import path) "
                              "and semantic.manifest (the file it reads)",
                              fix='write it like root_module = "^module[ \\t]+(\\S+)" with manifest = "go.mod"')
        if key == "module_replaces" and found.pattern and (found.groups < 2 or not raw.get("root_module")):
            raise ConfigError(f"language profile {source}: semantic.module_replaces needs two groups (the module "
                              "path, the local folder) and semantic.root_module",
                              fix='write it like module_replaces = "^replace[ \\t]+(\\S+)[ \\t]+=>[ \\t]+(\\.\\S*)"')
        if key == "workspace_modules" and (bool(found.pattern) != bool(raw.get("workspace")) or found.pattern and (
                found.groups < 1 or not raw.get("root_module"))):
            raise ConfigError(f"language profile {source}: semantic.workspace and semantic.workspace_modules go "
                              "together, the pattern with a group (a module's folder), with semantic.root_module",
                              fix='write them like workspace = "go.work" with workspace_modules = "^[ \\t]*(?:use[ \\t]+)?(\\.\\S*)"')
    for key in ("members_in_scope", "member_imports", "package_types", "partial_parse", "namespaces_nest"):
        if not isinstance(raw.get(key, False), bool):
            raise ConfigError(f"language profile {source}: semantic.{key} must be true or false")
    return SemanticRules(
        tags=strings("tags"), query=text("query", ""), self_receivers=frozenset(strings("self_receivers")),
        members_in_scope=raw.get("members_in_scope", False), member_imports=raw.get("member_imports", False),
        package_types=raw.get("package_types", False), source_sets=text("source_sets", ""),
        module_separator=text("module_separator", "."), member_separator=text("member_separator", "."),
        module_roots=frozenset(strings("module_roots")),
        relative_parents=frozenset(strings("relative_parents")), index_names=frozenset(strings("index_names")),
        module_binding=text("module_binding", "full", ("full", "last")),
        package=text("package", "file", ("file", "directory", "linked")), scopes=kind_to_field("scopes"),
        function_scopes=kind_to_field("function_scopes"), anonymous_classes=kind_to_field("anonymous_classes"),
        member_of=kind_to_field("member_of"), self_fields=kind_to_field("self_fields"), type_names=frozenset(strings("type_names")),
        globals=frozenset(strings("globals")),
        manifest=text("manifest", "", ("",) + MANIFESTS), hidden_names=text("hidden_names", ""),
        module_files=strings("module_files"), source_folders=strings("source_folders"),
        package_roots=strings("package_roots"), path_maps=strings("path_maps"),
        version_suffix=text("version_suffix", ""), qualified_names=text("qualified_names", ""),
        root_module=text("root_module", ""),
        module_replaces=text("module_replaces", ""), workspace=text("workspace", ""),
        workspace_modules=text("workspace_modules", ""),
        specifiers=text("specifiers", ""), guards=text("guards", ""), specifier_files=strings("specifier_files"),
        import_statements=text("import_statements", ""),
        path_prefixes=kind_to_field("path_prefixes"),
        default_export=text("default_export", ""), default_words=frozenset(strings("default_words")),
        whole_default=text("whole_default", ""), root_specifiers=strings("root_specifiers"),
        star_names=text("star_names", ""), star_hidden=text("star_hidden", ""), star_list=text("star_list", ""),
        star_named=text("star_named", ""),
        stubs=strings("stubs"), any_name=strings("any_name"), all_members=frozenset(strings("all_members")),
        common_members=frozenset(strings("common_members")), memberless_bases=frozenset(strings("memberless_bases")),
        constructs=text("constructs", ""), receiver_forms=strings("receiver_forms"), export_receivers=frozenset(strings("export_receivers")), attribute_guards=text("attribute_guards", ""),
        class_bases=text("class_bases", ""), member_writes=text("member_writes", ""),
        declaration_files=strings("declaration_files"),
        own_kinds=frozenset(strings("own_kinds")), file_local=text("file_local", ""), extension=text("extension", ""),
        fixture_files=strings("fixture_files"), fixture_decorator=text("fixture_decorator", ""),
        fixture_requesters=text("fixture_requesters", ""), fixture_calls=strings("fixture_calls"),
        fixture_supplied=text("fixture_supplied", ""),
        included=frozenset(strings("included")),
        partial_parse=raw.get("partial_parse", False), silent=text("silent", ""),
        namespaces=text("namespaces", ""), namespaces_nest=raw.get("namespaces_nest", True),
        namespace_keyword=text("namespace_keyword", "namespace"), parse_masks=tuple(_parse_masks(raw, source, "semantic.parse_masks")),
        conditional=_conditional(raw, source),
        duplicates=_duplicate_rules(raw.get("duplicates", {}), source, check_kind, check_field, language),
        signatures=_signature_rules(raw.get("signatures", {}), source, check_kind, check_field),
        packages=_package_rules(raw.get("packages", {}), source),
    )


def _package_rules(raw: Any, source: str) -> PackageRules:
    """The `[semantic.packages]` table: its keys, and paths that stay inside a package's folder."""
    where = f"language profile {source}: semantic.packages"
    strings = _subtable_strings(raw, where, _PACKAGE_KEYS)
    workspaces = []
    for entry in strings("workspaces"):
        file, _, key = entry.partition(":")
        if not file or not key or not file.endswith((".json", ".yaml", ".yml")) or "/" in file:
            raise ConfigError(f"{where}.workspaces entry {entry!r} must be `file:key` (a JSON or YAML file "
                              "at the root)", fix='write it like "package.json:workspaces"')
        workspaces.append((file, tuple(key.split("."))))
    source_roots = []
    for entry in strings("source_roots"):
        file, _, key = entry.partition(":")
        if not file or not key or not file.endswith(".json") or "/" in file:
            raise ConfigError(f"{where}.source_roots entry {entry!r} must be `file:key` (a JSON file in "
                              "the package's folder)", fix='write it like "tsconfig.json:compilerOptions.rootDir"')
        source_roots.append((file, tuple(key.split("."))))
    manifest = raw.get("manifest", "")
    if not isinstance(manifest, str) or "/" in manifest or (workspaces and not manifest):
        raise ConfigError(f"{where}.manifest must be a file name (each package's, like package.json)")
    for key in ("source_folders", "entries"):
        for path in strings(key):
            if not path or path.startswith("/") or ".." in path.split("/"):
                raise ConfigError(f"{where}.{key} entry {path!r} must be a path inside the package's folder")
    for extension in strings("built_extensions"):
        if not extension.startswith("."):
            raise ConfigError(f"{where}.built_extensions entry {extension!r} must start with a dot")
    return PackageRules(workspaces=tuple(workspaces), manifest=manifest, entry_fields=strings("entry_fields"),
                        conditions=strings("conditions"), built_folders=frozenset(strings("built_folders")),
                        built_extensions=strings("built_extensions"), source_folders=strings("source_folders"),
                        entries=strings("entries"), dependency_fields=strings("dependency_fields"),
                        source_roots=tuple(source_roots))


def _subtable_strings(raw: Any, where: str, allowed: frozenset[str] | set[str]) -> Callable[[str], tuple[str, ...]]:
    """Check that a `[semantic.*]` sub-table is a table with only `allowed` keys; return the reader
    of its string-list settings (a missing key reads as empty)."""
    if not isinstance(raw, dict):
        raise ConfigError(f"{where} must be a table")
    unknown = set(raw) - set(allowed)
    if unknown:
        raise ConfigError(f"{where}: unknown setting(s) {sorted(unknown)}", fix=f"use only {sorted(allowed)}")

    def strings(key: str) -> tuple[str, ...]:
        value = raw.get(key, [])
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise ConfigError(f"{where}.{key} must be a list of strings")
        return tuple(value)

    return strings


def _signature_rules(raw: Any, source: str, check_kind: Callable[[str, str], None],
                     check_field: Callable[[str, str], None]) -> SignatureRules:
    """The `[semantic.signatures]` table, its keys, types, node kinds and fields checked."""
    where = f"language profile {source}: semantic.signatures"
    strings = _subtable_strings(raw, where, _SIGNATURE_KEYS)

    def kind_to_field(key: str, empty: bool) -> tuple[tuple[str, str], ...]:
        value = raw.get(key, {})
        if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
            raise ConfigError(f"{where}.{key} maps node kinds to field names")
        for kind, field_name in value.items():
            check_kind(kind, f"semantic.signatures.{key}")
            if field_name or not empty:
                check_field(field_name, f"semantic.signatures.{key}")
        return tuple(value.items())

    paths = tuple(tuple(p.split("/")) for p in strings("parameters"))
    for path in paths:
        for step in path:
            check_field(step, "semantic.signatures.parameters")
    for key in ("receivers", "uncountable", "wrappers", "argument_lists", "spread", "token_lists", "optional",
                "keyword_open", "positional_only"):
        for kind in strings(key):
            check_kind(kind, f"semantic.signatures.{key}")
    for name in strings("defaults"):
        check_field(name, "semantic.signatures.defaults")
    arguments = raw.get("arguments", "arguments")
    if not isinstance(arguments, str):
        raise ConfigError(f"{where}.arguments must be a field name")
    if raw:
        check_field(arguments, "semantic.signatures.arguments")
    for key in ("receiver_first", "empty_unknown"):
        if not isinstance(raw.get(key, False), bool):
            raise ConfigError(f"{where}.{key} must be true or false")
    for key in ("none", "constructor", "records"):
        if not isinstance(raw.get(key, ""), str):
            raise ConfigError(f"{where}.{key} must be a string")
    return SignatureRules(parameters=paths, counted=kind_to_field("counted", True),
                          keywords=kind_to_field("keywords", True), keyword_open=frozenset(strings("keyword_open")),
                          positional_only=frozenset(strings("positional_only")),
                          keyword_arguments=kind_to_field("keyword_arguments", False),
                          receivers=frozenset(strings("receivers")), receiver_first=raw.get("receiver_first", False),
                          uncountable=frozenset(strings("uncountable")), defaults=frozenset(strings("defaults")),
                          wrappers=frozenset(strings("wrappers")), calls=kind_to_field("calls", False),
                          arguments=arguments, argument_lists=frozenset(strings("argument_lists")),
                          spread=frozenset(strings("spread")), token_lists=frozenset(strings("token_lists")),
                          token_unknown=frozenset(strings("token_unknown")),
                          transparent=frozenset(strings("transparent")), optional=frozenset(strings("optional")),
                          empty_unknown=raw.get("empty_unknown", False), none=raw.get("none", ""),
                          default_tokens=frozenset(strings("default_tokens")),
                          constructor=raw.get("constructor", ""), records=raw.get("records", ""))


def _duplicate_rules(raw: Any, source: str, check_kind: Callable[[str, str], None],
                     check_field: Callable[[str, str], None],
                     language: tree_sitter.Language | None = None) -> DuplicateRules:
    """The `[semantic.duplicates]` table, its keys, types and node kinds checked."""
    where = f"language profile {source}: semantic.duplicates"
    strings = _subtable_strings(raw, where, _DUPLICATE_KEYS)

    for key in ("declarations", "through", "lead", "imports", "overloads", "implementations"):
        for kind in strings(key):
            check_kind(kind, f"semantic.duplicates.{key}")
    headers = raw.get("headers", {})
    if not isinstance(headers, dict) or not all(isinstance(v, str) for v in headers.values()):
        raise ConfigError(f"{where}.headers maps node kinds to field names")
    for kind, field_name in headers.items():
        check_kind(kind, "semantic.duplicates.headers")
        check_field(field_name, "semantic.duplicates.headers")
    signature = raw.get("signature")
    if signature is not None:
        if not isinstance(signature, str):
            raise ConfigError(f"{where}.signature must be a field name")
        check_field(signature, "semantic.duplicates.signature")
    parameter_name = raw.get("parameter_name")
    if parameter_name is not None:
        if not isinstance(parameter_name, str) or signature is None:
            raise ConfigError(f"{where}.parameter_name must be a field name, and needs `signature`")
        check_field(parameter_name, "semantic.duplicates.parameter_name")
    exempt = raw.get("exempt")
    try:
        pattern = re.compile(exempt, re.MULTILINE) if exempt is not None else None
    except (re.error, TypeError) as error:
        raise ConfigError(f"{where}.exempt is not a regular expression: {error}") from None
    bindings = raw.get("bindings", "")
    if not isinstance(bindings, str):
        raise ConfigError(f"{where}.bindings must be a tree-sitter query (a string)")
    if bindings and language is not None:
        try:
            query = tree_sitter.Query(language, bindings)
        except (tree_sitter.QueryError, ValueError, NameError, SyntaxError) as exc:
            raise ConfigError(f"{where}.bindings is not a valid query: {exc}",
                              fix="check the node kinds and fields against the grammar") from None
        if {query.capture_name(i) for i in range(query.capture_count)} != {"bound"}:
            raise ConfigError(f"{where}.bindings must capture only @bound (the name an import binds)")
    return DuplicateRules(declarations=frozenset(strings("declarations")), through=frozenset(strings("through")),
                          signature=signature, headers=tuple(headers.items()), lead=frozenset(strings("lead")),
                          exempt=pattern, repeatable=frozenset(strings("repeatable")),
                          imports=frozenset(strings("imports")), bindings=bindings,
                          overloads=frozenset(strings("overloads")),
                          implementations=frozenset(strings("implementations")), parameter_name=parameter_name)


def load_profile_text(text: str, source: str = "<string>") -> Profile:
    """Parse and validate one profile from TOML text (used by the loader and by tests)."""
    return _validate(_toml(text, source), source)


@functools.lru_cache(maxsize=None)
def _shipped_profile(name: str) -> Profile:
    """One shipped profile, validated (and its grammar loaded) on first use: a merge of one file
    pays for its own language only, and a profile error still stops its first use, loudly."""
    return _validate(shipped_toml(name, dict(_shipped())[name]), name)


@functools.lru_cache(maxsize=1)
def load_profiles() -> tuple[Profile, ...]:
    """Every profile shipped in `worktree_coord.grammars`, validated."""
    return tuple(_shipped_profile(name) for name, _ in _shipped())


def profile_for_path(path: str, *contents: bytes) -> Profile | None:
    """The profile that handles `path` (by file name first, then by extension), or None. With the
    file's `contents` (each version of a merge), a profile whose `claims` marker matches any of
    them takes the file from the one its extension names (all versions merge with one grammar).
    Which one is profile_index.py's answer; the profile is validated here on its first use."""
    name = profile_name_for_path(path, *contents)
    return _shipped_profile(name) if name is not None else None


def member_name(path: str, container: tuple[str, ...], name: str) -> str:
    """A definition of `path` named as its language writes a member (`Color.RED`, Rust's `Color::Red`):
    what a finding about it says, in the text and the JSON faces alike."""
    profile = profile_for_path(path)
    return (profile.semantic if profile is not None else SemanticRules()).member_name(container, name)
