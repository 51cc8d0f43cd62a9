"""`run start` builds the word index of the run's pin (merge/checks/pin_words.py), which the
left-behind look at each merge reads, and writes it beside the merge index: the run's merges, each
in a process of its own, load it from disk instead of the first one reading every file of the pin.
Keyed by the pin's tree: another pin gets its own; a run that does not look builds none."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pygit2

from tests.conftest import commit, make_repo, write
from worktree_coord.coordinator import Coordinator
from worktree_coord.merge.checks.merge_index import index_folder

FILES = {f"pkg/m{i}.py": f"def f{i}(x):\n    return x + {i}\n" for i in range(4)} | {
    "pkg/use.py": "from pkg.m0 import f0\n\ndef g(x):\n    return f0(x)\n"}

READ_BACK = """
import json, sys
import pygit2
from worktree_coord.merge.checks.merge_index import MergeIndex
from worktree_coord.merge.tree import files_mentioning
repo = pygit2.Repository(sys.argv[1])
index = MergeIndex(sys.argv[2])
found = files_mentioning(repo, sys.argv[3], sys.argv[4], ["f0"], index=index)
print(json.dumps({"found": found, "stats": index.stats}))
"""


def _pins(repo: Path) -> set[str]:
    folder = index_folder(pygit2.Repository(str(repo))) / "v1" / "pinwords"
    return {p.name for p in folder.iterdir()} if folder.is_dir() else set()


def _tree(repo: Path, rev: str) -> str:
    return str(pygit2.Repository(str(repo)).revparse_single(rev).peel(pygit2.Tree).id)


def test_run_start_writes_the_pins_word_index_and_a_merge_process_loads_it(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", FILES)
    pin_tree = _tree(repo, "HEAD")
    with Coordinator(repo) as coord:
        coord.start_run("r1")
        assert _pins(repo) == {pin_tree}
        # Started again (a retry): the entry is there, not built again.
        entry = index_folder(pygit2.Repository(str(repo))) / "v1" / "pinwords" / pin_tree
        before = entry.stat().st_mtime_ns
        coord.start_run("r1")
        assert entry.stat().st_mtime_ns == before
        wt = Path(coord.start_task("r1", "t1", ["pkg/m1.py"]).worktree)
        write(wt, {"pkg/m1.py": "def f1_renamed(x):\n    return x + 1\n"})
        assert coord.finish_task("r1", "t1").state == "merged"
    tip = _tree(repo, "refs/heads/wtc/r1/integration")
    # Another process (each `wtc merge` and merging `task finish` is one) reads it from disk: no build.
    done = subprocess.run([sys.executable, "-c", READ_BACK, str(repo), str(index_folder(pygit2.Repository(str(repo)))),
                           pin_tree, tip], capture_output=True, text=True, check=True)
    out = json.loads(done.stdout)
    assert out["found"] == ["pkg/m0.py", "pkg/use.py"]
    assert out["stats"]["pinwords_disk"] == 1 and out["stats"]["pinwords_built"] == 0


def test_a_run_of_another_pin_gets_its_own_and_a_run_that_does_not_look_none(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", FILES)
    with Coordinator(repo) as coord:
        coord.start_run("quiet", left_behind="off")
        assert _pins(repo) == set()
        coord.start_run("r1")
        first = _tree(repo, "HEAD")
        commit(repo, {"pkg/m2.py": "def f2_other(x):\n    return x\n"}, "move on")
        coord.start_run("r2")
        second = _tree(repo, "HEAD")
    assert _pins(repo) == {first, second}
