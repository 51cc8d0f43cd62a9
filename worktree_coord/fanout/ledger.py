"""What a fanout run remembers between invocations, in the store, and where each agent run's files go.

Stage: read when `wtc fanout` starts or resumes a run, written at every step a task takes. Input and
output: the run's store (nothing of a run lives only in the runner's memory) and one folder per
task under the git common dir.

- The plan the run began with, and each plan `--replan` took after it: an event `fanout.plan` of
  the run (`stored_plan` reads the latest), so a resume compares what it is given with it.
- Per task, its `TaskLedger` in the task's context (key `fanout`): the next step (`agent`,
  `finish`, `done`, `lead`), the attempts used (agent runs that ended: a run stopped by the runner's
  own stop is not one), the agent run in flight or the last one, and the report that stopped the
  last attempt (the next repair's prompt carries it). The task's own record (its state in the
  store) stays the truth: a ledger that says `finish` of a task the store says merged is done.
- Per agent run, files in `<git common dir>/wtc/fanout/<run>/<task>/`: the prompt, the log, the
  wrapper's pid and exit status (process.py), kept after the task merges for the lead to read.
- Each agent run that ended is also an event of the task (`fanout.agent`, or `fanout.repair` for
  a repair) in the store's log: `wtc report`'s timeline shows it.
"""

from __future__ import annotations

import time
from dataclasses import asdict, field
from pathlib import Path
from typing import Any

from ..frozen import value_class
from ..store import Store

PLAN_EVENT = "fanout.plan"
CONTEXT_KEY = "fanout"

# The next thing a task needs: an agent run, a finish (its agent ended well), nothing (done), or
# the lead (attempts used up, or a problem no agent run fixes).
AGENT, FINISH, DONE, LEAD = "agent", "finish", "done", "lead"


@value_class(frozen=False)
class TaskLedger:
    step: str = AGENT
    phase: str = "waiting"
    attempts_used: int = 0
    attempts: int = 0                      # how many the plan allows (shown by `wtc watch`)
    runs: int = 0                          # agent runs started for the task, ever (stopped ones too)
    agent: dict[str, Any] | None = None    # the run in flight or the last one (attempt, state, pid file, ...)
    reason: str | None = None              # what stopped the last attempt (repair.Failure.kind)
    report: str | None = None              # its report, for the next repair's prompt and for the lead
    needs_update: bool = False             # bring the integration tip in before the next agent run
    dependencies_in: bool = False          # the dependencies' merged work was brought into the worktree
    # The worktree as an agent that failed (or timed out) left it to the lead: a later run finishes
    # the task only when the worktree differs from it (the lead fixed it), never what the agent left.
    left_worktree: str | None = None
    updated_at: float = field(default_factory=time.time)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> "TaskLedger":
        names = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in (data or {}).items() if k in names})


def read_ledger(store: Store, run_id: str, task_id: str) -> TaskLedger:
    rows = store.task_contexts(run_id, task_id)
    return TaskLedger.from_json(rows[0]["data"].get(CONTEXT_KEY) if rows else None)


def read_ledgers(store: Store, run_id: str) -> dict[str, TaskLedger]:
    """Every task's ledger of the run (tasks the run has never driven have none)."""
    return {row["task_id"]: TaskLedger.from_json(row["data"][CONTEXT_KEY])
            for row in store.task_contexts(run_id) if CONTEXT_KEY in row["data"]}


def write_ledger(store: Store, run_id: str, task_id: str, ledger: TaskLedger) -> None:
    ledger.updated_at = time.time()
    store.update_task_context(run_id, task_id, {CONTEXT_KEY: ledger.to_json()})


def stored_plan(store: Store, run_id: str) -> dict[str, Any] | None:
    """The plan the run is driven by: the latest `fanout.plan` event's, or None for a run no fanout drove."""
    plans = [e for e in store.events(run_id) if e["task_id"] is None and e["kind"] == PLAN_EVENT]
    return plans[-1]["data"]["plan"] if plans else None


def store_plan(store: Store, run_id: str, plan: dict[str, Any], *, source: str, changes: list[str]) -> None:
    store.log_event(run_id, None, PLAN_EVENT, {"plan": plan, "source": source, "changes": changes})


def log_agent_run(store: Store, run_id: str, task_id: str, run: dict[str, Any]) -> None:
    """An agent run that ended, in the task's event log (the report's timeline)."""
    kind = "fanout.repair" if run.get("attempt", 1) > 1 else "fanout.agent"
    store.log_event(run_id, task_id, kind, {k: run[k] for k in ("attempt", "exit_code", "seconds", "timed_out", "log")
                                            if k in run})


@value_class
class AttemptFiles:
    """The files of one agent run of a task."""

    folder: Path
    attempt: int
    run_number: int     # the task's n-th agent run (an attempt stopped by the runner runs again)

    @property
    def stem(self) -> str:
        return f"run-{self.run_number}"

    @property
    def prompt(self) -> Path:
        return self.folder / f"{self.stem}.prompt.md"

    @property
    def log(self) -> Path:
        return self.folder / f"{self.stem}.log"

    @property
    def status(self) -> Path:
        return self.folder / f"{self.stem}.status"

    @property
    def pid(self) -> Path:
        return self.folder / f"{self.stem}.pid"

    @property
    def report(self) -> Path:
        return self.folder / f"{self.stem}.report.txt"


def task_folder(wtc_dir: Path, run_id: str, task_id: str) -> Path:
    return wtc_dir / "fanout" / run_id / task_id


def attempt_files(wtc_dir: Path, run_id: str, task_id: str, attempt: int, run_number: int) -> AttemptFiles:
    folder = task_folder(wtc_dir, run_id, task_id)
    folder.mkdir(parents=True, exist_ok=True)
    return AttemptFiles(folder, attempt, run_number)
