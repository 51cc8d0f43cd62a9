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
