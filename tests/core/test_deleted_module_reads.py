"""The names of a deleted module are looked for where the module is spelled, not in every file that
spells one of its names.

Found measuring a drain (`wtc merge` pays the left-behind look at every merge): each task deleted a
module defining `f0`..`f23`, names every module of the 20,000-file repository defines too; each
merge gathered the 20,000 files spelling them and read a hundred, 150-190 ms of CPU a merge. A use
of a name of a module no file answers any more either spells the module (its import) or reaches it
through a file that imports it (a barrel, a star import), whose import is left behind itself
(left_modules.py): what blocks is unchanged, the files read are the module's importers.
"""

from __future__ import annotations

from collections import Counter

from tests.core.test_uses_left_behind import _task_edited
from worktree_coord.coordinator import Coordinator
from worktree_coord.gitrepo.repository import GitRepo

COMMON = "def get(x):\n    return x\n\n\ndef run(x):\n    return x\n"


def _files(spellers: int) -> dict[str, str]:
    files = {"pkg/__init__.py": "", "pkg/gone.py": COMMON,
             "pkg/user.py": "from pkg.gone import get\n\n\nVALUE = get(1)\n",
             "pkg/hub.py": "from pkg.gone import *\n",
             "app/__init__.py": "", "app/main.py": "from pkg.hub import run\n\n\nOUT = run(2)\n"}
    for i in range(spellers):   # modules of their own that define and call `get` and `run`
        files[f"other/m{i}.py"] = COMMON + f"\n\nV{i} = get(run({i}))\n"
    return files


def _check(tmp_path, monkeypatch, spellers: int):
    repo = _task_edited(tmp_path, _files(spellers), "rm", ("pkg/gone.py",), {"pkg/gone.py": None}, None)
    reads: Counter[str] = Counter()
    real = GitRepo.file_at

    def counted(self: GitRepo, commit: str, rel: str) -> bytes | None:
        reads[rel] += 1
        return real(self, commit, rel)

    monkeypatch.setattr(GitRepo, "file_at", counted)
    with Coordinator(repo) as coord:
        check = coord.check_task("r1", "rm")
    return check, reads


def test_a_deleted_module_blocks_at_its_importers_and_its_barrels_importers_are_reached_through_the_barrel(
        tmp_path, monkeypatch):
    check, _ = _check(tmp_path, monkeypatch, 3)
    found = {(row["use_path"], row["name"]) for row in check.left_behind}
    assert ("pkg/user.py", "get") in found, check.left_behind        # imports a name of it by its path
    assert any(path == "pkg/hub.py" for path, _ in found), check.left_behind   # the barrel's star import
    assert not any(path.startswith("other/") for path, _ in found), check.left_behind


def test_files_that_only_spell_the_deleted_modules_names_are_not_read(tmp_path, monkeypatch):
    _, reads = _check(tmp_path, monkeypatch, 40)
    assert not [path for path in reads if path.startswith("other/")], sorted(reads)
