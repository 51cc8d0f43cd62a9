"""`wtc gc` for runs kept on a git remote: delete the remote task branches of merged tasks, and prune
this clone's remote-tracking refs of branches gone from the remote.

Stage: maintenance (called by cleanup.py). Input: a clone, the store, dry-run or not. Output: the
refs deleted on the remote, the local tracking refs pruned, and the branches kept with why.

Invariants:
- A remote branch is deleted only when it still holds the commit the store recorded for its task
  (the tip the finish pushed, which a merged task's merge commit brings into integration history):
  the delete is a push with `--force-with-lease=<ref>:<that commit>`, so a branch someone pushed
  again since (new work under the same name) is refused by the remote and kept, never lost.
- A task's mergeable commit (`refs/wtc/<run>/mergeable/<task>`) goes with its branch, leased on
  the value read just before.
- Live and finished-but-not-merged tasks keep everything (another machine may still merge them), and
  so do abandoned tasks: their work is on no other branch (`task abandon` keeps the branch, as on a
  local run), so gc lists them as kept and a person deletes them.
- An unreachable remote skips that run's remote part (the rest of gc still runs) and says so.
"""

from __future__ import annotations

from dataclasses import field
from typing import TYPE_CHECKING, Any

from ..errors import GitError, UsageError
from ..frozen import value_class
from ..gitrepo.remote import Remote, RemoteUnavailable
from ..model import RunRecord, TaskRecord, TaskState

if TYPE_CHECKING:
    from ..gitrepo import GitRepo
    from ..store.base import Store

ENDED = (TaskState.MERGED,)          # their commits are in the integration history


@value_class(frozen=False)
class RemoteCollection:
    deleted: list[str] = field(default_factory=list)            # "<remote>:<ref>"
    tracking_pruned: list[str] = field(default_factory=list)    # local refs/remotes/... refs
    kept: list[dict[str, str]] = field(default_factory=list)


def collect_remote_branches(git: "GitRepo", store: "Store", *, dry_run: bool) -> RemoteCollection:
    """Delete (or with `dry_run` list) the remote task branches of ended tasks of every remote run
    this clone can reach, lease-checked; prune the tracking refs of branches gone from the remote."""
    found = RemoteCollection()
    for run in store.list_runs():
        if not run.remote:
            continue
        try:
            remote = Remote(git, run.remote)
            remote.url()
        except (GitError, UsageError):   # this clone has no remote of that name
            found.kept.append({"branch": f"wtc/{run.run_id}/*", "why": f"this clone has no remote {run.remote!r}"})
            continue
        try:
            _collect_run(git, store, remote, run, found, dry_run=dry_run)
        except RemoteUnavailable as error:
            found.kept.append({"branch": f"wtc/{run.run_id}/*", "why": f"{run.remote} unreachable: {error.message}"})
    return found


def _collect_run(git: "GitRepo", store: "Store", remote: Remote, run: RunRecord, found: RemoteCollection,
                 *, dry_run: bool) -> None:
    prefix = f"refs/heads/wtc/{run.run_id}/"
    mergeable_prefix = f"refs/wtc/{run.run_id}/mergeable/"
    there = remote.list_refs([prefix + "*", mergeable_prefix + "*"])
    leases: dict[str, str] = {}
    for task in store.list_tasks(run.run_id, [TaskState.ABANDONED]):
        if f"refs/heads/{task.branch}" in there:
            found.kept.append({"branch": f"{remote.name}:{task.branch}",
                               "why": f"task {task.task_id} was abandoned: its work is on no other branch "
                                      f"(delete it when unwanted: git push {remote.name} --delete {task.branch})"})
    for task in store.list_tasks(run.run_id, list(ENDED)):
        branch, mergeable = f"refs/heads/{task.branch}", mergeable_prefix + task.task_id
        if branch in there:
            if task.head and there[branch] == task.head:
                leases[branch] = task.head
            else:
                found.kept.append({"branch": f"{remote.name}:{task.branch}",
                                   "why": f"it holds {there[branch][:12]}, not the {_recorded(task)} "
                                          f"{(task.head or '')[:12]}: pushed again since; not deleted"})
                continue
        if mergeable in there:
            leases[mergeable] = there[mergeable]
    deleted = set(leases) if dry_run else set(remote.delete_with_lease(leases, what=f"deleting ended tasks' "
                                                                                  f"branches of run {run.run_id}"))
    for ref in sorted(leases):
        if ref in deleted:
            found.deleted.append(f"{remote.name}:{ref}")
        else:
            found.kept.append({"branch": f"{remote.name}:{ref}", "why": "the remote refused the delete (it moved "
                                                                        "since it was read): kept"})
    remaining = set(there) - (set(leases) if dry_run else deleted)
    tracking_prefix = f"refs/remotes/{remote.name}/wtc/{run.run_id}/"
    for ref, oid in git.refs_under(tracking_prefix).items():
        if f"refs/heads/{ref.removeprefix(f'refs/remotes/{remote.name}/')}" not in remaining:
            found.tracking_pruned.append(ref)
            if not dry_run:
                git.delete_ref(ref, oid)


def _recorded(task: TaskRecord) -> str:
    return "merged" if task.state is TaskState.MERGED else "recorded"


def to_json(found: RemoteCollection) -> dict[str, Any]:
    return {"remote_branches_deleted": found.deleted, "tracking_refs_pruned": found.tracking_pruned}
