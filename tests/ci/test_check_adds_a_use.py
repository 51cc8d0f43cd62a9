"""`wtc check` of a commit that adds a use of a name it removes says the branch adds that use.

Found running `wtc check --base C^ --head C` over a project's history: a commit renamed a function
and added a file calling it by its old name; the finding said "the branch does not change that
use", which sends the reader looking for old code the branch left alone. The use is the branch's
own: the message says it adds (or writes) the use, and the finding blocks as any use left behind.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.ci.ci_helpers import commit_all, run_wtc
from tests.conftest import git, make_repo, write

UTILS = "def parse(x):\n    return x\n"


def test_a_file_the_branch_adds_using_a_removed_name_blocks_and_says_the_branch_adds_it(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"pkg/__init__.py": "", "pkg/utils.py": UTILS, "pkg/old.py": "X = 1\n",
                                         "pkg/kept.py": "from pkg.utils import parse\n"})
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {"pkg/utils.py": UTILS.replace("parse", "parsed"), "pkg/new.py": "from pkg.utils import parse\n",
                 "pkg/old.py": "X = 1\nfrom pkg.utils import parse\n"})
    commit_all(repo, "feature: parse renamed, new uses of the old name")
    done = run_wtc(repo, "check", "--own", "**", "--head", "feature", "--target", "main", "--json")
    body = json.loads(done.stdout)
    assert done.returncode == 1 and body["exit_code"] == 1, done.stdout
    found = {f["path"]: f for f in body["findings"] if f["rule"] == "left_behind"}
    assert sorted(found) == ["pkg/kept.py", "pkg/new.py", "pkg/old.py"], body["findings"]
    assert "a file the branch adds" in found["pkg/new.py"]["message"]
    assert "the branch adds this use" in found["pkg/new.py"]["message"]
    assert "use parsed" in found["pkg/new.py"]["message"]
    assert "the branch writes this use" in found["pkg/old.py"]["message"] and found["pkg/old.py"]["start_line"] == 2
    assert "the branch does not change that use" in found["pkg/kept.py"]["message"]
    for path in ("pkg/new.py", "pkg/old.py"):
        assert "does not change" not in found[path]["message"], found[path]["message"]
