"""`wtc fanout PLAN --run ID` and `wtc task exec TASK --run ID -- CMD`: the command line of the fanout face
(worktree_coord/fanout/). Parse, call, render; the work is the fanout package's. Inside a task's
worktree `wtc task exec -- CMD` takes TASK and --run from it, as the other task commands do."""

from __future__ import annotations

import shlex
import sys
from typing import Any, List, Optional

import click
import typer
from typer.core import TyperCommand

from . import app
from .common import JsonOption, RepoOption, RunOption, WorktreeRunOption, WorktreeTaskArgument
from .. import fastcli
from ..errors import UsageError
from ..output.tagging import emit
from .tasks import task_app


class _CommandAfterDashes(TyperCommand):
    """Click fills TASK and CMD from every word that is not an option, `--` or not: `wtc task exec --
    pytest -q` would give TASK "pytest". This keeps what followed `--` (ctx.meta), the command
    whole, so TASK is only a word given before it."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.meta["wtc.after_dashes"] = args[args.index("--") + 1:] if "--" in args else None
        return super().parse_args(ctx, args)


@app.command("fanout")
def fanout(
    plan: str = typer.Argument(..., help="The plan: a TOML, JSON or YAML file (docs/fanout.md)."),
    run: str = RunOption,
    concurrency: Optional[int] = typer.Option(None, "--concurrency", "-j", min=1, max=256,
                                              help="Agents at once (default: the plan's, else 16, fewer on "
                                                   "fewer than 4 CPUs)."),
    max_agents: int = typer.Option(1000, "--max-agents", min=1, help="Agent runs this invocation may start."),
    agent_timeout: Optional[float] = typer.Option(None, "--agent-timeout", min=0.001,
                                                  help="Seconds one agent run may take, for tasks whose plan sets no "
                                                       "timeout (default: [agent] timeout, else 3600)."),
    replan: bool = typer.Option(False, "--replan", help="Take a plan that changed since the run began (added tasks "
                                "run, removed tasks not started are dropped, finished ones stay)."),
    offline: bool = typer.Option(True, "--offline/--online", help="Consolidate from caches only (default), or "
                                 "allow the network."),
    repo: str = RepoOption,
    json_mode: bool = typer.Option(False, "--json", help="One JSON object per event (newline-delimited), then the "
                                   "summary (schema wtc.fanout/1)."),
) -> int:
    """Drive a plan of tasks to the end: each task started, its agent run in its worktree, finished,
    repaired (up to `attempts`), merged; pipelined, at most `--concurrency` agents at once.

    Running it again resumes: merged tasks are skipped, agents that ended are never run again, a
    plan that changed is refused unless --replan. The end consolidates (offline first) and prints
    the report; it never lands. Exit 0 when every task merged, 1 when the lead must act, 130 when
    stopped (Ctrl-C, SIGTERM: run it again to resume)."""
    from ..fanout import FanoutOptions, load, run_fanout
    from ..fanout.summary import render
    from ..fanout.view import view_for

    loaded = load(plan)
    options = FanoutOptions(concurrency=concurrency, max_agents=max_agents, agent_timeout=agent_timeout,
                            replan=replan, offline=offline)
    report = run_fanout(repo, loaded, run, options, view_for(json_mode=json_mode))
    emit(report.to_json(), schema="fanout", json_mode=json_mode, human=lambda: render(report))
    return report.exit_code


@task_app.command("exec", cls=_CommandAfterDashes)
def task_exec(
    ctx: typer.Context,
    task: Optional[str] = WorktreeTaskArgument,
    command: Optional[List[str]] = typer.Argument(None, metavar="-- CMD [ARGS]...",
                                                  help="The command to run in the task's worktree, after --."),
    run: Optional[str] = WorktreeRunOption,
    own: List[str] = typer.Option([], "--own", help="Glob the task may change (repeatable; default: what `wtc "
                                   "plan` gives TASK, else default-boundary, else everything)."),
    read: List[str] = typer.Option([], "--read", help="Glob the task reads (repeatable)."),
    sparse: bool = typer.Option(False, "--sparse", help="Check out only own/read folders plus root files."),
    timeout: Optional[float] = typer.Option(None, "--timeout", min=0.001,
                                            help="Seconds the command may run (default: no limit)."),
    message: Optional[str] = typer.Option(None, "--message", "-m", help="Commit message of the finish."),
    verify: Optional[str] = typer.Option(None, "--verify", help="Shell command the merge candidate must pass first."),
    no_finish: bool = typer.Option(False, "--no-finish", help="Run CMD and leave the task live: exit with CMD's own "
                                   "code (124 at --timeout). The wrapper for a command an agent runs while it works "
                                   "(its tests), with the task's environment and network."),
    repo: str = RepoOption,
    json_mode: bool = JsonOption,
) -> int:
    """Start (or resume) TASK, run CMD in its worktree, finish it: exit with the finish's code.

    `wtc task exec TASK --run ID [--own GLOB...] -- CMD ARGS...`. CMD runs in its own process group
    with the task's environment (WTC_RUN, WTC_TASK, WTC_WORKTREE, its ports) and the run's network
    (by default a namespace of its own: its own 127.0.0.1); its output goes to the terminal (to
    stderr under --json). A CMD that fails or times out finishes nothing (exit 1, the task stays
    live); a task that already merged runs nothing (exit 0). With --no-finish nothing is finished
    and the exit code is CMD's. Inside a task's worktree TASK and --run are its own: `wtc task exec
    -- CMD ARGS...`."""
    task, command = _task_and_command(ctx, task, list(command or []))
    if not command:
        raise UsageError("missing the command to run: give it after --",
                         fix="wtc task exec TASK --run RUN -- CMD ARGS... (inside the task's worktree: wtc task exec "
                             "-- CMD ARGS...)")
    task, run = fastcli.task_and_run("exec", task, run, repo)
    from ..fanout import exec_task

    result = exec_task(repo, run, task, command, own=own, read=read, sparse=sparse, timeout=timeout,
                       message=message, verify=verify, output=_stderr_descriptor() if json_mode else None,
                       finish=not no_finish)
    emit(result.to_json(), schema="task.exec", json_mode=json_mode, human=lambda: _exec_text(result))
    return result.exit_code


def _task_and_command(ctx: typer.Context, task: str | None, command: list[str]) -> tuple[str | None, list[str]]:
    """TASK (None: not given) and CMD as the words were given: a word click took for TASK from
    after `--` is the command's first."""
    after: Any = ctx.meta.get("wtc.after_dashes")
    if after is not None and task is not None and [task, *command] == after:
        return None, after
    return task, command


def _stderr_descriptor() -> int:
    """Where CMD's output goes under --json (stdout holds the one JSON object): this process's stderr,
    or descriptor 2 when sys.stderr is not a file (wtc called in-process, its streams captured)."""
    try:
        return sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):   # io.UnsupportedOperation is both of the last two
        return 2


def _exec_text(result: object) -> str:
    from ..results import TaskFinished
    from ..output import render

    lines = []
    start = result.start  # type: ignore[attr-defined]
    command = result.command  # type: ignore[attr-defined]
    finish = result.finish  # type: ignore[attr-defined]
    lines.append(f"task {start['task']}: " + (f"{start['state']} (it existed before)" if start.get("existing")
                                                 else "started") + (f", worktree {start['worktree']}"
                                                                    if start.get("worktree") else ""))
    if command is not None:
        how = "stopped at its timeout" if command["timed_out"] else f"exit {command['exit_code']}"
        lines.append(f"$ {shlex.join(command['argv'])}: {how} after {command['seconds']} s")
    if finish is not None:
        lines.append(render.task_finished(TaskFinished.from_json(finish)))
    lines += [f"note: {note}" for note in result.notes]  # type: ignore[attr-defined]
    return "\n".join(lines)
