"""`gc`: remove what ended or nobody owns, never a branch with unmerged work; uncommitted work in a
folder about to go is first committed onto its branch."""

from __future__ import annotations

import time
from pathlib import Path

from .. import leases
from ..model import TaskState
from ..results import GcReport

from .base import CoordinatorBase


class CleanupOperations(CoordinatorBase):
    """Garbage collection."""

    def gc(self, *, dry_run: bool = False) -> GcReport:
        """Remove worktrees of ended tasks and folders nobody owns, prune git's admin entries, drop
        leases of dead owners and expired idempotency records. Never deletes unmerged work: uncommitted
        changes in a folder about to go are first committed onto its branch."""
        removed: list[str] = []
        snapshots: list[dict[str, str]] = []
        kept: list[dict[str, str]] = []
        live_paths: set[str] = set()
        for task in self.store.list_tasks():
            if not task.worktree:
                continue
            if task.state.live:
                live_paths.add(str(Path(task.worktree)))
                continue
            if Path(task.worktree).exists():
                removed.append(task.worktree)
                if not dry_run:
                    with leases.hold(self.store, f"task:{task.run_id}/{task.task_id}",
                                     timeout=self.config.wait_timeout, what=f"task {task.task_id}"):
                        snap = self._snapshot(task, "wtc gc: snapshot of uncommitted work")
                        if snap:
                            snapshots.append({"task": f"{task.run_id}/{task.task_id}", "commit": snap})
                        self._drop_worktree(task)
            elif not dry_run:
                self.store.update_task(task.run_id, task.task_id, worktree=None)
        # Folders under the worktree root that no live task owns.
        root = self.worktree_root()
        registered = {str(Path(w.path)): w for w in self.git.list_worktrees()}
        if root.is_dir():
            for run_dir in sorted(p for p in root.iterdir() if p.is_dir()):
                children = sorted(p for p in run_dir.iterdir())
                for folder in children:
                    if str(folder) in live_paths:
                        continue
                    if folder.name.startswith(".") and folder.is_dir():
                        # scratch space of verification and consolidation: only what a crash left
                        removed += self._stale_scratch(folder, dry_run=dry_run)
                        continue
                    entry = registered.get(str(folder))
                    if entry is not None and entry.branch and not dry_run:
                        snap = self._snapshot_folder(folder, entry.branch)
                        if snap:
                            snapshots.append({"folder": str(folder), "commit": snap})
                    removed.append(str(folder))
                    if not dry_run and folder.is_dir():
                        self.git.remove_worktree(folder)
                    elif not dry_run:
                        folder.unlink()
                if not dry_run and run_dir.exists() and not any(run_dir.iterdir()):
                    run_dir.rmdir()
        pruned = self.git.prune_worktrees(dry_run=dry_run)
        leases_removed = []
        for lease in self.store.list_leases():
            if leases.may_take_over(lease.owner, lease.expires_at):
                leases_removed.append(lease.name)
                if not dry_run:
                    self.store.delete_lease(lease.name, lease.owner)
        expired = self.store.delete_expired_records(time.time(), dry_run=dry_run)
        branches = []
        for task in self.store.list_tasks(states=[TaskState.EMPTY]):
            ref = f"refs/heads/{task.branch}"
            tip = self.git.ref_target(ref)
            run = self.store.get_run(task.run_id)
            if tip is None or run is None:
                continue
            if tip == run.base:  # nothing on it: deleting loses nothing
                branches.append(task.branch)
                if not dry_run:
                    self.git.delete_ref(ref, tip)
            else:
                kept.append({"branch": task.branch, "why": "has commits beyond the pinned base"})
        return GcReport(dry_run=dry_run, worktrees_removed=removed, snapshots=snapshots, admin_entries_pruned=pruned,
                        leases_removed=leases_removed, records_expired=expired, branches_deleted=branches, kept=kept)

    def _stale_scratch(self, folder: Path, *, dry_run: bool) -> list[str]:
        """Scratch worktrees older than any verification or relock may run: left by a crash."""
        horizon = time.time() - 2 * max(self.config.verify_timeout, 3600.0)
        stale = [child for child in sorted(folder.iterdir()) if child.stat().st_mtime < horizon]
        for child in stale:
            if dry_run:
                continue
            if child.is_dir():
                self.git.remove_worktree(child)
            else:
                child.unlink()
        return [str(child) for child in stale]

    def _snapshot_folder(self, folder: Path, branch_ref: str) -> str | None:
        if not branch_ref.startswith("refs/heads/wtc/"):
            return None  # not ours: never commit in someone else's worktree
        try:
            if not self.git.has_uncommitted(folder):
                return None
            return self.git.commit_all(folder, "wtc gc: snapshot of uncommitted work", "worktree_coord gc",
                                       "gc@worktree-coord.invalid")
        except Exception:  # a broken folder: removing it is still right, it has no readable work
            return None

