"""scripts/history_corpus.py mines a real repository's merge commits into cases (base, left, right,
committed result), caches them and reads them back; GitHub's synthetic pull merges are not mined."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


@pytest.fixture()
def history_corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    spec = importlib.util.spec_from_file_location("history_corpus", SCRIPTS / "history_corpus.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "history_corpus", module)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "CACHE", tmp_path / "cache")
    return module


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout.strip()


def _commit(repo: Path, files: dict[str, str], message: str) -> str:
    for name, text in files.items():
        (repo / name).write_text(text)
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", message)
    return _git(repo, "rev-parse", "HEAD")


def _repository(tmp_path: Path) -> tuple[Path, str]:
    repo = tmp_path / "owner+name" / "repo"
    repo.mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    _commit(repo, {"a.py": "def f():\n    return 1\n", "b.py": "X = 1\n\n\n\nY = 2\n", "notes.txt": "n\n"}, "base")
    _git(repo, "checkout", "-qb", "topic")
    _commit(repo, {"a.py": "def f():\n    return 2\n", "b.py": "X = 10\n\n\n\nY = 2\n", "notes.txt": "t\n"}, "topic")
    _git(repo, "checkout", "-q", "main")
    _commit(repo, {"a.py": "def f():\n    return 3\n", "b.py": "X = 1\n\n\n\nY = 20\n", "notes.txt": "m\n"}, "main")
    subprocess.run(["git", "-C", str(repo), "merge", "-q", "topic"], capture_output=True, check=False)
    _commit(repo, {"a.py": "def f():\n    return 5\n", "notes.txt": "r\n"}, "merge topic")
    merge = _git(repo, "rev-parse", "HEAD")
    # A GitHub test merge (refs/pull/N/merge) of another branch: never mined.
    _git(repo, "checkout", "-qb", "other", "main~1")
    _commit(repo, {"b.py": "X = 1\n\n\n\nY = 21\n"}, "other")
    _git(repo, "checkout", "-q", "--detach", "main")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@e", "merge", "-q", "--no-edit", "other")
    _git(repo, "update-ref", "refs/pull/1/merge", "HEAD")
    _git(repo, "checkout", "-q", "main")
    _git(repo, "branch", "-D", "other")
    return repo, merge


def test_mines_conflicted_and_clean_files_of_a_merge(history_corpus: ModuleType, tmp_path: Path) -> None:
    repo, merge = _repository(tmp_path)
    (cases,) = list(history_corpus.load_cases([repo]))
    by_path = {case.path: case for case in cases}
    assert set(by_path) == {"a.py", "b.py"}          # notes.txt has no language profile
    assert {case.merge for case in cases} == {merge}  # the refs/pull/1/merge commit is not mined
    a, b = by_path["a.py"], by_path["b.py"]
    assert not a.git_clean and b.git_clean
    assert (a.read("base"), a.read("left"), a.read("right"), a.read("result")) == (
        b"def f():\n    return 1\n", b"def f():\n    return 3\n", b"def f():\n    return 2\n", b"def f():\n    return 5\n")
    assert a.repo == "owner+name" and a.language == "python" and a.part == history_corpus.part_of("owner+name", merge)


def test_cases_come_back_from_the_cache_and_new_parameters_mine_again(history_corpus: ModuleType,
                                                                      tmp_path: Path) -> None:
    repo, _ = _repository(tmp_path)
    first = list(history_corpus.load_cases([repo]))
    cache = tmp_path / "cache" / "owner+name.json"
    stamp = cache.stat().st_mtime_ns
    assert list(history_corpus.load_cases([repo])) == first and cache.stat().st_mtime_ns == stamp
    (only_conflicts,) = list(history_corpus.load_cases([repo], max_clean=0))
    assert [case.path for case in only_conflicts] == ["a.py"]


def test_bad_input_names_the_fix(history_corpus: ModuleType, tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="not a git repository"):
        list(history_corpus.load_cases([tmp_path]))
    forbidden = tmp_path / "pallets+flask" / "repo"
    forbidden.mkdir(parents=True)
    _git(forbidden, "init", "-q")
    with pytest.raises(SystemExit, match="held-out"):
        list(history_corpus.load_cases([forbidden]))


def _repository_with_conflicts_in_two_languages(tmp_path: Path) -> Path:
    """One merge where both sides edit the same line of two Python files and one JSON file."""
    repo = tmp_path / "fresh+repo" / "repo"
    repo.mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    files = {"a.py": "A = 1\n", "b.py": "B = 1\n", "c.json": '{"c": 1}\n'}
    _commit(repo, files, "base")
    _git(repo, "checkout", "-qb", "topic")
    _commit(repo, {name: text.replace("1", "2") for name, text in files.items()}, "topic")
    _git(repo, "checkout", "-q", "main")
    _commit(repo, {name: text.replace("1", "3") for name, text in files.items()}, "main")
    subprocess.run(["git", "-C", str(repo), "merge", "-q", "topic"], capture_output=True, check=False)
    _commit(repo, {name: text.replace("1", "4") for name, text in files.items()}, "merge topic")
    return repo


def test_a_fresh_repository_is_its_own_part_with_room_for_each_language(history_corpus: ModuleType,
                                                                        tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    repo = _repository_with_conflicts_in_two_languages(tmp_path)
    (everything,) = list(history_corpus.load_cases([repo]))
    assert sorted(case.path for case in everything) == ["a.py", "b.py", "c.json"]
    assert {case.part for case in everything} <= {"dev", "aside"}
    # In the generalisation corpus: wholly part "fresh", and one language fills only its own share.
    monkeypatch.setattr(history_corpus, "FRESH_REPOSITORIES", ("fresh+repo",))
    monkeypatch.setattr(history_corpus, "FRESH_LIMITS", {"per_language": 1, "max_visits": 10})
    (fresh,) = list(history_corpus.load_cases([repo]))
    assert {case.part for case in fresh} == {"fresh"}
    assert sorted(case.language for case in fresh) == ["json", "python"]
    stored = (tmp_path / "cache" / "fresh+repo.json").read_text()
    assert '"per_language": 1' in stored          # the cache is keyed by the limits that made it


def test_an_unseen_repository_is_its_own_part_sampled_like_the_fresh_ones(history_corpus: ModuleType,
                                                                          tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    repo = _repository_with_conflicts_in_two_languages(tmp_path)
    monkeypatch.setattr(history_corpus, "UNSEEN_REPOSITORIES", ("fresh+repo",))
    monkeypatch.setattr(history_corpus, "FRESH_LIMITS", {"per_language": 1, "max_visits": 10})
    (unseen,) = list(history_corpus.load_cases([repo]))
    # Its own part (not "fresh": the two are read apart), with the fresh part's per-language room.
    assert {case.part for case in unseen} == {"unseen"}
    assert sorted(case.language for case in unseen) == ["json", "python"]
