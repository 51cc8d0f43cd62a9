"""Generated drains: every merge's findings from the tip's tables and what the merge index keeps
(tree.check_tree_merge as the queue runs it) equal those of a walk over every file
(`check_tree_merge(..., walk=True)`). The repositories are small and hold Python (a package whose
`__init__.py` re-exports, an `__all__` list), TypeScript (an `export *` barrel, a named re-export)
and Go (one package); the tasks remove, rename and reshape definitions, delete files, shrink an
`__all__` list, drop a re-export, edit without removing anything, and add files that use the names
directly, through a barrel or within a package. Each task changes files no other task changes, so
the drain merges without conflicts, as the queue's drains mostly do."""

from __future__ import annotations

from pathlib import Path

import pygit2
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.merge.drains import drain_of, findings_of as _findings
from worktree_coord.merge import check_tree_merge
from worktree_coord.merge.checks.merge_index import MergeIndex


def _py_defs(*names: str, params: str = "x") -> str:
    return "".join(f"def {name}({params}):\n    return 1\n\n\n" for name in names)


PIN: dict[str, str] = {
    "pkg/__init__.py": "from .a import *\nfrom .b import b1, b2\n",
    "pkg/a.py": '__all__ = ["a1", "a2"]\n\n\n' + _py_defs("a1") + "def a2(x, y):\n    return x\n",
    "pkg/b.py": _py_defs("b1", "b2"),
    "pkg/c.py": "from .a import a1\n\n\ndef c1(x):\n    return a1(x)\n",
    "pkg/d.py": _py_defs("d1", "d2"),
    "ts/src/index.ts": 'export * from "./s1";\nexport { t2 } from "./s2";\n',
    "ts/src/s1.ts": "export function t1(x: number): number {\n  return x;\n}\n\n"
                    "export function t1b(x: number): number {\n  return x;\n}\n",
    "ts/src/s2.ts": "export function t2(x: number, y: number): number {\n  return x + y;\n}\n",
    "ts/src/s3.ts": 'import { t1 } from "./index";\n\nexport const v = t1(1);\n',
    "go/lib/g1.go": "package lib\n\nfunc G1() int {\n\treturn 1\n}\n",
    "go/lib/g2.go": "package lib\n\nfunc G2(a int) int {\n\treturn a\n}\n",
}

# Each change: (the files it writes, None deleting one). Those taking names away first, then those
# taking nothing away, then new users of the names (a fresh file each time, named by the task).
TAKE_AWAY: dict[str, dict[str, str | None]] = {
    "py-remove-b2": {"pkg/b.py": _py_defs("b1")},
    "py-rename-d1": {"pkg/d.py": _py_defs("d1x", "d2")},
    "py-reshape-a2": {"pkg/a.py": PIN["pkg/a.py"].replace("def a2(x, y)", "def a2(x, y, z)")},
    "py-shrink-all": {"pkg/a.py": PIN["pkg/a.py"].replace('["a1", "a2"]', '["a1"]')},
    "py-delete-d": {"pkg/d.py": None},
    "py-drop-reexport": {"pkg/__init__.py": "from .a import *\nfrom .b import b1\n"},
    "ts-remove-t1b": {"ts/src/s1.ts": PIN["ts/src/s1.ts"].split("\n\nexport function t1b")[0] + "\n"},
    "ts-rename-t2": {"ts/src/s2.ts": PIN["ts/src/s2.ts"].replace("t2(", "t2x(")},
    "ts-drop-reexport": {"ts/src/index.ts": 'export * from "./s1";\n'},
    "ts-delete-s3": {"ts/src/s3.ts": None},
    "go-rename-g1": {"go/lib/g1.go": PIN["go/lib/g1.go"].replace("G1", "G1x")},
    "go-reshape-g2": {"go/lib/g2.go": PIN["go/lib/g2.go"].replace("G2(a int)", "G2(a int, b int)")},
    "go-delete-g1": {"go/lib/g1.go": None},
}
KEEP: dict[str, dict[str, str | None]] = {
    "py-comment-b": {"pkg/b.py": PIN["pkg/b.py"].replace("return 1\n", "return 1  # kept\n", 1)},
    "py-append-d": {"pkg/d.py": PIN["pkg/d.py"] + "def d3(x):\n    return 3\n"},
    "ts-append-s2": {"ts/src/s2.ts": PIN["ts/src/s2.ts"] + "\nexport const more = 1;\n"},
    "go-append-g2": {"go/lib/g2.go": PIN["go/lib/g2.go"] + "\nfunc G3() int {\n\treturn 3\n}\n"},
}
USES: dict[str, tuple[str, str]] = {   # (folder and extension, the text of a new file using names)
    "py-use-barrel": ("pkg/.py", "from pkg import a1, a2, b1, b2\n\n\ndef u(x):\n    return a1(x) + a2(x, x) + b1(x) + b2(x)\n"),
    "py-use-direct": ("pkg/.py", "from pkg.d import d1, d2\n\n\ndef u(x):\n    return d1(x) + d2(x)\n"),
    "py-use-star": ("app/.py", "from pkg import *\n\n\ndef u(x):\n    return a2(x, x)\n"),
    "ts-use-barrel": ("ts/src/.ts", 'import { t1, t1b, t2 } from "./index";\n\nexport const u = t1(1) + t1b(2) + t2(1, 2);\n'),
    "ts-use-direct": ("ts/src/.ts", 'import { t2 } from "./s2";\n\nexport const w = t2(1, 2);\n'),
    "go-use": ("go/lib/.go", "package lib\n\nfunc U() int {\n\treturn G1() + G2(1)\n}\n"),
}
CHANGES = sorted(TAKE_AWAY) + sorted(KEEP) + sorted(USES)


def _drain(root: Path, plan: list[list[str]]) -> tuple[pygit2.Repository, list[tuple[str, str, str, str]]]:
    """The pin, then one task per item of `plan` (its changes; a change whose files an earlier
    task changed is left out, so no two tasks touch one file), each a commit off the pin."""

    def writes_of(number: int, change: str) -> dict[str, str | None]:
        if change in USES:
            where, text = USES[change]
            folder, ext = where.rsplit("/", 1)
            return {f"{folder}/use_{number}_{change.replace('-', '_')}{ext}": text}
        return {**TAKE_AWAY, **KEEP}[change]

    return drain_of(root, PIN, plan, writes_of)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(plan=st.lists(st.lists(st.sampled_from(CHANGES), min_size=1, max_size=3), min_size=2, max_size=7))
def test_every_merge_of_a_drain_finds_what_a_walk_finds(tmp_path_factory, plan: list[list[str]]) -> None:
    root = tmp_path_factory.mktemp("drain")
    repo, merges = _drain(root / "repo.git", plan)
    index = MergeIndex()   # one per drain: each merge's tables derived from the previous tip's
    for number, merge in enumerate(merges):
        kept = _findings(check_tree_merge(repo, *merge, index=index))
        walked = _findings(check_tree_merge(repo, *merge, index=MergeIndex(), walk=True))
        assert kept == walked, (number, plan)
