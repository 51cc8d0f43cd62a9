"""`task update`'s merge of a reserved manifest both sides changed: the task's edits, as the intents
they are, applied onto what integration holds now.

Stage: `wtc task update`, for each reserved file git's merge of the integration tip into the task's
worktree left conflicted. Input: the file's versions at the merge base, at the task's head before the
merge and at the integration tip. Output: the file written and staged as integration's version with
the task's intents applied by consolidation's own editors, and one note saying so (naming each key
integration changed that the task's intent now sets over it), or None when the task's edit cannot be
carried as intents (the caller then merges it as before, markers and all).

Why: a reserved manifest never merges as text; the task's edit lives on as intents, derived at its
finish from the file against the task's base. After a consolidation applied other tasks' intents to
integration (`package.json`'s `vary` set to `^1.1.1`), an update of a task that set the same key
left conflict markers in package.json; the finish then refused them and advised taking one side,
and taking integration's side made the next finish derive no intent: the task's `vary ~1.1.2` was
dropped without a word (found driving wtc on koajs/koa). Integration's version with the task's
intents applied is the file that finish derives exactly those intents from again, now against the
new base; a key another task set that this task's intent overrides is said, so the agent chooses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from ..gitrepo import GitRepo


def carry_reserved_edit(git: GitRepo, worktree: Path, rel: str, *, task: str, base: str, ours: str,
                        theirs: str) -> str | None:
    """Write `rel` in `worktree` as `theirs`'s version with the intents of the task's edit (`base` ->
    `ours`) applied, stage it, and return the note saying what it holds; None (nothing written)
    when the edit is not one intents carry (a violation at finish) or cannot apply onto `theirs`."""
    from ..check.reserved_edits import derive_task_intents
    from ..check.uncarried_edits import applied
    from ..consolidate.manifests import read_manifest
    from ..consolidate.planning import current_value, same_value
    from ..errors import WtcError

    mine = [change for change in git.changes(base, ours) if change.path == rel]
    target = git.file_at(theirs, rel)
    if len(mine) != 1 or mine[0].new_oid is None or target is None:
        return None   # the task deleted the file, or integration did: not a key-level edit
    intents, refused = derive_task_intents(mine, [], task=task, since=base, read_blob=git.read_blob,
                                           tree_paths=lambda: git.tree_paths(base),
                                           read_path=lambda name: git.file_at(base, name))
    if refused:
        return None
    try:
        carried = applied(rel, target, intents)
    except WtcError:
        return None
    (worktree / rel).write_bytes(carried)
    git.stage_path(worktree, rel)
    keyed = [i for i in intents if i.manifest == rel and i.name]
    if not keyed:
        return (f"{rel}: integration changed this reserved file since the task's base; the worktree holds "
                f"integration's version (the task's edit asks only for a relock, which consolidation does)")
    overridden = []
    base_file = git.file_at(base, rel)
    try:
        before, now = (read_manifest(rel, data) if data is not None else None for data in (base_file, target))
    except WtcError:
        before = now = None
    for intent in keyed:
        was, holds = current_value(before, intent), current_value(now, intent)
        if not same_value(intent, was, holds):
            overridden.append(f"{intent.name} (integration holds {_shown(holds)}, the task's base had "
                              f"{_shown(was)})")
    said = ", ".join(i.summary() for i in keyed)
    note = (f"{rel}: integration changed this reserved file since the task's base; the worktree holds "
            f"integration's version with this task's edits applied as the intents they are ({said}), which "
            f"finish carries to consolidation")
    if overridden:
        note += (f"; the task's intents set over what another change put there: {'; '.join(overridden)}: keep "
                 f"them to override it, or edit {rel} back to integration's value to take it")
    return note


def _shown(value: str | None) -> str:
    """A key's encoded value as the note says it."""
    return "nothing" if value is None else (value or "it without a version spec")
