"""One task's pipeline: start (or resume), bring its dependencies' work in, run the agent, finish,
repair, until it merged or needs the lead.

Stage: what a pipeline (a worker thread of the runner) does for one task, over the pipeline's own
Coordinator (its own lease owner, as two `wtc` processes would be). Input: the task's plan, its
ledger and its record in the store. Output: a `TaskOutcome`; every step is written to the ledger
before the next begins.

The steps, from the ledger's `step` and the task's real state (`start_task` answers it):
  merged, empty               done: no agent runs (a task that finished is never run again)
  finished (waits to merge)   finish again: it merges
  agent                       an agent run: the first with the task's prompt, each later one with
                              the prompt and the report of what stopped the last (`repair.py`),
                              after `task update` when that report asks for it; a run a killed
                              runner left behind is adopted (waited for, or read as ended), a run
                              a stopped runner ended is run again and not counted as an attempt
  finish                      the agent exited 0: commit, check, merge (`finish_task`)
  lead                        attempts used up, or a problem no agent run fixes: left as it is
Invariants: an agent runs only in its task's worktree, through `process.spawn_agent`; nothing of a
task's progress lives only in memory (a runner killed at any point resumes from the ledger and the
store); an agent slot is held only while an agent process runs.
"""

from __future__ import annotations

import re
import shlex
import signal
import threading
import time
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from ..crashpoints import crash_point
from ..errors import BusyError, StateError, WtcError
from ..events import stage
from ..frozen import value_class
from ..isolation import spawn_for
from ..model import TaskState
from ..results import TaskFinished, TaskStarted
from . import ledger as ledgers
from .ledger import AGENT, DONE, FINISH, LEAD, TaskLedger
from .plan import Plan, TaskPlan
from .process import AgentProcess, Ended, agent_environment, read_status, spawn_agent
from .repair import Failure, agent_failure, finish_failure, output_tail, repair_prompt, update_text
from .unparsed import unparsed_in_worktree

# The signals a stop sends (Ctrl-C, `timeout`'s SIGTERM, a closed terminal), and how long a worker
# whose git child died of one waits for the runner to say it is stopping (the main thread runs the
# handler between two bytecodes: milliseconds on a quiet machine, longer under load).
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
STOP_GRACE_SECONDS = 5.0

# What stopped an agent's own run (no finish was tried): what it left is finished only once the lead changed it.
AGENT_ENDED_BADLY = ("agent_failed", "timeout")

if TYPE_CHECKING:
    from ..coordinator import Coordinator
    from .drain import Drain

DEFAULT_AGENT_TIMEOUT = 3600.0
BUSY_RETRIES = 3
POLL_SECONDS = 0.1
PID_FILE_GRACE = 1.0   # how long a resume waits for the pid file of an agent started just before a kill

UNPARSED = ": does not parse as "   # in a finish's note of a file it left unparseable (coordinator/tasks.py)

_PLACEHOLDER = re.compile(r"\{(task|run|worktree|prompt|prompt_file)\}")


@value_class
class TaskOutcome:
    """How one task stands when the runner is done with it for this invocation.

    `outcome`: merged, empty (its agent changed nothing), lead (needs the lead: its report says
    why), abandoned, blocked (a task it depends on did not merge), removed (taken out of the plan by
    --replan while live), stopped (the runner was stopped), limit (--max-agents was reached), not_run."""

    task: str
    outcome: str
    state: str | None = None
    attempts_used: int = 0
    attempts: int = 0
    runs_now: int = 0
    reason: str | None = None
    report: str | None = None
    worktree: str | None = None
    log: str | None = None
    commit: str | None = None
    # A merged task's finish notes the lead must read: each file it left that does not parse
    # (syntax.py: a note at finish, a refusal at `wtc land`), in the finish's words.
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items()}


@value_class(frozen=False)
class RunContext:
    """What every driver of one invocation shares with the runner (thread-safe)."""

    repo: Path
    run: str
    plan: Plan
    max_agents: int
    agent_timeout: float | None
    agent_slots: threading.Semaphore
    emit: Callable[..., None]                 # (kind, **data): the live view and the --json stream
    set_phase: Callable[[str, str, dict[str, Any]], None]
    stopping: threading.Event = field(default_factory=threading.Event)
    drain: Drain | None = None                # `[run] batch` above 1: finishes wait for its merges
    limit_reached: threading.Event = field(default_factory=threading.Event)
    agent_runs: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def take_agent_run(self) -> bool:
        """Count one more agent run of this invocation; False (and the limit noted) past --max-agents."""
        with self._lock:
            if self.agent_runs >= self.max_agents:
                self.limit_reached.set()
                return False
            self.agent_runs += 1
            return True


class TaskDriver:
    """Drives one task (see the module docstring) with its own Coordinator."""

    def __init__(self, context: RunContext, coordinator: Coordinator, task: TaskPlan):
        self.context = context
        self.c = coordinator
        self.task = task
        self.name = task.name
        self.run = context.run
        self.plan = context.plan
        self.attempts = self.plan.attempts_of(task)
        self.runs_now = 0
        self.worktree: str | None = None
        self.ledger = ledgers.read_ledger(self.c.store, self.run, self.name)
        self.ledger.attempts = self.attempts
        self._told_end: float | None = None    # the seconds of the agent run whose end was told, until recorded

    # ---- the pipeline -------------------------------------------------------------------------
    def drive(self) -> TaskOutcome:
        if self.context.stopping.is_set():      # picked up after the runner was told to stop
            return self._outcome("stopped")
        with stage(self.c.reporter, "fanout.task", run=self.run, task=self.name) as out:
            outcome = self._drive()
            out.update(outcome=outcome.outcome, attempts=outcome.attempts_used, runs=outcome.runs_now)
            return outcome

    def _drive(self) -> TaskOutcome:
        # Running and repairing mean an agent runs (at most `concurrency` of them): a task being
        # started or updated, its agent not yet in a slot, is still waiting.
        self._phase("finishing" if self.ledger.step in (FINISH, LEAD) else "waiting")
        started = self._call(lambda: self._start())
        if isinstance(started, TaskOutcome):
            return started
        self.worktree = started.worktree or None
        state = started.state
        if state in ("merged", "empty"):
            return self._done(state, started.last_finish)
        if state == "finished":
            self.ledger.step = FINISH
        elif state == "failed":       # its verification failed: update brings its worktree back
            self._resumed_failure(started, needs_update=True)
        elif state in ("conflict", "rejected") and self.ledger.report is None and started.last_finish:
            self._resumed_failure(started, needs_update=False)   # finished by hand before: repair it
        if self.ledger.step == DONE:   # the ledger ran ahead of a store that says live: drive it again
            self.ledger.step = FINISH
        if self.ledger.step == LEAD:
            if self.ledger.attempts_used < self.attempts:      # --replan raised the attempts
                self.ledger.step = AGENT
            elif self.ledger.reason not in AGENT_ENDED_BADLY + ("error", "internal") and state != "failed":
                self.ledger.step = FINISH                       # the lead may have fixed it by hand: try once
                return self._finish_once_for_the_lead()
            elif self.ledger.reason in AGENT_ENDED_BADLY and self._lead_changed_worktree():
                # Found driving wtc on pydantic: the lead resolved what the failed agent left and ran
                # fanout again, as its summary says; it answered "agent_failed" again without a finish.
                self.ledger.step = FINISH
                return self._finish_once_for_the_lead()
        self._save()
        while True:
            if self.ledger.step == LEAD:
                return self._lead()
            if self.ledger.step == FINISH:
                unparsed = self._unparsed_before_finish()
                if isinstance(unparsed, TaskOutcome):
                    return unparsed
                if unparsed:
                    self._failed(Failure("unparsed", False, unparsed))
                    continue
                result = self._call(lambda: self._finish())
                if isinstance(result, TaskOutcome):
                    return result
                if result.state in ("merged", "empty", "finished"):
                    return self._done(result.state, result.to_json())
                continue
            ended = self._agent_step()
            if isinstance(ended, TaskOutcome):
                return ended

    def _start(self) -> TaskStarted | TaskOutcome:
        record = self.c.store.get_task(self.run, self.name)
        own, read, sparse = (self.task.own, self.task.read, self.task.sparse) if record is None else \
            (record.boundary.own, record.boundary.read, record.boundary.sparse)
        try:
            started = self.c.start_task(self.run, self.name, own, read, sparse=sparse)
        except StateError as error:
            if record is not None and record.state.value == "abandoned":
                return self._outcome("abandoned", state="abandoned", report=error.message)
            raise
        self.c.reporter.event("fanout.started", run=self.run, task=self.name, state=started.state,
                              existing=started.existing)
        return started

    def _resumed_failure(self, started: TaskStarted, *, needs_update: bool) -> None:
        finished = TaskFinished.from_json(started.last_finish or {}, state=started.state)
        failure = finish_failure(finished)
        if failure is not None:
            self.ledger.reason, self.ledger.report = failure.kind, failure.report
            self.ledger.needs_update = needs_update or failure.needs_update
        if self.ledger.step in (FINISH, DONE):
            self.ledger.step = AGENT if self.ledger.attempts_used < self.attempts else LEAD

    # ---- agent runs ---------------------------------------------------------------------------
    def _agent_step(self) -> TaskOutcome | None:
        agent = self.ledger.agent
        ended: tuple[Ended, bool] | TaskOutcome | None
        if agent is not None and agent.get("state") == "running":
            ended = self._adopted_run(agent)
            if ended is None:          # it did not finish and nothing runs it: run it again
                agent["state"] = "interrupted"
                self._save()
                return None
        else:
            if self.ledger.needs_update:
                self._phase("finishing")      # wtc's own step, no agent runs yet
                updated = self._call(lambda: self.c.update_task(self.run, self.name))
                if isinstance(updated, TaskOutcome):
                    return updated
                self.worktree = updated.worktree
                self.ledger.report = (self.ledger.report or "").rstrip() + \
                    "\n\nwtc then ran `wtc task update` for you:\n" + update_text(updated)
                self.ledger.needs_update = False
                self._save()
            elif self.task.depends_on and not self.ledger.dependencies_in and self.ledger.runs == 0:
                # A dependent starts with what it depends on: the integration tip holds their merges.
                updated = self._call(lambda: self.c.update_task(self.run, self.name))
                if isinstance(updated, TaskOutcome):
                    return updated
                self.worktree = updated.worktree
                self.ledger.dependencies_in = True
                self._save()
            ended = self._new_run()
        if isinstance(ended, TaskOutcome):
            return ended
        self._agent_ended(ended)
        return None

    def _new_run(self) -> tuple[Ended, bool] | TaskOutcome:
        """Run the agent once (waiting for a slot); how it ended and whether it timed out."""
        attempt = self.ledger.attempts_used + 1
        if not self._take_slot():
            return self._outcome("stopped")
        try:
            if not self.context.take_agent_run():
                return self._outcome("limit")
            worktree = self._call(self._worktree)
            if isinstance(worktree, TaskOutcome):
                return worktree
            self.ledger.runs += 1
            self.runs_now += 1
            files = ledgers.attempt_files(self.c.git.wtc_dir, self.run, self.name, attempt, self.ledger.runs)
            interrupted = bool(self.ledger.agent and self.ledger.agent.get("state") == "interrupted"
                               and self.ledger.agent.get("attempt") == attempt)
            prompt = self._prompt(attempt, interrupted)
            files.prompt.write_text(prompt)
            timeout = self._timeout()
            argv = self._argv(prompt, files.prompt, worktree)
            env = agent_environment(Path(worktree), {
                "WTC_RUN": self.run, "WTC_TASK": self.name, "WTC_WORKTREE": worktree,
                "WTC_ATTEMPT": str(attempt), "WTC_ATTEMPTS": str(self.attempts),
                "WTC_PROMPT_FILE": str(files.prompt),
                **({"WTC_REPAIR": "1", "WTC_REPORT_FILE": str(files.report)} if attempt > 1 else {}),
            } | self.plan.env_of(self.task))
            if attempt > 1:
                files.report.write_text(self.ledger.report or "")
            self.ledger.agent = {"attempt": attempt, "run": self.ledger.runs, "state": "running",
                                 "started_at": time.time(), "timeout": timeout, "log": str(files.log),
                                 "status": str(files.status), "pid_file": str(files.pid),
                                 "prompt_file": str(files.prompt)}
            self._phase("running" if attempt == 1 else "repairing")   # writes the ledger: recorded before it runs
            self.context.emit("agent.start", task=self.name, attempt=attempt, attempts=self.attempts,
                              log=str(files.log))
            spawn = spawn_for(self.plan.network_of(self.task))
            with stage(self.c.reporter, "fanout.agent", run=self.run, task=self.name, attempt=attempt,
                       repair=attempt > 1) as out:
                with open(files.log, "ab") as log:
                    log.write((f"# wtc fanout: task {self.name}, attempt {attempt} of {self.attempts}, network "
                               f"{spawn.network}, {time.strftime('%Y-%m-%d %H:%M:%S')}\n"
                               + (f"# {spawn.note}\n" if spawn.note else "")
                               + f"# $ {shlex.join(argv)[:2000]}\n").encode())
                    log.flush()
                    process = spawn_agent(argv, cwd=Path(worktree), env=env, output=log, spawn=spawn,
                                          status_file=files.status, pid_file=files.pid)
                    result = self._wait(process, self.ledger.agent["started_at"] + timeout)
                out.update(exit_code=result[0].exit_code if result else None, timed_out=bool(result and result[1]))
            if result is not None:
                self._tell_end(result)
            if result is None:
                self.ledger.agent["state"] = "interrupted"
                self._save()
                return self._outcome("stopped")
            return result
        finally:
            self._release_slot()

    def _adopted_run(self, agent: dict[str, Any]) -> tuple[Ended, bool] | None:
        """The agent run a killed runner left: ended by now (its status file), still running (waited
        for, in a slot), or gone without a status (None: it did not finish)."""
        status_file, pid_file = Path(agent["status"]), Path(agent["pid_file"])
        recorded = read_status(status_file)
        if recorded is not None:
            return Ended(recorded), False
        process = AgentProcess.adopt(pid_file, status_file)
        if agent.get("stopping") == "timeout":     # the last runner was stopping it at its timeout
            if process is not None:
                process.stop()
            return Ended(None), True
        if process is None and not pid_file.exists() and time.time() - agent["started_at"] < 30:
            time.sleep(PID_FILE_GRACE)   # a kill just after the spawn: the wrapper writes its pid at once
            process = AgentProcess.adopt(pid_file, status_file)
        if process is None:
            recorded = read_status(status_file)
            return (Ended(recorded), False) if recorded is not None else None
        if not self._take_slot():
            return None
        try:
            self._phase("running" if agent["attempt"] == 1 else "repairing")
            self.context.emit("agent.adopted", task=self.name, attempt=agent["attempt"], pid=process.pid,
                              log=agent["log"])
            result = self._wait(process, agent["started_at"] + float(agent.get("timeout") or self._timeout()))
            if result is not None:
                self._tell_end(result)
            return result
        finally:
            self._release_slot()

    def _wait(self, process: AgentProcess, deadline: float) -> tuple[Ended, bool] | None:
        """Until the agent ends (its end), its deadline passes (stopped: Ended(None), True), or the
        runner stops (stopped, None)."""
        while True:
            ended = process.poll()
            if ended is not None:
                return ended, False
            if self.context.stopping.is_set():
                process.stop()
                ended = process.poll()
                # It may have ended on its own just before the stop: that run finished.
                return (ended, False) if ended is not None and ended.exit_code is not None else None
            if time.time() >= deadline:
                # Recorded before the stop: a runner killed while it stops the agent leaves a run
                # the next one counts as timed out, not one it runs again as if never tried.
                if self.ledger.agent is not None:
                    self.ledger.agent["stopping"] = "timeout"
                    self._save()
                process.stop()
                crash_point("fanout.after_timeout_stop")
                return Ended(None), True
            self.context.stopping.wait(POLL_SECONDS)

    def _tell_end(self, result: tuple[Ended, bool]) -> float:
        """Tell the agent run's end (`agent.end`) once, and return its length in seconds. Called while
        the task still holds its agent slot, so the end is told before the release moves the task to
        finishing (a view read "finishing", then "agent exited 0"); the ledger records it after, as
        before (`_agent_ended`)."""
        if self._told_end is None:
            ended, timed_out = result
            agent = self.ledger.agent or {}
            seconds = round(time.time() - float(agent.get("started_at", time.time())), 2)
            self.context.emit("agent.end", task=self.name, attempt=agent.get("attempt"), exit_code=ended.exit_code,
                              seconds=seconds, timed_out=timed_out)
            self._told_end = seconds
        return self._told_end

    def _agent_ended(self, result: tuple[Ended, bool]) -> None:
        ended, timed_out = result
        seconds = self._tell_end(result)    # (told already when the run ended in its slot)
        self._told_end = None
        agent = self.ledger.agent or {}
        agent.update(state="ended", exit_code=ended.exit_code, seconds=seconds, timed_out=timed_out)
        self.ledger.agent = agent
        self.ledger.attempts_used += 1
        ledgers.log_agent_run(self.c.store, self.run, self.name, agent)
        if ended.exit_code == 0 and not timed_out:
            self.ledger.step = FINISH
            self._save()
            return
        failure = agent_failure(ended.exit_code, timed_out=timed_out, seconds=seconds,
                                timeout=float(agent.get("timeout") or self._timeout()), log=str(agent.get("log", "")),
                                output_tail=output_tail(str(agent.get("log", ""))))
        self._failed(failure)

    # ---- finishing ------------------------------------------------------------------------------
    def _finish(self) -> TaskFinished | TaskOutcome:
        self._phase("finishing")
        drain = self.context.drain
        result = self.c.finish_task(self.run, self.name, message=f"wtc fanout: {self.name}", verify=self.plan.verify,
                                    merge=drain is None)
        self.context.emit("finish", task=self.name, state=result.state, exit_code=result.exit_code)
        if drain is not None and result.state == TaskState.FINISHED.value:
            merged = self._drained(drain, result)
            if isinstance(merged, TaskOutcome):
                return merged
            result = merged
        failure = finish_failure(result)
        if failure is None:
            self.ledger.step = DONE
            self._save()
        else:
            self.worktree = result.worktree or self.worktree
            self._failed(failure)
        return result

    def _drained(self, drain: Drain, finished: TaskFinished) -> TaskFinished | TaskOutcome:
        """`[run] batch`: the task, finished without its merge, waits for the runner's drain; what the
        drain recorded for it is what a finish that merged would have answered (a failed verification
        goes to the repair as one at finish does). Passed over by the drain: the lead's, with why."""
        settled = drain.wait(self.c, self.name)
        if settled is None:
            return self._outcome("stopped")      # still finished: the next runner's drain merges it
        if isinstance(settled, str):
            self.ledger.reason, self.ledger.report = "error", settled
            self._save()
            return self._lead()
        self.context.emit("merge", task=self.name, state=settled.state.value)
        return TaskFinished.from_json(settled.result, state=settled.state.value, replayed=False,
                                      worktree=settled.worktree or finished.worktree)

    def _unparsed_before_finish(self) -> str | TaskOutcome:
        """The repair report of the files the task's work leaves that no longer parse (unparsed.py),
        while it has attempts left; "" when none, or on its last attempt (it finishes as it is and
        merges with a note the summary names)."""
        if self.ledger.attempts_used >= self.attempts or not self.ledger.attempts_used:
            return ""   # no agent ran yet (a finish the lead asked for, a resume): the finish says it
        return self._call(lambda: unparsed_in_worktree(self.c, self.run, self.name))

    def _finish_once_for_the_lead(self) -> TaskOutcome:
        """A task left for the lead, driven again: finish it once (the lead may have fixed it in its
        worktree); merged, it is done, else it stays the lead's, with no agent run."""
        result = self._call(lambda: self.c.finish_task(self.run, self.name, message=f"wtc fanout: {self.name}",
                                                       verify=self.plan.verify))
        if isinstance(result, TaskOutcome):
            return result
        failure = finish_failure(result)
        if failure is None:
            self.ledger.step = DONE
            self._save()
            return self._done(result.state, result.to_json())
        self.ledger.step, self.ledger.reason, self.ledger.report = LEAD, failure.kind, failure.report
        self.ledger.left_worktree = None
        self.worktree = result.worktree or self.worktree
        return self._lead()

    def _failed(self, failure: Failure) -> None:
        self.ledger.reason, self.ledger.report = failure.kind, failure.report
        self.ledger.needs_update = failure.needs_update
        if self.ledger.attempts_used < self.attempts:
            self.ledger.step = AGENT
            self.context.emit("repair", task=self.name, attempt=self.ledger.attempts_used + 1,
                              attempts=self.attempts, reason=failure.kind)
        else:
            self.ledger.step = LEAD
            if failure.kind in AGENT_ENDED_BADLY:
                self.ledger.left_worktree = self._worktree_fingerprint()
        self._save()

    def _worktree_fingerprint(self) -> str | None:
        """The task's worktree as it stands (its HEAD and each changed file's blob), None without one."""
        record = self.c.store.get_task(self.run, self.name)
        worktree = Path(record.worktree) if record is not None and record.worktree else None
        if worktree is None or not worktree.is_dir():
            return None
        import hashlib
        import json

        try:
            head, paths = self.c.git.working_changes(worktree)
            blobs = self.c.git.working_blobs(worktree, paths)
        except (WtcError, OSError):   # an unreadable worktree: nothing to compare, nothing finished
            return None
        return hashlib.sha256(json.dumps([head, sorted(blobs.items())]).encode()).hexdigest()

    def _lead_changed_worktree(self) -> bool:
        """Whether the worktree differs from how the failed agent left it (a ledger written before
        the fingerprint existed has none: then nothing is finished, as before)."""
        left = self.ledger.left_worktree
        return left is not None and self._worktree_fingerprint() not in (None, left)

    # ---- outcomes -------------------------------------------------------------------------------
    def _done(self, state: str, finish: dict[str, Any] | None) -> TaskOutcome:
        self.ledger.step = DONE
        self._phase("merged")
        merge = (finish or {}).get("merge") or {}
        return self._outcome("merged" if state != "empty" else "empty", state=state,
                             commit=merge.get("merge_commit") or merge.get("new_tip"),
                             notes=tuple(note for note in (finish or {}).get("notes") or [] if UNPARSED in note))

    def _lead(self) -> TaskOutcome:
        self.ledger.step = LEAD
        self._phase("lead")
        record = self.c.store.get_task(self.run, self.name)
        worktree = (record.worktree if record else None) or self.worktree
        if worktree and not Path(worktree).is_dir():
            # Gone with its finish (a conflict found after the worktree was removed): the lead is not
            # sent to a folder that is not there; the summary says how to bring it back.
            worktree = None
        return self._outcome("lead", state=record.state.value if record else None, worktree=worktree)

    def _outcome(self, outcome: str, **fields: Any) -> TaskOutcome:
        agent = self.ledger.agent or {}
        values: dict[str, Any] = {"state": None, "reason": self.ledger.reason if outcome == "lead" else None,
                                  "report": self.ledger.report if outcome == "lead" else None,
                                  "worktree": self.worktree, "log": agent.get("log"), "commit": None}
        values.update(fields)
        if outcome in ("stopped", "limit"):
            self._phase("waiting")
        return TaskOutcome(task=self.name, outcome=outcome, attempts_used=self.ledger.attempts_used,
                           attempts=self.attempts, runs_now=self.runs_now, **values)

    # ---- helpers --------------------------------------------------------------------------------
    def _call(self, operation: Callable[[], Any]) -> Any:
        """A Coordinator call: busy (a lease, git's lock) is retried a few times; any other error
        leaves the task to the lead with the error as its report, never stopping the other tasks.
        An error while the runner stops is the stop's: Ctrl-C (or `timeout`'s SIGTERM) reaches the
        whole process group, git children included, so a git command of the call dies with it. The
        task is stopped, and the next run takes the step again (a real error shows there)."""
        for attempt in range(BUSY_RETRIES + 1):
            try:
                return operation()
            except BusyError as error:
                if self.context.stopping.is_set():
                    return self._outcome("stopped")
                if attempt == BUSY_RETRIES:
                    return self._error(error, "error")
                self.context.stopping.wait(min(5.0, error.retry_after or 1.0))
            except WtcError as error:
                return self._outcome("stopped") if self._stop_ended(error) else self._error(error, "error")
            except Exception as error:  # noqa: BLE001 - a bug in wtc: reported for this task, the run goes on
                if self._stop_ended(error):
                    return self._outcome("stopped")
                return self._error(error, "internal")
        raise AssertionError("unreachable")

    def _stop_ended(self, error: BaseException) -> bool:
        """Whether the runner's stop ended the call. The stop's signal reaches the whole process group
        at once: this worker can see its git child dead of it before the main thread has run its
        handler and set `stopping`, so a git killed by a stop's signal waits for the flag a moment
        rather than hand the task to the lead (found as a flake of tests/fanout/test_stop_mid_git.py)."""
        if self.context.stopping.is_set():
            return True
        details = error.details if isinstance(error, WtcError) else None
        if (details or {}).get("signal") in STOP_SIGNALS:
            return self.context.stopping.wait(STOP_GRACE_SECONDS)
        return False

    def _error(self, error: BaseException, kind: str) -> TaskOutcome:
        if isinstance(error, WtcError):
            text = f"wtc could not drive the task: {error.message}" + (f"\n  fix: {error.fix}" if error.fix else "")
        else:
            text = (f"internal error in wtc (a bug, not in your plan) while driving the task: "
                    f"{type(error).__name__}: {error}; rerun with WTC_DEBUG=1 for the traceback and report it")
            import os
            import traceback

            if os.environ.get("WTC_DEBUG"):
                traceback.print_exc()
        self.ledger.reason, self.ledger.report = kind, text
        self._save()
        return self._lead()

    def _take_slot(self) -> bool:
        """An agent slot (the task shows as waiting meanwhile); False when the runner stops first."""
        if not self.context.agent_slots.acquire(blocking=False):
            self._phase("waiting")
            while not self.context.agent_slots.acquire(timeout=POLL_SECONDS):
                if self.context.stopping.is_set():
                    return False
        if self.context.stopping.is_set():
            self.context.agent_slots.release()
            return False
        return True

    def _release_slot(self) -> None:
        """Give the agent slot back, the task's phase moved off running first: running and repairing
        count agents, never more than the slots."""
        if self.ledger.phase in ("running", "repairing"):
            self._phase("finishing")
        self.context.agent_slots.release()

    def _worktree(self) -> str:
        """The task's worktree (re-created from its branch by a start when the folder went missing)."""
        if self.worktree and Path(self.worktree).is_dir():
            return self.worktree
        started = self.c.start_task(self.run, self.name, self.task.own, self.task.read, sparse=self.task.sparse)
        if not started.worktree:
            raise StateError(f"task {self.name!r} has no worktree to run its agent in ({started.state})")
        self.worktree = started.worktree
        return self.worktree

    def _prompt(self, attempt: int, interrupted: bool) -> str:
        prompt = self.task.prompt
        if attempt > 1:
            prompt = repair_prompt(prompt, task=self.name, run=self.run, attempt=attempt, attempts=self.attempts,
                                   report=self.ledger.report or "(no report was kept)")
        if interrupted:
            prompt = (prompt.rstrip() + "\n\nwtc: an earlier run of this attempt was stopped before it ended (the "
                      "runner was stopped); what it wrote is in this worktree: continue from it.\n")
        return prompt

    def _argv(self, prompt: str, prompt_file: Path, worktree: str) -> list[str]:
        values = {"task": self.name, "run": self.run, "worktree": worktree, "prompt": prompt,
                  "prompt_file": str(prompt_file)}
        return [_PLACEHOLDER.sub(lambda m: values[m.group(1)], part) for part in self.plan.command_of(self.task)]

    def _timeout(self) -> float:
        return self.task.timeout or self.context.agent_timeout or self.plan.agent.timeout or DEFAULT_AGENT_TIMEOUT

    def _phase(self, phase: str) -> None:
        self.ledger.phase = phase
        self._save()
        self.context.set_phase(self.name, phase, {"attempt": self._attempt_of(phase), "attempts": self.attempts})

    def _attempt_of(self, phase: str) -> int:
        """The attempt a phase belongs to: the one about to run while the task waits for or runs its
        agent, else the last one that ran (a task merged on its first attempt is not on its second)."""
        if phase in ("waiting", "running", "repairing"):
            return min(self.ledger.attempts_used + 1, self.attempts)
        ran = (self.ledger.agent or {}).get("attempt")
        return int(ran) if ran else max(min(self.ledger.attempts_used, self.attempts), 1)

    def _save(self) -> None:
        ledgers.write_ledger(self.c.store, self.run, self.name, self.ledger)
