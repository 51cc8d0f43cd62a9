"""Generated drains where tasks move an import path throughout and others add imports of the old
one: every merge's import-path findings, with the check reading a file's pin version only where
what it tells can matter (import_paths.NARROW: the modules the tip's files import, kept in its
tables, TipIndex.importing_modules; the task's added imports only of modules the other side's
tree no longer names), equal those of the check reading every one, over a walk of every file. The
files are Python (absolute and relative module paths, aliases, a name bound from another module,
a module kept but no longer imported) and Go (a module path bumped to /v2 with an alias); a task
moves, adds, or edits around imports, and each changes files no other task changes."""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.merge.drains import drain_of, findings_of
from worktree_coord.merge import check_tree_merge
from worktree_coord.merge.checks import import_paths
from worktree_coord.merge.checks.merge_index import MergeIndex

USE_F = "\n\ndef x(v):\n    return f(v)\n"
GO_OLD = 'package {p}\n\nimport (\n\tlib "example.com/lib"\n)\n\nvar {v} lib.T\n'

PIN: dict[str, str] = {
    "old/mod.py": "def f(v):\n    return v\n\n\ndef g(v):\n    return v\n",
    "new/mod.py": "def f(v):\n    return v\n\n\ndef g(v):\n    return v\n",
    "a/x.py": "import os\nfrom old.mod import f\n" + USE_F,
    "a/y.py": "from old.mod import g as f\n" + USE_F,
    "b/w.py": "def h(v):\n    return v\n",
    "b/w2.py": "def h(v):\n    return v\n",
    "b/z.py": "import sys\nfrom .w import h as f\n" + USE_F,
    "d/q.py": "import os\nimport sys\n\n\ndef q(v):\n    return sys.argv, os.sep\n",
    "d/r.py": "import json\n\n\ndef r(v):\n    return json.dumps(v)\n",
    "go/a/a.go": GO_OLD.format(p="a", v="A"),
    "go/a/b.go": GO_OLD.format(p="a", v="B"),
}

CHANGES: dict[str, dict[str, str | None]] = {
    # moved throughout (every file of the pin naming the module)
    "move-old": {"a/x.py": PIN["a/x.py"].replace("old.mod", "new.mod"),
                 "a/y.py": PIN["a/y.py"].replace("old.mod", "new.mod")},
    "move-old-partly": {"a/x.py": PIN["a/x.py"].replace("old.mod", "new.mod")},
    "move-w": {"b/z.py": PIN["b/z.py"].replace(".w ", ".w2 ")},
    "move-go": {"go/a/a.go": PIN["go/a/a.go"].replace("example.com/lib", "example.com/lib/v2"),
                "go/a/b.go": PIN["go/a/b.go"].replace("example.com/lib", "example.com/lib/v2")},
    # a module dropped, or kept and bound from elsewhere, or an import swapped
    "swap-sys": {"d/q.py": "import os\nimport shutil as sys\n\n\ndef q(v):\n    return sys.argv, os.sep\n"},
    "drop-json": {"d/r.py": "def r(v):\n    return str(v)\n"},
    "json-elsewhere": {"d/r.py": "from simplejson import dumps\n\n\ndef r(v):\n    return dumps(v)\n"},
    # edits that change no import, of files that import
    "edit-z": {"b/z.py": PIN["b/z.py"].replace("return f(v)", "return f(v) + 1")},
    "edit-q": {"d/q.py": PIN["d/q.py"].replace("os.sep", "os.sep, 1")},
    "edit-go": {"go/a/a.go": PIN["go/a/a.go"].replace("var A", "var A2")},
}
USES: dict[str, tuple[str, str]] = {   # (a file's folder and extension, its text): new files
    "use-old": ("c/.py", "from old.mod import f\n" + USE_F),
    "use-old-in-a": ("a/.py", "import os\nfrom old.mod import g\n\n\ndef u(v):\n    return g(v)\n"),
    "use-new": ("c/.py", "from new.mod import f\n" + USE_F),
    "use-w": ("b/.py", "from .w import h\n\n\ndef u(v):\n    return h(v)\n"),
    "use-w-elsewhere": ("c/.py", "from .w import h\n\n\ndef u(v):\n    return h(v)\n"),
    "use-sys": ("d/.py", "import sys\n\n\ndef u(v):\n    return sys.argv\n"),
    "use-json": ("c/.py", "import json\n\n\ndef u(v):\n    return json.dumps(v)\n"),
    "use-go": ("go/b/.go", GO_OLD.format(p="b", v="C")),
}
NAMES = sorted(CHANGES) + sorted(USES)


def _drain(root: Path, plan: list[list[str]]) -> tuple[pygit2.Repository, list[tuple[str, str, str, str]]]:
    def writes_of(number: int, change: str) -> dict[str, str | None]:
        if change in USES:
            where, text = USES[change]
            folder, ext = where.rsplit("/", 1)
            return {f"{folder}/use_{number}_{change.replace('-', '_')}{ext}": text}
        return CHANGES[change]

    return drain_of(root, PIN, plan, writes_of)


def _reading_every_base(repo: pygit2.Repository, merge: tuple[str, str, str, str]) -> list[tuple]:
    import_paths.NARROW = False
    try:
        return findings_of(check_tree_merge(repo, *merge, index=MergeIndex(), walk=True))
    finally:
        import_paths.NARROW = True


def _same_findings_at_every_merge(root: Path, plan: list[list[str]]) -> list[list[tuple]]:
    repo, merges = _drain(root / "repo.git", plan)
    index = MergeIndex()   # one per drain, as the queue's
    found = []
    for number, merge in enumerate(merges):
        narrow = findings_of(check_tree_merge(repo, *merge, index=index))
        assert narrow == _reading_every_base(repo, merge), (number, plan)
        found.append(narrow)
    return found


EXAMPLES = 25


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(plan=st.lists(st.lists(st.sampled_from(NAMES), min_size=1, max_size=3), min_size=2, max_size=7))
def test_every_merge_of_a_drain_moving_imports_finds_what_reading_every_base_finds(
        tmp_path_factory, plan: list[list[str]]) -> None:
    _same_findings_at_every_merge(tmp_path_factory.mktemp("drain"), plan)


@pytest.mark.parametrize("plan, module", [
    # the tip adds an import of a module the task then moves throughout (the tip's tables name it)
    ([["use-old"], ["move-old"]], "old.mod"),
    ([["edit-z", "use-old-in-a"], ["move-old", "edit-q"]], "old.mod"),
    ([["use-w"], ["move-w"]], ".w"),
    ([["use-go"], ["move-go"]], "example.com/lib"),
    # the tip moves it, the task adds an import of it (the task's added import, unnamed in the tip)
    ([["move-old"], ["use-old"]], "old.mod"),
    ([["move-w"], ["use-w"]], ".w"),
    ([["move-go"], ["edit-q"], ["use-go"]], "example.com/lib"),
])
def test_a_module_moved_throughout_is_found_either_way_round(tmp_path: Path, plan, module: str) -> None:
    found = _same_findings_at_every_merge(tmp_path, plan)
    assert [f[1] for f in found[-1] if f[0] == "import_path"] == [module], found


@pytest.mark.parametrize("plan", [
    [["use-old"], ["move-old-partly"]],      # a/y.py still imports old.mod
    [["use-w-elsewhere"], ["move-w"]],       # c/.w is another module than b/.w
    [["use-new"], ["move-old"]],
    [["use-sys"], ["swap-sys"]],             # `sys` still named (`as sys`)
    [["use-json"], ["json-elsewhere"]],
])
def test_no_finding_where_the_module_is_not_moved_throughout(tmp_path: Path, plan) -> None:
    found = _same_findings_at_every_merge(tmp_path, plan)
    assert [f for f in found[-1] if f[0] == "import_path"] == [], found
