"""The body of `wtc merge-file` (one file, structured three-way merge), without typer: git runs it
once per conflicted file as a merge driver, so it is on the quick path (fastcli.py), and the typer
command (cli/merge_file.py, which documents the options and the driver contract) calls it too.

Input: the command's parameters as typer gives them. Output: the merged bytes where asked (stdout,
`--output F`, or into LEFT under `--git`), what conflicts and semantic findings remain on stderr
(or in `--json`), and the exit code: 0 clean, 1 conflicts (a semantic finding included under
`--semantic block`), 2 bad input (a UsageError).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from .errors import EXIT_CONFLICT, EXIT_OK, UsageError

_UNEXPANDED = frozenset({"%X", "%S", "%Y", ""})   # what a git older than 2.44 passes for the labels


def merge_file(base: str, left: str, right: str, path: str | None, output: str | None, git: bool, marker_size: int,
               label: list[str], timeout: float, conflict_style: str | None, semantic: str, json_mode: bool) -> int:
    """`wtc merge-file BASE LEFT RIGHT [...]`: its exit code."""
    if len(label) > 3:
        raise UsageError("at most three --label values (ours, base, theirs)", fix="drop the extra --label")
    if not 1 <= marker_size <= 100:
        raise UsageError(f"--marker-size {marker_size} is out of range", fix="use a size between 1 and 100")
    if git and output:
        raise UsageError("--git and --output both say where to write", fix="use one of them")
    from .merge import merge_file as merge_one  # loaded per call: git runs this once per conflicted file
    from .merge.result import SemanticMode, problem_words
    from .output.tagging import emit

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
    return EXIT_OK if result.clean else EXIT_CONFLICT



def _read(path: str, role: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as error:
        raise UsageError(f"cannot read {role} file {path!r}: {error.strerror or error}",
                         fix=f"pass a readable file as {role}") from error


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
    import subprocess   # git runs only for a driver's labels and style, or a package's files

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
    import subprocess   # git runs only for a driver's labels and style, or a package's files

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
        import base64   # a binary merge under --json only

        return {"merged": None, "merged_base64": base64.b64encode(merged).decode("ascii"), "encoding": "base64"}


def _conflict_style(given: str | None, as_driver: bool) -> str:
    """The conflict style asked for; as a git merge driver (git runs it at the repository's top),
    the repository's `merge.conflictStyle` when none is; else diff3 (the base section shown)."""
    from .merge.lines.markers import STYLES

    if given is not None:
        if given not in STYLES:
            raise UsageError(f"--conflict-style {given!r} is not one of {', '.join(STYLES)}",
                             fix="pass --conflict-style merge, diff3 or zdiff3")
        return given
    if not as_driver:
        return "diff3"
    import subprocess   # git runs only for a driver's labels and style, or a package's files

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
        import subprocess   # git runs only for a driver's labels and style, or a package's files

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
