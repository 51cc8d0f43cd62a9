"""GitRepo opens a plain repository without libgit2 and loads it on the first use of `repo` (issue 36:
pygit2's import is ~30 ms of every call): the folders come from gitrepo.locate, the set-up check and
a loose ref's value from the files git itself reads. Every answer is held to libgit2's own on real
repositories; where the files do not answer plainly, libgit2 is asked, as before."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pygit2

from tests.conftest import git, make_repo
from worktree_coord.gitrepo import GitRepo
from worktree_coord.gitrepo.locate import read_loose_ref, ref_from_files, worktree_config_on


def libgit2_folders(start: Path) -> tuple[Path, Path, bool]:
    """(toplevel, common dir, bare) as libgit2 finds them (what GitRepo did before)."""
    git_dir = Path(pygit2.discover_repository(str(start))).resolve()
    common = git_dir
    if (git_dir / "commondir").exists():
        common = (git_dir / (git_dir / "commondir").read_text().strip()).resolve()
    opened = pygit2.Repository(str(common))
    return (None if opened.is_bare else Path(opened.workdir).resolve()), common, opened.is_bare


def test_a_plain_repository_opens_where_libgit2_finds_it_and_loads_libgit2_on_first_use(tmp_path):
    repo = make_repo(tmp_path / "main", {"pkg/a.py": "a = 1\n"})
    git(repo, "worktree", "add", "-q", "-b", "side", str(tmp_path / "linked"))
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(tmp_path / "bare.git"))
    for start in (repo, repo / "pkg", tmp_path / "linked", tmp_path / "linked" / "pkg", tmp_path / "bare.git"):
        opened = GitRepo(start)
        assert (opened.toplevel, opened.common_dir, opened.is_bare) == libgit2_folders(start), start
        assert Path(opened.repo.path).resolve() == opened.common_dir, start


def test_a_loose_ref_is_read_as_libgit2_reads_it_and_anything_else_is_asked_of_libgit2(tmp_path):
    repo = make_repo(tmp_path / "main", {"a.py": "a = 1\n"})
    head = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "branch", "wtc/r1/integration")
    git(repo, "symbolic-ref", "refs/heads/alias", "refs/heads/main")
    opened, libgit2 = GitRepo(repo), pygit2.Repository(str(repo))

    def libgit2_target(name: str) -> str | None:
        ref = libgit2.references.get(name)
        return None if ref is None else str(ref.resolve().target)

    common = opened.common_dir
    assert read_loose_ref(common, "refs/heads/wtc/r1/integration") == head
    assert read_loose_ref(common, "refs/heads/alias") is None            # symbolic: libgit2 resolves it
    assert read_loose_ref(common, "refs/heads/none") is None
    assert read_loose_ref(common, "refs/heads/../../config") is None
    assert read_loose_ref(common, "HEAD") is None
    names = ("refs/heads/wtc/r1/integration", "refs/heads/alias", "refs/heads/main", "refs/heads/none")
    assert [opened.ref_target(n) for n in names] == [libgit2_target(n) for n in names] == [head, head, head, None]
    git(repo, "pack-refs", "--all")                                      # packed: no loose file left
    assert read_loose_ref(common, "refs/heads/wtc/r1/integration") is None
    assert opened.ref_target("refs/heads/wtc/r1/integration") == head
    git(repo, "commit", "-q", "--allow-empty", "-m", "next")
    git(repo, "branch", "-f", "wtc/r1/integration", "HEAD")              # a loose ref hides the packed one
    moved = git(repo, "rev-parse", "HEAD").strip()
    assert read_loose_ref(common, "refs/heads/wtc/r1/integration") == moved
    assert opened.ref_target("refs/heads/wtc/r1/integration") == libgit2_target("refs/heads/wtc/r1/integration") == moved


def test_the_set_up_check_reads_the_config_file_only_when_it_says_so_plainly(tmp_path):
    repo = make_repo(tmp_path / "main", {"a.py": "a = 1\n"})
    common = repo / ".git"
    assert not worktree_config_on(common)
    GitRepo(repo).ensure_setup()
    assert worktree_config_on(common)
    assert pygit2.Repository(str(repo)).config.get_bool("extensions.worktreeConfig")
    config = (common / "config").read_text()
    for variant, libgit2_says in (
            (config + "[extensions]\n\tworktreeConfig = false\n", False),     # a later line turns it off
            (config + "[include]\n\tpath = other\n", True),                   # an include could say otherwise
            (config + "[core]\n\tworktreeConfig = true\n", True),             # the key under another section
            (config.replace("worktreeConfig = true", "worktreeConfig = yes"), True)):   # not the plain spelling
        (common / "config").write_text(variant)
        assert not worktree_config_on(common), variant                       # not plain: libgit2 is asked
        assert pygit2.Repository(str(repo)).config.get_bool("extensions.worktreeConfig") is libgit2_says
    (common / "config").write_text(config)
    (common / "config.worktree").write_text("[extensions]\n\tworktreeConfig = false\n")
    assert not worktree_config_on(common)
    (common / "config.worktree").unlink()
    assert worktree_config_on(common)


def test_a_set_up_repository_opens_and_reads_its_loose_refs_without_pygit2(tmp_path):
    repo = make_repo(tmp_path / "main", {"a.py": "a = 1\n"})
    GitRepo(repo).ensure_setup()
    git(repo, "branch", "wtc/r1/integration")
    probe = ("import sys\nfrom worktree_coord.gitrepo import GitRepo\n"
             "opened = GitRepo('.')\nopened.ensure_setup()\n"
             "assert opened.ref_target('refs/heads/wtc/r1/integration')\n"
             "assert 'pygit2' not in sys.modules\n"
             "assert opened.repo.is_bare is False and 'pygit2' in sys.modules\n")
    subprocess.run([sys.executable, "-c", probe], cwd=repo, check=True, env=dict(os.environ))


def libgit2_tree_paths(repo: pygit2.Repository, sha: str, under: str = "") -> set[str]:
    """A commit's file paths under `under` as a walk of libgit2's tree objects lists them (what
    GitRepo.tree_paths did before it asked `git ls-tree`)."""
    tree = repo[pygit2.Oid(hex=sha)].peel(pygit2.Tree)
    if under:
        try:
            entry = tree[under]
        except KeyError:
            return set()
        if entry.filemode != pygit2.GIT_FILEMODE_TREE:
            return {under}
        tree = repo[entry.id]
    found, stack = set(), [(f"{under}/" if under else "", tree)]
    while stack:
        prefix, node = stack.pop()
        for entry in node:
            if entry.filemode == pygit2.GIT_FILEMODE_TREE:
                stack.append((prefix + entry.name + "/", repo[entry.id]))
            else:
                found.add(prefix + entry.name)
    return found


def test_a_trees_paths_are_what_a_walk_of_libgit2s_tree_lists_without_loading_it(tmp_path):
    """A task start lists the pin's files under each --own glob's folder for its notes; `git ls-tree`
    answers, so the start loads no libgit2. Folders, a file, an absent path, a name that is a prefix
    of another, a symbolic link, a submodule and names git would quote are listed alike."""
    sub = make_repo(tmp_path / "sub", {"s.txt": "s\n"})
    repo = make_repo(tmp_path / "main", {
        "packages/api/src/a.py": "a = 1\n", "packages/api/README.md": "api\n", "packages/apix": "x\n",
        "docs/with space/ü ber.md": "u\n", "docs/new\nline.txt": "n\n", "docs/*.md": "star\n", "top.txt": "t\n"})
    os.symlink("packages/api", repo / "link")
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "vendor/sub")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "more")
    head = git(repo, "rev-parse", "HEAD").strip()
    opened, libgit2 = GitRepo(repo), pygit2.Repository(str(repo))
    unders = ("", "packages", "packages/api", "packages/ap", "packages/apix", "packages/api/src/a.py", "docs",
              "docs/with space", "docs/*.md", "docs/*", "link", "vendor/sub", "vendor", "absent", "absent/deeper")
    for under in unders:
        assert set(opened.tree_paths(head, under)) == libgit2_tree_paths(libgit2, head, under), under
    assert set(GitRepo(repo / "docs").tree_paths(head, "packages")) == libgit2_tree_paths(libgit2, head, "packages")
    assert "pygit2" not in sys.modules or opened._repo is None


def test_a_refs_value_or_absence_is_read_from_loose_and_packed_files_as_libgit2_reads_it(tmp_path):
    """A task start asks whether its branch exists (a new task's does not) and reads its worktree's
    HEAD: loose refs, `packed-refs` and the absence of both answer without libgit2; a symbolic ref,
    a name outside git's plain rules and a reftable store are asked of libgit2."""
    repo = make_repo(tmp_path / "main", {"a.py": "a = 1\n"})
    head = git(repo, "rev-parse", "HEAD").strip()
    common = repo / ".git"
    libgit2 = pygit2.Repository(str(repo))

    def libgit2_target(name: str) -> str | None:
        ref = libgit2.references.get(name)
        return None if ref is None else str(ref.resolve().target)

    assert not (common / "packed-refs").exists()
    assert ref_from_files(common, "refs/heads/wtc/r1/t1") == (True, None)        # no loose file, no packed-refs
    git(repo, "branch", "wtc/r1/packed")
    git(repo, "tag", "-a", "-m", "annotated", "v1")                               # a peeled line in packed-refs
    git(repo, "pack-refs", "--all")
    assert "^" in (common / "packed-refs").read_text()
    git(repo, "commit", "-q", "--allow-empty", "-m", "next")
    moved = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "branch", "wtc/r1/loose")
    git(repo, "symbolic-ref", "refs/heads/alias", "refs/heads/main")
    answers = {
        "refs/heads/wtc/r1/packed": (True, head), "refs/heads/wtc/r1/loose": (True, moved),
        "refs/heads/main": (True, moved),                                          # loose again, hiding the packed line
        "refs/heads/wtc/r1/none": (True, None), "refs/heads/wtc/r1": (False, None),   # a folder of that name
        "refs/heads/wtc/r1/loose/deeper": (False, None),                           # under a file
        "refs/heads/alias": (False, None), "refs/heads/a b": (False, None), "refs/heads/x.lock": (False, None),
        "refs/tags/v1": (True, str(libgit2.references["refs/tags/v1"].target)),  # the tag object, not the peeled commit
    }
    for name, expected in answers.items():
        assert ref_from_files(common, name) == expected, name
        if expected[0]:
            assert expected[1] == libgit2_target(name), name
    opened = GitRepo(repo)
    for name in ("refs/heads/wtc/r1/packed", "refs/heads/wtc/r1/none", "refs/heads/alias", "refs/heads/wtc/r1"):
        assert opened.ref_target(name) == libgit2_target(name), name
    (common / "packed-refs").write_text((common / "packed-refs").read_text() + "garbage line\n")
    assert ref_from_files(common, "refs/heads/wtc/r1/none") == (False, None)     # a line of another shape
    (common / "reftable").mkdir()
    assert ref_from_files(common, "refs/heads/wtc/r1/none") == (False, None)


def test_a_worktrees_head_on_a_packed_branch_is_read_without_libgit2(tmp_path):
    repo = make_repo(tmp_path / "main", {"a.py": "a = 1\n"})
    head = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "worktree", "add", "-q", "-b", "side", str(tmp_path / "linked"))
    git(repo, "pack-refs", "--all")
    assert not (repo / ".git" / "refs" / "heads" / "side").exists()
    probe = ("import sys\nfrom pathlib import Path\nfrom worktree_coord.gitrepo import GitRepo\n"
             f"opened = GitRepo({str(repo)!r})\n"
             f"assert opened.worktree_head(Path({str(tmp_path / 'linked')!r})) == ({head!r}, 'refs/heads/side')\n"
             "assert 'pygit2' not in sys.modules\n")
    subprocess.run([sys.executable, "-c", probe], cwd=repo, check=True, env=dict(os.environ))
