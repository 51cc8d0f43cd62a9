"""The import-path check reads a task file's pin version (a parse and an import query) only where
what it tells can matter (import_paths.NARROW): a module the task replaced matters only if some
file of the tip imports it (TipIndex.importing_modules: the modules the tip's files import at
their top level, kept in its tables), an import the task added only of a module the tip's tree no
longer names. A drain whose tasks keep their imports (`import os`, their package's `.m0`, as a real
run's tasks keep theirs) read three pin versions a merge before, one a task file it edited."""

from __future__ import annotations

from collections import Counter, OrderedDict
from pathlib import Path

import pygit2

from tests.merge.drains import findings_of
from tests.merge.test_closed_users import _task
from tests.merge.test_drain_extractions import PACKAGES, _drain
from tests.merge.test_imports_kept import _module
from worktree_coord.merge import check_tree_merge
from worktree_coord.merge.checks import import_paths, semantic
from worktree_coord.merge.checks.merge_index import MergeIndex
from worktree_coord.merge.languages import profiles


def _pin_reads(tmp_path: Path, monkeypatch, task) -> tuple[list[list[str]], list[list[tuple]]]:
    """The paths whose pin version each merge's check read for its imports, and its findings."""
    read: list[list[str]] = []
    imports = semantic._Check.imports

    def counted(self, path: str, which: str):
        if which == "base":
            read[-1].append(path)
        return imports(self, path, which)

    monkeypatch.setattr(semantic._Check, "imports", counted)
    repo, merges = _drain(tmp_path, task)
    index = MergeIndex()
    found = []
    for merge in merges:
        read.append([])
        found.append(findings_of(check_tree_merge(repo, *merge, index=index)))
        read.append([])   # (the check reading every pin version: not counted)
        import_paths.NARROW = False
        try:
            assert found[-1] == findings_of(check_tree_merge(repo, *merge, index=MergeIndex(), walk=True))
        finally:
            import_paths.NARROW = True
        read.pop()
    return read, found


def test_a_drain_whose_tasks_keep_their_imports_reads_no_pin_version_for_them(tmp_path: Path, monkeypatch) -> None:
    read, found = _pin_reads(tmp_path, monkeypatch, _task)
    assert found == [[]] * PACKAGES
    assert read == [[]] * PACKAGES, read


def test_a_task_dropping_a_module_the_tip_imports_has_its_pin_version_read(tmp_path: Path, monkeypatch) -> None:
    # Even tasks edit their package's m2.py, which imports `.m0` (so the tip's files import it);
    # odd ones make their m1.py import `.m3` where it imported `.m0`.
    def task(p: int) -> dict[str, str | None]:
        if p % 2 == 0:
            return {f"p{p}/m2.py": _module(p, 2, f"  # task {p}")}
        return {f"p{p}/m1.py": _module(p, 1, f"  # task {p}").replace(".m0 ", ".m3 "), f"p{p}/m3.py": _module(p, 0)}

    read, _ = _pin_reads(tmp_path, monkeypatch, task)
    # Read from the third merge on, where the tip's files import `.m0` (p2's m2.py). At the first
    # odd merge the tip's one file (p0's m2.py) is the smaller side, read the other way: it added no
    # import, so nothing of the task's is asked.
    assert read == [[], [], [], ["p3/m1.py"], []], read


def test_no_source_is_parsed_twice_over_a_drain(tmp_path: Path, monkeypatch) -> None:
    """Each content the drain's checks parse is parsed by tree-sitter once (parses kept by content,
    `Profile.parse`; symbols kept by blob id, merge_index.py); and with the pin versions left
    unread, what a merge parses is the task's new versions alone (a guard: main parsed each once
    too, and three pin versions a merge besides)."""
    import tree_sitter

    parsed: Counter[bytes] = Counter()
    real = tree_sitter.Parser

    class Counting:
        def __init__(self, *args) -> None:
            self._parser = real(*args)

        def parse(self, source, *args, **kwargs):
            parsed[bytes(source)] += 1
            return self._parser.parse(source, *args, **kwargs)

        def __getattr__(self, name: str):
            return getattr(self._parser, name)

    monkeypatch.setattr(tree_sitter, "Parser", Counting)
    monkeypatch.setattr(profiles, "_PARSED", OrderedDict())   # (none kept from an earlier test)
    monkeypatch.setattr(profiles, "_parsed_bytes", 0)
    repo, merges = _drain(tmp_path, _task)
    index = MergeIndex()
    new_versions: set[bytes] = set()
    for merge in merges:
        assert check_tree_merge(repo, *merge, index=index) == ()
        task = repo[merge[2]].peel(pygit2.Tree)
        new_versions.update(repo[task[path].id].data for path, text in _task(merges.index(merge)).items() if text)
    assert parsed and max(parsed.values()) == 1, [count for count in parsed.values() if count > 1]
    assert set(parsed) <= new_versions, len(set(parsed) - new_versions)
