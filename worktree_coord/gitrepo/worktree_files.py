"""How many files a live task's worktree changes, for `wtc status`, without opening the repository.

Stage: a read-only view's detail. Input: a worktree folder and the ref its changes are measured
against (the run's integration branch). Output: the number of distinct paths the task changed:
committed since the merge base of its HEAD and that ref (DESIGN: a task's own changes), plus those
uncommitted, staged or untracked but not ignored. Two `git` processes, run with
GIT_OPTIONAL_LOCKS=0 so the worktree's index is never written; no pygit2 (status starts fast).
None when the worktree cannot be read (gone, not a git worktree): the caller shows what it recorded.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


def changed_file_count(worktree: str | Path, since_ref: str) -> int | None:
    """Distinct paths changed in `worktree`: committed since merge-base(HEAD, `since_ref`) and not
    committed yet (untracked files count; ignored ones do not)."""
    env = dict(os.environ, GIT_OPTIONAL_LOCKS="0")

    def git(*args: str) -> bytes | None:
        try:
            done = subprocess.run(["git", "-C", str(worktree), *args], capture_output=True, env=env, timeout=60,
                                  stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return done.stdout if done.returncode == 0 else None

    committed = git("diff", "--name-only", "-z", "--no-renames", f"{since_ref}...HEAD", "--")
    listed = git("status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames",
                 "--ignore-submodules=all")
    if committed is None or listed is None:
        return None
    paths = {p for p in committed.split(b"\0") if p}
    paths |= {item[3:] for item in listed.split(b"\0") if len(item) > 3 and not item.endswith(b"/")}
    return len(paths)
