"""A star re-export a barrel drops, while files it did not change import a name through it, blocks.

Found driving wtc on Chart.js: `src/helpers/index.ts` is a barrel of `export * from
'./helpers.intl.js'` lines, and `controller.polarArea.js` imports `formatNumber` from
'../helpers/index.js'. A task owning the barrel deleted the `export * from './helpers.intl.js'`
line: the barrel defines no name itself, so the task "removed" nothing, its finish merged, and the
landed tree no longer type-checked (TS2305: no exported member 'formatNumber'). Python's
`from .intl import *` in a package's `__init__.py` is the same re-export. The names such a line
passed on are the names it took from its module; a use of one through the barrel is left behind
unless the barrel still passes it on another way.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import git, make_repo, wtc_in_process
from tests.core.test_uses_left_behind import _removal_merged, _removal_refused

INTL = "export function formatNumber(n: number): string {\n  return String(n);\n}\n"
MATH = "export function toRadians(d: number): number {\n  return d / 57.3;\n}\n"
BARREL = "export * from './math.js';\nexport * from './intl.js';\n"
USER = ("import {formatNumber, toRadians} from '../helpers/index.js';\n\n"
        "export function label(n: number): string {\n  return formatNumber(toRadians(n));\n}\n")
TS = {"src/helpers/math.ts": MATH, "src/helpers/intl.ts": INTL, "src/helpers/index.ts": BARREL,
      "src/controllers/polar.ts": USER}

PY = {"pkg/__init__.py": "from .math import *\nfrom .intl import *\n",
      "pkg/math.py": "def to_radians(d):\n    return d / 57.3\n",
      "pkg/intl.py": "def format_number(n):\n    return str(n)\n",
      "user.py": "from pkg import format_number\n\n\ndef label(n):\n    return format_number(n)\n"}


@pytest.mark.parametrize("files, barrel, line, use", [
    (TS, "src/helpers/index.ts", "export * from './intl.js';\n", "src/controllers/polar.ts (lines 1, 4: 2 uses) still uses formatNumber"),
    (PY, "pkg/__init__.py", "from .intl import *\n", "user.py (lines 1, 5: 2 uses) still uses format_number"),
    (TS | {"src/helpers/index.ts": "export * from './math.js';\nexport * from './text/index.js';\n",
           "src/helpers/text/index.ts": "export * from '../intl.js';\n"},
     "src/helpers/index.ts", "export * from './text/index.js';\n", "src/controllers/polar.ts (lines 1, 4: 2 uses) still uses formatNumber"),
    ({"src/controllers/doughnut.js": "export default class DoughnutController {}\n",
      "src/controllers/index.js": "export {default as DoughnutController} from './doughnut.js';\n",
      "src/index.ts": "export * from './controllers/index.js';\nexport const version = 1;\n",
      "src/plugins/colors.ts": "import {DoughnutController} from '../index.js';\n\nexport const c = new DoughnutController();\n"},
     "src/index.ts", "export * from './controllers/index.js';\n", "src/plugins/colors.ts (lines 1, 3: 2 uses) still uses DoughnutController"),
], ids=["typescript-export-star", "python-star-import", "a-barrel-of-barrels", "a-barrel-of-default-reexports"])
def test_a_star_reexport_dropped_from_a_barrel_while_a_name_is_imported_through_it_is_refused(tmp_path, files, barrel, line, use):
    _, left = _removal_refused(tmp_path, files, barrel, {barrel: files[barrel].replace(line, "")})
    assert len(left) == 1 and left[0].startswith(use), left
    assert barrel in left[0], left


def test_a_star_reexport_dropped_whose_names_nobody_imports_through_the_barrel_merges(tmp_path):
    user = "import {toRadians} from '../helpers/index.js';\n\nexport const r = toRadians(1);\n"
    _removal_merged(tmp_path, TS | {"src/controllers/polar.ts": user},
                    {"src/helpers/index.ts": BARREL.replace("export * from './intl.js';\n", "")})


def test_a_star_reexport_replaced_by_a_named_reexport_of_the_same_name_merges(tmp_path):
    barrel = BARREL.replace("export * from './intl.js';\n", "export {formatNumber} from './intl.js';\n")
    _removal_merged(tmp_path, TS, {"src/helpers/index.ts": barrel})


def test_a_star_reexport_moved_to_the_module_that_moved_merges(tmp_path):
    """The barrel now stars the file the code moved to: every name still passes through."""
    barrel = BARREL.replace("'./intl.js'", "'./numfmt.js'")
    _removal_merged(tmp_path, TS, {"src/helpers/index.ts": barrel, "src/helpers/intl.ts": None,
                                   "src/helpers/numfmt.ts": INTL})


def test_a_dropped_star_reexport_beside_other_changes_of_the_run_is_named_by_the_report_and_stops_land(tmp_path):
    """The run's look at landing holds every file the run changed: the barrel's other star line
    names one (math.ts, a name of which a task removed), which was taken for passing every name. (In the
    Chart.js drive the barrel's task merged before its finish looked; here the drop is committed on
    integration by hand, which no finish checks.)"""
    unused = "\nexport function unused(): number {\n  return 0;\n}\n"
    repo = make_repo(tmp_path / "repo", TS | {"src/helpers/math.ts": MATH + unused})
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    code, body = wtc_in_process(repo, "task", "start", "math", "--run", "r", "--own", "src/helpers/math.ts")
    assert code == 0, body
    # (it removes a name nobody uses: the run's look then reads math.ts as a file of its merge)
    (Path(body["worktree"]) / "src/helpers/math.ts").write_text(MATH)
    code, body = wtc_in_process(repo, "task", "finish", "math", "--run", "r")
    assert (code, body["state"]) == (0, "merged"), body
    git(repo, "checkout", "-q", "wtc/r/integration")
    (repo / "src/helpers/index.ts").write_text(BARREL.replace("export * from './intl.js';\n", ""))
    git(repo, "commit", "-q", "-am", "by hand")
    git(repo, "checkout", "-q", "main")
    code, report = wtc_in_process(repo, "report", "--run", "r", "--onto", "main")
    assert [(u["use_path"], u["name"]) for u in report["left_behind"]] == [("src/controllers/polar.ts", "formatNumber")], report
    main = git(repo, "rev-parse", "main")
    code, body = wtc_in_process(repo, "land", "--run", "r", "--onto", "main", "--yes")
    assert code == 1 and "formatNumber" in body["error"]["message"], body
    assert git(repo, "rev-parse", "main") == main
