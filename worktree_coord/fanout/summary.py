"""The end of a fanout: what each task came to, what the lead must do, and the exit code.

Stage: the runner's last step. Input: every task's `TaskOutcome`, consolidation's report (or None),
the counters. Output: a `FanoutReport` (`to_json()` is the `--json` summary, schema
`wtc.fanout/1`) and its text (`render`).

Exit codes: 0 every task merged (or ended with no change, or was abandoned by the lead) and
consolidation applied everything; 1 the lead must act (a task needs the lead, is blocked or was
removed while live, a task merged a file that does not parse (its finish's note: the landed tree
would not load it, and `wtc land` refuses it unless approved by path), consolidation left intents,
or the agent-run limit stopped the run); 130 the
runner was stopped (Ctrl-C, SIGTERM): the same command again resumes.
"""

from __future__ import annotations

import re
from dataclasses import field
from typing import Any

from ..errors import EXIT_ACTION, EXIT_INTERRUPTED, EXIT_OK
from ..results import Result, result_class
from .driver import TaskOutcome
from .plan import Plan

SETTLED_OK = ("merged", "empty", "abandoned")
REPORT_LINES = 14     # lines of a lead's report shown in the text (the JSON holds it whole)


@result_class
class FanoutReport(Result):
    """`wtc fanout`'s summary: `counts` by outcome, one row per task (`tasks`: outcome, state,
    attempts used of allowed, agent runs this invocation, and for a task the lead must act on its
    reason, report, worktree and last agent log), consolidation's report, `stopped` (interrupted,
    limit, or None), and the commands to run next."""

    run: str = ""
    plan: str = ""
    elapsed_seconds: float = 0.0
    concurrency: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    agent_runs: int = 0
    max_agents: int = 0
    stopped: str | None = None
    tasks: list[dict[str, Any]] = field(default_factory=list)
    consolidation: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)
    next: list[str] = field(default_factory=list)


def build_report(*, run: str, plan: Plan, outcomes: list[TaskOutcome], consolidation: dict[str, Any] | None,
                 agent_runs: int, max_agents: int, stopped: str | None, elapsed: float, notes: list[str],
                 concurrency: int, landed: bool = False) -> FanoutReport:
    counts: dict[str, int] = {}
    for outcome in outcomes:
        counts[outcome.outcome] = counts.get(outcome.outcome, 0) + 1
    consolidated_ok = consolidation is None or consolidation.get("exit_code", 0) == 0
    if stopped == "interrupted":
        code = EXIT_INTERRUPTED
    elif stopped == "limit" or any(o.outcome not in SETTLED_OK or o.notes for o in outcomes) or not consolidated_ok:
        code = EXIT_ACTION
    else:
        code = EXIT_OK
    notes = list(notes)
    if stopped == "limit":
        notes.append(f"stopped at the limit of {max_agents} agent runs for one invocation (--max-agents): the tasks "
                     "not finished keep their work; run the same command again to go on, or raise --max-agents")
    elif stopped == "interrupted":
        notes.append("stopped (Ctrl-C or SIGTERM): every agent was stopped, its worktree keeps what it wrote; run the "
                     "same command again to resume (merged tasks stay merged, agents that ended are not run again)")
    return FanoutReport(exit_code=code, run=run, plan=plan.source, elapsed_seconds=round(elapsed, 2),
                        concurrency=concurrency, counts=counts, agent_runs=agent_runs, max_agents=max_agents,
                        stopped=stopped, tasks=[o.to_json() for o in outcomes], consolidation=consolidation,
                        notes=notes, next=_next(run, plan, outcomes, consolidation, stopped,
                                                            landed and agent_runs == 0))


def _next(run: str, plan: Plan, outcomes: list[TaskOutcome], consolidation: dict[str, Any] | None,
          stopped: str | None, nothing_to_land: bool) -> list[str]:
    again = f"wtc fanout {plan.source} --run {run}"
    steps = []
    if stopped == "interrupted":
        steps.append(f"{again}  (resume)")
    elif stopped == "limit":
        steps.append(f"{again} --max-agents N  (go on)")
    lead = [o for o in outcomes if o.outcome in ("lead", "removed")]
    for outcome in lead[:10]:
        where = outcome.worktree or f"its worktree (gone with its finish: `wtc task update {outcome.task} --run {run}` brings it back)"
        widen = _widen_command(outcome.report) if outcome.reason in WIDEN_FIXES else None
        if widen:
            # Fixing a use left behind in place is itself outside the task's boundary: the finish
            # refuses it (exit 3) until the lead widens the task (found following this advice on black).
            steps.append(f"task {outcome.task}: {WIDEN_FIXES[outcome.reason].format(where=where, widen=widen)}; "
                         f"then `wtc task finish {outcome.task} --run {run}`")
            continue
        steps.append(f"task {outcome.task}: fix it in {where} and `wtc task finish {outcome.task} --run {run}`")
    if lead:
        steps.append(f"{again}  (after fixing: finishes what you fixed and runs what it unblocks; raise "
                     "`attempts` and add --replan for more agent repairs)")
    for outcome in [o for o in outcomes if o.notes][:10]:
        paths = [note.split(":", 1)[0] for note in outcome.notes]
        steps.append(f"task {outcome.task} merged {', '.join(paths)}, which does not parse: fix it in a task that "
                     f"owns it, or approve it at land (--allow-unparsed {' --allow-unparsed '.join(paths)})")
    if consolidation is not None and consolidation.get("exit_code", 0) != 0:
        # The fix consolidation itself gave (`--online` for a relock that needs packages not cached),
        # not only where to look: found driving fanout on click, whose new dependency needed the network.
        fixes = list(dict.fromkeys(str(row.get("fix") or "") for row in consolidation.get("skipped", [])))
        fix = fixes[0] if len(fixes) == 1 and fixes[0] else "see consolidation"
        steps.append(f"wtc intent list --run {run}; wtc consolidate --run {run}  (intents left: {fix})")
    steps.append(f"wtc report --run {run}  (the change manifest)")
    # A landed run that ran no agent now has nothing new to land: suggesting it again reads as if it had not.
    # (not while consolidation left intents: the landed tree would lack what those tasks declared)
    if not stopped and not lead and not nothing_to_land and all(o.outcome in SETTLED_OK for o in outcomes) \
            and (consolidation is None or consolidation.get("exit_code", 0) == 0):
        steps.append(f"wtc land --run {run} --onto <branch>  (landing is yours to approve; fanout never lands)")
    return steps


def render(report: FanoutReport) -> str:
    """The summary for people."""
    counts = report.counts
    total = sum(counts.values())
    merged = counts.get("merged", 0) + counts.get("empty", 0)
    repaired = sum(1 for t in report.tasks if t["outcome"] == "merged" and t["attempts_used"] > 1)
    empty = [t["task"] for t in report.tasks if t["outcome"] == "empty"]
    # An empty task merged nothing: after a repair that undid everything, say so rather than count it in silence.
    notes = ([f"{repaired} after a repair"] if repaired else []) + (
        [f"{len(empty)} with no change: {', '.join(empty[:6])}" + (", ..." if len(empty) > 6 else "")] if empty else [])
    head = (f"run {report.run}: {merged} of {total} task(s) merged"
            + (f" ({'; '.join(notes)})" if notes else "")
            + "".join(f", {counts[k]} {words}" for k, words in (
                ("lead", "need the lead"), ("blocked", "blocked"), ("removed", "removed while live"),
                ("abandoned", "abandoned"), ("stopped", "stopped"), ("limit", "not run (limit)"),
                ("not_run", "not run")) if counts.get(k))
            + f"; {report.agent_runs} agent run(s) in {_duration(report.elapsed_seconds)} at concurrency "
            f"{report.concurrency}")
    lines = [head]
    lead = [t for t in report.tasks if t["outcome"] in ("lead", "removed")]
    if lead:
        lines.append("needs the lead:")
        for task in lead:
            where = f"; worktree {task['worktree']}" if task.get("worktree") else ""
            log = f"; agent log {task['log']}" if task.get("log") else ""
            lines.append(f"  {task['task']}: {task.get('reason') or task['outcome']} after {task['attempts_used']} of "
                         f"{task['attempts']} attempt(s){where}{log}")
            body = (task.get("report") or "").rstrip().splitlines()
            lines += [f"    | {line}" for line in body[:REPORT_LINES]]
            if len(body) > REPORT_LINES:
                lines.append(f"    | ... {len(body) - REPORT_LINES} more line(s) in the --json summary")
    noted = [t for t in report.tasks if t.get("notes")]
    if noted:
        lines.append("merged with notes:")
        lines += [f"  {t['task']}: {note}" for t in noted for note in t["notes"]]
    blocked = [t for t in report.tasks if t["outcome"] == "blocked"]
    if blocked:
        lines.append("blocked:")
        lines += [f"  {t['task']}: {t.get('report') or ''}" for t in blocked]
    waiting = [t["task"] for t in report.tasks if t["outcome"] in ("stopped", "limit", "not_run")]
    if waiting:
        shown = ", ".join(waiting[:20]) + (f" and {len(waiting) - 20} more" if len(waiting) > 20 else "")
        lines.append(f"not finished: {shown}")
    if report.consolidation is not None:
        lines.append(_consolidation_line(report.consolidation))
    lines += [f"note: {note}" for note in report.notes]
    if report.next:
        lines.append("next:")
        lines += [f"  {step}" for step in report.next]
    return "\n".join(lines)


# A lead task's reasons whose fix may lie outside its boundary, and the step that says both ways out.
WIDEN_FIXES = {
    "left_behind": "keep the old name too (an alias) in {where}, or widen the task first (`{widen}`) and update "
                   "the uses there",
    "rejected": "put the paths outside its boundary back in {where}, or, when it had good reason to change them, "
                "widen it (`{widen}`)",
}


def _widen_command(report: str | None) -> str | None:
    """The `wtc task widen` command a lead task's finish report gives (the files using a name it
    removed, or the paths it changed outside its boundary); None when it gives none."""
    found = re.search(r"`(wtc task widen [^`]+)`", report or "")
    return found.group(1) if found else None


def _consolidation_line(consolidation: dict[str, Any]) -> str:
    if "error" in consolidation:
        return f"consolidation: did not run ({consolidation['error'].get('message', '')})"
    roots = consolidation.get("roots", [])
    # A root is named as `wtc consolidate` names it: by the tool its project uses (`tool`, a hatch or
    # setuptools project kept under uv's ecosystem), else its ecosystem.
    states = ", ".join(f"{r.get('tool') or r.get('ecosystem') or ''} root {r.get('root') or '.'}: "
                       f"{str(r.get('state')).replace('_', ' ')}".strip()
                       for r in roots) or "nothing to apply"
    skipped = consolidation.get("skipped", [])
    line = f"consolidation (offline first): {states}"
    if skipped:
        line += f"; {len(skipped)} intent(s) not applied:" + "".join(
            f"\n  {row.get('task')}: {row.get('intent')} ({str(row.get('state')).replace('_', ' ')}"
            f"{_why(row)})"
            for row in skipped[:10])
        if len(skipped) > 10:
            line += f"\n  and {len(skipped) - 10} more (wtc intent list --run {consolidation.get('run', '<run>')})"
    return line


def _why(row: dict[str, Any]) -> str:
    """`: why` of a skipped intent's line (its first line, without the state it repeats), or ""
    where its state says it all (needs_network: the fix below names the network)."""
    state, why = str(row.get("state")), str(row.get("why") or "")
    if not why or state == "needs_network":
        return ""
    return ": " + _short(why.removeprefix(f"ended {state}: "))


def _short(text: str, limit: int = 160) -> str:
    """The first line of `text`, cut to `limit` characters."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[:limit - 3] + "..."


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes} min {rest} s" if minutes < 60 else f"{minutes // 60} h {minutes % 60} min"
