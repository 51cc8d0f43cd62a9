"""What a drain tip file's imports lead to is worked out once, not at every merge: reach.py pairs a
task's `m0.py` with every tip file spelling `m0` (each imports its own folder's, as real files
import their `utils`, `models`), and confirms each pair by that file's imports (semantic.
imported_files, reexports.reached). Kept across the checks of a drain (reexports._leading_imports,
_leads, semantic.imported_files), they are resolved again only when the merge's files they depend on
change; before, every merge resolved every such file's imports anew."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pygit2

from tests.merge.drains import SIG, merged_in_order
from worktree_coord.merge import check_tree_merge
from worktree_coord.merge.checks import semantic
from worktree_coord.merge.checks.merge_index import MergeIndex

PACKAGES = 7


def _module(package: int, number: int, tag: str = "") -> str:
    head = "import os\n" + (f"from .m0 import f0 as first\n" if number else "")
    body = "".join(f"def f{k}(x):\n    return x * {k} + {package}{tag}\n\n\n" for k in range(4))
    tail = "def use(x):\n    return first(x) + len(os.sep)\n" if number else ""
    return head + "\n\n" + body + tail


def _tree(repo: pygit2.Repository, files: dict[str, str]) -> pygit2.Oid:
    index = pygit2.Index()
    for path, text in sorted(files.items()):
        index.add(pygit2.IndexEntry(path, repo.create_blob(text.encode()), pygit2.enums.FileMode.BLOB))
    return index.write_tree(repo)


def test_a_tip_files_imports_are_resolved_once_over_a_drain_not_at_every_merge(tmp_path: Path, monkeypatch) -> None:
    pin_files = {f"p{p}/m{j}.py": _module(p, j) for p in range(PACKAGES) for j in range(3)}
    repo = pygit2.init_repository(str(tmp_path / "repo.git"), bare=True)
    pin = str(repo.create_commit(None, SIG, SIG, "pin", _tree(repo, pin_files), []))
    tasks = []
    for p in range(PACKAGES):   # task p edits its package's first two modules (every line of each function)
        files = dict(pin_files)
        for j in range(2):
            files[f"p{p}/m{j}.py"] = _module(p, j, f"  # task {p}")
        tasks.append(str(repo.create_commit(None, SIG, SIG, f"task {p}", _tree(repo, files), [pygit2.Oid(hex=pin)])))
    merges = merged_in_order(repo, pin, tasks)

    asked: Counter[tuple[str, str]] = Counter()   # (module, importer's folder) -> checks that resolved it
    resolve = semantic._Check._resolve

    def counted(self, module, importer, rules):
        key = (module, importer.rsplit("/", 1)[0])
        if key not in self.__dict__.setdefault("_counted", set()):
            self._counted.add(key)
            asked[key] += 1
        return resolve(self, module, importer, rules)

    monkeypatch.setattr(semantic._Check, "_resolve", counted)
    index = MergeIndex()
    for merge in merges:
        check_tree_merge(repo, *merge, index=index)
    # A tip file's `from .m0 import f0` is resolved when its folder's m0.py enters the merge's files
    # (the task editing it) and perhaps once before; `import os` once per folder.
    assert asked, "the drain's checks resolved no import: the test no longer measures what it says"
    assert max(asked.values()) <= 2, sorted(asked.items(), key=lambda item: -item[1])[:5]
