"""`--format sarif`: SARIF 2.1.0, the format GitHub code scanning (and other UIs) show on lines.

One run, tool driver `wtc` with the rule catalog (rules.py) as `reportingDescriptor`s; one result
per finding, located at its file (`uriBaseId` %SRCROOT%, the repository root) and, when known, at
its line region in the head version. Findings without lines are file-level results. Each result
has a `partialFingerprints` entry so code scanning keeps an alert's identity across pushes. Valid
against fixtures/schemas/sarif-schema-2.1.0.json (tests/ci validate every output against it).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any
from urllib.parse import quote

from .. import __version__
from ..check.report import CheckReport
from ..check.rules import RULES, rule_info

SARIF_SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"


def _descriptor(rule_id: str) -> dict[str, Any]:
    info = rule_info(rule_id)
    return {
        "id": info.id,
        "name": "".join(part.capitalize() for part in info.id.split("_")),
        "shortDescription": {"text": info.title},
        "fullDescription": {"text": info.description},
        "help": {"text": info.fix},
        "defaultConfiguration": {"level": info.severity.value},
        "properties": {"category": info.category.value, "exitCode": info.exit_code},
    }


def payload(report: CheckReport) -> dict[str, Any]:
    rule_ids = list(RULES) + sorted({f.rule for f in report.findings} - set(RULES))
    index = {rule: i for i, rule in enumerate(rule_ids)}
    results = []
    for f in report.findings:
        location: dict[str, Any] = {"artifactLocation": {"uri": quote(f.path or ".", safe="/"),
                                                         "uriBaseId": "%SRCROOT%"}}
        if f.start_line:
            location["region"] = {"startLine": f.start_line, "endLine": max(f.end_line or f.start_line, f.start_line)}
        message = f.message + (f" [{f.declaration}]" if f.declaration and f.declaration not in f.message else "")
        fingerprint = hashlib.sha256(f"{f.rule}\0{f.path}\0{f.declaration}\0{f.message}".encode()).hexdigest()
        result: dict[str, Any] = {
            "ruleId": f.rule,
            "ruleIndex": index[f.rule],
            "level": f.severity.value,
            "message": {"text": message},
            "locations": [{"physicalLocation": location}],
            "partialFingerprints": {"wtcFinding/v1": fingerprint},
        }
        if f.declaration:
            result["locations"][0]["logicalLocations"] = [{"fullyQualifiedName": f.declaration, "kind": "declaration"}]
        results.append(result)
    return {
        "$schema": SARIF_SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "wtc", "semanticVersion": __version__, "version": __version__,
                                "fullName": "worktree_coord check",
                                "rules": [_descriptor(r) for r in rule_ids]}},
            "automationDetails": {"id": "wtc-check/"},
            "originalUriBaseIds": {"%SRCROOT%": {"description": {"text": "the repository root"}}},
            "invocations": [{"executionSuccessful": True, "exitCode": report.exit_code}],
            "results": results,
            "properties": {"base": report.base, "head": report.head, "target": report.merge.target,
                           "targetTip": report.merge.target_tip, "boundary": report.boundary.to_json()},
        }],
    }


def render(report: CheckReport) -> str:
    return json.dumps(payload(report), indent=2)
