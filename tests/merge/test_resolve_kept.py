"""`_Check.resolve` answers each (module, the importer's folder, rules) once per check: the answer
reads no more of the importer than its folder, and reach.py asks it for every import of every
user it pairs (each of a tip's files importing `os` and its package's base module)."""

from __future__ import annotations

from pathlib import Path

import pygit2

from tests.conftest import commit, git, make_repo
from worktree_coord.merge.checks.semantic import _Check, semantic_profile
from worktree_coord.merge.tree import _changes, _Mentions, _tree_files


def test_resolve_answers_each_module_once_per_folder_and_check(tmp_path: Path, monkeypatch) -> None:
    """Three files of one folder importing `.base` and `os`: two answers computed, each caller
    handed its own list; the same module from another folder is computed for that folder."""
    files = {"pkg/base.py": "def f0(x):\n    return x\n", "other/base.py": "def f0(x):\n    return x\n",
             **{f"pkg/m{i}.py": "import os\nfrom .base import f0\n" for i in range(3)}}
    root = make_repo(tmp_path / "repo", files)
    pin = git(root, "rev-parse", "HEAD")
    git(root, "checkout", "-q", "-b", "task", pin)
    task = commit(root, {"pkg/base.py": "def f0(x):\n    return x + 1\n",
                         **{f"pkg/m{i}.py": "import os\nfrom .base import f0\n\nf0(1)\n" for i in range(3)}}, "task")
    repo = pygit2.Repository(str(root))
    trees = [repo[x].peel(pygit2.Tree) for x in (pin, pin, task, task)]
    changes = [_changes(trees[0], trees[1]), _changes(trees[0], trees[2]), _changes(trees[0], trees[3])]
    mentions = _Mentions(repo, trees[0], trees[1], trees[2])
    check = _Check(_tree_files(repo, changes), ("ours", "base", "theirs"), {}, True, mentions.file, mentions.folders)
    rules = semantic_profile("pkg/m0.py").semantic
    asked: list[int] = []
    real = _Check._module_index

    def counted(self, rules):
        asked.append(1)
        return real(self, rules)

    monkeypatch.setattr(_Check, "_module_index", counted)
    answers = [check.resolve(module, f"pkg/m{i}.py", rules) for module in (".base", "os") for i in range(3)]
    assert answers == [["pkg/base.py"]] * 3 + [[]] * 3
    assert len(asked) == 2   # once for each module, not once for each of the three importers
    answers[0].append("changed by a caller")
    assert check.resolve(".base", "pkg/m0.py", rules) == ["pkg/base.py"]   # each caller its own list
    assert check.resolve(".base", "other/x.py", rules) == []   # another folder: answered on its own
    assert len(asked) == 3
