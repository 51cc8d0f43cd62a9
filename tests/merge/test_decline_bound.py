"""scripts/decline_bound.py: declining cells chosen in-sample reach what one repository's own files
allow; chosen leaving each repository out, a cell only one repository has stops nothing there."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


@pytest.fixture()
def bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(SCRIPTS))
    modules = {}
    for name in ("history_corpus", "generalisation", "decline_bound"):
        spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
        assert spec is not None and spec.loader is not None
        modules[name] = importlib.util.module_from_spec(spec)
        monkeypatch.setitem(sys.modules, name, modules[name])
        spec.loader.exec_module(modules[name])
        if name == "history_corpus":
            monkeypatch.setattr(modules[name], "CACHE", tmp_path / "cache")
    return modules["decline_bound"]


def _file(bound: ModuleType, repo: str, n: int, verdict: str, cells: set[str]) -> tuple:
    corpus = sys.modules["history_corpus"]
    case = corpus.Case(repo=repo, merge=f"{n:040x}", path=f"f{n}.py", language="python", git_clean=False,
                       part="fresh", base="b", left="l", right="r", result=f"c{n}")
    return (case.name, case, verdict, [], frozenset(cells))


def test_a_cell_of_one_repository_is_chosen_in_sample_only(bound: ModuleType) -> None:
    cells_of = bound.VOCABULARIES["features"]
    files = [_file(bound, "a+only", 1, "diff", {"quirk"}), _file(bound, "a+only", 2, "diff", {"quirk"})]
    files += [_file(bound, f"r+{i}", 10 + i, "exact", {"plain"}) for i in range(4)]
    assert bound.choose(files, cells_of, 0.7, "diff") == {"quirk"}
    assert bound.declined_in_sample(files, cells_of, 0.7, "diff") == {files[0][0], files[1][0]}
    # Left out, a+only's cell is nowhere else: the rule learnt without it declines nothing there.
    assert bound.declined_leave_one_out(files, cells_of, 0.7, "diff") == set()


def test_a_cell_shared_by_repositories_holds_left_out(bound: ModuleType) -> None:
    cells_of = bound.VOCABULARIES["features"]
    files = [_file(bound, f"r+{i}", i, "diff", {"shared"}) for i in range(3)]
    files += [_file(bound, "r+0", 10, "exact", {"shared"}), _file(bound, "r+9", 11, "exact", {"plain"})]
    declined = bound.declined_leave_one_out(files, cells_of, 0.6, "diff")
    assert declined == {file[0] for file in files if "shared" in file[4]}
    # The agreeing file of r+0 goes too: the rule is judged by what it stops, right or wrong.
    assert "stops 1 agree / 3 diff" in bound.summary(files, declined, conflicted=10)


def test_the_agree_objective_counts_hand_written_results(bound: ModuleType) -> None:
    cells_of = bound.VOCABULARIES["features"]
    files = [_file(bound, "r+1", 1, "human", {"c"}), _file(bound, "r+2", 2, "human", {"c"})]
    assert bound.choose(files, cells_of, 0.6, "diff") == set()
    assert bound.choose(files, cells_of, 0.6, "agree") == {"c"}
