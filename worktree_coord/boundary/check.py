"""The finish-time boundary check: every path a task changed, judged against its boundary.

Input: the changes between the pinned base and the task's commit (from `GitRepo.changes`) and the
task's Boundary. Output: a BoundaryReport listing owned changes, reserved-file edits (set aside for
consolidation, not violations; a reserved file the task creates inside its own globs is owned) and
violations, each with the path and the rule it broke. The check
never trusts the agent: it reads only git objects. `check_changes_following_moves` owns a file the
task owns at the path the run moved it to (a merge `task update` took in), no other.
"""

from __future__ import annotations

import posixpath
from dataclasses import field
from typing import Callable, Sequence

from ..frozen import value_class
from ..gitrepo import GIT_MODE_GITLINK, GIT_MODE_LINK, Change
from ..model import Boundary
from .globs import matches
from .manifest import LOCKFILE_NAMES


EMBEDDED_REPOSITORY = ("{path} holds a git repository of its own (a `git init` or a scaffolding tool in the "
                       "worktree), recorded as a gitlink no .gitmodules declares, to a commit only that folder has; "
                       "to commit its files, remove {path}/.git and run `git rm -q --cached {path}`; to keep it a "
                       "submodule, add it with `git submodule add URL {path}`; then finish again")


@value_class
class Violation:
    path: str
    rule: str        # outside_own, git_dir, symlink_outside_repo, symlink_outside_own, submodule, embedded_repository
    detail: str

    def to_json(self) -> dict[str, str]:
        return {"path": self.path, "rule": self.rule, "detail": self.detail}


@value_class
class BoundaryReport:
    owned: tuple[Change, ...] = ()
    reserved: tuple[Change, ...] = ()
    violations: tuple[Violation, ...] = field(default=())
    followed: tuple[tuple[str, str], ...] = ()   # (old, new): an owned file the run moved, owned at its new path

    @property
    def ok(self) -> bool:
        return not self.violations


def check_changes(changes: Sequence[Change], boundary: Boundary, read_blob: Callable[[str], bytes],
                  submodules: Callable[[], frozenset[str]] | None = None) -> BoundaryReport:
    """Classify every change; `read_blob(oid)` reads a symlink's target; `submodules()` gives the
    paths the head's .gitmodules declares (read only when a gitlink was added or moved)."""
    owned: list[Change] = []
    reserved: list[Change] = []
    violations: list[Violation] = []
    for change in changes:
        path = change.path
        if _under_git_dir(path):
            violations.append(Violation(path, "git_dir", "paths under .git are never allowed"))
            continue
        if (submodules is not None and change.new_mode == GIT_MODE_GITLINK and change.new_oid
                and change.new_oid != change.old_oid and path not in submodules()):
            # `git add -A` records a folder holding its own repository (a `git init`, a scaffolding
            # tool's) as a gitlink to a commit only that folder has: merged, every checkout gets an
            # empty folder and a dangling commit id instead of the files.
            violations.append(Violation(path, "embedded_repository", EMBEDDED_REPOSITORY.format(path=path)))
            continue
        # A reserved manifest the task creates inside its own globs (a new module's go.mod and go.sum,
        # a new service's requirements.txt) did not exist at the base, so no other task can have
        # edited it and no intent could carry it: it is the task's own new file and merges as code.
        is_owned = matches(boundary.own, path)
        created_in_own = (change.status == "added" and posixpath.basename(path) not in LOCKFILE_NAMES
                          and is_owned)
        if matches(boundary.reserved, path) and not created_in_own:
            if GIT_MODE_LINK in (change.old_mode, change.new_mode) and change.new_mode != change.old_mode:
                violations.append(Violation(path, "reserved_type", "a reserved file may not become or stop being a symlink"))
            else:
                reserved.append(change)
            continue
        if not is_owned:
            if GIT_MODE_GITLINK in (change.old_mode, change.new_mode) or path == ".gitmodules":
                violations.append(Violation(path, "submodule", "submodule (gitlink or .gitmodules) changes outside --own"))
            else:
                verb = {"added": "added", "deleted": "deleted", "mode": "changed the mode of"}.get(change.status, "modified")
                violations.append(Violation(path, "outside_own", f"{verb} a path outside --own {list(boundary.own)}"))
            continue
        if change.new_mode == GIT_MODE_LINK and change.new_oid:
            target = read_blob(change.new_oid).decode("utf-8", "surrogateescape")
            resolved = _resolve_link(path, target)
            if resolved is None:
                violations.append(Violation(path, "symlink_outside_repo", f"symlink to {target!r} leaves the repository"))
                continue
            if resolved and not matches(boundary.own, resolved) and not _is_dir_prefix_of_owned(resolved, boundary.own):
                violations.append(Violation(path, "symlink_outside_own", f"symlink to {target!r} ({resolved}) is outside --own"))
                continue
        owned.append(change)
    return BoundaryReport(tuple(owned), tuple(reserved), tuple(violations))


def check_changes_following_moves(changes: Sequence[Change], boundary: Boundary, read_blob: Callable[[str], bytes],
                                  submodules: Callable[[], frozenset[str]] | None,
                                  renames: Callable[[], dict[str, str]] | None) -> BoundaryReport:
    """`check_changes`, with a file the task owns that the run moved (another task's merge, taken in
    by `task update`) owned at its new path: the update put the task's edits of it there, and its
    resolution there is the task's own work, not a path outside its boundary. `renames()` (old path
    -> new, between the pin and what the task took in) is asked only when a change is outside
    `own`; None when the task took nothing in. `followed` names each move the check followed."""
    report = check_changes(changes, boundary, read_blob, submodules)
    outside = {v.path for v in report.violations if v.rule == "outside_own"}
    if not outside or renames is None:
        return report
    followed = tuple((old, new) for old, new in sorted(renames().items())
                     if new in outside and matches(boundary.own, old))
    if not followed:
        return report
    widened = Boundary(own=(*boundary.own, *("/" + _literal(new) for _, new in followed)), read=boundary.read,
                       reserved=boundary.reserved, exclusive=boundary.exclusive, sparse=boundary.sparse)
    again = check_changes(changes, widened, read_blob, submodules)
    return BoundaryReport(again.owned, again.reserved, again.violations, followed)


def _literal(path: str) -> str:
    """`path` as a gitignore pattern matching only itself: its wildcard characters escaped."""
    return "".join("\\" + ch if ch in "*?[]\\" else ch for ch in path)


def _under_git_dir(path: str) -> bool:
    lowered = path.lower()
    if "git" not in lowered:   # (no part can be .git or git~1: the common answer without the split)
        return False
    for part in lowered.split("/"):
        part = part.rstrip(". ")  # Windows ignores trailing dots and spaces
        if part == ".git" or part == "git~1":
            return True
    return False


def _resolve_link(path: str, target: str) -> str | None:
    """The repository-relative path a symlink at `path` points to; None when it leaves the repo."""
    if target.startswith("/") or target.startswith("\\") or (len(target) > 1 and target[1] == ":"):
        return None
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
    if joined == ".":
        return ""
    if joined == ".." or joined.startswith("../"):
        return None
    return joined


def _is_dir_prefix_of_owned(resolved: str, own: Sequence[str]) -> bool:
    # A link to a folder the task owns entirely ("pkg/a" with own "pkg/a/**") is inside the boundary.
    return matches(own, resolved + "/x")
