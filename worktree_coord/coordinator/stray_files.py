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
is the move back, or the lead's widen the finish's note names. A move is told by its content: the
same blob, or (git's own rename rule, for a move with edits) lines at least half alike.
Invariants: pure (changes and blob bytes in, strings out); changes nothing but the rows it is given.
"""

from __future__ import annotations

import difflib
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

if TYPE_CHECKING:
    from ..gitrepo import Change

# Git's own default: a pair of files at least half alike is a rename (`diff.renames`, -M50%).
MOVE_SIMILARITY = 0.5
# Pairs compared by their lines at most (a task adding and deleting hundreds of files is told by
# exact contents only: the ways out are advice, not worth a quadratic read).
MOVE_PAIRS_COMPARED = 400
MOVE_BYTES_COMPARED = 256 * 1024


def moved_from(changes: Iterable[Change], read_blob: Callable[[str], bytes]) -> dict[str, str]:
    """Each added path that is a deleted path moved (module docstring): added -> deleted."""
    added = [c for c in changes if c.status == "added"]
    deleted = [c for c in changes if c.status == "deleted"] if added else []
    by_blob = {c.old_oid: c.path for c in deleted}
    moves = {c.path: by_blob[c.new_oid] for c in added if c.new_oid in by_blob}
    rest = [c for c in added if c.path not in moves]
    gone = [c for c in deleted if c.path not in moves.values()]
    if not rest or not gone or len(rest) * len(gone) > MOVE_PAIRS_COMPARED:
        return moves
    lines: dict[str, list[bytes] | None] = {}

    def text(oid: str) -> list[bytes] | None:
        if oid not in lines:
            data = read_blob(oid)
            lines[oid] = None if len(data) > MOVE_BYTES_COMPARED or b"\0" in data else data.splitlines()
        return lines[oid]

    for new in rest:
        best, best_ratio = None, MOVE_SIMILARITY
        for old in gone:
            a, b = text(old.old_oid or ""), text(new.new_oid or "")
            if a is None or b is None:
                continue
            ratio = difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()
            if ratio >= best_ratio:
                best, best_ratio = old.path, ratio
        if best is not None:
            moves[new.path] = best
    return moves


def add_stray_file_fixes(violations: list[dict[str, Any]], changes: Iterable[Change], worktree: str | None,
                         exclude_file: Path, *, committed: bool, read_blob: Callable[[str], bytes]) -> None:
    """Give each `outside_own` violation of a path `changes` added its `fix` (module docstring).
    `committed`: finish has committed the worktree (the file is in the branch's last commit)."""
    changes = list(changes)
    new = {c.path for c in changes if c.status == "added"}
    if not worktree or not any(row.get("rule") == "outside_own" and row.get("path") in new for row in violations):
        return
    moves = moved_from(changes, read_blob)
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
