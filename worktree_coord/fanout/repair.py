"""The repair loop's words: what stopped an attempt, whether `task update` comes first, and the
prompt of the next agent run.

Stage: after a task's agent ran and its finish (or the agent itself) failed. Input: the finish's
`TaskFinished` (or how the agent ended), the update's `TaskUpdated`. Output: a `Failure` (its kind,
whether the worktree takes the integration tip in before the next run, its report as text), and
the prompt of a repair run: the task's original prompt followed by that report.

Kinds, and whether `task update` applies:
  agent_failed, timeout     the agent exited non-zero or ran past its timeout: no finish was tried;
                            the next run continues in the same worktree (its files are kept)
  rejected                  a boundary violation: fix the paths in place; no update
  conflict, semantic        the merge stopped on another task's merged work: update brings that
                            work in (markers where it cannot merge), then the agent resolves
  failed_verification       the merge candidate failed the verification command: update brings
                            the task back onto the integration tip, the agent fixes it
  unresolved_markers        markers an update left are still there: resolve them; no update
  left_behind               code no task changed still uses a name the task removed: keep the
                            name (or the lead widens the task); no update
  unparsed                  a file the task's work changed no longer parses (unparsed.py, found
                            before the finish, so nothing merged): fix the syntax; no update
The report's words are those `wtc task finish` and `wtc task update` print (output/render.py, the
faces' shared text), preceded by what the runner already did and followed by what not to do (the
runner finishes and updates itself).
"""

from __future__ import annotations


from ..frozen import value_class
from ..results import TaskFinished, TaskUpdated

OUTPUT_TAIL_LINES = 30


@value_class
class Failure:
    kind: str
    needs_update: bool
    report: str


def finish_failure(finished: TaskFinished) -> Failure | None:
    """What stopped a finish, or None when the task merged, ended empty or waits to merge."""
    from ..output import render   # the faces' shared words

    if finished.state in ("merged", "empty", "finished"):
        return None
    text = render.task_finished(finished)
    if finished.state == "rejected":
        return Failure("rejected", False, text)
    if finished.state == "failed":
        return Failure("failed_verification", True, text)
    kinds = {c.get("kind", "") for c in finished.conflicts}
    if "unresolved_markers" in kinds:
        return Failure("unresolved_markers", False, text)
    if kinds and kinds <= {"left_behind"}:
        return Failure("left_behind", False, text)
    if kinds and kinds <= {"semantic", "left_behind"}:
        return Failure("semantic", True, text)
    return Failure("conflict", True, text)


def agent_failure(exit_code: int | None, *, timed_out: bool, seconds: float, timeout: float, log: str,
                  output_tail: str) -> Failure:
    """An agent run that did not end well: no finish was tried; the next run continues its work."""
    if timed_out:
        head = (f"the agent ran past its timeout of {timeout:.0f} s and was stopped (its process group was "
                "killed); nothing was committed or merged")
        kind = "timeout"
    else:
        head = (f"the agent exited with code {exit_code if exit_code is not None else '(killed by a signal)'} after "
                f"{seconds:.1f} s; nothing was committed or merged")
        kind = "agent_failed"
    tail = output_tail.rstrip("\n").splitlines()[-OUTPUT_TAIL_LINES:]
    lines = [head, f"  its output: {log}"]
    if tail:
        lines.append(f"  last {len(tail)} line(s):")
        lines += [f"    | {line}" for line in tail]
    lines.append("  the files it changed are still in the worktree: continue from them")
    return Failure(kind, False, "\n".join(lines))


def update_text(updated: TaskUpdated) -> str:
    from ..output import render

    return render.task_updated(updated)


def repair_prompt(prompt: str, *, task: str, run: str, attempt: int, attempts: int, report: str) -> str:
    """The original prompt, then what stopped the last attempt and how this one is different."""
    return (f"{prompt.rstrip()}\n\n"
            f"---\n"
            f"wtc: this is attempt {attempt} of {attempts} of task {task} (run {run}). The earlier attempt's work "
            f"is in this worktree; wtc tried to finish and merge it and could not. What stopped it:\n\n"
            f"{report.rstrip()}\n\n"
            f"Fix that in this worktree and exit. wtc commits, checks and merges the worktree itself when you "
            f"exit with code 0, and brings the integration tip in when a report asks for it: do not run "
            f"`wtc task finish` or `wtc task update` yourself (where the report says to, wtc does it).\n")


def output_tail(log: str, limit: int = 64 * 1024) -> str:
    """The end of an agent's log (its last `limit` bytes)."""
    try:
        with open(log, "rb") as handle:
            handle.seek(0, 2)
            size = handle.tell()
            handle.seek(max(0, size - limit))
            return handle.read().decode("utf-8", "replace")
    except OSError:
        return ""
