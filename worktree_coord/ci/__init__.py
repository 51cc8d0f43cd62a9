"""The CI face: `wtc check`'s output formats, and the check's API re-exported for CI scripts.

The check itself is a capability below the coordinator (`worktree_coord.check`): it returns a
frozen CheckReport. This package only lays that report out, one module per format: text,
json_format, junit, sarif, github (`formats.render` picks one by name).

Public API (kept here for CI scripts; the check's own home is `worktree_coord.check`):
    check(repo, *, head=None, base=None, target=None, own=(), read=(), run=None, task=None,
          manifest=None, merge=True, reporter=None, resolver=None) -> CheckReport
    check_staged(repo, *, own=(), read=(), manifest=None, config=None, left_behind=None) -> CheckReport
    render(report, format) -> str          format: text | json | junit | sarif | github
    CheckReport, Finding, Severity, RULES
"""

from __future__ import annotations

from ..check import check, check_staged
from ..check.boundary_file import DEFAULT_MANIFEST
from ..check.report import BoundarySource, CheckReport, Finding, MergeSummary
from ..check.rules import RULES, Severity
from .formats import FORMATS, render

__all__ = [
    "BoundarySource", "CheckReport", "DEFAULT_MANIFEST", "FORMATS", "Finding", "MergeSummary", "RULES", "Severity",
    "check", "check_staged", "render",
]
