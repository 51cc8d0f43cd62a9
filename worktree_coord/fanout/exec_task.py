"""`wtc task exec`: fanout's one-task form. Start (or resume) a task, run one command in its
worktree, finish it.

Stage: a face's operation over the Python API. Input: the run, the task, its boundary, the command.
Output: an `ExecResult` whose exit code is the finish's, or 1 when the command itself failed (then
nothing is finished: the task stays live with what the command wrote, to run again or finish by
hand), or 0 when the task had already merged (nothing is run: a task that finished is never run
again). With `finish=False` (`--no-finish`) nothing is finished and the exit code is the command's.

The command runs through `process.spawn_agent`, as fanout's agents do: in the worktree, its own
process group (a timeout or Ctrl-C ends everything it started), stdin closed, the task's environment
(WTC_RUN, WTC_TASK, WTC_WORKTREE, its ports), the run's network (by default a namespace of its own:
a server it starts on 127.0.0.1:8000 does not collide with another task's). It is also the
one-line wrapper for a process an agent starts by itself that should get the task's own network.
"""

from __future__ import annotations

import os
import time
from dataclasses import field
from pathlib import Path
from typing import IO, Any, Sequence

from ..errors import UsageError
from ..results import Result, result_class
from .process import agent_environment, spawn_agent


@result_class
class ExecResult(Result):
    """`start`: the start's result (its state before the command: `existing` when it was resumed);
    `command`: what ran (argv, exit_code, seconds, timed_out), None when nothing ran; `finish`:
    the finish's result, None when no finish was tried."""

    run: str = ""
    task: str = ""
    start: dict[str, Any] = field(default_factory=dict)
    command: dict[str, Any] | None = None
    finish: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)


def exec_task(repo: str | os.PathLike[str], run_id: str, task_id: str, argv: Sequence[str], *,
              own: Sequence[str] = (), read: Sequence[str] = (), sparse: bool = False, timeout: float | None = None,
              message: str | None = None, verify: str | None = None,
              output: IO[bytes] | int | None = None, finish: bool = True) -> ExecResult:
    """Start (or resume) `task_id`, run `argv` in its worktree, finish it (module docstring). With
    `finish=False` the task is left live whatever the command did, and the exit code is the
    command's own (124 when it was stopped at `timeout`): the wrapper for a command an agent runs
    while it works (its tests), with the task's environment and network."""
    from ..coordinator import Coordinator

    if not argv:
        raise UsageError("no command to run", fix=f"give it after --: wtc task exec {task_id} --run {run_id} -- make test")
    if timeout is not None and timeout <= 0:
        raise UsageError(f"--timeout {timeout}: give a number of seconds above 0", fix="e.g. --timeout 600")
    with Coordinator(repo) as coordinator:
        started = coordinator.start_task(run_id, task_id, own, read, sparse=sparse)
        base: dict[str, Any] = {"run": run_id, "task": task_id, "start": started.to_json()}
        if started.state in ("merged", "empty"):
            return ExecResult(exit_code=0, **base, notes=[
                f"task {task_id} already {started.state}: the command was not run (a task that finished is never "
                "run again)"])
        worktree = started.worktree
        notes: list[str] = []
        if started.state == "finished" and not finish:
            return ExecResult(exit_code=1, **base, notes=[
                f"task {task_id} is finished and waiting to merge: it has no worktree to run the command in "
                f"(`wtc task finish {task_id} --run {run_id}` merges it)"])
        if started.state == "finished":   # its finish was recorded, its merge was not: merge it
            finished = coordinator.finish_task(run_id, task_id, message=message, verify=verify)
            return ExecResult(exit_code=finished.exit_code, **base, finish=finished.to_json(), notes=[
                f"task {task_id} was finished and waiting to merge: merged it without running the command"])
        if started.state == "failed":     # verification failed: update brings its worktree back to fix
            updated = coordinator.update_task(run_id, task_id)
            worktree = updated.worktree
            notes.append(f"task {task_id} had failed verification: its worktree was brought back onto the "
                         "integration tip (`wtc task update`) before the command ran")
        env = agent_environment(Path(worktree), {"WTC_RUN": run_id, "WTC_TASK": task_id, "WTC_WORKTREE": worktree})
        spawn = coordinator.command_spawn(run_id)
        if spawn.note:
            notes.append(spawn.note)
        began = time.monotonic()
        process = spawn_agent(argv, cwd=Path(worktree), env=env, output=output, spawn=spawn)
        timed_out = False
        try:
            while True:
                ended = process.poll()
                if ended is not None:
                    break
                if timeout is not None and time.monotonic() - began > timeout:
                    process.stop()
                    ended, timed_out = process.poll(), True
                    break
                time.sleep(0.05)
        except BaseException:    # Ctrl-C: the command and everything it started end with us
            process.stop()
            raise
        code = ended.exit_code if ended is not None else None
        ran = {"argv": list(argv), "exit_code": code, "seconds": round(time.monotonic() - began, 2),
               "timed_out": timed_out, "worktree": worktree, "network": spawn.network}
        if not finish:
            notes.append(f"not finished (--no-finish): task {task_id} stays live, its worktree {worktree} keeps what "
                         "the command wrote")
            return ExecResult(exit_code=124 if timed_out else (code if code is not None else 1), **base, command=ran,
                              notes=notes)
        if timed_out or code != 0:
            why = f"ran past --timeout {timeout:.0f} s and was stopped" if timed_out else f"exited {code}"
            notes.append(f"the command {why}: the task was not finished; it stays live, its worktree {worktree} "
                         f"keeps what the command wrote: fix it and run `wtc task exec` again, or `wtc task finish "
                         f"{task_id} --run {run_id}`")
            return ExecResult(exit_code=1, **base, command=ran, notes=notes)
        finished = coordinator.finish_task(run_id, task_id, message=message, verify=verify)
        return ExecResult(exit_code=finished.exit_code, **base, command=ran, finish=finished.to_json(), notes=notes)
