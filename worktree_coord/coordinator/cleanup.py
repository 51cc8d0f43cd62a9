"""`wtc gc`: remove what ended or nobody owns; never a live task's worktree, never a commit of a
folder that may be half removed.

Stage: maintenance, safe beside running agents. Input: the store and the folders under the worktree
root. Output: a `GcReport` (what was removed, pruned or kept, and why).

The rules, each applied per folder at the moment of removal:
- A folder `<root>/<run>/<task>` belongs to task `<run>/<task>`, whatever the task's `worktree`
  field says. gc takes that task's lease without waiting and reads the task afresh under it; when
  the lease is busy, someone is working on the task and the folder stays.
- A live task's folder (started, rejected, conflict; also one that its start or update is still
  creating) belongs to the agent and stays.
- An ended task's folder (finished, merged, empty, failed or abandoned) is a leftover: the finish or
  abandon that ended the task committed the work first, and a removal killed half-way may have
  deleted part of the folder. It is removed without being read and is never committed, because a
  commit would record the removal's deletions as work (issue 19: a commit deleting the whole tree
  landed on a merged task's branch).
- A folder with no task in the store is removed when it holds no work. A registered worktree with
  uncommitted changes (not counting files missing from disk) is kept and reported instead: no task
  claims it, so gc neither commits it nor deletes it.
- A tombstone (`.wtc-tombstone@...`, a folder that a removal renamed and had not finished deleting
  when it was killed) is deleted without being read, in task folders and in the scratch folders of
  verification and consolidation alike.
- Scratch worktrees (`<root>/<run>/.verify/*`, `.consolidate/*`) older than any verification or
  relock can run were left by a crash and are removed. In a run that landed with no task left
  that may still merge (none live, none finished and waiting), or a run gone from the store, no
  verification runs any more: its `.verify/*` worktrees (left by a finish killed while it
  verified) are removed at once.
- The scratch folders of tree reads run by git processes (`<git common dir>/wtc/tmp-trees.*`, left
  by a `task check` killed while it read) are removed once the process named in the folder's name
  has ended; one whose process this host cannot judge (another host's) once it is an hour old
  (gitrepo/process_trees.py). A running check's folder stays.
- Then: admin entries whose folders are gone are pruned (stale `initializing` locks of killed
  registrations are unlocked first), leases of dead owners are dropped, wtc ref locks older than 60 s
  are removed, expired idempotency records are deleted, branches of empty tasks that hold nothing
  beyond the pinned commit are deleted, and so are branches of merged tasks whose tip is in the
  integration history (with their mergeable commit's ref): their commits stay there, reachable.
- Runs kept on a git remote: the remote branches of merged and abandoned tasks are deleted, each
  only while it holds the commit the store recorded (remote_gc.py), and tracking refs of branches
  gone from the remote are pruned.
- A clone of a remote run may lack commits other clones made (a task head pushed, a ref ahead of
  its objects): gc treats what it cannot read as unknown, never as a reason to delete. A branch is
  deleted only on integration history this clone holds, and the pins' word indexes stay whole
  while a task's merge base cannot be computed here.
- The forecast cache (`<git common dir>/wtc/forecast-cache/`) loses what runs no longer open left
  (forecast_column.prune), and the merge check's index (`<git common dir>/wtc/merge-index/`) the
  tips and the pins' word indexes no open run merges with any more (`_prune_merge_index`).

In a repository wtc never ran in (no store, no wtc folder, no worktree folder) gc has nothing to
collect and returns at once, leaving the repository byte for byte: it opens no store, which would
create one and set the repository up.

gc never snapshots: the only snapshot is `task abandon`'s, of a live task under its lease
(`CoordinatorBase._snapshot`). `GcReport.snapshots` stays in the result for callers that read it,
and is always empty.
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import TYPE_CHECKING

from ..store import leases
from ..errors import BusyError, GitError, NotFoundError
from ..gitrepo import delete_tombstone, is_tombstone
from ..model import RunRecord, RunState, TaskRecord, TaskState
from ..results import GcReport

from . import forecast_column
from .base import CoordinatorBase, staged
from .remote_gc import collect_remote_branches

if TYPE_CHECKING:
    from ..gitrepo import GitRepo

REMOVED = "removed"


class CleanupOperations(CoordinatorBase):
    """Garbage collection."""

    @staged("gc")
    def gc(self, *, dry_run: bool = False) -> GcReport:
        """Remove worktrees of ended tasks, folders nobody owns and tombstones of interrupted
        removals; prune git's admin entries; drop leases of dead owners, stale ref locks and expired
        idempotency records; delete branches of empty tasks. Safe beside running agents: each
        folder is judged under its task's lease from a fresh read, and a folder whose task is live
        or busy is left alone. Never commits anything (see the module docstring for the rules)."""
        root = self.worktree_root()
        if not self._has_store() and not self.git.wtc_dir.exists() and not _children(root):
            # wtc never ran here: nothing of its own to collect, and opening the store would create
            # it and set the repository up (its config, its excludes) to say so.
            return GcReport(dry_run=dry_run)
        removed: list[str] = []
        tombstones: list[str] = []
        kept: list[dict[str, str]] = []
        folders: list[tuple[str, str, Path]] = []
        for task in self.store.list_tasks():
            # (a worktree another clone of a remote run registered is that clone's to collect)
            if task.worktree and not task.state.live and self._is_ours(Path(task.worktree)):
                folders.append((task.run_id, task.task_id, Path(task.worktree)))
        if root.is_dir():
            settled = self._settled_runs()
            for run_dir in sorted(p for p in root.iterdir() if p.is_dir()):
                for folder in sorted(_children(run_dir)):
                    if is_tombstone(folder):
                        tombstones += _delete_tombstones([folder], dry_run=dry_run)
                    elif folder.name.startswith("."):
                        if folder.is_dir():  # scratch space of verification and consolidation
                            found, stale = self._stale_scratch(folder, dry_run=dry_run,
                                                               settled_at=settled.get(run_dir.name))
                            tombstones += found
                            removed += stale
                    else:
                        folders.append((run_dir.name, folder.name, folder))
        seen: set[str] = set()
        for run_id, task_id, folder in folders:
            if str(folder) in seen:
                continue
            seen.add(str(folder))
            outcome = self._collect_folder(run_id, task_id, folder, dry_run=dry_run)
            if outcome == REMOVED:
                removed.append(str(folder))
            elif outcome is not None:
                kept.append({"folder": str(folder), "branch": "", "why": outcome})
        if root.is_dir() and not dry_run:
            for run_dir in (p for p in root.iterdir() if p.is_dir()):
                try:
                    run_dir.rmdir()  # only succeeds when empty
                except OSError:
                    pass
        pruned = self.git.prune_worktrees(dry_run=dry_run)
        leases_removed = []
        for lease in self.store.list_leases():
            if leases.may_take_over(self.store, lease.owner):
                leases_removed.append(lease.name)
                if not dry_run:
                    self.store.delete_lease(lease.name, lease.owner)
        if not dry_run:
            # The machine's port leases no live task holds (a start or finish killed midway left them):
            # a start reclaims one only when it meets it; gc is the one walk of the whole folder.
            from ..store.port_registry import reclaim_leftovers

            reclaim_leftovers(timeout=self.config.lock_timeout)
        locks = self.git.stale_ref_locks(older_than=2 * 30.0, dry_run=dry_run)
        scratch = self.git.stale_scratch_folders(dry_run=dry_run)
        expired = self.store.delete_expired_records(time.time(), dry_run=dry_run)
        runs = {run.run_id: run for run in self.store.list_runs()}
        doomed: list[tuple[str, str]] = []     # (ref, the value it must still hold), deleted in one batch
        integrated = _IntegrationHistory(self)
        for task in self.store.list_tasks(states=[TaskState.EMPTY, TaskState.MERGED]):
            ref = f"refs/heads/{task.branch}"
            tip = self.git.ref_target(ref)
            run = runs.get(task.run_id)
            if tip is None or run is None:
                continue
            if task.state is TaskState.MERGED:
                # Its commits are in the integration history: the branch only adds clutter (a run of
                # 1,000 agents leaves 1,000 of them). One that moved since the merge keeps its news.
                if integrated.holds(run, tip):
                    doomed.append((ref, tip))
                    mergeable = self._mergeable_ref(run.run_id, task.task_id)
                    held = self.git.ref_target(mergeable)
                    if held is not None and integrated.holds(run, held):
                        doomed.append((mergeable, held))
                else:
                    kept.append({"branch": task.branch, "why": "merged, but it holds commits the integration "
                                                               "branch here does not (pushed again since?)"})
            elif tip == run.base:  # an empty task's: nothing on it, deleting loses nothing
                doomed.append((ref, tip))
            else:
                kept.append({"branch": task.branch, "why": "has commits beyond the pinned base"})
        heads = [ref for ref, _ in doomed if ref.startswith("refs/heads/")]
        if not dry_run:
            deleted = set(self.git.delete_refs(doomed))
            for ref in heads:
                if ref not in deleted:
                    kept.append({"branch": ref[len("refs/heads/"):], "why": "it moved while gc looked: kept"})
            heads = [ref for ref in heads if ref in deleted]
        branches = [ref[len("refs/heads/"):] for ref in heads]
        remote = collect_remote_branches(self.git, self.store, dry_run=dry_run)
        open_runs = {run.run_id: run.created_at for run in self.store.list_runs() if run.state is not RunState.LANDED}
        cache = forecast_column.prune(self.git.common_dir, open_runs, dry_run=dry_run)
        index, pins = self._prune_merge_index([runs[run_id] for run_id in open_runs], dry_run=dry_run)
        return GcReport(dry_run=dry_run, worktrees_removed=removed, tombstones_removed=tombstones, snapshots=[],
                        admin_entries_pruned=pruned + locks, leases_removed=leases_removed, records_expired=expired,
                        branches_deleted=branches, kept=kept + remote.kept,
                        remote_branches_deleted=remote.deleted, tracking_refs_pruned=remote.tracking_pruned,
                        forecast_cache_removed=len(cache), merge_index_removed=index, pin_words_removed=pins,
                        scratch_removed=scratch)

    def _prune_merge_index(self, open_runs: list[RunRecord], *, dry_run: bool) -> tuple[int, list[str]]:
        """The merge check's on-disk index (merge/checks/merge_index.py): the entries of tips no
        open run merges onto any more (kept: each open run's integration tip and the first
        parents below it that the next process derives its tables from, by tree id), the
        oldest symbols rows past the index's cap, and the word indexes of pins no open run's merge
        reads any more (kept: each open run's pin, and the merge base of each of its tasks not
        merged yet with its integration tip: what `task update` moved its base to). Returns how
        many index entries went (would go) and the pins (tree ids) whose word index went."""
        from ..merge.checks.merge_index import TABLES_EVERY, MergeIndex, index_folder

        folder = index_folder(self.git.repo)
        if not folder.is_dir():
            return 0, []
        repo = self.git.repo
        keep: set[str] = set()
        pins: set[str] = set()
        unknown = False     # a merge base this clone cannot compute: which pins are read is not known here
        for run in open_runs:
            tips = []
            for ref in (f"refs/heads/{run.integration_ref}",
                        f"refs/remotes/{run.remote}/{run.integration_ref}" if run.remote else ""):
                tip = self.git.ref_target(ref) if ref else None
                tips += [tip] if tip else []
                commit = repo.get(tip or run.base)
                for _ in range(TABLES_EVERY + 1):
                    if commit is None:
                        break
                    keep.add(str(commit.tree_id))
                    commit = repo.get(commit.parent_ids[0]) if commit.parent_ids else None
            bases, lacking = self._unmerged_bases(run, tips)
            pins |= {run.base, *bases}
            unknown = unknown or lacking
        pin_trees = {str(commit.tree_id) for sha in pins if (commit := repo.get(sha)) is not None}
        index = MergeIndex(folder)
        removed = sum(index.prune(keep, dry_run=dry_run).values())
        if unknown:
            # Never delete because of a commit this clone could not read: a task another clone finished
            # and this one never fetched may merge onto a pin whose word index would go. The index is
            # kept whole this time; the gc after a fetch (any merge fetches the task) prunes it.
            return removed, []
        return removed, index.prune_pin_words(pin_trees, dry_run=dry_run)

    def _unmerged_bases(self, run: RunRecord, tips: list[str]) -> tuple[set[str], bool]:
        """The merge bases of the run's tasks that may still merge with its integration tips: the
        pins their merges' left-behind look reads (the run's own pin, unless `task update` moved it).
        The flag says some base is unknown here: a remote run's task head this clone lacks (another
        clone made and pushed it; only a merge or a task command of this clone fetches it)."""
        bases: set[str] = set()
        unknown = False
        for task in self.store.list_tasks(run.run_id):
            if task.head is None or task.state in (TaskState.MERGED, TaskState.ABANDONED, TaskState.EMPTY):
                continue
            if run.remote and not _valid_commit(self.git, task.head):
                unknown = True
                continue
            for tip in tips:
                with contextlib.suppress(GitError, NotFoundError, KeyError, ValueError):   # a head gone: no pin to keep
                    bases.add(self.git.merge_base(task.head, tip))
        return bases, unknown

    def _in_integration(self, run: RunRecord, commit: str) -> bool:
        """Whether `commit` is in the run's integration history as this clone knows it (its branch,
        or for a remote run the tracking ref a fetch keeps)."""
        tips = [self.git.ref_target(f"refs/heads/{run.integration_ref}")]
        if run.remote:
            tips.append(self.git.ref_target(f"refs/remotes/{run.remote}/{run.integration_ref}"))
        # A tip this clone lacks (a ref written ahead of its objects) proves nothing either way: the
        # commit is not counted in, so nothing is deleted because of what could not be read.
        return any(tip is not None and (tip == commit or (_valid_commit(self.git, tip) and self.git.has_commit(commit)
                                                          and self.git.is_ancestor(commit, tip)))
                   for tip in tips)

    def _collect_folder(self, run_id: str, task_id: str, folder: Path, *, dry_run: bool) -> str | None:
        """Remove one folder if its task (read afresh, under its lease) has ended or does not exist.
        Returns REMOVED, a sentence saying why a folder nobody owns was kept, or None when the
        folder stays because its task is live or busy (or it is already gone)."""
        try:
            with leases.hold(self.store, leases.task_lease(run_id, task_id), timeout=0, what=f"task {task_id}"):
                task = self.store.get_task(run_id, task_id)
                if task is not None and task.state.live:
                    return None  # an agent's worktree (even one its start is still creating)
                if not folder.exists():
                    if task is not None and task.worktree == str(folder) and not dry_run:
                        self.store.update_task(run_id, task_id, worktree=None)
                    return None
                if task is None:
                    why = self._unowned_work(folder)
                    if why is not None:
                        return why
                if not dry_run:
                    self._remove_leftover(task, folder)
                return REMOVED
        except BusyError:
            return None  # someone is working on this task right now: not ours to touch
        except FileNotFoundError:
            return None  # removed by a finish while we looked: nothing left to collect

    def _remove_leftover(self, task: TaskRecord | None, folder: Path) -> None:
        """Remove a folder without reading it (an ended task's, or one nobody owns that holds no work)."""
        if folder.is_dir() and not folder.is_symlink():
            self.git.remove_worktree(folder)
        else:
            folder.unlink(missing_ok=True)
        if task is not None and task.worktree == str(folder):
            self.store.update_task(task.run_id, task.task_id, worktree=None)

    def _unowned_work(self, folder: Path) -> str | None:
        """Why a folder no task owns must stay, or None when removing it loses nothing: it stays when
        it is a registered worktree of this repository with uncommitted changes. Files missing from
        disk do not count (a removal killed half-way deletes files too)."""
        if folder.is_symlink() or not (folder / ".git").is_file():
            return None
        entries = {Path(w.path) for w in self.git.list_worktrees() if not w.prunable}
        if folder.resolve() not in {p.resolve() for p in entries}:
            return None  # not a worktree of ours: nothing git could hold for it
        top = self.git.git("rev-parse", "--show-toplevel", cwd=folder, check=False)
        if top.returncode != 0 or Path(top.stdout.decode().strip()).resolve() != folder.resolve():
            return None
        status = self.git.git("status", "--porcelain", "-z", "--untracked-files=all", cwd=folder, check=False)
        if status.returncode != 0:
            return None
        work = [item for item in status.stdout.split(b"\0") if item and item[:2] != b" D"]
        if not work:
            return None
        return (f"no task in the store owns this worktree and it holds {len(work)} uncommitted change(s); "
                "commit them or remove it by hand (git worktree remove --force PATH)")

    def _settled_runs(self) -> dict[str, float]:
        """Runs in which no verification can run any more, each with the moment that was read: a run
        landed with no task that may still merge (live, or finished and waiting for its merge: a
        task a partial land left out may finish after the land, and its finish verifies), and a run
        gone from the store (no finish can name it). A run started after this read is not here."""
        read_at = time.time()
        runs = {run.run_id: run for run in self.store.list_runs()}
        busy = {t.run_id for t in self.store.list_tasks() if t.state.live or t.state is TaskState.FINISHED}
        root = self.worktree_root()
        named = [p.name for p in root.iterdir() if p.is_dir()] if root.is_dir() else []
        return {run_id: read_at for run_id in named
                if run_id not in busy and (run_id not in runs or runs[run_id].state is RunState.LANDED)}

    def _stale_scratch(self, folder: Path, *, dry_run: bool, settled_at: float | None = None
                       ) -> tuple[list[str], list[str]]:
        """Tombstones in a scratch folder (deleted at once), and scratch worktrees older than any
        verification or relock may run (left by a crash). In a settled run (`_settled_runs`) a
        verification scratch worktree made before that was read is left by a finish killed during
        its verification, as nothing can verify there any more: removed at once (one made since
        belongs to a task started in the run after the read, and keeps the age rule)."""
        horizon = time.time() - 2 * max(self.config.verify_timeout, 3600.0)
        if settled_at is not None and folder.name == ".verify":
            horizon = settled_at
        children = sorted(_children(folder))
        tombstones = _delete_tombstones([c for c in children if is_tombstone(c)], dry_run=dry_run)
        stale = []
        for child in children:
            if is_tombstone(child):
                continue
            try:
                if child.stat().st_mtime >= horizon:
                    continue
            except FileNotFoundError:
                continue
            stale.append(str(child))
            if dry_run:
                continue
            if child.is_dir():
                self.git.remove_worktree(child)
            else:
                child.unlink(missing_ok=True)
        return tombstones, stale


class _IntegrationHistory:
    """Whether a commit is in a run's integration history, for many commits: the commits between the
    pin and each integration tip are walked once per run (a run's merges, not the repository's
    history), so asking for 1,000 merged branches costs one walk, not 1,000 graph searches. A commit
    outside that walk (the pin or older) is asked of git directly, as before."""

    def __init__(self, cleanup: "CleanupOperations"):
        self.cleanup = cleanup
        self.since_pin: dict[str, set[str]] = {}

    def holds(self, run: RunRecord, commit: str) -> bool:
        seen = self.since_pin.get(run.run_id)
        if seen is None:
            seen = set()
            git = self.cleanup.git
            tips = [git.ref_target(f"refs/heads/{run.integration_ref}")]
            if run.remote:
                tips.append(git.ref_target(f"refs/remotes/{run.remote}/{run.integration_ref}"))
            for tip in tips:
                if tip is not None and _valid_commit(git, tip) and git.has_commit(run.base):
                    seen.update(git.commits_between(run.base, tip))
            self.since_pin[run.run_id] = seen
        return commit in seen or self.cleanup._in_integration(run, commit)


def _valid_commit(git: "GitRepo", sha: str) -> bool:
    """Whether this repository holds `sha`; an id that is not one counts as held (nothing to fetch)."""
    try:
        return git.has_commit(sha)
    except ValueError:   # not an object id at all: nothing to read, nothing unknown
        return True


def _delete_tombstones(found: list[Path], *, dry_run: bool) -> list[str]:
    for tombstone in found:
        if not dry_run:
            delete_tombstone(tombstone)
    return [str(t) for t in found]


def _children(folder: Path) -> list[Path]:
    try:
        return list(folder.iterdir())
    except FileNotFoundError:
        return []
