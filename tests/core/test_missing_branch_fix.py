"""A branch name that names nothing (`wtc land --onto`, `wtc report --onto`, `wtc sync --from`) is
refused with a fix naming a branch that exists. Found driving wtc on commander.js, whose branch is
`master`: `wtc report --run r1 --onto main` said "no branch 'main' to land onto", fix "name an
existing branch, e.g. --onto main", the very name it had just refused."""

from __future__ import annotations

from tests.conftest import git, make_repo, wtc


def test_a_missing_target_branch_is_refused_with_a_branch_of_the_repository_in_the_fix(tmp_path):
    repo = make_repo(tmp_path / "repo", {"README.md": "# r\n"})
    git(repo, "branch", "-m", "main", "master")
    git(repo, "branch", "release", "HEAD")
    git(repo, "checkout", "-q", "--orphan", "pages")   # another line of history: never a place to land
    git(repo, "commit", "-q", "--allow-empty", "-m", "pages")
    git(repo, "checkout", "-q", "master")
    assert wtc(repo, "run", "start", "--run", "r1")[0] == 0
    for args in (("report", "--run", "r1", "--onto", "main"), ("land", "--run", "r1", "--onto", "main", "--yes"),
                 ("sync", "--run", "r1", "--from", "main")):
        code, body = wtc(repo, *args)
        assert code == 5, body
        flag = "--from" if args[0] == "sync" else "--onto"
        assert body["error"]["fix"] == f"name an existing branch, e.g. {flag} master (branches on the run's pin's line: master, " \
                              "release)", body
