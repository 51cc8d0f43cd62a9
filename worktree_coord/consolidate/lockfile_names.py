"""The lockfiles and manifests consolidation knows, by file name, with their ecosystem's name: the
boundary's reserved lockfiles (boundary/manifest.py, read by every `wtc task start`) and a finish's
"did the task edit a manifest?" need the names alone, without the intent records and enums of
names.py and intent.py (~3-4 ms of a start, ~1 ms of every finish: issue 36)."""

from __future__ import annotations

import posixpath
import re

# file name -> consolidate.intent.Ecosystem's value (names.LOCKFILES holds the enum members)
LOCKFILE_ECOSYSTEMS: dict[str, str] = {
    "package-lock.json": "npm",
    "npm-shrinkwrap.json": "npm",
    "pnpm-lock.yaml": "pnpm",
    "yarn.lock": "yarn",
    "bun.lock": "bun",
    "bun.lockb": "bun",
    "Cargo.lock": "cargo",
    "uv.lock": "uv",
    "poetry.lock": "poetry",
    "go.sum": "go",
    "go.work.sum": "go",
    "pixi.lock": "pixi",
    "gradle.lockfile": "gradle",
}

# Manifest file name -> (format, its default ecosystem's value); requirements files match
# REQUIREMENTS instead (names.MANIFESTS holds the enum members).
MANIFEST_FORMATS: dict[str, tuple[str, str]] = {
    "package.json": ("package.json", "npm"),
    "Cargo.toml": ("cargo", "cargo"),
    "pyproject.toml": ("pyproject", "uv"),
    "go.mod": ("go.mod", "go"),
    "go.work": ("go.work", "go"),
    "pnpm-workspace.yaml": ("pnpm-workspace", "pnpm"),
    "pixi.toml": ("pixi", "pixi"),
    "pom.xml": ("pom", "maven"),
    "libs.versions.toml": ("gradle-catalog", "gradle"),   # Gradle's version catalog, gradle/ of its build
}
REQUIREMENTS = re.compile(r"requirements.*\.(txt|in)")


def is_manifest(path: str) -> bool:
    """True for a manifest consolidation can read (package.json, Cargo.toml, go.mod, ...), by its
    name (names.classify_path's answer, without the intent records)."""
    base = posixpath.basename(path)
    return base not in LOCKFILE_ECOSYSTEMS and (base in MANIFEST_FORMATS or REQUIREMENTS.fullmatch(base) is not None)


# Lockfiles of ecosystems consolidation does not relock, by file name: (the tool, how to regenerate
# the lockfile from its manifests). Not reserved, so a task's edit to one merges as text like code,
# which the tool does not take for its own output (composer.lock's content-hash, Bundler's
# resolution): check/unrelocked_lockfiles.py says so at finish and check. Only commands checked to
# do what they say are named (bundle 2.3: `lock --local` resolves from the installed gems, offline;
# composer 2.5: `update --lock` refreshes only the hash, so a new requirement needs `update`).
UNRELOCKED_LOCKFILES: dict[str, tuple[str, str]] = {
    "Gemfile.lock": ("Bundler", "`bundle lock --local` (from the gems installed here, offline), or `bundle lock`"),
    "gems.locked": ("Bundler", "`bundle lock --local` (from the gems installed here, offline), or `bundle lock`"),
    "composer.lock": ("Composer", "`composer update --no-install PACKAGE...` for the packages the tasks "
                                  "required (it reads Packagist, or Composer's cache offline)"),
    # Named from each tool's own documentation (none of these tools runs on the machines wtc was
    # measured on): the command that rewrites the lockfile from its manifest.
    "Podfile.lock": ("CocoaPods", "`pod install` (a pod whose version the tasks changed: `pod update NAME`)"),
    "Package.resolved": ("SwiftPM", "`swift package resolve` (in an Xcode project: "
                                    "`xcodebuild -resolvePackageDependencies`)"),
    "mix.lock": ("Mix", "`mix deps.get` (a dependency the tasks removed: `mix deps.unlock --unused` first)"),
    "pubspec.lock": ("pub", "`dart pub get` (`flutter pub get` in a Flutter package)"),
    "Pipfile.lock": ("Pipenv", "`pipenv lock`"),
    "packages.lock.json": ("NuGet", "`dotnet restore --force-evaluate`"),
}
