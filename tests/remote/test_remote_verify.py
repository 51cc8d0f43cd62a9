"""Verified merges on remote runs: the merging machine builds the candidate onto the integration tip
it fetched, verifies it in a scratch worktree of its own clone, and moves the remote's ref only after
verification passed, by a push with a lease on that tip. A lost race (another machine merged while
the verification ran) fetches, merges and verifies again. Batches bisect as on local runs.

Real `git daemon` on loopback, clones standing for machines, one shared SQLite store."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from tests.conftest import git, make_repo
from tests.remote.remote_helpers import cleanup, machine, remote_tip, serve

INTEGRATION = "refs/heads/wtc/r1/integration"
# Fails when any file of the checked-out tree says "broken": a verification that reads the merged tree.
CHECK = "! grep -rq broken --exclude-dir=.git ."


@pytest.fixture
def three(tmp_path):
    daemon, url = serve(tmp_path, make_repo(tmp_path / "source"))
    store = f"sqlite:{tmp_path / 'shared' / 'state.sqlite3'}"
    (tmp_path / "shared").mkdir()
    yield [machine(tmp_path, name, url, store) for name in ("m1", "m2", "m3")], daemon.root / "repo.git"
    cleanup(daemon)


def _task(node, name: str, text: str, *, finish: bool = True, verify: str | None = None) -> dict:
    code, body = node.wtc("task", "start", name, "--run", "r1", "--own", f"new/{name}/**")
    assert code == 0, body
    path = Path(body["worktree"]) / "new" / name / "file.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    if not finish:
        return body
    args = ["task", "finish", name, "--run", "r1"] + (["--verify", verify] if verify else [])
    return node.wtc(*args)[1]


def test_a_configured_verify_command_gates_the_remote_ref(three):
    """`run start --remote --verify`: a passing task moves the remote's ref with its verification
    recorded; a failing one leaves the remote where it was and ends failed with the output."""
    (m1, m2, _), bare = three
    code, started = m1.wtc("run", "start", "--run", "r1", "--remote", "origin", "--verify", CHECK)
    assert code == 0 and started["remote"] == "origin", started
    pin = remote_tip(bare, INTEGRATION)
    good = _task(m1, "good", "fine\n")
    assert good["state"] == "merged", good
    verified = good["merge"]["verification"]
    assert verified["ok"] and verified["command"] == CHECK and verified["commit"] == good["merge"]["new_tip"]
    tip = remote_tip(bare, INTEGRATION)
    assert tip == good["merge"]["new_tip"] and git(bare, "rev-parse", f"{tip}^1") == pin
    bad = _task(m2, "bad", "this is broken\n")
    assert bad["state"] == "failed" and bad["exit_code"] == 1, bad
    assert bad["verification"]["ok"] is False and bad["verification"]["exit_code"] == 1, bad
    assert remote_tip(bare, INTEGRATION) == tip, "a failed verification never moves the remote"
    # The verification ran against the merged tree (m1's task, fetched, is in it), on machine 2.
    code, fixed_start = m2.wtc("task", "start", "bad2", "--run", "r1", "--own", "new/bad2/**")
    checks_both = "test -f new/good/file.txt && test -f new/bad2/file.txt"
    path = Path(fixed_start["worktree"]) / "new" / "bad2" / "file.txt"
    path.parent.mkdir(parents=True)
    path.write_text("ok\n")
    code, body = m2.wtc("task", "finish", "bad2", "--run", "r1", "--verify", checks_both)
    assert code == 0 and body["state"] == "merged", body
    assert remote_tip(bare, INTEGRATION) == body["merge"]["new_tip"]
    assert git(bare, "rev-parse", f"{body['merge']['new_tip']}^1") == tip, "built on the remote's tip"


def test_a_race_lost_during_verification_fetches_merges_and_verifies_again(three, tmp_path):
    """Machine 2 verifies task a; while its verification runs, machine 3 merges task c and moves the
    remote. Machine 2's push with a lease is refused: it fetches c's merge, builds a on it, verifies
    again (twice in all), and ends merged on top of c without overwriting it."""
    (m1, m2, m3), bare = three
    # The verify command plays machine 3, reaching the git daemon on this host's loopback: it needs
    # the host's network (an isolated command has only its own loopback).
    assert m1.wtc("run", "start", "--run", "r1", "--remote", "origin", "--network", "shared")[0] == 0
    c = _task(m3, "c", "from c\n", finish=False)
    assert m3.wtc("task", "finish", "c", "--run", "r1", "--no-merge")[1]["state"] == "finished"
    _task(m2, "a", "from a\n", finish=False)
    counter, once = tmp_path / "verifications", tmp_path / "raced"
    other = f"cd {shlex.quote(str(m3.repo))} && HOME={shlex.quote(m3.env['HOME'])} " \
            f"{shlex.quote(sys.executable)} -m worktree_coord merge --run r1 --json >/dev/null"
    command = (f"echo x >> {shlex.quote(str(counter))}; "
               f"if [ ! -e {shlex.quote(str(once))} ]; then touch {shlex.quote(str(once))}; ({other}); fi; "
               "test -f new/a/file.txt")
    code, body = m2.wtc("task", "finish", "a", "--run", "r1", "--verify", command)
    assert code == 0 and body["state"] == "merged", body
    assert counter.read_text().count("x") == 2, "verified once, raced, verified again"
    tip = remote_tip(bare, INTEGRATION)
    assert tip == body["merge"]["new_tip"] == body["merge"]["verification"]["commit"]
    first_parent = git(bare, "rev-parse", f"{tip}^1")
    assert git(bare, "show", f"{first_parent}:new/c/file.txt") == "from c", "built on machine 3's merge"
    assert git(bare, "show", f"{tip}:new/a/file.txt") == "from a"
    assert git(bare, "rev-list", "--count", "--merges", f"{c['base']}..{tip}") == "2"
    code, status = m1.wtc("status", "--run", "r1")
    assert {t["task"]: t["state"] for t in status["tasks"]} == {"a": "merged", "c": "merged"}


def test_a_verified_batch_from_tasks_finished_on_three_machines_bisects_to_the_culprit(three):
    """Three machines finish without merging; machine 1 drains them in one verified batch. The
    batch fails, bisection finds the culprit, the passing prefix moves the remote in one push and the
    rest is verified again after it."""
    (m1, m2, m3), bare = three
    assert m1.wtc("run", "start", "--run", "r1", "--remote", "origin")[0] == 0
    pin = remote_tip(bare, INTEGRATION)
    for node, name, text in ((m1, "t1", "one\n"), (m2, "t2", "broken two\n"), (m3, "t3", "three\n")):
        _task(node, name, text, finish=False)
        assert node.wtc("task", "finish", name, "--run", "r1", "--no-merge")[1]["state"] == "finished"
    code, report = m1.wtc("merge", "--run", "r1", "--verify", CHECK, "--batch", "3")
    assert code == 1, report
    states = {row["task"]: row["state"] for row in report["tasks"]}
    assert states == {"t1": "merged", "t2": "failed", "t3": "merged"}, report
    tip = remote_tip(bare, INTEGRATION)
    assert report["tip"] == tip
    changed = set(git(bare, "diff", "--name-only", pin, tip).split())
    assert changed == {"new/t1/file.txt", "new/t3/file.txt"}
    code, status = m3.wtc("status", "--run", "r1")
    assert {t["task"]: t["state"] for t in status["tasks"]} == states


def test_a_verified_batch_refuses_a_task_whose_commits_break_its_boundary(three):
    """Whoever merges checks each task's boundary again from its commits, in a verified batch too: a
    sandbox that recorded itself finished with a commit outside its boundary is rejected, and the
    rest of the batch merges."""
    (m1, m2, m3), bare = three
    from worktree_coord.model import TaskState
    from worktree_coord.store.address import open_store, resolve

    assert m1.wtc("run", "start", "--run", "r1", "--remote", "origin")[0] == 0
    pin = remote_tip(bare, INTEGRATION)
    sneaky = _task(m2, "t1", "one\n", finish=False)
    worktree = Path(sneaky["worktree"])
    (worktree / "packages" / "web" / "index.js").write_text("not mine\n")
    git(worktree, "add", "-A")
    git(worktree, "commit", "-qm", "outside the boundary")
    head = git(worktree, "rev-parse", "HEAD")
    git(worktree, "push", "-q", "origin", f"{head}:refs/heads/wtc/r1/t1")
    store = open_store(resolve(None, None, Path(m2.env["WTC_STORE"][len("sqlite:"):])))
    store.update_task("r1", "t1", state=TaskState.FINISHED, head=head, result={"run": "r1", "task": "t1", "since": pin, "mergeable": head})
    store.close()
    _task(m3, "t2", "two\n", finish=False)
    assert m3.wtc("task", "finish", "t2", "--run", "r1", "--no-merge")[1]["state"] == "finished"
    code, report = m1.wtc("merge", "--run", "r1", "--verify", "true", "--batch", "2")
    assert {row["task"]: row["state"] for row in report["tasks"]} == {"t1": "rejected", "t2": "merged"}, report
    tip = remote_tip(bare, INTEGRATION)
    assert set(git(bare, "diff", "--name-only", pin, tip).split()) == {"new/t2/file.txt"}
