"""`GitRepo.files_mentioning` (the left-behind check's grep where the pin's word tables do not answer)
returns the tree's own path names: git quotes a name with bytes outside ASCII in its listings
(core.quotePath), and a quoted name matched no file of the tree, so uses in such a file went unseen."""

from __future__ import annotations

from tests.conftest import git, make_repo
from worktree_coord.gitrepo import GitRepo


def test_names_outside_ascii_and_with_spaces_come_back_as_the_tree_names_them(tmp_path):
    files = {"src/ünïcode.py": "from lib import helper\n", "src/with space.py": "helper()\n",
             "src/plain.py": "helper_two = 1\n", "lib.py": "def helper():\n    pass\n"}
    repo = make_repo(tmp_path / "repo", files)
    head = git(repo, "rev-parse", "HEAD")
    found = GitRepo(repo).files_mentioning(head, ["helper"])
    assert found == ["lib.py", "src/with space.py", "src/ünïcode.py"], found
    assert GitRepo(repo).files_mentioning(head, ["nowhere"]) == []
