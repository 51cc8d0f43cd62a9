"""Removing a worktree through a tombstone (issue 19): at its own path a worktree is whole or gone;
a removal killed at any step leaves nothing that a later start, update, finish or gc mistakes for an
agent's work, and nothing that blocks a new worktree at the same path."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import git, write, wtc_in_process
from worktree_coord.coordinator import Coordinator
from worktree_coord.gitrepo import TOMBSTONE_PREFIX, bury, delete_tombstone, is_tombstone

WTC = [sys.executable, "-m", "worktree_coord"]


def _killed(repo: Path, point: str, *args: str) -> None:
    done = subprocess.run(WTC + [*args, "--json"], cwd=repo, env=dict(os.environ, WTC_CRASH_AT=point),
                          capture_output=True)
    assert done.returncode == -9, done.stderr


def _tombstones(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if is_tombstone(p)) if folder.is_dir() else []


def _started_with_edit(repo: Path, task: str = "t", own: str = "packages/api/**",
                       files: dict[str, str] | None = None) -> Path:
    code, started = wtc_in_process(repo, "task", "start", task, "--run", "r1", "--own", own)
    assert code == 0, started
    wt = Path(started["worktree"])
    write(wt, files or {"packages/api/index.js": "export function api() {\n  return 42;\n}\n"})
    return wt


def test_bury_renames_in_one_step_and_delete_tombstone_never_needs_the_original(tmp_path):
    folder = tmp_path / "run" / "t"
    write(folder, {"a.txt": "a", "sub/b.txt": "b", "sub/deep/c.txt": "c"})
    os.symlink(tmp_path / "outside", folder / "link")  # a dangling link the agent left
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "keep.txt").write_text("not ours")
    os.chmod(folder / "sub", 0o500)  # read-only folder
    tombstone = bury(folder)
    assert tombstone is not None and not folder.exists() and tombstone.parent == folder.parent
    assert tombstone.name.startswith(TOMBSTONE_PREFIX) and tombstone.name.endswith("@t")
    assert (tombstone / "sub/deep/c.txt").read_text() == "c", "the rename moved everything at once"
    delete_tombstone(tombstone)
    assert not tombstone.exists()
    assert (tmp_path / "outside" / "keep.txt").read_text() == "not ours", "links are removed, never followed"
    assert bury(folder) is None, "nothing to bury"
    delete_tombstone(tombstone)  # a second deletion (gc beside a finish) is a no-op


def test_finish_killed_after_the_rename_leaves_a_tombstone_that_gc_deletes_unread(repo):
    wtc_in_process(repo, "run", "start", "--run", "r1")
    pin = git(repo, "rev-parse", "HEAD")
    wt = _started_with_edit(repo)
    _killed(repo, "remove.after_rename", "task", "finish", "t", "--run", "r1")
    recorded = git(repo, "rev-parse", "wtc/r1/t")
    assert not wt.exists(), "at its own path the worktree is gone at once"
    [tombstone] = _tombstones(wt.parent)
    assert (tombstone / "packages/api/index.js").is_file() and (tombstone / ".git").is_file()
    assert "prunable" in git(repo, "worktree", "list", "--porcelain"), "the admin entry is not yet pruned"
    code, report = wtc_in_process(repo, "gc")
    assert code == 0 and report["tombstones_removed"] == [str(tombstone)] and report["snapshots"] == []
    assert report["admin_entries_pruned"], report
    assert not tombstone.exists() and len(git(repo, "worktree", "list", "--porcelain").split("\n\n")) == 1
    assert git(repo, "rev-parse", "wtc/r1/t") == recorded
    code, finished = wtc_in_process(repo, "task", "finish", "t", "--run", "r1")
    assert code == 0 and finished["state"] == "merged" and finished["commit"] == recorded
    assert git(repo, "log", "--format=%an", f"{pin}..wtc/r1/t").splitlines() == ["wtc task t"]
    assert git(repo, "ls-tree", "-r", "--name-only", "wtc/r1/integration") == git(
        repo, "ls-tree", "-r", "--name-only", pin)


def test_finish_killed_half_way_through_deleting_the_tombstone(repo):
    wtc_in_process(repo, "run", "start", "--run", "r1")
    wt = _started_with_edit(repo)
    _killed(repo, "remove.half_deleted", "task", "finish", "t", "--run", "r1")
    [tombstone] = _tombstones(wt.parent)
    left = {p.name for p in tombstone.iterdir()}
    assert left and left < {".git", ".wtc", "README.md", "docs", "package.json", "packages"}, left
    assert "prunable" not in git(repo, "worktree", "list", "--porcelain"), "pruned before the deletion began"
    code, finished = wtc_in_process(repo, "task", "finish", "t", "--run", "r1")  # the retry does not need the folder
    assert code == 0 and finished["state"] == "merged"
    assert not tombstone.exists(), "the task's retry deletes its own tombstone"
    code, report = wtc_in_process(repo, "gc")
    assert report["tombstones_removed"] == [] and not (repo / ".wtc/worktrees/r1").exists()


def test_a_finish_run_again_after_a_kill_mid_removal_leaves_no_copy_of_the_repository_in_the_checkout(repo):
    """Found driving wtc on commander.js: a finish killed (kill -9) after its rename, run again, merged,
    and left `.wtc/worktrees/r1/.wtc-tombstone@...@kill5` (a whole copy of the repository) in the
    checkout until a `wtc gc`: `node --test` in the checkout ran every test twice. The task's own
    retry deletes the tombstones of its worktree, never another task's."""
    wtc_in_process(repo, "run", "start", "--run", "r1")
    wt = _started_with_edit(repo)
    other = _started_with_edit(repo, "t2", "packages/core/**", {"packages/core/lib.py": "def core():\n    return 2\n"})
    _killed(repo, "remove.after_rename", "task", "finish", "t", "--run", "r1")
    _killed(repo, "remove.after_rename", "task", "finish", "t2", "--run", "r1")
    assert len(_tombstones(wt.parent)) == 2 and not wt.exists() and not other.exists()
    code, finished = wtc_in_process(repo, "task", "finish", "t", "--run", "r1")
    assert code == 0 and finished["state"] == "merged", finished
    [left] = _tombstones(wt.parent)
    assert left.name.endswith("@t2"), "another task's tombstone is that task's (or gc's) to delete"
    code, finished = wtc_in_process(repo, "task", "finish", "t2", "--run", "r1")
    assert code == 0 and finished["state"] == "merged", finished
    assert _tombstones(wt.parent) == []


def test_a_removal_killed_after_the_rename_does_not_block_a_new_worktree_at_the_same_path(repo):
    """A task in conflict whose finish was killed mid-removal: `task update` makes its worktree again
    at the same path, on the same branch, although the old admin entry was never pruned."""
    wtc_in_process(repo, "run", "start", "--run", "r1")
    for name in ("t1", "t2"):
        _started_with_edit(repo, name, "packages/core/**", {"packages/core/lib.py": f"def core():\n    return '{name}'\n"})
    assert wtc_in_process(repo, "task", "finish", "t1", "--run", "r1")[1]["state"] == "merged"
    _killed(repo, "remove.after_rename", "task", "finish", "t2", "--run", "r1")
    assert (repo / ".git/worktrees/t2").is_dir(), "the stale admin entry is still there"
    code, again = wtc_in_process(repo, "task", "finish", "t2", "--run", "r1")
    assert code == 1 and again["state"] == "conflict"
    code, updated = wtc_in_process(repo, "task", "update", "t2", "--run", "r1")
    assert code == 1 and updated["conflicted_paths"] == ["packages/core/lib.py"], updated
    wt = Path(updated["worktree"])
    assert wt == repo / ".wtc/worktrees/r1/t2" and "<<<<<<<" in (wt / "packages/core/lib.py").read_text()
    assert git(wt, "symbolic-ref", "HEAD") == "refs/heads/wtc/r1/t2"


def test_gc_deletes_tombstones_in_scratch_folders_and_keeps_fresh_scratch(repo):
    with Coordinator(repo) as coord:
        coord.start_run("r1")
        scratch = coord.worktree_root() / "r1" / ".verify"
        fresh = scratch / "verify-abc"
        write(fresh, {"x.txt": "running verification"})
        tombstone = scratch / f"{TOMBSTONE_PREFIX}0011aabb@verify-old"
        write(tombstone, {"half/removed.txt": "x"})
        report = coord.gc()
        assert report.tombstones_removed == [str(tombstone)] and not tombstone.exists()
        assert fresh.exists() and report.worktrees_removed == []


def test_gc_keeps_a_worktree_no_task_owns_when_it_holds_work(repo):
    """A registered worktree under the root with no task row (a store that was reset): gc neither
    commits it nor deletes it while it holds changes; missing files alone are not work."""
    with Coordinator(repo) as coord:
        coord.start_run("r1")
        with_work = coord.worktree_root() / "r1" / "lost"
        only_missing = coord.worktree_root() / "r1" / "gone"
        git(repo, "worktree", "add", "-q", "-b", "wtc/r1/lost", str(with_work), "HEAD")
        git(repo, "worktree", "add", "-q", "-b", "wtc/r1/gone", str(only_missing), "HEAD")
        write(with_work, {"packages/web/index.js": "changed\n"})
        (only_missing / "README.md").unlink()
        (only_missing / "docs/guide.md").unlink()
        tip = git(repo, "rev-parse", "wtc/r1/lost")
        report = coord.gc()
        assert report.worktrees_removed == [str(only_missing)] and not only_missing.exists()
        assert [k["folder"] for k in report.kept] == [str(with_work)] and "1 uncommitted" in report.kept[0]["why"]
        assert (with_work / "packages/web/index.js").read_text() == "changed\n"
        assert git(repo, "rev-parse", "wtc/r1/lost") == tip and git(repo, "rev-parse", "wtc/r1/gone") == tip


def test_abandon_snapshots_the_agents_work_but_never_a_missing_file(repo):
    """A live task's worktree that an old removal left half deleted (before tombstones): abandon keeps
    the agent's new and changed files and the deletion it staged itself, and records no other deletion."""
    wtc_in_process(repo, "run", "start", "--run", "r1")
    wt = _started_with_edit(repo, files={"packages/api/index.js": "changed\n", "packages/api/new.js": "new\n"})
    git(wt, "rm", "-q", "packages/api/package.json")                  # the agent's own, staged deletion
    for rel in ("README.md", "docs/guide.md", "packages/web/index.js"):  # what an interrupted removal deleted
        (wt / rel).unlink()
    code, body = wtc_in_process(repo, "task", "abandon", "t", "--run", "r1")
    assert code == 0 and body["snapshot"], body
    changed = git(repo, "show", "--name-status", "--format=", body["snapshot"]).splitlines()
    assert sorted(changed) == ["A\tpackages/api/new.js", "D\tpackages/api/package.json", "M\tpackages/api/index.js"]
    assert "3 tracked file(s) missing" in body["notes"][0] and "docs/guide.md" in body["notes"][0]
    assert not wt.exists()


def _logging_rm(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """An environment whose PATH finds first an `rm` that logs each command line and runs the real one."""
    import shutil

    real = shutil.which("rm")
    assert real is not None
    bin_dir = tmp_path / "logging-bin"
    bin_dir.mkdir()
    log = tmp_path / "rm.log"
    (bin_dir / "rm").write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{log}"\nexec "{real}" "$@"\n')
    os.chmod(bin_dir / "rm", 0o755)
    return {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}, log


MANY = 700   # entries past bulk_removal.MANY_ENTRIES (test_the_large_trees_here_are_past_the_threshold)


def test_the_large_trees_here_are_past_the_threshold():
    from worktree_coord.gitrepo.bulk_removal import MANY_ENTRIES

    assert MANY > MANY_ENTRIES


def _many_files(folder: Path, count: int = MANY) -> None:
    write(folder, {f"packages/p{i // 8:03d}/src/m{i}.py": "x = 1\n" for i in range(count)})


def test_a_large_tombstone_goes_by_two_rm_processes_and_a_small_one_by_none(tmp_path, monkeypatch):
    """A worktree checked out whole (thousands of entries) is deleted by `rm -rf`, one process each
    side of the half-way crash point, not by Python's walk of each entry (bulk_removal.py); a small
    one starts no process. Links are removed, never followed; a read-only folder goes too."""
    env, log = _logging_rm(tmp_path)
    monkeypatch.setenv("PATH", env["PATH"])
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "keep.txt").write_text("not ours")
    large = tmp_path / "run" / "large"
    _many_files(large)
    write(large, {"README.md": "r", "docs/a.md": "a"})
    os.symlink(tmp_path / "outside", large / "packages" / "link")
    os.chmod(large / "docs", 0o500)
    small = tmp_path / "run" / "small"
    write(small, {"a.txt": "a", "sub/b.txt": "b"})

    delete_tombstone(bury(small))
    assert not log.exists(), "a small tombstone starts no process"
    tombstone = bury(large)
    delete_tombstone(tombstone)
    assert not tombstone.exists() and not large.exists()
    assert (tmp_path / "outside" / "keep.txt").read_text() == "not ours", "links are removed, never followed"
    lines = log.read_text().splitlines()
    assert len(lines) == 2 and all(line.startswith("-rf -- /") for line in lines), lines
    assert lines[1] == f"-rf -- {tombstone}"


def test_a_large_tombstone_is_deleted_without_rm_on_path(tmp_path, monkeypatch):
    empty = tmp_path / "no-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    large = tmp_path / "run" / "large"
    _many_files(large)
    tombstone = bury(large)
    delete_tombstone(tombstone)
    assert not tombstone.exists()


def test_a_finish_of_a_whole_checkout_killed_half_way_through_its_rm(tmp_path):
    """The half-way crash point of a large tombstone's deletion (between its two `rm` processes):
    part of the tombstone is left, the admin entry is pruned, and the task's retry deletes the rest."""
    from tests.conftest import commit, make_repo

    repo = make_repo(tmp_path / "repo")
    commit(repo, {f"packages/p{i // 8:03d}/src/m{i}.py": "x = 1\n" for i in range(MANY)}, "many files")
    env, log = _logging_rm(tmp_path)
    wtc_in_process(repo, "run", "start", "--run", "r1")
    wt = _started_with_edit(repo)
    assert (wt / "packages/p000/src/m0.py").is_file(), "checked out whole"
    done = subprocess.run(WTC + ["task", "finish", "t", "--run", "r1", "--json"], cwd=repo,
                          env=dict(os.environ, WTC_CRASH_AT="remove.half_deleted", **env), capture_output=True)
    assert done.returncode == -9, done.stderr
    assert len(log.read_text().splitlines()) == 1, "killed between its two rm processes"
    [tombstone] = _tombstones(wt.parent)
    left = {p.name for p in tombstone.iterdir()}
    assert left and left < {".git", ".wtc", "README.md", "docs", "package.json", "packages"}, left
    assert "prunable" not in git(repo, "worktree", "list", "--porcelain"), "pruned before the deletion began"
    code, finished = wtc_in_process(repo, "task", "finish", "t", "--run", "r1")
    assert code == 0 and finished["state"] == "merged"
    assert not tombstone.exists(), "the task's retry deletes its own tombstone"
