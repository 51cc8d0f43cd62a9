"""A task's imports resolved at its finish (semantic.import_answers, check/task_facts.py), over its
own tree, with the module-index keys each answer read: the drain's check of its merge takes an
answer only while the merged tree holds the same files at those keys, and computes it again where
the tip changed one (another task added a module the import now finds, deleted or moved the file
it found, added a re-export). Every answer the check uses equals a cold computation (nothing kept
across checks: reexports.KEEP off), and every merge's findings equal the cold check's and a walk's.

The finishes run first, on an index of their own written to disk (another process), and what this
process kept across checks is forgotten before the drain, so the drain's only source of an answer
it did not compute is what the finishes kept."""

from __future__ import annotations

from pathlib import Path

import pygit2
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.merge.drains import drain_of, findings_of
from tests.merge.test_drain_imports_property import CHANGES, KEEP, PIN, SHADOW, TAKE_AWAY, USES
from tests.merge.test_drain_left_behind_property import MOVES
from worktree_coord.check.task_facts import keep_task_facts
from worktree_coord.gitrepo.repository import GitRepo
from worktree_coord.merge import check_tree_merge
from worktree_coord.merge.checks import reexports, semantic
from worktree_coord.merge.checks.merge_index import MergeIndex, index_folder
from worktree_coord.merge.checks.semantic import _Check, semantic_profile
from worktree_coord.merge.tree import _changes, _Mentions, _tip_tables, _tip_views, _tip_files, task_changes


# A file of lib2 importing its own folder's util only: paired by the word `util` with lib/util.py,
# which it does not import (the keys of its imports hold no file a task changes).
OWN = {"use-lib2-own": ("lib2", "from .util import v1\n\n\ndef u(x):\n    return v1(x)\n")}


def _writes_of(number: int, change: str) -> dict[str, str | None]:
    if change in USES or change in OWN:
        folder, text = {**USES, **OWN}[change]
        return {f"{folder}/use_{number}_{change.replace('-', '_')}.py": text}
    return {**TAKE_AWAY, **SHADOW, **KEEP, **MOVES}[change]


def _forget() -> None:
    """What this process kept across checks (a drain's own answers), as a new process holds it."""
    for table in (reexports._USERS, reexports._LEADS, semantic._IMPORTED):
        table.clear()


def _finished(root: Path, plan: list[list[str]]) -> tuple[pygit2.Repository, list, MergeIndex]:
    """The drain of `plan` after each task's finish kept its facts on disk, and the drain's index."""
    repo, merges = drain_of(root / "repo.git", PIN, plan, _writes_of)
    git = GitRepo(str(root / "repo.git"))
    finisher = MergeIndex(index_folder(repo))
    for base, _tip, task, _merged in merges:
        keep_task_facts(git, base, task, finisher)
    finisher.flush()
    _forget()
    return repo, merges, MergeIndex(index_folder(repo))


def _check(repo: pygit2.Repository, merge: tuple[str, str, str, str], index: MergeIndex) -> _Check:
    """The check of one merge of a drain as check_tree_merge builds it (the tip's tables and views;
    the task's facts loaded from the disk with its changes)."""
    trees = [repo[x].peel(pygit2.Tree) for x in merge]
    changes = [index.changes(repo, trees[0], trees[1], _changes), task_changes(repo, trees[0], trees[2], index),
               index.advance(repo, trees[0], trees[1], trees[3], _changes)]
    tip, loose = _tip_tables(repo, index, trees, changes, merge[1])
    files, by_path = _tip_files(repo, changes, loose, _tip_views(repo, index, trees[0], trees[1], changes[0]))
    mentions = _Mentions(repo, trees[0], trees[1], trees[2])
    check = _Check(files, ("ours", "base", "theirs"), {}, True, mentions.file, mentions.folders, by_path=by_path)
    check.index, check.tip, check.loose = index, tip, frozenset(loose)
    check.tip_modules = _tip_views(repo, index, trees[0], trees[1], changes[0]).module_tables
    return check


def _answers(check: _Check) -> dict[str, tuple]:
    """What the task's files' imports name in this merge: imported_files and _leading_imports."""
    out = {}
    for path in sorted(check.loose):
        versions = check.files.get(path)
        profile = semantic_profile(path)
        if versions is None or profile is None or not versions.exists("merged"):
            continue
        leading = check.reexports._leading_imports(path, profile.semantic) if profile.semantic.module_files else ()
        out[path] = (check.imported_files(path), leading)
    return out


def _cold(repo: pygit2.Repository, merge: tuple[str, str, str, str]) -> tuple[dict[str, tuple], list[tuple]]:
    reexports.KEEP = False
    try:
        return _answers(_check(repo, merge, MergeIndex())), \
            findings_of(check_tree_merge(repo, *merge, index=MergeIndex(), walk=True))
    finally:
        reexports.KEEP = True


def _taken(monkeypatch) -> list[tuple[str, bool]]:
    """(path, whether its kept keys held) of each finished answer a check looked at."""
    seen: list[tuple[str, bool]] = []
    real = _Check.finished_answer

    def finished_answer(self, path, blob, profile, tree_key):
        found = real(self, path, blob, profile, tree_key)
        if found is not None:
            rules = profile.semantic
            seen.append((path, all(self.files_at(key, rules) == named for key, named in found[0])))
        return found
    monkeypatch.setattr(_Check, "finished_answer", finished_answer)
    return seen


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(plan=st.lists(st.lists(st.sampled_from(CHANGES + sorted(MOVES) + sorted(OWN)), min_size=1, max_size=3),
                     min_size=2, max_size=7))
def test_every_finished_answer_a_drain_takes_is_the_cold_answer(tmp_path_factory, plan: list[list[str]]) -> None:
    repo, merges, index = _finished(tmp_path_factory.mktemp("drain"), plan)
    with index.held():
        for number, merge in enumerate(merges):
            answers = _answers(_check(repo, merge, index))
            kept = findings_of(check_tree_merge(repo, *merge, index=index))
            cold_answers, cold = _cold(repo, merge)
            assert answers == cold_answers, (number, plan)
            assert kept == cold, (number, plan)


def test_a_finished_answer_is_taken_where_the_tip_left_its_keys_alone(tmp_path: Path, monkeypatch) -> None:
    seen = _taken(monkeypatch)
    repo, merges, index = _finished(tmp_path, [["rename-u2"], ["use-lib2-own"]])
    with index.held():
        for merge in merges:
            check_tree_merge(repo, *merge, index=index)
    # paired with lib/util.py, whose u2 the tip renamed, by the word `util`: its imports resolved
    # (reach._tip_holders), from what its finish kept
    assert ("lib2/use_1_use_lib2_own.py", True) in seen, seen
    assert all(held for _, held in seen), seen


def test_a_finished_answer_is_computed_again_where_the_tip_changed_a_key_it_read(tmp_path: Path, monkeypatch) -> None:
    """Each way the tip changes what an import of a later task finds: a module added where the
    import found none (`from .os import sep`: pkg/os.py), the file it found deleted (pkg/d.py) or
    moved (lib/util.py), and a package's re-exports changed (pkg/__init__.py, under `from pkg import`)."""
    seen = _taken(monkeypatch)
    plan = [["os-beside-pkg"], ["delete-d"], ["move-util-edited"], ["drop-b-reexport"],
            ["use-os"], ["use-alias"], ["use-relative"], ["use-barrel"]]
    repo, merges, index = _finished(tmp_path, plan)
    with index.held():
        for number, merge in enumerate(merges):
            assert _answers(_check(repo, merge, index)) == _cold(repo, merge)[0], number
    stale = {path for path, held in seen if not held}
    assert {"pkg/use_4_use_os.py", "pkg/use_5_use_alias.py", "lib/use_6_use_relative.py",
            "pkg/use_7_use_barrel.py"} <= stale, seen
