"""Lockfiles of ecosystems consolidation does not relock (Bundler's Gemfile.lock, Composer's
composer.lock, CocoaPods' Podfile.lock, SwiftPM's Package.resolved, mix.lock, pubspec.lock,
Pipfile.lock, NuGet's packages.lock.json): what a task's edit of one becomes, said where a person reads it.

Stage: finish-time and check-time notes, and the reason a conflict in one gives. Input: changed
paths. Output: sentences naming the file, its tool, what wtc did with it and the command that
regenerates it (consolidate/lockfile_names.py's UNRELOCKED_LOCKFILES, the one table).
Why: such a lockfile is not reserved, so its edits merge as text with the task's other changes.
Two tasks' text merged is not a lockfile the tool wrote (composer.lock's content-hash no longer
matches composer.json; Bundler's resolution was never run on both tasks' gems), and a conflict in
one is not settled by choosing lines: the user must hear that wtc did not relock it, and how to.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable

from ..consolidate.lockfile_names import UNRELOCKED_LOCKFILES


def _entry(path: str) -> tuple[str, str] | None:
    return UNRELOCKED_LOCKFILES.get(posixpath.basename(path))


def unrelocked_notes(paths: Iterable[str], whose: str = "this task's edit of it merges") -> list[str]:
    """A note per changed lockfile wtc does not relock: merged as text, regenerate it after landing.
    `whose`: whose edits the sentence speaks of (a finish's, a run's in the report)."""
    notes = []
    for path in paths:
        entry = _entry(path)
        if entry is None:
            continue
        tool, how = entry
        notes.append(f"{path}: {tool}'s lockfile, which wtc does not relock (consolidation relocks npm, pnpm, "
                     f"Yarn, Cargo, uv, Poetry, pip-tools, Go, pixi and Gradle only): {whose} "
                     f"as text like code, and two tasks' edits merged as text are not a lockfile {tool} wrote; "
                     f"regenerate it on the landed tree with {how} in {posixpath.dirname(path) or 'the root'}, "
                     "and commit that")
    return notes


def merge_reasons(path: str, notes: Iterable[str]) -> list[str]:
    """What a person reads as the why of a file's conflict: the merge's own notes (a fallback's
    reason, a guard's sentence), then, for a lockfile wtc does not relock, that its markers are not
    for hand-merging."""
    lockfile = conflict_reason(path)
    return list(notes) + ([lockfile] if lockfile else [])


def conflict_reason(path: str) -> str | None:
    """Why a conflict in such a lockfile is not resolved by editing its markers, and what to do."""
    entry = _entry(path)
    if entry is None:
        return None
    tool, how = entry
    return (f"{path} is {tool}'s lockfile, which wtc does not relock, so both sides' edits of it met as text: "
            f"do not merge its lines by hand; after `wtc task update`, take integration's version (in the "
            f"worktree: `git checkout --theirs -- {path}`) and regenerate the file there with {how}, then "
            "finish again")
