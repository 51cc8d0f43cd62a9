"""`gc`: remove what ended or nobody owns, never a branch with unmerged work; uncommitted work in a
folder about to go is first committed onto its branch."""

from __future__ import annotations

import time
from pathlib import Path

from ..store import leases
from ..errors import BusyError
from ..model import TaskState
from ..results import GcReport

from .base import CoordinatorBase


class CleanupOperations(CoordinatorBase):
    """Garbage collection."""

    def gc(self, *, dry_run: bool = False) -> GcReport:
        """Remove worktrees of ended tasks and folders nobody owns, prune git's admin entries (stale
        `initializing` locks of killed registrations included), drop leases of dead owners, stale ref
        locks and expired idempotency records. Safe beside running agents: each folder is judged under
        its task's lease from a fresh read, and a folder whose task is live or busy is left alone.
        Never deletes unmerged work: uncommitted changes in a folder about to go are first committed
        onto its branch."""
        removed: list[str] = []
        snapshots: list[dict[str, str]] = []
        kept: list[dict[str, str]] = []
        root = self.worktree_root()
        folders: list[tuple[str, str, Path]] = []
        for task in self.store.list_tasks():
            if task.worktree and not task.state.live:
                folders.append((task.run_id, task.task_id, Path(task.worktree)))
        if root.is_dir():
            for run_dir in sorted(p for p in root.iterdir() if p.is_dir()):
                for folder in sorted(_children(run_dir)):
                    if folder.name.startswith("."):
                        if folder.is_dir():  # scratch space of verification and consolidation
                            removed += self._stale_scratch(folder, dry_run=dry_run)
                        continue
                    folders.append((run_dir.name, folder.name, folder))
        seen: set[str] = set()
        for run_id, task_id, folder in folders:
            if str(folder) in seen:
                continue
            seen.add(str(folder))
            outcome = self._collect_folder(run_id, task_id, folder, dry_run=dry_run)
            if outcome is None:
                continue
            removed.append(str(folder))
            if outcome:
                snapshots.append({"task": f"{run_id}/{task_id}", "folder": str(folder), "commit": outcome})
        if root.is_dir() and not dry_run:
            for run_dir in (p for p in root.iterdir() if p.is_dir()):
                try:
                    run_dir.rmdir()  # only succeeds when empty
                except OSError:
                    pass
        pruned = self.git.prune_worktrees(dry_run=dry_run)
        leases_removed = []
        for lease in self.store.list_leases():
            if leases.may_take_over(lease.owner, lease.expires_at):
                leases_removed.append(lease.name)
                if not dry_run:
                    self.store.delete_lease(lease.name, lease.owner)
        locks = self.git.stale_ref_locks(older_than=2 * 30.0, dry_run=dry_run)
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
        return GcReport(dry_run=dry_run, worktrees_removed=removed, snapshots=snapshots,
                        admin_entries_pruned=pruned + locks, leases_removed=leases_removed, records_expired=expired,
                        branches_deleted=branches, kept=kept)

    def _collect_folder(self, run_id: str, task_id: str, folder: Path, *, dry_run: bool) -> str | bool | None:
        """Remove one folder if its task (read afresh, under its lease) has ended or does not exist.
        Returns None when the folder stays, else the snapshot commit (or False when none was needed)."""
        try:
            with leases.hold(self.store, f"task:{run_id}/{task_id}", timeout=0, what=f"task {task_id}"):
                task = self.store.get_task(run_id, task_id)
                if task is not None and task.state.live:
                    return None  # an agent's worktree (even one its start is still creating)
                if not folder.exists():
                    if task is not None and task.worktree and not dry_run:
                        self.store.update_task(run_id, task_id, worktree=None)
                    return None
                if dry_run:
                    return False
                snapshot = None
                if task is not None:
                    snapshot = self._snapshot(task, "wtc gc: snapshot of uncommitted work")
                    self._drop_worktree(task)
                else:
                    entry = {str(Path(w.path)): w for w in self.git.list_worktrees()}.get(str(folder))
                    if entry is not None and entry.branch:
                        snapshot = self._snapshot_folder(folder, entry.branch)
                    if folder.is_dir():
                        self.git.remove_worktree(folder)
                    elif folder.exists():
                        folder.unlink()
                return snapshot or False
        except BusyError:
            return None  # someone is working on this task right now: not ours to touch
        except FileNotFoundError:
            return None  # removed by a finish while we looked: nothing left to collect

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



def _children(folder: Path) -> list[Path]:
    try:
        return list(folder.iterdir())
    except FileNotFoundError:
        return []
