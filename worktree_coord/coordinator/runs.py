"""Runs: pin a commit and create the run's integration branch (create-only), and the run at a glance."""

from __future__ import annotations

import os
import time
from typing import Any

from ..errors import UsageError
from ..merge.result import SemanticMode
from ..store.idempotency import Outcome, default_key, run_once
from ..model import RunRecord, RunState, validate_name
from ..results import (RunStarted, RunStatus)
from ..telemetry import RunTrace
from ..store import Store

from .base import CoordinatorBase


class RunOperations(CoordinatorBase):
    """Starting runs and reading their state."""

    def start_run(self, run_id: str | None = None, base: str = "HEAD", *, verify: str | None = None,
                  semantic: str | None = None, key: str | None = None) -> RunStarted:
        """Pin `base` and create the run's integration branch at it. `verify` is a shell command every
        merge candidate must pass (in a scratch worktree) before the integration branch moves.
        `semantic` (block, warn, off) says what a semantic finding does to the run's merges; the
        configuration's `semantic-check` (default block) when not given."""
        started_at = time.time()
        if run_id is None:
            if key is not None:
                existing = self.store.get_record(key)
                if existing is not None and existing.result:
                    run_id = existing.result.get("run")
            run_id = run_id or time.strftime("run-%Y%m%d-%H%M%S-") + os.urandom(2).hex()
        validate_name("run", run_id)
        sha = self.git.resolve_commit(base)
        if semantic is not None:
            semantic = SemanticMode.parse(semantic).value
        request = {"run": run_id, "base": sha, "verify": verify} | ({"semantic": semantic} if semantic else {})

        def body() -> Outcome:
            integration = f"wtc/{run_id}/integration"
            existing = self.store.get_run(run_id)
            if existing is not None:
                if existing.base != sha:
                    raise UsageError(
                        f"run {run_id!r} exists, pinned at {existing.base[:12]}, not {sha[:12]}",
                        fix="start a run with a new --run id, or omit --base to reuse this run",
                    )
                return Outcome(RunStarted(run=run_id, base=sha, integration=integration).to_json())
            ref = f"refs/heads/{integration}"
            if not self.git.create_ref(ref, sha, f"worktree_coord: run {run_id} pinned"):
                current = self.git.ref_target(ref)
                if current != sha:
                    raise UsageError(
                        f"branch {integration} already exists at {str(current)[:12]} but no run {run_id!r} is recorded",
                        fix=f"choose another --run id, or delete the branch (git branch -D {integration})",
                    )
            options = ({"verify": verify} if verify else {}) | ({"semantic": semantic} if semantic else {})
            # The run's trace ids, kept whether or not this process traces: every later process joins.
            ids = RunTrace.new()
            created = self.store.create_run(RunRecord(run_id, sha, integration, RunState.OPEN, time.time(), options,
                                                      trace_id=ids.trace_hex, root_span_id=ids.root_hex))
            self.store.log_event(run_id, None, "run.started", {"base": sha})
            if created:   # (a racing start with another key recorded it first: its root span, not ours)
                self.reporter.event("run.started", run=run_id, base=sha, trace_id=ids.trace_hex,
                                    root_span_id=ids.root_hex, started_at=started_at)
            return Outcome(RunStarted(run=run_id, base=sha, integration=integration).to_json())

        done = run_once(self.store, key or default_key(run_id, "run-start"), "run.start", request, body,
                        ttl=self.config.idempotency_ttl, wait_timeout=self.config.wait_timeout)
        return RunStarted.from_json(done.outcome.result, replayed=done.replayed)

    def status(self, run_id: str | None = None) -> RunStatus:
        """The runs (all, or one) and their tasks at a glance. Without `run_id`, a repository with
        exactly one run shows that run's tasks; with several, each run with its task counts."""
        runs = [self._run(run_id)] if run_id else self.store.list_runs()
        if run_id is None and len(runs) == 1:
            run_id = runs[0].run_id
        tasks = self.store.list_tasks(run_id) if run_id else []
        counts: dict[str, int] = {}
        now = time.time()
        rows = []
        origins = _task_origins(self.store, run_id) if run_id else {}
        for task in tasks:
            counts[task.state.value] = counts.get(task.state.value, 0) + 1
            rows.append({
                "task": task.task_id, "state": task.state.value, "branch": task.branch, "worktree": task.worktree,
                "own": list(task.boundary.own), "files": len(task.result.get("changed", [])),
                "violations": len(task.result.get("violations", [])),
                "conflicts": len(task.result.get("conflicts", [])),
                "age_seconds": round(now - task.created_at, 1),
                **origins.get(task.task_id, {}),
            })
        intents: dict[str, int] = {}
        if run_id:
            for row in self.store.list_intents(run_id):
                intents[row["state"]] = intents.get(row["state"], 0) + 1
        run_rows = [r.to_json() for r in runs]
        if run_id is None:
            for row in run_rows:
                per_run: dict[str, int] = {}
                for task in self.store.list_tasks(row["run"]):
                    per_run[task.state.value] = per_run.get(task.state.value, 0) + 1
                row["counts"] = per_run
        for row in run_rows:
            sessions = self.store.harness_sessions(run_id=row["run"])
            if sessions:
                row["session"] = {"harness": sessions[0]["harness"], "id": sessions[0]["session_id"]}
        return RunStatus(runs=run_rows, tasks=rows, counts=counts, intents=intents)


def _task_origins(store: Store, run_id: str) -> dict[str, dict[str, Any]]:
    """Per task: the agent it serves (harness tasks), which rule gave its boundary, its ports and
    the log of its worktree setup."""
    found: dict[str, dict[str, Any]] = {}
    for row in store.task_contexts(run_id):
        data = row["data"]
        prepared = data.get("prepared", {})
        entry: dict[str, Any] = {"boundary_from": data.get("boundary_from", "")}
        if prepared.get("ports"):
            entry["ports"] = prepared["ports"]
        if prepared.get("setup"):
            entry["setup_log"] = prepared["setup"]["log"]
        found[row["task_id"]] = entry
    for row in store.agent_tasks(run_id):
        found.setdefault(row["task_id"], {})["agent"] = row["agent"]
    return found

