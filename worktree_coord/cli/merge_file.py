"""`wtc merge-file` (one file, structured three-way merge) and `wtc driver install` (git merge driver).

Thin face over `worktree_coord.merge.merge_file`: reads three files, writes the result (stdout,
`--output F`, or into LEFT with `--git`, as git's merge driver contract asks), exits 0 when clean,
1 when conflicts remain (a semantic finding included, under `--semantic block`, the default), 2 on
bad input. A semantic finding (a name one side removed that the other side's new lines use) adds no
markers: it is reported on stderr (and in `--json`), the merged bytes are written as merged. In a
language whose folders are packages (Go) a name gone from this file may live on in another file of
its package: with `--path`, inside a repository, those files are read (`PackageReader`: the working
tree's and the merged-in commit's); standalone nothing can tell, and the use is reported all the
same, with a note (never a clean merge nobody checked).

Conflict markers carry labels like `git merge-file -L ours -L base -L theirs`: the block under
`<<<<<<<` is LEFT (git's "ours": the side being merged into). They are written in diff3 style (the
base section shown) unless `--conflict-style` says otherwise; as a driver, in the style of the
repository's `merge.conflictStyle`, as git writes its own (none set: git's default, `merge`, no
base section). As a driver, git passes its own labels (`%X %S %Y`, git 2.44 and later) and the path (`%P`); an older git leaves the placeholders
unexpanded, and then the labels are read from the repository (HEAD's branch, MERGE_HEAD's name).
The driver line names the absolute path of the `wtc` that installed it, so git finds it without a
venv on PATH.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Optional

import typer

from .. import merge_file_command as merge_file_body
from ..errors import EXIT_OK, GitError, NotFoundError, UsageError
from ..merge_file_command import PackageReader, merged_fields  # noqa: F401  (where they were; the body lives there)
from . import app
from ..output.tagging import emit

DRIVER_NAME = "wtc"
DRIVER_ARGUMENTS = "merge-file %O %A %B --path %P --git --marker-size %L -L %X -L %S -L %Y"


def driver_executable() -> str:
    """How git should start this very wtc (cli/executable.py, shared with `wtc hooks install`)."""
    from .executable import wtc_executable

    return wtc_executable()


def driver_line() -> str:
    """The `merge.wtc.driver` line git runs for a conflicted file."""
    return f"{driver_executable()} {DRIVER_ARGUMENTS}"


# The line as documented (docs/ci.md): the executable is whatever absolute path installed it.
DRIVER_COMMAND = f"/absolute/path/to/wtc {DRIVER_ARGUMENTS}"
_ATTRIBUTES_HEADER = "# worktree_coord structured merge driver (wtc driver install)"


@app.command("merge-file")
def merge_file_command(
    base: str = typer.Argument(..., help="The common ancestor (git's %O)."),
    left: str = typer.Argument(..., help="Ours (git's %A); overwritten with the result under --git."),
    right: str = typer.Argument(..., help="Theirs (git's %B)."),
    path: Optional[str] = typer.Option(None, "--path", help="The file's path in the repository: picks the language, "
                                       "and (run inside the repository, as git runs a driver) where the rest of its "
                                       "package is read for the semantic check (Go: the other files of its folder)."),
    output: Optional[str] = typer.Option(None, "--output", "-o", help="Write the result here instead of stdout."),
    git: bool = typer.Option(False, "--git", help="Act as a git merge driver: write the result into LEFT."),
    marker_size: int = typer.Option(7, "--marker-size", help="Length of conflict markers (git's %L)."),
    label: list[str] = typer.Option([], "--label", "-L", help="Conflict marker labels, as for `git merge-file`: "
                                    "ours (LEFT), then base, then theirs (RIGHT); up to 3."),
    timeout: float = typer.Option(10.0, "--timeout", help="Seconds allowed for the structured merge."),
    conflict_style: Optional[str] = typer.Option(
        None, "--conflict-style", metavar="merge|diff3|zdiff3",
        help="How conflict blocks are written, as git's merge.conflictStyle: merge (no base section), diff3 (the "
             "base section, the default) or zdiff3 (lines both sides share moved out of the block). Under --git "
             "the repository's merge.conflictStyle, unless given here."),
    semantic: str = typer.Option("block", "--semantic", metavar="block|warn|off",
                                 help="A name one side removed that the other side's new lines use: a conflict "
                                      "(block, exit 1), a warning on stderr (warn), or not checked (off)."),
    json_mode: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """Three-way merge of one file; exit 0 clean, 1 conflicts, 2 bad input.

    With --json and no --output/--git, the result's bytes are in the JSON object: `merged` holds
    the text and `encoding` is "utf-8" when they are UTF-8; otherwise (a binary or Latin-1 file)
    `merged` is null, `merged_base64` holds them and `encoding` is "base64" (schema
    wtc.merge-file/1: fields are added within a version; UTF-8 results are as before)."""
    code = merge_file_body.merge_file(base, left, right, path, output, git, marker_size, label, timeout,
                                      conflict_style, semantic, json_mode)
    raise typer.Exit(code)


def _git(args: list[str], cwd: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise GitError(f"git {' '.join(args)} failed: {done.stderr.strip()}",
                       fix="run inside a git repository, or pass --global")
    return done.stdout.strip()


def attribute_patterns() -> list[str]:
    """The .gitattributes patterns for every file the structured merge understands: the language
    profiles' and the appended-to files' (grammars/append/kinds.toml: .gitignore, CODEOWNERS, PO...)."""
    from ..merge.appended.appendable import kinds
    from ..merge.languages.profiles import load_profiles

    patterns: list[str] = []
    for profile in load_profiles():
        patterns.extend(f"*.{extension}" for extension in profile.extensions)
        patterns.extend(profile.filenames)
    for kind in kinds():
        patterns.extend(f"*.{extension}" for extension in kind.extensions)
        patterns.extend((*kind.filenames, *kind.globs))
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
    if not global_:
        _require_repository(repo)
    if global_:
        attributes = _git(["config", "--global", "--get", "core.attributesFile"], cwd) if _has_global_attributes() else ""
        attributes_path = Path(os.path.expanduser(attributes)) if attributes else \
            Path(os.environ.get("XDG_CONFIG_HOME", Path.home() / ".config")) / "git" / "attributes"
    else:
        attributes_path = Path(_git(["rev-parse", "--git-path", "info/attributes"], cwd))
        if not attributes_path.is_absolute():
            attributes_path = Path(cwd) / attributes_path
    command = driver_line()
    _git(["config", *scope, f"merge.{DRIVER_NAME}.name", "worktree_coord structured merge"], cwd)
    _git(["config", *scope, f"merge.{DRIVER_NAME}.driver", command], cwd)
    lines = [f"{pattern} merge={DRIVER_NAME}" for pattern in attribute_patterns()]
    existing = attributes_path.read_text(encoding="utf-8").splitlines() if attributes_path.exists() else []
    missing = [line for line in lines if line not in existing]
    if missing:
        attributes_path.parent.mkdir(parents=True, exist_ok=True)
        block = ([] if _ATTRIBUTES_HEADER in existing else [_ATTRIBUTES_HEADER]) + missing
        text = "\n".join(existing + block) + "\n"
        attributes_path.write_text(text, encoding="utf-8")
    payload = {"driver": command, "scope": "global" if global_ else "repository",
               "attributes": str(attributes_path), "patterns_added": len(missing)}
    emit(payload, schema="driver.install", json_mode=json_mode, exit_code=EXIT_OK,
         human=f"merge driver `{DRIVER_NAME}` installed ({payload['scope']}); "
               f"{len(missing)} attribute line(s) added to {attributes_path}\n"
               f"git will run: {command}")


def _require_repository(repo: str) -> None:
    if not Path(repo).is_dir():
        raise NotFoundError(f"no such folder: {repo}", fix="pass the path of a git repository (--repo PATH)")
    done = subprocess.run(["git", "rev-parse", "--git-dir"], cwd=repo, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise NotFoundError(f"{os.path.abspath(repo)} is not inside a git repository",
                            fix="run inside a repository, pass --repo PATH, or install for every repository with --global")


def _has_global_attributes() -> bool:
    done = subprocess.run(["git", "config", "--global", "--get", "core.attributesFile"], capture_output=True, check=False)
    return done.returncode == 0
