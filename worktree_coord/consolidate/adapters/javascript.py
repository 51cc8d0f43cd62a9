"""What the pnpm and Yarn adapters share: member versions, package keys, one-stream tool output.

Stage: helpers of the apply/relock/verify adapters for JavaScript package managers.
Input: the consolidation directory and an ecosystem root. Output: plain values.
Invariants: read-only; member versions come from the members' own package.json files (lockfiles
record a workspace link, not the version a range is checked against).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from worktree_coord.consolidate.adapters.base import ToolRun
from worktree_coord.consolidate.intent import Ecosystem
from worktree_coord.consolidate.textformat import load_json


def member_versions(workdir: Path, ecosystem: Ecosystem, root: str) -> dict[str, set[str]]:
    """Workspace member name -> {its package.json version}, the root package included."""
    from worktree_coord.consolidate.graph import discover_workspace

    workspace = discover_workspace(workdir, ecosystem, root)
    out: dict[str, set[str]] = {}
    for name, model in workspace.models.items():
        if model.version:
            out.setdefault(name, set()).add(model.version)
    return out


def package_version(workdir: Path, directory: str) -> str | None:
    """The `version` of the package.json in `directory` (repo-relative), None when absent."""
    file = workdir / directory / "package.json" if directory else workdir / "package.json"
    if not file.is_file():
        return None
    doc = load_json(file.as_posix(), file.read_bytes())
    version = doc.get("version") if isinstance(doc, dict) else None
    return version if isinstance(version, str) else None


def split_package_key(key: str) -> tuple[str, str] | None:
    """`name@version` (a scoped `@scope/name@version` too) -> (name, version); None without one."""
    at = key.find("@", 1)
    if at <= 0:
        return None
    return key[:at], key[at + 1:]


def strip_peers(version: str) -> str:
    """pnpm writes peer context after the version: `1.2.3(react@18.2.0)` -> `1.2.3`."""
    return version.split("(", 1)[0]


def with_output(run: ToolRun) -> ToolRun:
    """A failed run whose stdout is appended to its stderr: Yarn (and parts of pnpm) report errors
    on stdout, and failure classification reads stderr only."""
    if run.ok or not run.stdout.strip():
        return run
    return ToolRun(run.argv, run.returncode, run.stdout, (run.stderr + "\n" + run.stdout).strip(), run.seconds)


def pinned_tool_version(root_dir: Path, tool: str) -> str | None:
    """The version the root package.json's `packageManager` field pins for `tool` (`pnpm@11.19.0+sha...`
    -> `11.19.0`); None when it pins nothing or another tool. Read leniently: it is a hint about the
    tool, and a broken manifest is reported by verification, not here."""
    file = root_dir / "package.json"
    if not file.is_file():
        return None
    try:
        doc = json.loads(file.read_bytes())
    except ValueError:
        return None
    field = doc.get("packageManager") if isinstance(doc, dict) else None
    match = re.match(rf"{re.escape(tool)}@(\d[^+]*)", field) if isinstance(field, str) else None
    return match.group(1).strip() if match else None


def major_mismatch(pinned: str, used: str) -> bool:
    """Whether two versions differ in their major number: a major apart, lockfile formats and
    resolution rules differ (a minor apart they mostly agree, not always: pnpm.py's docstring)."""
    return pinned.split(".", 1)[0] != used.split(".", 1)[0]
