"""Which files consolidation knows, by name: lockfiles and manifests, and the ecosystem of each.

Import-light on purpose (no parsers, no adapters, no third-party library): the boundary check and a
plain `wtc task finish` ask "is this a manifest? a lockfile?" on every call, and use these lists
instead of copies of them. Input: a repo-relative path. Output: a `FileKind`, or None.
"""

from __future__ import annotations

import posixpath

from worktree_coord.consolidate.intent import Ecosystem
from worktree_coord.consolidate.lockfile_names import LOCKFILE_ECOSYSTEMS, MANIFEST_FORMATS, REQUIREMENTS, is_manifest

from ..frozen import value_class

# is_manifest answers by name alone (lockfile_names.py: a finish asks it without the intent records)
__all__ = ["LOCKFILES", "LOCKED_BY", "MANIFESTS", "REQUIREMENTS", "FileKind", "classify_path", "is_manifest",
           "own_lockfiles"]

LOCKFILES: dict[str, Ecosystem] = {name: Ecosystem(value) for name, value in LOCKFILE_ECOSYSTEMS.items()}

# Manifest file name -> (format, default ecosystem); requirements files match REQUIREMENTS instead.
MANIFESTS: dict[str, tuple[str, Ecosystem]] = {name: (form, Ecosystem(value))
                                               for name, (form, value) in MANIFEST_FORMATS.items()}

# Manifest format -> the ecosystems whose lockfile locks it (a package.json: npm's, pnpm's, Yarn's or
# Bun's). A lockfile of any other ecosystem beside a manifest is not its lock: a package-lock.json of
# a project's docs tooling beside a setuptools pyproject.toml asks nothing of that pyproject.
LOCKED_BY: dict[str, frozenset[Ecosystem]] = {
    "package.json": frozenset({Ecosystem.NPM, Ecosystem.PNPM, Ecosystem.YARN, Ecosystem.BUN}),
    "pnpm-workspace": frozenset({Ecosystem.PNPM}),
    "cargo": frozenset({Ecosystem.CARGO}),
    "pyproject": frozenset({Ecosystem.UV, Ecosystem.POETRY}),
    "go.mod": frozenset({Ecosystem.GO}),
    "go.work": frozenset({Ecosystem.GO}),
    "pixi": frozenset({Ecosystem.PIXI}),
    "pom": frozenset(),            # Maven locks nothing: a pom.xml is its own pin
    "gradle-catalog": frozenset({Ecosystem.GRADLE}),
    "requirements": frozenset(),   # pip-compile's lock is the requirements.txt it writes, never another tool's
}


@value_class
class FileKind:
    kind: str            # "manifest" | "lockfile"
    format: str          # "package.json", "cargo", "pyproject", "requirements", "go.mod", "go.work", "pnpm-workspace",
    #                      "pixi", "pom", "gradle-catalog", "lock"
    ecosystem: Ecosystem


def classify_path(path: str) -> FileKind | None:
    """What reserved-file kind `path` is, or None when it is no manifest or lockfile we know."""
    base = posixpath.basename(path)
    if base in LOCKFILES:
        return FileKind("lockfile", "lock", LOCKFILES[base])
    if base in MANIFESTS:
        return FileKind("manifest", *MANIFESTS[base])
    if REQUIREMENTS.fullmatch(base):
        return FileKind("manifest", "requirements", Ecosystem.PIP_TOOLS)
    return None


def own_lockfiles(manifest: str) -> tuple[str, ...]:
    """The lockfile names that can lock the manifest `manifest` (a path or a file name)."""
    kind = classify_path(manifest)
    locked_by = LOCKED_BY.get(kind.format, frozenset()) if kind is not None else frozenset()
    return tuple(name for name, ecosystem in LOCKFILES.items() if ecosystem in locked_by)
