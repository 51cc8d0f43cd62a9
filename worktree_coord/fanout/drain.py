"""The runner's merge drain for a plan with `[run] batch = N` (N > 1): verified merges in batches.

Stage: beside the pipelines, for the whole of a fanout invocation. Input: the run's finished tasks
(a pipeline finishes its task without merging it, `finish_task(merge=False)`, then waits here).
Output: each of them merged, ejected (failed verification), in conflict or rejected, as the store
records it; the pipeline then reads its task's record and goes on exactly as after a finish that
merged itself (a failure goes to the repair). What it does is `wtc merge --verify CMD --batch N`
(`Coordinator.merge`: up to N merged onto a candidate, verified once, a failing batch bisected to its
culprit), again and again while agents still work: a drain runs whenever a task waits, and the
tasks that finish during one go in the next.

Verified merges go one at a time on the run's integration lease; with a batch of N one verification
lands up to N tasks, so a swarm's merges no longer wait for the sum of one verification each.
Killed at any point, nothing is lost: a finished task stays finished in the store until a drain
records it, and the next runner's drain takes it (a batch whose integration move landed before the
kill is found merged already, and recorded without a second merge).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, Callable

from ..errors import BusyError, WtcError
from ..model import TaskState
from ..store.liveness import separate_owner

if TYPE_CHECKING:
    from ..coordinator import Coordinator

IDLE_SECONDS = 0.25   # how often an idle drain looks for finished tasks no pipeline told it about
WAIT_SECONDS = 1.0    # how often a waiting pipeline reads its task again without being woken


class Drain:
    """One thread merging the run's finished tasks in batches (module docstring), with a
    Coordinator of its own (its own lease owner, as a `wtc merge` process would be)."""

    def __init__(self, repo: Any, run: str, verify: str, batch: int, stopping: threading.Event,
                 emit: Callable[..., None]):
        self.repo, self.run, self.verify, self.batch = repo, run, verify, batch
        self.stopping = stopping
        self.emit = emit
        self._wake = threading.Event()
        self._done = threading.Event()
        self._changed = threading.Condition()
        self._passed_over: dict[str, str] = {}    # task -> why the drain could not merge it (its row, an error)
        self._stuck: set[str] = set()              # tasks passed over: drained again only beside a new one
        self._broken: str | None = None            # why the drain itself stopped (every waiting task's reason)
        self.drains = 0
        self._thread = threading.Thread(target=self._loop, name="wtc-fanout-drain", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def close(self) -> None:
        """Stop after the drain in progress (a merge is never cut short by this)."""
        self._done.set()
        self._wake.set()
        self._thread.join()

    def wake(self) -> None:
        """A task finished: drain now rather than at the next idle look."""
        self._wake.set()

    def wait(self, coordinator: Coordinator, task: str) -> Any:
        """Wait until the drain settled `task`: its record (no longer finished), or the reason a
        drain passed it over (a str: left for the lead), or None when the runner stops first."""
        self.wake()
        while True:
            record = coordinator.store.get_task(self.run, task)
            if record is not None and record.state is not TaskState.FINISHED:
                return record
            with self._changed:
                why = self._passed_over.pop(task, None) or self._broken
                if why is not None:
                    return why
                if self.stopping.is_set() or self._done.is_set():
                    return None
                self._changed.wait(WAIT_SECONDS)

    # ---- the thread -----------------------------------------------------------------------------
    def _loop(self) -> None:
        from ..coordinator import Coordinator

        try:
            with separate_owner(), Coordinator(self.repo) as coordinator:
                while not self._done.is_set() and not self.stopping.is_set():
                    self._wake.clear()
                    waiting = {t.task_id for t in coordinator.store.list_tasks(self.run, [TaskState.FINISHED])}
                    if waiting - self._stuck:
                        self._drain(coordinator)
                        continue
                    self._wake.wait(IDLE_SECONDS)
        except Exception as error:   # noqa: BLE001 - the store unreadable, a bug: no task waits for ever
            self._broken = _why(error)
        with self._changed:
            self._changed.notify_all()

    def _drain(self, coordinator: Coordinator) -> None:
        passed: dict[str, str] = {}
        try:
            report = coordinator.merge(self.run, verify=self.verify, batch=self.batch)
            self.drains += 1
            for row in report.tasks:
                if row.get("reason"):   # passed over (its look gave no answer): the lead's, as its finish
                    passed[row["task"]] = row["reason"] + (f"\n  fix: {row['fix']}" if row.get("fix") else "")
            self.emit("drain", merged=sum(1 for r in report.tasks if r["state"] == TaskState.MERGED.value),
                      tasks=len(report.tasks))
        except BusyError as busy:    # the integration lease or a task's, held by another process: again
            self._wake.wait(min(5.0, busy.retry_after or 1.0))
        except Exception as error:   # noqa: BLE001 - one no drain gets past (integration deleted, a bug):
            # each waiting task goes to the lead with it, as its own finish's error would
            why = _why(error)
            passed = {t.task_id: why for t in coordinator.store.list_tasks(self.run, [TaskState.FINISHED])}
        self._stuck |= set(passed)
        with self._changed:
            self._passed_over.update(passed)
            self._changed.notify_all()


def _why(error: Exception) -> str:
    """A waiting task's report when no drain could merge it."""
    if isinstance(error, WtcError):
        return f"wtc could not merge the task: {error.message}" + (f"\n  fix: {error.fix}" if error.fix else "")
    return f"internal error in wtc (a bug, not in your plan) while merging: {type(error).__name__}: {error}"
