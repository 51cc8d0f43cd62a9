"""`wtc gc` and the scratch folders of tree reads run by git processes (gitrepo/process_trees.py:
`<git common dir>/wtc/tmp-trees.*`): a `task check` killed while it read leaves its folder; gc removes
it once the process that made it has ended, never the folder of a call still running, and one whose
process this host cannot judge (another host's) only once it is an hour old. `--dry-run` lists them.
Real git repositories, real processes, the real CLI."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import make_repo, wtc
from worktree_coord.coordinator import Coordinator
from worktree_coord.gitrepo import GitRepo

# A call that makes its scratch folder as a tree read does, writes its index there, then either dies
# at once (killed: no clean-up runs) or holds it until its stdin closes (a check still reading).
MAKER = """
import os, sys
from pathlib import Path
from worktree_coord.gitrepo.process_trees import Scratch
scratch = Scratch(Path(sys.argv[1]))
folder = scratch.__enter__()
(folder / "index").write_bytes(b"DIRC")
print(folder, flush=True)
if sys.argv[2] == "killed":
    os._exit(9)
sys.stdin.read()
scratch.__exit__(None, None, None)
"""


def _scratch(wtc_dir: Path, how: str) -> tuple[Path, subprocess.Popen]:
    process = subprocess.Popen([sys.executable, "-c", MAKER, str(wtc_dir), how], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
    folder = Path(process.stdout.readline().strip())
    if how == "killed":
        process.wait()
    return folder, process


def test_gc_removes_the_scratch_folders_of_killed_reads_and_keeps_running_ones(tmp_path):
    repo = make_repo(tmp_path / "repo", {"a.txt": "a\n"})
    with Coordinator(repo) as coordinator:
        coordinator.start_run(run_id="r1")
    wtc_dir = GitRepo(repo).wtc_dir
    killed, _ = _scratch(wtc_dir, "killed")
    running, holder = _scratch(wtc_dir, "running")
    try:
        assert killed.is_dir() and running.is_dir() and (killed / "index").is_file()
        # Folders this host cannot judge: another host's process table, and a name without one.
        elsewhere_old = wtc_dir / "tmp-trees.0123456789ab.4242.777.deadbeef"
        elsewhere_new = wtc_dir / "tmp-trees.0123456789ab.4243.777.deadbeef"
        unnamed_new = wtc_dir / "tmp-trees.4244.cafebabe"
        for folder in (elsewhere_old, elsewhere_new, unnamed_new):
            folder.mkdir()
            (folder / "index").write_bytes(b"DIRC")
        two_hours_ago = time.time() - 7200
        os.utime(elsewhere_old, (two_hours_ago, two_hours_ago))

        stale = sorted([str(killed), str(elsewhere_old)])
        code, listed = wtc(repo, "gc", "--dry-run")
        assert code == 0 and sorted(listed["scratch_removed"]) == stale, listed
        assert killed.is_dir() and elsewhere_old.is_dir()               # a dry run removes nothing
        code, done = wtc(repo, "gc")
        assert code == 0 and sorted(done["scratch_removed"]) == stale, done
        assert not killed.exists() and not elsewhere_old.exists()
        assert running.is_dir() and elsewhere_new.is_dir() and unnamed_new.is_dir()
    finally:
        holder.communicate("")
    assert holder.returncode == 0 and not running.exists()    # the running call cleaned up after itself
    assert wtc(repo, "gc")[1]["scratch_removed"] == []
