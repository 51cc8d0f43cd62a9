"""Regression tests for what the swarm stress harness found (scripts/STRESS.md, findings 1-7)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import git, write, wtc
from worktree_coord.coordinator import Coordinator
from worktree_coord.errors import BusyError

WTC = [sys.executable, "-m", "worktree_coord"]


def killed_start(repo: Path) -> None:
    done = subprocess.run(WTC + ["task", "start", "t", "--run", "r1", "--own", "packages/api/**", "--json"], cwd=repo,
                          env=dict(os.environ, WTC_CRASH_AT="start.after_record"), capture_output=True)
    assert done.returncode == -9


def test_start_killed_between_registration_and_checkout_is_completed_by_the_retry(repo):
    wtc(repo, "run", "start", "--run", "r1")
    killed_start(repo)
    git(repo, "worktree", "add", "-q", "--no-checkout", "-b", "wtc/r1/t", ".wtc/worktrees/r1/t", "HEAD")
    code, started = wtc(repo, "task", "start", "t", "--run", "r1", "--own", "packages/api/**")
    assert code == 0
    wt = Path(started["worktree"])
    assert (wt / "packages/api/index.js").is_file() and git(wt, "status", "--porcelain") == ""


def test_a_killed_worktree_add_leaves_no_permanent_lock(repo):
    wtc(repo, "run", "start", "--run", "r1")
    killed_start(repo)
    git(repo, "worktree", "add", "-q", "-b", "wtc/r1/t", ".wtc/worktrees/r1/t", "HEAD")
    (repo / ".git/worktrees/t/locked").write_text("initializing\n")
    import shutil

    shutil.rmtree(repo / ".wtc/worktrees/r1/t")  # the folder never got made
    code, started = wtc(repo, "task", "start", "t", "--run", "r1", "--own", "packages/api/**")
    assert code == 0, started
    write(Path(started["worktree"]), {"packages/api/index.js": "x\n"})
    assert wtc(repo, "task", "finish", "t", "--run", "r1")[1]["state"] == "merged"
    wtc(repo, "gc")
    assert "locked" not in git(repo, "worktree", "list", "--porcelain")


@pytest.mark.parametrize("where", [".git/worktrees/t/index.lock", ".git/worktrees/t/HEAD.lock",
                                   ".git/refs/heads/wtc/r1/t.lock"])
def test_without_a_process_list_a_worktree_lock_is_busy_until_old_then_removed(repo, where, monkeypatch, tmp_path):
    """A served finish killed with its process group kills git mid-commit: index.lock or HEAD.lock
    (the worktree's) or the branch's lock stays and every later commit failed ("cannot lock ref"), a
    swarm invariant broken. Where the system cannot say which git processes run (no /proc: the
    rule of tests/core/test_killed_git_locks.py cannot prove the lock free), age decides: fresh,
    busy naming the file; old, removed, and the finish commits and merges."""
    from worktree_coord.gitrepo import git_locks

    monkeypatch.setattr(git_locks, "PROC", tmp_path / "no-proc")
    with Coordinator(repo) as coord:
        coord.start_run("r1")
        wt = Path(coord.start_task("r1", "t", ["packages/api/**"]).worktree)
        write(wt, {"packages/api/index.js": "x\n"})
        lock = repo / where
        lock.parent.mkdir(parents=True, exist_ok=True)
        lock.write_text("0" * 40 + "\n")
        with pytest.raises(BusyError) as busy:
            coord.finish_task("r1", "t")
        assert str(lock) in busy.value.fix and lock.exists()
        old = time.time() - 3600
        os.utime(lock, (old, old))
        done = coord.finish_task("r1", "t")
        assert done.state == "merged" and not lock.exists()
        assert any(str(lock) in note for note in done.notes)


def test_gc_removes_a_stale_integration_ref_lock(repo):
    with Coordinator(repo) as coord:
        coord.start_run("r1")
        lock = repo / ".git/refs/heads/wtc/r1/integration.lock"
        lock.touch()
        assert coord.gc().admin_entries_pruned == [], "a fresh lock may belong to a running update"
        old = time.time() - 3600
        os.utime(lock, (old, old))
        assert "refs/heads/wtc/r1/integration.lock" in coord.gc().admin_entries_pruned
        assert not lock.exists()


def test_gc_never_touches_the_worktree_of_a_live_task_even_one_it_did_not_see_listed(repo):
    with Coordinator(repo) as coord:
        coord.start_run("r1")
        for name in ("t1", "t2"):
            wt = Path(coord.start_task("r1", name, ["packages/core/**"]).worktree)
            write(wt, {"packages/core/lib.py": f"{name}\n"})
            coord.finish_task("r1", name)
        assert coord.store.get_task("r1", "t2").state.value == "conflict"
        # what `task update t2` has done before it records anything: a registered, unpopulated folder
        git(repo, "worktree", "add", "-q", "--no-checkout", ".wtc/worktrees/r1/t2", "wtc/r1/t2")
        report = coord.gc()
        assert report.snapshots == [] and (repo / ".wtc/worktrees/r1/t2").exists()
        assert git(repo, "log", "-1", "--format=%an", "wtc/r1/t2") == "wtc task t2", "no gc commit on the branch"


def test_gc_skips_a_folder_that_vanishes_while_it_looks(repo):
    with Coordinator(repo) as coord:
        coord.start_run("r1")
        coord.start_task("r1", "t", ["packages/api/**"])
        coord.finish_task("r1", "t")
        stray = coord.worktree_root() / "r1" / "gone"
        stray.mkdir(parents=True)
        original = coord._collect_folder

        def vanish_first(run_id, task_id, folder, *, dry_run):  # a finish removes it first
            if folder == stray:
                stray.rmdir()
            return original(run_id, task_id, folder, dry_run=dry_run)

        coord._collect_folder = vanish_first
        coord.gc()  # no FileNotFoundError
        assert not stray.exists()


def test_drain_reports_a_task_its_own_finish_is_merging_instead_of_waiting(repo):
    with Coordinator(repo) as coord:
        coord.start_run("r1")
        wt = Path(coord.start_task("r1", "t", ["packages/api/**"]).worktree)
        write(wt, {"packages/api/index.js": "x\n"})
        assert coord.finish_task("r1", "t", merge=False).state == "finished"
        holder = subprocess.Popen([sys.executable, "-c", (
            "import sys, time\n"
            "from worktree_coord.store import leases\n"
            "from worktree_coord.store import SQLiteStore\n"
            f"store = SQLiteStore({coord.store.location!r})\n"
            "with leases.hold(store, 'task:r1/t', timeout=5):\n"
            "    print('held', flush=True)\n"
            "    time.sleep(30)\n")], stdout=subprocess.PIPE, text=True)
        try:
            assert holder.stdout.readline().strip() == "held"
            started = time.monotonic()
            drained = coord.merge("r1")
            assert drained.tasks == [{"task": "t", "state": "in_progress", "conflicts": [], "merge_commit": None}]
            assert time.monotonic() - started < 10
        finally:
            holder.kill()
            holder.wait()
        assert coord.merge("r1").tasks[0]["state"] == "merged"


# ---- issue 19: a half-removed worktree is not uncommitted work ---------------------------------------

def _finish_killed_at(repo: Path, task: str, point: str) -> None:
    done = subprocess.run(WTC + ["task", "finish", task, "--run", "r1", "--json"], cwd=repo,
                          env=dict(os.environ, WTC_CRASH_AT=point), capture_output=True)
    assert done.returncode == -9, done.stderr


def _remove_half(folder: Path) -> list[str]:
    """What a removal killed half-way left before tombstones: whole subtrees and files gone, the rest
    (the .git file and the task manifest included) still there. Returns the paths it deleted."""
    import shutil

    gone = []
    for rel in ("README.md", "package.json", "docs", "packages/web"):
        target = folder / rel
        gone += [str(p.relative_to(folder)) for p in ([target] if target.is_file() else target.rglob("*"))
                 if p.is_file()]
        shutil.rmtree(target) if target.is_dir() else target.unlink()
    return gone


def _authors(repo: Path, rev: str, since: str) -> list[str]:
    return git(repo, "log", "--format=%an", f"{since}..{rev}").splitlines()


def test_gc_never_snapshots_the_half_removed_worktree_of_a_finished_task(repo):
    wtc(repo, "run", "start", "--run", "r1")
    pin = git(repo, "rev-parse", "HEAD")
    code, started = wtc(repo, "task", "start", "t", "--run", "r1", "--own", "packages/api/**")
    wt = Path(started["worktree"])
    write(wt, {"packages/api/index.js": "export function api() {\n  return 42;\n}\n"})
    _finish_killed_at(repo, "t", "finish.after_record")
    recorded = git(repo, "rev-parse", "wtc/r1/t")
    assert _remove_half(wt)
    code, report = wtc(repo, "gc")
    assert code == 0 and report["snapshots"] == []
    assert git(repo, "rev-parse", "wtc/r1/t") == recorded, "gc moved a finished task's branch"
    assert _authors(repo, "wtc/r1/t", pin) == ["wtc task t"]
    assert not wt.exists()
    code, finished = wtc(repo, "task", "finish", "t", "--run", "r1")  # the agent's retry, same key
    assert code == 0 and finished["state"] == "merged" and finished["commit"] == recorded
    tree = git(repo, "ls-tree", "-r", "--name-only", "wtc/r1/integration").splitlines()
    assert sorted(tree) == sorted(git(repo, "ls-tree", "-r", "--name-only", pin).splitlines()), "nothing deleted"
    assert "return 42" in git(repo, "show", "wtc/r1/integration:packages/api/index.js")
    assert git(repo, "rev-parse", "wtc/r1/t") == recorded


def test_abandon_never_snapshots_the_half_removed_worktree_of_a_finished_task(repo):
    wtc(repo, "run", "start", "--run", "r1")
    pin = git(repo, "rev-parse", "HEAD")
    code, started = wtc(repo, "task", "start", "t", "--run", "r1", "--own", "packages/api/**")
    wt = Path(started["worktree"])
    write(wt, {"packages/api/index.js": "export function api() {\n  return 42;\n}\n"})
    _finish_killed_at(repo, "t", "finish.after_record")
    recorded = git(repo, "rev-parse", "wtc/r1/t")
    _remove_half(wt)
    # A finished task waiting for its merge may be abandoned; its recorded commit holds the work, and
    # the folder its killed finish half removed is dropped, never committed.
    code, body = wtc(repo, "task", "abandon", "t", "--run", "r1")
    assert code == 0 and body["state"] == "abandoned" and body["snapshot"] is None, body
    assert git(repo, "rev-parse", "wtc/r1/t") == recorded
    assert _authors(repo, "wtc/r1/t", pin) == ["wtc task t"]
    assert not wt.exists()
    code, merged = wtc(repo, "merge", "--run", "r1")
    assert code == 0 and merged["tasks"] == [], merged
    assert git(repo, "ls-tree", "-r", "--name-only", "wtc/r1/integration") == git(
        repo, "ls-tree", "-r", "--name-only", pin)


def test_a_finished_task_that_the_drain_sends_to_conflict_keeps_no_half_removed_worktree(repo):
    """A finish killed while removing its worktree, then drained into a conflict: the task is live
    again, and its leftover folder must not become "work" for abandon, update or finish."""
    wtc(repo, "run", "start", "--run", "r1")
    pin = git(repo, "rev-parse", "HEAD")
    for name in ("t1", "t2"):
        code, started = wtc(repo, "task", "start", name, "--run", "r1", "--own", "packages/core/**")
        write(Path(started["worktree"]), {"packages/core/lib.py": f"def core():\n    return '{name}'\n"})
    assert wtc(repo, "task", "finish", "t1", "--run", "r1")[1]["state"] == "merged"
    wt = repo / ".wtc/worktrees/r1/t2"
    _finish_killed_at(repo, "t2", "finish.after_record")
    recorded = git(repo, "rev-parse", "wtc/r1/t2")
    _remove_half(wt)
    code, drained = wtc(repo, "merge", "--run", "r1")
    assert code == 1 and drained["tasks"][0]["state"] == "conflict"
    assert not wt.exists(), "the finished task's leftover folder goes before its merge"
    code, abandoned = wtc(repo, "task", "abandon", "t2", "--run", "r1")
    assert code == 0 and abandoned["snapshot"] is None
    assert git(repo, "rev-parse", "wtc/r1/t2") == recorded
    assert _authors(repo, "wtc/r1/t2", pin) == ["wtc task t2"]
