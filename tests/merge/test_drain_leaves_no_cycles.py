"""A drain's merges leave nothing for the collector, so a drain may freeze what they keep.

merge_index.py freezes what is alive at the end of each check of a drain (gc.freeze: what the drain
keeps is not walked again by every young collection, 7-9% of a 200-task drain's CPU), and unfreezes
at the drain's end. That is sound only while a merge leaves no reference cycle behind: a cycle
frozen waits for the drain's end, and a drain of a thousand tasks would grow by each. Before, each
merge left ~200 objects in cycles (the check and its reach's readers holding each other's methods,
a re-exports' reader and its check, a nested function of the look calling itself), and with them
the merge's file versions and an old tip's tables.
These drains go through the check's paths that made them: imports followed through a package's
`__init__.py`, a JavaScript barrel, a module moved with its importer fixed, a fixture file edited.
"""

from __future__ import annotations

import gc
from pathlib import Path

from tests.conftest import finished_unmerged, make_repo, wtc
from worktree_coord.coordinator import Coordinator
from worktree_coord.merge.checks.merge_index import MergeIndex

ROUNDS = range(4)
FILES = {
    "pkg/__init__.py": "from .util import helper\nfrom .core import run\n",
    "pkg/util.py": "import os\n\n\ndef helper(x):\n    return x + len(os.sep)\n",
    "pkg/core.py": "from .util import helper\n\n\ndef run(x):\n    return helper(x)\n",
    "pkg/extra.py": "def extra():\n    return 1\n",
    "pkg/uses_extra.py": "from .extra import extra\n\n\ndef twice():\n    return extra() * 2\n",
    "web/index.js": "export * from './a.js';\nexport { b } from './b.js';\n",
    "web/a.js": "export function a(x) {\n  return x;\n}\n",
    "web/b.js": "import { a } from './index.js';\nexport function b(x) {\n  return a(x) + 1;\n}\n",
} | {f"pkg/mod{n}.py": f"from . import helper\nfrom .core import run\n\n\ndef go{n}(x):\n    return run(helper(x))\n"
     for n in ROUNDS} | {f"web/m{n}.js": f"import {{ a, b }} from './index.js';\nexport const m{n} = (x) => a(b(x));\n"
                         for n in ROUNDS} | {
    f"tests/t{n}/conftest.py": "import pytest\n\n\n@pytest.fixture\ndef client():\n    return 1\n" for n in ROUNDS} | {
    f"tests/t{n}/test_core.py": "from pkg import run\n\n\ndef test_run(client):\n    assert run(client)\n" for n in ROUNDS}


def _edits(n: int) -> list[tuple[str, str, dict[str, str | None]]]:
    """(task, --own glob, path -> new text or None to delete): round `n`'s tasks, each on files of its own."""
    return [
        (f"mod{n}", f"pkg/mod{n}.py", {f"pkg/mod{n}.py": FILES[f"pkg/mod{n}.py"].replace("helper(x)", "helper(x + 1)")}),
        (f"js{n}", f"web/m{n}.js", {f"web/m{n}.js": FILES[f"web/m{n}.js"].replace("a(b(x))", "b(a(x))")}),
        (f"fix{n}", f"tests/t{n}/conftest.py",
         {f"tests/t{n}/conftest.py": FILES[f"tests/t{n}/conftest.py"] + "\n\n@pytest.fixture\ndef db():\n    return 2\n"}),
        (f"use{n}", f"tests/t{n}/test_core.py",
         {f"tests/t{n}/test_core.py": FILES[f"tests/t{n}/test_core.py"] + "\n\ndef test_twice(client):\n    assert run(client) == run(client)\n"}),
    ]


MOVE = ("move", "pkg/*extra*.py",
        {"pkg/extra.py": None, "pkg/extra2.py": FILES["pkg/extra.py"],
         "pkg/uses_extra.py": FILES["pkg/uses_extra.py"].replace(".extra ", ".extra2 ")})


def _garbage_of_a_drain(repo: Path, run: str, tasks: list[tuple[str, str, dict[str, str | None]]],
                        states: set[str] = frozenset({"merged"})) -> int:
    """The objects in cycles a drain of `tasks` left (what the collector finds right after it)."""
    assert wtc(repo, "run", "start", "--run", run)[0] == 0
    for task in tasks:
        finished_unmerged(repo, run, *task)
    gc.collect()
    gc.disable()   # every cycle the drain makes is still there at its end, whenever a collection would have run
    try:
        with Coordinator(repo) as coordinator:
            report = coordinator.merge(run)
        assert {row["state"] for row in report.tasks} == states, report.tasks
        return gc.collect()
    finally:
        gc.enable()


def test_a_drain_leaves_no_cycle_per_merge(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", FILES)
    _garbage_of_a_drain(repo, "warm", _edits(0) + [MOVE])   # what a process makes once (its caches), made
    short = _garbage_of_a_drain(repo, "short", _edits(1)[:1] + [MOVE])
    long = _garbage_of_a_drain(repo, "long", _edits(1) + _edits(2) + _edits(3) + [MOVE])
    # 14 merges against 2: before, ~200 objects a merge (2,400 more); now what a drain makes once
    assert long <= short + 20, (short, long)


def _clash(run: str, count: int) -> list[tuple[str, str, dict[str, str | None]]]:
    """`count` tasks changing one line: all but the first are conflicts of the drain."""
    return [(f"{run}{i}", "pkg/core.py", {"pkg/core.py": FILES["pkg/core.py"].replace("helper(x)\n", f"helper(x) + {i}\n")})
            for i in range(count)]


def test_a_drain_of_conflicts_leaves_no_cycle_per_conflict(tmp_path: Path) -> None:
    """A conflict's row asks which task added its lines (merge_queue.TaskLines, whose caches held it in a cycle)."""
    repo = make_repo(tmp_path / "repo", FILES)
    _garbage_of_a_drain(repo, "warm", _clash("w", 3), {"merged", "conflict"})
    few = _garbage_of_a_drain(repo, "few", _clash("f", 2), {"merged", "conflict"})
    many = _garbage_of_a_drain(repo, "many", _clash("m", 8), {"merged", "conflict"})
    assert many <= few + 10, (few, many)


def test_a_drain_in_a_process_that_froze_its_heap_leaves_it_frozen(tmp_path: Path) -> None:
    """`wtc serve` freezes its start-up heap: a drain there neither freezes nor thaws it."""
    repo = make_repo(tmp_path / "repo", FILES)
    assert wtc(repo, "run", "start", "--run", "r")[0] == 0
    for task in _edits(1)[:2]:
        finished_unmerged(repo, "r", *task)
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with Coordinator(repo) as coordinator:
            report = coordinator.merge("r")
        assert {row["state"] for row in report.tasks} == {"merged"}, report.tasks
        # not thawed (0), and nothing of the drain's frozen (more); a frozen object freed by its count leaves
        assert 0 < gc.get_freeze_count() <= frozen
    finally:
        gc.unfreeze()


def test_a_drains_checks_freeze_what_they_keep_and_its_end_thaws_it() -> None:
    index = MergeIndex()
    gc.collect()
    with index.held():
        index.settle()   # the end of one check of the drain
        assert gc.get_freeze_count() > 0
        with index.held():   # a drain inside a drain (nested blocks): thawed only by the last
            index.settle()
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0
    index.settle()   # no drain: nothing frozen
    assert gc.get_freeze_count() == 0
