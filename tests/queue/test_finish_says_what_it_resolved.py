"""Issue 41 item 3: `finish` reported `"resolved": ["tests/test_utils.py"]` with nothing saying what
was resolved, and its `"merge": {"path": "fast"}` read like a fast-forward although a merge commit
was made. Now each resolved file has a line, from the merge's own record (`merge.resolutions`), and
the path is named `in-memory`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import make_repo, wtc

BASE = "import os\n\n\ndef test_a():\n    assert os\n"


def _edit(worktree: str, module: str, name: str) -> None:
    file = Path(worktree) / "tests/test_utils.py"
    file.write_text(f"import {module}\n" + file.read_text() + f"\n\ndef {name}():\n    assert {module}\n")


def test_a_resolved_file_says_what_its_merge_did_and_the_path_is_no_fast_forward(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"tests/test_utils.py": BASE})
    assert wtc(repo, "run", "start", "--run", "r1")[0] == 0
    worktrees = {}
    for task in ("one", "two"):
        code, body = wtc(repo, "task", "start", task, "--run", "r1", "--own", "tests/**")
        assert code == 0, body
        worktrees[task] = body["worktree"]
    _edit(worktrees["one"], "sys", "test_b")
    _edit(worktrees["two"], "json", "test_c")
    code, first = wtc(repo, "task", "finish", "one", "--run", "r1")
    assert code == 0 and first["merge"]["path"] == "in-memory", first["merge"]
    code, second = wtc(repo, "task", "finish", "two", "--run", "r1", "--json")
    assert code == 0 and second["state"] == "merged", second
    merge = second["merge"]
    assert merge["path"] in ("in-memory", "merge-tree") and merge["path"] != "fast"
    assert merge["resolved"] == ["tests/test_utils.py"]
    how = merge["resolutions"]["tests/test_utils.py"]
    assert how == ("both sides' new declarations kept "
                   "(this task: def test_c, import json; integration: def test_b, import sys)"), how
    merged = subprocess.run(["git", "-C", str(repo), "show", "wtc/r1/integration:tests/test_utils.py"],
                            capture_output=True, text=True, check=True).stdout
    assert "import sys" in merged and "import json" in merged and "def test_b" in merged and "def test_c" in merged
