"""What a drain's check extracts of a task's file: its imports only, where nothing asks what it
defines. reach.py pairs a task's files with the tip's files spelling their modules' words and
confirms each pair by the user's imports (semantic.imported_files); the imports were read from a
definitions' extraction of the task's merged version while the re-exports' reader had just
extracted its imports alone: two extractions of one blob a merge, for one answer."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Callable

import pygit2

from tests.merge.drains import drain_of
from tests.merge.test_imports_kept import _module
from worktree_coord.merge import check_tree_merge
from worktree_coord.merge.checks import merge_index as merge_index_module, semantic
from worktree_coord.merge.checks.merge_index import MergeIndex
from worktree_coord.merge.checks.symbols import IMPORTS_ONLY

PACKAGES = 5


def _drain(tmp_path: Path, writes: Callable[[int], dict[str, str | None]]) -> tuple[pygit2.Repository, list]:
    """A pin of PACKAGES packages of three modules, task p writing `writes(p)` (None deletes), merged in order."""
    pin_files = {f"p{p}/m{j}.py": _module(p, j) for p in range(PACKAGES) for j in range(3)}
    return drain_of(tmp_path / "repo.git", pin_files, [[p] for p in range(PACKAGES)], lambda _number, p: writes(p))


def test_a_task_file_only_imported_from_is_extracted_for_its_imports_alone(tmp_path: Path, monkeypatch) -> None:
    # Task p edits its package's m0.py and m1.py; m1.py imports `.m0` (so it pairs with every m0.py
    # the tip changed) and no file imports it: nothing asks what it defines.
    repo, merges = _drain(tmp_path, lambda p: {f"p{p}/m{j}.py": _module(p, j, f"  # task {p}") for j in range(2)})
    users = {repo.create_blob(_module(p, 1, f"  # task {p}").encode()).raw for p in range(PACKAGES)}

    modes: Counter[object] = Counter()   # extraction mode -> extractions of the task files' blobs
    symbols = MergeIndex.symbols

    def counted(self, fingerprint, data, uses, compute):
        def computing():
            if merge_index_module._blob_id(data) in users:
                modes[uses] += 1
            return compute()
        return symbols(self, fingerprint, data, uses, computing)

    monkeypatch.setattr(MergeIndex, "symbols", counted)
    index = MergeIndex()
    findings = [check_tree_merge(repo, *merge, index=index) for merge in merges]
    assert findings == [()] * len(merges)
    assert modes[IMPORTS_ONLY] == PACKAGES, modes   # each task's m1.py: its imports, read once
    assert set(modes) == {IMPORTS_ONLY}, modes      # and nothing more


def test_a_tip_file_whose_imports_cannot_name_a_task_file_is_not_resolved_at_each_merge(tmp_path: Path,
                                                                                          monkeypatch) -> None:
    """Every package's m1.py imports its own `.m0`: a task editing p3/m0.py pairs with each m1.py the
    tip changed (they spell `m0`), none of which can import p3/m0.py. Their imports' keys (module
    paths, pure in the blob) say so; before, each was resolved (kept, but checked against the
    merge's files) at every merge, a cost growing with the tip."""
    repo, merges = _drain(tmp_path, lambda p: {f"p{p}/m{j}.py": _module(p, j, f"  # task {p}") for j in range(2)})

    tip_asked: Counter[str] = Counter()   # a tip file (not the task's) -> checks asking what it imports
    imported_files = semantic._Check.imported_files

    def counted(self, path):
        if path not in self.loose:
            tip_asked[path] += 1
        return imported_files(self, path)

    monkeypatch.setattr(semantic._Check, "imported_files", counted)
    index = MergeIndex()
    assert [check_tree_merge(repo, *merge, index=index) for merge in merges] == [()] * len(merges)
    assert not tip_asked, tip_asked


def test_a_tip_file_adding_no_gone_word_its_imports_bind_is_not_followed_through_re_exports(
        tmp_path: Path, monkeypatch) -> None:
    """A task deleting a file makes each of its words gone (step 1b): the tip's files that import
    a name are read for re-exports when they add a gone word. Each tip m1.py binds `first` (`from .m0
    import f0 as first`) and adds only lines of `return x * k + ...` (words the deleted file held too),
    none of which its imports bind: following its imports through re-exports can find nothing."""
    repo, merges = _drain(tmp_path, lambda p: {f"p{p}/m1.py": _module(p, 1, f"  # task {p}"), f"p{p}/m2.py": None})

    from worktree_coord.merge.checks import reexports

    followed: Counter[str] = Counter()   # a tip file -> checks following its imports for gone names
    reached = reexports.ReExports.reached

    def counted(self, user, names):
        if user not in self._merge.loose:
            followed[user] += 1
        return reached(self, user, names)

    monkeypatch.setattr(reexports.ReExports, "reached", counted)
    index = MergeIndex()
    assert [check_tree_merge(repo, *merge, index=index) for merge in merges] == [()] * len(merges)
    assert not followed, followed
