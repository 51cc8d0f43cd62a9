"""The git processes a task's calls start, counted through a logging `git` first on PATH (it runs the
real git): every one a swarm's task pays is CPU (issue 36's goal of 0.5 CPU-seconds a task), so
those the process can answer itself are not started. Each answer given in-process is held to git's."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from tests.conftest import git, make_repo, wtc
from worktree_coord.coordinator import Coordinator
from worktree_coord.gitrepo import GitRepo


@pytest.fixture
def git_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A `git` on PATH that appends its arguments (one line a call) to the returned file, then runs git."""
    real = shutil.which("git")
    assert real is not None
    folder = tmp_path / "logging-git"
    folder.mkdir()
    log = tmp_path / "git-calls.log"
    wrapper = folder / "git"
    wrapper.write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{log}"\nexec "{real}" "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    return log


def subcommands(log: Path) -> list[str]:
    """Each logged call's subcommand (the first word that is not an option or an option's value)."""
    found = []
    for line in log.read_text().splitlines() if log.exists() else []:
        words = line.split()
        index = 0
        while index < len(words) and words[index].startswith("-"):
            index += 2 if words[index] in ("-c", "-C") else 1
        found.append(words[index] if index < len(words) else "?")
    return found


def test_a_start_in_a_process_that_holds_libgit2_lists_no_tree_through_git(repo: Path, git_log: Path) -> None:
    """A served start (the server preloads libgit2; so does this test process) finds whether each --own
    glob matches a file at the pin in-process: no `git ls-tree` per glob. The notes are git's answer:
    the glob that matches nothing gets its note, the one that matches does not."""
    with Coordinator(repo) as coord:
        coord.start_run("r1")
        git_log.write_text("")
        started = coord.start_task("r1", "t1", ["packages/api/**", "packages/nothing-here/**"])
    calls = subcommands(git_log)
    assert "worktree" in calls                       # the start did run git (the log works)
    assert "ls-tree" not in calls, calls
    unmatched = [n for n in started.notes if "matches no file at the pin" in n]
    assert len(unmatched) == 1 and "packages/nothing-here/**" in unmatched[0], started.notes


def test_a_cli_start_lists_the_pin_once_for_every_own_glob(repo: Path, git_log: Path) -> None:
    """A CLI start (no libgit2 in the process) asks whether each --own glob matches a file at the
    pin with one `git ls-tree` for all of them (it started one a glob); the notes are the same: the
    glob that matches nothing, and only it, gets its note."""
    assert wtc(repo, "run", "start", "--run", "r1")[0] == 0
    git_log.write_text("")
    code, body = wtc(repo, "task", "start", "t1", "--run", "r1", "--own", "packages/api/**",
                     "--own", "packages/nothing-here/**", "--own", "docs/guide.md", "--own", "packages/web/*.js")
    assert code == 0, body
    assert subcommands(git_log).count("ls-tree") == 1, git_log.read_text()
    unmatched = [n for n in body["notes"] if "matches no file at the pin" in n]
    assert len(unmatched) == 1 and "packages/nothing-here/**" in unmatched[0], body["notes"]
    git_log.write_text("")
    code, body = wtc(repo, "task", "widen", "t1", "--run", "r1", "--own", "packages/core/*.py", "--own", "gone/**",
                     "--why", "more")
    assert code == 0, body
    assert subcommands(git_log).count("ls-tree") == 1, git_log.read_text()
    unmatched = [n for n in body["notes"] if "matches no file at the pin" in n]
    assert len(unmatched) == 1 and "gone/**" in unmatched[0], body["notes"]


def test_paths_under_each_answers_as_paths_under(tmp_path: Path, git_log: Path) -> None:
    """The folders asked together (one `git ls-tree`, as in a process without libgit2) are each
    `paths_under`'s list, in its order: nested and overlapping folders, a file, an absent path, the
    whole tree, a folder asked that was not named up front."""
    repo = make_repo(tmp_path / "main", {
        "packages/api/src/a.py": "a = 1\n", "packages/api/README.md": "api\n", "packages/apix": "x\n",
        "packages/api-b/c.py": "c\n", "docs/with space/b.md": "u\n", "top.txt": "t\n"})
    head = git(repo, "rev-parse", "HEAD").strip()
    opened = GitRepo(repo)
    cases = [["packages/api", "packages", "top.txt", "absent", "packages/ap"], ["docs", ""], ["packages/api/"]]
    for folders in cases:
        with pytest.MonkeyPatch.context() as unseen:
            unseen.delitem(sys.modules, "pygit2")     # as a CLI start: this process's libgit2 unseen
            each = opened.paths_under_each(head, folders)
            git_log.write_text("")
            answers = {folder: list(each(folder)) for folder in folders}
        assert subcommands(git_log) == ["ls-tree"], folders
        for folder in [*folders, "docs/with space"]:
            expected = list(opened.tree_paths(head, folder))
            assert list(opened.paths_under(head, folder)) == expected     # libgit2's walk, the same list
            assert answers.get(folder, list(each(folder))) == expected, (folders, folder)


def test_paths_under_lists_what_git_ls_tree_lists_in_its_order(tmp_path: Path) -> None:
    """Folders, a file, an absent path, a name that is a prefix of another, a symbolic link, a
    submodule (whose commit this repository does not hold) and names git would quote, walked
    in-process, are `git ls-tree`'s list in `git ls-tree`'s order."""
    sub = make_repo(tmp_path / "sub", {"s.txt": "s\n"})
    repo = make_repo(tmp_path / "main", {
        "packages/api/src/a.py": "a = 1\n", "packages/api/README.md": "api\n", "packages/apix": "x\n",
        "packages/api-b/c.py": "c\n", "docs/with space/ü ber.md": "u\n", "docs/new\nline.txt": "n\n",
        "docs/*.md": "star\n", "top.txt": "t\n"})
    os.symlink("packages/api", repo / "link")
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "vendor/sub")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "more")
    head = git(repo, "rev-parse", "HEAD").strip()
    tree = git(repo, "rev-parse", "HEAD^{tree}").strip()
    opened = GitRepo(repo)
    for under in ("", "packages", "packages/api", "packages/ap", "packages/apix", "packages/api/src/a.py", "docs",
                  "docs/with space", "docs/*.md", "docs/*", "link", "vendor/sub", "vendor", "absent",
                  "absent/deeper", "top.txt/deeper", "packages/", "packages//api", "./packages", "packages/api/",
                  "top.txt/"):
        for treeish in (head, tree):
            assert list(opened.paths_under(treeish, under)) == list(opened.tree_paths(treeish, under)), under
    assert list(opened.paths_under(head, "packages"))[:1] == ["packages/api-b/c.py"]   # git's order, lazily
