"""A call that fails because there is no run (a misspelled `--run`, `wtc task start` before any
`wtc run start`), or that is refused for its input, leaves the repository as it found it. It used to
create an empty store (`.git/wtc/state.sqlite3` and its lock files), switch on
`extensions.worktreeConfig` in `.git/config` and add a line to `.git/info/exclude` on the way to
its "no run" answer: a repository wtc never ran in looked used, and its git configuration changed.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from tests.conftest import git, make_repo, wtc
from worktree_coord import Coordinator
from worktree_coord.errors import NotFoundError

NO_RUN = [
    ("status", "--run", "nosuch"),
    ("task", "start", "t", "--run", "nosuch", "--own", "**"),
    ("task", "finish", "t", "--run", "nosuch"),
    ("task", "check", "t", "--run", "nosuch"),
    ("task", "update", "t", "--run", "nosuch"),
    ("task", "abandon", "t", "--run", "nosuch"),
    ("merge", "--run", "nosuch"),
    ("consolidate", "--run", "nosuch"),
    ("report", "--run", "nosuch"),
    ("plan", "list", "--run", "nosuch"),
    ("land", "--run", "nosuch", "--onto", "main", "--yes"),
]
REFUSED = [
    ("run", "start", "--run", "bad name"),
    ("task", "start", "bad name", "--run", "nosuch", "--own", "**"),
]


def _files(git_dir: Path) -> dict[str, str]:
    """Every file under the git dir with a hash of its bytes: what a call must not change."""
    return {str(path.relative_to(git_dir)): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(git_dir.rglob("*")) if path.is_file()}


@pytest.fixture(scope="module")
def repos(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("untouched")
    repo = make_repo(root / "plain", {"a.py": "a = 1\n"})
    git(root, "clone", "-q", "--bare", str(repo), str(root / "bare.git"))
    return repo, root / "bare.git"


@pytest.mark.parametrize("args", NO_RUN + REFUSED, ids=" ".join)
@pytest.mark.parametrize("kind", ["plain", "bare"])
def test_a_call_without_a_run_leaves_the_repository_as_it_was(repos: tuple[Path, Path], kind: str,
                                                              args: tuple[str, ...]) -> None:
    cwd, git_dir = (repos[0], repos[0] / ".git") if kind == "plain" else (repos[1], repos[1])
    before = _files(git_dir)
    code, body = wtc(cwd, *args)
    assert code == (2 if args in REFUSED else 5), body
    assert _files(git_dir) == before
    assert not (git_dir / "wtc").exists()


def test_the_api_answers_no_run_without_a_store_too(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.py": "a = 1\n"})
    before = _files(repo / ".git")
    with Coordinator(repo) as coordinator:
        assert coordinator.status().runs == []
        with pytest.raises(NotFoundError, match="no run 'nosuch'"):
            coordinator.check_task("nosuch", "t")
    assert _files(repo / ".git") == before
    with Coordinator(repo) as coordinator:   # and the first write still sets everything up
        coordinator.start_run("r")
        assert coordinator.status("r").runs[0]["run"] == "r"
    assert (repo / ".git" / "wtc" / "state.sqlite3").is_file()
    assert git(repo, "config", "extensions.worktreeConfig") == "true"


@pytest.mark.parametrize("args", [("gc", "--dry-run"), ("gc",)], ids=" ".join)
@pytest.mark.parametrize("kind", ["plain", "bare"])
def test_gc_with_nothing_to_do_leaves_the_repository_as_it_was(repos: tuple[Path, Path], kind: str,
                                                                args: tuple[str, ...]) -> None:
    """`wtc gc --dry-run` (and a gc with nothing to collect) in a repository wtc never ran in created
    the store and set the repository up (`.git/config`, `info/exclude`) to say it removed nothing."""
    cwd, git_dir = (repos[0], repos[0] / ".git") if kind == "plain" else (repos[1], repos[1])
    before = _files(git_dir)
    code, body = wtc(cwd, *args)
    assert code == 0, body
    assert _files(git_dir) == before
    assert not (git_dir / "wtc").exists()
