"""`wtc merge`, `wtc report`, `wtc land`, `wtc sync`: the merge queue's commands."""

from __future__ import annotations

import sys
from typing import Optional

import typer

from ..errors import UsageError
from . import app
from .. import fastcli
from ..output import render
from .common import JsonOption, KeyOption, RepoOption, RunOption, open_coordinator
from ..output.tagging import emit


@app.command("merge")
def merge(
    run: str = RunOption,
    verify: Optional[str] = typer.Option(None, "--verify", help="Shell command each candidate must pass before integration moves."),
    batch: int = typer.Option(1, "--batch", min=1, help="Verify this many tasks at once; a failing batch is bisected."),
    key: Optional[str] = KeyOption,
    repo: str = RepoOption,
    json_mode: bool = JsonOption,
) -> int:
    """Merge every finished, unmerged task (after a crash or `finish --no-merge`); safe to repeat."""
    return fastcli.merge(run, verify, batch, key, repo, json_mode)


@app.command("report")
def report(
    run: str = RunOption,
    onto: Optional[str] = typer.Option(None, "--onto", help="Also say whether this branch can be fast-forwarded."),
    format: str = typer.Option("text", "--format", help="text, json (same as --json) or html: one self-contained "
                               "page with a timeline, the conflict map, consolidation per root and the manifest."),
    repo: str = RepoOption,
    json_mode: bool = JsonOption,
) -> int:
    """The run's change manifest: every path landing changes and where it came from, tasks, intents
    not applied, conflicts, verification results, and what landing now would leave out.

    Exits 0 (it only reads); `leftovers` and `warnings` say what is left and how to finish it.
    `--format html > run.html` writes the same content as one page to open in a browser (no network)."""
    return fastcli.report(run, onto, format, repo, json_mode)


@app.command("land")
def land(
    run: str = RunOption,
    onto: str = typer.Option(..., "--onto", help="Branch to fast-forward to the integration tip."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Approve without asking."),
    allow_partial: bool = typer.Option(False, "--allow-partial", help="Land even though intents are not applied or "
                                       "tasks are not merged; the output lists every leftover."),
    allow_left_behind: list[str] = typer.Option([], "--allow-left-behind", metavar="NAME",
                                                help="Land although the landed tree still uses NAME, which the run "
                                                     "removed or renamed (the report lists them under left behind); "
                                                     "repeat for each name."),
    land_unchecked: bool = typer.Option(False, "--land-unchecked",
                                        help="Land although the look for uses of names the run removed, or for files "
                                             "that no longer parse, gave no answer (the report says NOT CHECKED): "
                                             "they were checked by hand."),
    allow_unparsed: list[str] = typer.Option([], "--allow-unparsed", metavar="PATH",
                                             help="Land although PATH does not parse where the pin's version did "
                                                  "(the report lists it under does not parse), e.g. syntax newer "
                                                  "than wtc's grammar for its language; repeat for each path."),
    key: Optional[str] = KeyOption,
    repo: str = RepoOption,
    json_mode: bool = JsonOption,
) -> int:
    """Show the change manifest, ask for approval, then fast-forward the target by compare-and-swap.

    Refuses (exit 1) while something would be left out (intents not applied, tasks in conflict,
    failed, rejected, started or not merged) unless --allow-partial, and while the landed tree would
    use a name the run removed unless --allow-left-behind NAME, and while a file of the landed tree
    does not parse where the pin's version did unless --allow-unparsed PATH; or a person approves at
    the prompt that names them. Refuses (exit 6) while the look for those uses or files gave no
    answer (the report says NOT CHECKED) unless --land-unchecked, or the prompt that says so is approved.

    A landed run takes no new task (start a new run off the target for more work); the tasks a
    partial land left out still start, finish and merge into the integration branch, and reach the
    target with another land."""
    with open_coordinator(repo) as coordinator:
        manifest = coordinator.report(run, onto=onto)
        approved = yes
        if not yes:
            if json_mode or not sys.stdin.isatty():
                raise UsageError("landing needs approval and there is no terminal to ask",
                                 fix=f"review `wtc report --run {run} --onto {onto}`, then pass --yes")
            sys.stdout.write(render.run_report(manifest) + "\n")
            # The question names the leftovers, the uses left behind and the files that do not parse:
            # approving it approves them.
            allow_partial = allow_partial or bool(manifest.leftovers.get("intents") or manifest.leftovers.get("tasks"))
            allow_left_behind = render.left_behind_names(manifest) or allow_left_behind
            allow_unparsed = render.unparsed_paths(manifest) or allow_unparsed
            land_unchecked = land_unchecked or bool(manifest.left_behind_unchecked or manifest.unparsed_unchecked)
            approved = typer.confirm(render.land_question(manifest, onto), default=False)
            if not approved:
                raise UsageError("landing was not approved", fix="nothing changed; run land again when ready")
        result = coordinator.land(run, onto, approved=approved, allow_partial=allow_partial,
                                  allow_left_behind=allow_left_behind, key=key, land_unchecked=land_unchecked,
                                  allow_unparsed=allow_unparsed, manifest=manifest)
    emit(result.to_json() | {"manifest": manifest.to_json()}, schema="land", json_mode=json_mode,
         human=render.landed(result))
    return result.exit_code


@app.command("sync")
def sync(
    run: str = RunOption,
    source: str = typer.Option(..., "--from", help="Branch to merge into the integration branch (e.g. main)."),
    key: Optional[str] = KeyOption,
    repo: str = RepoOption,
    json_mode: bool = JsonOption,
) -> int:
    """Merge a branch that moved (e.g. main) into the integration branch, so land can fast-forward."""
    with open_coordinator(repo) as coordinator:
        result = coordinator.sync(run, source, key=key)
    emit(result.to_json(), schema="sync", json_mode=json_mode, human=render.merge_report(result))
    return result.exit_code
