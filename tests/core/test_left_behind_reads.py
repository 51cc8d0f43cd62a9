"""The left-behind look reads each file of the tree once, however many chains ask for it.

Found driving wtc on networkx: `nx.find_cycle` reaches its definition through networkx/__init__.py and
networkx/algorithms/__init__.py, package files of dozens of star imports each; every use of every
removed name walked those chains afresh and read the same package files from git again (26,000 blob
reads, 10 CPU-seconds for one `task check` of a one-function rename). What the look finds is unchanged;
the reads are counted here through the repository's own `file_at`, which every read of the tree goes
through.
"""

from __future__ import annotations

from collections import Counter

from tests.core.test_uses_left_behind import _task_edited
from worktree_coord.coordinator import Coordinator
from worktree_coord.gitrepo.repository import GitRepo

MODULES = 24


def _hub_files() -> dict[str, str]:
    files = {"pkg/__init__.py": "from pkg.algorithms import *\nfrom pkg import algorithms\n",
             "pkg/algorithms/__init__.py": "".join(f"from pkg.algorithms.m{i} import *\n" for i in range(MODULES))}
    for i in range(MODULES):
        files[f"pkg/algorithms/m{i}.py"] = (f'__all__ = ["f{i}", "g{i}"]\n\n\ndef f{i}(x):\n    return x\n\n\n'
                                            f'def g{i}(x):\n    return x + {i}\n')
    for j in range(12):
        files[f"tests/test_u{j}.py"] = ("import pkg\n\n\n"
                                        + "".join(f"def test_{i}():\n    assert pkg.g{i}(1) == pkg.f{i}(1) + {i}\n\n\n"
                                                  for i in range(MODULES)))
    return files


def test_a_rename_through_star_hubs_reads_each_tree_file_once(tmp_path, monkeypatch):
    renamed = _hub_files()["pkg/algorithms/m3.py"].replace("f3", "first3")
    repo = _task_edited(tmp_path, _hub_files(), "rn", ("pkg/algorithms/m3.py",), {"pkg/algorithms/m3.py": renamed}, None)
    reads: Counter[tuple[str, str]] = Counter()
    real = GitRepo.file_at

    def counted(self: GitRepo, commit: str, rel: str) -> bytes | None:
        reads[(commit, rel)] += 1
        return real(self, commit, rel)

    monkeypatch.setattr(GitRepo, "file_at", counted)
    with Coordinator(repo) as coord:
        check = coord.check_task("r1", "rn")
    users = sorted(item["use_path"] for item in check.left_behind)
    assert users == sorted(f"tests/test_u{j}.py" for j in range(12)), check.left_behind
    assert {item["name"] for item in check.left_behind} == {"f3"}
    hub_reads = {key: n for key, n in reads.items() if key[1].endswith("__init__.py")}
    assert hub_reads and max(hub_reads.values()) == 1, sorted(hub_reads.items(), key=lambda kv: -kv[1])[:4]
