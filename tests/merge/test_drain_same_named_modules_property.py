"""Generated drains over a repository whose packages each hold a module of one name (`util.py`,
`util.ts`, as `utils`, `types`, `config` recur across a monorepo's packages): every merge's reach
(which words of which file may break a use) from the tip's tables equals a walk's over every file,
and so do the findings. The tasks edit a package's util (removing a name, or keeping every one),
move it (deleted, its text added under another name), delete a file, edit a user next to its
import, and add users of a util: relative, absolute from another package, a whole module (`from
pkgN import util`: any name may be read through it), and TypeScript's named and namespace imports.

A task's file spells the module word of every package's util, so the tip's files that hold that
word are many; reach.py pairs it only with those its merged imports resolve to, or whose near words
it may reach through a re-export (`Reach._tip_holders`). With BARREL_CANDIDATES shrunk that rule
runs from the drain's second merge."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.merge.drains import drain_of, findings_of, reach_maps
from worktree_coord.merge import check_tree_merge
from worktree_coord.merge.checks import reach
from worktree_coord.merge.checks.merge_index import MergeIndex

PACKAGES = 4


def _util_py(k: int) -> str:
    return "".join(f"def {name}(x):\n    return x + {k}\n\n\n" for name in ("u1", "u2", "u3"))


def _util_ts(k: int) -> str:
    return "".join(f"export function {name}(x: number): number {{\n  return x + {k};\n}}\n\n"
                   for name in ("t1", "t2"))


PIN: dict[str, str] = {}
for _k in range(PACKAGES):
    PIN.update({
        f"pkg{_k}/__init__.py": "",
        f"pkg{_k}/util.py": _util_py(_k),
        f"pkg{_k}/a.py": "from .util import u1\n\n\ndef a1(x):\n    return u1(x)\n",
        f"pkg{_k}/b.py": f"from pkg{_k} import util\n\n\ndef b1(x):\n    return util.u2(x)\n",
        f"pkg{_k}/c.py": "def c1(x):\n    return x\n",
        f"web{_k}/util.ts": _util_ts(_k),
        f"web{_k}/a.ts": 'import { t1 } from "./util";\n\nexport const a = t1(1);\n',
    })


def _change(k: int, kind: str, number: int) -> dict[str, str | None]:
    other = (k + 1) % PACKAGES
    return {
        "py-remove": {f"pkg{k}/util.py": _util_py(k).replace("def u2(", "def u2x(")},
        "py-keep": {f"pkg{k}/util.py": _util_py(k) + "def u4(x):\n    return 4\n"},
        "py-move": {f"pkg{k}/util.py": None, f"pkg{k}/helpers_{number}.py": _util_py(k)},
        "py-delete-c": {f"pkg{k}/c.py": None},
        "py-edit-user": {f"pkg{k}/a.py": "from .util import u1\n\n\ndef a1(x):\n    return u1(x) + 1\n"},
        "py-use-relative": {f"pkg{k}/use_{number}.py": "from .util import u1, u2, u3\n\n\n"
                                                        "def w(x):\n    return u1(x) + u2(x) + u3(x)\n"},
        "py-use-absolute": {f"pkg{k}/abs_{number}.py": f"from pkg{other}.util import u2\n\n\n"
                                                       "def w(x):\n    return u2(x)\n"},
        "py-use-whole": {f"pkg{k}/whole_{number}.py": f"from pkg{k} import util\n\n\n"
                                                      "def w(x):\n    return util.u2(x) + util.u3(x)\n"},
        "ts-rename": {f"web{k}/util.ts": _util_ts(k).replace("function t2(", "function t2x(")},
        "ts-move": {f"web{k}/util.ts": None, f"web{k}/helpers-{number}.ts": _util_ts(k)},
        "ts-use-named": {f"web{k}/use-{number}.ts": 'import { t1, t2 } from "./util";\n\n'
                                                    "export const w = t1(1) + t2(2);\n"},
        "ts-use-namespace": {f"web{k}/ns-{number}.ts": 'import * as util from "./util";\n\n'
                                                       "export const w = util.t2(2);\n"},
    }[kind]


KINDS = ["py-remove", "py-keep", "py-move", "py-delete-c", "py-edit-user", "py-use-relative", "py-use-absolute",
         "py-use-whole", "ts-rename", "ts-move", "ts-use-named", "ts-use-namespace"]
CHANGES = [f"{kind}@{k}" for kind in KINDS for k in range(PACKAGES)]


def _drain(root, plan: list[list[str]]):
    def writes_of(number: int, change: str) -> dict[str, str | None]:
        kind, k = change.split("@")
        return _change(int(k), kind, number)

    return drain_of(root, PIN, plan, writes_of)


@pytest.mark.parametrize("candidates", [reach.BARREL_CANDIDATES, 2])
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(plan=st.lists(st.lists(st.sampled_from(CHANGES), min_size=1, max_size=3), min_size=3, max_size=9))
def test_every_merge_reaches_and_finds_what_a_walk_does(tmp_path_factory, monkeypatch, candidates: int,
                                                        plan: list[list[str]]) -> None:
    monkeypatch.setattr(reach, "BARREL_CANDIDATES", candidates)
    repo, merges = _drain(tmp_path_factory.mktemp("drain") / "repo.git", plan)
    tables = MergeIndex()   # one per drain: each merge's tables derived from the previous tip's
    for number, merge in enumerate(merges):
        assert reach_maps(repo, merge, tables, walk=False) == reach_maps(repo, merge, MergeIndex(), walk=True), \
            (number, plan)
        kept = findings_of(check_tree_merge(repo, *merge, index=tables))
        assert kept == findings_of(check_tree_merge(repo, *merge, index=MergeIndex(), walk=True)), (number, plan)


def test_a_task_file_is_paired_with_the_tips_util_it_imports_not_every_packages(tmp_path, monkeypatch) -> None:
    """Every package's util changed on the tip, then a task adding a user of its own package's: step 2
    pairs it with that util alone, of the tip's files its module word names (before: with each
    package's, each then tested and passed over), and finds what a walk finds."""
    monkeypatch.setattr(reach, "BARREL_CANDIDATES", 2)   # the many-candidates branch, as a long drain's
    plan = [[f"py-keep@{k}"] for k in range(PACKAGES)] + [["py-use-relative@0"]]
    repo, merges = _drain(tmp_path / "repo.git", plan)
    paired: list[set[str]] = []
    real = reach.Reach._pair_words

    def recorded(self, side, other, near_by, imported_by, through):
        if self._tip is not None and side == "left":
            paired.append({path for path in set(near_by) | set(imported_by) if path.endswith("util.py")})
        return real(self, side, other, near_by, imported_by, through)

    monkeypatch.setattr(reach.Reach, "_pair_words", recorded)
    tables = MergeIndex()
    for merge in merges:
        kept = findings_of(check_tree_merge(repo, *merge, index=tables))
        assert kept == findings_of(check_tree_merge(repo, *merge, index=MergeIndex(), walk=True))
    assert paired[-1] == {"pkg0/util.py"}
