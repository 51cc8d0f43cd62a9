"""`--format github`: GitHub Actions workflow commands, so findings show as annotations on the PR.

    ::error file=packages/web/app.ts,line=3,endLine=5,title=wtc outside_own::modified a path outside ...

Escaping follows GitHub's runner (toolkit `command.ts`): in the message, `%` -> %25, CR -> %0D,
LF -> %0A; in property values additionally `:` -> %3A and `,` -> %2C. The last line is a summary
(`::notice` when clean, `::error` otherwise) without a file, so the job log says the verdict.
"""

from __future__ import annotations

from ..check.report import CheckReport
from ..check.rules import Severity, rule_info

_COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(kind: str, message: str, **properties: object) -> str:
    props = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties.items() if value is not None)
    return f"::{kind}{' ' + props if props else ''}::{escape_data(message)}"


def render(report: CheckReport) -> str:
    lines = []
    for f in report.findings:
        message = f.message + (f" [{f.declaration}]" if f.declaration and f.declaration not in f.message else "")
        message += f"\nfix: {rule_info(f.rule).fix}"
        props: dict[str, object] = {"file": f.path or None}
        if f.start_line:
            props["line"] = f.start_line
            props["endLine"] = max(f.end_line or f.start_line, f.start_line)
        props["title"] = f"wtc {f.rule}"
        lines.append(command(_COMMAND[f.severity], message, **props))
    counts = report.counts()
    verdict = (f"wtc check: {counts['violations']} boundary violation(s), {counts['conflicts']} merge conflict(s), "
               f"{counts['left_behind']} use(s) left behind of a removed name, "
               f"{counts['reserved']} reserved-file edit(s) in {counts['changed']} changed file(s)"
               + ("; NOT CHECKED for uses left behind (the look gave no answer)" if report.unanswered else ""))
    lines.append(command("notice" if report.ok else "error", verdict, title="wtc check"))
    return "\n".join(lines)
