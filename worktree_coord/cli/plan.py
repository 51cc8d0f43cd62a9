"""`wtc plan add|list|remove`: the boundary each agent gets, by agent-name pattern, decided ahead."""

from __future__ import annotations

from typing import List, Optional

import typer

from . import app
from .common import JsonOption, RepoOption, open_coordinator
from ..output.tagging import emit
from ..output import render

plan_app = typer.Typer(help="The plan: which boundary an agent gets, by its name.", no_args_is_help=True)
app.add_typer(plan_app, name="plan")


@plan_app.command("add")
def plan_add(
    pattern: str = typer.Argument(..., help="Agent-name pattern, shell style: 'api-*', 'docs-?'."),
    own: List[str] = typer.Option(..., "--own", help="Glob the agent may change (repeatable)."),
    read: List[str] = typer.Option([], "--read", help="Glob the agent reads (repeatable)."),
    sparse: bool = typer.Option(False, "--sparse", help="Check out only own/read folders plus root files."),
    run: Optional[str] = typer.Option(None, "--run", "-r", help="The run it applies to (default: every run)."),
    repo: str = RepoOption,
    json_mode: bool = JsonOption,
) -> int:
    """Add a rule: agents whose name matches PATTERN get this boundary (first matching rule wins)."""
    with open_coordinator(repo) as coordinator:
        result = coordinator.add_plan_rule(pattern, own, read, sparse=sparse, run_id=run)
    emit(result.to_json(), schema="plan.add", json_mode=json_mode, human=render.plan_rules(result, "added"))
    return result.exit_code


@plan_app.command("list")
def plan_list(
    run: Optional[str] = typer.Option(None, "--run", "-r", help="The rules a run's agents meet, in order "
                                      "(default: every rule)."),
    repo: str = RepoOption,
    json_mode: bool = JsonOption,
) -> int:
    """List the plan's rules in the order they are tried, and the default that follows them."""
    with open_coordinator(repo) as coordinator:
        result = coordinator.plan(run)
    emit(result.to_json(), schema="plan.list", json_mode=json_mode, human=render.plan_rules(result, "list"))
    return result.exit_code


@plan_app.command("remove")
def plan_remove(
    rule: int = typer.Argument(..., help="The rule's number (see `wtc plan list`)."),
    repo: str = RepoOption,
    json_mode: bool = JsonOption,
) -> int:
    """Remove a rule (tasks it already gave a boundary keep theirs)."""
    with open_coordinator(repo) as coordinator:
        result = coordinator.remove_plan_rule(rule)
    emit(result.to_json(), schema="plan.remove", json_mode=json_mode, human=render.plan_rules(result, "removed"))
    return result.exit_code
