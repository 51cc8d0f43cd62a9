"""The one-line ways out for a file the task did not mean to write, outside its boundary.

Stage: the boundary check's report, at `task check` (before finish) and at `task finish` (after it
committed the worktree). Input: the violations, the changes they came from, the worktree and the
shared exclude file (`<git common dir>/info/exclude`, read by every worktree). Output: each
violation of a file the task *added* outside its `own` globs gets a `fix`: the exact commands to
delete it, or to keep it out of every commit by excluding it. Why: a project's own tests write files
into the worktree (a TLS key log named `test`, a coverage file, a log): the agent did not write
them, finish rejects them as outside the boundary, and the agent must guess what to do. Found by
five agents on one clone of an HTTP library. At finish the file is committed on the task's branch
by then, so the commands take it out of the index too; before finish it is only untracked.
A new file that is a file the task deleted inside its boundary, moved (`git mv lib/only.js
lib/pick.js` with only the first owned), is no stray: deleting it, as the stray's way out says,
would leave the task's new imports of it unanswered (found driving wtc on koajs/koa). Its way out
is the move back, or the lead's widen the finish's note names. A move is what git's own rename
detection pairs (`GitRepo.renames`: the same content, or edited and still half alike).
Invariants: pure (changes and the renames in, strings out); changes nothing but the rows it is given.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

if TYPE_CHECKING:
    from ..gitrepo import Change


def add_stray_file_fixes(violations: list[dict[str, Any]], changes: Iterable[Change], worktree: str | None,
                         exclude_file: Path, *, committed: bool, renames: Callable[[], dict[str, str]]) -> None:
    """Give each `outside_own` violation of a path `changes` added its `fix` (module docstring).
    `committed`: finish has committed the worktree (the file is in the branch's last commit);
    `renames`: old path -> new path of the task's changes by git's rename detection (asked only
    when a new file is outside the boundary)."""
    new = {c.path for c in changes if c.status == "added"}
    if not worktree or not any(row.get("rule") == "outside_own" and row.get("path") in new for row in violations):
        return
    moves = {moved: old for old, moved in renames().items()}
    where = shlex.quote(worktree)
    for row in violations:
        path = row.get("path") or ""
        if row.get("rule") != "outside_own" or path not in new:
            continue
        quoted = shlex.quote(path)
        if path in moves:
            old = moves[path]
            back = (f"git -C {where} mv -- {quoted} {shlex.quote(old)}" if committed else
                    f"mv -- {shlex.quote(str(Path(worktree) / path))} {shlex.quote(str(Path(worktree) / old))}")
            row["fix"] = (f"{path} is {old} (inside the boundary) moved outside it: to keep the move the lead "
                          f"widens the task to {path}; or move it back (and the task's references to its new "
                          f"path with it): `{back}`")
            continue
        exclude = f"printf '%s\\n' {shlex.quote('/' + path)} >> {shlex.quote(str(exclude_file))}"
        if committed:
            delete = f"git -C {where} rm -q -f -- {quoted}"
            keep_out = f"git -C {where} rm -q --cached -- {quoted} && {exclude}"
        else:
            delete = f"rm -f -- {shlex.quote(str(Path(worktree) / path))}"
            keep_out = exclude
        row["fix"] = (f"{path} is new and outside the boundary (a file the project's tests or tools wrote?): "
                      f"delete it: `{delete}`; or keep it out of every commit (the repository's exclude list): "
                      f"`{keep_out}`")
