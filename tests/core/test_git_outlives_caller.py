"""A git command wtc started finishes what it began when the wtc process dies meanwhile
(gitrepo/running.py): its output goes to files, not to pipes whose closing would kill it with
SIGPIPE at its next line. Reproduced with a real `git merge` held in a slow merge driver while its
caller is SIGKILLed: through pipes git dies before it records MERGE_HEAD (its conflicted files
then look like the agent's own edits); through wtc's runner the merge is recorded."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import git, make_repo

CHILD = """
import sys
from worktree_coord.gitrepo.repository import GitRepo
GitRepo(sys.argv[1]).git("merge", "other", check=False)
"""


def test_a_merge_whose_caller_is_killed_still_records_its_state(tmp_path: Path):
    repo = make_repo(tmp_path / "repo", {"a.txt": "base\n", ".gitattributes": "a.txt merge=slow\n"})
    git(repo, "checkout", "-qb", "other")
    (repo / "a.txt").write_text("theirs\n")
    git(repo, "commit", "-qam", "theirs")
    git(repo, "checkout", "-q", "main")
    (repo / "a.txt").write_text("ours\n")
    git(repo, "commit", "-qam", "ours")
    began = tmp_path / "driver-began"
    # The driver marks that git is inside the merge, holds it there, then reports a conflict: git
    # prints its CONFLICT lines only after that, when its caller is already gone.
    git(repo, "config", "merge.slow.driver", f"touch {began}; sleep 2; exit 1")

    caller = subprocess.Popen([sys.executable, "-c", CHILD, str(repo)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not began.exists():
        assert caller.poll() is None, caller.communicate()
        assert time.monotonic() < deadline, "git never reached the merge driver"
        time.sleep(0.02)
    caller.kill()
    caller.wait()

    merge_head = repo / ".git" / "MERGE_HEAD"
    deadline = time.monotonic() + 30
    while not merge_head.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert merge_head.exists(), "git died with its caller before recording the merge"
    assert git(repo, "diff", "--name-only", "--diff-filter=U") == "a.txt"
    assert not (repo / ".git" / "index.lock").exists()
