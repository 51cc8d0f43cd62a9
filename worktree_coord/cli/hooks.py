"""`wtc hook claude worktree-create|worktree-remove` (what Claude Code runs) and
`wtc hooks install|uninstall claude` (what a person runs once): a thin face over worktree_coord.hooks.

The hook commands keep Claude Code's contract (hooks/claude.py): on success `worktree-create`
prints only the worktree's path on stdout, everything else goes to stderr; `--json` prints one JSON
object instead, for a person or script checking what a hook would do.
"""

from __future__ import annotations

import enum
import sys
from typing import Optional

import typer

from ..errors import UsageError
from . import app
from .common import JsonOption, RepoOption
from .executable import wtc_executable
from ..output.tagging import emit

hook_app = typer.Typer(help="What an agent harness runs as its hooks (installed by `wtc hooks install`).",
                       no_args_is_help=True)
app.add_typer(hook_app, name="hook")
claude_app = typer.Typer(help="Claude Code's WorktreeCreate and WorktreeRemove hooks.", no_args_is_help=True)
hook_app.add_typer(claude_app, name="claude")

hooks_app = typer.Typer(help="Install wtc as an agent harness's worktree provider.", no_args_is_help=True)
app.add_typer(hooks_app, name="hooks")


StdinTimeoutOption = typer.Option(30.0, "--stdin-timeout", envvar="WTC_HOOK_STDIN_TIMEOUT", min=0.001,
                                  help="Seconds to wait for the whole payload on stdin before failing (exit 2).")


class Scope(str, enum.Enum):
    local = "local"
    project = "project"
    user = "user"


@claude_app.command("worktree-create")
def worktree_create(
    run: Optional[str] = typer.Option(None, "--run", "-r", envvar="WTC_RUN",
                                      help="Run the agents join (default: a run per Claude Code session)."),
    stdin_timeout: float = StdinTimeoutOption,
    json_mode: bool = JsonOption,
) -> int:
    """Read a WorktreeCreate payload on stdin, start the agent's task, print its worktree's path."""
    from ..hooks import claude

    result = claude.worktree_create(sys.stdin.buffer, run=run, timeout=stdin_timeout)
    if json_mode:
        emit(result.to_json(), schema="hook.worktree-create", json_mode=True, human="")
    else:
        sys.stderr.write(claude.describe_created(result))
        sys.stderr.flush()
        sys.stdout.write(result.worktree + "\n")   # the last (and only) line of stdout: the contract
        sys.stdout.flush()
    return 0


@claude_app.command("worktree-remove")
def worktree_remove(stdin_timeout: float = StdinTimeoutOption, json_mode: bool = JsonOption) -> int:
    """Read a WorktreeRemove payload on stdin and finish the worktree's task (commit, check, merge)."""
    from ..hooks import claude

    result = claude.worktree_remove(sys.stdin.buffer, timeout=stdin_timeout)
    if json_mode:
        emit(result.to_json(), schema="hook.worktree-remove", json_mode=True, human="")
    else:
        sys.stderr.write(claude.describe_removed(result))
        sys.stderr.flush()
    return result.exit_code


def _harness(name: str) -> None:
    if name != "claude":
        raise UsageError(f"unknown agent harness {name!r}", fix="use `claude` (Claude Code)")


@hooks_app.command("install")
def hooks_install(
    harness: str = typer.Argument(..., help="The agent harness: claude."),
    scope: Scope = typer.Option(Scope.local, "--scope", help="local: .claude/settings.local.json (this machine, "
                                "not committed; the default, since the hook names this wtc's absolute path); "
                                "project: .claude/settings.json; user: ~/.claude/settings.json."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the change as a unified diff; write nothing."),
    portable: bool = typer.Option(False, "--portable", help="With --scope project: name wtc in a form every machine "
                                  "with the project's layout can run (\"$CLAUDE_PROJECT_DIR\"/.venv/bin/wtc for a wtc "
                                  "in the project's own folder, or `wtc` when the wtc on PATH is this one) instead of "
                                  "this machine's absolute path."),
    repo: str = RepoOption,
    json_mode: bool = JsonOption,
) -> int:
    """Add wtc's WorktreeCreate and WorktreeRemove hooks to Claude Code's settings (idempotent)."""
    from ..hooks import settings

    _harness(harness)
    path, backups = settings.locate(scope.value, repo)
    executable, warnings = _hook_executable(scope, path, portable)
    change = settings.plan_install(scope.value, path, backups, executable)
    if not dry_run:
        settings.apply(change)
        if scope is Scope.local and change.after is not None:
            _keep_out_of_git(repo, path)
    _emit_change(change, dry_run=dry_run, json_mode=json_mode, schema="hooks.install", warnings=warnings)
    return 0


def _hook_executable(scope: Scope, path, portable: bool) -> tuple[str, list[str]]:  # type: ignore[no-untyped-def]
    """The wtc command the hooks name, and the warnings to give about it: this machine's absolute
    path in the committed project settings works on no other machine."""
    from .executable import portable_executable

    if scope is not Scope.project:
        if portable:
            raise UsageError(f"--portable is for --scope project (the committed settings); --scope {scope.value} is "
                             "this machine's own", fix="drop --portable, or install with --scope project")
        return wtc_executable(), []
    project = path.parent.parent           # <checkout>/.claude/settings.json
    offered = portable_executable(project)
    if portable:
        if offered is None:
            raise UsageError(f"this wtc ({wtc_executable()}) has no portable form: it is neither inside the project "
                             "nor the `wtc` on PATH",
                             fix="install wtc into the project's own virtual environment (e.g. .venv) or onto PATH, "
                                 "or install with --scope local (this machine's settings, not committed)")
        return offered, []
    executable = wtc_executable()
    advice = (f"--portable writes `{offered}` instead" if offered is not None else
              "this wtc has no portable form (neither inside the project nor the `wtc` on PATH): --scope local "
              "(the default) keeps the hooks in this machine's settings, not committed")
    return executable, [f"{path} is committed with the project, and the hooks name this machine's {executable}, "
                        f"which other machines' Claude Code cannot run; {advice}"]


@hooks_app.command("uninstall")
def hooks_uninstall(
    harness: str = typer.Argument(..., help="The agent harness: claude."),
    scope: Scope = typer.Option(Scope.local, "--scope", help="The settings file install wrote (see install)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the change as a unified diff; write nothing."),
    repo: str = RepoOption,
    json_mode: bool = JsonOption,
) -> int:
    """Take wtc's hooks out of Claude Code's settings: byte for byte as before install when nothing else changed."""
    from ..hooks import settings

    _harness(harness)
    path, backups = settings.locate(scope.value, repo)
    change = settings.plan_uninstall(scope.value, path, backups)
    if not dry_run:
        settings.apply(change)
    _emit_change(change, dry_run=dry_run, json_mode=json_mode, schema="hooks.uninstall")
    return 0


def _emit_change(change, *, dry_run: bool, json_mode: bool, schema: str,  # type: ignore[no-untyped-def]
                 warnings: list[str] | None = None) -> None:
    if warnings and not json_mode:
        sys.stderr.write("".join(f"wtc: warning: {warning}\n" for warning in warnings))
        sys.stderr.flush()

    def human() -> str:
        verb = "would change" if dry_run and change.changed else ("changed" if change.changed else "unchanged:")
        lines = [f"{change.path} {verb}"] + [f"  {action}" for action in change.actions]
        if dry_run and change.changed:
            lines.append(change.diff().rstrip("\n"))
        return "\n".join(lines)

    emit(change.to_json() | {"dry_run": dry_run} | ({"warnings": warnings} if warnings is not None else {}),
         schema=schema, json_mode=json_mode, human=human)


def _keep_out_of_git(repo: str, path) -> None:  # type: ignore[no-untyped-def]
    """settings.local.json is this machine's: keep it out of `git status` (Claude Code does the same)."""
    from ..gitrepo import GitRepo

    git = GitRepo(repo)
    if git.toplevel is None:
        return
    rel = path.relative_to(git.toplevel).as_posix()
    if rel in git.ignored([rel]):
        return
    if not git.repo.head_is_unborn and git.path_in_tree(git.resolve_commit("HEAD"), rel):
        return  # the project commits it: its choice
    git.ensure_excluded([f"/{rel}"], "worktree_coord: Claude Code's local settings (wtc hooks install)")
