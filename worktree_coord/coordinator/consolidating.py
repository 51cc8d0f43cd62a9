"""The consolidation phase as the API offers it: `consolidate`, and the lead's handles on intents:
declared directly (a re-declaration supersedes the task's earlier intent on the same key), retried
after the cause of a failure is fixed, or dropped."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..store import leases
from ..errors import NotFoundError, StateError, UsageError
from ..store.idempotency import Outcome, default_key, run_once, variant_key
from ..model import TaskState

from .base import CoordinatorBase, staged

if TYPE_CHECKING:
    from .consolidation_phase import ConsolidationReport


class ConsolidationOperations(CoordinatorBase):
    """The consolidation phase and intents declared directly."""

    @staged("consolidate")
    def consolidate(self, run_id: str, *, offline: bool = True, retry_failed: bool = False,
                    key: str | None = None) -> ConsolidationReport:
        """Apply the pending intents of merged tasks in dependency-graph order, relock offline first,
        and commit one commit per ecosystem root onto integration, each verified first when the run
        has a verify command (a root whose commit fails it is failed, integration unmoved). Safe to repeat. With
        `retry_failed`, intents that ended failed, conflict, rejected or needs_network are taken up
        again. The report's `skipped` lists every intent still unapplied, with why; its exit code is
        1 while any is."""
        from .consolidation_phase import ConsolidationReport, consolidate_run, relock_configs

        run = self._run(run_id)
        command = self._verify_command(run, None)   # the run's, else the pin's `verify`: it gates these commits too

        def verify(commit: str) -> Any:
            return self._verify(run, commit, command)

        def body() -> Outcome:
            with leases.hold(self.store, f"consolidate:{run_id}", timeout=self.config.wait_timeout,
                             what=f"run {run_id} consolidation"):
                self._sync_integration(run)
                tip = self._check_integration(run)
                report = consolidate_run(
                    self.git, self.store, run, offline=offline, scratch_root=self.worktree_root() / run_id / ".consolidate",
                    configs=relock_configs(self.config.relock), heavy=lambda: self._heavy("relock"),
                    integration_tip=tip, retry_failed=retry_failed, reporter=self.reporter,
                    publish=self._publisher(run), verify=verify if command else None)
            self.store.log_event(run_id, None, "run.consolidated",
                                 {"roots": [{"root": r["root"], "ecosystem": r.get("ecosystem", ""),
                                             **({"tool": r["tool"]} if r.get("tool") else {}), "state": r["state"],
                                             "commit": r["commit"], "warnings": r.get("warnings", [])}
                                            for r in report.roots]})
            self.reporter.event("consolidate.done", run=run_id, roots=len(report.roots))
            return Outcome(report.to_json(), report.exit_code, final=False)  # later merges bring more intents

        request: dict[str, Any] = {"run": run_id, "offline": offline}
        if retry_failed:
            request["retry_failed"] = True
        done = run_once(self.store, key,
                        "run.consolidate", request, body, ttl=self.config.idempotency_ttl,
                        wait_timeout=self.config.wait_timeout,
                        derived=variant_key(default_key(run_id, "consolidate"), online=not offline, retry=retry_failed))
        return ConsolidationReport.from_json(done.outcome.result, replayed=done.replayed)

    def add_intent(self, run_id: str, task_id: str, *, manifest: str, op: str, name: str, spec: str | None = None,
                   group: str | None = None, rationale: str = "", key: str | None = None,
                   profile: str | None = None) -> dict[str, Any]:
        """An intent a task declares directly instead of editing a reserved file (`profile`: a place
        inside that Maven profile of a pom.xml). Declaring again for
        the same task, manifest, group and name supersedes the earlier intent that is not applied
        (kept with state `superseded` and `detail.superseded_by`), and intents that were in conflict
        with it wait again; declaring exactly what is already waiting changes nothing. Returns the
        intent's JSON plus `state`, `superseded` and `requeued`."""
        from ..consolidate import declare_intent, find_root
        from ..consolidate.derive import detect_ecosystem

        run = self._run(run_id)
        task = self._task(run_id, task_id)
        if task.state in (TaskState.ABANDONED, TaskState.EMPTY):
            raise StateError(f"task {task_id!r} is {task.state.value}; its intents would never be consolidated",
                             fix="declare it for a task that will merge")
        paths = frozenset(self.git.tree_paths(run.base))
        base = self.git.file_at(run.base, manifest)
        if base is None and manifest not in paths:
            raise NotFoundError(f"{manifest} is not in the run's pinned commit {run.base[:12]}",
                                fix="name a manifest path relative to the repository root, e.g. pyproject.toml")
        root = find_root(manifest, paths, lambda name: self.git.file_at(run.base, name))
        try:
            intent = declare_intent(manifest, base, task=task_id, op=op, name=name, spec=spec, group=group,
                                    root=root, base_commit=run.base, rationale=rationale, profile=profile,
                                    ecosystem=detect_ecosystem(manifest, root, paths))
        except ValueError:
            from ..consolidate.intent import Op

            raise UsageError(f"unknown --op {op!r}", fix="use one of: " + ", ".join(o.value for o in Op)) from None
        request = {"run": run_id, "task": task_id, "intent": intent.to_json()}

        def body() -> Outcome:
            with leases.hold(self.store, f"intents:{run_id}", timeout=self.config.wait_timeout,
                             what=f"run {run_id} intents"):
                # Never replayed: declaring is idempotent by content, and a declaration repeated
                # after another one superseded it must supersede that one in turn.
                return Outcome(self._declare_locked(run_id, task_id, intent.to_json()), final=False)

        done = run_once(self.store, key,
                        "intent.add", request, body, ttl=self.config.idempotency_ttl,
                        wait_timeout=self.config.wait_timeout,
                        derived=variant_key(default_key(run_id, "intent", task_id), intent=intent.intent_id, spec=spec,
                                            group=group, op=op))
        return done.outcome.result | {"replayed": done.replayed}

    def _declare_locked(self, run_id: str, task_id: str, data: dict[str, Any]) -> dict[str, Any]:
        from .consolidation_phase import CLOSED_STATES, requeue

        def same_key(row: dict[str, Any]) -> bool:
            other = row["data"]
            return (row["task_id"] == task_id and other.get("manifest") == data["manifest"]
                    and other.get("group") == data["group"] and other.get("name") == data["name"])

        rows = self.store.list_intents(run_id)
        earlier = [r for r in rows if same_key(r) and r["state"] not in ("superseded", "dropped")]
        content = {k: v for k, v in data.items() if k != "intent_id"}
        for row in earlier:
            if row["state"] in ("pending", "declared") and \
                    {k: v for k, v in row["data"].items() if k != "intent_id"} == content:
                return row["data"] | {"state": row["state"], "superseded": [], "unchanged": True}
        taken = {r["intent_id"] for r in rows}
        new_id, number = data["intent_id"], 1
        while new_id in taken:
            number += 1
            new_id = f"{data['intent_id']}#{number}"
        data = data | {"intent_id": new_id}
        superseded = [r for r in earlier if r["state"] not in CLOSED_STATES]
        for row in superseded:
            self.store.set_intent_state(run_id, row["intent_id"], "superseded",
                                        {"superseded_by": new_id, "was": row["state"], "previous": row["detail"]},
                                        row["commit_sha"])
            self.store.log_event(run_id, task_id, "intent.superseded", {"intent": row["intent_id"], "by": new_id})
        self.store.add_intent(run_id, task_id, data)
        self.store.log_event(run_id, task_id, "intent.declared", {"intent": new_id})
        # Intents that conflicted with a superseded one wait again: the conflict may be gone.
        gone = {r["intent_id"] for r in superseded}
        partners = [r for r in self.store.list_intents(run_id, ["conflict"])
                    if gone & set((r["detail"] or {}).get("intent_ids", []))]
        requeue(self.store, run_id, partners, f"the intent it conflicted with was superseded by {new_id}")
        return data | {"state": "declared", "superseded": [r["intent_id"] for r in superseded],
                       "requeued": [r["intent_id"] for r in partners]}

    def _intent_row(self, run_id: str, intent_id: str) -> dict[str, Any]:
        self._run(run_id)
        for row in self.store.list_intents(run_id):
            if row["intent_id"] == intent_id:
                return row
        raise NotFoundError(f"no intent {intent_id!r} in run {run_id!r}",
                            fix=f"list them: wtc intent list --run {run_id}")

    def retry_intent(self, run_id: str, intent_id: str, *, key: str | None = None) -> dict[str, Any]:
        """Take an intent that ended failed, conflict, rejected or needs_network up again: it waits
        for the next `consolidate`. Returns the intent row with its new state."""
        from .consolidation_phase import RETRYABLE_STATES, requeue

        def body() -> Outcome:
            with leases.hold(self.store, f"intents:{run_id}", timeout=self.config.wait_timeout,
                             what=f"run {run_id} intents"):
                row = self._intent_row(run_id, intent_id)
                if row["state"] in ("pending", "declared"):
                    return Outcome(_intent_json(row) | {"previous_state": row["state"], "changed": False}, final=False)
                if row["state"] not in RETRYABLE_STATES:
                    raise StateError(f"intent {intent_id} is {row['state']}; only intents that ended "
                                     f"{', '.join(RETRYABLE_STATES)} can be retried",
                                     fix="declare a new intent instead (wtc intent add)")
                requeue(self.store, run_id, [row], "wtc intent retry")
                # Not final: the same intent may fail again and be retried again with the same key.
                return Outcome(_intent_json(self._intent_row(run_id, intent_id))
                               | {"previous_state": row["state"], "changed": True}, final=False)

        self._intent_row(run_id, intent_id)
        done = run_once(self.store, key,
                        "intent.retry", {"run": run_id, "intent": intent_id}, body,
                        ttl=self.config.idempotency_ttl, wait_timeout=self.config.wait_timeout,
                        derived=default_key(run_id, "intent-retry", intent_id))
        return done.outcome.result | {"replayed": done.replayed}

    def drop_intent(self, run_id: str, intent_id: str, *, reason: str = "", key: str | None = None) -> dict[str, Any]:
        """Give an intent up: it is kept with state `dropped` and never applied. An applied intent
        cannot be dropped (its change is on integration already)."""
        def body() -> Outcome:
            with leases.hold(self.store, f"intents:{run_id}", timeout=self.config.wait_timeout,
                             what=f"run {run_id} intents"):
                row = self._intent_row(run_id, intent_id)
                if row["state"] == "dropped":
                    return Outcome(_intent_json(row) | {"previous_state": "dropped", "changed": False})
                if row["state"] in ("applied", "satisfied", "superseded"):
                    raise StateError(f"intent {intent_id} is {row['state']}; only intents not applied can be dropped",
                                     fix="to undo an applied change, declare the opposite intent (wtc intent add)")
                self.store.set_intent_state(run_id, intent_id, "dropped",
                                            {"was": row["state"], "reason": reason or "dropped by wtc intent drop",
                                             "previous": row["detail"]})
                self.store.log_event(run_id, row["task_id"], "intent.dropped", {"intent": intent_id, "reason": reason})
                return Outcome(_intent_json(self._intent_row(run_id, intent_id))
                               | {"previous_state": row["state"], "changed": True})

        self._intent_row(run_id, intent_id)
        done = run_once(self.store, key, "intent.drop",
                        {"run": run_id, "intent": intent_id, "reason": reason}, body,
                        ttl=self.config.idempotency_ttl, wait_timeout=self.config.wait_timeout,
                        derived=default_key(run_id, "intent-drop", intent_id))
        return done.outcome.result | {"replayed": done.replayed}

    def intents(self, run_id: str) -> list[dict[str, Any]]:
        self._run(run_id)
        return [_intent_json(r) for r in self.store.list_intents(run_id)]


def _intent_json(row: dict[str, Any]) -> dict[str, Any]:
    return {"intent": row["intent_id"], "task": row["task_id"], "state": row["state"], "detail": row["detail"],
            "commit": row["commit_sha"], "data": row["data"]}
