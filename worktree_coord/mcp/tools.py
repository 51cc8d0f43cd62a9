"""The MCP tools: one per coordinator operation, each a thin call of the Python API.

Stage: the MCP face's table of operations. Input: the arguments an agent sends, validated against
each tool's JSON schema (built from the signatures below, descriptions included). Output: the same
`schema`-tagged JSON object `wtc ... --json` prints, as structured content, plus a short text.

Every tool parses, calls one `Coordinator` method and renders its result through the faces' shared
renderers (`output/render.py`, `output/tagging.py`); what a tool decides is what the CLI command with the
same flags decides, because both call the same method. Each tool is a function of this module that
takes the server's `Served` first and its arguments after; `TOOLS` is the table of them (function,
annotations, title, output schema), and `build_tools` binds each to one server's `Served`. The SDK
derives a tool's input schema from its function's signature (annotations, `Field` descriptions,
defaults), less the bound `served`, so the signature is the tool's contract. Every write tool
takes `idempotency_key`; when it is left out the Coordinator derives the CLI's default key, so
retrying a call (a timeout, a dropped connection) is safe with or without one. `land` is not here:
it needs a person's approval (`approval.py`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, Callable, Literal

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.tools import Tool
from mcp_types import CallToolResult, ToolAnnotations
from pydantic import Field

from ..frozen import value_class
from ..output import render
from ..output.tagging import schema_name
from ..consolidate.intent import Op
from ..errors import NotFoundError, UsageError
from ..results import (Forecast, MergeReport, PlanRules, Result, RunReport, RunStarted, RunStatus, TaskAbandoned,
                       TaskCheck, TaskFinished, TaskStarted, TaskUpdated, TaskWidened)
from .calls import Reply, Served, error_result, run_call

if TYPE_CHECKING:
    from ..coordinator import Coordinator

# ---- argument descriptions an agent can act on -------------------------------------------------------

RUN = ("Run id, as given to (or returned by) run_start: 1-64 characters of A-Za-z0-9._-, not starting "
       "with '.' or '-'.")
TASK = "Task id within the run (same rules as a run id), as given to task_start."
KEY = ("Idempotency key. Repeating a call with the same key and the same arguments is safe: it returns "
       "the first call's stored result and changes nothing again (a repeat while the first still runs "
       "waits for it). The same key with other arguments is refused (exit 2). Leave it out to get the "
       "command line's default key (auto:<run>-<op>-<target>), which makes a plain retry of the same call safe "
       "too; pass a new key only to ask for a new operation (a key of your own may not start with auto:).")
RETRY_NOTE = " Safe to retry: a repeat with the same idempotency_key returns the first result."
CONTENT_RETRY_NOTE = " Safe to retry: the same arguments again change nothing and return the same result."
EXIT_NOTE = (" The result's exit_code is the CLI's: 0 done, 1 you must act (conflict, failed verification), "
             "2 bad input, 3 boundary violation, 4 busy (retry after retry_after_seconds), 5 not found, "
             "6 internal error.")

OpName = Literal[tuple(op.value for op in Op)]  # type: ignore[valid-type]  # the intent operations
Run = Annotated[str, Field(description=RUN)]
Task = Annotated[str, Field(description=TASK)]
Key = Annotated[str | None, Field(description=KEY)]
Globs = Annotated[list[str], Field(description="Gitignore-style globs relative to the repository root, "
                                               "e.g. 'packages/api/**'.")]

WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
DESTRUCTIVE = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True,
                              open_world_hint=False)
READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)


def output_schema(schema: str, result_type: type[Result] | None = None, **properties: Any) -> dict[str, Any]:
    """The JSON schema of a tool's structured content: `schema` (this tool's constant) and
    `exit_code` always, then the result dataclass's fields (or the properties named). Only
    successful results are checked against it; an error result is a `wtc.error/1` object."""
    shape: dict[str, Any] = {"type": "object", "properties": {
        "schema": {"type": "string", "const": schema_name(schema)}, "exit_code": {"type": "integer"}},
        "required": ["schema", "exit_code"]}
    if result_type is not None:
        from pydantic import TypeAdapter

        derived = TypeAdapter(result_type).json_schema(mode="serialization")
        for name, prop in derived.get("properties", {}).items():
            shape["properties"].setdefault(name, prop)
        if "$defs" in derived:
            shape["$defs"] = derived["$defs"]
    for name, prop in properties.items():
        shape["properties"][name] = prop
    return shape


def _reply(result: Result, schema: str, text: Callable[[Any], str]) -> Reply:
    return Reply(result.to_json(), schema, text(result))


# ---- the tools: each takes the server's `Served` first (bound by build_tools), then its arguments -----


async def run_start(
    served: Served,
    run: Annotated[str | None, Field(description="Run id to create (default: generated and returned as "
                                                 "`run`). " + RUN)] = None,
    base: Annotated[str, Field(description="Revision to pin: every task branches from it (default HEAD).")] = "HEAD",
    verify: Annotated[str | None, Field(description="Shell command every merge candidate must pass (in a "
                                                    "scratch worktree) before the integration branch moves.")] = None,
    remote: Annotated[str | None, Field(description="A git remote of this clone (e.g. 'origin') that holds the "
                                                    "integration branch: a run across machines sharing one "
                                                    "store (docs/multi-machine.md).")] = None,
    idempotency_key: Key = None,
) -> CallToolResult:
    """Start a run: pin BASE and create its integration branch wtc/<run>/integration (on REMOTE when
    given). Returns `run`, `base` (the pinned sha), `integration` and `remote`."""
    return await run_call(served, lambda c: _reply(c.start_run(run, base, verify=verify, remote=remote,
                                                               key=idempotency_key),
                                                   "run.start", render.run_started))


async def task_start(
    served: Served,
    run: Run, task: Task,
    own: Annotated[list[str], Field(description="Globs the task may change (its boundary), e.g. "
                                                "'packages/api/**'. Leave empty to take the boundary the "
                                                "plan gives this task's name (plan_add).")] = [],
    read: Annotated[list[str], Field(description="Globs the task only reads (with sparse: the checkout "
                                                 "holds own + read folders and root files).")] = [],
    sparse: Annotated[bool, Field(description="Check out only own/read folders plus root files.")] = False,
    exclusive: Annotated[bool, Field(description="Refuse (exit 4, busy: retry once that task ends) if own "
                                                 "overlaps another live task's own globs.")] = False,
    author: Annotated[str | None, Field(description='Commit author for the task, "Name <email>".')] = None,
    idempotency_key: Key = None,
) -> CallToolResult:
    """Start a task: branch wtc/<run>/<task> at the pinned commit and an ephemeral worktree of its own.
    Returns `worktree` (edit files there, then call task_finish), `branch` and the recorded `boundary`;
    `overlaps` names live tasks whose globs overlap."""
    return await run_call(served, lambda c: _reply(
        c.start_task(run, task, own, read, sparse=sparse, exclusive=exclusive, author=author,
                     key=idempotency_key), "task.start", render.task_started))


async def task_finish(
    served: Served,
    run: Run, task: Task,
    message: Annotated[str | None, Field(description="Commit message for the task's changes.")] = None,
    merge: Annotated[bool, Field(description="Merge into integration now (default); false leaves it "
                                             "to the merge tool.")] = True,
    verify: Annotated[str | None, Field(description="Shell command the merge candidate must pass first "
                                                    "(overrides the run's).")] = None,
    merge_unchecked: Annotated[bool, Field(description="Merge although the look for uses of names the task "
                                                       "removed gives no answer (more changed files than it "
                                                       "reads; exit 6 without it).")] = False,
    idempotency_key: Key = None,
) -> CallToolResult:
    """Finish a task: commit everything in its worktree, check the boundary, turn edits of reserved
    files (root manifests, lockfiles) into intents, remove the worktree and merge into integration.
    `state` is merged, conflict (exit 1: `conflicts` lists each with path, declaration, lines and
    the base/ours/theirs text; call task_update, resolve, finish again), rejected (exit 3:
    `violations` say which paths; fix them in the worktree and finish again) or failed (exit 1:
    `verification` holds the command's output tail)."""
    return await run_call(served, lambda c: _reply(
        c.finish_task(run, task, message=message, merge=merge, verify=verify, key=idempotency_key,
                      merge_unchecked=merge_unchecked),
        "task.finish", render.task_finished))


async def task_update(served: Served, run: Run, task: Task, idempotency_key: Key = None) -> CallToolResult:
    """Merge the integration tip into the task's worktree (re-created if needed) so its conflicts can
    be resolved there: `conflicted_paths` hold markers (`markers` says which label is which side);
    edit them, then call task_finish again."""
    return await run_call(served, lambda c: _reply(c.update_task(run, task, key=idempotency_key),
                                                   "task.update", render.task_updated))


async def task_abandon(served: Served, run: Run, task: Task, idempotency_key: Key = None) -> CallToolResult:
    """Abandon a task: drop its worktree (uncommitted work is saved onto its branch as `snapshot`),
    keep the branch, mark the task abandoned."""
    return await run_call(served, lambda c: _reply(c.abandon_task(run, task, key=idempotency_key),
                                                   "task.abandon", render.task_abandoned))


async def task_widen(
    served: Served,
    run: Run, task: Task,
    own: Annotated[list[str], Field(description="Globs the task may also change (gitignore-style).")] = [],
    read: Annotated[list[str], Field(description="Globs the task may also read.")] = [],
    why: Annotated[str, Field(description="Why the task needs it (kept, shown by the report).")] = "",
    idempotency_key: Key = None,
) -> CallToolResult:
    """The lead widens a live task's boundary (e.g. after a finish was rejected for a path the task had
    good reason to change): the new globs are checked for overlaps with live tasks (an exclusive
    one refuses, exit 4), recorded with `why`, and the worktree's .wtc/task.json and sparse cone
    follow. Then the task finishes again."""
    return await run_call(served, lambda c: _reply(c.widen_task(run, task, own, read, why=why, key=idempotency_key),
                                                   "task.widen", render.task_widened))


async def task_check(served: Served, run: Run, task: Task) -> CallToolResult:
    """Before finishing: would the task's current edits (uncommitted and untracked files included)
    merge onto the integration tip and onto each other live or finished task? `onto` lists each
    target with the files both changed (`not_compared`: the tasks left out, and why), the declarations each side changes and any predicted conflict.
    Read-only and cheap to repeat (merges cached by blob id); exit 1 when a conflict is predicted,
    exit 3 when a change is outside the task's boundary (`violations`: finish would reject it)."""
    return await run_call(served, lambda c: _reply(c.check_task(run, task), "task.check", render.task_check))


async def forecast(served: Served, run: Run) -> CallToolResult:
    """The run's conflict forecast: which files and declarations two or more tasks are changing right
    now (live worktrees read as they are, finished-but-unmerged branches), and which pairs would
    conflict if merged, naming the tasks, file and declaration. Read-only; exit 0."""
    return await run_call(served, lambda c: _reply(c.forecast(run), "forecast", render.forecast_report))


async def task_status(
    served: Served,
    run: Annotated[str | None, Field(description="Run id (default: the only run, else every run with "
                                                 "its task counts).")] = None,
    task: Annotated[str | None, Field(description="Only this task's row (with run).")] = None,
) -> CallToolResult:
    """The run at a glance: each task's state (started, finished, merged, conflict, rejected, failed,
    abandoned, empty), files, violations, conflicts and age; intent counts. Read-only."""

    def status(c: Coordinator) -> Reply:
        result = c.status(run)
        if task is not None:
            rows = [row for row in result.tasks if row["task"] == task]
            if not rows:
                raise NotFoundError(f"no task {task!r} in run {run!r}",
                                    fix="see every task: call task_status with the run only")
            result = dataclasses.replace(result, tasks=rows)
        return _reply(result, "status", render.run_status)

    return await run_call(served, status)


async def merge(
    served: Served,
    run: Run,
    verify: Annotated[str | None, Field(description="Shell command each candidate must pass before "
                                                    "integration moves.")] = None,
    batch: Annotated[int, Field(ge=1, description="Verify this many tasks at once (needs verify); a "
                                                  "failing batch is bisected.")] = 1,
    idempotency_key: Key = None,
    ctx: Context = None,  # type: ignore[assignment]  # injected by the SDK
) -> CallToolResult:
    """Merge every finished, unmerged task into integration (after a crash, or finishes with
    merge=false), in dependency order; sends progress notifications. Per task `state`; exit 1 if
    any conflicted or failed verification."""
    return await run_call(served, lambda c: _reply(c.merge(run, verify=verify, batch=batch, key=idempotency_key),
                                                   "merge", render.merge_report), context=ctx, progress=True)


async def consolidate(
    served: Served,
    run: Run,
    offline: Annotated[bool, Field(description="Relock from local caches only (default); false allows "
                                               "the network.")] = True,
    retry_failed: Annotated[bool, Field(description="Take up again intents that ended failed, conflict, "
                                                    "rejected or needs_network (after fixing the cause).")] = False,
    idempotency_key: Key = None,
    ctx: Context = None,  # type: ignore[assignment]  # injected by the SDK
) -> CallToolResult:
    """Apply merged tasks' intents (reserved-file changes) in dependency order, relock, verify, one
    commit per ecosystem root; sends progress notifications. Exit 0 only when every intent of the run
    is applied; otherwise 1 and `skipped` lists each with why and the fix."""
    return await run_call(served, lambda c: _reply(
        c.consolidate(run, offline=offline, retry_failed=retry_failed, key=idempotency_key),
        "consolidate", render.consolidation_report), context=ctx, progress=True)


async def intent_add(
    served: Served,
    run: Run, task: Task,
    manifest: Annotated[str, Field(description="Reserved manifest path from the repository root, e.g. "
                                               "package.json, packages/api/package.json, Cargo.toml.")],
    op: Annotated[OpName, Field(description="What to change.")],
    name: Annotated[str, Field(description="Dependency, member or key name; for set_key/remove_key a "
                                           "dotted key path, e.g. workspace.lints.clippy.todo or scripts.test.")],
    spec: Annotated[str | None, Field(description="Version range or value, e.g. ^4.17.21; for set_key the "
                                                  "value as JSON or a plain string.")] = None,
    group: Annotated[str | None, Field(description="Dependency group (default: the manifest's main "
                                                   "one), e.g. devDependencies.")] = None,
    profile: Annotated[str | None, Field(description="pom.xml: the id of the Maven profile the place is in "
                                                     "(a dependency of that profile, or a key inside it for "
                                                     "set_key/remove_key).")] = None,
    why: Annotated[str, Field(description="Why the task needs it (kept with the intent).")] = "",
    idempotency_key: Key = None,
) -> CallToolResult:
    """Declare an intent for a task instead of editing a reserved file (root manifests and lockfiles
    are changed only by consolidate). Declaring again for the same task, manifest, group and name
    supersedes the earlier intent."""
    def add(c: Coordinator) -> Reply:
        intent = c.add_intent(run, task, manifest=manifest, op=op, name=name, spec=spec, group=group,
                              rationale=why, key=idempotency_key, profile=profile)
        return Reply({"intent": intent}, "intent.add", render.intent_added(intent, run), exit_code=0)

    return await run_call(served, add)


async def intent_list(served: Served, run: Run) -> CallToolResult:
    """The run's intents with their states (pending, declared, applied, satisfied, conflict, failed,
    needs_network, rejected, superseded, dropped). Read-only."""
    def rows(c: Coordinator) -> Reply:
        found = c.intents(run)
        return Reply({"intents": found}, "intent.list", render.intent_list(found), exit_code=0)

    return await run_call(served, rows)


async def intent_retry(
    served: Served,
    run: Run, intent: Annotated[str, Field(description="Intent id (see intent_list).")],
    idempotency_key: Key = None,
) -> CallToolResult:
    """Take an intent that ended failed, conflict, rejected or needs_network up again at the next
    consolidate."""
    def retry(c: Coordinator) -> Reply:
        row = c.retry_intent(run, intent, key=idempotency_key)
        return Reply({"intent": row}, "intent.retry", render.intent_retried(row, intent, run), exit_code=0)

    return await run_call(served, retry)


async def intent_drop(
    served: Served,
    run: Run, intent: Annotated[str, Field(description="Intent id (see intent_list).")],
    why: Annotated[str, Field(description="Why it is given up (kept with the intent).")] = "",
    idempotency_key: Key = None,
) -> CallToolResult:
    """Give an intent up: kept as dropped, never applied, no longer a leftover that blocks land."""
    def drop(c: Coordinator) -> Reply:
        row = c.drop_intent(run, intent, reason=why, key=idempotency_key)
        return Reply({"intent": row}, "intent.drop", render.intent_dropped(row, intent), exit_code=0)

    return await run_call(served, drop)


async def plan_add(
    served: Served,
    pattern: Annotated[str, Field(description="Agent or task name pattern, shell style: 'api-*', 'docs-?'. "
                                              "Matched against an agent's own name and the task name it "
                                              "becomes.")],
    own: Annotated[list[str], Field(description="Globs the matching tasks may change, e.g. "
                                                "'packages/api/**'. At least one.", min_length=1)],
    read: Annotated[list[str], Field(description="Globs they only read.")] = [],
    sparse: Annotated[bool, Field(description="Check out only own/read folders plus root files.")] = False,
    run: Annotated[str | None, Field(description="The run it applies to (default: every run). " + RUN)] = None,
) -> CallToolResult:
    """Decide a boundary ahead: tasks started without `own` (task_start with own empty, a Claude Code
    agent through the WorktreeCreate hook) whose name matches PATTERN get it; the first matching rule
    wins. Adding the same rule again returns it unchanged (`replayed`)."""
    return await run_call(served, lambda c: _reply(c.add_plan_rule(pattern, own, read, sparse=sparse, run_id=run),
                                                   "plan.add", lambda r: render.plan_rules(r, "added")))


async def plan_list(
    served: Served,
    run: Annotated[str | None, Field(description="The rules a run's tasks meet, in order (default: every "
                                                 "rule). " + RUN)] = None,
) -> CallToolResult:
    """The plan's rules in the order they are tried, and the default boundary that follows them."""
    return await run_call(served, lambda c: _reply(c.plan(run), "plan.list", lambda r: render.plan_rules(r, "list")))


async def check(
    served: Served,
    head: Annotated[str | None, Field(description="Commit to check (default HEAD, or the task's branch "
                                                  "with run and task).")] = None,
    base: Annotated[str | None, Field(description="Compare from this revision (default: merge base of "
                                                  "head and target).")] = None,
    target: Annotated[str | None, Field(description="Branch head would merge into (default: the default "
                                                    "branch; the run's integration branch with run/task).")] = None,
    own: Annotated[list[str], Field(description="Globs the branch may change; overrides other "
                                                "boundaries.")] = [],
    read: Annotated[list[str], Field(description="Globs the branch reads.")] = [],
    run: Annotated[str | None, Field(description="Run id: take the boundary of task from the store.")] = None,
    task: Annotated[str | None, Field(description="Task id (with run).")] = None,
    manifest: Annotated[str | None, Field(description="Boundary manifest path (default: "
                                                      ".wtc-boundary.toml).")] = None,
    merge: Annotated[bool, Field(description="Run the dry-run merge into the target (default).")] = True,
    semantic: Annotated[Literal["block", "warn", "off"] | None, Field(
        description="After a clean dry-run merge, a name one side removed that the other side's new code uses: "
                    "an error (block), a warning (warn), or not checked (off). Default: the target's "
                    "semantic-check, else block.")] = None,
    left_behind: Annotated[Literal["block", "warn", "off"] | None, Field(
        description="A name the branch removed or renamed that code it did not change still uses: an error "
                    "(block), a warning (warn), or not looked for (off). Default: the run's left-behind with "
                    "run/task, else the target's left-behind, else block.")] = None,
) -> CallToolResult:
    """Check a branch before it merges (the CI step): boundary, reserved files, dry-run structured
    merge, uses left behind. Read-only. Exit 0 clean, 1 merge conflicts or uses left behind, 3 boundary
    violations; `findings` list each."""
    def run_check(c: Coordinator) -> Reply:
        from ..ci import render as render_check

        report = c.check(head=head, base=base, target=target, own=own, read=read, run=run, task=task,
                         manifest=manifest, merge=merge, semantic=semantic, left_behind=left_behind)
        return Reply(report.to_json(), "check", render_check(report, "text"), exit_code=report.exit_code)

    return await run_call(served, run_check)


async def report(
    served: Served,
    run: Run,
    onto: Annotated[str | None, Field(description="Also say whether this branch (e.g. main) can be "
                                                  "fast-forwarded to integration.")] = None,
) -> CallToolResult:
    """The run's change manifest: every path landing changes with where it came from, tasks, intents
    not applied, conflicts (full reports), verification results, and `leftovers`: what landing now
    would leave out, each with its fix. Read-only; exit 0."""
    return await run_call(served, lambda c: _reply(c.report(run, onto=onto), "report", render.run_report))


async def sync(
    served: Served,
    run: Run,
    source: Annotated[str, Field(description="Branch to merge into integration, e.g. main (it moved since "
                                             "the run was pinned).")],
    idempotency_key: Key = None,
) -> CallToolResult:
    """Merge a branch that moved since the pin (e.g. main) into the integration branch, so land can
    fast-forward. Conflicts leave integration untouched and are reported (exit 1)."""
    return await run_call(served, lambda c: _reply(c.sync(run, source, key=idempotency_key), "sync",
                                                   render.merge_report))


async def merge_file(
    served: Served,
    base: Annotated[str, Field(description="The common ancestor's text.")],
    left: Annotated[str, Field(description="Ours: one side's text (the side being merged into).")],
    right: Annotated[str, Field(description="Theirs: the other side's text.")],
    path: Annotated[str, Field(description="The file's path (its extension picks the language), e.g. "
                                           "src/app.py.")],
    labels: Annotated[list[str], Field(max_length=3, description="Conflict marker labels: ours, base, "
                                                                 "theirs (up to 3).")] = [],
    marker_size: Annotated[int, Field(ge=1, le=100, description="Length of conflict markers.")] = 7,
) -> CallToolResult:
    """Structured three-way merge of one file's text (AST-level for supported languages). Returns
    `merged` (the text, with markers where conflicts remain), `clean`, and `conflicts` with
    declaration and lines. Read-only; exit 0 clean, 1 conflicts."""
    named = tuple(list(labels) + ["ours", "base", "theirs"][len(labels):])

    def merge_one(_: Any) -> Reply:
        from ..merge import merge_file as merge_text

        result = merge_text(base.encode(), left.encode(), right.encode(), path, marker_size=marker_size,
                            labels=named)  # type: ignore[arg-type]
        payload = result.to_json() | {"path": path, "labels": dict(zip(("ours", "base", "theirs"), named)),
                                      "merged": result.merged.decode("utf-8", "replace")}
        places = ", ".join(c.place for c in result.conflicts)
        text = f"clean merge of {path}" if result.clean else f"{len(result.conflicts)} conflict(s) in {path}: {places}"
        return Reply(payload, "merge-file", text, exit_code=0 if result.clean else 1)

    return await run_call(served, merge_one, needs_repository=False)


# ---- the table of tools --------------------------------------------------------------------------------

_OBJECT: dict[str, Any] = {"type": "object"}
_ARRAY: dict[str, Any] = {"type": "array"}


@value_class
class ToolSpec:
    """One tool of the table: its function (named as the tool, `served` first), its annotations and
    title, and what its structured content holds: the schema name and the result dataclass (or a
    function returning it, imported when the server is built) and/or the properties named."""

    fn: Callable[..., Any]
    annotations: ToolAnnotations
    title: str
    schema: str
    result: type[Result] | Callable[[], type[Result]] | None = None
    properties: dict[str, Any] = field(default_factory=dict)

    def output_schema(self) -> dict[str, Any]:
        result = self.result
        if result is not None and not isinstance(result, type):
            result = result()
        return output_schema(self.schema, result, **self.properties)


def _consolidation_report_type() -> type[Result]:
    from ..coordinator.consolidation_phase import ConsolidationReport

    return ConsolidationReport


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(run_start, WRITE, "Start a run", "run.start", RunStarted),
    ToolSpec(task_start, WRITE, "Start a task", "task.start", TaskStarted),
    ToolSpec(task_finish, WRITE, "Finish a task", "task.finish", TaskFinished),
    ToolSpec(task_update, WRITE, "Update a task", "task.update", TaskUpdated),
    ToolSpec(task_abandon, DESTRUCTIVE, "Abandon a task", "task.abandon", TaskAbandoned),
    ToolSpec(task_widen, WRITE, "Widen a task's boundary", "task.widen", TaskWidened),
    ToolSpec(task_check, READ, "Check a task before it finishes", "task.check", TaskCheck),
    ToolSpec(forecast, READ, "Conflict forecast", "forecast", Forecast),
    ToolSpec(task_status, READ, "Run status", "status", RunStatus),
    ToolSpec(merge, WRITE, "Drain the merge queue", "merge", MergeReport),
    ToolSpec(consolidate, WRITE, "Consolidate intents", "consolidate", _consolidation_report_type),
    ToolSpec(intent_add, WRITE, "Declare an intent", "intent.add", properties={"intent": _OBJECT}),
    ToolSpec(intent_list, READ, "List intents", "intent.list", properties={"intents": _ARRAY}),
    ToolSpec(intent_retry, WRITE, "Retry an intent", "intent.retry", properties={"intent": _OBJECT}),
    ToolSpec(intent_drop, DESTRUCTIVE, "Drop an intent", "intent.drop", properties={"intent": _OBJECT}),
    ToolSpec(plan_add, WRITE, "Add a plan rule", "plan.add", PlanRules),
    ToolSpec(plan_list, READ, "List the plan", "plan.list", PlanRules),
    ToolSpec(check, READ, "Check a branch", "check", properties={"findings": _ARRAY, "merge": _OBJECT}),
    ToolSpec(report, READ, "Change manifest", "report", RunReport),
    ToolSpec(sync, WRITE, "Sync integration with a branch", "sync", MergeReport),
    ToolSpec(merge_file, READ, "Merge one file", "merge-file",
             properties={"merged": {"type": "string"}, "clean": {"type": "boolean"}, "conflicts": _ARRAY}),
)


def build_tools(served: Served) -> list[Tool]:
    """Every tool of the table, bound to `served` (the approval-gated `land` comes from approval.py)."""
    return [make_tool(spec.fn, spec.annotations, spec.title, spec.output_schema(), served=served) for spec in TOOLS]


def make_tool(fn: Callable[..., Any], annotations: ToolAnnotations, title: str, schema: dict[str, Any],
              served: Served | None = None) -> Tool:
    """An SDK tool from `fn` (its name, docstring and signature), with `schema` published as its output
    schema and the note on exit codes (and retries, for a write) appended to its description. With
    `served`, `fn` takes it as its first argument: the tool calls `fn(served, ...)` and publishes the
    rest of the signature. It refuses arguments it does not take (`unknown_arguments`)."""
    import functools
    import inspect

    from mcp.server.mcpserver.utilities.context_injection import find_context_parameter

    description = inspect.cleandoc(fn.__doc__ or "") + EXIT_NOTE
    if not annotations.read_only_hint:
        # A write either takes a key (the coordinator's idempotency store) or is idempotent by content.
        keyed = "idempotency_key" in inspect.signature(fn).parameters
        description += RETRY_NOTE if keyed else CONTENT_RETRY_NOTE
    call: Callable[..., Any] = fn
    if served is not None:
        call = functools.partial(fn, served)
        # The SDK names the argument model after the function (`run_startArguments`, in the schema).
        call.__name__ = fn.__name__  # type: ignore[attr-defined]
    # Found on `fn` itself: the SDK cannot read the type hints of a partial.
    tool = StrictTool.from_function(call, name=fn.__name__, title=title, description=description,
                                    annotations=annotations, context_kwarg=find_context_parameter(fn))
    tool.parameters["additionalProperties"] = False   # said in the schema too, for clients that check first
    # Published, not enforced by the SDK on our CallToolResults: the tests validate real results against it.
    tool.fn_metadata.output_schema = schema
    return tool


class StrictTool(Tool):
    """An SDK tool that refuses arguments it does not take (as a `wtc.error/1` result, exit 2)."""

    async def run(self, arguments: dict[str, Any], context: Any, convert_result: bool = False) -> Any:
        refusal = unknown_arguments(self.name, arguments, self.parameters.get("properties", {}))
        if refusal is not None:
            result = error_result(refusal)
            return self.fn_metadata.convert_result(result) if convert_result else result
        return await super().run(arguments, context, convert_result)


def unknown_arguments(tool: str, arguments: dict[str, Any] | None, known: dict[str, Any]) -> UsageError | None:
    """The refusal of arguments `tool` does not take, naming each with the closest known one, or
    None. The SDK would drop them silently: a misspelled `idempotency_kye` would run the call under
    the default key, as if no key had been given."""
    import difflib

    unknown = sorted(set(arguments or {}) - set(known))
    if not unknown:
        return None
    named = []
    for name in unknown:
        close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
        named.append(f"{name!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
    return UsageError(f"{tool} takes no argument{'s' if len(unknown) > 1 else ''} {', '.join(named)}; nothing was done",
                      fix=f"{tool} takes: {', '.join(known) or 'no arguments'}",
                      details={"unknown": unknown, "known": list(known)})

