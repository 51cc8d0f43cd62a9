"""`--format text`: the check for people, in the shape of ruff's and git's own output.

    packages/web/app.ts:3-5: outside_own: modified a path outside --own ['packages/api/**']
    ...
    wtc check: 2 boundary violations, 1 merge conflict, 1 use left behind of a removed name: ...
"""

from __future__ import annotations

from ..check.report import CheckReport, Finding


def _where(f: Finding) -> str:
    if not f.path:
        return "(repository)"
    if f.start_line is None:
        return f.path
    if f.end_line and f.end_line != f.start_line:
        return f"{f.path}:{f.start_line}-{f.end_line}"
    return f"{f.path}:{f.start_line}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def render(report: CheckReport) -> str:
    lines: list[str] = []
    for f in report.findings:
        inside = f" [{f.declaration}]" if f.declaration and f.declaration not in f.message else ""
        lines.append(f"{_where(f)}: {f.severity.value}: {f.rule}: {f.message}{inside}")
    source = report.boundary
    lines.append(f"boundary ({source.kind}{': ' + source.manifest if source.manifest else ''}"
                 f"{': task ' + str(source.task) + ' of run ' + str(source.run) if source.kind == 'task' else ''}): "
                 f"own {' '.join(source.own)}")
    m = report.merge
    if m.picked:
        lines.append(f"target {m.target}: {m.picked}")
    if m.attempted:
        state = "clean" if m.clean else "conflicts"
        resolved = f", {_plural(len(m.resolved), 'file')} resolved by the structured merge" if m.resolved else ""
        lines.append(f"dry-run merge into {m.target} at {str(m.target_tip)[:12]}: {state}{resolved}"
                     + (f" ({m.reason})" if m.reason else ""))
    else:
        lines.append(f"dry-run merge: skipped ({m.reason})")
    for intent in report.intents:
        # A setting's name is its whole key path; its group ("settings") says nothing more.
        group = None if intent.get("op") in ("set_key", "remove_key") else intent.get("group")
        target = ".".join(part for part in (group, intent.get("name")) if part)
        spec = f" = {intent['spec']}" if intent.get("spec") else ""
        lines.append(f"intent: {intent.get('manifest') or intent.get('root') or '.'}: {intent.get('op')} {target}{spec}"
                     .rstrip())
    counts = report.counts()
    parts = []
    if counts["violations"]:
        parts.append(_plural(counts["violations"], "boundary violation"))
    if counts["conflicts"]:
        parts.append(_plural(counts["conflicts"], "merge conflict"))
    if counts["left_behind"]:
        blocking = report.left_behind_mode == "block"
        # (a call of a function the branch reshaped, passing what the old shape took, is one too)
        reshaped = any(f.details.get("signature") for f in report.left_behind_uses)
        parts.append(_plural(counts["left_behind"], "use") + " left behind of a removed name"
                     + (" or a reshaped function" if reshaped else "") + ("" if blocking else " (warnings)"))
    if counts["reserved"]:
        parts.append(_plural(counts["reserved"], "reserved-file edit") + " (consolidated later)")
    if report.unanswered:
        parts.append("NOT CHECKED for uses left behind of removed names (the look gave no answer)")
    verdict = ", ".join(parts) if parts else "clean"
    lines.append(f"wtc check: {verdict}: {_plural(counts['changed'], 'changed file')}, head {report.head[:12]} "
                 f"({report.head_label}) since {report.base[:12]}")
    return "\n".join(lines)
