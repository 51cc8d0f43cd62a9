"""The merge index (merge/checks/merge_index.py) answers what a full walk answers: a drain of merges into
an integration tip on a real repository, each checked with a warm index (kept between merges, on
disk) and with a cold one (a full walk), including merges that delete and rename files, a damaged
index folder, and a second process reading the first one's index."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pygit2

from tests.conftest import commit, git, make_repo
from tests.merge.drains import merged_in_order
from worktree_coord.merge import check_tree_merge
from worktree_coord.merge.checks.merge_index import MergeIndex, index_folder
from worktree_coord.merge.tree import _changes

ROOT = Path(__file__).resolve().parents[2]


def _module(name: str, calls: str = "") -> str:
    return f"def {name}(x):\n    return x + 1\n\n\ndef {name}_b(x):\n    return x * 2\n{calls}"


BASE = {
    "pkg/__init__.py": "",
    "pkg/util.py": _module("parse"),
    "pkg/app.py": "from pkg.util import parse\n\n\ndef run(x):\n    return x\n",
    **{f"pkg/m{i:02}.py": _module(f"f{i:02}") for i in range(12)},
}

# Each task's change on its own branch off the pin: (name, files; None deletes a file).
TASKS: list[tuple[str, dict[str, str | None]]] = [
    ("edit", {"pkg/m00.py": _module("f00", "\n\ndef extra(x):\n    return x\n")}),
    ("delete", {"pkg/m01.py": None}),
    ("rename", {"pkg/m02.py": None, "pkg/moved02.py": _module("f02")}),
    ("rename-def", {"pkg/util.py": _module("parse").replace("def parse(", "def parse_text(")}),
    # Adds a call of the name the previous task renamed: the merge check finds it.
    ("use", {"pkg/app.py": "from pkg.util import parse\n\n\ndef run(x):\n    return parse(x)\n"}),
    ("add", {"pkg/new.py": _module("fresh")}),
    ("restore", {"pkg/m03.py": _module("f03", "\n# touched\n")}),
]


def _drain(tmp_path: Path) -> tuple[pygit2.Repository, str, list[tuple[str, str, str, str]]]:
    """The repository, the pin, and each merge as (base, tip, task commit, merged tree)."""
    root = make_repo(tmp_path / "repo", BASE)
    pin = git(root, "rev-parse", "HEAD")
    tasks = []
    for name, files in TASKS:
        git(root, "checkout", "-q", "-b", f"task-{name}", pin)
        tasks.append(commit(root, files, name))
    repo = pygit2.Repository(str(root))
    merges = merged_in_order(repo, pin, tasks)
    return repo, pin, merges


def _findings(found) -> list[tuple]:
    return [(f.problem, f.name, f.definition_path, f.use_path, f.use_line) for f in found]


def test_a_warm_index_finds_what_a_full_walk_finds_over_a_drain(tmp_path: Path) -> None:
    repo, pin, merges = _drain(tmp_path)
    warm = MergeIndex(tmp_path / "index")
    all_found = []
    for base, tip, task, tree in merges:
        cold = check_tree_merge(repo, base, tip, task, tree, index=MergeIndex())
        hot = check_tree_merge(repo, base, tip, task, tree, index=warm)
        assert _findings(hot) == _findings(cold)
        all_found += _findings(hot)
    # The drain does break a name: the use of `parse` that "rename-def" removed.
    assert ("broken", "parse", "pkg/util.py", "pkg/app.py", 5) in all_found
    # Every tip after the first was known: composed from the one before, not diffed from the pin.
    assert warm.stats["tips_composed"] == len(merges)
    assert warm.stats["tips_hit"] >= len(merges) - 1
    assert warm.stats["symbols_hit"] > 0


def test_a_tips_changes_equal_a_diff_from_the_pin_after_deletes_and_renames(tmp_path: Path) -> None:
    repo, pin, merges = _drain(tmp_path)
    index = MergeIndex(tmp_path / "index")
    pin_tree = repo[pin].peel(pygit2.Tree)
    for _, tip, _, tree in merges:
        tip_tree, merged = repo[tip].peel(pygit2.Tree), repo[tree].peel(pygit2.Tree)
        assert index.changes(repo, pin_tree, tip_tree, _changes) == _changes(pin_tree, tip_tree)
        assert index.advance(repo, pin_tree, tip_tree, merged, _changes) == _changes(pin_tree, merged)
    final = repo[merges[-1][3]].peel(pygit2.Tree)
    changed = _changes(pin_tree, final)
    assert {"pkg/m01.py", "pkg/m02.py", "pkg/moved02.py", "pkg/new.py"} <= set(changed)
    assert changed["pkg/m01.py"][1][0] is None   # deleted: absent at the tip
    # A merge that puts a file back as the pin had it drops it from the tip's changes.
    back = repo.TreeBuilder(final)
    pkg = repo.TreeBuilder(final["pkg"])
    pkg.insert("m00.py", pin_tree["pkg/m00.py"].id, pygit2.GIT_FILEMODE_BLOB)
    back.insert("pkg", pkg.write(), pygit2.GIT_FILEMODE_TREE)
    restored = repo[back.write()]
    assert "pkg/m00.py" not in index.advance(repo, pin_tree, final, restored, _changes)
    assert index.advance(repo, pin_tree, final, restored, _changes) == _changes(pin_tree, restored)


def test_a_damaged_index_is_rebuilt_with_the_same_answers(tmp_path: Path) -> None:
    repo, pin, merges = _drain(tmp_path)
    folder = tmp_path / "index"
    first = [_findings(check_tree_merge(repo, *m, index=MergeIndex(folder))) for m in merges]
    entries = [p for p in folder.rglob("*") if p.is_file()]
    assert entries
    for number, path in enumerate(entries):   # truncated, garbage, empty
        path.write_bytes([b"", b"\x80\x04garbage", path.read_bytes()[:7]][number % 3])
    fresh = MergeIndex(folder)
    again = [_findings(check_tree_merge(repo, *m, index=fresh)) for m in merges]
    assert again == first
    assert fresh.stats["corrupt"] > 0
    # Rewritten whole: a third reader loads every entry it needs without damage.
    third = MergeIndex(folder)
    assert [_findings(check_tree_merge(repo, *m, index=third)) for m in merges] == first
    assert third.stats["corrupt"] == 0 and third.stats["tips_disk"] + third.stats["symbols_disk"] > 0


_OTHER_PROCESS = """
import json, sys
import pygit2
from worktree_coord.merge import check_tree_merge
from worktree_coord.merge.checks.merge_index import MergeIndex
repo = pygit2.Repository(sys.argv[1])
index = MergeIndex(sys.argv[2])
merges = json.loads(sys.argv[3])
found = [[[f.problem, f.name, f.definition_path, f.use_path, f.use_line]
          for f in check_tree_merge(repo, *m, index=index)] for m in merges]
print(json.dumps({"found": found, "stats": index.stats}))
"""


def test_two_processes_share_the_index(tmp_path: Path) -> None:
    repo, pin, merges = _drain(tmp_path)
    folder = index_folder(repo)
    assert folder.parts[-2:] == ("wtc", "merge-index")

    def other() -> dict:
        done = subprocess.run([sys.executable, "-c", _OTHER_PROCESS, repo.path, str(folder), json.dumps(merges)],
                              cwd=ROOT, capture_output=True, text=True, check=True)
        return json.loads(done.stdout)

    writer = other()                       # a cold process writes the index
    assert writer["stats"]["tips_disk"] == 0 and writer["stats"]["symbols_disk"] == 0
    reader = other()                       # another process reads it: no tip diffed, no file parsed
    assert reader["found"] == writer["found"]
    assert reader["stats"]["tips_miss"] == 0 and reader["stats"]["symbols_miss"] == 0
    assert reader["stats"]["tips_disk"] > 0 and reader["stats"]["symbols_disk"] > 0
    here = [[list(f) for f in _findings(check_tree_merge(repo, *m, index=MergeIndex()))] for m in merges]
    assert reader["found"] == here


def test_a_drain_keeps_the_trees_it_reads_in_libgit2s_cache(tmp_path: Path) -> None:
    """A folder of 300 files is a tree of over 4,096 bytes, which libgit2 does not cache by default:
    every path looked up through it, walk and diff read it again. Inside a drain it is kept, read
    once per repository object."""
    repo_dir = make_repo(tmp_path / "repo", {f"pkg/module_{i:03d}.py": f"x = {i}\n" for i in range(300)})
    sizes = pygit2.Repository(str(repo_dir))   # (another repository object: another cache)
    folder = sizes[sizes.head.target].peel(pygit2.Tree)["pkg"].id
    assert len(sizes.odb.read(folder)[1]) > 4096
    repo = pygit2.Repository(str(repo_dir))   # (its own cache: nothing of it read yet)
    with MergeIndex().held():
        cached = pygit2.settings.cached_memory[0]
        assert repo[folder].type == pygit2.enums.ObjectType.TREE
        assert pygit2.settings.cached_memory[0] - cached >= 4096


def test_a_drain_reads_objects_as_git_does_and_puts_libgit2s_hashing_back(tmp_path: Path) -> None:
    """Inside a drain an object's content is not hashed again against its id (git's merge-tree and
    cat-file read it so); outside, libgit2 refuses one whose content is not its id's, as before."""
    import zlib

    import pytest

    repo_dir = make_repo(tmp_path / "repo", {"a.py": "x = 1\n"})
    written = pygit2.Repository(str(repo_dir)).create_blob(b"y = 2\n")
    loose = repo_dir / ".git" / "objects" / str(written)[:2] / str(written)[2:]
    loose.chmod(0o644)
    loose.write_bytes(zlib.compress(b"blob 6\x00y = 3\n"))   # (another content under its id)
    with pytest.raises(pygit2.GitError, match="hash"):
        pygit2.Repository(str(repo_dir))[written].read_raw()
    with MergeIndex().held():
        assert pygit2.Repository(str(repo_dir))[written].read_raw() == b"y = 3\n"
    with pytest.raises(pygit2.GitError, match="hash"):
        pygit2.Repository(str(repo_dir))[written].read_raw()


def test_a_drain_raises_the_collectors_first_threshold_and_puts_it_back(tmp_path: Path) -> None:
    """While any drain holds an index (nested, or two indexes), the collector's first threshold is
    DRAIN_GC_THRESHOLD; when the last one ends (even by an error), what it was before; a collector
    that was off stays off."""
    import gc

    import pytest

    from worktree_coord.merge.checks.merge_index import DRAIN_GC_THRESHOLD

    before = gc.get_threshold()
    one, two = MergeIndex(tmp_path / "one"), MergeIndex(tmp_path / "two")
    try:
        gc.set_threshold(700, 10, 10)
        with one.held():
            assert gc.get_threshold() == (DRAIN_GC_THRESHOLD, 10, 10)
            with two.held(), one.held():
                assert gc.get_threshold() == (DRAIN_GC_THRESHOLD, 10, 10)
            assert gc.get_threshold() == (DRAIN_GC_THRESHOLD, 10, 10)
        assert gc.get_threshold() == (700, 10, 10)
        with pytest.raises(RuntimeError), one.held():
            raise RuntimeError("a drain that fails")
        assert gc.get_threshold() == (700, 10, 10)
        gc.set_threshold(0)
        with one.held():
            assert gc.get_threshold()[0] == 0
        assert gc.get_threshold()[0] == 0
    finally:
        gc.set_threshold(*before)
