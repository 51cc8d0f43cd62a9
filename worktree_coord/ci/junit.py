"""`--format junit`: JUnit XML, the test-report format Jenkins, GitLab, Azure and CircleCI read.

Layout: one `<testsuite>` per category (boundary, reserved, merge, left_behind); in it one
`<testcase>` per rule and file. A file that breaks a rule is a failing test case (`<failure>`), a
rule with no findings is one passing test case named after the rule, so a clean check still shows
what was checked; notes and warnings (reserved-file edits, a changed manifest) pass and carry their
text in `<system-out>`; the merge rules are `<skipped>` when no dry-run merge ran, the left-behind
rules when their mode is off. Valid against fixtures/schemas/junit.xsd (tests/ci validate every
output against it).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict

from ..check.report import CheckReport, Finding
from ..check.rules import RULES, Category, Severity, rule_info


def _case(suite: ET.Element, classname: str, name: str) -> ET.Element:
    return ET.SubElement(suite, "testcase", {"classname": classname, "name": name, "time": "0"})


def _describe(findings: list[Finding]) -> str:
    lines = []
    for f in findings:
        where = f"{f.path}:{f.start_line}" + (f"-{f.end_line}" if f.end_line and f.end_line != f.start_line else "") \
            if f.start_line else f.path
        lines.append(f"{where}: {f.message}" + (f" [{f.declaration}]" if f.declaration else ""))
    return "\n".join(lines)


def render(report: CheckReport) -> str:
    root = ET.Element("testsuites", {"name": "wtc check"})
    by_rule: dict[str, dict[str, list[Finding]]] = defaultdict(lambda: defaultdict(list))
    for f in report.findings:
        by_rule[f.rule][f.path].append(f)
    rule_ids = list(RULES) + sorted(r for r in by_rule if r not in RULES)
    totals = {"tests": 0, "failures": 0, "skipped": 0}
    for category in Category:
        suite = ET.Element("testsuite", {"name": f"wtc.{category.value}"})
        props = ET.SubElement(suite, "properties")
        for name, value in (("head", report.head), ("base", report.base), ("boundary", report.boundary.kind),
                            ("own", " ".join(report.boundary.own)),
                            ("target", str(report.merge.target or "")), ("target_tip", str(report.merge.target_tip or ""))):
            ET.SubElement(props, "property", {"name": name, "value": value})
        tests = failures = skipped = 0
        for rule in rule_ids:
            info = rule_info(rule)
            if info.category is not category:
                continue
            classname = f"wtc.{category.value}.{rule}"
            files = by_rule.get(rule, {})
            if not files:
                case = _case(suite, classname, rule)
                tests += 1
                if category is Category.MERGE and not report.merge.attempted:
                    ET.SubElement(case, "skipped", {"message": report.merge.reason or "no dry-run merge"})
                    skipped += 1
                elif category is Category.LEFT_BEHIND and report.left_behind_mode == "off":
                    ET.SubElement(case, "skipped", {"message": "left-behind is off: not looked for"})
                    skipped += 1
                continue
            for path, found in files.items():
                case = _case(suite, classname, path or "(repository)")
                tests += 1
                text = _describe(found)
                if any(f.severity is Severity.ERROR for f in found):
                    failure = ET.SubElement(case, "failure", {"type": rule, "message": f"{info.title}: {found[0].message}"})
                    failure.text = text + f"\nfix: {info.fix}"
                    failures += 1
                else:
                    ET.SubElement(case, "system-out").text = text
        suite.set("tests", str(tests))
        suite.set("failures", str(failures))
        suite.set("errors", "0")
        suite.set("skipped", str(skipped))
        suite.set("time", "0")
        root.append(suite)
        totals["tests"] += tests
        totals["failures"] += failures
        totals["skipped"] += skipped
    root.set("tests", str(totals["tests"]))
    root.set("failures", str(totals["failures"]))
    root.set("errors", "0")
    root.set("time", "0")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
