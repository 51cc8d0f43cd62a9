"""`--format json` (and `--json`): one object, `schema` first, then the CheckReport's fields.

The same envelope every `wtc ... --json` command prints (`wtc.<name>/<version>`), so agents parse
every command alike.
"""

from __future__ import annotations

import json
from typing import Any

from ..check.report import CHECK_SCHEMA_VERSION, CheckReport

SCHEMA = f"wtc.check/{CHECK_SCHEMA_VERSION}"


def payload(report: CheckReport) -> dict[str, Any]:
    return {"schema": SCHEMA} | report.to_json()


def render(report: CheckReport) -> str:
    return json.dumps(payload(report))
