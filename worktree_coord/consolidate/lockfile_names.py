"""The lockfiles consolidation knows, by file name, with their ecosystem's name: the boundary's
reserved lockfiles (boundary/manifest.py, read by every `wtc task start`) need the names alone,
without the intent records and enums of names.py and intent.py (~3-4 ms of a start, issue 36)."""

from __future__ import annotations

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
