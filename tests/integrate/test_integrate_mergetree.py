"""The persistent `git merge-tree --stdin` client: records parsed, conflicts staged, restarts, fallback."""

from __future__ import annotations

import pytest

from integrate_helpers import base_repo, commit, git, tree_of
from worktree_coord.errors import GitError
from worktree_coord.integrate import MergeTreeProcess, merge_tree_once


@pytest.fixture()
def repo_and_base(tmp_path):
    return base_repo(tmp_path / "repo")


def test_clean_merge_matches_one_shot_and_git(repo_and_base):
    repo, base = repo_and_base
    ours = commit(repo, [base], {"packages/p00/src/m00.py": b"ours\n"})
    theirs = commit(repo, [base], {"packages/p01/src/m00.py": b"theirs\n", "packages/p02/src/m01.py": None})
    with MergeTreeProcess(repo.path) as proc:
        assert proc.persistent
        outcome = proc.merge(str(ours), str(theirs))
        again = proc.merge(str(ours), str(theirs))
        assert proc.spawns == 1
    once = merge_tree_once(repo.path, str(ours), str(theirs))
    assert outcome.clean and not outcome.conflicts
    assert outcome.tree == again.tree == once.tree
    tree = repo[outcome.tree]
    assert tree["packages/p00/src/m00.py"].data == b"ours\n"
    assert tree["packages/p01/src/m00.py"].data == b"theirs\n"
    assert "packages/p02/src/m01.py" not in tree
    cli = git(repo.path, "merge-tree", "--write-tree", str(ours), str(theirs)).split()[0]
    assert cli == outcome.tree


def test_conflict_entries_are_grouped_by_path_with_stages(repo_and_base):
    repo, base = repo_and_base
    ours = commit(repo, [base], {"README.md": b"ours\n", "packages/p00/src/m00.py": None})
    theirs = commit(repo, [base], {"README.md": b"theirs\n", "packages/p00/src/m00.py": b"edited\n"})
    with MergeTreeProcess(repo.path) as proc:
        outcome = proc.merge(str(ours), str(theirs))
    once = merge_tree_once(repo.path, str(ours), str(theirs))
    assert not outcome.clean and not once.clean
    by_path = {c.path: c for c in outcome.conflicts}
    assert set(by_path) == {"README.md", "packages/p00/src/m00.py"} == {c.path for c in once.conflicts}
    readme = by_path["README.md"]
    assert readme.base.oid == str(repo[base].tree["README.md"].id)
    assert repo[readme.ours.oid].data == b"ours\n" and repo[readme.theirs.oid].data == b"theirs\n"
    assert readme.ours.mode == 0o100644
    deleted = by_path["packages/p00/src/m00.py"]
    assert deleted.ours is None and repo[deleted.theirs.oid].data == b"edited\n"
    # The written tree carries git's conflict markers for the content conflict.
    assert b"<<<<<<<" in repo[outcome.tree]["README.md"].data


def test_commit_written_after_start_is_seen_without_restart(repo_and_base):
    repo, base = repo_and_base
    with MergeTreeProcess(repo.path) as proc:
        a = commit(repo, [base], {"packages/p00/src/m00.py": b"a\n"})
        first = proc.merge(str(base), str(a))
        b = commit(repo, [base], {"packages/p01/src/m00.py": b"b\n"})   # written after git started
        second = proc.merge(str(a), str(b))
        assert proc.spawns == 1
    assert first.clean and second.clean
    assert repo[second.tree]["packages/p01/src/m00.py"].data == b"b\n"


def test_bad_line_raises_git_error_and_next_merge_restarts(repo_and_base):
    repo, base = repo_and_base
    a = commit(repo, [base], {"packages/p00/src/m00.py": b"a\n"})
    with MergeTreeProcess(repo.path) as proc:
        with pytest.raises(GitError) as info:
            proc.merge("0" * 40, str(a))
        assert "merge-tree" in info.value.message
        outcome = proc.merge(str(base), str(a))
        assert outcome.clean and proc.spawns == 2


def test_killed_git_is_restarted(repo_and_base):
    repo, base = repo_and_base
    a = commit(repo, [base], {"packages/p00/src/m00.py": b"a\n"})
    with MergeTreeProcess(repo.path) as proc:
        proc.merge(str(base), str(a))
        proc._proc.kill()
        proc._proc.wait()
        assert proc.merge(str(base), str(a)).clean
        assert proc.spawns == 2


def test_one_spawn_per_merge_when_not_persistent(repo_and_base):
    repo, base = repo_and_base
    ours = commit(repo, [base], {"packages/p00/src/m00.py": b"ours\n"})
    theirs = commit(repo, [base], {"packages/p01/src/m00.py": b"theirs\n"})
    proc = MergeTreeProcess(repo.path, persistent=False)
    outcome = proc.merge(str(ours), str(theirs))
    assert proc.spawns == 0 and outcome.clean
    assert outcome.tree == merge_tree_once(repo.path, str(ours), str(theirs)).tree


def test_git_picks_the_newer_shared_base_for_a_stacked_task(repo_and_base):
    """Task B is built on task A; A is already merged. git's own merge base is A (not the pinned
    commit), so a change integration made on top of A's file after merging A is kept, not undone."""
    repo, base = repo_and_base
    path = "packages/p00/src/m00.py"
    task_a = commit(repo, [base], {path: b"from A\n"})
    integ1 = commit(repo, [base, task_a], {}, base_tree=tree_of(repo, task_a))
    integ2 = commit(repo, [integ1], {path: repo[base].tree[path].data})     # integration reverts A's line
    task_b = commit(repo, [task_a], {"packages/p01/src/m00.py": b"from B\n"})
    with MergeTreeProcess(repo.path) as proc:
        outcome = proc.merge(str(integ2), str(task_b))
    assert outcome.clean
    merged = repo[outcome.tree]
    assert merged[path].data == repo[base].tree[path].data   # the revert stands
    assert merged["packages/p01/src/m00.py"].data == b"from B\n"



def test_without_stdbuf_on_path_it_spawns_per_merge(repo_and_base, tmp_path, monkeypatch):
    import os
    import shutil

    repo, base = repo_and_base
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    os.symlink(shutil.which("git"), bin_dir / "git")          # git, but no stdbuf
    monkeypatch.setenv("PATH", str(bin_dir))
    theirs = commit(repo, [base], {"packages/p01/src/m00.py": b"theirs\n"})
    proc = MergeTreeProcess(repo.path)
    assert not proc.persistent
    outcome = proc.merge(str(base), str(theirs))
    assert outcome.clean and proc.spawns == 0
    assert repo[outcome.tree]["packages/p01/src/m00.py"].data == b"theirs\n"
