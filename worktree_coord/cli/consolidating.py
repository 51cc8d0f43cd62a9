"""`wtc consolidate` and `wtc intent add|list|retry|drop`: reserved-file changes as intents, applied
in one phase, and the lead's handles on the ones that did not apply."""

from __future__ import annotations

from typing import Optional

import typer

from . import app
from .common import (JsonOption, KeyOption, RepoOption, RunOption, WorktreeRunOption, WorktreeTaskArgument,
                     open_coordinator)
from ..output.tagging import emit
from ..output import render

intent_app = typer.Typer(help="Intents: structured changes to reserved manifests and lockfiles.", no_args_is_help=True)
app.add_typer(intent_app, name="intent")


@app.command("consolidate")
def consolidate(
    run: str = RunOption,
    offline: bool = typer.Option(True, "--offline/--online", help="Relock from caches only (default), or allow the network."),
    retry_failed: bool = typer.Option(False, "--retry-failed", help="Take up again intents that ended failed, "
                                      "conflict, rejected or needs_network (after fixing the cause)."),
    key: Optional[str] = KeyOption,
    repo: str = RepoOption,
    json_mode: bool = JsonOption,
) -> int:
    """Apply merged tasks' intents in dependency order, relock, verify, one commit per ecosystem root.

    Exit 0 only when every intent of the run is applied; otherwise 1, and `skipped` lists each
    intent left unapplied with why and what to do."""
    with open_coordinator(repo, progress="consolidate", json_mode=json_mode) as coordinator:
        result = coordinator.consolidate(run, offline=offline, retry_failed=retry_failed, key=key)
    emit(result.to_json(), schema="consolidate", json_mode=json_mode, human=render.consolidation_report(result))
    return result.exit_code


@intent_app.command("add")
def intent_add(
    task: Optional[str] = WorktreeTaskArgument,
    run: Optional[str] = WorktreeRunOption,
    manifest: str = typer.Option(..., "--manifest", help="Reserved manifest, e.g. package.json or Cargo.toml."),
    op: str = typer.Option(..., "--op", help="add_dep, remove_dep, set_spec, bump_version, add_member, remove_member, set_override, remove_override, set_runtime, set_key, remove_key, relock (set_key/remove_key: any other key of a root package.json, Cargo.toml or pyproject.toml, --name as a dotted path like workspace.lints.clippy.todo, --spec its value as JSON or a plain string)."),
    name: str = typer.Option(..., "--name", help="Dependency, member or key name (a dotted key path for set_key/remove_key)."),
    spec: Optional[str] = typer.Option(None, "--spec", help="Version range or value."),
    group: Optional[str] = typer.Option(None, "--group", help="Dependency group (default: the manifest's main one; pyproject.toml: optional:NAME, "
                                      "group:NAME, or a bare NAME the manifest has)."),
    profile: Optional[str] = typer.Option(None, "--profile", help="pom.xml: the id of the Maven profile the place is in "
                                          "(add_dep/set_spec/remove_dep: a dependency of the profile, --name "
                                          "GROUP:ARTIFACT; set_key/remove_key: --name a key inside it, e.g. "
                                          "build.plugins.\"G:A\")."),
    rationale: str = typer.Option("", "--why", help="Why the task needs it."),
    key: Optional[str] = KeyOption,
    repo: str = RepoOption,
    json_mode: bool = JsonOption,
) -> int:
    """Declare an intent for a task instead of editing a reserved file.

    Declaring again for the same task, manifest, group and name supersedes the earlier intent
    (kept in `wtc intent list` as superseded, pointing at the new id)."""
    from .. import fastcli

    task, run = fastcli.task_and_run("intent add", task, run, repo)   # inside a task's worktree: its own
    with open_coordinator(repo) as coordinator:
        intent = coordinator.add_intent(run, task, manifest=manifest, op=op, name=name, spec=spec, group=group,
                                        rationale=rationale, key=key, profile=profile)
    emit({"intent": intent}, schema="intent.add", json_mode=json_mode, human=render.intent_added(intent, run),
         exit_code=0)
    return 0


@intent_app.command("list")
def intent_list(
    run: str = RunOption,
    repo: str = RepoOption,
    json_mode: bool = JsonOption,
) -> int:
    """The run's intents with their states."""
    with open_coordinator(repo) as coordinator:
        rows = coordinator.intents(run)
    emit({"intents": rows}, schema="intent.list", json_mode=json_mode, human=render.intent_list(rows), exit_code=0)
    return 0


@intent_app.command("retry")
def intent_retry(
    intent: str = typer.Argument(..., help="Intent id (see `wtc intent list`)."),
    run: str = RunOption,
    key: Optional[str] = KeyOption,
    repo: str = RepoOption,
    json_mode: bool = JsonOption,
) -> int:
    """Take an intent that ended failed, conflict, rejected or needs_network up again at the next consolidate."""
    with open_coordinator(repo) as coordinator:
        row = coordinator.retry_intent(run, intent, key=key)
    emit({"intent": row}, schema="intent.retry", json_mode=json_mode, human=render.intent_retried(row, intent, run),
         exit_code=0)
    return 0


@intent_app.command("drop")
def intent_drop(
    intent: str = typer.Argument(..., help="Intent id (see `wtc intent list`)."),
    run: str = RunOption,
    reason: str = typer.Option("", "--why", help="Why it is given up (kept with the intent)."),
    key: Optional[str] = KeyOption,
    repo: str = RepoOption,
    json_mode: bool = JsonOption,
) -> int:
    """Give an intent up: kept as dropped, never applied, no longer a leftover for land."""
    with open_coordinator(repo) as coordinator:
        row = coordinator.drop_intent(run, intent, reason=reason, key=key)
    emit({"intent": row}, schema="intent.drop", json_mode=json_mode, human=render.intent_dropped(row, intent),
         exit_code=0)
    return 0
