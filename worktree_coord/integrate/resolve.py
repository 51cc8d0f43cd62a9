"""The resolver step: content-merge the files git left conflicted, one file at a time.

Stage: conflict resolution. Input: `FileToResolve` records (path and the three versions as bytes;
an absent base is b""). Output: a mapping path -> `FileMerge` (worktree_coord.merge.result), whose
`merged` bytes replace the file in the merged tree when `clean` is True.

`merge_into` takes any callable with that signature as `resolve=`; the merge queue passes
`structured_resolver` below (the structured, declaration-level merger of `worktree_coord.merge`).
`line_resolve` below is the default stand-in: git's own diff3 line merge (the git layer's
`merge_file_diff3`), the same xdiff code libgit2 uses, so a clean result here is exactly git's. It never
invents a resolution: anything git cannot merge comes back `clean=False`, with each conflict block
located (1-based lines in `merged`) and its three versions filled in.
"""

from __future__ import annotations

import tempfile
from typing import Callable, Mapping, Sequence

from ..frozen import value_class
from ..gitrepo.linemerge import merge_file_diff3
from ..merge.result import FileMerge, MergeConflict, Strategy

LABEL_OURS = "integration"
LABEL_BASE = "base"
LABEL_THEIRS = "task"


@value_class
class FileToResolve:
    """One conflicted file offered to a resolver: ours = integration tip, theirs = task."""

    path: str
    base: bytes
    ours: bytes
    theirs: bytes


Resolver = Callable[[Sequence[FileToResolve]], Mapping[str, FileMerge]]


def labelled_resolver(ours: str, theirs: str, base: str = LABEL_BASE) -> Resolver:
    """The structured merge engine (`worktree_coord.merge.merge_file`, loaded on the first conflict)
    as a resolver whose conflict markers name where each side came from: `<<<<<<< {ours}` above the
    merge's "ours" (git's sense: the side merged into), `>>>>>>> {theirs}` below the side merged in.
    Each caller names its own sides, so a block's label always matches its content (a task update
    merges integration into the task: "ours" is the task there, not integration). The semantic
    check is not run file by file here: its callers (the queue, `task update`, `wtc check`) run it
    once over the whole merged tree (merge.check_tree_merge), which sees every file of the merge."""
    labels = (ours, base, theirs)

    def resolve(files: Sequence[FileToResolve]) -> Mapping[str, FileMerge]:
        from ..merge import merge_file

        return {f.path: merge_file(f.base, f.ours, f.theirs, f.path, labels=labels, semantic="off") for f in files}

    return resolve


# The resolver for callers that name no sides: something merged into an integration branch.
structured_resolver = labelled_resolver(LABEL_OURS, LABEL_THEIRS)


def line_resolve(files: Sequence[FileToResolve]) -> dict[str, FileMerge]:
    """diff3 line merge of each file through `git merge-file`; conflicts located, never dropped."""
    out: dict[str, FileMerge] = {}
    with tempfile.TemporaryDirectory(prefix="wtc-merge-file-") as tmp:
        for item in files:
            out[item.path] = _merge_one(item, tmp)
    return out


def _merge_one(item: FileToResolve, scratch: str) -> FileMerge:
    if item.ours == item.theirs:
        return FileMerge(item.ours, True, Strategy.TRIVIAL)
    if item.base == item.ours:
        return FileMerge(item.theirs, True, Strategy.TRIVIAL)
    if item.base == item.theirs:
        return FileMerge(item.ours, True, Strategy.TRIVIAL)
    if any(b"\0" in data[:8000] for data in (item.base, item.ours, item.theirs)):
        # git's own binary test; a line merge of binary data is meaningless.
        return FileMerge(item.ours, False, Strategy.BINARY,
                         (MergeConflict(0, 0, kind="binary"),), notes=("binary file: not merged",))
    done = merge_file_diff3(item.ours, item.base, item.theirs, (LABEL_OURS, LABEL_BASE, LABEL_THEIRS),
                            scratch=scratch)
    if done.failed:
        return FileMerge(item.ours, False, Strategy.LINE, (MergeConflict(0, 0, kind="unmergeable"),),
                         notes=(f"git merge-file failed: {done.stderr}",))
    if done.status == 0:
        return FileMerge(done.merged, True, Strategy.LINE)
    return FileMerge(done.merged, False, Strategy.LINE, tuple(locate_conflicts(done.merged)))


def locate_conflicts(merged: bytes, marker_size: int = 7) -> list[MergeConflict]:
    """Find diff3 conflict blocks in `merged`: 1-based inclusive line range and the three versions."""
    start_mark = b"<" * marker_size
    base_mark = b"|" * marker_size
    mid_mark = b"=" * marker_size
    end_mark = b">" * marker_size
    conflicts = []
    lines = merged.splitlines(keepends=True)
    state = None
    start = 0
    parts: dict[str, list[bytes]] = {}
    for number, line in enumerate(lines, start=1):
        body = line.rstrip(b"\r\n")
        if state is None and body.startswith(start_mark) and (len(body) == marker_size or body[marker_size:marker_size + 1] == b" "):
            state, start, parts = "ours", number, {"ours": [], "base": [], "theirs": []}
        elif state == "ours" and body.startswith(base_mark):
            state = "base"
        elif state in ("ours", "base") and body == mid_mark:
            state = "theirs"
        elif state == "theirs" and body.startswith(end_mark):
            conflicts.append(MergeConflict(
                start, number, kind="content",
                base=b"".join(parts["base"]).decode("utf-8", "replace"),
                ours=b"".join(parts["ours"]).decode("utf-8", "replace"),
                theirs=b"".join(parts["theirs"]).decode("utf-8", "replace"),
            ))
            state = None
        elif state is not None:
            parts[state].append(line)
    return conflicts
