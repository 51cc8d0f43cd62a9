"""Inputs the left-behind look used to miss or choke on: each gives a finding or a note, in bounded work.

- A file mentioning a removed name that is too big to read (2000 nested `class Ci:` lines before the use:
  over MAX_BYTES) gave no finding and no note: now `task check` and `wtc check` say it was not read.
- A file with CR-only line endings (old Mac) using the name on three lines was reported at line 1 only
  (the parser counts LF): each line is reported.
- `X = parse` then `X.a.a...a` (1500 accesses, one reference chain nested 1500 deep) took 114 s at load
  15: each name of the chain walked every parent to the root (symbols._Placer.place), and each parent is
  itself found from the root. Now each (node, side) is placed once; counted here in `owner` calls, not time.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.ci.ci_helpers import commit_all, run_wtc
from tests.conftest import git, make_repo, write, wtc_in_process
from tests.core.test_uses_left_behind import _task_edited
from worktree_coord.merge.checks.versions import MAX_BYTES

UTILS = "def parse(x):\n    return x\n\n\ndef other():\n    return 1\n"
RENAMED = UTILS.replace("parse", "parsed")
NESTED = ("from pkg.utils import parse\n" + "".join(" " * i + f"class C{i}:\n" for i in range(2000))
          + " " * 2000 + "pass\nVALUE = parse(1)\n")


def _files(user: str) -> dict[str, str]:
    return {"pkg/__init__.py": "", "pkg/utils.py": UTILS, "pkg/user.py": user}


def test_a_file_too_big_to_read_that_mentions_a_removed_name_is_said_at_task_check(tmp_path: Path) -> None:
    assert len(NESTED) > MAX_BYTES
    repo = _task_edited(tmp_path, _files(NESTED), "rm", ("pkg/utils.py",), {"pkg/utils.py": RENAMED}, None)
    code, body = wtc_in_process(repo, "task", "check", "rm", "--run", "r1")
    notes = [row["note"] for row in body["left_behind"]]
    assert any("larger than the 1000000 bytes read and was not read: pkg/user.py" in note for note in notes), body


def test_a_file_too_big_to_read_that_mentions_a_removed_name_is_a_warning_of_wtc_check(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", _files(NESTED))
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {"pkg/utils.py": RENAMED})
    commit_all(repo, "feature: parse renamed")
    done = run_wtc(repo, "check", "--own", "pkg/utils.py", "--head", "feature", "--target", "main", "--json")
    body = json.loads(done.stdout)
    assert [(f["rule"], "pkg/user.py" in f["message"]) for f in body["findings"]] == \
        [("left_behind_unchecked", True)], body["findings"]


def test_cr_only_line_endings_report_each_line_of_a_use(tmp_path: Path) -> None:
    user = "from pkg.utils import parse\rA = parse(1)\rB = parse(2)\r"
    repo = _task_edited(tmp_path, _files(user), "rm", ("pkg/utils.py",), {"pkg/utils.py": RENAMED}, None)
    code, body = wtc_in_process(repo, "task", "check", "rm", "--run", "r1")
    assert code == 1, body
    assert [(row["use_path"], row["use_lines"]) for row in body["left_behind"]] == [("pkg/user.py", [1, 2, 3])]


def test_a_reference_chain_1500_deep_is_placed_in_work_linear_in_its_depth(monkeypatch) -> None:
    from worktree_coord.merge.checks import symbols
    from worktree_coord.merge.checks.semantic import semantic_profile

    depth = 1500
    source = ("from pkg.utils import parse\nX = parse\n\n\nclass Holder:\n    def run(self):\n"
              "        return X" + ".a" * depth + "\n").encode()
    calls = 0
    real = symbols._Placer.owner

    def counted(self, node):
        nonlocal calls
        calls += 1
        return real(self, node)

    monkeypatch.setattr(symbols._Placer, "owner", counted)
    found = symbols.extract(semantic_profile("pkg/user.py"), source)
    assert calls < 10 * depth, calls   # was about depth * depth / 2: every name walked the whole chain
    # The places are what they were: the use of X inside Holder.run, its declaration path.
    uses = {(u.container, len(u.scopes), u.declaration) for u in found.references if u.line == 7}
    assert uses == {(("Holder",), 1, "class Holder > function run")}, uses
