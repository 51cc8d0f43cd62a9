"""The fanout runner: a plan driven to the end over the Python API, pipelined, resumed from the store.

Stage: `wtc fanout` after the plan loaded. Input: the repository, the run, the `Plan`, the limits.
Output: a `FanoutReport` (summary.py); the run's tasks merged or left for the lead, consolidated.

In order:
  1. the run: started at the plan's base (default HEAD) when it does not exist yet;
  2. the run's fanout lease (`fanout:<run>`): one runner per run at a time; a runner that was
     killed leaves a lease the next one takes over at once (its owner is dead);
  3. the plan against the one the run stored: the same, or refused with the differences listed,
     or (`replan`) stored as the run's plan from now on;
  4. the scheduler: tasks in dependency order; a task is handed to a pipeline (a worker thread with
     a Coordinator of its own, driving one task after another: driver.py) as soon as one is free
     and every task it depends on merged; a task whose dependency will not merge is blocked; at
     most `concurrency` agents run at once (a pipeline holds an agent slot only while its agent
     runs, and there are half as many pipelines again, so starts, updates and merges overlap agents);
  5. the end: when every task has merged or needs the lead, consolidation (offline first, as
     `wtc consolidate`); the report. Never lands.
Ctrl-C or SIGTERM stops every agent's process group, lets the Coordinator calls in flight end
(each is idempotent and resumable anyway), and answers what stands (exit 130): the same command
again resumes. The limit on agent runs per invocation (`max_agents`) stops new runs the same way,
with exit 1 and a message naming the option.
"""

from __future__ import annotations

import contextlib
import os
import queue
import shutil
import signal
import threading
import time
from pathlib import Path
from typing import Any, Iterator

from ..errors import BusyError, UsageError, WtcError
from ..frozen import value_class
from ..isolation import NetworkMode, spawn_for
from ..model import RunState, validate_name
from ..store import leases
from ..store.liveness import separate_owner
from . import ledger as ledgers
from .drain import Drain
from .driver import RunContext, TaskDriver, TaskOutcome
from .plan import MAX_CONCURRENCY, Plan, differences
from .summary import FanoutReport, build_report
from .view import NullView, View

DEFAULT_MAX_AGENTS = 1000
MAX_CONCURRENCY_DEFAULT = 16
OK_OUTCOMES = ("merged", "empty")
BLOCKING_OUTCOMES = ("lead", "blocked", "abandoned", "removed")
TICK_SECONDS = 0.25


@value_class
class FanoutOptions:
    concurrency: int | None = None       # None: the plan's, else default_concurrency()
    max_agents: int = DEFAULT_MAX_AGENTS
    agent_timeout: float | None = None   # for tasks whose plan sets none (before [agent] timeout)
    replan: bool = False
    offline: bool = True


def default_concurrency() -> int:
    """16 agents at once, fewer on a machine with fewer than 4 CPUs (4 per CPU)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(1, min(MAX_CONCURRENCY_DEFAULT, 4 * cpus))


def run_fanout(repo: str | os.PathLike[str], plan: Plan, run_id: str, options: FanoutOptions = FanoutOptions(),
               view: View | None = None) -> FanoutReport:
    """Drive `plan` on run `run_id` of the repository at `repo` to the end (module docstring)."""
    from ..coordinator import Coordinator

    validate_name("run", run_id)
    if options.max_agents < 1:
        raise UsageError(f"--max-agents {options.max_agents}: at least one agent run is needed",
                         fix="give --max-agents 1 or more (default 1000)")
    if options.concurrency is not None and not 1 <= options.concurrency <= MAX_CONCURRENCY:
        raise UsageError(f"--concurrency {options.concurrency}: give 1 to {MAX_CONCURRENCY} agents at once",
                         fix="e.g. --concurrency 16")
    if options.agent_timeout is not None and options.agent_timeout <= 0:
        raise UsageError(f"--agent-timeout {options.agent_timeout}: give a number of seconds above 0",
                         fix="e.g. --agent-timeout 1800")
    view = view or NullView()
    began = time.monotonic()
    with Coordinator(repo) as coordinator, _stop_on_sigterm():
        _check_commands(plan, coordinator.git.toplevel)      # before anything is made: not even the run
        notes: list[str] = []
        landed = False
        existing = coordinator.store.get_run(run_id)
        if existing is None:
            started = coordinator.start_run(run_id, base=plan.base or "HEAD", verify=plan.verify)
            notes.append(f"started run {run_id} pinned at {started.base[:12]} ({plan.base or 'HEAD'})")
            notes += started.notes
        elif existing.state == RunState.LANDED:
            landed = True
            notes.append(f"run {run_id} has landed (wtc land): its merged tasks stay as they are; a task of the plan "
                         "that started and has not merged is run, and what it merges lands only with another "
                         "`wtc land`; a task it never started is refused (a landed run takes no new task: start "
                         "a new run)")
        elif plan.base and _resolved(coordinator, plan.base) != existing.base:
            notes.append(f"run {run_id} exists, pinned at {existing.base[:12]}: the plan's base {plan.base!r} "
                         "is for a run fanout starts, and was not used")
        with _driving(coordinator, run_id):
            changes = _take_plan(coordinator, run_id, plan, options.replan)
            removed = _removed_live(coordinator, run_id, plan)
            if changes:
                notes.append("took the new plan (--replan): " + "; ".join(changes))
                notes += _widen_live(coordinator, run_id, plan)
            # Agents run shared unless the plan asks isolated (plan.network_of); probed once for them all.
            if any(plan.network_of(task) == NetworkMode.ISOLATED.value for task in plan.tasks):
                spawn = spawn_for(NetworkMode.ISOLATED)
                if spawn.note:
                    notes.append(spawn.note)
            concurrency = options.concurrency or plan.agent.concurrency or default_concurrency()
            scheduler = Scheduler(coordinator, plan, run_id, options, concurrency, view, began)
            consolidation = None
            try:
                outcomes = scheduler.run(removed)
                if scheduler.stopped is None:
                    consolidation = _consolidate(coordinator, run_id, options.offline, scheduler, notes)
                    coordinator.drop_kept_verification(run_id)   # the run's end: its merges are done
            finally:
                view.stop()
            return build_report(run=run_id, plan=plan, outcomes=outcomes, consolidation=consolidation,
                                agent_runs=scheduler.context.agent_runs, max_agents=options.max_agents,
                                stopped=scheduler.stopped, elapsed=time.monotonic() - began, notes=notes,
                                concurrency=concurrency, landed=landed)


class Scheduler:
    """Hands each task to a pipeline when it may start, collects the outcomes, stops on request."""

    def __init__(self, coordinator: Any, plan: Plan, run_id: str, options: FanoutOptions, concurrency: int,
                 view: View, began: float):
        self.c = coordinator
        self.plan = plan
        self.run_id = run_id
        self.view = view
        self.began = began
        self.concurrency = concurrency
        # Pipelines beyond the agent slots start (and later finish) tasks while agents run; with
        # `[run] batch`, as many again as a batch holds wait for the drain without keeping a task
        # from starting.
        self.pipelines = concurrency + max(2, concurrency // 2) + (plan.batch if plan.batch > 1 else 0)
        self.stopped: str | None = None
        self._lock = threading.Lock()
        self.phases: dict[str, str] = {}
        self.work: queue.Queue[str | None] = queue.Queue()
        self.results: queue.Queue[TaskOutcome] = queue.Queue()
        self.context = RunContext(repo=Path(coordinator.git.toplevel or coordinator.git.common_dir), run=run_id,
                                  plan=plan, max_agents=options.max_agents, agent_timeout=options.agent_timeout,
                                  agent_slots=threading.Semaphore(concurrency), emit=self.emit,
                                  set_phase=self.set_phase)
        if plan.batch > 1:
            assert plan.verify is not None   # plan.load refuses a batch without it
            self.context.drain = Drain(self.context.repo, run_id, plan.verify, plan.batch, self.context.stopping,
                                       self.emit)

    # ---- the view ------------------------------------------------------------------------------
    def counts(self) -> dict[str, int]:
        counts = dict.fromkeys(("waiting", "running", "repairing", "finishing", "merged", "lead"), 0)
        for phase in self.phases.values():
            counts[phase] = counts.get(phase, 0) + 1
        return counts

    def emit(self, kind: str, **data: Any) -> None:
        with self._lock:
            self.view.event(kind, data, self.counts(), time.monotonic() - self.began)

    def set_phase(self, task: str, phase: str, data: dict[str, Any]) -> None:
        with self._lock:
            if self.phases.get(task) == phase:
                return
            self.phases[task] = phase
            self.view.event("task", {"task": task, "phase": phase, **data}, self.counts(),
                            time.monotonic() - self.began)

    # ---- scheduling ----------------------------------------------------------------------------
    def run(self, removed: list[TaskOutcome]) -> list[TaskOutcome]:
        settled: dict[str, TaskOutcome] = {}
        records = {t.task_id: t for t in self.c.store.list_tasks(self.run_id)}
        ledgers_now = ledgers.read_ledgers(self.c.store, self.run_id)
        for task in self.plan.tasks:
            record = records.get(task.name)
            ledger = ledgers_now.get(task.name, ledgers.TaskLedger())
            if record is not None and record.state.value in ("merged", "empty", "abandoned"):
                outcome = {"merged": "merged", "empty": "empty", "abandoned": "abandoned"}[record.state.value]
                merge = record.result.get("merge") or {}
                settled[task.name] = TaskOutcome(task.name, outcome, state=record.state.value,
                                                 attempts_used=ledger.attempts_used,
                                                 attempts=self.plan.attempts_of(task),
                                                 commit=merge.get("merge_commit") or merge.get("new_tip"))
                self.phases[task.name] = "merged" if outcome != "abandoned" else "lead"
            else:
                self.phases[task.name] = "waiting"
        with self._lock:
            self.view.start({"run": self.run_id, "plan": self.plan.source, "tasks": len(self.plan.tasks),
                             "settled": len(settled), "concurrency": self.concurrency,
                             "max_agents": self.context.max_agents}, self.counts())
        pending = [t.name for t in self.plan.tasks if t.name not in settled]
        in_flight: set[str] = set()
        workers = [threading.Thread(target=self._worker, name=f"wtc-fanout-{i}", daemon=True)
                   for i in range(min(self.pipelines, len(pending)))]
        for worker in workers:
            worker.start()
        drain = self.context.drain
        if drain is not None:
            drain.start()
        try:
            while pending or in_flight:
                self._collect(in_flight, settled, block=False)
                if not self.context.stopping.is_set() and not self.context.limit_reached.is_set():
                    self._start_ready(pending, in_flight, settled)
                elif not in_flight:
                    break
                if not pending and not in_flight:
                    break
                self._collect(in_flight, settled, block=True)
                with self._lock:
                    self.view.tick(self.counts(), time.monotonic() - self.began)
        except KeyboardInterrupt:
            self.stopped = "interrupted"
            self.context.stopping.set()
            self.emit("stopping", why="interrupted: stopping every agent (their worktrees keep their work)")
            self._wait_for(in_flight, settled)
        for _ in workers:
            self.work.put(None)
        if drain is not None:
            drain.close()
        if self.context.limit_reached.is_set() and self.stopped is None:
            self.stopped = "limit"
        for name in pending:
            if name not in settled:
                settled[name] = self._not_started(name, settled)
        order = {t.name: i for i, t in enumerate(self.plan.tasks)}
        return sorted(settled.values(), key=lambda o: order.get(o.task, len(order))) + removed

    def _start_ready(self, pending: list[str], in_flight: set[str], settled: dict[str, TaskOutcome]) -> None:
        for name in list(pending):
            if len(in_flight) >= self.pipelines:
                return
            task = self.plan.task(name)
            failed = [d for d in task.depends_on if d in settled and settled[d].outcome not in OK_OUTCOMES]
            if failed:
                pending.remove(name)
                settled[name] = self._blocked(name, failed, settled)
                continue
            if not all(d in settled for d in task.depends_on):
                continue
            pending.remove(name)
            in_flight.add(name)
            self.work.put(name)

    def _worker(self) -> None:
        """A pipeline: one task after another, each driven to the end of this invocation, with one
        Coordinator of its own (its own lease owner, as a `wtc` process would be)."""
        from ..coordinator import Coordinator

        coordinator = None
        with separate_owner():
            try:
                while True:
                    name = self.work.get()
                    if name is None:
                        return
                    task = self.plan.task(name)
                    try:
                        if coordinator is None:
                            coordinator = Coordinator(self.context.repo)
                        outcome = TaskDriver(self.context, coordinator, task).drive()
                    except BaseException as error:  # noqa: BLE001 - one task's failure never stops the others
                        message = error.message if isinstance(error, WtcError) else f"{type(error).__name__}: {error}"
                        outcome = TaskOutcome(name, "lead", attempts=self.plan.attempts_of(task), reason="error",
                                              report=f"wtc could not drive the task: {message}")
                        self.set_phase(name, "lead", {})
                    self.results.put(outcome)
            finally:
                if coordinator is not None:
                    coordinator.close()

    def _collect(self, in_flight: set[str], settled: dict[str, TaskOutcome], *, block: bool) -> None:
        try:
            outcome = self.results.get(timeout=TICK_SECONDS) if block else self.results.get_nowait()
        except queue.Empty:
            return
        while True:
            settled[outcome.task] = outcome
            in_flight.discard(outcome.task)
            self.emit("task.end", task=outcome.task, outcome=outcome.outcome, attempts=outcome.attempts_used,
                      reason=outcome.reason, notes=list(outcome.notes))
            try:
                outcome = self.results.get_nowait()
            except queue.Empty:
                return

    def _wait_for(self, in_flight: set[str], settled: dict[str, TaskOutcome]) -> None:
        """After a stop: tasks not picked up yet are not started, every pipeline ends its agent and
        returns; a second Ctrl-C stops waiting (anything left is what a killed runner leaves:
        resumable)."""
        while True:
            try:
                name = self.work.get_nowait()
            except queue.Empty:
                break
            if name is not None:
                in_flight.discard(name)
                settled[name] = TaskOutcome(name, "stopped", attempts=self.plan.attempts_of(self.plan.task(name)))
        try:
            while in_flight:
                self._collect(in_flight, settled, block=True)
        except KeyboardInterrupt:
            for name in list(in_flight):
                settled.setdefault(name, TaskOutcome(name, "stopped", attempts=self.plan.attempts_of(self.plan.task(name))))

    def _blocked(self, name: str, failed: list[str], settled: dict[str, TaskOutcome]) -> TaskOutcome:
        why = ", ".join(f"{d} ({settled[d].outcome})" for d in failed)
        outcome = TaskOutcome(name, "blocked", attempts=self.plan.attempts_of(self.plan.task(name)), reason="blocked",
                              report=f"not started: it depends on {why}, which did not merge; once the lead merges "
                                     f"{'it' if len(failed) == 1 else 'them'}, run the same `wtc fanout` again")
        self.set_phase(name, "lead", {})
        self.emit("task.end", task=name, outcome="blocked", reason="blocked")
        return outcome

    def _not_started(self, name: str, settled: dict[str, TaskOutcome]) -> TaskOutcome:
        task = self.plan.task(name)
        failed = [d for d in task.depends_on if d in settled and settled[d].outcome in BLOCKING_OUTCOMES]
        if failed:
            return self._blocked(name, failed, settled)
        why = "limit" if self.stopped == "limit" else ("stopped" if self.stopped else "not_run")
        ledger = ledgers.read_ledger(self.c.store, self.run_id, name)
        return TaskOutcome(name, why, attempts_used=ledger.attempts_used, attempts=self.plan.attempts_of(task))


@contextlib.contextmanager
def _driving(coordinator: Any, run_id: str) -> Iterator[None]:
    """The run's fanout lease: one runner per run (a killed runner's lease is taken over at once)."""
    try:
        with leases.hold(coordinator.store, f"fanout:{run_id}", timeout=1.0, what=f"run {run_id}'s fanout"):
            yield
    except BusyError as error:
        if error.details.get("lease") != f"fanout:{run_id}":
            raise
        holder = error.details.get("holder", "")
        raise BusyError(f"another `wtc fanout` is driving run {run_id!r} (process {holder})",
                        fix="wait for it to end, or stop it (Ctrl-C) and run this again: it resumes where that one "
                            "stopped", retry_after=30.0, details={"holder": holder}) from None


def _take_plan(coordinator: Any, run_id: str, plan: Plan, replan: bool) -> list[str]:
    """Compare `plan` with the run's stored plan: the first one is stored; a changed one is refused
    (UsageError listing the changes) unless `replan`, which stores it. Returns the changes taken."""
    store = coordinator.store
    new = plan.to_json()
    old = ledgers.stored_plan(store, run_id)
    if old is None:
        ledgers.store_plan(store, run_id, new, source=plan.source, changes=[])
        return []
    if old == new:
        return []
    changes = differences(old, new)
    if not replan:
        shown = "\n  ".join(changes[:40]) + (f"\n  and {len(changes) - 40} more" if len(changes) > 40 else "")
        raise UsageError(f"the plan changed since run {run_id!r} began:\n  {shown}",
                         fix=f"run it with the plan it began with, or add --replan to take this one (added tasks run, "
                             f"removed tasks that have not started are dropped, finished ones stay)",
                         details={"changes": changes})
    ledgers.store_plan(store, run_id, new, source=plan.source, changes=changes)
    return changes


def _widen_live(coordinator: Any, run_id: str, plan: Plan) -> list[str]:
    """Give each live task of the plan the globs the taken plan adds to its boundary (`wtc task
    widen`, the reason naming the replan), so its next finish is checked against the plan it runs
    under; a glob the plan dropped stays (a boundary only widens). Found driving wtc on express:
    `own` corrected with --replan, the task's next run was still rejected outside the old one.
    Returns a note per task widened."""
    notes = []
    for item in plan.tasks:
        record = coordinator.store.get_task(run_id, item.name)
        if record is None or not record.state.live:
            continue
        own = [glob for glob in item.own if glob not in record.boundary.own]
        read = [glob for glob in item.read if glob not in record.boundary.read + record.boundary.own]
        if not own and not read:
            continue
        coordinator.widen_task(run_id, item.name, own, read, why="wtc fanout --replan: the plan's boundary for it grew")
        added = ", ".join([f"own {glob}" for glob in own] + [f"read {glob}" for glob in read])
        kept = [f"own {glob}" for glob in record.boundary.own if glob not in item.own] + \
               [f"read {glob}" for glob in record.boundary.read if glob not in item.read]
        notes.append(f"task {item.name} widened to the new plan's boundary: {added}"
                     + (f"; it keeps {', '.join(kept)} (a live task's boundary only widens)" if kept else ""))
    return notes


def _removed_live(coordinator: Any, run_id: str, plan: Plan) -> list[TaskOutcome]:
    """Tasks a fanout drove that the plan no longer holds (--replan removed them) and that are still
    live: left as they are, and reported each time until the lead finishes or abandons them."""
    driven = ledgers.read_ledgers(coordinator.store, run_id)
    names = set(plan.names())
    removed = []
    for record in coordinator.store.list_tasks(run_id):
        if record.task_id in names or record.task_id not in driven or not record.state.live:
            continue
        ledger = driven[record.task_id]
        removed.append(TaskOutcome(record.task_id, "removed", state=record.state.value, worktree=record.worktree,
                                   attempts_used=ledger.attempts_used, attempts=ledger.attempts, reason="removed",
                                   report=f"removed from the plan while {record.state.value}: left as it is (its "
                                          f"worktree and branch keep the work); finish it (`wtc task finish "
                                          f"{record.task_id} --run {run_id}`) or give it up (`wtc task abandon "
                                          f"{record.task_id} --run {run_id}`)"))
    return removed


def _resolved(coordinator: Any, revision: str) -> str | None:
    try:
        return str(coordinator.git.resolve_commit(revision))
    except WtcError:
        return None


def _check_commands(plan: Plan, toplevel: Path | None) -> None:
    """Every agent program can be found before any task starts (a typo would fail every task)."""
    missing: dict[str, list[str]] = {}
    for task in plan.tasks:
        program = plan.command_of(task)[0]
        if "{" in program:
            continue
        if "/" in program:
            found = Path(program).is_file() if Path(program).is_absolute() else \
                (toplevel is None or (toplevel / program).is_file())
        else:
            found = shutil.which(program) is not None
        if not found:
            missing.setdefault(program, []).append(task.name)
    if missing:
        program, tasks = next(iter(missing.items()))
        shown = ", ".join(tasks[:5]) + (f" and {len(tasks) - 5} more" if len(tasks) > 5 else "")
        raise UsageError(f"the agent program {program!r} (command of {shown}) is not on PATH"
                         + (" or in the repository" if "/" in program else ""),
                         fix="install it, or give its full path in the plan's command",
                         details={"missing": missing})


def _consolidate(coordinator: Any, run_id: str, offline: bool, scheduler: Scheduler,
                 notes: list[str]) -> dict[str, Any] | None:
    """The run's consolidation, as `wtc consolidate` (offline unless `offline` is False); None when
    the run has no intent to apply."""
    if not coordinator.store.list_intents(run_id):
        return None
    scheduler.emit("consolidate", offline=offline)
    try:
        report = coordinator.consolidate(run_id, offline=offline)
    except WtcError as error:
        notes.append(f"consolidation did not run: {error.message}" + (f" ({error.fix})" if error.fix else ""))
        return {"exit_code": error.exit_code, "error": error.to_json()}
    return report.to_json()


@contextlib.contextmanager
def _stop_on_sigterm() -> Iterator[None]:
    """SIGTERM stops the runner as Ctrl-C does (agents stopped, what stands reported)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
