"""`wtc report`'s text says a removal's uses left behind in one line, not one line a file.

Found driving wtc on scrapy: one removed name still used in 28 files gave 28 warning lines of the
same advice. The text now gives one line per removal used in more than one file, with the count of
files and uses and the first files' lines; `--json` is unchanged (a warning and a row per file, every
use), and a name used in one file keeps its line as it was. Real repositories, the real `wtc`.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import make_repo, write, wtc

USERS = 5


def _run(tmp_path: Path) -> Path:
    files = {"pkg/__init__.py": "", "pkg/core.py": "def helper(x):\n    return x\n\n\ndef lone(x):\n    return x\n",
             "pkg/solo.py": "from pkg.core import lone\n\nlone(1)\n"}
    files |= {f"pkg/u{i}.py": "from pkg.core import helper\n\n" + "helper(1)\n" * (i + 1) for i in range(USERS)}
    repo = make_repo(tmp_path / "repo", files)
    assert wtc(repo, "run", "start", "--run", "r", "--left-behind", "warn")[0] == 0   # the removal merges
    code, started = wtc(repo, "task", "start", "rename", "--run", "r", "--own", "pkg/core.py")
    assert code == 0, started
    write(Path(started["worktree"]), {"pkg/core.py": "def assist(x):\n    return x\n\n\ndef alone(x):\n    return x\n"})
    code, finished = wtc(repo, "task", "finish", "rename", "--run", "r")
    assert (code, finished["state"]) == (0, "merged"), finished
    return repo


def test_the_report_text_says_one_line_per_removal_and_the_json_every_use(tmp_path: Path) -> None:
    repo = _run(tmp_path)
    text = subprocess.run([sys.executable, "-m", "worktree_coord", "report", "--run", "r"], cwd=repo,
                          capture_output=True, text=True, timeout=300)
    assert text.returncode == 0, text
    said = [line for line in text.stdout.splitlines() if line.startswith("  warning: left behind:")]
    assert len(said) == 2, said
    grouped = next(line for line in said if "helper" in line)
    assert grouped.startswith(f"  warning: left behind: {USERS} files (20 uses) still use helper, which task rename "
                              "removed or renamed"), grouped
    assert "pkg/u0.py (lines 1, 3); pkg/u1.py (lines 1, 3, 4); pkg/u2.py (lines 1, 3, 4, 5) and 2 more files" in grouped
    assert "`--json` lists every use" in grouped
    # One file: its line as it was.
    assert [line for line in said if "lone" in line] == [
        "  warning: left behind: pkg/solo.py (lines 1, 3) still uses lone, which task rename removed or renamed in "
        "pkg/core.py; the landed tree would not resolve it: keep the old name too (an alias), or update the use "
        "(a task that owns pkg/solo.py, or `wtc task widen`)"], said

    code, report = wtc(repo, "report", "--run", "r")
    assert code == 0
    assert sorted(row["use_path"] for row in report["left_behind"]) == \
        ["pkg/solo.py"] + [f"pkg/u{i}.py" for i in range(USERS)]
    assert len([w for w in report["warnings"] if w.startswith("left behind: ")]) == USERS + 1
