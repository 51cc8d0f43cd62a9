"""`wtc merge-file` (one file, structured three-way merge) and `wtc driver install` (git merge driver).

Thin face over `worktree_coord.merge.merge_file`: reads three files, writes the result (stdout,
`--output F`, or into LEFT with `--git`, as git's merge driver contract asks), exits 0 when clean,
1 when conflicts remain, 2 on bad input.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Optional

import typer

from ..errors import EXIT_CONFLICT, EXIT_OK, GitError, UsageError
from . import app
from .output import emit

DRIVER_NAME = "wtc"
DRIVER_COMMAND = "wtc merge-file %O %A %B --path %P --git --marker-size %L"
_ATTRIBUTES_HEADER = "# worktree_coord structured merge driver (wtc driver install)"


def _read(path: str, role: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as error:
        raise UsageError(f"cannot read {role} file {path!r}: {error.strerror or error}",
                         fix=f"pass a readable file as {role}") from error


@app.command("merge-file")
def merge_file_command(
    base: str = typer.Argument(..., help="The common ancestor (git's %O)."),
    left: str = typer.Argument(..., help="Ours (git's %A); overwritten with the result under --git."),
    right: str = typer.Argument(..., help="Theirs (git's %B)."),
    path: Optional[str] = typer.Option(None, "--path", help="The file's path in the repository: picks the language."),
    output: Optional[str] = typer.Option(None, "--output", "-o", help="Write the result here instead of stdout."),
    git: bool = typer.Option(False, "--git", help="Act as a git merge driver: write the result into LEFT."),
    marker_size: int = typer.Option(7, "--marker-size", help="Length of conflict markers (git's %L)."),
    label: list[str] = typer.Option([], "--label", "-L", help="Labels: ours, then base, then theirs (up to 3)."),
    timeout: float = typer.Option(10.0, "--timeout", help="Seconds allowed for the structured merge."),
    json_mode: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """Three-way merge of one file; exit 0 clean, 1 conflicts, 2 bad input."""
    if len(label) > 3:
        raise UsageError("at most three --label values (ours, base, theirs)", fix="drop the extra --label")
    if not 1 <= marker_size <= 100:
        raise UsageError(f"--marker-size {marker_size} is out of range", fix="use a size between 1 and 100")
    if git and output:
        raise UsageError("--git and --output both say where to write", fix="use one of them")
    from ..merge import merge_file as merge_one  # loaded per call: git runs this once per conflicted file

    labels = tuple(list(label) + ["ours", "base", "theirs"][len(label):])
    data = [_read(base, "BASE"), _read(left, "LEFT"), _read(right, "RIGHT")]
    result = merge_one(data[0], data[1], data[2], path or left, marker_size=marker_size,
                       labels=labels, timeout=timeout)  # type: ignore[arg-type]
    target = left if git else output
    if target:
        Path(target).write_bytes(result.merged)
    payload = result.to_json()
    payload["path"] = path or left
    if target:
        payload["output"] = target
    if json_mode:
        if not target:
            payload["merged"] = result.merged.decode("utf-8", "replace")
        emit(payload, schema="merge-file", json_mode=True, human="")
    elif not target:
        sys.stdout.buffer.write(result.merged)
        sys.stdout.flush()
    if not json_mode and not result.clean:
        places = ", ".join(f"{c.declaration or 'file'} (lines {c.start_line}-{c.end_line})" for c in result.conflicts)
        sys.stderr.write(f"wtc merge-file: {len(result.conflicts)} conflict(s) in {path or left}: {places}\n")
    raise typer.Exit(EXIT_OK if result.clean else EXIT_CONFLICT)


def _git(args: list[str], cwd: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise GitError(f"git {' '.join(args)} failed: {done.stderr.strip()}",
                       fix="run inside a git repository, or pass --global")
    return done.stdout.strip()


def attribute_patterns() -> list[str]:
    """The .gitattributes patterns for every file the structured merge understands."""
    from ..merge.profiles import load_profiles

    patterns: list[str] = []
    for profile in load_profiles():
        patterns.extend(f"*.{extension}" for extension in profile.extensions)
        patterns.extend(profile.filenames)
    return sorted(dict.fromkeys(patterns))


@app.command("driver")
def driver_command(
    action: str = typer.Argument(..., help="install"),
    global_: bool = typer.Option(False, "--global", help="Install for the user (global git config and attributes)."),
    repo: str = typer.Option(".", "--repo", help="Repository to install into (default: the current directory)."),
    json_mode: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """`wtc driver install`: register `wtc merge-file` as git's merge driver for supported files."""
    if action != "install":
        raise UsageError(f"unknown driver action {action!r}", fix="use `wtc driver install`")
    scope = ["--global"] if global_ else []
    cwd = repo if not global_ else os.getcwd()
    if global_:
        attributes = _git(["config", "--global", "--get", "core.attributesFile"], cwd) if _has_global_attributes() else ""
        attributes_path = Path(os.path.expanduser(attributes)) if attributes else \
            Path(os.environ.get("XDG_CONFIG_HOME", Path.home() / ".config")) / "git" / "attributes"
    else:
        attributes_path = Path(_git(["rev-parse", "--git-path", "info/attributes"], cwd))
        if not attributes_path.is_absolute():
            attributes_path = Path(cwd) / attributes_path
    _git(["config", *scope, f"merge.{DRIVER_NAME}.name", "worktree_coord structured merge"], cwd)
    _git(["config", *scope, f"merge.{DRIVER_NAME}.driver", DRIVER_COMMAND], cwd)
    lines = [f"{pattern} merge={DRIVER_NAME}" for pattern in attribute_patterns()]
    existing = attributes_path.read_text(encoding="utf-8").splitlines() if attributes_path.exists() else []
    missing = [line for line in lines if line not in existing]
    if missing:
        attributes_path.parent.mkdir(parents=True, exist_ok=True)
        block = ([] if _ATTRIBUTES_HEADER in existing else [_ATTRIBUTES_HEADER]) + missing
        text = "\n".join(existing + block) + "\n"
        attributes_path.write_text(text, encoding="utf-8")
    payload = {"driver": DRIVER_COMMAND, "scope": "global" if global_ else "repository",
               "attributes": str(attributes_path), "patterns_added": len(missing)}
    emit(payload, schema="driver.install", json_mode=json_mode,
         human=f"merge driver `{DRIVER_NAME}` installed ({payload['scope']}); "
               f"{len(missing)} attribute line(s) added to {attributes_path}")


def _has_global_attributes() -> bool:
    done = subprocess.run(["git", "config", "--global", "--get", "core.attributesFile"], capture_output=True, check=False)
    return done.returncode == 0
