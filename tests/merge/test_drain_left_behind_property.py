"""Generated drains: at every merge, the left-behind look as a drain makes it (the pin's word index
and the merged tree's changes for `git grep`, the merge index the merge's own semantic check filled:
its symbols, its imports, its blobs' words, the task's changes and the merged tree's from the pin,
all kept across the drain's merges; the defining query's matches the check ran; a deleted module's
definitions read only where a file spells its word) finds what a fresh look finds, which keeps
nothing, reads every deleted file, walks the task's trees with `git.changes` and the merged tree's
folders, and greps the merged tree (check/left_behind.py). Over the files and changes of
test_drain_imports_property (removals, renames, reshapes, deleted files, dropped re-exports,
shadowing files, new uses) and moves: a file moved whole, moved and edited, and moved with a stub
left at its old path."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.merge.drains import drain_of
from tests.merge.test_drain_imports_property import CHANGES, KEEP, PIN, SHADOW, TAKE_AWAY, USES
from worktree_coord.check import left_behind
from worktree_coord.check.left_behind import (_broken_uses, _mentioning_from_tables, _merged_reader, task_changes_kept,
                                              source_reader)
from worktree_coord.gitrepo.repository import GitRepo
from worktree_coord.merge import check_tree_merge
from worktree_coord.merge.checks import symbols
from worktree_coord.merge.checks.merge_index import index_folder, shared_index

MOVES: dict[str, dict[str, str | None]] = {
    "move-d": {"pkg/d.py": None, "pkg/d_moved.py": PIN["pkg/d.py"]},
    "move-util-edited": {"lib/util.py": None, "lib/tools.py": PIN["lib/util.py"] + "def u3(x):\n    return 3\n"},
    "stub-b": {"pkg/b.py": "from .b_new import *\n", "pkg/b_new.py": PIN["pkg/b.py"]},
    "move-e-renamed": {"pkg/e.py": None, "pkg/e2.py": PIN["pkg/e.py"].replace("e1", "e1x")},
}
ALL = CHANGES + sorted(MOVES)


def _look(git: GitRepo, base: str, task: str, merged: str, kept: bool) -> tuple[list, list[str]]:
    """The look at one merge: as left_behind_at_merge makes it (`kept`), or keeping nothing."""
    partial: list[str] = []
    index = shared_index(index_folder(git.repo))
    if kept:
        changes, reader, grep = task_changes_kept(git, base, task, index), _merged_reader(git, base, merged, index), \
            _mentioning_from_tables(git, base)
    else:
        changes, reader, grep = git.changes(base, task), source_reader(git), git.files_mentioning
        symbols._MATCHES.clear()   # (no defining matches an earlier extraction ran)
    defer, left_behind.DEFER_DELETED = left_behind.DEFER_DELETED, kept
    try:
        found = _broken_uses(changes, git.read_blob, base, grep, reader, at=merged, folders_at=git.folders_at,
                             partial=partial, kept=index if kept else None)
    finally:
        left_behind.DEFER_DELETED = defer
    return sorted(found, key=repr), partial


def _compare(root, plan: list[list[str]]) -> int:
    """Each merge's kept look against a fresh one; how many merges found a use left behind."""

    def writes_of(number: int, change: str) -> dict[str, str | None]:
        if change in USES:
            folder, text = USES[change]
            return {f"{folder}/use_{number}_{change.replace('-', '_')}.py": text}
        return {**TAKE_AWAY, **SHADOW, **KEEP, **MOVES}[change]

    repo, merges = drain_of(root / "repo.git", PIN, plan, writes_of)
    git = GitRepo(str(root / "repo.git"))
    index = shared_index(index_folder(git.repo))
    looked = 0
    with index.held():   # as `wtc merge` holds it for its drain
        for number, (pin, tip, task, merged) in enumerate(merges):
            check_tree_merge(repo, pin, tip, task, merged, index=index)   # the merge's own check first
            kept = _look(git, pin, task, merged, kept=True)
            assert kept == _look(git, pin, task, merged, kept=False), (number, plan)
            looked += bool(kept[0])
    return looked


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(plan=st.lists(st.lists(st.sampled_from(ALL), min_size=1, max_size=3), min_size=2, max_size=7))
def test_every_merge_of_a_drain_looks_as_a_fresh_look(tmp_path_factory, plan: list[list[str]]) -> None:
    _compare(tmp_path_factory.mktemp("drain"), plan)


def test_the_drains_looks_find_uses_left_behind(tmp_path) -> None:
    """The comparison is not of empty answers: a drain whose tasks leave uses behind (a removal, a
    move, a deleted module, a stub) finds them at its merges, kept and fresh alike."""
    plan = [["remove-b2"], ["move-d"], ["delete-util"], ["stub-b"], ["rename-u2", "move-e-renamed"]]
    assert _compare(tmp_path, plan) >= 3
