"""The CI face: `wtc check` as a Python function, and its output formats.

Stage: pre-merge check of a branch (read-only). Pipeline: revisions.py (which commits) ->
manifest.py (the committed boundary) -> check.py (boundary and reserved findings, via
`boundary.check_changes`) -> dryrun.py (structured dry-run merge into the target tip) -> report.py
(a frozen CheckReport) -> one module per format (text, json_format, junit, sarif, github).

Public API:
    check(repo, *, head=None, base=None, target=None, own=(), read=(), run=None, task=None,
          manifest=None, merge=True, config=None, reporter=None, resolver=None) -> CheckReport
    check_staged(repo, *, own=(), read=(), manifest=None, config=None) -> CheckReport
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
