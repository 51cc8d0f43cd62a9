"""The run's consolidation phase: pending intents of merged tasks applied to the integration branch,
one commit per ecosystem root.

Stage: after merging. Input: the run, its pending intents (from the store), the integration tip.
Output: a ConsolidationReport (per root: state, commit, conflicts, culprits) and per intent a final
state in the store: applied (with the commit), satisfied, conflict, rejected, failed, or
needs_network (kept for a later `--online` run).

Invariants:
- consolidation works in a scratch worktree of the integration tip and never touches a task's;
- a root's manifests and lockfile land together in one commit, moved onto integration by
  compare-and-swap. A tip that moved in between gets the same files put on top of it only when the
  merges that moved it touched none of the root's manifests or lockfiles; otherwise (a task merged a
  member manifest meanwhile) the consolidation starts again from the new tip, so a merged edit is
  never overwritten and a lockfile is never committed against manifests it was not computed from;
- a root that is not applied changes nothing (consolidate_root restores its files byte for byte);
- idempotent: a second run finds nothing pending and makes no commit; a run cut off after a commit
  but before its bookkeeping finds those intents already satisfied on the next run;
- intents that ended failed, conflict, rejected or needs_network are taken up again only when asked
  (`retry_failed`, or `requeue` of chosen ids); every intent not applied is listed in the report's
  `skipped` with why, and the report's exit code is 0 only when no intent of the run is left
  unapplied.

Intent states: pending (derived at finish) and declared (`wtc intent add`) wait; applied and
satisfied are done; needs_network, failed, conflict and rejected ended without applying;
superseded (re-declared: `detail.superseded_by` names the new id) and dropped (`wtc intent drop`)
are kept for the record and never applied.
"""

from __future__ import annotations

import dataclasses
import shlex
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, ContextManager, Mapping

import pygit2

from ..consolidate import ConsolidationResult, Intent, RootResult, RootState, consolidate
from ..consolidate.adapters import ADAPTERS, ToolConfig
from ..consolidate.intent import Ecosystem
from ..consolidate.root import RETRY_ONLINE
from ..consolidate.tool_output import summarize_message
from ..crashpoints import crash_point
from ..events import NullReporter, Reporter
from ..errors import ConfigError, StateError
from ..gitrepo import GitRepo
from . import merge_queue as queue
from ..integrate import StaleRef, compare_and_swap
from ..integrate.trees import update_tree
from ..model import PENDING_INTENT_STATES, UNAPPLIED_INTENT_STATES, RunRecord, TaskState
from ..results import ConsolidationReport
from ..store import Store

if TYPE_CHECKING:
    from .verification import VerifyResult

RETRYABLE_STATES = ("failed", "conflict", "rejected", "needs_network")
CLOSED_STATES = ("applied", "satisfied", "superseded", "dropped")
MAX_ATTEMPTS = 5      # consolidations restarted because merges kept moving the root's manifests


class _RootMoved(Exception):
    """Integration moved under a consolidation and the move touched the root's manifests or lock."""

    def __init__(self, tip: str, paths: list[str]):
        super().__init__(f"integration moved to {tip[:12]} and changed {', '.join(paths[:5])}")
        self.tip = tip
        self.paths = paths


def relock_configs(commands: Mapping[str, str]) -> dict[str, ToolConfig]:
    """`relock = { npm = "npm install --package-lock-only" }` from the configuration -> ToolConfigs
    that keep each adapter's offline flags and checks."""
    out: dict[str, ToolConfig] = {}
    for name, command in commands.items():
        try:
            ecosystem = Ecosystem(name)
        except ValueError:
            raise ConfigError(f"relock.{name}: unknown ecosystem",
                              fix="use one of: " + ", ".join(e.value for e in Ecosystem)) from None
        adapter = ADAPTERS.get(ecosystem)
        argv = tuple(shlex.split(command))
        if not argv:
            raise ConfigError(f"relock.{name} is empty", fix="give the relock command, e.g. \"npm install --package-lock-only\"")
        base = adapter.default_config if adapter is not None else ToolConfig(relock=argv)
        out[ecosystem.value] = dataclasses.replace(base, relock=argv)
    return out


def origin_state(store: Store, run_id: str, row: dict[str, Any]) -> str:
    """The waiting state an intent goes back to: `declared` when an agent declared it (a re-finish
    of its task must not replace it), else `pending`."""
    return "declared" if any(e["kind"] == "intent.declared" and e["data"].get("intent") == row["intent_id"]
                             for e in store.events(run_id, row["task_id"])) else "pending"


def requeue(store: Store, run_id: str, rows: list[dict[str, Any]], why: str) -> list[str]:
    """Put intents that ended without applying back to waiting; returns their ids."""
    done = []
    for row in rows:
        store.set_intent_state(run_id, row["intent_id"], origin_state(store, run_id, row),
                               {"retried_from": row["state"], "previous": row["detail"], "why": why})
        store.log_event(run_id, row["task_id"], "intent.retried", {"intent": row["intent_id"], "from": row["state"]})
        done.append(row["intent_id"])
    return done


def consolidate_run(git: GitRepo, store: Store, run: RunRecord, *, offline: bool, scratch_root: Path,
                    configs: Mapping[str, ToolConfig], heavy: Callable[[], ContextManager[None]],
                    integration_tip: str, retry_failed: bool = False,
                    reporter: Reporter | None = None, publish: Any = None,
                    verify: Callable[[str], VerifyResult] | None = None) -> ConsolidationReport:
    """Apply every pending intent of the run's merged tasks (see the module docstring); each root
    and each relock is a stage reported to `reporter`, which also hears `consolidate.progress` with
    `done` of `total` steps: the relock of every root, then each root recorded. `publish` moves the
    integration ref for a remote run (a push with a lease: CoordinatorBase._publisher). `verify`
    (the run's verify command, when it has one) checks each root's commit before the ref moves to it:
    a commit that fails leaves integration where it was and its intents failed."""
    reporter = reporter or NullReporter()
    roots: list[dict[str, Any]] = []
    tip = integration_tip
    retried: list[str] = []
    if retry_failed:
        merged = {t.task_id for t in store.list_tasks(run.run_id, [TaskState.MERGED])}
        retried = requeue(store, run.run_id, [r for r in store.list_intents(run.run_id, RETRYABLE_STATES)
                                              if r["task_id"] in merged], "consolidate --retry-failed")
    for attempt in range(MAX_ATTEMPTS):
        try:
            report = _consolidate_once(git, store, run, offline=offline, scratch_root=scratch_root, configs=configs,
                                       heavy=heavy, integration_tip=tip, earlier=roots, reporter=reporter,
                                       publish=publish, verify=verify)
            return dataclasses.replace(report, retried=retried)
        except _RootMoved as moved:
            # Roots committed before the move are recorded (their intents are no longer pending);
            # the rest starts again from the tip that now holds the other merges.
            tip = moved.tip
            last = moved
    raise StateError(f"consolidation of run {run.run_id} gave up after {MAX_ATTEMPTS} attempts: {last}",
                     fix="merges kept changing the same manifests; run `wtc consolidate` again after the merge "
                         "queue is drained (`wtc merge`)")


def _consolidate_once(git: GitRepo, store: Store, run: RunRecord, *, offline: bool, scratch_root: Path,
                      configs: Mapping[str, ToolConfig], heavy: Callable[[], ContextManager[None]],
                      integration_tip: str, earlier: list[dict[str, Any]], reporter: Reporter,
                      publish: Any = None, verify: Callable[[str], VerifyResult] | None = None) -> ConsolidationReport:
    merged = {t.task_id for t in store.list_tasks(run.run_id, [TaskState.MERGED])}
    rows = store.list_intents(run.run_id, PENDING_INTENT_STATES)
    ready = [r for r in rows if r["task_id"] in merged]
    waiting = [{"task": r["task_id"], "intent": r["intent_id"]} for r in rows if r["task_id"] not in merged]
    if not ready:
        return _report(run, integration_tip, offline, earlier, waiting, store)
    intents = [Intent.from_json(r["data"]) for r in ready]
    scratch = scratch_root / f"consolidate-{uuid.uuid4().hex[:8]}"
    git.add_detached_worktree(scratch, integration_tip)
    try:
        steps = 1 + len({i.root_key for i in intents})
        reporter.event("consolidate.progress", run=run.run_id, stage="relock", done=1, total=steps)
        with heavy():
            result: ConsolidationResult = consolidate(scratch, intents, offline=offline, configs=configs,
                                                      reporter=reporter)
        tip = integration_tip
        for number, root in enumerate(result.roots, start=2):
            commit = None
            if root.state is RootState.APPLIED and root.files_changed:
                try:
                    commit, tip = _commit_root(git, run, root, scratch, tip, publish, verify)
                    crash_point("consolidate.after_root_commit")
                except _VerifyFailed as failed:
                    root = dataclasses.replace(root, state=RootState.FAILED, error=failed.error(root))
            mine = list(root.intent_ids) if root.intent_ids is not None else \
                [i.intent_id for i in intents if i.root_key == (root.ecosystem, root.root)]
            _record_intents(store, run.run_id, root, commit, mine)
            earlier.append(root.to_json() | {"commit": commit})
            reporter.event("consolidate.progress", run=run.run_id, stage=f"{root.label} root {root.root or '.'}",
                  state=root.state.value, done=number, total=max(steps, len(result.roots) + 1))
    finally:
        git.remove_worktree(scratch)
        _remove_if_empty(scratch_root)
    return _report(run, tip, offline, earlier, waiting, store)


def _remove_if_empty(folder: Path) -> None:
    try:
        folder.rmdir()   # only when empty: a concurrent consolidation's scratch worktree stays
    except OSError:
        pass


def _report(run: RunRecord, tip: str, offline: bool, roots: list[dict[str, Any]],
            waiting: list[dict[str, Any]], store: Store) -> ConsolidationReport:
    failed = any(r["state"] in (RootState.CONFLICT.value, RootState.FAILED.value, RootState.NEEDS_NETWORK.value)
                 or r["conflicts"] or r["culprits"] for r in roots)
    skipped = skipped_intents(store, run.run_id)
    return ConsolidationReport(run=run.run_id, tip=tip, offline=offline, roots=list(roots), waiting=waiting,
                               skipped=skipped, exit_code=1 if failed or skipped else 0)


def skipped_intents(store: Store, run_id: str) -> list[dict[str, Any]]:
    """Every intent of the run not applied after this consolidation, with why and what to do."""
    tasks = {t.task_id: t.state for t in store.list_tasks(run_id)}
    out = []
    for row in store.list_intents(run_id, UNAPPLIED_INTENT_STATES):
        state, intent, task = row["state"], row["intent_id"], row["task_id"]
        task_state = tasks.get(task)
        detail = row["detail"] or {}
        error = detail.get("error")
        reason = (error.get("message") if isinstance(error, dict) else error) or detail.get("message") \
            or detail.get("reason")
        reason = summarize_message(str(reason)) if reason else reason   # the tool's full output stays in the detail
        if task_state is not TaskState.MERGED and state in ("pending", "declared"):
            where = task_state.value if task_state else "unknown"
            why = f"its task {task} is {where}: intents apply once their task has merged"
            fix = (f"drop it (wtc intent drop {intent} --run {run_id}): the task will not merge"
                   if task_state in (TaskState.ABANDONED, TaskState.EMPTY) else
                   f"merge the task (wtc task finish {task} --run {run_id}), then consolidate again")
        elif state == "needs_network" and isinstance(error, dict) and error.get("kind") == "tool_not_cached":
            why = reason       # the relock tool itself is not to be had offline: the root names it and the fix
            fix = str(error.get("fix")).replace("wtc consolidate", f"wtc consolidate --run {run_id}")
        elif state == "needs_network" and isinstance(error, dict) and error.get("kind") == "unreachable":
            why = reason
            # The root's own advice names the host (and a git source); the command is the run's.
            advice = str(error.get("fix") or "check that this machine reaches the package registry").removesuffix(
                f"; {RETRY_ONLINE}")
            fix = f"{advice}, then wtc consolidate --run {run_id} --online --retry-failed"
        elif state == "needs_network":
            why = "the offline relock needs packages that are not cached"
            if reason:   # the root's own message usually says so already: one sentence, not two
                why = f"the offline relock: {reason}" if "not cached" in reason else f"{why} ({reason})"
            fix = f"wtc consolidate --run {run_id} --online (or warm the package cache and consolidate again)"
        elif state == "failed" and isinstance(error, dict) and error.get("kind") == "tool_missing" and error.get("tool"):
            # The relock's tool is not installed: how to get it, then the run's retry (found driving
            # fanout on immer, a yarn project, on a machine without yarn: the fix said "fix the cause").
            from ..consolidate.adapters.base import install_hint

            tool = str(error["tool"])
            why = f"ended failed: {reason}" if reason else f"ended failed: {tool} is not installed"
            fix = f"install {tool} ({install_hint(tool)}), then wtc consolidate --run {run_id} --retry-failed"
        elif state in ("failed", "conflict", "rejected"):
            why = f"ended {state}" + (f": {reason}" if reason else "")
            fix = (f"fix the cause, then wtc consolidate --run {run_id} --retry-failed "
                   f"(or wtc intent retry {intent} --run {run_id}); re-declare it with another value "
                   f"(wtc intent add), or drop it (wtc intent drop {intent} --run {run_id})")
        else:
            why = "still waiting" + (f": {reason}" if reason else "")
            fix = f"wtc consolidate --run {run_id}"
        out.append({"intent": intent, "task": task, "state": state, "why": why, "fix": fix})
    return out


def _moved_paths(repo: pygit2.Repository, before: str, after: str, root: RootResult) -> list[str]:
    """Paths between `before` and `after` that a consolidation of `root` read or wrote: the files it
    changed and every manifest or lockfile under the root's directory."""
    from ..consolidate import classify_path

    old = repo[pygit2.Oid(hex=before)].peel(pygit2.Commit).tree
    new = repo[pygit2.Oid(hex=after)].peel(pygit2.Commit).tree
    prefix = f"{root.root}/" if root.root else ""
    touched = set(root.files_changed)
    out = []
    for patch in repo.diff(old, new):
        delta = patch.delta
        for path in {delta.old_file.path, delta.new_file.path}:
            if path in touched or (path.startswith(prefix) and classify_path(path) is not None):
                out.append(path)
    return sorted(set(out))


def _commit_root(git: GitRepo, run: RunRecord, root: RootResult, scratch: Path, tip: str,
                 publish: Any = None, verify: Callable[[str], VerifyResult] | None = None) -> tuple[str, str]:
    """One commit holding the root's changed files, moved onto integration by compare-and-swap
    once `verify` (if any) passed on it (else _VerifyFailed, integration unmoved).

    `tip` is where integration is believed to be: the commit the scratch worktree was made from,
    plus the roots committed so far and the merges already checked to leave this root alone."""
    repo = git.repo
    files: dict[str, tuple[pygit2.Oid, int] | None] = {}
    for rel in root.files_changed:
        path = scratch / rel
        if path.is_file():
            mode = pygit2.enums.FileMode.BLOB_EXECUTABLE if path.stat().st_mode & 0o111 else pygit2.enums.FileMode.BLOB
            files[rel] = (repo.create_blob(path.read_bytes()), int(mode))
        else:
            files[rel] = None
    ref = f"refs/heads/{run.integration_ref}"
    applied = sorted({i.intent_id for change in root.applied for i in change.sources})
    # The subject names what the root's project uses (landing._origin reads it back to its ecosystem).
    message = (f"wtc: consolidate {root.label} root '{root.root or '.'}' for run {run.run_id}\n\n"
               + "".join(f"intent {i}\n" for i in applied)
               + "".join(f"file {f}\n" for f in root.files_changed))
    signature = queue.signature()
    while True:
        parent = repo[pygit2.Oid(hex=tip)].peel(pygit2.Commit)
        tree = update_tree(repo, parent.tree_id, files)
        commit = repo.create_commit(None, signature, signature, message, tree, [parent.id])
        if verify is not None:
            check = verify(str(commit))
            if not check.ok:
                raise _VerifyFailed(check)
        try:
            if publish is not None:
                publish(ref, commit, parent.id)
            else:
                compare_and_swap(repo, ref, commit, parent.id, message=f"worktree_coord: consolidate {root.label}")
            return str(commit), str(commit)
        except StaleRef:
            moved_to = git.ref_target(ref) or tip
            # A merge landed meanwhile. Putting the same files on top is right only when it changed
            # nothing this root read or wrote.
            paths = _moved_paths(repo, tip, moved_to, root)
            if paths:
                raise _RootMoved(moved_to, paths) from None
            tip = moved_to


class _VerifyFailed(Exception):
    """A root's consolidated commit failed the run's verify command: integration did not move."""

    def __init__(self, check: VerifyResult):
        super().__init__(check.command)
        self.check = check

    def error(self, root: RootResult) -> dict[str, Any]:
        where = f"{root.label} root '{root.root or '.'}'"
        return {"kind": "failed_verification",
                "message": f"the verify command `{self.check.command}` failed (exit {self.check.exit_code}) on the "
                           f"consolidated commit of the {where}; integration was not moved",
                "verify": self.check.to_json(),
                "fix": "fix what the relocked tree breaks (a task, or `wtc intent add` with another value), "
                       "then wtc consolidate --retry-failed"}


def _record_intents(store: Store, run_id: str, root: RootResult, commit: str | None, all_ids: list[str]) -> None:
    """Each intent of the root gets its final state (or stays waiting for the network)."""
    done: set[str] = set()

    def mark(ids: list[str], state: str, detail: dict[str, Any], sha: str | None = None) -> None:
        for intent_id in ids:
            if intent_id not in done:
                done.add(intent_id)
                store.set_intent_state(run_id, intent_id, state, detail, sha)

    for conflict in root.conflicts:
        mark(list(conflict.intent_ids), "conflict", conflict.to_json())
    for culprit in root.culprits:
        mark([i.intent_id for i in culprit.change.sources], "rejected", culprit.to_json())
    where = {"root": root.root, "ecosystem": root.ecosystem}
    if root.state is RootState.NEEDS_NETWORK:
        mark(all_ids, "needs_network", where | {"error": root.error,
                                                "fix": "run `wtc consolidate --online` when the network is allowed"})
        return
    if root.state is RootState.FAILED:
        mark(all_ids, "failed", where | {"error": root.error})
        return
    if root.state is RootState.WAITING:
        # Not failed: another task's change keeps the root from relocking; they apply once it does.
        mark(all_ids, "pending", where | {"reason": (root.error or {}).get("message", "")})
        return
    mark([i.intent_id for c in root.applied for i in c.sources], "applied", where, commit)
    # Relock requests and intents already true on integration: satisfied by this root's outcome.
    mark(all_ids, "satisfied", where, commit)
