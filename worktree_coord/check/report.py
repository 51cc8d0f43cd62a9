"""What `wtc check` returns: a frozen CheckReport of findings, and the exit code they imply.

Stage: the result of the CI check (built by `check.check`, rendered by one module per format in `ci/`). Every
field is plain data: formats never recompute anything, they only lay it out. Invariants: findings
are sorted (path, line, rule) so every format lists them in one order; `exit_code` is 3 when any
finding is a boundary violation, else 1 when any is a merge conflict or a use left behind (mode
block), else 6 when the look for uses left behind failed inside (`left_behind_failed`: no answer is
no clean verdict), else 0 (notes and warnings never fail a check). `left_behind` holds each use the branch
leaves behind (check/uses_left_behind.py) as plain data, whatever the mode made of it.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any

from ..errors import EXIT_BOUNDARY, EXIT_CONFLICT, EXIT_INTERNAL, EXIT_OK
from ..frozen import value_class
from .rules import Category, Severity, rule_info

CHECK_SCHEMA_VERSION = 1


@value_class
class Finding:
    """One thing the check found, on one file (and, when known, on lines of its head version).

    `start_line`/`end_line` are 1-based, inclusive, in the file as it is at the head commit (None for
    a file-level finding, e.g. a deleted file). For a merge conflict `declaration` is the enclosing
    declaration path ("class Store > def get") and `details` carries the lines in the merged output
    and the three versions of the region.
    """

    rule: str
    path: str
    message: str
    severity: Severity
    start_line: int | None = None
    end_line: int | None = None
    declaration: str = ""
    details: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def category(self) -> Category:
        return rule_info(self.rule).category

    def sort_key(self) -> tuple[str, int, str]:
        return (self.path, self.start_line or 0, self.rule)

    def to_json(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "category": self.category.value,
            "severity": self.severity.value,
            "path": self.path,
            "start_line": self.start_line,
            "end_line": self.end_line,
            "declaration": self.declaration,
            "message": self.message,
            "details": dict(self.details),
        }


@value_class
class BoundarySource:
    """Where the boundary came from: `own` (flags), `task` (the store), `manifest` (a committed file)."""

    kind: str
    own: tuple[str, ...]
    read: tuple[str, ...] = ()
    reserved: tuple[str, ...] = ()
    manifest: str | None = None
    run: str | None = None
    task: str | None = None
    manifest_version: str | None = None   # base, head, file or worktree: which copy of the manifest

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "own": list(self.own), "read": list(self.read), "reserved": list(self.reserved),
                "manifest": self.manifest, "manifest_version": self.manifest_version, "run": self.run,
                "task": self.task}


@value_class
class MergeSummary:
    """The dry-run merge: attempted or why not, clean or not, and which files the resolver fixed."""

    attempted: bool
    clean: bool
    target: str | None = None
    target_tip: str | None = None
    tree: str | None = None
    resolved: tuple[str, ...] = ()
    reason: str = ""
    picked: str = ""     # why this target, when none was named and it is not the default branch

    def to_json(self) -> dict[str, Any]:
        return {"attempted": self.attempted, "clean": self.clean, "target": self.target,
                "target_tip": self.target_tip, "tree": self.tree, "resolved": list(self.resolved),
                "reason": self.reason, **({"target_picked": self.picked} if self.picked else {})}


@value_class
class CheckReport:
    """The whole result of one check (see the module docstring for the exit code rule)."""

    base: str
    head: str
    head_label: str
    boundary: BoundarySource
    changed: tuple[dict[str, str], ...]
    findings: tuple[Finding, ...]
    merge: MergeSummary
    intents: tuple[dict[str, Any], ...] = ()
    left_behind: tuple[dict[str, Any], ...] = ()   # each use left behind: use_path, use_lines, name, definition_path, ...
    left_behind_mode: str = "off"                  # block, warn or off: what the check made of them

    @property
    def violations(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if rule_info(f.rule).exit_code == EXIT_BOUNDARY)

    @property
    def conflicts(self) -> tuple[Finding, ...]:
        """The merge's conflicts (a merge conflict, a semantic conflict): each fails the check."""
        return tuple(f for f in self.findings if rule_info(f.rule).exit_code == EXIT_CONFLICT
                     and f.category is Category.MERGE)

    @property
    def left_behind_uses(self) -> tuple[Finding, ...]:
        """The findings of uses the branch leaves behind, blocking or not (`left_behind_unchecked` is not one)."""
        return tuple(f for f in self.findings if f.rule in ("left_behind", "left_behind_warning"))

    @property
    def blocking(self) -> tuple[Finding, ...]:
        """What fails the check with exit 1: the conflicts and the uses left behind in mode block."""
        return tuple(f for f in self.findings if rule_info(f.rule).exit_code == EXIT_CONFLICT)

    @property
    def reserved(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.category is Category.RESERVED)

    @property
    def unanswered(self) -> tuple[Finding, ...]:
        """The checks that failed inside (`left_behind_failed`): no answer, so no clean verdict."""
        return tuple(f for f in self.findings if rule_info(f.rule).exit_code == EXIT_INTERNAL)

    @property
    def exit_code(self) -> int:
        if self.violations:
            return EXIT_BOUNDARY
        if self.blocking:
            return EXIT_CONFLICT
        if self.unanswered:
            return EXIT_INTERNAL
        return EXIT_OK

    @property
    def ok(self) -> bool:
        return self.exit_code == EXIT_OK

    def counts(self) -> dict[str, int]:
        return {"violations": len(self.violations), "conflicts": len(self.conflicts),
                "reserved": len(self.reserved), "left_behind": len(self.left_behind_uses),
                "findings": len(self.findings), "changed": len(self.changed)}

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "exit_code": self.exit_code,
            "base": self.base,
            "head": self.head,
            "head_label": self.head_label,
            "boundary": self.boundary.to_json(),
            "counts": self.counts(),
            "changed": [dict(c) for c in self.changed],
            "findings": [f.to_json() for f in self.findings],
            "intents": [dict(i) for i in self.intents],
            "left_behind": [dict(u) for u in self.left_behind],
            "left_behind_mode": self.left_behind_mode,
            # why the look for uses left behind failed inside ("" when it answered): exit 6
            "left_behind_unchecked": "; ".join(f.details.get("reason", "") for f in self.unanswered),
            # the changed files whose language no check reads names in (check/names_unread.py): {} when none
            "names_unread": next((dict(f.details) for f in self.findings if f.rule == "names_unread"), {}),
            "merge": self.merge.to_json(),
        }
