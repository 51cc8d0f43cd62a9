"""`wtc run start`: pin a commit and create the run's integration branch."""

from __future__ import annotations

from typing import Optional

import typer

from . import app
from .common import JsonOption, KeyOption, RepoOption, open_coordinator
from ..output.tagging import emit
from ..errors import UsageError
from ..output import render

run_app = typer.Typer(help="Runs: one fan-out off one pinned commit.", no_args_is_help=True)
app.add_typer(run_app, name="run")


@run_app.command("start")
def run_start(
    run_id: Optional[str] = typer.Argument(None, metavar="RUN", show_default=False,
                                          help="Run id, as `wtc task start TASK` takes its task (or --run)."),
    run: Optional[str] = typer.Option(None, "--run", "-r", help="Run id (default: generated)."),
    base: str = typer.Option("HEAD", "--base", help="Revision to pin (default HEAD)."),
    verify: Optional[str] = typer.Option(None, "--verify", help="Shell command every merge candidate must pass before integration moves."),
    semantic: Optional[str] = typer.Option(None, "--semantic", metavar="block|warn|off",
                                           help="What a semantic finding (a name one side removed that the other side's new code uses) does to this run's merges: block (a conflict), warn, or off. Default: semantic-check as committed at the pinned commit, else block."),
    left_behind: Optional[str] = typer.Option(None, "--left-behind", metavar="block|warn|off",
                                              help="What a use the landed tree keeps of a name a task removed or renamed (in code no task changed) does to that task's merge and to landing: block (a conflict of kind left_behind; land refuses unless approved by name), warn, or off. Default: left-behind as committed at the pinned commit, else block."),
    network: Optional[str] = typer.Option(None, "--network", metavar="isolated|shared",
                                          help="The network of the commands wtc starts for this run's tasks (the verify command, worktree-setup.run, wtc task exec; fanout's agents only when their plan asks network = 'isolated'): isolated (a network namespace each, its own loopback: two tasks' servers can bind 127.0.0.1:8000 at once; nothing outside is reachable) or shared (the host's). Default: the configuration's network, else isolated where the machine supports it."),
    remote: Optional[str] = typer.Option(None, "--remote", metavar="NAME",
                                         help="A git remote of this clone that holds the integration branch: a run across machines (docs/multi-machine.md)."),
    key: Optional[str] = KeyOption,
    repo: str = RepoOption,
    json_mode: bool = JsonOption,
) -> int:
    """Pin BASE and create the integration branch wtc/<run>/integration at it (on REMOTE with --remote).

    The run id is RUN or --run (both: the same id); neither: a generated one."""
    run = _one_run_id(run_id, run)
    with open_coordinator(repo) as coordinator:
        result = coordinator.start_run(run, base, verify=verify, semantic=semantic, remote=remote,
                                       left_behind=left_behind, network=network, key=key)
    emit(result.to_json(), schema="run.start", json_mode=json_mode, human=render.run_started(result))
    return result.exit_code


def _one_run_id(positional: Optional[str], option: Optional[str]) -> Optional[str]:
    """The run id given as RUN or as --run; both given must name the same run."""
    if positional is not None and option is not None and positional != option:
        raise UsageError(f"two run ids given: {positional!r} (the argument) and {option!r} (--run)",
                         fix=f"give the run id once: wtc run start {positional} (or --run {option})")
    return positional if positional is not None else option
