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

import base64
import os
import subprocess
import sys
from pathlib import Path
from typing import Optional

import typer

from ..errors import EXIT_CONFLICT, EXIT_OK, GitError, NotFoundError, UsageError
from ..merge.result import SemanticMode, problem_words
from . import app
from ..output.tagging import emit

DRIVER_NAME = "wtc"
DRIVER_ARGUMENTS = "merge-file %O %A %B --path %P --git --marker-size %L -L %X -L %S -L %Y"
_UNEXPANDED = frozenset({"%X", "%S", "%Y", ""})   # what a git older than 2.44 passes for the labels


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
    if len(label) > 3:
        raise UsageError("at most three --label values (ours, base, theirs)", fix="drop the extra --label")
    if not 1 <= marker_size <= 100:
        raise UsageError(f"--marker-size {marker_size} is out of range", fix="use a size between 1 and 100")
    if git and output:
        raise UsageError("--git and --output both say where to write", fix="use one of them")
    from ..merge import merge_file as merge_one  # loaded per call: git runs this once per conflicted file

    style = _conflict_style(conflict_style, git)
    labels = _labels(label, git)
    data = [_read(base, "BASE"), _read(left, "LEFT"), _read(right, "RIGHT")]
    mode = SemanticMode.parse(semantic)
    result = merge_one(data[0], data[1], data[2], path or left, marker_size=marker_size,
                       labels=labels, timeout=timeout, semantic=mode, conflict_style=style,  # type: ignore[arg-type]
                       package_files=PackageReader() if path else None)
    target = left if git else output
    if target:
        Path(target).write_bytes(result.merged)
    payload = result.to_json()
    payload["path"] = path or left
    payload["labels"] = {"ours": labels[0], "base": labels[1], "theirs": labels[2]}
    if target:
        payload["output"] = target
    if json_mode:
        if not target:
            payload.update(merged_fields(result.merged))
        emit(payload, schema="merge-file", json_mode=True, human="",
             exit_code=EXIT_OK if result.clean else EXIT_CONFLICT)
    elif not target:
        sys.stdout.buffer.write(result.merged)
        sys.stdout.flush()
    marked = [c for c in result.conflicts if c.finding is None]
    if not json_mode and marked:
        places = ", ".join(c.place for c in marked)
        sys.stderr.write(f"wtc merge-file: {len(marked)} conflict(s) in {path or left}: {places}\n")
        for note in result.notes:   # why the structured merge kept these conflicts (a guard, a fallback)
            sys.stderr.write(f"wtc merge-file: why: {note}\n")
    if not json_mode:
        for finding in result.semantic:
            what = "semantic conflict" if mode is SemanticMode.BLOCK else "semantic warning"
            sys.stderr.write(f"wtc merge-file: {what}: {finding.message}\n")
        if result.semantic and not marked:
            for note in result.notes:   # e.g. a package whose other files were not read
                sys.stderr.write(f"wtc merge-file: note: {note}\n")
        fixes = dict.fromkeys(problem_words(finding.problem).fix for finding in result.semantic)
        if fixes:
            sys.stderr.write(f"wtc merge-file: fix: {', '.join(fixes)}\n")
    raise typer.Exit(EXIT_OK if result.clean else EXIT_CONFLICT)


class PackageReader:
    """The other files of the merged file's package (Go: its folder), read from the repository the
    command runs in (git runs a driver at the repository's top; `--path` is repository-relative):
    the working tree's (ours, and any edit), and, while git merges, cherry-picks, reverts or
    rebases, the other commit's (theirs: a file it moved the name into). Called only when the
    semantic check needs it (a package-wide name one side removed and the other side's new lines
    use), so a driver call pays nothing otherwise. None outside a repository: the check then
    cannot tell and reports the use (merge/checks/semantic.PackageFiles)."""

    def __call__(self, path: str) -> list[tuple[str, bytes]] | None:
        top = _ask_git("rev-parse", "--show-toplevel")
        if not top or os.path.isabs(path) or path.startswith("../"):
            return None
        folder, suffix = os.path.dirname(path), os.path.splitext(path)[1]
        found: list[tuple[str, bytes]] = []
        here = Path(top) / folder
        for entry in sorted(here.iterdir()) if here.is_dir() else ():
            if entry.suffix == suffix and entry.is_file():
                found.append(((f"{folder}/" if folder else "") + entry.name, entry.read_bytes()))
        theirs = _merging_commit()
        if theirs:
            found.extend(_files_at(theirs, folder, suffix))
        return found


def _ask_git(*args: str) -> str:
    done = subprocess.run(["git", *args], capture_output=True, text=True, check=False)
    return done.stdout.strip() if done.returncode == 0 else ""


def _merging_commit() -> str:
    """The commit git is applying while it runs the driver: "" when none is known. `git merge`
    names it in GITHEAD_<sha>; a rebase lists it last in rebase-merge/done (REBASE_HEAD and
    CHERRY_PICK_HEAD are written only after the merge stopped: read for a run by hand then). A
    single `git cherry-pick` or `revert` leaves no trace of it while it merges: only the working
    tree is read, and a name its commit moved to another file is reported (the safe side)."""
    named = [key[len("GITHEAD_"):] for key in os.environ if key.startswith("GITHEAD_")]
    if len(named) == 1:
        return named[0]
    done = _ask_git("rev-parse", "--git-path", "rebase-merge/done")
    try:
        steps = [line.split() for line in Path(done).read_text().splitlines() if line.strip()] if done else []
    except OSError:
        steps = []
    if steps and len(steps[-1]) >= 2 and not steps[-1][0].startswith("#"):
        sha = _ask_git("rev-parse", "-q", "--verify", f"{steps[-1][1]}^{{commit}}")
        if sha:
            return sha
    for head in ("MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "REBASE_HEAD"):
        sha = _ask_git("rev-parse", "-q", "--verify", head)
        if sha:
            return sha
    return ""


def _files_at(commit: str, folder: str, suffix: str) -> list[tuple[str, bytes]]:
    """The files of `folder` with `suffix` at `commit` (path, bytes), read in one `git cat-file`."""
    listed = subprocess.run(["git", "ls-tree", "-z", commit, "--", f"{folder}/" if folder else "."],
                            capture_output=True, check=False)
    if listed.returncode != 0:
        return []
    blobs = []
    for entry in listed.stdout.split(b"\0"):
        meta, _, name = entry.partition(b"\t")
        parts = meta.split()
        if len(parts) == 3 and parts[1] == b"blob" and name.decode("utf-8", "surrogateescape").endswith(suffix):
            blobs.append((name.decode("utf-8", "surrogateescape"), parts[2].decode()))
    if not blobs:
        return []
    read = subprocess.run(["git", "cat-file", "--batch"], input="".join(f"{oid}\n" for _, oid in blobs).encode(),
                          capture_output=True, check=False)
    out, data = [], read.stdout
    for name, _ in blobs:
        header, _, data = data.partition(b"\n")   # "<oid> blob <size>", or "<oid> missing" (no content)
        parts = header.split()
        if len(parts) == 3 and parts[2].isdigit():
            size = int(parts[2])
            out.append((name, data[:size]))
            data = data[size + 1:]
    return out


def merged_fields(merged: bytes) -> dict[str, str | None]:
    """The merged bytes in `--json`, carried faithfully: `merged` is the text when the bytes are
    UTF-8 (`encoding: "utf-8"`); otherwise (a binary or Latin-1 file) `merged` is null and
    `merged_base64` holds them (`encoding: "base64"`). A JSON string holds text, not bytes: decoding
    with replacement turned every byte >= 0x80 of such a file into U+FFFD, silently."""
    try:
        return {"merged": merged.decode("utf-8"), "encoding": "utf-8"}
    except UnicodeDecodeError:
        return {"merged": None, "merged_base64": base64.b64encode(merged).decode("ascii"), "encoding": "base64"}


def _conflict_style(given: str | None, as_driver: bool) -> str:
    """The conflict style asked for; as a git merge driver (git runs it at the repository's top),
    the repository's `merge.conflictStyle` when none is; else diff3 (the base section shown)."""
    from ..merge.lines.markers import STYLES

    if given is not None:
        if given not in STYLES:
            raise UsageError(f"--conflict-style {given!r} is not one of {', '.join(STYLES)}",
                             fix="pass --conflict-style merge, diff3 or zdiff3")
        return given
    if not as_driver:
        return "diff3"
    done = subprocess.run(["git", "config", "--get", "merge.conflictStyle"], capture_output=True, text=True,
                          check=False)
    configured = done.stdout.strip().lower() if done.returncode == 0 else ""
    if configured and configured not in STYLES:
        # git itself refuses such a value before it starts a driver; a newer git may know a style
        # this wtc does not: say so, and keep the markers readable.
        sys.stderr.write(f"wtc merge-file: merge.conflictStyle {configured!r} is not one of {', '.join(STYLES)}; "
                         "writing diff3 markers\n")
        return "diff3"
    return configured or "merge"


def _labels(given: list[str], as_driver: bool) -> tuple[str, str, str]:
    """(ours, base, theirs): the labels given, the defaults for the rest; as a git driver, labels
    git left unexpanded (older git) are read from the repository instead."""
    labels = list(given) + ["ours", "base", "theirs"][len(given):]
    if as_driver and any(label in _UNEXPANDED for label in labels):
        fallback = _repository_labels()
        labels = [fallback[i] if label in _UNEXPANDED else label for i, label in enumerate(labels)]
    return labels[0], labels[1], labels[2]


def _repository_labels() -> tuple[str, str, str]:
    """What git itself would write: HEAD's branch for ours, the name of the commit being merged,
    cherry-picked, reverted or rebased for theirs."""
    def ask(*args: str) -> str:
        done = subprocess.run(["git", *args], capture_output=True, text=True, check=False)
        return done.stdout.strip() if done.returncode == 0 else ""

    ours = ask("symbolic-ref", "--short", "-q", "HEAD") or "HEAD"
    # git names the commit it merges in GITHEAD_<sha> (e.g. GITHEAD_d9508...=feature) for its drivers.
    named = sorted(value for key, value in os.environ.items() if key.startswith("GITHEAD_") and value)
    if len(named) == 1:
        return ours, "base", named[0]
    theirs = "theirs"
    for head in ("MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "REBASE_HEAD"):
        sha = ask("rev-parse", "-q", "--verify", head)
        if sha:
            theirs = ask("name-rev", "--name-only", "--no-undefined", sha) or sha[:12]
            break
    return ours, "base", theirs


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
