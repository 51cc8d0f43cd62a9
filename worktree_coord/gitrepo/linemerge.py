"""git's own diff3 line merge of three byte strings (`git merge-file -p --diff3`).

Stage: line merge of one file's content. Input: ours, base and theirs as bytes and the three labels
the conflict markers carry. Output: a `LineMerge` (git's exit status, the merged bytes with markers
where it conflicts, git's stderr). The same xdiff code libgit2 uses, run as git so a clean result is
exactly git's. What a conflict means (kind, locations, whether a structured merge is tried first)
is the integration engine's business (integrate.resolve).
"""

from __future__ import annotations

import os
import subprocess
import tempfile

from ..frozen import value_class
from .environment import git_environment


@value_class
class LineMerge:
    """`status`: 0 clean, 1..127 the number of conflicts, anything else git failed (see `stderr`)."""

    status: int
    merged: bytes
    stderr: str

    @property
    def failed(self) -> bool:
        return self.status < 0 or self.status > 127


def merge_file_diff3(ours: bytes, base: bytes, theirs: bytes, labels: tuple[str, str, str], *,
                     scratch: str | None = None) -> LineMerge:
    """Three-way line merge; `labels` are (ours, base, theirs). `scratch`: a folder for the three
    temporary files (a caller merging many files passes one folder; default: a fresh one)."""
    if scratch is None:
        with tempfile.TemporaryDirectory(prefix="wtc-merge-file-") as tmp:
            return merge_file_diff3(ours, base, theirs, labels, scratch=tmp)
    fd, stem = tempfile.mkstemp(dir=scratch)
    os.close(fd)
    paths = []
    try:
        for side, data in (("ours", ours), ("base", base), ("theirs", theirs)):
            path = f"{stem}.{side}"
            with open(path, "wb") as fh:
                fh.write(data)
            paths.append(path)
        proc = subprocess.run(
            ["git", "merge-file", "-p", "--diff3", "-L", labels[0], "-L", labels[1], "-L", labels[2], *paths],
            capture_output=True, env=git_environment(),
            cwd=scratch,   # never the caller's folder: it may be a worktree its own finish removed
        )
    finally:
        for path in (stem, *paths):
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass
    return LineMerge(proc.returncode, proc.stdout, proc.stderr.decode("utf-8", "replace").strip())
