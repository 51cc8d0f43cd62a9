"""The bad-input catalogue: each odd input gets a clear message or correct handling, losing nothing."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import GIT_ENV, git, make_repo, write, wtc
from worktree_coord.coordinator import Coordinator
from worktree_coord.errors import ConfigError, NotFoundError, StateError


@pytest.fixture
def coord(repo: Path):
    with Coordinator(repo) as coordinator:
        coordinator.start_run("r1")
        yield coordinator


def start(coord: Coordinator, own=("packages/api/**",), task="t") -> Path:
    return Path(coord.start_task("r1", task, list(own)).worktree)


def test_binary_and_large_files_are_committed_and_merged(repo, coord):
    wt = start(coord)
    write(wt, {"packages/api/logo.png": bytes(range(256)) * 40})
    with open(wt / "packages/api/big.bin", "wb") as handle:
        handle.seek(45 * 1024 * 1024)
        handle.write(b"\0")
    done = coord.finish_task("r1", "t")
    assert done.state == "merged"
    assert git(repo, "cat-file", "-s", "wtc/r1/integration:packages/api/big.bin") == str(45 * 1024 * 1024 + 1)


def test_non_utf8_file_names_and_contents(repo, coord):
    wt = start(coord)
    name = os.fsencode(str(wt / "packages/api")) + b"/caf\xe9.txt"
    with open(name, "wb") as handle:
        handle.write(b"\xff\xfe not utf-8 \x80\n")
    write(wt, {"packages/web/\u00fcber.js": "outside\n"})
    done = coord.finish_task("r1", "t")
    assert done.state == "rejected"
    assert [v["path"] for v in done.violations] == ["packages/web/\u00fcber.js"]
    os.remove(wt / "packages/web/\u00fcber.js")
    done = coord.finish_task("r1", "t")
    assert done.state == "merged"
    listed = subprocess.run(["git", "ls-tree", "-r", "-z", "--name-only", "wtc/r1/integration"], cwd=repo,
                            capture_output=True).stdout
    assert b"packages/api/caf\xe9.txt" in listed.split(b"\0")


def test_crlf_file_is_kept_byte_for_byte(repo, coord):
    wt = start(coord)
    write(wt, {"packages/api/win.txt": b"a\r\nb\r\n"})
    assert coord.finish_task("r1", "t").state == "merged"
    blob = subprocess.run(["git", "cat-file", "blob", "wtc/r1/integration:packages/api/win.txt"], cwd=repo,
                          capture_output=True).stdout
    assert blob == b"a\r\nb\r\n"


def test_file_replaced_by_a_directory_and_back(repo, coord):
    wt = start(coord)
    os.remove(wt / "packages/api/index.js")
    write(wt, {"packages/api/index.js/inner.js": "now a folder\n"})
    done = coord.finish_task("r1", "t")
    assert done.state == "merged"
    assert {c["path"]: c["status"] for c in done.changed} == {
        "packages/api/index.js": "deleted", "packages/api/index.js/inner.js": "added"}
    wt2 = start(coord, task="back")
    assert coord.finish_task("r1", "back").state == "empty"


def test_case_only_rename_deletion_and_executable_bit(repo, coord):
    wt = start(coord)
    os.rename(wt / "packages/api/index.js", wt / "packages/api/Index.js")
    os.remove(wt / "packages/api/package.json")
    write(wt, {"packages/api/run.sh": "#!/bin/sh\necho hi\n"})
    os.chmod(wt / "packages/api/run.sh", 0o755)
    done = coord.finish_task("r1", "t")
    assert done.state == "merged"
    statuses = {c["path"]: c["status"] for c in done.changed}
    assert statuses == {"packages/api/index.js": "deleted", "packages/api/Index.js": "added",
                        "packages/api/package.json": "deleted", "packages/api/run.sh": "added"}
    mode = git(repo, "ls-tree", "wtc/r1/integration", "packages/api/run.sh").split()[0]
    assert mode == "100755"
    wt2 = start(coord, own=("packages/web/**",), task="chmod")
    os.chmod(wt2 / "packages/web/index.js", 0o755)
    done = coord.finish_task("r1", "chmod")
    assert done.changed == [{"path": "packages/web/index.js", "status": "mode"}]


def test_executable_bit_outside_own_is_a_violation(repo, coord):
    wt = start(coord)
    os.chmod(wt / "docs/guide.md", 0o755)
    done = coord.finish_task("r1", "t")
    assert done.violations and done.violations[0]["path"] == "docs/guide.md"
    assert "mode" in done.violations[0]["detail"]


@pytest.mark.parametrize("config, key", [
    ('[tool.worktree-coord]\nworktree-rot = "x"\n', "worktree-rot"),
    ('[tool.worktree-coord]\nlock-timeout = "soon"\n', "lock-timeout"),
    ('[tool.worktree-coord]\nreserved-add = "package.json"\n', "reserved-add"),
])
def test_invalid_configuration_names_the_key(tmp_path, config, key):
    repo = make_repo(tmp_path / "r", {"pyproject.toml": config, "a.txt": "a\n"})
    with pytest.raises(ConfigError) as bad:
        Coordinator(repo)
    assert key in bad.value.message and bad.value.exit_code == 2
    code, body = wtc(repo, "status")
    assert code == 2 and key in body["error"]["message"]


def test_store_locked_by_a_killed_process_recovers(repo):
    with Coordinator(repo) as coord:
        coord.start_run("r1")
        path = coord.store.location
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sqlite3, time, sys\n"
        f"db = sqlite3.connect({path!r}, isolation_level=None)\n"
        "db.execute('BEGIN IMMEDIATE')\n"
        "db.execute(\"INSERT INTO events(at, run_id, kind) VALUES (0, 'x', 'x')\")\n"
        "print('locked', flush=True)\n"
        "time.sleep(60)\n")], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "locked"
    holder.kill()
    holder.wait()
    code, body = wtc(repo, "task", "start", "t", "--run", "r1", "--own", "packages/api/**")
    assert code == 0, body
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT COUNT(*) FROM events WHERE run_id = 'x'").fetchone()[0] == 0


def test_repository_without_commits_says_so(tmp_path):
    empty = tmp_path / "empty"
    git(tmp_path, "init", "-q", str(empty))
    code, body = wtc(empty, "run", "start", "--run", "r1")
    assert code == 5 and "no commits" in body["error"]["message"]


def test_detached_head_can_be_pinned(repo):
    git(repo, "checkout", "-q", "--detach", "HEAD")
    code, body = wtc(repo, "run", "start", "--run", "r1")
    assert code == 0 and body["base"] == git(repo, "rev-parse", "HEAD")


def test_bare_repository_works_with_worktrees_inside_the_git_dir(tmp_path, repo):
    bare = tmp_path / "bare.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(bare))
    code, started = wtc(bare, "run", "start", "--run", "r1")
    assert code == 0
    code, task = wtc(bare, "task", "start", "t", "--run", "r1", "--own", "packages/api/**")
    assert code == 0 and task["worktree"].startswith(str(bare))
    write(Path(task["worktree"]), {"packages/api/index.js": "bare\n"})
    code, done = wtc(bare, "task", "finish", "t", "--run", "r1")
    assert code == 0 and done["state"] == "merged"
    assert git(bare, "show", "wtc/r1/integration:packages/api/index.js") == "bare"


def test_task_branch_deleted_by_hand_is_recreated_from_the_worktree(repo, coord):
    wt = start(coord)
    write(wt, {"packages/api/index.js": "work\n"})
    git(wt, "add", "-A")
    git(wt, "commit", "-qm", "agent")
    write(wt, {"packages/api/more.js": "uncommitted\n"})
    git(wt, "checkout", "-q", "--detach")
    git(repo, "branch", "-D", "wtc/r1/t")
    done = coord.finish_task("r1", "t")
    assert done.state == "merged", done.violations
    assert any("recreated" in note for note in done.notes)
    assert git(repo, "show", "wtc/r1/integration:packages/api/more.js") == "uncommitted"


def test_task_branch_and_worktree_both_gone_is_a_clear_error(repo, coord):
    import shutil

    wt = start(coord)
    shutil.rmtree(wt)
    git(repo, "worktree", "prune")
    git(repo, "branch", "-D", "wtc/r1/t")
    with pytest.raises(StateError) as gone:
        coord.finish_task("r1", "t")
    assert "deleted" in gone.value.message and "abandon" in gone.value.fix


def test_integration_moved_by_someone_else_is_merged_onto_not_overwritten(repo, coord):
    wt = start(coord)
    write(wt, {"packages/api/index.js": "task\n"})
    outsider = git(repo, "commit-tree", git(repo, "rev-parse", "main^{tree}"), "-p", "wtc/r1/integration",
                   "-m", "someone else")
    git(repo, "update-ref", "refs/heads/wtc/r1/integration", outsider)
    done = coord.finish_task("r1", "t")
    assert done.state == "merged"
    assert git(repo, "merge-base", "--is-ancestor", outsider, "wtc/r1/integration", check=False) == ""
    assert git(repo, "rev-parse", "wtc/r1/integration^1") == outsider


def test_integration_reset_to_unrelated_history_is_refused_clearly(repo, coord):
    wt = start(coord)
    write(wt, {"packages/api/index.js": "task\n"})
    unrelated = git(repo, "commit-tree", git(repo, "rev-parse", "main^{tree}"), "-m", "unrelated root")
    git(repo, "update-ref", "refs/heads/wtc/r1/integration", unrelated)
    with pytest.raises(StateError) as refused:
        coord.finish_task("r1", "t")
    assert "does not descend" in refused.value.message and "git update-ref" in refused.value.fix
    assert git(repo, "rev-parse", "wtc/r1/integration") == unrelated, "never overwritten"
    assert coord.store.get_task("r1", "t").state.value == "finished", "the task's work is kept, waiting"
    git(repo, "update-ref", "refs/heads/wtc/r1/integration", refused.value.details["last_recorded_tip"])
    assert coord.merge("r1").tasks[0]["state"] == "merged"
