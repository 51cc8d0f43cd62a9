"""`wtc check`: the CI pre-merge step (boundary, reserved files, dry-run merge) in five formats.

Thin: parses flags, calls `worktree_coord.check.check` (or `check_staged`), renders through `ci/`. Exit codes: 0 clean,
1 merge conflicts or uses left behind of a removed name, 3 boundary violations (3 wins over 1), 2 bad input.
"""

from __future__ import annotations

import enum
from pathlib import Path
from typing import List, Optional

import typer

from ..errors import UsageError
from . import app
from .common import RepoOption
from ..output.tagging import emit


class Format(str, enum.Enum):
    text = "text"
    json = "json"
    junit = "junit"
    sarif = "sarif"
    github = "github"


@app.command("check")
def check(
    base: Optional[str] = typer.Option(None, "--base", help="Compare from REV (default: merge base of head and target)."),
    head: Optional[str] = typer.Option(None, "--head", help="Commit to check (default: HEAD, or the task's branch)."),
    target: Optional[str] = typer.Option(None, "--target", help="Branch the head would merge into (default: the "
                                         "branch's upstream when it tracks another branch, else the default branch: "
                                         "origin/HEAD, else main or master, the local one when origin's is behind "
                                         "the branch's base; the output says which; the run's integration branch "
                                         "with --run/--task)."),
    own: List[str] = typer.Option([], "--own", help="Glob the branch may change (repeatable); overrides other boundaries."),
    read: List[str] = typer.Option([], "--read", help="Glob the branch reads (repeatable)."),
    run: Optional[str] = typer.Option(None, "--run", "-r", help="Run id: take the boundary of --task from the store."),
    task: Optional[str] = typer.Option(None, "--task", help="Task id (with --run)."),
    manifest: Optional[str] = typer.Option(None, "--manifest", help="Boundary manifest: a path in the repository "
                                           "(its copy at the merge base governs, else the branch's), else a file on "
                                           "disk (default: .wtc-boundary.toml)."),
    output_format: Format = typer.Option(Format.text, "--format", "-f", help="Output format.", case_sensitive=False),
    output_file: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the report to FILE; print the "
                                               "text summary on stdout."),
    staged: bool = typer.Option(False, "--staged", help="Check what is staged against HEAD (boundary, reserved "
                                "files, uses left behind; no merge; the pre-commit hook)."),
    merge: bool = typer.Option(True, "--merge/--no-merge", help="Run the dry-run merge into the target (default)."),
    semantic: Optional[str] = typer.Option(None, "--semantic", metavar="block|warn|off",
                                           help="After a clean dry-run merge, a name one side removed that the other "
                                                "side's new code uses: an error (block), a warning (warn), or not "
                                                "checked (off). Default: the target's semantic-check, else block."),
    left_behind: Optional[str] = typer.Option(None, "--left-behind", metavar="block|warn|off",
                                              help="A name the branch removed or renamed that code it did not "
                                                   "change still uses: an error (block), a warning (warn), or not "
                                                   "looked for (off). Default: the target's left-behind, else block."),
    repo: str = RepoOption,
    json_mode: bool = typer.Option(False, "--json", help="Same as --format json."),
) -> int:
    """Check a branch before it merges: boundary, reserved files, dry-run structured merge, uses left behind."""
    from ..ci import check as run_check
    from ..ci import check_staged, render
    from ..output.progress import reporter_for

    if staged and (base or head or target or run or task):
        raise UsageError("--staged checks the index against HEAD; it takes no --base/--head/--target/--run/--task",
                         fix="drop those flags, or drop --staged")
    fmt = Format.json if json_mode else output_format
    if staged:
        report = check_staged(repo, own=own, read=read, manifest=manifest, left_behind=left_behind)
    else:
        with reporter_for(json_mode=fmt is not Format.text or output_file is not None, label="check") as reporter:
            report = run_check(repo, head=head, base=base, target=target, own=own, read=read, run=run, task=task,
                               manifest=manifest, merge=merge, reporter=reporter, semantic=semantic,
                               left_behind=left_behind)
    if output_file is not None:
        output_file.parent.mkdir(parents=True, exist_ok=True)
        output_file.write_text(render(report, fmt.value) + "\n")
        emit(report.to_json(), schema="check", json_mode=json_mode, human=render(report, "text"))
    elif fmt is Format.json:
        emit(report.to_json(), schema="check", json_mode=True, human="")
    else:
        emit({}, schema="check", json_mode=False, human=render(report, fmt.value))
    return report.exit_code
