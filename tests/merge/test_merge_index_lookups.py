"""The merge index looks a blob's symbols up on disk once per process: a version asked for by its id
first (`known_symbols`: a task's new version) and then computed (`symbols`) costs one read of the
SQLite file, not two; what this process computed and has not written yet still answers it, and
what it wrote answers the next process (merge/checks/merge_index.py)."""

from __future__ import annotations

from pathlib import Path

from worktree_coord.merge.checks.merge_index import MISSING, MergeIndex, _blob_id


def test_a_blob_looked_up_by_id_is_not_read_from_disk_again(tmp_path: Path) -> None:
    folder = tmp_path / "index"
    data = b"def f(x):\n    return x\n"
    computed: list[int] = []

    def compute() -> object:
        computed.append(1)
        return ("symbols", len(computed))

    index = MergeIndex(folder)
    assert index.known_symbols("fp", _blob_id(data), (True, False, "imports")) is MISSING
    reads = index.stats["symbols_disk"]
    assert index.symbols("fp", data, "imports", compute) == ("symbols", 1)
    assert computed == [1] and index.stats["symbols_miss"] == 1 and index.stats["symbols_disk"] == reads
    # Dropped from memory before it was written: the pending row answers it, nothing is computed again.
    index._symbols.clear()
    assert index.symbols("fp", data, "imports", compute) == ("symbols", 1) and computed == [1]
    index.flush()

    # The next process finds it on disk, by id and by content.
    other = MergeIndex(folder)
    assert other.known_symbols("fp", _blob_id(data), ("imports",)) == ("symbols", 1)
    fresh = MergeIndex(folder)
    assert fresh.symbols("fp", data, "imports", compute) == ("symbols", 1) and computed == [1]
    assert fresh.stats["symbols_disk"] == 1


def test_a_check_looks_each_version_s_imports_up_once(tmp_path: Path, monkeypatch) -> None:
    """The re-exports a task file's new lines reach and both ways of the import-path check ask the
    same task versions what they import: one lookup in the merge index per version and check
    (three before, each three lookups in its memory), the same findings as a check that walks."""
    import sys

    import pygit2

    from tests.conftest import commit, git, make_repo
    from tests.merge.drains import merged_in_order
    from worktree_coord.merge import check_tree_merge

    root = make_repo(tmp_path / "repo", {
        "pkg/__init__.py": "from .util import parse\n",
        "pkg/util.py": "def parse(x):\n    return x\n\n\ndef other(x):\n    return x\n",
        "pkg/app.py": "import os\nfrom .util import parse\n\n\ndef run():\n    return parse(os.sep)\n"})
    pin = git(root, "rev-parse", "HEAD")
    git(root, "checkout", "-q", "-b", "one", pin)
    one = commit(root, {"pkg/util.py": "def parse(x):\n    return x\n",
                        "pkg/more.py": "import json\nfrom .util import parse\n\n\ndef more():\n    return parse(json)\n"},
                 "one")
    git(root, "checkout", "-q", "-b", "two", pin)
    two = commit(root, {"pkg/app.py": "import os\nimport sys\nfrom pkg import other\n\n\ndef run():\n"
                                      "    return other(os.sep + sys.prefix)\n",
                        "pkg/new.py": "from .app import run\nfrom .util import other\n\n\ndef go():\n"
                                      "    return other(run())\n"}, "two")
    repo = pygit2.Repository(str(root))
    merges = merged_in_order(repo, pin, [one, two])
    asked: list[bytes] = []
    real = MergeIndex.known_symbols

    def counted(self: MergeIndex, fingerprint: str, blob_id: bytes, uses: tuple) -> object:
        if sys._getframe(1).f_code.co_name in ("imports", "_imports") and "semantic" in sys._getframe(1).f_code.co_filename:
            asked.append(blob_id)
        return real(self, fingerprint, blob_id, uses)

    monkeypatch.setattr(MergeIndex, "known_symbols", counted)
    index, found, total = MergeIndex(), [], 0
    for merge in merges:
        asked.clear()
        found += check_tree_merge(repo, *merge, index=index)
        assert len(asked) == len(set(asked)), merge
        total += len(asked)
    assert total >= 2   # the second merge's task files were asked what they import
    assert [(f.name, f.use_path) for f in found] == [("other", "pkg/new.py")]
    walked = [f for merge in merges for f in check_tree_merge(repo, *merge, index=MergeIndex(), walk=True)]
    assert found == walked
