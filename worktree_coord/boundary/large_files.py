"""Files too large to commit: what a task must not merge whatever its boundary says.

Stage: `wtc task finish`, before anything is committed (the worktree's changed and untracked files,
by their size on disk) and for what the agent committed itself (the task's changes, by blob size
from the object database's header, never the blob). Input: the paths or changes, the limit
(`max-file-size` in config.py, default 50 MiB: where GitHub starts warning; it refuses a push holding a file
over 100 MiB), and the size each path has at the commit the task started from. Output: one
violation (`large_file`) per file over the limit, with the way out.

Why at finish: an agent's build output, dataset, core dump or archive that the repository's
.gitignore does not name is committed by `git add -A`; merged, it is in the integration history
for good (landing pushes it, a host refuses the push, every clone downloads it). A file the
repository already tracked over the limit is the project's own choice and is left alone.
"""

from __future__ import annotations

from typing import Callable, Iterable

from ..frozen import value_class

NOTHING_COMMITTED = "nothing was committed"


@value_class
class LargeFile:
    path: str
    size: int

    def violation(self, limit: int, worktree: str | None, *, committed: bool, since: str | None = None) -> dict[str, str]:
        where = f"-C {worktree} " if worktree else ""
        keep = ("if it belongs in the repository, raise max-file-size in [tool.worktree-coord] (or track it "
                "with git LFS)")
        if committed and since:
            # A later commit removing it is not enough: the merge brings in every commit. Folding
            # the task's commits into the index (reset --soft) and unstaging the file drops it from
            # all of them; finish then commits the rest.
            fix = (f"take it out of every commit of the task: `git {where}reset --soft {since[:12]} && git {where}rm -q "
                   f"--cached --ignore-unmatch {self.path}`, name it in .gitignore, and finish again (finish commits the rest); {keep}")
        elif committed:
            fix = f"take it out of the branch's commits and name it in .gitignore; {keep}"
        else:
            # The render reads this ending: the worktree stays, and no commit holds the file.
            fix = (f"name it in .gitignore (a build output, a download, a dump?) or delete it, and finish again; "
                   f"{keep}; {NOTHING_COMMITTED}")
        return {"path": self.path, "rule": "large_file",
                "detail": f"{human_size(self.size)}, over max-file-size ({human_size(limit)}): {fix}"}


def too_large(sizes: Iterable[tuple[str, int | None]], limit: int | None,
              size_at_start: Callable[[str], int | None]) -> list[LargeFile]:
    """The files of `sizes` (path, size; None for a deleted file) over `limit`, except those the
    start commit already held over it. `limit` None or 0: no limit."""
    if not limit:
        return []
    found = []
    for path, size in sizes:
        if size is None or size <= limit:
            continue
        before = size_at_start(path)
        if before is not None and before > limit:
            continue
        found.append(LargeFile(path, size))
    return found


def human_size(size: int) -> str:
    for unit, scale in (("GiB", 1024 ** 3), ("MiB", 1024 ** 2), ("KiB", 1024)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} bytes"
