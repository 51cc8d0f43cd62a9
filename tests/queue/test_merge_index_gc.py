"""`wtc gc` prunes the merge check's on-disk index (merge/checks/merge_index.py): the entries of
tips no open run merges onto any more, writers' temporary files, and symbols rows past its cap;
what the next merge of an open run reads stays."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pygit2

from tests.conftest import make_repo, write, wtc
from worktree_coord.coordinator import Coordinator
from worktree_coord.merge.checks.merge_index import MergeIndex, index_folder

STALE = "0" * 40 + "-" + "1" * 40


def _entries(folder: Path, kind: str) -> set[str]:
    path = folder / "v1" / kind
    return {p.name for p in path.iterdir()} if path.is_dir() else set()


def test_gc_prunes_the_merge_index_of_tips_no_run_merges_onto(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {f"pkg/m{i}.py": f"def f{i}(x):\n    return x + {i}\n" for i in range(4)})
    with Coordinator(repo) as coord:
        coord.start_run("r1")
        for i in range(3):
            wt = Path(coord.start_task("r1", f"t{i}", [f"pkg/m{i}.py"]).worktree)
            write(wt, {f"pkg/m{i}.py": f"def f{i}(x):\n    return x * {i}\n"})
            assert coord.finish_task("r1", f"t{i}").state == "merged"
        git = pygit2.Repository(str(repo))
        folder = index_folder(git)
        tip_tree = str(git.revparse_single("refs/heads/wtc/r1/integration").peel(pygit2.Tree).id)
        live = {name for name in _entries(folder, "tips") if name.endswith(tip_tree)}
        assert live, "the merges wrote the tip's changes"
        for kind in ("tips", "tables"):   # a tip no run holds any more, and a writer's leftover
            (folder / "v1" / kind).mkdir(parents=True, exist_ok=True)
            (folder / "v1" / kind / STALE).write_bytes(b"x")
            (folder / "v1" / kind / ".tmp-abc").write_bytes(b"x")
        dry = coord.gc(dry_run=True)
        assert dry.merge_index_removed >= 4 and STALE in _entries(folder, "tips")
        done = coord.gc()
        assert done.merge_index_removed == dry.merge_index_removed
        for kind in ("tips", "tables"):
            assert not {STALE, ".tmp-abc"} & _entries(folder, kind)
        assert live <= _entries(folder, "tips"), "the open run's tip stays"
        # The next merge of the run reads what stayed: the tip's changes from disk, nothing diffed.
        fresh = MergeIndex(folder)
        pin = git.revparse_single(coord.store.get_run("r1").base).peel(pygit2.Tree)
        from worktree_coord.merge.tree import _changes

        fresh.changes(git, pin, git.revparse_single(tip_tree), _changes)
        assert fresh.stats["tips_disk"] == 1 and fresh.stats["tips_miss"] == 0
    code, report = wtc(repo, "gc")
    assert code == 0 and report["merge_index_removed"] == 0


def test_the_merge_index_keeps_its_newest_symbols_rows_past_a_cap(tmp_path: Path) -> None:
    index = MergeIndex(tmp_path / "index")
    for n in range(5):
        index.symbols("f" * 16, b"data %d\n" % n, False, lambda: ("symbols", 1))
    index.flush()
    assert index.prune(set(), max_rows=2, dry_run=True)["symbols"] == 3
    assert index.prune(set(), max_rows=2)["symbols"] == 3
    again = MergeIndex(tmp_path / "index")
    kept = [again.symbols("f" * 16, b"data %d\n" % n, False, lambda: None) for n in range(5)]
    assert kept == [None, None, None, ("symbols", 1), ("symbols", 1)], "the newest two rows stay"


def test_gc_prunes_the_word_index_of_a_pin_no_open_run_uses(tmp_path: Path) -> None:
    """The left-behind check at a merge keeps the pin's word index on disk (merge/checks/pin_words.py,
    the newest few of them): a run that landed no longer merges onto its pin, so `wtc gc` removes
    that pin's index (and `--dry-run` lists it), while an open run's pin keeps its own."""
    files = {f"pkg/m{i}.py": f"def f{i}(x):\n    return x + {i}\n\n\ndef g{i}(x):\n    return x\n" for i in range(3)}
    repo = make_repo(tmp_path / "repo", files)
    git = pygit2.Repository(str(repo))
    folder = index_folder(git)

    def pin_tree(run: str) -> str:
        with Coordinator(repo) as coord:
            return str(git.revparse_single(coord.store.get_run(run).base).peel(pygit2.Tree).id)

    def remove_g(coord: Coordinator, run: str, i: int) -> None:
        """A task taking g{i} out: its merge looks for uses left behind, from the pin's word index."""
        wt = Path(coord.start_task(run, f"t{i}", [f"pkg/m{i}.py"]).worktree)
        write(wt, {f"pkg/m{i}.py": f"def f{i}(x):\n    return x + {i}\n"})
        assert coord.finish_task(run, f"t{i}").state == "merged"

    with Coordinator(repo) as coord:
        coord.start_run("r1")
        remove_g(coord, "r1", 0)
        coord.land("r1", "main", approved=True)
        coord.start_run("r2")
        remove_g(coord, "r2", 1)
    old, new = pin_tree("r1"), pin_tree("r2")
    assert old != new and {old, new} <= _entries(folder, "pinwords"), _entries(folder, "pinwords")
    listed = subprocess.run([sys.executable, "-m", "worktree_coord", "gc", "--dry-run"], cwd=repo,
                            capture_output=True, text=True, timeout=120)
    assert listed.returncode == 0 and f"  pin word indexes: {old}" in listed.stdout, listed.stdout + listed.stderr
    assert new not in listed.stdout
    with Coordinator(repo) as coord:
        dry = coord.gc(dry_run=True)
        assert dry.pin_words_removed == [old] and old in _entries(folder, "pinwords")
        done = coord.gc()
        assert done.pin_words_removed == [old]
    assert new in _entries(folder, "pinwords") and old not in _entries(folder, "pinwords")
    code, report = wtc(repo, "gc")
    assert code == 0 and report["pin_words_removed"] == []
