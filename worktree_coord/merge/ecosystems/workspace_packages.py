"""A package of the repository's own workspace, imported by its name: which file of the tree it names.

Stage: the post-merge semantic check (semantic.py), while reexports.py locates the file an import's
module names, for a bare specifier (`@acme/core`, `@acme/core/util`, `corelib`) that no file of the
merge answers. Input: the specifier, the language's package rules (profile `[semantic.packages]`),
a reader of the base tree's files (`TreeFile`) and one of its folders (`TreeFolders`). Output: the
one file of the tree the specifier names, or none; reexports.py follows it like any other file.

Why: in a monorepo, `packages/app/src/main.ts` imports `hasProp` from `@acme/core`, the package at
packages/core (its package.json's `name`), linked into node_modules from that folder; its entry
`src/index.ts` is `export * from "./util"`. One side renamed `hasProp` in util.ts, the other added
a call of it in main.ts: git merged it clean, the landed tree did not build, and the check took the
bare specifier for a package from outside the tree (`react`) and found nothing.

How (precision first, nothing guessed):
- the workspace is what the tree's root declares (`workspaces` of package.json, a list or
  `{packages: [...]}`; `packages` of pnpm-workspace.yaml): each glob (`packages/*`, `apps/**`,
  `!packages/old`) expanded over the base tree's folders as npm expands it (member_globs.py:
  `node_modules` and dot folders skipped), each folder's package.json read for its `name`. Read
  once per check, on the first bare specifier asked about, never for a check without one; a name
  two folders hold names nothing, and a workspace past MAX_FOLDERS listings or MAX_PACKAGES
  packages names nothing at all (a package unseen could hold the name);
- the name alone names the entry: the first of the `entry_fields` the package.json holds (`types`,
  `source`, `module`, `main`, `exports`: a path, or a map of `"."` and `conditions`) decides; its
  path where the tree holds it, else (built output, `dist/index.d.ts`) the same path without its
  built folders and extension below the source folder or the package's (`src/index`, `index`,
  through `module_files`), else the package's `src/index` or `index`: the first of these paths
  the tree holds a file for (a source folder's before the package's own). The package's own
  source folder, where its config names one (`source_roots`: tsconfig.json's `rootDir`, as in
  socket.io's packages: `lib/`, built to `dist/`), comes before the profile's `src`;
- a package's own files importing it by its own name (self-reference, as Node and a test config's
  alias resolve it: Leaflet's specs import `leaflet`): the nearest manifest above the importer (the
  repository's root one too, where no workspace is declared) names the package whose entry it is;
  where no field leads to a file and no `src/index` stands, the package's source file named as the
  package (profile `entries`' `{name}`, `{Name}`: src/Leaflet.js, the bundle's input);
- a package that asks for the name from elsewhere (`npm:` alias, git URL, a release range the
  workspace's version is not in: an example pinned to `^4` while the package is at 5.0) names nothing;
- a subpath (`@acme/core/util`) through a map's `"./util"` (or a `"./*"` pattern) where the
  package has one (none that matches: nothing, as Node refuses it), else `util` below the package
  or its source folder;
- wherever two files answer one step, nothing.
"""

from __future__ import annotations

import json
import posixpath
import re
from typing import Any, Callable

from ... import member_globs
from ..languages.profiles import PackageRules, profile_for_path
from .path_maps import read_jsonc

MAX_FOLDERS = 512     # folder listings to expand the workspace's globs, per check
MAX_PACKAGES = 1000   # package manifests read, per check

TreeFile = Callable[[str, str], "bytes | None"]          # (which, path) -> bytes; None: absent
TreeFolders = Callable[[str, str], "list[str] | None"]   # (which, folder; "" the root) -> its subfolders' names


class WorkspacePackages:
    """`locate(specifier, importer, module_files)`: the file of the base tree a workspace package's name
    names (module docstring)."""

    def __init__(self, rules: PackageRules, tree_file: TreeFile, tree_folders: TreeFolders | None):
        self._rules = rules
        self._tree_file = tree_file
        self._tree_folders = tree_folders
        self._packages: dict[str, list[str]] | None = None   # name -> folders (read on the first question)
        self._manifests: dict[str, dict[str, Any]] = {}       # folder -> its package.json
        self._sources: dict[str, tuple[str, ...]] = {}        # folder -> its source folders, in order
        self._nearest: dict[str, dict[str, Any] | None] = {}  # folder -> the manifest it holds (None: none)

    def locate(self, specifier: str, importer: str, module_files: tuple[str, ...]) -> list[str]:
        """The one file `specifier`, imported in `importer`, names ([] if it is no workspace package's,
        or unsure); a module's file is looked for through the importer's profile `module_files`
        (`{}.ts`, `{}/index.ts`)."""
        if self._packages is None:
            self._packages = self._read_workspace()
        # `@acme/core/util`: the longest known name it starts with (a name never holds another's folder).
        name = specifier
        while name and name not in self._packages:
            name = name.rpartition("/")[0]
        folders = self._packages.get(name, []) if name else []
        if not folders:
            # The package the importer stands in, by its own name (its specs' `from 'leaflet'`).
            own = self._own_package(importer)
            if own is not None and (specifier == own[1] or specifier.startswith(own[1] + "/")):
                name, folders = own[1], [own[0]]
        elif len(folders) != 1 or not self._linked(importer, name, folders[0]):
            return []   # two packages hold the name, or a release is asked for
        if len(folders) != 1:
            return []   # not the workspace's, nor the importer's own (`react`)
        folder, subpath = folders[0], specifier[len(name):].strip("/")
        found = self._subpath(folder, subpath, module_files) if subpath else self._entry(folder, module_files)
        return [found] if found is not None and profile_for_path(found) is not None else []

    # -- the workspace: package names and folders ------------------------------------------------
    def _read_workspace(self) -> dict[str, list[str]]:
        globs: list[str] = []
        for file, key in self._rules.workspaces:
            value: Any = _load(file, self._tree_file("base", file))
            for part in key:
                value = value.get(part) if isinstance(value, dict) else None
            if isinstance(value, list):
                globs += [item for item in value if isinstance(item, str)]
        if not globs:
            return {}
        if any(".." in pattern.split("/") for pattern in globs):
            return {}   # a package outside the tree: its files are not read
        try:
            folders = member_globs.expand(globs, self._list_folder, skip=member_globs.skipped_by_javascript,
                                          budget=MAX_FOLDERS)
        except member_globs.Unsure:
            return {}
        if len(folders) > MAX_PACKAGES:
            return {}
        packages: dict[str, list[str]] = {}
        for folder in sorted(folders):
            manifest = _load(self._rules.manifest, self._tree_file("base", posixpath.join(folder, self._rules.manifest)))
            if isinstance(manifest, dict) and isinstance(manifest.get("name"), str) and manifest["name"]:
                self._manifests[folder] = manifest
                packages.setdefault(manifest["name"], []).append(folder)
        return packages

    def _own_package(self, importer: str) -> tuple[str, str] | None:
        """(folder, name) of the package `importer` stands in: the nearest manifest above it (the
        root's too, in a repository that declares no workspace); None when that manifest has no name
        or none stands above it. Node resolves a package's own name from inside it (self-reference),
        and a test config's alias does the same (Leaflet's specs import `leaflet`)."""
        directory = posixpath.dirname(importer)
        while True:
            if directory not in self._nearest:
                manifest = _load(self._rules.manifest, self._tree_file("base", posixpath.join(directory, self._rules.manifest)))
                self._nearest[directory] = manifest if isinstance(manifest, dict) else None
            manifest = self._nearest[directory]
            if manifest is not None:
                name = manifest.get("name")
                if not isinstance(name, str) or not name:
                    return None
                self._manifests.setdefault(directory, manifest)
                return directory, name
            if not directory:
                return None
            directory = posixpath.dirname(directory)

    def _list_folder(self, folder: str) -> list[str] | None:
        if self._tree_folders is None:
            raise member_globs.Unsure   # a glob nothing can expand
        return self._tree_folders("base", folder)

    def _linked(self, importer: str, name: str, folder: str) -> bool:
        """Whether the importer's package gets `name` from the workspace: it declares no other source
        for it (a `workspace:` range, `*`, or a version the workspace's package is; not an `npm:`
        alias, a git or file URL, nor a release the package is not: an example pinned to `^4`)."""
        directory = posixpath.dirname(importer)
        while directory not in self._manifests:
            if not directory:
                return True   # not inside a package of the workspace: the root's node_modules links them
            directory = posixpath.dirname(directory)
        manifest = self._manifests[directory]
        for field in self._rules.dependency_fields:
            spec = manifest.get(field, {}).get(name) if isinstance(manifest.get(field), dict) else None
            if isinstance(spec, str):
                return _selects(spec.strip(), self._manifests[folder].get("version"))
        return True

    # -- a package's entry and subpaths -------------------------------------------------------------
    def _entry(self, folder: str, module_files: tuple[str, ...]) -> str | None:
        manifest = self._manifests[folder]
        for field in self._rules.entry_fields:
            if field in manifest:
                target = _target(manifest[field], ".", self._rules.conditions)
                if target is not None:
                    return self._file(folder, target, module_files)
        return self._first(folder, self._entries(folder), module_files)

    def _subpath(self, folder: str, subpath: str, module_files: tuple[str, ...]) -> str | None:
        for field in self._rules.entry_fields:
            value = self._manifests[folder].get(field)
            if isinstance(value, dict) and any(key.startswith(".") for key in value):
                # A map of subpaths (`exports`): Node resolves only what it lists.
                target = _target(value, "./" + subpath, self._rules.conditions)
                return self._file(folder, target, module_files) if target is not None else None
        stems = [subpath] + [posixpath.join(source, subpath) for source in self._source_folders(folder)]
        return self._one(folder, stems, module_files)

    def _file(self, folder: str, target: str, module_files: tuple[str, ...]) -> str | None:
        """The file a manifest's path names: itself where the tree holds it, else its source."""
        path = posixpath.normpath(target)
        if path == ".." or path.startswith(("../", "/")):
            return None
        if self._exists(posixpath.join(folder, path)):
            return posixpath.join(folder, path)
        stem = next((path[:-len(ext)] for ext in self._rules.built_extensions if path.endswith(ext)), path)
        parts = stem.split("/")
        while len(parts) > 1 and parts[0] in self._rules.built_folders:
            parts = parts[1:]   # dist/esm/index.js: built from index, below the source folder
        stem = "/".join(parts)
        stems = [posixpath.join(source, stem) for source in self._source_folders(folder)] + [stem]
        return self._first(folder, stems + self._entries(folder), module_files)

    def _entries(self, folder: str) -> list[str]:
        """The entry's paths where no field leads to a file: the own source folder's index first."""
        own = [posixpath.join(source, "index") for source in self._source_folders(folder)
               if source not in self._rules.source_folders]
        name = self._manifests[folder].get("name")
        short = name.rpartition("/")[2] if isinstance(name, str) else ""
        # `{name}`: the package's name without its scope, as a bundle's input is often named
        # (Leaflet's src/Leaflet.js); `{Name}` capitalized.
        named = [entry.replace("{name}", short).replace("{Name}", short[:1].upper() + short[1:])
                 for entry in self._rules.entries if short and ("{name}" in entry or "{Name}" in entry)]
        return own + [entry for entry in self._rules.entries if entry not in own and "{" not in entry] + \
            [entry for entry in named if entry not in own]

    def _source_folders(self, folder: str) -> tuple[str, ...]:
        """The package's source folders: the one its own config names (tsconfig's `rootDir`), then the
        profile's. A config that does not parse, or a folder outside the package, adds nothing."""
        if folder not in self._sources:
            own: list[str] = []
            for file, key in self._rules.source_roots:
                data = self._tree_file("base", posixpath.join(folder, file))
                try:
                    value: Any = read_jsonc(data) if data is not None else None
                except (ValueError, UnicodeDecodeError):
                    value = None
                for part in key:
                    value = value.get(part) if isinstance(value, dict) else None
                if isinstance(value, str):
                    path = posixpath.normpath(value.strip())
                    if path not in (".", "..") and not path.startswith(("../", "/")) and path not in own:
                        own.append(path)
            self._sources[folder] = tuple(own) + tuple(s for s in self._rules.source_folders if s not in own)
        return self._sources[folder]

    def _first(self, folder: str, stems: list[str] | tuple[str, ...], module_files: tuple[str, ...]) -> str | None:
        """The file of the first stem the tree holds one for, in order: a source folder's before the
        package's own (vuejs/core's index.js beside src/index.ts is a shim of the built bundle)."""
        for stem in stems:
            hits = self._hits(folder, [stem], module_files)
            if hits:
                return hits[0] if len(hits) == 1 else None
        return None

    def _one(self, folder: str, stems: list[str] | tuple[str, ...], module_files: tuple[str, ...]) -> str | None:
        hits = self._hits(folder, stems, module_files)
        return hits[0] if len(hits) == 1 else None

    def _hits(self, folder: str, stems: list[str] | tuple[str, ...], module_files: tuple[str, ...]) -> list[str]:
        hits = []
        for stem in stems:
            for pattern in module_files:
                path = posixpath.join(folder, pattern.format(stem))
                if path not in hits and self._exists(path):
                    hits.append(path)
        return hits

    def _exists(self, path: str) -> bool:
        return self._tree_file("base", path) is not None


def _target(value: Any, subpath: str, conditions: tuple[str, ...]) -> str | None:
    """The path a manifest field gives `subpath` (`.` the entry): a string; a map of subpaths
    (`{".": ..., "./*": "./src/*.ts"}`), or of conditions read in the profile's order."""
    if isinstance(value, str):
        return value if subpath == "." else None
    if isinstance(value, list):   # fallbacks: the first that is a path
        return next((t for t in (_target(v, subpath, conditions) for v in value) if t is not None), None)
    if not isinstance(value, dict):
        return None
    if any(key.startswith(".") for key in value):
        if subpath in value:
            return _target(value[subpath], ".", conditions)
        for key, target in value.items():   # one `*` pattern, as Node matches it
            head, star, tail = key.partition("*")
            if star and subpath.startswith(head) and subpath.endswith(tail) and len(subpath) >= len(head) + len(tail):
                found = _target(target, ".", conditions)
                middle = subpath[len(head):len(subpath) - len(tail)]
                return found.replace("*", middle) if found is not None else None
        return None
    for condition in conditions:
        if condition in value:
            found = _target(value[condition], ".", conditions)
            if found is not None:
                return found
    return None


def _selects(spec: str, version: Any) -> bool:
    """Does the dependency range `spec` take the workspace's package at `version`? Only the plain
    forms are read (`workspace:...`, `*`, `1.2.3`, `^1.2.0`, `~1.2.0`); any other is taken for no."""
    if spec.startswith("workspace:") or spec in ("*", ""):
        return True
    match = _PLAIN_RANGE.fullmatch(spec)
    have = _PLAIN_RANGE.fullmatch(version) if isinstance(version, str) else None
    if match is None or have is None or have.group(1):
        return False
    wanted = tuple(int(part or 0) for part in match.group(2, 3, 4))
    local = tuple(int(part or 0) for part in have.group(2, 3, 4))
    if match.group(1) == "^":   # the same major (the same minor below 1.0, the same patch below 0.1)
        fixed = 1 if wanted[0] else 2 if wanted[1] else 3
    elif match.group(1) == "~":
        fixed = 2
    else:
        return local == wanted and match.group(4) is not None
    return local[:fixed] == wanted[:fixed] and local >= wanted


_PLAIN_RANGE = re.compile(r"([\^~]?)(\d+)(?:\.(\d+))?(?:\.(\d+))?")


def _load(file: str, data: bytes | None) -> Any:
    """A JSON or YAML file's value (None: absent or unreadable)."""
    if data is None:
        return None
    if file.endswith(".json"):
        try:
            return json.loads(data)
        except ValueError:
            return None
    import yaml  # only a check that asks about a pnpm workspace loads it

    try:
        return yaml.safe_load(data)
    except (yaml.YAMLError, ValueError):
        return None
