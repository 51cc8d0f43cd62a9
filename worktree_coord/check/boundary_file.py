"""The committed boundary manifest: a branch's own/read globs in a file CI can read.

Stage: boundary input for `wtc check`. Input: the bytes of a TOML file. Output: a validated
`ManifestBoundary`. The default file is `.wtc-boundary.toml` at the repository root. It is not under
`.wtc/`: that folder is in `.git/info/exclude` wherever wtc has run (task worktrees and per-worktree
task manifests live there), so a file inside it would have to be force-added; a root-level file
commits like any other.

    # .wtc-boundary.toml
    own = ["packages/api/**"]          # required: what this branch may change
    read = ["packages/shared/**"]      # optional: what it reads (documentation for reviewers)
    target = "main"                    # optional: the branch it merges into (default: the default branch)

Which copy governs (pipeline.py): the one at the merge base when it exists there, so a branch cannot
widen its own boundary by editing the file; else the one the branch adds. Either way a branch that
adds, changes or deletes the manifest gets a `manifest_changed` warning for its reviewer.

Invariants: unknown keys and malformed globs are UsageErrors naming the key or glob and the file.
"""

from __future__ import annotations

import tomllib
from typing import Any

from ..boundary import validate_globs
from ..errors import UsageError
from ..frozen import value_class

DEFAULT_MANIFEST = ".wtc-boundary.toml"
_KEYS = ("own", "read", "target")


@value_class
class ManifestBoundary:
    own: tuple[str, ...]
    read: tuple[str, ...]
    target: str | None
    path: str
    version: str = "head"   # which copy was read: base, head, file (on disk) or worktree (staged check)


def parse_manifest(raw: bytes, path: str, *, version: str = "head") -> ManifestBoundary:
    """Validate a manifest's bytes; UsageError (exit 2) names what is wrong and how to fix it."""
    try:
        document: dict[str, Any] = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise UsageError(f"boundary manifest {path} is not valid TOML: {error}",
                         fix=f"fix the syntax of {path} (see docs/ci.md)") from None
    table = document.get("tool", {}).get("worktree-coord", {}).get("boundary") if "tool" in document else document
    if not isinstance(table, dict):
        raise UsageError(f"boundary manifest {path} has no boundary table", fix='write own = ["path/**"] at the top')
    unknown = sorted(set(table) - set(_KEYS))
    if unknown:
        raise UsageError(f"unknown key {unknown[0]!r} in boundary manifest {path}",
                         fix="allowed keys: " + ", ".join(_KEYS), details={"key": unknown[0], "file": path})
    own = _globs(table, "own", path)
    if not own:
        raise UsageError(f"boundary manifest {path} has no `own` globs",
                         fix='add own = ["path/**"]: what this branch may change')
    target = table.get("target")
    if target is not None and (not isinstance(target, str) or not target.strip()):
        raise UsageError(f"target in boundary manifest {path} must be a branch name, not {target!r}",
                         fix='write target = "main", or leave it out')
    return ManifestBoundary(validate_globs("own", own), validate_globs("read", _globs(table, "read", path)),
                            target, path, version)


def _globs(table: dict[str, Any], key: str, path: str) -> list[str]:
    value = table.get(key, [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise UsageError(f"{key} in boundary manifest {path} must be a list of globs, not {value!r}",
                         fix=f'write {key} = ["packages/api/**"]', details={"key": key, "file": path})
    return value
