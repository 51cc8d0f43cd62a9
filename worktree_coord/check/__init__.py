"""The check: what a branch (or the staged index) would do to its target, read-only.

Stage: a capability below the coordinator, used by `Coordinator.check`, by `wtc task finish`
(reserved edits -> intents) and by every face (`wtc check`, CI, hooks). Pipeline:
revisions.py (which commits) -> boundary_file.py (the committed `.wtc-boundary.toml`) ->
pipeline.py (boundary and reserved findings, via `boundary.check_changes`) -> reserved_edits.py
(what the reserved-file edits become: intents, or findings when consolidation cannot carry them)
-> dryrun.py (structured dry-run merge into the target tip) -> report.py (a frozen CheckReport;
rules.py is the rule catalog, lines.py locates findings in the head version).

Output only: rendering the report (text, json, junit, sarif, github) is the faces' job (`ci/`).

Public API:
    check(repo, *, head=None, base=None, target=None, own=(), read=(), run=None, task=None,
          manifest=None, merge=True, reporter=None, resolver=None) -> CheckReport
    check_staged(repo, *, own=(), read=(), manifest=None, config=None, left_behind=None) -> CheckReport
    CheckReport, Finding, BoundarySource, MergeSummary, Severity, RULES, DEFAULT_MANIFEST
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy_names import lazy_names

if TYPE_CHECKING:
    from .boundary_file import DEFAULT_MANIFEST
    from .pipeline import check, check_staged
    from .report import BoundarySource, CheckReport, Finding, MergeSummary
    from .rules import RULES, Severity

# The names load with their module on first use (PEP 562): `task finish` and `task check` import
# check/left_behind.py, which loads this package first, and the pipeline (the dry-run merge, the
# boundary file's reader) cost them ~40 ms of start-up they never used.
_LAZY = {
    "DEFAULT_MANIFEST": "boundary_file", "check": "pipeline", "check_staged": "pipeline",
    "BoundarySource": "report", "CheckReport": "report", "Finding": "report", "MergeSummary": "report",
    "RULES": "rules", "Severity": "rules",
}


__getattr__ = lazy_names(globals(), _LAZY)


__all__ = [
    "BoundarySource", "CheckReport", "DEFAULT_MANIFEST", "Finding", "MergeSummary", "RULES", "Severity",
    "check", "check_staged",
]
