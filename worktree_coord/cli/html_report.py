"""`wtc report --format html`: the run report as one self-contained HTML page people can look at.

Stage: a renderer (face). Input: the `RunReport` that `wtc report --json` prints, nothing else.
Output: one HTML document with no network access of any kind (no external script, style sheet,
font or image): a timeline of every task drawn as inline SVG (started, finished, merged, conflict,
rejected, updated, abandoned), the conflict map (tasks by the files two or more tasks changed, or
any task conflicted on), consolidation per root, and the change manifest (files landing with their
origin, intents not applied, conflicts, verification, the target, warnings). The report's JSON is
embedded verbatim (`<script type="application/json" id="wtc-report">`), so the page holds exactly
the content of `report --json`; a small inline script reads it to drive the manifest's filter and
marks the page ready (`<body data-ready="1">`), which the browser test checks.

Invariants: every value from the report is escaped; the page is deterministic for a given report.
"""

from __future__ import annotations

import html
import json
from typing import Any

from ..output.render import manifest_path
from ..results import RunReport

# One colour per point kind; the same in the legend, the timeline and the state badges.
COLOURS = {
    "started": "#6b7280", "finished": "#2563eb", "merged": "#16a34a", "conflict": "#dc2626",
    "rejected": "#ea580c", "updated": "#7c3aed", "abandoned": "#374151", "empty": "#9ca3af",
    "failed": "#b91c1c", "failed_verification": "#b91c1c",
    "agent": "#0891b2", "repair": "#d97706",     # agent runs of `wtc fanout` (fanout.agent, fanout.repair)
}
ROW = 22          # timeline row height (px)
LABEL = 170       # width of the task-name column of the timeline (px)
PLOT = 760        # width of the time axis (px)
MAP_FILES = 60    # columns of the conflict map at most (the rest are counted, not drawn)

STYLE = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px;color:#111827;background:#fff}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:28px 0 8px;border-bottom:1px solid #e5e7eb;padding-bottom:4px}
.meta{color:#4b5563}.mono,code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px}
table{border-collapse:collapse;margin:4px 0}th,td{border:1px solid #e5e7eb;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f9fafb}.badge{display:inline-block;border-radius:9px;padding:0 8px;color:#fff;font-size:12px}
.legend span{margin-right:14px;white-space:nowrap}.dot{display:inline-block;width:10px;height:10px;border-radius:50%;margin-right:4px}
.map td{text-align:center;width:16px;padding:2px}.map th.file{writing-mode:vertical-rl;transform:rotate(180deg);font-weight:normal;
white-space:nowrap;max-height:220px}.map .c{background:#fecaca;color:#991b1b;font-weight:bold}.map .x{background:#dbeafe}
.warn{color:#92400e}.ok{color:#166534}input{font:inherit;padding:2px 6px;margin:4px 0}
"""

SCRIPT = """
(function () {
  var report = JSON.parse(document.getElementById("wtc-report").textContent);
  var filter = document.getElementById("manifest-filter");
  var rows = document.querySelectorAll("#manifest tbody tr");
  document.getElementById("manifest-count").textContent = String(report.files.length);
  filter.addEventListener("input", function () {
    var wanted = filter.value.toLowerCase();
    rows.forEach(function (row) { row.hidden = wanted !== "" && row.textContent.toLowerCase().indexOf(wanted) < 0; });
  });
  document.body.setAttribute("data-ready", "1");
})();
"""


def render_html(report: RunReport) -> str:
    """The whole page for `report` (see the module docstring)."""
    data = report.to_json()
    counts: dict[str, int] = {}
    for task in report.tasks:
        counts[task["state"]] = counts.get(task["state"], 0) + 1
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        # No network: a policy that forbids every fetch the page could make, as a second guarantee.
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\'; '
        'script-src \'unsafe-inline\'; img-src data:">',
        f"<title>wtc run {_e(report.run)}</title><style>{STYLE}</style></head><body>",
        f"<h1>Run <code>{_e(report.run)}</code></h1>",
        f'<div class="meta">integration <code>{_e(report.integration)}</code> at <code>{_e(report.tip[:12])}</code>, '
        f"pinned at <code>{_e(report.base[:12])}</code> &middot; "
        + (", ".join(f"{n} {_e(s)}" for s, n in sorted(counts.items())) or "no tasks") + "</div>",
        "<h2>Timeline</h2>", _legend(report.timeline), _timeline_svg(report.timeline),
        "<h2>Conflict map</h2>", _conflict_map(report),
        "<h2>Consolidation per root</h2>", _consolidation(report.consolidation),
        "<h2>Change manifest</h2>", _manifest(report),
        '<script type="application/json" id="wtc-report">' + _json_for_script(data) + "</script>",
        f"<script>{SCRIPT}</script>",
        "</body></html>",
    ]
    return "\n".join(parts) + "\n"


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _json_for_script(data: dict[str, Any]) -> str:
    # Inside <script>, only "</" can end the element early; "<\/" means the same to JSON.parse.
    return json.dumps(data, sort_keys=False).replace("</", "<\\/")


def _kind(event_kind: str) -> str:
    return event_kind.split(".", 1)[1] if "." in event_kind else event_kind


def _legend(timeline: dict[str, Any]) -> str:
    kinds = ("started", "finished", "merged", "conflict", "rejected", "updated", "abandoned")
    drawn = {_kind(p["kind"]) for t in timeline.get("tasks", []) for p in t["events"]}
    kinds += tuple(k for k in ("agent", "repair") if k in drawn)   # a fanout's agent runs, when it had any
    return '<div class="legend">' + "".join(
        f'<span><i class="dot" style="background:{COLOURS[k]}"></i>{k}</span>' for k in kinds) + "</div>"


def _timeline_svg(timeline: dict[str, Any]) -> str:
    """One row per task: a bar from its start to its last point (to now while it is live), a dot per
    point coloured by kind, with the time as a tooltip; an axis in seconds or minutes from the run's start."""
    tasks = timeline.get("tasks", [])
    if not tasks:
        return "<p>no tasks</p>"
    start = float(timeline.get("started_at") or min(p["at"] for t in tasks for p in t["events"]))
    live = {"started", "rejected", "conflict"}
    end = max([float(timeline.get("now", start))] if any(t["state"] in live for t in tasks) else
              [p["at"] for t in tasks for p in t["events"]] + [start + 1])
    span = max(end - start, 1e-6)
    height = ROW * len(tasks) + 30

    def x(at: float) -> float:
        return round(LABEL + (at - start) / span * PLOT, 1)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{LABEL + PLOT + 50}" height="{height}" '
           f'role="img" aria-label="timeline of every task" font-family="system-ui,sans-serif" font-size="12">']
    unit, scale = (("s", 1.0) if span < 180 else ("min", 60.0))
    for i in range(6):
        at = start + span * i / 5
        out.append(f'<line x1="{x(at)}" y1="0" x2="{x(at)}" y2="{height - 18}" stroke="#e5e7eb"/>'
                   f'<text x="{x(at)}" y="{height - 4}" text-anchor="middle" fill="#6b7280">'
                   f"{(at - start) / scale:.1f} {unit}</text>")
    for row, task in enumerate(tasks):
        y = row * ROW + ROW / 2
        points = sorted(task["events"], key=lambda p: p["at"])
        last = end if task["state"] in live else points[-1]["at"]
        colour = COLOURS.get(task["state"], "#6b7280")
        out.append(f'<text x="{LABEL - 8}" y="{y + 4}" text-anchor="end">{_e(task["task"])}</text>')
        out.append(f'<line x1="{x(points[0]["at"])}" y1="{y}" x2="{max(x(last), x(points[0]["at"]) + 2)}" y2="{y}" '
                   f'stroke="{colour}" stroke-width="6" stroke-linecap="round" opacity="0.35"/>')
        for point in points:
            kind = _kind(point["kind"])
            out.append(f'<circle cx="{x(point["at"])}" cy="{y}" r="5" fill="{COLOURS.get(kind, "#6b7280")}">'
                       f'<title>{_e(task["task"])}: {_e(kind)} at +{point["at"] - start:.1f} s</title></circle>')
    out.append("</svg>")
    return "".join(out)


def _conflict_map(report: RunReport) -> str:
    """Tasks by files: the files two or more tasks changed, or any task conflicted on."""
    changed: dict[str, set[str]] = {}
    for task in report.tasks:
        for path in task.get("files", []):
            changed.setdefault(path, set()).add(task["task"])
    conflicted: dict[str, set[str]] = {}
    for conflict in report.conflicts:
        path = conflict.get("path") or ""
        if path:
            conflicted.setdefault(path, set()).add(conflict["task"])
            changed.setdefault(path, set()).add(conflict["task"])
    files = sorted(p for p in changed if len(changed[p]) > 1 or p in conflicted)
    if not files:
        return "<p>no file was changed by two tasks, and no task is in conflict</p>"
    shown, rest = files[:MAP_FILES], len(files) - MAP_FILES
    tasks = [t["task"] for t in report.tasks if any(t["task"] in changed[p] for p in shown)]
    out = ['<table class="map"><thead><tr><th>task \\ file</th>']
    out += [f'<th class="file mono" title="{_e(p)}">{_e(p)}</th>' for p in shown]
    out.append("</tr></thead><tbody>")
    for task in tasks:
        out.append(f"<tr><th>{_e(task)}</th>")
        for path in shown:
            if task in conflicted.get(path, ()):
                out.append(f'<td class="c" title="{_e(task)} conflicts on {_e(path)}">&#10007;</td>')
            elif task in changed[path]:
                out.append(f'<td class="x" title="{_e(task)} changed {_e(path)}">&#9679;</td>')
            else:
                out.append("<td></td>")
        out.append("</tr>")
    out.append("</tbody></table>")
    if rest > 0:
        out.append(f"<p>{rest} more files not drawn (see the manifest)</p>")
    return "".join(out)


def _consolidation(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "<p>no reserved-file intents and no consolidation yet</p>"
    out = ["<table><thead><tr><th>root</th><th>ecosystem</th><th>state</th><th>commit</th><th>intents</th></tr>"
           "</thead><tbody>"]
    for row in rows:
        intents = ", ".join(f"{n} {_e(s)}" for s, n in sorted(row.get("intents", {}).items())) or ""
        out.append(f"<tr><td class=mono>{_e(row['root'] or '.')}</td><td>{_e(row.get('ecosystem') or '')}</td>"
                   f"<td>{_e(row['state'])}</td><td class=mono>{_e((row.get('commit') or '')[:12])}</td>"
                   f"<td>{intents}</td></tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _manifest(report: RunReport) -> str:
    out = [f'<p><span id="manifest-count">{len(report.files)}</span> path(s) landing changes. '
           '<input id="manifest-filter" type="search" placeholder="filter paths, tasks" aria-label="filter"></p>',
           '<table id="manifest"><thead><tr><th>status</th><th>path</th><th>from</th></tr></thead><tbody>']
    for item in report.files:
        out.append(f"<tr><td>{_e(item['status'])}</td><td class=mono>{_e(manifest_path(item))}</td>"
                   f"<td>{_e(item.get('origin', ''))}</td></tr>")
    out.append("</tbody></table>")
    out.append("<h3>Tasks</h3><table><thead><tr><th>task</th><th>state</th><th>files</th><th>merge commit</th>"
               "</tr></thead><tbody>")
    for task in report.tasks:
        colour = COLOURS.get(task["state"], "#6b7280")
        out.append(f"<tr><td>{_e(task['task'])}</td><td><span class=badge style=\"background:{colour}\">"
                   f"{_e(task['state'])}</span></td><td>{len(task.get('files', []))}</td>"
                   f"<td class=mono>{_e((task.get('merge_commit') or '')[:12])}</td></tr>")
    out.append("</tbody></table>")
    if report.conflicts:
        out.append("<h3>Conflicts</h3><ul>")
        for c in report.conflicts:
            out.append(f"<li><b>{_e(c['task'])}</b>: <code>{_e(c.get('path', ''))}</code> "
                       f"{_e(c.get('declaration') or '')} ({_e(c.get('kind', ''))})</li>")
        out.append("</ul>")
    if report.intents:
        out.append("<h3>Intents</h3><ul>")
        for i in report.intents:
            at = f" at <code>{_e(i['commit'][:12])}</code>" if i.get("commit") else ""
            why = f": {_e(i['why'])}" if i.get("why") else ""
            out.append(f"<li class={'ok' if i['state'] in ('applied', 'satisfied') else 'warn'}>{_e(i['state'])}: "
                       f"{_e(i['what'])} in <code>{_e(i.get('manifest'))}</code> (task {_e(i.get('task'))}){at}{why}</li>")
        out.append("</ul>")
    if report.verification:
        out.append("<h3>Verification</h3><ul>")
        for v in report.verification:
            out.append(f"<li class={'ok' if v.get('ok') else 'warn'}>{_e(v['task'])}: "
                       f"{'ok' if v.get('ok') else 'FAILED'} <code>{_e(v.get('command', ''))}</code></li>")
        out.append("</ul>")
    if report.target:
        verdict = "fast-forward" if report.target.get("fast_forward") else "not a fast-forward (target moved)"
        out.append(f"<p>target <code>{_e(report.target['branch'])}</code> at "
                   f"<code>{_e(report.target['tip'][:12])}</code>: {verdict}</p>")
    out.append("<h3>Warnings</h3>" + ("<ul>" + "".join(f'<li class="warn">{_e(w)}</li>' for w in report.warnings)
                                       + "</ul>" if report.warnings else
                                       '<p class="ok">nothing left out: every task merged and every intent applied</p>'))
    return "".join(out)
