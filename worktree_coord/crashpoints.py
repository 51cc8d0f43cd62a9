"""Named crash points: deterministic process death at a chosen step, for crash-recovery tests.

Stage: cross-cutting test hook. Input: the environment variable `WTC_CRASH_AT`. Output: none, or the
process dies. Invariant: a no-op (one dict lookup) unless `WTC_CRASH_AT` equals the point's name, in
which case the process SIGKILLs itself at once: no `finally`, no atexit, no flushing. That is the
point: it reproduces a power cut or an OOM kill between two writes, which a raised exception cannot.

Names in use (keep this list current so tests and docs can find them):
    start.after_record           the task row exists, its worktree does not yet
    start.after_port_claim       the task's port range is claimed in the machine's registry, its store has
                                 not recorded the block yet
    finish.after_commit          the worktree's changes are committed, nothing recorded yet
    finish.after_push            a remote run's finished task branch is pushed, nothing recorded yet
    finish.after_record          the task is recorded finished, its worktree not yet removed
    merge.after_commit_written   the merge commit object exists, the integration ref has not moved
    merge.before_pack_written    a drain holding its objects in memory publishes: none written yet, the
                                 integration ref has not moved
    merge.after_pack_written     the drain's objects are on disk as one pack, the integration ref has not
                                 moved
    merge.after_ref_moved        the integration ref moved (a drain: once, for all its merges), nothing else
                                 has been recorded yet
    merge.after_record           the task is recorded merged, its worktree not yet removed
    merge.batch_advanced         a verified batch moved integration (`wtc merge --batch N`, fanout's
                                 `[run] batch`), none of its tasks recorded merged yet
    ref.locked                   a compare-and-swap holds the ref's lock (libgit2's `<ref>.lock`), the ref
                                 not yet moved (a merge's integration ref, a land's target, consolidation)
    consolidate.after_root_commit  one ecosystem root's commit is on integration, its intents not yet marked
    update.after_merge           `task update`'s merge in the worktree is done (or stopped on conflicts),
                                 nothing recorded yet
    worktree.before_checkout     a worktree is registered (and its sparse cone set), not yet checked out
    remove.after_rename          a worktree being removed is renamed to its tombstone, its admin entry not
                                 yet pruned (any removal: finish, merge, abandon, gc, a start's rebuild)
    remove.half_deleted          the tombstone is half deleted, its admin entry pruned
    fanout.after_timeout_stop    `wtc fanout` stopped an agent at its timeout, the run's end not yet recorded
    task.written.<state>         a task's record is written in that state (the store's insert or update, its
                                 event in the same transaction), nothing after it yet: started, finished,
                                 empty, rejected, conflict, failed, merged, abandoned
    task.written.<fields>        a task's record is written without a state change, `+`-joined sorted fields:
                                 `boundary+result` (a widen), `result` (an update's end), `worktree`
    task.deleted                 a task's record is deleted (a start whose setup failed), nothing after it yet
"""

from __future__ import annotations

import os
import signal

ENV_VAR = "WTC_CRASH_AT"


def crash_point(name: str) -> None:
    """Die by SIGKILL right here if `WTC_CRASH_AT` names this point; otherwise do nothing."""
    if os.environ.get(ENV_VAR) == name:
        os.kill(os.getpid(), signal.SIGKILL)
