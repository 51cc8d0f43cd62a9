"""Building a task's boundary: its own and read globs, plus the reserved files in force.

Reserved files are root manifests and lockfiles: a task's edit to one is not a violation, it is set
aside and becomes an intent for the consolidation phase. Defaults below; a project adds or removes
patterns in its configuration (`reserved-add`, `reserved-remove`).
"""

from __future__ import annotations

from typing import Sequence

from ..consolidate.lockfile_names import LOCKFILE_ECOSYSTEMS
from ..model import Boundary
from .globs import validate_globs

# Root-only manifests are anchored with "/": a member's own package.json merges like any file.
# Lockfiles and dependency pins are reserved wherever they are: they are never text-merged.
DEFAULT_RESERVED: tuple[str, ...] = (
    "/package.json",
    "package-lock.json",
    "npm-shrinkwrap.json",
    "pnpm-lock.yaml",
    "/pnpm-workspace.yaml",
    "yarn.lock",
    "/.yarnrc.yml",
    "bun.lock",
    "bun.lockb",
    "/Cargo.toml",
    "Cargo.lock",
    "/pyproject.toml",
    "uv.lock",
    "poetry.lock",
    "requirements*.txt",
    "go.mod",
    "go.sum",
    "go.work",
    "go.work.sum",
    "/pixi.toml",
    "pixi.lock",
    "pom.xml",
    "/gradle/libs.versions.toml",
    "gradle.lockfile",
)

# Lockfiles stay reserved even when a task creates one inside its own globs: a stray lock (say,
# `npm install` run inside a workspace member) would turn that folder into a root of its own.
# go.sum is not among them: it belongs to the new module whose go.mod the task creates.
LOCKFILE_NAMES: frozenset[str] = frozenset(LOCKFILE_ECOSYSTEMS) - {"go.sum"}


def reserved_patterns(add: Sequence[str] = (), remove: Sequence[str] = ()) -> tuple[str, ...]:
    """The defaults, minus `remove`, plus `add` (validated), in a stable order. A `remove` entry that is
    not one of the defaults, exactly as they are spelled, is refused: it would remove nothing, and
    the file the project meant to free would stay reserved without a word (`package.json` for
    `/package.json`, found in a test that believed it had relaxed the root manifest)."""
    removed = set(remove)
    unknown = [p for p in remove if p not in DEFAULT_RESERVED]
    if unknown:
        from ..errors import ConfigError

        near = {p: [d for d in DEFAULT_RESERVED if d.lstrip("/") == p.lstrip("/")] for p in unknown}
        named = "; ".join(f"{p!r} (did you mean {near[p][0]!r}?)" if near[p] else repr(p) for p in unknown)
        raise ConfigError(f"reserved-remove names what is not a default reserved file: {named}",
                          fix="spell each entry exactly as one of the defaults (docs/configuration.md): "
                              + ", ".join(DEFAULT_RESERVED),
                          details={"key": "reserved-remove", "unknown": unknown})
    base = [p for p in DEFAULT_RESERVED if p not in removed]
    extra = [p for p in validate_globs("reserved", list(add)) if p not in base]
    return tuple(base + extra)


def make_boundary(own: Sequence[str], read: Sequence[str] = (), *, reserved: Sequence[str] = DEFAULT_RESERVED,
                  exclusive: bool = False, sparse: bool = False) -> Boundary:
    """Validate the globs and build the Boundary recorded for a task."""
    from ..errors import UsageError

    if not own:
        raise UsageError("a task needs at least one --own glob (what it may change)",
                         fix="pass e.g. --own 'packages/api/**'")
    return Boundary(
        own=validate_globs("own", own),
        read=validate_globs("read", read),
        reserved=tuple(reserved),
        exclusive=exclusive,
        sparse=sparse,
    )
