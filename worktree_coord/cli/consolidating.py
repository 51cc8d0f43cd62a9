"""`wtc consolidate` and `wtc intent add|list`: reserved-file changes as intents, applied in one phase."""

from __future__ import annotations

from typing import Optional

import typer

from . import app
from .common import JsonOption, KeyOption, RepoOption, RunOption, open_coordinator
from .output import emit

intent_app = typer.Typer(help="Intents: structured changes to reserved manifests and lockfiles.", no_args_is_help=True)
app.add_typer(intent_app, name="intent")


@app.command("consolidate")
def consolidate(
    run: str = RunOption,
    offline: bool = typer.Option(True, "--offline/--online", help="Relock from caches only (default), or allow the network."),
    key: Optional[str] = KeyOption,
    repo: str = RepoOption,
    json_mode: bool = JsonOption,
) -> int:
    """Apply merged tasks' intents in dependency order, relock, verify, one commit per ecosystem root."""
    with open_coordinator(repo, progress="consolidate", json_mode=json_mode) as coordinator:
        result = coordinator.consolidate(run, offline=offline, key=key)
    emit(result.to_json(), schema="consolidate", json_mode=json_mode, human=_render(result))
    return result.exit_code


def _render(result) -> str:  # type: ignore[no-untyped-def]
    lines = [f"run {result.run}: consolidation {'offline' if result.offline else 'online'}"]
    if not result.roots:
        lines.append("  nothing pending" + (f" ({len(result.waiting)} intent(s) wait for their tasks to merge)"
                                           if result.waiting else ""))
    for root in result.roots:
        where = root["root"] or "."
        commit = f" commit {root['commit'][:12]}" if root.get("commit") else ""
        lines.append(f"  {root['ecosystem']:<9} {where:<20} {root['state']}{commit}")
        for change in root.get("applied", []):
            intent = change["intent"]
            spec = f" {intent['spec']}" if intent.get("spec") and intent['spec'] != intent['name'] else ""
            lines.append(f"      applied {intent['op']} {intent['name']}{spec} in {intent['manifest']} "
                         f"(from {', '.join(change['tasks'])})")
        for path in root["files_changed"]:
            lines.append(f"      changed {path}")
        for conflict in root["conflicts"]:
            lines.append(f"      conflict: {conflict['message']}")
        for culprit in root["culprits"]:
            lines.append(f"      rejected ({', '.join(culprit['tasks'])}): {culprit['reason']}")
        for warning in root["warnings"]:
            lines.append(f"      warning: {warning}")
        if root.get("error"):
            lines.append(f"      error: {root['error'].get('message')}")
    return "\n".join(lines)


@intent_app.command("add")
def intent_add(
    task: str = typer.Argument(..., help="Task id."),
    run: str = RunOption,
    manifest: str = typer.Option(..., "--manifest", help="Reserved manifest, e.g. package.json or Cargo.toml."),
    op: str = typer.Option(..., "--op", help="add_dep, remove_dep, set_spec, bump_version, add_member, remove_member, set_override, set_runtime, relock."),
    name: str = typer.Option(..., "--name", help="Dependency, member or key name."),
    spec: Optional[str] = typer.Option(None, "--spec", help="Version range or value."),
    group: Optional[str] = typer.Option(None, "--group", help="Dependency group (default: the manifest's main one)."),
    rationale: str = typer.Option("", "--why", help="Why the task needs it."),
    repo: str = RepoOption,
    json_mode: bool = JsonOption,
) -> int:
    """Declare an intent for a task instead of editing a reserved file."""
    with open_coordinator(repo) as coordinator:
        intent = coordinator.add_intent(run, task, manifest=manifest, op=op, name=name, spec=spec, group=group,
                                        rationale=rationale)
    emit({"intent": intent}, schema="intent.add", json_mode=json_mode,
         human=f"intent {intent['intent_id']} recorded for consolidation")
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
    text = "\n".join(f"{r['state']:<14} {r['intent']}" for r in rows) or "no intents"
    emit({"intents": rows}, schema="intent.list", json_mode=json_mode, human=text)
    return 0


