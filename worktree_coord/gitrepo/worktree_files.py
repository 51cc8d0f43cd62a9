"""How many files a live task's worktree changes, for `wtc status`, without opening the repository.

Stage: a read-only view's detail. Input: a worktree folder and the ref its changes are measured
against (the run's integration branch). Output: the number of distinct paths the task changed:
committed since the merge base of its HEAD and that ref (DESIGN: a task's own changes), plus those
uncommitted, staged or untracked but not ignored. One `git status` process, and a `git diff` only
when the worktree's HEAD (read from its files) is not the pin (the agent committed, or `task update`
merged): run with GIT_OPTIONAL_LOCKS=0 so the worktree's index is never written; no pygit2 (status
starts fast).
None when the worktree cannot be read (gone, not a git worktree): the caller shows what it recorded.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from .held import write_held


def changed_file_count(worktree: str | Path, since_ref: str, pin: str | None = None) -> int | None:
    """Distinct paths changed in `worktree`: committed since merge-base(HEAD, `since_ref`) and not
    committed yet (untracked files count; ignored ones do not). `pin`: the commit the task started
    from; a worktree still at it has committed nothing (no diff process)."""
    env = dict(os.environ, GIT_OPTIONAL_LOCKS="0")
    write_held()   # held.py: nothing held in a `wtc status`; one list test

    def git(*args: str) -> bytes | None:
        try:
            done = subprocess.run(["git", "-C", str(worktree), *args], capture_output=True, env=env, timeout=60,
                                  stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return done.stdout if done.returncode == 0 else None

    if _merge_open(Path(worktree)):
        # `task update` left its merge of integration open (markers to resolve): what it brought in
        # is staged and is not the task's change; the task's own are what differs from that tip.
        tracked = git("diff", "--name-only", "-z", "--no-renames", "MERGE_HEAD", "--")
        untracked = git("ls-files", "--others", "--exclude-standard", "-z")
        if tracked is None or untracked is None:
            return None
        return len({p for p in (tracked + b"\0" + untracked).split(b"\0") if p})
    committed = b"" if pin is not None and _head(Path(worktree)) == pin else \
        git("diff", "--name-only", "-z", "--no-renames", f"{since_ref}...HEAD", "--")
    listed = git("status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames",
                 "--ignore-submodules=all")
    if committed is None or listed is None:
        return None
    paths = {p for p in committed.split(b"\0") if p}
    paths |= {item[3:] for item in listed.split(b"\0") if len(item) > 3 and not item.endswith(b"/")}
    return len(paths)


def _merge_open(worktree: Path) -> bool:
    """Does the linked worktree hold a merge open (a MERGE_HEAD in its git dir)?"""
    try:
        pointer = (worktree / ".git").read_text().strip()
    except OSError:
        return False
    if not pointer.startswith("gitdir: "):
        return False
    git_dir = Path(pointer[len("gitdir: "):])
    return ((git_dir if git_dir.is_absolute() else worktree / git_dir) / "MERGE_HEAD").is_file()


def _head(worktree: Path) -> str | None:
    """The commit a linked worktree's HEAD names, read from its files (`.git` -> its git dir ->
    HEAD -> the branch's loose ref, else packed-refs); None when any step is not plain."""
    try:
        pointer = (worktree / ".git").read_text().strip()
        if not pointer.startswith("gitdir: "):
            return None
        git_dir = Path(pointer[len("gitdir: "):])
        git_dir = git_dir if git_dir.is_absolute() else (worktree / git_dir)
        head = (git_dir / "HEAD").read_text().strip()
        if not head.startswith("ref: "):
            return head or None
        ref = head[len("ref: "):]
        common = git_dir / (git_dir / "commondir").read_text().strip() if (git_dir / "commondir").is_file() else git_dir
        loose = common / ref
        if loose.is_file():
            return loose.read_text().strip() or None
        packed = common / "packed-refs"
        if packed.is_file():
            for line in packed.read_text().splitlines():
                if line.endswith(" " + ref):
                    return line.split(" ", 1)[0]
    except OSError:
        return None
    return None
