"""A drain's tip file whose imports lead only to the files that define what it imports (`closed`,
reexports.ReExports.closed) is asked once, then passed over by a lookup in the tip's tables
(tip_index.TipIndex.closed, keyed, near) until a merge changes a file at its imports' keys.

Every file of the drain imports `os` (a whole module, no file of the tree) and its package's
`.m0` under an alias, as a real run's files import their `utils`: each task edits its package's
`m0.py` and `m1.py`, deletes `m2.py` (every word of it gone: step 1b) and adds `m9.py`, which binds
the alias on an added line. Before, each tip file spelling `m0` was asked what its imports reach at
every later merge (step 2 pairs it with the task's `m0.py`, step 1b with the deleted file), and
each tip `m0.py` had the words near its changes looked up at every merge (step 2 with the tip's
files as candidates): a cost growing with the run."""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path

from tests.merge.drains import findings_of
from tests.merge.test_drain_extractions import PACKAGES, _drain
from tests.merge.test_imports_kept import _module
from worktree_coord.merge import check_tree_merge
from worktree_coord.merge.checks import reach, reexports
from worktree_coord.merge.checks.merge_index import MergeIndex


def _task(p: int) -> dict[str, str | None]:
    return {f"p{p}/m0.py": _module(p, 0, f"  # task {p}"), f"p{p}/m1.py": _module(p, 1, f"  # task {p}"),
            f"p{p}/m2.py": None, f"p{p}/m9.py": _module(p, 9)}


def test_a_closed_tip_file_is_asked_what_its_imports_reach_once_not_at_every_merge(tmp_path: Path,
                                                                                  monkeypatch) -> None:
    repo, merges = _drain(tmp_path, _task)
    asked: defaultdict[str, set[int]] = defaultdict(set)   # a tip file -> the checks asking what it reaches
    reaching = reexports.ReExports.reaching

    def counted(self, user):
        if user not in self._merge.loose:
            asked[user].add(id(self._merge))
        return reaching(self, user)

    monkeypatch.setattr(reexports.ReExports, "reaching", counted)
    index = MergeIndex()
    found = [findings_of(check_tree_merge(repo, *merge, index=index)) for merge in merges]
    assert found == [[]] * len(merges)
    assert asked, "no tip file was asked: the drain no longer pairs what the test says"
    assert max(len(checks) for checks in asked.values()) == 1, {path: len(checks) for path, checks in asked.items()}


def test_a_tip_files_near_words_are_worked_out_once_over_a_drain(tmp_path: Path, monkeypatch) -> None:
    repo, merges = _drain(tmp_path, _task)
    near: Counter[str] = Counter()   # a tip file -> checks working out its near words as a candidate
    computed = reach.Reach._near

    def counted(self, side, path):
        if path not in self._loose:
            near[path] += 1
        return computed(self, side, path)

    visited: Counter[str] = Counter()   # a tip file -> checks visiting it as a candidate in step 2
    tip_near = reach.Reach._tip_near

    def visiting(self, side, path):
        if path not in self._loose:
            visited[path] += 1
        return tip_near(self, side, path)

    monkeypatch.setattr(reach.Reach, "_near", counted)
    monkeypatch.setattr(reach.Reach, "_tip_near", visiting)
    index = MergeIndex()
    assert [check_tree_merge(repo, *merge, index=index) for merge in merges] == [()] * len(merges)
    assert near and max(near.values()) == 1, near
    # and, known, each is passed over by the table of near words, not visited at every merge
    assert max(visited.values()) == 1, visited


def test_a_closed_tip_file_is_asked_again_once_a_merge_adds_a_file_at_its_keys(tmp_path: Path,
                                                                             monkeypatch) -> None:
    """A later task adding `os.py` (what `import os` may now lead to) makes every closed tip file
    importing `os` asked again at that merge, and its findings are the unkept check's."""
    def task(p: int) -> dict[str, str | None]:
        writes = _task(p)
        if p == PACKAGES - 1:
            writes[f"p{p}/os.py"] = "from .m0 import f1 as sep\n"
        return writes

    repo, merges = _drain(tmp_path, task)
    asked: defaultdict[str, set[int]] = defaultdict(set)
    reaching = reexports.ReExports.reaching

    def counted(self, user):
        if reexports.KEEP and user not in self._merge.loose:   # (not the unkept check's)
            asked[user].add(id(self._merge))
        return reaching(self, user)

    monkeypatch.setattr(reexports.ReExports, "reaching", counted)
    index = MergeIndex()
    for number, merge in enumerate(merges):
        kept = findings_of(check_tree_merge(repo, *merge, index=index))
        reexports.KEEP = False
        try:
            assert kept == findings_of(check_tree_merge(repo, *merge, index=MergeIndex())), number
        finally:
            reexports.KEEP = True
    assert max(len(checks) for checks in asked.values()) == 2   # the first merge pairing it, and the os.py one


def test_a_tips_closed_files_are_written_with_its_tables_and_an_earlier_shape_is_built_again(tmp_path: Path) -> None:
    """The tables a process writes hold each file's import keys and the closed files (format 2);
    the next process loads them as they were. Tables written in the shape before (no keys, no
    closed files) are not read as these: counted damaged and built again, with the same answers."""
    import marshal

    from worktree_coord.merge.checks.merge_index import FORMAT
    from worktree_coord.merge.checks.semantic import PATH_FACTS
    from worktree_coord.merge.checks.tip_index import TABLES_FORMAT, TipIndex

    repo, merges = _drain(tmp_path, _task)
    folder = tmp_path / "index"
    first = MergeIndex(folder)
    for merge in merges:
        check_tree_merge(repo, *merge, index=first)
    tables = [tip for tip in first._tip_tables.values() if tip.closed]
    assert tables, "no tip kept a closed file"

    def unread(*args):
        raise AssertionError("a loaded record read again")
    loaded = TipIndex.load(PATH_FACTS, unread, unread, marshal.loads(marshal.dumps(tables[-1].dump())))
    assert loaded.closed == tables[-1].closed and loaded.index_names == tables[-1].index_names
    assert {key: set(paths) for key, paths in loaded.keyed.data.items()} == \
        {key: set(paths) for key, paths in tables[-1].keyed.data.items()}

    written = sorted((folder / f"v{FORMAT}" / "tables").iterdir())
    assert written
    for path in written:   # each entry as the format before wrote it: (imports read, rows of 2-part imports)
        tag, value = marshal.loads(path.read_bytes())
        assert value[0] == TABLES_FORMAT
        rows = tuple(row[:6] + (row[6] if row[6] in (0, 1) else row[6][:2],) for row in value[2])
        path.write_bytes(marshal.dumps((tag, (value[1], rows))))
    second = MergeIndex(folder)
    kept = findings_of(check_tree_merge(repo, *merges[-1], index=second))
    assert second.stats["corrupt"] >= 1 and second.stats["tables_built"] == 1 and second.stats["tables_disk"] == 0
    assert kept == findings_of(check_tree_merge(repo, *merges[-1], index=MergeIndex(), walk=True))


class _CountedFacts(dict):
    """A rules' module facts (semantic._module_facts) counting the paths looked up in them."""

    asked = 0

    def get(self, key, default=None):
        _CountedFacts.asked += 1
        return super().get(key, default)


def test_a_merges_module_index_is_the_tips_with_its_own_files_laid_over(tmp_path: Path, monkeypatch) -> None:
    """The check resolves imports against an index of the merge's files by module (semantic.
    _Check._module_index), which for a tip's merge lists every file the run changed. It is kept per
    tip and derived by each merge's paths (module_index.ModuleTables), so the paths looked up at a
    merge do not grow with the run (before: every file of the merge, at every merge); the findings
    are the walk's."""
    from tests.merge.drains import drain_of
    from worktree_coord.merge.checks import semantic

    packages = 12
    pin = {f"p{p}/m{j}.py": _module(p, j) for p in range(packages) for j in range(3)}
    repo, merges = drain_of(tmp_path / "repo.git", pin, [[p] for p in range(packages)],
                            lambda _number, p: {**_task(p), f"p{p}/m2.py": _module(p, 2, "  # kept")})
    facts = semantic._module_facts
    monkeypatch.setattr(semantic, "_module_facts", lambda rules: _CountedFacts(facts(rules)))
    index, asked = MergeIndex(), []
    for merge in merges:
        _CountedFacts.asked = 0
        kept = findings_of(check_tree_merge(repo, *merge, index=index))
        asked.append(_CountedFacts.asked)
        assert kept == findings_of(check_tree_merge(repo, *merge, index=MergeIndex(), walk=True))
    assert max(asked[-4:]) <= max(asked[1:5]), asked


def test_the_import_path_check_finds_a_module_the_tip_still_names_without_a_pass(tmp_path: Path, monkeypatch) -> None:
    """The import-path check asks whether the tip's tree still names each module a task's files
    import (`os`, `.m0`) (tree._Mentions): a module found once is kept with its witness (path and
    blob), and the task's own files are looked at before a pass over the tree's files (a module a
    file still imports where it did is found there). So no merge walks the tree for them, and each
    reads at most the task's files; before, each merge read files from the tree's start."""
    from worktree_coord.merge import tree

    walked: list[int] = []
    read: list[int] = []
    files, look = tree._Mentions._files, tree._Mentions._look

    def counted_files(self, side):
        for item in files(self, side):
            walked[-1] += 1
            yield item

    def counted_look(self, *args):
        read[-1] += 1
        return look(self, *args)

    monkeypatch.setattr(tree._Mentions, "_files", counted_files)
    monkeypatch.setattr(tree._Mentions, "_look", counted_look)
    getattr(tree, "_WITNESSES", {}).clear()   # (none kept from an earlier test)
    repo, merges = _drain(tmp_path, _task)
    index = MergeIndex()
    for merge in merges:
        walked.append(0)
        read.append(0)
        assert check_tree_merge(repo, *merge, index=index) == ()
    assert any(read), "no module was asked: the drain no longer imports what the test says"
    assert walked == [0] * len(merges), walked
    assert max(read) <= len(_task(0)), read
