"""Text renderings of the Coordinator's results for people: the CLI's output, and the short text of each MCP
tool result (agents read the JSON: `--json`, or the structured content)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..model import TaskState
from ..results import (Forecast, GcReport, Landed, MergeReport, PlanRules, RunReport, RunSnapshot, RunStarted,
                       RunStatus, TaskAbandoned, TaskCheck, TaskFinished, TaskStarted, TaskUpdated, TaskWidened)

if TYPE_CHECKING:  # consolidation loads only when a consolidation result is drawn
    from ..coordinator.consolidation_phase import ConsolidationReport


def _again(replayed: bool) -> str:
    return " (repeat: the stored result of the first call)" if replayed else ""


def run_started(r: RunStarted) -> str:
    where = f" on remote {r.remote}" if r.remote else ""
    notes = "".join(f"\n  note: {note}" for note in r.notes)
    network = f"; task commands on {'their own network' if r.network == 'isolated' else 'the host network'}" \
        if r.network else ""
    return (f"run {r.run} pinned at {r.base[:12]}; integration branch {r.integration}{where}{network}"
            f"{_again(r.replayed)}{notes}")


def task_started(r: TaskStarted) -> str:
    if r.existing and not r.worktree:   # an ended task: its state, no worktree
        return "\n".join([f"task {r.task}: {r.state} (it existed before this call)"]
                         + [f"  note: {note}" for note in r.notes])
    head = f"task {r.task} exists ({r.state})" if r.existing else f"task {r.task} started{_again(r.replayed)}"
    lines = [head,
             f"  worktree  {r.worktree}",
             f"  branch    {r.branch} at {r.base[:12]}",
             f"  own       {' '.join(r.boundary.get('own', []))}"]
    if r.boundary.get("read"):
        lines.append(f"  read      {' '.join(r.boundary['read'])}")
    if r.sparse_cone is not None:
        lines.append(f"  sparse    {' '.join(r.sparse_cone) or '(root files only)'} + root files")
    for overlap in r.overlaps:
        lines.append(f"  overlaps  task {overlap['task']} ({', '.join(a + ' ~ ' + b for a, b in overlap['globs'])})")
    lines.append(f"  manifest  {r.manifest}")
    if r.boundary_from and r.boundary_from != "--own":
        lines.append(f"  boundary  from {r.boundary_from}")
    lines += _prepared_lines(r.prepared)
    for note in r.notes:
        lines.append(f"  note: {note}")
    return "\n".join(lines)


def _prepared_lines(prepared: dict) -> list[str]:  # type: ignore[type-arg]
    lines = []
    if prepared.get("ports"):
        ports = prepared["ports"]
        lines.append(f"  ports     {ports['base']}-{ports['last']} (WTC_PORT_BASE in {prepared.get('env_file')})")
    if prepared.get("included", {}).get("copied"):
        lines.append(f"  copied    {prepared['included']['copied']} file(s) named in .worktreeinclude")
    for name in prepared.get("linked", []):
        lines.append(f"  linked    {name}")
    for name in prepared.get("copied_folders", []):
        lines.append(f"  copied    {name}/")
    for item in prepared.get("skipped", []):
        lines.append(f"  skipped   {item['path']}: {item['why']}")
    if prepared.get("setup"):
        setup = prepared["setup"]
        lines.append(f"  setup     `{setup['command']}` ok in {setup['seconds']} s, log {setup['log']}")
    return lines


def plan_rules(r: PlanRules, what: str) -> str:
    if what != "list":
        return "\n".join(f"rule #{rule['rule']} {what}: {_rule_text(rule)}" for rule in r.rules) + \
            (" (it was there already)" if r.replayed else "")
    lines = [f"#{rule['rule']:<4} {_rule_text(rule)}" for rule in r.rules] or ["no plan rules"]
    if r.default is not None:
        lines.append(f"then  own {' '.join(r.default['own'])}" + (f" read {' '.join(r.default['read'])}"
                                                                  if r.default["read"] else "")
                     + f"  ({r.default['from']})")
    return "\n".join(lines)


def _rule_text(rule: dict) -> str:  # type: ignore[type-arg]
    text = f"{rule['pattern']!r} -> own {' '.join(rule['own'])}"
    if rule["read"]:
        text += f" read {' '.join(rule['read'])}"
    if rule["sparse"]:
        text += " (sparse)"
    return text + f"  [{'run ' + rule['run'] if rule['run'] else 'every run'}]"



def task_finished(r: TaskFinished) -> str:
    # Two commits a finish names, each once and said whose: the task's own (on its branch) here, the
    # merge commit integration moved to below ("merged at X" then "merged into integration as Y"
    # read as two merges).
    head = f"task {r.task}: {r.state}" + (f" (task commit {r.commit[:12]})" if r.commit else "") + _again(r.replayed)
    lines = [head]
    if r.violations:
        from ..boundary.large_files import NOTHING_COMMITTED  # not at the top: `wtc status` must not load pygit2

        kept = ("the worktree stays" if any(v["rule"] in ("branch_switched", "git_dir", "stashed_work")
                                            or v["detail"].endswith(NOTHING_COMMITTED) for v in r.violations)
                else f"the commit stays on {r.branch} and the worktree stays")
        lines.append(f"  {len(r.violations)} boundary violation(s); {kept}:")
        for v in r.violations:
            lines.append(f"    {v['rule']:<22} {v['path'] or '-'}  {v['detail']}")
            if v.get("fix"):
                lines.append(f"      way out: {v['fix']}")
    else:
        lines.append(f"  {len(r.changed)} file(s) changed on {r.branch}")
    if r.merge and r.merge.get("merge_commit"):
        lines.append(f"  merged into integration as merge commit {str(r.merge.get('merge_commit'))[:12]}"
                     + (f" (resolved {', '.join(r.merge['resolved'])})" if r.merge.get("resolved") else ""))
        for path, how in (r.merge.get("resolutions") or {}).items():
            lines.append(f"    {path}: {how}")
        passed = r.merge.get("verification") or {}
        if passed.get("ok"):   # said, so an agent (or its lead) knows the gate ran and on what
            lines.append(f"  verified  `{passed.get('command')}` passed"
                         + (f" in {passed['seconds']} s" if passed.get("seconds") is not None else ""))
    elif r.merge:   # nothing to bring in: its commits were in integration already, or it changed no file
        lines.append(f"  nothing to merge: integration at {str(r.merge.get('new_tip'))[:12]} already holds "
                     + ("its commits" if r.changed else "everything it changed (no file)"))
    for item in r.reserved:
        # What the edit became, so the agent sees every change it made is carried (none dropped).
        carried = [f"{i['op']} {i.get('name') or ''}".rstrip() for i in r.intents
                   if i.get("manifest") == item["path"] and i.get("op") != "relock"]
        more = f" and {len(carried) - MAX_INTENTS_NAMED} more" if len(carried) > MAX_INTENTS_NAMED else ""
        lines.append(f"  reserved  {item['path']} ({item['status']}): kept aside for consolidation"
                     + (f" as {', '.join(carried[:MAX_INTENTS_NAMED])}{more}" if carried else ""))
    reserved_paths = {item["path"] for item in r.reserved}
    for intent in r.intents:
        # A member's manifest merged as code, so its root's lock waits (a reserved file's line says so already).
        if intent.get("op") == "relock" and intent.get("manifest") not in reserved_paths:
            lines.append(f"  relock    {intent.get('tool') or intent['ecosystem']} root {intent.get('root') or '.'} "
                         f"({intent['manifest']} changed): at consolidation (`wtc consolidate --run {r.run}`)")
    for c in r.conflicts:
        if c.get("semantic"):
            lines.append(f"  conflict  {_semantic_line(c['semantic'])}")
            continue
        where = f" in {c['declaration']}" if c.get("declaration") else ""
        lines.append(f"  conflict  {c['path']}{where} lines {c.get('start_line')}-{c.get('end_line')} ({c['kind']})"
                     + _conflict_authors(c))
    for path, why in dict.fromkeys((c["path"], "; ".join(c["why"])) for c in r.conflicts if c.get("why")):
        lines.append(f"  why       {path}: {why}")
    if r.verification and not r.verification.get("ok", True):
        check = r.verification
        lines.append(f"  verification failed: `{check['command']}` exited {check.get('exit_code')}; last lines:")
        tail = (check.get("output_tail") or "").rstrip("\n").splitlines()[-VERIFY_TAIL_LINES:]
        lines += [f"    | {line}" for line in tail] or ["    | (no output)"]
    for note in r.notes:
        lines.append(f"  note: {note}")
    return "\n".join(lines)


MAX_INTENTS_NAMED = 6   # a finish line names at most this many intents of one reserved file
VERIFY_TAIL_LINES = 20


def task_updated(r: TaskUpdated) -> str:
    lines = [f"task {r.task}: worktree {r.worktree} now holds the integration tip {r.integration_tip[:12]}{_again(r.replayed)}"]
    if r.conflicted_paths:
        lines.append(f"  {len(r.conflicted_paths)} file(s) hold conflict markers to resolve:")
        lines += [f"    {p}" for p in r.conflicted_paths]
        for marker in r.markers:
            lines.append(f"  {marker['marker']} {marker['label']:<24} {marker['holds']}")
        lines.append(f"  then: wtc task finish {r.task} --run {r.run}")
    elif r.semantic:
        what = "conflict" if r.exit_code else "warning"
        lines.append(f"  merged cleanly line by line, but names broke ({len(r.semantic)} semantic {what}(s)):")
        lines += [f"    {_semantic_line(f)}" for f in r.semantic]
        from ..merge.result import problem_words   # the merge engine's words, only for a semantic finding

        fix = ", ".join(dict.fromkeys(problem_words(f.get("problem", "broken")).fix for f in r.semantic))
        lines.append(f"  {fix}, then: wtc task finish {r.task} --run {r.run}")
    else:
        lines.append(f"  merged cleanly; finish again to land it: wtc task finish {r.task} --run {r.run}")
    lines += [f"  note: {note}" for note in r.notes]
    return "\n".join(lines)


def _conflict_authors(conflict: dict[str, Any]) -> str:
    """Who wrote the integration side of a conflict block, else which merged tasks changed the file."""
    if conflict.get("written_by"):
        return f"; integration side written by {', '.join(conflict['written_by'])}"
    if conflict.get("last_changed_by"):
        return f"; file last changed by {', '.join(conflict['last_changed_by'])}"
    return ""


def _semantic_line(f: dict) -> str:  # type: ignore[type-arg]
    """A semantic finding on one line, with both tasks when known."""
    from ..merge.result import problem_words

    words = problem_words(f.get("problem", "broken"))   # what each side did (stored as removed_by / used_by)
    removed, used = words.removed_role, words.used_role
    tasks = [f"{role} task {f[key]}" for role, key in ((removed, "removed_by_task"), (used, "used_by_task"))
             if f.get(key)]
    if f.get("problem") == "left_behind":   # its own kind: no side wrote the use
        return f"{f['message']} (left behind)" + (f"; {', '.join(tasks)}" if tasks else "")
    if f.get("problem", "broken") != "broken":   # a duplicate, a reshaped call...: the message names both places
        return f"{f['message']} (semantic)" + (f"; {', '.join(tasks)}" if tasks else "")
    renamed = f" (to {f['replacement']}, it seems)" if f.get("replacement") else ""
    return (f"{f['use_path']}:{f['use_line']} uses {f['name']} ({f['kind']} at {f['definition_path']}:"
            f"{f['definition_line']} in the base), removed or renamed{renamed} on the other side (semantic)"
            + (f"; {', '.join(tasks)}" if tasks else ""))


def merge_report(r: MergeReport) -> str:
    lines = [f"run {r.run}: integration {r.integration} at {r.tip[:12]}{_again(r.replayed)}"]
    if not r.tasks:
        lines.append("  nothing waiting to merge")
    for row in r.tasks:
        lines.append(f"  {row['task']:<24} {row['state']}" + (f" ({len(row['conflicts'])} conflict(s))" if row["conflicts"] else ""))
        if row.get("reason"):   # a task passed over (its look gave no answer): why, and how to go on
            lines.append(f"    {row['reason']}" + (f"\n    fix: {row['fix']}" if row.get("fix") else ""))
    return "\n".join(lines)



def manifest_path(item: dict[str, Any]) -> str:
    """A row of the landing manifest as a person reads its path: a moved file as `old -> new`."""
    return f"{item['from']} -> {item['path']}" if item.get("from") else item["path"]

def run_report(r: RunReport) -> str:
    lines = [f"run {r.run}: integration {r.integration} at {r.tip[:12]} (pinned at {r.base[:12]})"]
    by_state: dict[str, list[str]] = {}
    for task in r.tasks:
        by_state.setdefault(task["state"], []).append(task["task"])
    for state, names in sorted(by_state.items()):
        lines.append(f"  {state:<10} {len(names):>3}  {', '.join(names[:12])}{' ...' if len(names) > 12 else ''}")
    for task in r.tasks:
        for change in task.get("widened", []):
            globs = [f"own {g}" for g in change.get("own", [])] + [f"read {g}" for g in change.get("read", [])]
            lines.append(f"  widened   task {task['task']}: " + ", ".join(globs)
                         + (f" (why: {change['why']})" if change.get("why") else " (no reason given)"))
    where = f"{r.target['branch']}" if r.target and r.target.get("fast_forward") else "the pinned commit"
    lines.append(f"  {len(r.files)} path(s) landing changes (against {where}), with where each change came from:")
    for item in r.files:
        lines.append(f"    {item['status']:<8} {manifest_path(item)}  ({item['origin']})")
    # Every intent, what became of it and why (a report of an older wtc has the unapplied ones only).
    for item in r.intents or [{"what": " ".join(p for p in (row["op"], row["name"], row.get("spec")) if p),
                               "why": row.get("reason")} | row for row in r.intents_pending]:
        at = f" at {item['commit'][:12]}" if item.get("commit") else ""
        why = f": {item['why']}" if item.get("why") else ""
        lines.append(f"  intent    {item['state']:<13} {item['what']} in {item['manifest']} (task {item['task']}){at}{why}")
    for c in r.conflicts:
        if c.get("semantic"):
            lines.append(f"  conflict  {_semantic_line(c['semantic'])}")
            continue
        at = f" lines {c['start_line']}-{c['end_line']}" if c.get("start_line") else ""
        lines.append(f"  conflict  {c['path']} {c.get('declaration') or ''}{at} (task {c['task']})")
    # Why the merge left each task's file conflicted and what to do (finish's `why`), once a file.
    for (task, path), why in dict.fromkeys(((c["task"], c["path"]), "; ".join(c["why"]))
                                           for c in r.conflicts if c.get("why") and not c.get("semantic")):
        lines.append(f"  why       {path} (task {task}): {why}")
    lines += _verification_lines(r.verification)
    if r.target:
        verdict = "fast-forward" if r.target["fast_forward"] else "NOT a fast-forward (target moved)"
        lines.append(f"  target    {r.target['branch']} at {r.target['tip'][:12]}: {verdict}")
    if r.left_behind_unchecked:
        lines.append(f"  NOT CHECKED for uses of names the run removed: {r.left_behind_unchecked}")
    if r.unparsed_unchecked:
        lines.append(f"  NOT CHECKED for files that no longer parse: {r.unparsed_unchecked}")
    grouped = _grouped_left_behind(r.left_behind, r.warnings)
    for index, warning in enumerate(r.warnings):
        if index in grouped:
            if grouped[index]:   # a group's line stands at its first use's warning; the others are in it
                lines.append(f"  warning: {grouped[index]}")
            continue
        lines.append(f"  warning: {warning}")
    if not r.warnings:
        lines.append("  nothing left out: every task merged and every intent applied")
    return "\n".join(lines)


VERIFIED_TASKS_SHOWN = 12   # tasks a line of passed verifications names, before "and N more"


def _verification_lines(rows: list[dict[str, Any]]) -> list[str]:
    """The report's text of the run's verifications: a failed one a line each, the passed ones one line
    per command naming their tasks (a swarm's 58 merges under one `[run] verify` gave 58 lines, each
    with the whole command). `--json` keeps a row per task."""
    lines: list[str] = []
    passed: dict[str, list[str]] = {}
    for v in rows:
        if v["ok"]:
            passed.setdefault(v["command"], []).append(v["task"])
        else:
            lines.append(f"  verify    {v['task']}: FAILED `{v['command']}`")
    for command, tasks in passed.items():
        if len(tasks) == 1:
            lines.append(f"  verify    {tasks[0]}: ok `{command}`")
            continue
        more = f" and {len(tasks) - VERIFIED_TASKS_SHOWN} more" if len(tasks) > VERIFIED_TASKS_SHOWN else ""
        lines.append(f"  verify    {len(tasks)} tasks ok `{command}`: {', '.join(tasks[:VERIFIED_TASKS_SHOWN])}{more}")
    return lines


LEFT_BEHIND_FILES_SHOWN = 3   # files a grouped left-behind line names with their lines, before "and N more"


def _grouped_left_behind(rows: list[dict[str, Any]], warnings: list[str]) -> dict[int, str]:
    """The report's text of uses left behind: one line per name the run removed (one removal: its
    definition, what became of it, the tasks that did it) used in more than one file, with the
    count of files and uses and the first files' lines, instead of a warning per file (28 lines for
    one removal in scrapy). `--json` keeps a warning per file and every row. Returns, by index in
    `warnings`, the grouped line at a group's first warning and "" at the others it stands for; a
    name used in one file keeps its warning as it is."""
    found: list[tuple[int, dict[str, Any]]] = []
    next_row = 0
    for index, warning in enumerate(warnings):   # each row's warning, written in the rows' order
        if next_row < len(rows):
            row = rows[next_row]
            if warning.startswith(f"left behind: {row['use_path']} (line") and \
                    f" still uses {row['name']}, which " in warning:
                found.append((index, row))
                next_row += 1
    if next_row < len(rows):
        return {}   # warnings not written as the rows were: each said as it is
    groups: dict[tuple[Any, ...], list[tuple[int, dict[str, Any]]]] = {}
    for index, row in found:
        key = tuple((name, str(value)) for name, value in sorted(row.items()) if name not in ("use_path", "use_lines"))
        groups.setdefault(key, []).append((index, row))
    out: dict[int, str] = {}
    for members in groups.values():
        if len(members) < 2:
            continue
        from ..check.left_behind import LeftBehind   # only for a report that has such a group

        first = LeftBehind.from_json(members[0][1])
        tasks = members[0][1].get("tasks") or []
        by = f"task {', '.join(tasks)}" if tasks else "the run"
        shown = [f"{row['use_path']} (line{'s' if len(row['use_lines']) > 1 else ''} "
                 f"{LeftBehind.from_json(row).lines})" for _, row in members[:LEFT_BEHIND_FILES_SHOWN]]
        more = len(members) - len(shown)
        uses = sum(len(row["use_lines"]) for _, row in members)
        blocking = "--allow-left-behind" in warnings[members[0][0]]
        out[members[0][0]] = (
            f"left behind: {len(members)} files ({uses} uses) still use {first.name}, which {by} "
            f"{first.what_happened}: {'; '.join(shown)}" + (f" and {more} more file{'s' if more > 1 else ''}"
                                                               if more else "")
            + f" (`--json` lists every use); the landed tree would not resolve it: {first.keep}, or update the "
              f"uses (a task that owns those files, or `wtc task widen`)"
            + (f"; `wtc land` refuses it until then, unless approved by name (--allow-left-behind {first.name})"
               if blocking else ""))
        out.update({index: "" for index, _ in members[1:]})
    return out


def land_question(report: RunReport, onto: str) -> str:
    """What a person is asked before landing (the CLI's prompt, the MCP server's elicitation): the
    target and the exact tip, naming every leftover landing would leave out, every name the run
    removed that the landed tree still uses, every file of it that does not parse, and a look that
    gave no answer; approving it approves each of them."""
    from ..coordinator.landing import left_behind_summary, leftover_summary, unparsed_summary

    ask = f"Fast-forward {onto} to {report.tip[:12]} (integration of run {report.run})"
    if report.leftovers.get("intents") or report.leftovers.get("tasks"):
        ask += f" LEAVING OUT {leftover_summary(report.leftovers)}"
    if report.left_behind:
        ask += f" KEEPING USES OF NAMES THE RUN REMOVED: {left_behind_summary(report.left_behind)}"
    if report.left_behind_unchecked:
        ask += f" NOT CHECKED FOR USES OF NAMES THE RUN REMOVED ({report.left_behind_unchecked})"
    if report.unparsed:
        ask += f" WITH FILES THAT DO NOT PARSE: {unparsed_summary(report.unparsed)}"
    if report.unparsed_unchecked:
        ask += f" NOT CHECKED FOR FILES THAT NO LONGER PARSE ({report.unparsed_unchecked})"
    return ask + "?"


def unparsed_paths(report: RunReport) -> list[str]:
    """The paths a person approves with the question that shows them (`--allow-unparsed`)."""
    return sorted({row["path"] for row in report.unparsed})


def left_behind_names(report: RunReport) -> list[str]:
    """The names a person approves with the question that shows them (`--allow-left-behind`)."""
    return sorted({row["name"] for row in report.left_behind})


def landed(r: Landed) -> str:
    if r.how == "already":
        head = (f"{r.onto} already holds the integration tip {r.tip[:12]}"
                + (f" ({r.onto} is at {r.old[:12]})" if r.old != r.tip else "") + _again(r.replayed))
    else:
        head = f"landed run {r.run}: {r.onto} {r.old[:12]} -> {r.new[:12]} ({r.how}){_again(r.replayed)}"
    lines = [head]
    if r.warnings:
        lines.append(f"  landed without {len(r.warnings)} leftover(s) (--allow-partial):")
        lines += [f"  left out: {warning}" for warning in r.warnings]
    if r.left_behind:
        from ..coordinator.landing import left_behind_summary

        lines.append(f"  landed keeping uses of names the run removed (approved by name): "
                     f"{left_behind_summary(r.left_behind)}")
    if r.unparsed:
        from ..coordinator.landing import unparsed_summary

        lines.append(f"  landed files that do not parse (approved by path): {unparsed_summary(r.unparsed)}")
    lines += [f"  NOT CHECKED: {note}" for note in _names_unread_note(r.names_unread)]
    return "\n".join(lines)


def consolidation_report(result: ConsolidationReport) -> str:
    lines = [f"run {result.run}: consolidation {'offline' if result.offline else 'online'}"]
    if result.retried:
        lines.append(f"  took up again {len(result.retried)} intent(s): {', '.join(result.retried)}")
    if not result.roots:
        lines.append("  nothing applied in this call")
    for root in result.roots:
        where = root["root"] or "."
        commit = f" commit {root['commit'][:12]}" if root.get("commit") else ""
        lines.append(f"  {root.get('tool') or root['ecosystem']:<9} {where:<20} {root['state']}{commit}")
        for change in root.get("applied", []):
            # (the summary cuts a whole table or a long array to its start: the file holds it all)
            lines.append(f"      applied {change['summary']} in {change['intent']['manifest']} "
                         f"(from {', '.join(change['tasks'])})")
        for relock in root.get("relocks", []):
            done = "applied" if root["state"] in ("applied", "unchanged") else "asked"
            lines.append(f"      {done} {relock['summary']} (from {relock['task']})")
        for path in root["files_changed"]:
            lines.append(f"      changed {path}")
        for conflict in root["conflicts"]:
            lines.append(f"      conflict: {conflict['message']}")
        for culprit in root["culprits"]:
            lines.append(f"      rejected ({', '.join(culprit['tasks'])}): {culprit['reason']}")
        for warning in root["warnings"]:
            lines.append(f"      warning: {warning}")
        if root.get("error"):
            error = root["error"]
            from ..consolidate.tool_output import summarize_message   # here: render also serves the light `status`

            label = "waits" if root["state"] == "waiting" else "error"   # waiting: pending, not failed
            lines.append(f"      {label}: {summarize_message(str(error.get('message')))}")
            if error.get("fix"):
                lines.append(f"      fix: {error['fix']}")
    if result.skipped:
        lines.append(f"  {len(result.skipped)} intent(s) not applied:")
        for item in result.skipped:
            lines.append(f"    {item['state']:<13} {item['intent']}: {item['why']}")
            lines.append(f"    {'':<13} fix: {item['fix']}")
    else:
        lines.append("  no intent of the run is left unapplied")
    return "\n".join(lines)


def intent_added(intent: dict[str, Any], run: str) -> str:
    if intent.get("unchanged"):
        return f"intent {intent['intent_id']} already declared as asked ({intent['state']}); nothing changed"
    human = f"intent {intent['intent_id']} declared for consolidation"
    for old in intent.get("superseded", []):
        human += f"\n  supersedes {old}"
    for other in intent.get("requeued", []):
        human += f"\n  {other} (it conflicted with the superseded intent) waits for consolidation again"
    return human + f"\n  next: wtc consolidate --run {run}"


def intent_list(rows: list[dict[str, Any]]) -> str:
    lines = []
    for r in rows:
        data = r["data"]
        what = " ".join(str(part) for part in (data.get("op"), data.get("name"), data.get("spec")) if part)
        if data.get("op") == "relock" and data.get("rationale"):
            what += f": {data['rationale']}"      # a relock names no key: say why it was asked for
        extra = f" -> {r['detail']['superseded_by']}" if r["state"] == "superseded" else ""
        lines.append(f"{r['state']:<14} {r['intent']}  ({what}){extra}")
    return "\n".join(lines) or "no intents"


def intent_retried(row: dict[str, Any], intent: str, run: str) -> str:
    if row["changed"]:
        return f"intent {intent}: {row['previous_state']} -> {row['state']}; next: wtc consolidate --run {run}"
    return f"intent {intent} is already {row['state']}; next: wtc consolidate --run {run}"


def intent_dropped(row: dict[str, Any], intent: str) -> str:
    return f"intent {intent}: {row['previous_state']} -> dropped" if row["changed"] else f"intent {intent} was already dropped"



def task_abandoned(r: TaskAbandoned) -> str:
    snap = f"; uncommitted work saved as {r.snapshot[:12]}" if r.snapshot else ""
    notes = "".join(f"\n  note: {note}" for note in r.notes)
    return f"task {r.task} abandoned; branch {r.branch} kept{snap}{_again(r.replayed)}{notes}"


def task_widened(r: TaskWidened) -> str:
    added = [f"own {g}" for g in r.added_own] + [f"read {g}" for g in r.added_read]
    head = (f"task {r.task} ({r.state}) widened: " + ", ".join(added)) if added else f"task {r.task}: boundary unchanged"
    lines = [head + (f" (why: {r.why})" if r.why and added else "") + _again(r.replayed),
             f"  own now: {', '.join(r.boundary.get('own', []))}"]
    if r.boundary.get("read"):
        lines.append(f"  read now: {', '.join(r.boundary['read'])}")
    for overlap in r.overlaps:
        lines.append(f"  overlaps live task {overlap['task']}" + (" (exclusive)" if overlap.get("exclusive") else ""))
    lines += [f"  note: {note}" for note in r.notes]
    if added and r.state == "rejected":
        lines.append(f"  then: wtc task finish {r.task} --run {r.run}")
    return "\n".join(lines)


def run_status(r: RunStatus) -> str:
    if not r.runs:
        return "no runs yet (start one: wtc run start --run NAME)"
    lines = []
    if len(r.runs) != 1:
        for run in r.runs:
            counts = ", ".join(f"{n} {state}" for state, n in sorted(run.get("counts", {}).items())) or "no tasks"
            lines.append(f"{run['run']:<28} {run['state']:<8} base {run['base'][:12]}  {run['integration']}  ({counts})")
        lines.append("one run's tasks: wtc status --run ID")
        return "\n".join(lines)
    run = r.runs[0]
    lines.append(f"run {run['run']} ({run['state']}) pinned at {run['base'][:12]}, integration {run['integration']}"
                 + _session_text(run))
    if run.get("remote"):
        lines.append("  " + remote_tip_text(run))
    if not r.tasks:
        lines.append("  no tasks")
        return "\n".join(lines)
    forecast = r.forecast_at is not None
    lines.append(f"  {'task':<24} {'state':<10} {'files':>5} {'viol':>4} {'confl':>5} {'age':>7} {'in state':>8}"
                 + (f"  forecast ({_forecast_age(r.forecast_at)})" if forecast else ""))
    for t in r.tasks:
        lines.append(f"  {t['task']:<24} {t['state']:<10} {t['files']:>5} {t['violations']:>4} {t['conflicts']:>5} "
                     f"{_age(t['age_seconds']):>7} {_age(t.get('state_seconds', t['age_seconds'])):>8}"
                     + (f"  {forecast_cell(t.get('forecast') or {})}" if forecast else ""))
        lines += [f"    {line}" for line in _origin_lines(t)]
    lines.append("  " + ", ".join(f"{n} {s}" for s, n in sorted(r.counts.items())))
    if r.intents:
        lines.append("  intents: " + ", ".join(f"{n} {s}" for s, n in sorted(r.intents.items())))
    return "\n".join(lines)


def remote_tip_text(run: dict) -> str:  # type: ignore[type-arg]
    """Where a remote run's integration tip stands, and whether it is the remote's word now."""
    tip = (run.get("tip") or "")[:12] or "unknown"
    if run.get("tip_fresh", True):
        return f"integration tip {tip} on {run['remote']} (fetched now)"
    return f"integration tip {tip}: STALE, the last one this clone fetched ({run.get('tip_stale')})"


def _session_text(run: dict) -> str:  # type: ignore[type-arg]
    session = run.get("session")
    return f", for {session['harness']} session {session['id']}" if session else ""


_LIVE_STATES = frozenset(state.value for state in TaskState if state.live)


def _origin_lines(t: dict) -> list[str]:  # type: ignore[type-arg]
    """Where a task's boundary came from, the agent it serves, its ports and setup log."""
    lines = []
    if t.get("agent") and t["agent"] != t["task"]:
        lines.append(f"agent {t['agent']!r}")
    if t.get("boundary_from") and t["boundary_from"] != "--own":
        lines.append(f"own {' '.join(t['own'])} from {t['boundary_from']}")
    if t.get("ports") and t.get("state") in _LIVE_STATES:   # an ended task's ports are free again
        lines.append(f"ports {t['ports']['base']}-{t['ports']['last']}")
    if t.get("setup_log"):
        lines.append(f"setup log {t['setup_log']}")
    if t.get("half_made"):
        lines.append(f"worktree half made (a start or update was interrupted; its files are not counted): "
                     f"rebuild it with {t['fix']}")
    return lines


_STATE_STYLE = {"merged": "green", "finished": "cyan", "started": "yellow", "conflict": "bold red",
                "rejected": "red", "abandoned": "dim", "empty": "dim", "failed": "bold red"}


def run_status_table(r: RunStatus, *, width: int | None = None) -> str:
    """`wtc status` for a person at a terminal: the run's tasks as a rich table (task, state, files,
    violations, conflicts, age), rendered with colours to a string for `output.emit`. Falls back to
    the plain text when there is no single run to show."""
    import io

    from rich.console import Console
    from rich.table import Table

    if len(r.runs) != 1:
        return run_status(r)
    run = r.runs[0]
    heading = (f"run [bold]{run['run']}[/] ({run['state']}) pinned at {run['base'][:12]}, integration "
               f"{run['integration']}{_session_text(run)}")
    table = Table(caption=", ".join(f"{n} {s}" for s, n in sorted(r.counts.items())) or "no tasks",
                  caption_justify="left")
    table.add_column("task")
    table.add_column("state")
    for name in ("files", "violations", "conflicts", "age"):
        table.add_column(name, justify="right")
    forecast = r.forecast_at is not None
    if forecast:
        table.add_column(f"forecast ({_forecast_age(r.forecast_at)})")
    for t in r.tasks:
        style = _STATE_STYLE.get(t["state"], "")
        table.add_row(t["task"], f"[{style}]{t['state']}[/]" if style else t["state"], str(t["files"]),
                      str(t["violations"] or ""), str(t["conflicts"] or ""), _age(t["age_seconds"]),
                      *([_forecast_markup(t.get("forecast"))] if forecast else []))
        for line in _origin_lines(t):
            table.add_row(f"  [dim]{line}[/]", "", "", "", "", "", *([""] if forecast else []))
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, width=width or 100, color_system="standard")
    console.print(heading)
    console.print(table)
    return buffer.getvalue().rstrip("\n")


def run_snapshot_view(r: RunSnapshot) -> Any:
    """`wtc watch`: one frame as a rich renderable (the live display redraws it): a heading with the
    run, throughput, admission queue and intents; the tasks by state with their age; the latest
    merges; the conflicts with their declaration."""
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    run = r.run
    counts = ", ".join(f"{n} {s}" for s, n in sorted(r.counts.items())) or "no tasks yet"
    queue = r.admission
    intents = ", ".join(f"{n} {s}" for s, n in sorted(r.intents.items())) or "none"
    heading = Text.from_markup(
        f"run [bold]{run['run']}[/] ({run['state']}, {_age(run.get('age_seconds', 0))} old) pinned at "
        f"{run['base'][:12]}, integration {run['integration']} at {(run.get('tip') or '?')[:12]}\n"
        + (f"{remote_tip_text(run)}\n" if run.get("remote") else "")
        + f"tasks: {counts}\n"
        f"merged {r.throughput.get('merged', 0)}: {r.throughput.get('last_minute', 0)} in the last minute, "
        f"{r.throughput.get('last_10_minutes', 0)} in 10 minutes ({r.throughput.get('per_minute', 0)}/min)\n"
        f"admission queue: {queue.get('running', 0)} running of {queue.get('limit', '?')}, "
        f"{queue.get('waiting', 0)} waiting"
        + (f" (longest {_age(queue['longest_wait_seconds'])})" if queue.get("waiting") else "")
        + f"\nintents: {intents} ({r.pending_intents} pending)")
    tasks = Table(title="tasks", title_justify="left")
    for name, justify in (("task", "left"), ("state", "left"), ("age", "right"), ("idle", "right"),
                          ("files", "right"), ("conflicts", "right"), ("violations", "right")):
        tasks.add_column(name, justify=justify)  # type: ignore[arg-type]
    forecast = r.forecast_at is not None
    if forecast:
        tasks.add_column(f"forecast ({_forecast_age(r.forecast_at, now=r.at)})")
    driven = any("agent" in t for t in r.tasks)   # `wtc fanout` drives the run: its phase and attempt
    if driven:
        tasks.add_column("agent")
    order = {"conflict": 0, "failed": 1, "rejected": 2, "started": 3, "finished": 4, "merged": 5}
    for t in sorted(r.tasks, key=lambda t: (order.get(t["state"], 6), -t["age_seconds"], t["task"])):
        style = _STATE_STYLE.get(t["state"], "")
        tasks.add_row(t["task"], f"[{style}]{t['state']}[/]" if style else t["state"], _age(t["age_seconds"]),
                      _age(t["idle_seconds"]), str(t["files"]), str(t["conflicts"] or ""), str(t["violations"] or ""),
                      *([_forecast_markup(t.get("forecast"))] if forecast else []),
                      *([_agent_cell(t.get("agent"))] if driven else []))
    parts: list[Any] = [heading, tasks]
    if r.merges:
        merges = Table(title="latest merges", title_justify="left")
        for name in ("ago", "task", "commit", "path", "files", "resolved"):
            merges.add_column(name)
        for m in r.merges:
            merges.add_row(_age(m["ago_seconds"]), m["task"], (m.get("merge_commit") or "")[:12], m.get("path") or "",
                           str(m.get("files", "")), ", ".join(m.get("resolved", [])))
        parts.append(merges)
    if r.conflicts:
        conflicts = Table(title="conflicts", title_justify="left")
        for name in ("task", "file", "declaration", "kind", "integration side by"):
            conflicts.add_column(name)
        for c in r.conflicts:
            where = c["path"] + (f":{c['start_line']}" if c.get("start_line") else "")
            conflicts.add_row(c["task"], where, c.get("declaration") or "(file)", c.get("kind") or "",
                              ", ".join(c.get("written_by") or c.get("last_changed_by", [])))
        parts.append(conflicts)
    return Group(*parts)


def _agent_cell(agent: dict | None) -> str:  # type: ignore[type-arg]
    """A fanout-driven task's agent in `wtc watch`: `repairing 2/3`, `lead 3/3`, `merged 1/3`."""
    if not agent:
        return ""
    phase = {"lead": "needs the lead"}.get(agent.get("phase", ""), agent.get("phase", ""))
    return f"{phase} {agent.get('attempt', 0)}/{agent.get('attempts', 0) or '?'}"


def run_snapshot_text(r: RunSnapshot, *, width: int = 100, color: bool = False) -> str:
    """One `wtc watch` frame as text (`--once`, or a pipe): plain unless `color`."""
    import io

    from rich.console import Console

    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=color, width=width, color_system="standard" if color else None,
                      no_color=not color)
    console.print(run_snapshot_view(r))
    return buffer.getvalue().rstrip("\n")


def forecast_report(r: Forecast) -> str:
    """`wtc forecast` for people: each task's forecast, the files two tasks share with the
    declarations each changes, and every predicted conflict."""
    lines = [f"forecast of run {r.run} (integration at {r.integration_tip[:12]}): {len(r.tasks)} tasks, "
             f"{len(r.overlaps)} files changed by two or more tasks, {len(r.conflicts)} predicted conflicts "
             f"({r.stats.get('seconds', 0):.2f}s, {r.stats.get('files_merged', 0)} files merged, "
             f"{r.stats.get('cache_hits', 0)} from cache)"]
    if r.tasks:
        lines.append(f"  {'task':<24} {'state':<10} {'from':<9} {'files':>5} {'uncommitted':>11}  forecast")
        for t in r.tasks:
            lines.append(f"  {t['task']:<24} {t['state']:<10} {t['source']:<9} {t['files']:>5} {t['uncommitted']:>11}  "
                         + forecast_cell(t) + (f"  ({t['error']})" if t.get("error") else ""))
    for o in r.overlaps:
        changed = "; ".join(f"{task}: {', '.join(d or '(file)' for d in decls) or '(none)'}"
                            for task, decls in o["declarations"].items())
        lines.append(f"  shared {o['path']}" + (" (reserved: consolidated, not merged)" if o["reserved"] else "")
                     + f" -- {changed}")
    for c in r.conflicts:
        lines.append(f"  CONFLICT {c['left']} x {c['right']}: {c['path']}"
                     + (f" in {c['declaration']}" if c.get("declaration") else "") + f" ({c['kind']})"
                     # A semantic conflict has no shared lines to point at: its detail says which name.
                     + (f": {c['detail']}" if c.get("kind") == "semantic" and c.get("detail") else ""))
    return "\n".join(lines)


def _forecast_age(at: float | None, now: float | None = None) -> str:
    import time

    return "never" if at is None else _age(max(0.0, (now or time.time()) - at)) + " ago"


def _forecast_markup(entry: dict | None) -> str:  # type: ignore[type-arg]
    text = forecast_cell(entry or {})
    if text.startswith("conflict"):
        return f"[red]{text}[/]"
    return f"[yellow]{text}[/]" if text == "overlap" else text


def forecast_cell(row: dict) -> str:  # type: ignore[type-arg]
    """One task's forecast as a table cell: "conflict: a, b", "overlap", "clean"."""
    from ..coordinator.forecast_column import cell

    return cell(row)


def task_check(r: TaskCheck) -> str:
    """`wtc task check` for people: one line per target, conflicts with their declaration."""
    others = len(r.onto) - 1
    verdict = "WOULD CONFLICT" if not r.clean else \
        ("WOULD BE REFUSED at its merge: it leaves uses of names it removed"
         + (" or calls of functions it reshaped" if any(row.get("signature") for row in r.left_behind) else "")
         + " (below)") if r.left_behind_blocks else \
        "NOT CHECKED for uses of names it removed: the look gave no answer (below)" \
        if r.left_behind_unchecked else \
        "merges cleanly onto integration" + (f" and the {others} other task{'s' if others != 1 else ''} compared"
                                             if others else "") \
        + (f", but NOT CHECKED for uses of names it removed in {', '.join(r.names_unread['languages'])} (below)"
           if r.names_unread else "")
    lines = [f"task {r.task} ({r.state}, read from its {r.source}, {len(r.files)} files changed): {verdict}"]
    if r.not_compared:
        # A clean verdict covers only what was compared: say who was left out, and why.
        # Tasks left out for one reason are one group (socket.io's 9 live tasks: 8 rows of "started,
        # no file in common with this task" made one line of 700 characters).
        groups: dict[tuple[str, str], list[str]] = {}
        for row in r.not_compared:
            groups.setdefault((row["state"], row["why"]), []).append(row["task"])
        lines.append("  not compared: " + "; ".join(f"{', '.join(tasks)} ({state}, {why})"
                                                   for (state, why), tasks in groups.items()))
    if r.violations and all(v.get("rule", "").startswith("reserved_") for v in r.violations):
        # Edits of reserved files consolidation cannot carry: widening the task changes nothing there.
        lines.append(f"  REFUSED AT FINISH: finish would reject {len(r.violations)} reserved-file edit(s) consolidation "
                     "cannot carry; put them back, or do what each says")
    elif r.violations:
        lines.append(f"  OUTSIDE THE BOUNDARY: finish would reject {len(r.violations)} change(s); put them back, "
                     f"or ask the lead to widen the task (wtc task widen {r.task} --run {r.run} --own GLOB --why TEXT)")
        for v in r.violations:
            lines.append(f"    {v['path'] or '-'}: {v['detail']}")
            if v.get("fix"):
                lines.append(f"      way out: {v['fix']}")
    for row in r.onto:
        shared = len(row["files"])
        lines.append(f"  onto {row['target']}: {'clean' if row['clean'] else 'conflict'}"
                     f" ({shared} file{'s' if shared != 1 else ''} both changed)")
        for c in row["conflicts"]:
            lines.append(f"    {c['path']}" + (f" in {c['declaration']}" if c.get("declaration") else "")
                         + f" ({c['kind']})" + (f": {c['detail']}" if c.get("detail") else ""))
        # Why the merge left each file's conflicts (as finish's `why` line says it), once a file.
        for path, why in dict.fromkeys((c["path"], "; ".join(c["why"])) for c in row["conflicts"] if c.get("why")):
            lines.append(f"      why {path}: {why}")
    kinds = {c.get("kind") for row in r.onto for c in row["conflicts"]}
    if kinds - {"consolidation"}:
        lines.append("  talk to the other task's agent, or finish and resolve with `wtc task update` if it merges first")
    if "consolidation" in kinds:
        # A reserved file is never merged as text: `task update` cannot settle it, agreeing can.
        lines.append("  for a reserved manifest: agree on one value with the other task's agent (or leave the key "
                     "to one task); else consolidation refuses both intents and the lead decides")
    for intent in r.intents:
        spec = f" {intent['spec']}" if intent.get("spec") else ""
        lines.append(f"  intent {intent['op']} {intent.get('name') or ''}{spec} in {intent['manifest']}: {intent['state']}"
                     + (" (applies at consolidation, once the task has merged)" if intent["state"] == "declared" else ""))
    lines += [f"  left behind: {note}" for note in _left_behind_notes(r)]
    lines += [f"  NOT CHECKED: {note}" for note in _names_unread_note(r.names_unread)]
    lines += [f"  note: {note}" for note in r.notes]
    return "\n".join(lines)


def _names_unread_note(names_unread: dict[str, Any]) -> list[str]:
    """The caveat of a result's `names_unread` (check/names_unread.py), as one line, or none."""
    if not names_unread:
        return []
    from ..check.names_unread import unread_note

    return [unread_note(names_unread)]


def _left_behind_notes(r: TaskCheck) -> list[str]:
    """The check's left-behind rows as finish words them: one note per name, naming every file."""
    if not r.left_behind:
        return []   # left_behind.py loads the semantic check (tree-sitter): not for a check with none
    from ..check.left_behind import MAX_NOTES, LeftBehind, grouped_notes

    found = [LeftBehind.from_json(use) for use in r.left_behind if "use_path" in use]
    # (the files the task owns already, each by its own path: their notes say to update them)
    owned = ["/" + use["use_path"] for use in r.left_behind if use.get("owned")]
    return [use["note"] for use in r.left_behind if "use_path" not in use] + \
        grouped_notes(found, r.task, r.run, MAX_NOTES, owned)


def _age(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f}s"
    if seconds < 5400:
        return f"{seconds / 60:.0f}m"
    return f"{seconds / 3600:.1f}h"


def gc_report(r: GcReport) -> str:
    verb = "would remove" if r.dry_run else "removed"
    sections = [
        ("worktrees", r.worktrees_removed), ("tombstones of interrupted removals", r.tombstones_removed),
        ("git admin entries", r.admin_entries_pruned),
        ("leases of dead owners", r.leases_removed), ("expired idempotency records", r.records_expired),
        ("branches of merged and empty tasks", r.branches_deleted),
        ("remote branches of merged tasks", r.remote_branches_deleted),
        ("remote-tracking refs", r.tracking_refs_pruned),
    ]
    lines = [f"gc: {verb} " + ", ".join(f"{len(items)} {name}" for name, items in sections)
             + f", {r.forecast_cache_removed} forecast cache files, {r.merge_index_removed} merge index entries"
             + f", {len(r.pin_words_removed)} pin word indexes, {len(r.scratch_removed)} scratch folders of killed reads"]
    for name, items in sections + [("pin word indexes", r.pin_words_removed),
                                   ("scratch folders of killed reads", r.scratch_removed)]:
        for item in items[:20]:
            lines.append(f"  {name}: {item}")
    for snap in r.snapshots:
        lines.append(f"  saved uncommitted work: {snap}")
    for keep in r.kept:
        lines.append(f"  kept {keep.get('branch') or keep.get('folder', '')}: {keep['why']}")
    return "\n".join(lines)


__all__ = ["manifest_path", "run_started", "task_started", "task_finished", "task_abandoned", "run_status", "run_status_table",
           "gc_report"]
