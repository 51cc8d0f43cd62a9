"""What the left-behind look at a drain's merge reads (check/left_behind.left_behind_at_merge), and
that it answers as before where it reads less.

bench_merge's `engine-run` drain (200 merges at 20,000 files) paid the look ~4.5 ms of CPU a merge,
more than the semantic check itself: each merge extracted 8 versions' definitions (a deleted
module's and an added file's included, whatever the look then did with them), asked the merge
index's SQLite file for each first (a read that missed: the drain's check had them in memory or
not at all), walked the task's trees again (`git.changes`) and the merged tree's folders for its
files, ran a grep twice with the same words, and ran the defining query again on the versions the
check had just run it on. Each test here counts one of those reads; the answers are the same
(tests/merge/test_drain_left_behind_property.py compares every merge of generated drains with a
look that keeps and skips nothing).
"""

from __future__ import annotations

import random
from pathlib import Path

import pygit2
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import commit, git, make_repo
from worktree_coord.check import left_behind
from worktree_coord.check.left_behind import (_broken_uses, _merged_reader, task_changes_kept, left_behind_at_merge,
                                              source_reader)
from worktree_coord.gitrepo.repository import GitRepo
from worktree_coord.merge import check_tree_merge
from worktree_coord.merge.checks import symbols
from worktree_coord.merge.checks.merge_index import MergeIndex, _SymbolRows, index_folder, shared_index
from worktree_coord.merge.checks.semantic import semantic_profile
from worktree_coord.merge.checks.signatures import _Edited
from worktree_coord.merge.lines.linediff import edited_lines

PIN = {"pkg/__init__.py": "",
       "pkg/util.py": "def helper(x):\n    return x\n\n\ndef other(x):\n    return x\n",
       "pkg/user.py": "from .util import helper\n\n\nVALUE = helper(1)\n",
       "pkg/lonely.py": "def alone(x):\n    return x\n",
       "pkg/edited.py": "def kept(x):\n    return 1\n\n\ndef also(x):\n    return 2\n"}


def _merge(root: Path, writes: dict[str, str | None]) -> tuple[GitRepo, str, str, str]:
    """A task off the pin writing `writes`, merged onto the pin (its own tree): (git, pin, task, merged tree)."""
    pin = git(root, "rev-parse", "HEAD")
    git(root, "checkout", "-q", "-b", "task")
    task = commit(root, writes, "task")
    git(root, "checkout", "-q", "main")
    repo = GitRepo(root)
    merged = str(repo.repo[pygit2.Oid(hex=task)].peel(pygit2.Tree).id)
    return repo, pin, task, merged


def _look_in_a_drain(repo: GitRepo, pin: str, task: str, merged: str, held: bool = True) -> list:
    """The merge's own check, then the look, as the queue makes them (inside a drain's hold)."""
    index = shared_index(index_folder(repo.repo))
    if not held:
        check_tree_merge(repo.repo, pin, pin, task, merged, index=index)
        return left_behind_at_merge(repo, pin, task, merged, "t")
    with index.held():
        check_tree_merge(repo.repo, pin, pin, task, merged, index=index)
        return left_behind_at_merge(repo, pin, task, merged, "t")


def test_a_drains_look_asks_no_symbols_row_of_the_disk(tmp_path: Path, monkeypatch) -> None:
    """Inside a drain the look takes definitions from memory or extracts them: the SQLite file only
    another process wrote answered almost never. Outside one (a finish's merge) it is still asked."""
    root = make_repo(tmp_path / "repo", PIN)
    repo, pin, task, merged = _merge(root, {"pkg/edited.py": PIN["pkg/edited.py"].replace("return 1", "return 10"),
                                            "pkg/util.py": "def other(x):\n    return x\n"})
    asked: list[bytes] = []
    real = _SymbolRows.get_prefix
    looking = [False]

    def counted(self, prefix: bytes):
        if looking[0]:
            asked.append(prefix)
        return real(self, prefix)
    monkeypatch.setattr(_SymbolRows, "get_prefix", counted)
    real_look = left_behind._broken_uses

    def look(*args, **kwargs):
        looking[0] = True
        try:
            return real_look(*args, **kwargs)
        finally:
            looking[0] = False
    monkeypatch.setattr(left_behind, "_broken_uses", look)
    found = _look_in_a_drain(repo, pin, task, merged)
    assert {(f.name, f.use_path) for f in found} == {("helper", "pkg/user.py")}
    assert asked == []
    # A finish's one merge still reads what another process kept: in one query for the merge's
    # versions (merge.tree._prefetch, before the check), after which the look asks the disk nothing.
    batched: list[int] = []
    real_many = _SymbolRows.get_many

    def counted_many(self, rows: list[bytes]):
        batched.append(len(rows))
        return real_many(self, rows)
    monkeypatch.setattr(_SymbolRows, "get_many", counted_many)
    repo2, pin2, task2, merged2 = _merge(make_repo(tmp_path / "repo2", PIN), {"pkg/util.py": "def other(x):\n    return x\n"})
    assert {(f.name, f.use_path) for f in _look_in_a_drain(repo2, pin2, task2, merged2, held=False)} == \
        {("helper", "pkg/user.py")}
    assert batched and asked == [], (batched, asked)


def _counting_definitions(monkeypatch) -> list[str]:
    read: list[str] = []
    real = left_behind._extracted

    def counted(path: str, data: bytes, **options):
        if options == {"uses": False}:
            read.append(path)
        return real(path, data, **options)
    monkeypatch.setattr(left_behind, "_extracted", counted)
    return read


def test_a_deleted_module_no_file_spells_is_not_read(tmp_path: Path, monkeypatch) -> None:
    root = make_repo(tmp_path / "repo", PIN)
    repo, pin, task, merged = _merge(root, {"pkg/lonely.py": None,
                                            "pkg/edited.py": PIN["pkg/edited.py"].replace("return 1", "return 10")})
    read = _counting_definitions(monkeypatch)
    assert _look_in_a_drain(repo, pin, task, merged) == []
    assert "pkg/lonely.py" not in read and "pkg/edited.py" in read


def test_a_deleted_module_a_file_imports_is_read_and_its_use_found(tmp_path: Path, monkeypatch) -> None:
    root = make_repo(tmp_path / "repo", PIN)
    repo, pin, task, merged = _merge(root, {"pkg/util.py": None})
    read = _counting_definitions(monkeypatch)
    found = _look_in_a_drain(repo, pin, task, merged)
    assert "pkg/util.py" in read
    assert {(f.name, f.use_path, f.use_line) for f in found} >= {("helper", "pkg/user.py", 1)}
    monkeypatch.setattr(left_behind, "DEFER_DELETED", False)
    assert _look_in_a_drain(repo, pin, task, merged) == found


def test_the_look_asks_each_grep_once(tmp_path: Path) -> None:
    """The module word of a deleted file is looked for by the removed names' search and by the
    deleted modules' (left_modules.py): one grep."""
    root = make_repo(tmp_path / "repo", PIN)
    repo, pin, task, merged = _merge(root, {"pkg/util.py": None})
    asked: list[tuple[str, tuple[str, ...]]] = []

    def grep(where: str, words: list[str]) -> list[str]:
        asked.append((where, tuple(words)))
        return repo.files_mentioning(where, words)
    found = _broken_uses(repo.changes(pin, task), repo.read_blob, pin, grep, source_reader(repo), at=merged,
                         folders_at=repo.folders_at)
    assert found and len(asked) == len(set(asked))


def _every_kind_of_change(root: Path) -> tuple[GitRepo, str, str]:
    """A pin and a tip that adds, deletes, edits, changes a mode, makes a file a folder and a folder
    a file, a file a symlink, and adds a submodule."""
    base = make_repo(root, {"a.py": "A = 1\n", "b.py": "B = 1\n", "c.py": "C = 1\n", "d/e.py": "E = 1\n",
                            "f.py": "F = 1\n", "g.py": "G = 1\n", "x/y.py": "Y = 1\n"})
    pin = git(base, "rev-parse", "HEAD")
    (base / "b.py").unlink()
    (base / "c.py").write_text("C = 2\n")
    (base / "f.py").chmod(0o755)
    (base / "a.py").unlink()
    (base / "a.py").mkdir()
    (base / "a.py" / "inner.py").write_text("I = 1\n")
    (base / "d" / "e.py").unlink()
    (base / "d").rmdir()
    (base / "d").write_text("D = 1\n")
    (base / "g.py").unlink()
    (base / "g.py").symlink_to("x/y.py")
    (base / "new.py").write_text("N = 1\n")
    git(base, "add", "-A")
    git(base, "update-index", "--add", "--cacheinfo", f"160000,{pin},sub")
    git(base, "commit", "-q", "-m", "every kind")
    return GitRepo(base), pin, git(base, "rev-parse", "HEAD")


def _rows(changes) -> list[tuple]:
    return [(c.path, None if c.old_mode is None else int(c.old_mode), None if c.new_mode is None else int(c.new_mode),
             c.old_oid, c.new_oid) for c in changes]


def test_the_tasks_changes_from_the_checks_walk_are_git_changes(tmp_path: Path) -> None:
    repo, pin, tip = _every_kind_of_change(tmp_path / "repo")
    index = MergeIndex()
    assert _rows(task_changes_kept(repo, pin, tip, index)) == _rows(repo.changes(pin, tip))
    # Without the kind change (the walk lists a file made a symlink as added alone), the walk answers.
    root = make_repo(tmp_path / "plain", {"a.py": "A = 1\n", "d/e.py": "E = 1\n"})
    pin = git(root, "rev-parse", "HEAD")
    tip = commit(root, {"a.py": "A = 2\n", "d/e.py": None, "n.py": "N = 1\n"}, "edit")
    plain = GitRepo(root)
    calls: list[str] = []
    real = GitRepo.changes

    def counted(self, old: str, new: str):
        calls.append(new)
        return real(self, old, new)
    GitRepo.changes = counted
    try:
        assert _rows(task_changes_kept(plain, pin, tip, index)) == _rows(real(plain, pin, tip))
    finally:
        GitRepo.changes = real
    assert calls == []


def test_the_merged_trees_files_read_from_its_changes_are_file_at(tmp_path: Path) -> None:
    repo, pin, tip = _every_kind_of_change(tmp_path / "repo")
    index = MergeIndex()
    merged = str(repo.repo[pygit2.Oid(hex=tip)].peel(pygit2.Tree).id)
    check_tree_merge(repo.repo, pin, pin, tip, merged, index=index)   # (its changes from the pin, kept)
    read, plain = _merged_reader(repo, pin, merged, index), source_reader(repo)
    assert read is not plain
    for path in ("a.py", "a.py/inner.py", "b.py", "c.py", "d", "d/e.py", "f.py", "g.py", "new.py", "sub", "x/y.py",
                 "missing.py"):
        assert read(merged, path) == plain(merged, path), path
        assert read(pin, path) == plain(pin, path), path


def test_definitions_after_imports_run_the_defining_query_once(monkeypatch) -> None:
    """The check reads a task file's imports (its tree given), the look then its definitions (no
    tree): the defining query's matches are taken over, with the tree they were read from."""
    profile = semantic_profile("m.py")
    assert profile is not None
    source = b"import os\n\n\nclass A:\n    def f(self):\n        return os.sep\n\n\ndef g(x):\n    return x\n"
    fresh = symbols.extract(profile, source, uses=False)
    ran: list[bytes] = []
    real = symbols._defining_matches

    def counted(profile, data, tree):
        ran.append(data)
        return real(profile, data, tree)
    monkeypatch.setattr(symbols, "_defining_matches", counted)
    symbols.extract(profile, source, profile.parse(source), imports_only=True)
    again = symbols.extract(profile, source, uses=False)
    assert ran == [source]
    assert again.definitions == fresh.definitions and again.imports == fresh.imports and again.bound == fresh.bound
    symbols.extract(profile, source, uses=False)   # (taken once: a third read runs it again)
    assert ran == [source, source]


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 10**6), lines=st.integers(1, 60))
def test_edited_ranges_met_by_bisection_as_by_a_scan(seed: int, lines: int) -> None:
    rng = random.Random(seed)
    old = [f"line {i}" for i in range(lines)]
    new = list(old)
    for _ in range(rng.randint(1, 8)):
        at = rng.randint(0, len(new))
        choice = rng.random()
        if choice < 0.3 and at < len(new):
            del new[at]
        elif choice < 0.6:
            new.insert(at, f"added {rng.random()}")
        elif at < len(new):
            new[at] += " changed"
    ranges = edited_lines(("\n".join(old) + "\n").encode(), ("\n".join(new) + "\n").encode())
    unordered = ranges + [(rng.randint(1, lines), rng.randint(1, lines) + lines)] if seed % 3 == 0 else ranges
    for given_ranges in (ranges, unordered):
        edited = _Edited(given_ranges)
        for first in range(0, lines + 3):
            for last in (first, first + 1, first + 5):
                for lead in (0, 3):
                    assert edited.meets(first, last, lead) == any(start - lead <= last and first <= end
                                                                  for start, end in given_ranges)
