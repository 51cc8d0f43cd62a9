"""The merge queue's kept verification worktree (`<root>/<run>/.verify/kept`): one per run, moved to
each candidate by a reset that writes only the files that differ, and made exactly the candidate's
tree before each command (what the last command left is gone); deleted or broken by hand, it is
built again, never a reason for git to act on the main checkout; the run's end (a land with nothing
left to merge) and `wtc gc` of a settled run remove it. Real git repositories, the real Coordinator."""

from __future__ import annotations

import os
from pathlib import Path

from tests.conftest import git, make_repo, write
from worktree_coord.coordinator import Coordinator

FILES = {"unchanged.txt": "never edited\n", "tracked.txt": "original\n", ".gitignore": "build/\n",
         "packages/a/f.txt": "a\n", "packages/b/f.txt": "b\n", "packages/c/f.txt": "c\n"}


def verify_command(log: Path) -> str:
    """Fails when anything the last verification left is here (an untracked file, an ignored build
    output, a changed tracked file); logs its folder and an unchanged file's inode; leaves all three."""
    return (f"test ! -e leftover.txt && test ! -e build/out.o && grep -qx original tracked.txt || exit 9; "
            f"echo \"$(pwd) $(stat -c %i unchanged.txt)\" >> {log}; "
            "echo x > leftover.txt; mkdir -p build; echo o > build/out.o; echo changed > tracked.txt")


def finish(coord: Coordinator, run: str, task: str) -> str:
    wt = Path(coord.start_task(run, task, [f"packages/{task}/**"]).worktree)
    write(wt, {f"packages/{task}/f.txt": f"{task} edited\n"})
    return coord.finish_task(run, task).state


def test_one_kept_worktree_is_moved_to_each_candidate_and_cleaned_before_each_command(tmp_path):
    repo = make_repo(tmp_path / "repo", FILES)
    log = tmp_path / "verify.log"
    with Coordinator(repo) as coord:
        coord.start_run("r", verify=verify_command(log))
        assert [finish(coord, "r", t) for t in ("a", "b", "c")] == ["merged"] * 3
        kept = coord.worktree_root() / "r" / ".verify" / "kept"
        rows = [line.split() for line in log.read_text().splitlines()]
        # One folder for all three, and the file no candidate changed was never written again.
        assert {folder for folder, _ in rows} == {str(kept)} and len(rows) == 3, rows
        assert len({inode for _, inode in rows}) == 1, rows
        # It holds the last candidate (integration's tip), debris of the last command aside.
        tip = git(repo, "rev-parse", "wtc/r/integration")
        assert git(kept, "rev-parse", "HEAD") == tip
        assert (kept / "packages/c/f.txt").read_text() == "c edited\n"


def test_a_kept_worktree_deleted_or_broken_by_hand_is_built_again(tmp_path):
    import shutil

    repo = make_repo(tmp_path / "repo", FILES)
    (repo / "mine.txt").write_text("the lead's own untracked file\n")
    log = tmp_path / "verify.log"
    with Coordinator(repo) as coord:
        coord.start_run("r", verify=verify_command(log))
        assert finish(coord, "r", "a") == "merged"
        kept = coord.worktree_root() / "r" / ".verify" / "kept"
        shutil.rmtree(kept)                                   # deleted by hand
        assert finish(coord, "r", "b") == "merged"
        assert git(kept, "rev-parse", "HEAD") == git(repo, "rev-parse", "wtc/r/integration")
        (kept / ".git").write_text("not a gitdir line\n")    # broken by hand: git would look upwards
        assert finish(coord, "r", "c") == "merged"
        assert git(kept, "rev-parse", "HEAD") == git(repo, "rev-parse", "wtc/r/integration")
    # The main checkout was never reset or cleaned in its place.
    assert (repo / "mine.txt").read_text() == "the lead's own untracked file\n"
    assert git(repo, "status", "--porcelain") == "?? mine.txt"
    assert len(log.read_text().splitlines()) == 3


def test_the_run_end_and_gc_remove_the_kept_worktree(tmp_path):
    from tests.conftest import wtc_in_process

    repo = make_repo(tmp_path / "repo", FILES)
    log = tmp_path / "verify.log"
    with Coordinator(repo) as coord:
        coord.start_run("r", verify=verify_command(log))
        assert finish(coord, "r", "a") == "merged"
        coord.start_run("s", verify=verify_command(log))
        assert finish(coord, "s", "b") == "merged"
        kept_r, kept_s = (coord.worktree_root() / run / ".verify" / "kept" for run in ("r", "s"))
        assert kept_r.is_dir() and kept_s.is_dir()
    code, landed = wtc_in_process(repo, "land", "--run", "r", "--onto", "main", "--yes")
    assert code == 0, landed
    assert not kept_r.exists()                                # the land ended the run
    assert str(kept_r) not in git(repo, "worktree", "list")
    # Run s is open and may verify again: gc keeps its worktree until the run settles.
    code, kept = wtc_in_process(repo, "gc")
    assert code == 0 and kept_s.is_dir(), kept
    os.utime(kept_s, (1, 1))   # unused longer than any verification may run: gc's age rule takes it
    code, done = wtc_in_process(repo, "gc")
    assert code == 0 and str(kept_s) in done["worktrees_removed"] and not kept_s.exists(), done
    assert str(kept_s) not in git(repo, "worktree", "list")
