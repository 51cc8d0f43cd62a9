"""Generated drains whose files import each other: every merge's findings with what a drain keeps
across its checks (reexports._leading_imports, _leads, semantic.imported_files: what a tip file's
imports lead to, kept by blob and taken again only while the merge's files they depend on are the
same) equal those of the same check keeping nothing (reexports.KEEP off) and those of a walk over
every file. The files import by relative and absolute module names (two folders each with a
`util.py`), under aliases (`from .a import a1 as first`), whole modules (`import os`, `import
lib.util`), through barrels (`__init__.py` re-exporting, a star import with `__all__`); the tasks
remove, rename and reshape names, delete files, drop re-exports, and add files that change what an
import resolves to (an `os.py` beside its importers, a third `util.py`, a module where a relative
import found none), then files using the names. Each task changes files no other task changes."""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.merge.drains import drain_of, findings_of as _findings
from worktree_coord.merge import check_tree_merge
from worktree_coord.merge.checks import reexports
from worktree_coord.merge.checks.merge_index import MergeIndex


def _defs(*names: str, params: str = "x") -> str:
    return "".join(f"def {name}({params}):\n    return 1\n\n\n" for name in names)


PIN: dict[str, str] = {
    "pkg/__init__.py": "from .a import *\nfrom .b import b1, b2\n",
    "pkg/a.py": '__all__ = ["a1", "a2"]\nimport os\n\n\n' + _defs("a1") + "def a2(x, y):\n    return x\n",
    "pkg/b.py": "import os\nfrom .a import a1 as first\n\n\n" + _defs("b1", "b2") + "def bb(x):\n    return first(x)\n",
    "pkg/c.py": "import os\nfrom .a import a1\nfrom . import b\n\n\ndef c1(x):\n    return a1(x) + b.b1(x)\n",
    "pkg/d.py": "import os\n\n\n" + _defs("d1", "d2"),
    "lib/__init__.py": "from .util import u1\n",
    "lib/util.py": "import os\n\n\n" + _defs("u1", "u2"),
    "lib/user.py": "import os\nfrom .util import u2 as second\n\n\ndef w(x):\n    return second(x)\n",
    "lib2/util.py": _defs("v1", "v2"),
    "lib2/user.py": "import lib.util\nfrom lib import u1\n\n\ndef w(x):\n    return lib.util.u2(x) + u1(x)\n",
    "pkg/e.py": _defs("d2", "e1"),
    "app/main.py": "import os\nimport pkg\nfrom pkg.d import d1 as one\n\n\ndef m(x):\n    return pkg.b1(x) + one(x)\n",
}

TAKE_AWAY: dict[str, dict[str, str | None]] = {
    "remove-b2": {"pkg/b.py": PIN["pkg/b.py"].replace(_defs("b2"), "")},
    "rename-a1": {"pkg/a.py": PIN["pkg/a.py"].replace("a1", "a1x")},
    "reshape-a2": {"pkg/a.py": PIN["pkg/a.py"].replace("def a2(x, y)", "def a2(x, y, z)")},
    "shrink-all": {"pkg/a.py": PIN["pkg/a.py"].replace('["a1", "a2"]', '["a1"]')},
    "delete-d": {"pkg/d.py": None},
    "delete-util": {"lib/util.py": None},
    "rename-u2": {"lib/util.py": PIN["lib/util.py"].replace("u2", "u2x")},
    "remove-u1": {"lib/util.py": "import os\n\n\n" + _defs("u2")},
    "drop-reexport": {"lib/__init__.py": "import os\n"},
    "drop-b-reexport": {"pkg/__init__.py": "from .a import *\nfrom .b import b1\n"},
    "delete-lib2-util": {"lib2/util.py": None},
    "rename-e-d2": {"pkg/e.py": _defs("d2e", "e1")},
}
# Files that change what an import resolves to (no name taken away by themselves).
SHADOW: dict[str, dict[str, str | None]] = {
    "os-beside-pkg": {"pkg/os.py": "from .d import d2 as sep\n"},
    "os-beside-app": {"app/os.py": _defs("sep")},
    "third-util": {"app/util.py": "from pkg.b import b1 as u2\n"},
    "util-package": {"lib2/util/__init__.py": "from lib.util import u2\n"},
    "d-package": {"pkg/d/__init__.py": "from ..a import a1 as d1\n"},
    # a module where `from .os import d2` found none, passing on the d2 this task removes
    "os-passes-d2": {"pkg/os.py": "from .d import d2\n", "pkg/d.py": PIN["pkg/d.py"].replace(_defs("d2"), "")},
}
KEEP: dict[str, dict[str, str | None]] = {
    "append-d": {"pkg/d.py": PIN["pkg/d.py"] + "def d3(x):\n    return 3\n"},
    "comment-util": {"lib/util.py": PIN["lib/util.py"].replace("return 1\n", "return 1  # kept\n", 1)},
}
USES: dict[str, tuple[str, str]] = {   # (folder, the text of a new file using names)
    "use-barrel": ("pkg", "import os\nfrom pkg import a1, a2, b1, b2\n\n\ndef u(x):\n"
                          "    return a1(x) + a2(x, x) + b1(x) + b2(x)\n"),
    "use-alias": ("pkg", "import os\nfrom .b import b2 as two\nfrom .d import d1 as one\n\n\ndef u(x):\n"
                         "    return two(x) + one(x)\n"),
    "use-star": ("app", "from pkg import *\n\n\ndef u(x):\n    return a1(x) + a2(x, x)\n"),
    "use-module": ("app", "import os\nimport lib.util\nimport pkg.d\n\n\ndef u(x):\n"
                          "    return lib.util.u1(x) + lib.util.u2(x) + pkg.d.d2(x) + os.sep\n"),
    "use-relative": ("lib", "import os\nfrom .util import u1, u2\nfrom . import u1 as again\n\n\ndef u(x):\n"
                            "    return u1(x) + u2(x) + again(x)\n"),
    "use-lib2": ("lib2", "from .util import v1\nfrom lib.util import u2\n\n\ndef u(x):\n    return v1(x) + u2(x)\n"),
    "use-os-d2": ("pkg", "import os\nfrom .os import d2\n\n\ndef u(x):\n    return d2(x)\n"),
    "use-os": ("pkg", "import os\nfrom .os import sep\n\n\ndef u(x):\n    return os.sep + sep(x)\n"),
}
CHANGES = sorted(TAKE_AWAY) + sorted(SHADOW) + sorted(KEEP) + sorted(USES)


def _drain(root: Path, plan: list[list[str]]) -> tuple[pygit2.Repository, list[tuple[str, str, str, str]]]:
    """The pin, then one task per item of `plan` (a change whose files an earlier task changed is
    left out, so no two tasks touch one file), each a commit off the pin."""

    def writes_of(number: int, change: str) -> dict[str, str | None]:
        if change in USES:
            folder, text = USES[change]
            return {f"{folder}/use_{number}_{change.replace('-', '_')}.py": text}
        return {**TAKE_AWAY, **SHADOW, **KEEP}[change]

    return drain_of(root, PIN, plan, writes_of)


def _unkept(repo: pygit2.Repository, merge: tuple[str, str, str, str], walk: bool) -> list[tuple]:
    reexports.KEEP = False
    try:
        return _findings(check_tree_merge(repo, *merge, index=MergeIndex(), walk=walk))
    finally:
        reexports.KEEP = True


EXAMPLES = 60


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(plan=st.lists(st.lists(st.sampled_from(CHANGES), min_size=1, max_size=3), min_size=2, max_size=8))
def test_every_merge_of_a_drain_whose_files_import_finds_what_the_unkept_check_finds(
        tmp_path_factory, plan: list[list[str]]) -> None:
    root = tmp_path_factory.mktemp("drain")
    repo, merges = _drain(root / "repo.git", plan)
    index = MergeIndex()   # one per drain, as the queue's
    for number, merge in enumerate(merges):
        kept = _findings(check_tree_merge(repo, *merge, index=index))
        assert kept == _unkept(repo, merge, walk=False), (number, plan)
        assert kept == _unkept(repo, merge, walk=True), (number, plan)


@pytest.mark.parametrize("plan", [
    # asked at the second merge (d2 renamed elsewhere), `from .os import d2` leads nowhere; the third
    # adds pkg/os.py passing on the d2 it removes: the use is found, not the kept answer taken
    [["use-os-d2"], ["rename-e-d2"], ["os-passes-d2"]],
    # an import that found no file finds one a later task adds, and the kept answer is not taken
    [["use-os"], ["os-beside-pkg"], ["remove-b2"], ["delete-d"]],
    [["use-module"], ["third-util"], ["util-package"], ["rename-u2"], ["delete-util"]],
    [["use-alias"], ["d-package"], ["rename-a1"], ["delete-d"]],
])
def test_a_kept_answer_is_not_taken_once_the_files_it_depends_on_change(tmp_path: Path, plan) -> None:
    repo, merges = _drain(tmp_path / "repo.git", plan)
    index = MergeIndex()
    for number, merge in enumerate(merges):
        kept = _findings(check_tree_merge(repo, *merge, index=index))
        assert kept == _unkept(repo, merge, walk=False), (number, plan)


def test_a_damaged_kept_answer_is_rebuilt_not_taken(tmp_path: Path) -> None:
    """Each kept answer is taken only with the merge's files it was computed with: one whose files
    no longer match (here: damaged, its answer emptied) is computed again."""
    from worktree_coord.merge.checks import semantic

    plan = [["use-os-d2", "use-alias"], ["rename-e-d2"], ["os-passes-d2", "remove-b2"]]
    repo, merges = _drain(tmp_path / "repo.git", plan)
    index = MergeIndex()
    for merge in merges[:-1]:
        check_tree_merge(repo, *merge, index=index)
    tables = (reexports._USERS, reexports._LEADS, semantic._IMPORTED)
    assert all(tables), "the drain kept nothing: the test no longer damages what it says"
    for key, value in list(reexports._USERS.items()):
        reexports._USERS[key] = (tuple((k, ("damaged.py",)) for k, _ in value[0]), ())
    for key, (named, _) in list(reexports._LEADS.items()):
        reexports._LEADS[key] = (tuple(("damaged.py",) for _ in named), (frozenset(), ()))
    for key, value in list(semantic._IMPORTED.items()):
        semantic._IMPORTED[key] = (tuple((k, ("damaged.py",)) for k, _ in value[0]), frozenset())
    kept = _findings(check_tree_merge(repo, *merges[-1], index=index))
    assert kept and kept == _unkept(repo, merges[-1], walk=False)
