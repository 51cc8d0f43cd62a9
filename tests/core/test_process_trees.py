"""The reads `task check` makes without libgit2 (gitrepo/process_trees.py: git processes) give
libgit2's answers: each case computed both ways in the same test, on real repositories, and compared.
The whole check is compared too: a `wtc task check --json` process (which loads no pygit2) against
the same check made in this process (where pygit2 is loaded, so libgit2 answers)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pygit2
import pytest

from tests.conftest import commit, git, make_repo
from worktree_coord.coordinator import Coordinator
from worktree_coord.errors import NotFoundError, UsageError
from worktree_coord.gitrepo import GitRepo
from worktree_coord.gitrepo.process_trees import Scratch, diff_trees, tree_with_edits, write_blobs
from worktree_coord.gitrepo.repository import Change
from worktree_coord.integrate.trees import update_tree

ODD_NAMES = ["with space.txt", "ünï cödé.txt", 'line\nbreak.txt', '"quoted".txt', "back\\slash.txt", "tab\there.txt"]


@pytest.fixture
def without_libgit2(monkeypatch: pytest.MonkeyPatch) -> None:
    """GitRepo as in a process that has not imported pygit2 (this test process has)."""
    monkeypatch.setattr(GitRepo, "libgit2_loaded", property(lambda self: False))


def by_git(repo: GitRepo, worktree: Path, paths: list[str]) -> dict[str, tuple[str, int] | None] | None:
    with Scratch(repo.wtc_dir) as scratch:
        return write_blobs(repo.git, scratch, worktree, paths)


def by_git_add(worktree: Path, paths: list[str]) -> dict[str, tuple[str, int] | None]:
    """What a finish commits of each path: the blob and mode `git add -A` stages in the worktree
    (into a scratch copy of its index), None for a path it stages nothing at."""
    index = worktree / ".git" / "scratch-index" if (worktree / ".git").is_dir() else worktree.parent / "scratch-index"
    env = dict(os.environ, GIT_INDEX_FILE=str(index))
    subprocess.run(["git", "read-tree", "HEAD"], cwd=worktree, env=env, check=True)
    subprocess.run(["git", "add", "-A"], cwd=worktree, env=env, check=True, capture_output=True)
    listed = subprocess.run(["git", "ls-files", "-s", "-z"], cwd=worktree, env=env, check=True,
                            capture_output=True).stdout
    index.unlink()
    staged = {}
    for item in listed.split(b"\0"):
        if item:
            info, _, rel = item.partition(b"\t")
            mode, blob, _stage = info.split(b" ")
            staged[rel.decode()] = (blob.decode(), int(mode, 8))
    return {rel: staged.get(rel) for rel in paths}


def libgit2_changes(repo: GitRepo, old: str, new: str) -> list[Change]:
    out: list[Change] = []
    old_tree = repo.repo[pygit2.Oid(hex=old)].peel(pygit2.Tree)
    new_tree = repo.repo[pygit2.Oid(hex=new)].peel(pygit2.Tree)
    repo._diff_trees("", old_tree, new_tree, out)
    return sorted(out, key=lambda c: c.path)


def test_blobs_are_what_git_add_stages_for_files_links_modes_filters_and_odd_names(tmp_path):
    """A check answers about what a finish (`git add -A`) will commit: the blobs after the end-of-line
    conversion and the clean filters the worktree's attributes choose, with libgit2 loaded or not."""
    worktree = make_repo(tmp_path / "repo", {"a.txt": "a\n", "d/x": "x\n"})
    opened = GitRepo(worktree)
    opened.wtc_dir.mkdir(exist_ok=True)
    (worktree / ".gitattributes").write_text("* text=auto eol=lf\n*.up filter=upper\n*.bin -text\n")
    git(worktree, "config", "filter.upper.clean", "tr a-z A-Z")
    (worktree / "crlf.txt").write_bytes(b"one\r\ntwo\r\n")
    (worktree / "raw.bin").write_bytes(b"kept\r\n")
    (worktree / "shout.up").write_text("quiet\n")
    (worktree / "run.sh").write_text("#!/bin/sh\n")
    os.chmod(worktree / "run.sh", 0o755)
    os.symlink("a.txt", worktree / "link")
    os.symlink("../nowhere/at all", worktree / "dangling")
    os.symlink("d", worktree / "dirlink")
    os.symlink("crlf.txt", worktree / "crlf.up")        # a link is never filtered: its target as is
    for name in ODD_NAMES:
        (worktree / name).write_text(f"{name}\r\n")
    (worktree / "a.txt").unlink()                       # deleted
    (worktree / "folder").mkdir()                       # not a file: no blob (a deletion)
    paths = [".gitattributes", "crlf.txt", "raw.bin", "shout.up", "run.sh", "link", "dangling", "dirlink",
             "crlf.up", "a.txt", "folder", *ODD_NAMES]
    expected = by_git_add(worktree, paths)
    assert by_git(opened, worktree, paths) == expected
    assert opened.working_blobs(worktree, paths) == expected and opened.libgit2_loaded
    assert expected["run.sh"][1] == 0o100755 and expected["link"][1] == 0o120000 and expected["a.txt"] is None
    assert opened.read_blob(expected["crlf.txt"][0]) == b"one\ntwo\n"       # converted, as git add does
    assert opened.read_blob(expected["shout.up"][0]) == b"QUIET\n"           # the clean filter ran
    assert opened.read_blob(expected["raw.bin"][0]) == b"kept\r\n"          # -text: as is


def test_blobs_of_a_linked_worktree_follow_its_own_attributes(tmp_path):
    """A task's worktree may change .gitattributes: its files are filtered by its own, as its `git
    add` filters them, not by the main checkout's."""
    repo = make_repo(tmp_path / "repo", {"a.txt": "a\n"})
    git(repo, "worktree", "add", "-q", "-b", "side", str(tmp_path / "linked"))
    linked = tmp_path / "linked"
    (linked / ".gitattributes").write_text("*.txt text eol=lf\n")
    (linked / "a.txt").write_bytes(b"changed\r\n")
    opened = GitRepo(repo)
    opened.wtc_dir.mkdir(exist_ok=True)
    expected = by_git_add(linked, ["a.txt", ".gitattributes"])
    assert by_git(opened, linked, ["a.txt", ".gitattributes"]) == expected
    assert opened.read_blob(expected["a.txt"][0]) == b"changed\n"


def _tree_cases(worktree: Path, opened: GitRepo) -> list[dict[str, tuple[str, int] | None]]:
    blob = str(opened.repo.create_blob(b"new\n"))
    head = git(worktree, "rev-parse", "HEAD").strip()
    return [
        {"top.txt": (blob, 0o100644)},                                           # added at the top
        {"d/e/deep.txt": (blob, 0o100644), "new/dir/file": (blob, 0o100755)},   # added in old and new folders
        {"d/x": None},                                                           # the last file of d/: d/ goes
        {"d/e/y": None, "d/e/z": None},                                          # an emptied nested folder
        {"d/x": None, "d/e/y": None, "d/e/z": None, "d": (blob, 0o100644)},      # a file where a folder was
        {"f": (blob, 0o120000)},                                                 # a file becomes a link
        {"f": (blob, 0o100755)},                                                 # its execute bit
        {"sub": (head, 0o160000)},                                               # a gitlink (submodule)
        {"missing/none": None},                                                  # deleting what is not there
        {"ünï/with space": (blob, 0o100644)},                                    # odd names
    ]


def test_a_tree_with_edits_is_the_tree_update_tree_writes(tmp_path):
    worktree = make_repo(tmp_path / "repo", {"d/x": "x\n", "d/e/y": "y\n", "d/e/z": "z\n", "f": "f\n"})
    opened = GitRepo(worktree)
    opened.wtc_dir.mkdir(exist_ok=True)
    head = git(worktree, "rev-parse", "HEAD").strip()
    head_tree = git(worktree, "rev-parse", "HEAD^{tree}").strip()
    for edits in _tree_cases(worktree, opened):
        expected = str(update_tree(opened.repo, head_tree, edits))
        assert opened.tree_with_edits(head, edits) == expected, edits
        assert opened.tree_with_edits(head_tree, edits) == expected, edits
    # A folder where a file was, as a worktree lists it (the file deleted, then the folder's file
    # added): update_tree refuses the path through the deleted file, and so does the process path.
    edits = {"f": None, "f/inside": (str(opened.repo.create_blob(b"i\n")), 0o100644)}
    with pytest.raises(UsageError) as libgit2_error:
        update_tree(opened.repo, head_tree, edits)
    with pytest.raises(UsageError) as process_error:
        opened.tree_with_edits(head, edits)
    assert str(process_error.value) == str(libgit2_error.value)
    assert not list(opened.wtc_dir.glob("tmp-trees.*"))       # its scratch folder is gone


def test_tree_diffs_list_what_libgit2_lists(tmp_path, without_libgit2):
    worktree = make_repo(tmp_path / "repo", {"d/x": "x\n", "d/e/y": "y\n", "d/e/z": "z\n", "f": "f\n",
                                             "ünï/a b.txt": "u\n", "a.txt": "a\n", "a/b": "b\n"})
    git(worktree, "config", "diff.ignoreSubmodules", "all")   # the user's config must not hide a gitlink
    opened = GitRepo(worktree)
    opened.wtc_dir.mkdir(exist_ok=True)
    head = git(worktree, "rev-parse", "HEAD").strip()
    head_tree = git(worktree, "rev-parse", "HEAD^{tree}").strip()
    trees = [str(update_tree(opened.repo, head_tree, edits)) for edits in _tree_cases(worktree, opened)]
    trees.append(str(update_tree(opened.repo, head_tree, {"ünï/a b.txt": None, "a.txt": None})))
    for tree in trees:
        for old, new in ((head, tree), (tree, head), (head_tree, tree)):
            expected = libgit2_changes(opened, old, new)   # empty for the deletion of what is not there
            assert opened.changes(old, new) == expected, (old, new)
            assert diff_trees(opened.git, old, new, Change) == expected
    gitlink_tree = trees[7]
    assert [c.new_mode for c in opened.changes(head, gitlink_tree)] == [0o160000]


def test_a_single_merge_base_is_git_s_and_several_or_none_are_asked_of_libgit2(tmp_path, without_libgit2):
    worktree = make_repo(tmp_path / "repo", {"a.txt": "a\n"})
    opened = GitRepo(worktree)
    root = git(worktree, "rev-parse", "HEAD").strip()
    git(worktree, "checkout", "-q", "-b", "left")
    left1 = commit(worktree, {"l.txt": "1\n"}, "l1")
    git(worktree, "checkout", "-q", "-b", "right", root)
    right1 = commit(worktree, {"r.txt": "1\n"}, "r1")
    libgit2 = pygit2.Repository(str(worktree))

    def libgit2_base(a: str, b: str) -> str:
        return str(libgit2.merge_base(pygit2.Oid(hex=a), pygit2.Oid(hex=b)))

    assert opened.merge_base(left1, right1) == libgit2_base(left1, right1) == root
    # Criss-cross: each side merges the other's first commit, then both move on: two best bases.
    git(worktree, "merge", "-q", "--no-edit", left1)
    right2 = commit(worktree, {"r.txt": "2\n"}, "r2")
    git(worktree, "checkout", "-q", "left")
    git(worktree, "merge", "-q", "--no-edit", right1)
    left2 = commit(worktree, {"l.txt": "2\n"}, "l2")
    assert len(git(worktree, "merge-base", "--all", left2, right2).split()) == 2
    assert opened.merge_base(left2, right2) == libgit2_base(left2, right2)
    # No shared history, and a commit this repository lacks: libgit2's errors, as before.
    git(worktree, "checkout", "-q", "--orphan", "alone")
    alone = commit(worktree, {"z.txt": "z\n"}, "alone")
    with pytest.raises(NotFoundError, match="share no history"):
        opened.merge_base(alone, left2)
    with pytest.raises(NotFoundError, match="not in this repository"):
        opened.merge_base("1" * 40, left2)
    assert opened.tree_id(left2) == str(libgit2[pygit2.Oid(hex=left2)].peel(pygit2.Tree).id)
    with pytest.raises(KeyError):
        opened.tree_id("1" * 40)


def _check_both_ways(repo: Path, task: str) -> tuple[dict, dict]:
    """(`wtc task check --json` in a process that loads no pygit2, the same check in this process)."""
    done = subprocess.run([sys.executable, "-m", "worktree_coord", "task", "check", task, "--run", "r1", "--json"],
                          cwd=repo, capture_output=True, text=True, env=dict(os.environ, WTC_NO_SERVE="1"), timeout=120)
    by_process = json.loads(done.stdout)
    assert by_process["exit_code"] == done.returncode, done.stderr
    with Coordinator(repo) as coordinator:
        assert coordinator.git.libgit2_loaded
        here = coordinator.check_task("r1", task).to_json()
    for answer in (by_process, here):
        answer.pop("replayed", None)
        answer.pop("schema", None)   # the envelope the command line adds
        answer["stats"].pop("seconds")
    return by_process, here


def test_a_task_check_without_libgit2_answers_what_libgit2_answers(tmp_path):
    repo = make_repo(tmp_path / "repo", {"t1/d/x.txt": "x\n", "t1/f.txt": "f\n", "t1/gone.txt": "g\n",
                                         "t1/run.sh": "#!/bin/sh\n", "t1/folder/in.txt": "i\n",
                                         "other/keep.txt": "k\n", ".gitignore": "*.log\n"})
    env = dict(os.environ, WTC_NO_SERVE="1")
    for args in (("run", "start", "--run", "r1"), ("task", "start", "t1", "--run", "r1", "--own", "t1/**"),
                 ("task", "start", "t2", "--run", "r1", "--own", "t2/**")):
        subprocess.run([sys.executable, "-m", "worktree_coord", *args], cwd=repo, check=True, capture_output=True,
                       env=env)
    tree = repo / ".wtc" / "worktrees" / "r1" / "t1"
    (tree / "t1" / "f.txt").write_text("staged\n")
    git(tree, "add", "t1/f.txt")
    (tree / "t1" / "f.txt").write_text("staged, then edited again\n")     # staged and unstaged
    (tree / "t1" / "gone.txt").unlink()                                    # deleted
    os.chmod(tree / "t1" / "run.sh", 0o755)                                # execute bit
    os.symlink("f.txt", tree / "t1" / "link")                              # a link
    (tree / "t1" / "debug.log").write_text("ignored\n")                    # .gitignore'd: not a change
    (tree / "t1" / "empty").mkdir()                                        # an empty folder: not a change
    (tree / "t1" / "d" / "x.txt").unlink()
    (tree / "t1" / "d" / "x.txt").rmdir() if (tree / "t1" / "d" / "x.txt").is_dir() else None
    (tree / "t1" / "d").rmdir()
    (tree / "t1" / "d").write_text("a file where a folder was\n")          # file replaces folder
    for name in ODD_NAMES:
        (tree / "t1" / name).write_text("odd\n")
    (tree / "other" / "keep.txt").write_text("outside its globs\n")        # a violation (exit 3)
    nested = tree / "t1" / "nested"
    nested.mkdir()
    git(nested, "init", "-q")                                              # an embedded repository
    by_process, here = _check_both_ways(repo, "t1")
    assert by_process == here
    assert by_process["exit_code"] == 3 and "t1/d" in by_process["files"] and "t1/debug.log" not in by_process["files"]
    # A task with a commit of its own, and integration moved on (a merge base that is neither tip):
    t2 = repo / ".wtc" / "worktrees" / "r1" / "t2"
    commit(t2, {"t2/a.txt": "a\n"}, "t2's own")
    (t2 / "t2" / "b.txt").write_text("b\n")
    git(repo, "update-ref", "refs/heads/wtc/r1/integration",
        commit_on(repo, "wtc/r1/integration", {"other/new.txt": "n\n"}))
    by_process, here = _check_both_ways(repo, "t2")
    assert by_process == here and by_process["files"] == ["t2/a.txt", "t2/b.txt"]
    # A folder where a file was: both answers refuse it the same way (UsageError, exit 2).
    (tree / "t1" / "f.txt").unlink()
    (tree / "t1" / "f.txt").mkdir()
    (tree / "t1" / "f.txt" / "inside").write_text("i\n")
    done = subprocess.run([sys.executable, "-m", "worktree_coord", "task", "check", "t1", "--run", "r1", "--json"],
                          cwd=repo, capture_output=True, text=True, env=env, timeout=120)
    with Coordinator(repo) as coordinator, pytest.raises(UsageError) as here_error:
        coordinator.check_task("r1", "t1")
    assert done.returncode == 2 and str(here_error.value) in done.stdout


def commit_on(repo: Path, branch: str, files: dict[str, str]) -> str:
    """A commit on `branch` (its tip as parent) holding `files` over its tree, made without a checkout."""
    opened = pygit2.Repository(str(repo))
    tip = opened.references[f"refs/heads/{branch}"].peel(pygit2.Commit)
    tree = update_tree(opened, tip.tree_id, {p: (str(opened.create_blob(t.encode())), 0o100644)
                                             for p, t in files.items()})
    signature = pygit2.Signature("t", "t@example.invalid")
    return str(opened.create_commit(None, signature, signature, "integration moves", tree, [tip.id]))


def test_a_check_of_a_task_that_put_a_file_where_its_folder_was_lists_both(tmp_path):
    """The folder's files are read as deleted (their paths now go through a file: NotADirectoryError,
    which the check took for a crash) and the file as added, both ways."""
    repo = make_repo(tmp_path / "repo", {"t1/d/x.txt": "x\n", "t1/d/y.txt": "y\n"})
    env = dict(os.environ, WTC_NO_SERVE="1")
    for args in (("run", "start", "--run", "r1"), ("task", "start", "t1", "--run", "r1", "--own", "t1/**")):
        subprocess.run([sys.executable, "-m", "worktree_coord", *args], cwd=repo, check=True, capture_output=True,
                       env=env)
    folder = repo / ".wtc" / "worktrees" / "r1" / "t1" / "t1"
    for name in ("x.txt", "y.txt"):
        (folder / "d" / name).unlink()
    (folder / "d").rmdir()
    (folder / "d").write_text("a file now\n")
    by_process, here = _check_both_ways(repo, "t1")
    assert by_process == here
    assert here["files"] == ["t1/d", "t1/d/x.txt", "t1/d/y.txt"] and here["exit_code"] == 0


def test_the_index_size_is_read_from_the_index_header_as_git_counts_it(tmp_path):
    """`task check` writes a state's tree with git processes only for a worktree of at most
    forecast.PROCESS_TREE_ENTRIES files (read-tree and write-tree cost what the tree holds): the
    count is the index header's, the entries git lists."""
    repo = make_repo(tmp_path / "repo", {f"d{i}/f{j}.txt": f"{i}{j}\n" for i in range(7) for j in range(3)})
    git(repo, "worktree", "add", "-q", "-b", "side", str(tmp_path / "linked"))
    opened = GitRepo(repo)
    for folder in (repo, tmp_path / "linked"):
        assert opened.index_entries(folder) == len(git(folder, "ls-files", "-z").split("\0")) - 1 == 21
    assert opened.index_entries(tmp_path) is None                  # no worktree there


def test_a_task_check_answers_about_what_the_finish_commits_through_a_clean_filter(tmp_path):
    """Task c merged `LOUD`; task d wrote `loud`, which the clean filter its .gitattributes names
    turns into `LOUD` when its finish runs `git add -A`: the same change as c's, so the check says
    clean (it said conflict when it read the file's raw bytes), with libgit2 loaded or not, and the
    finish merges clean as the check said."""
    repo = make_repo(tmp_path / "repo", {".gitattributes": "* text=auto eol=lf\n*.up filter=upper\n",
                                         "s/g.up": "QUIET\n"})
    git(repo, "config", "filter.upper.clean", "tr a-z A-Z")
    env = dict(os.environ, WTC_NO_SERVE="1")
    for args in (("run", "start", "--run", "r1"), ("task", "start", "c", "--run", "r1", "--own", "s/**"),
                 ("task", "start", "d", "--run", "r1", "--own", "s/**")):
        subprocess.run([sys.executable, "-m", "worktree_coord", *args], cwd=repo, check=True, capture_output=True,
                       env=env)
    trees = repo / ".wtc" / "worktrees" / "r1"
    (trees / "c" / "s" / "g.up").write_text("LOUD\n")
    with Coordinator(repo) as coordinator:
        assert coordinator.finish_task("r1", "c").state == "merged"
    (trees / "d" / "s" / "g.up").write_text("loud\n")
    by_process, here = _check_both_ways(repo, "d")
    for answer in (by_process, here):
        answer.pop("stats")   # the second check finds the first's merge in the cache
    assert by_process == here
    assert here["exit_code"] == 0 and here["onto"][0]["clean"] and here["onto"][0]["conflicts"] == [], here
    with Coordinator(repo) as coordinator:
        finished = coordinator.finish_task("r1", "d")
    assert finished.state == "merged", finished
    assert git(repo, "show", "wtc/r1/integration:s/g.up") == "LOUD"
