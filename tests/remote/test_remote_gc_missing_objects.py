"""`wtc gc` in a clone of a remote run that lacks objects other clones made: a task another clone
finished (its head pushed, never fetched here), a tracking ref naming a commit this clone has not
fetched. gc treats what it cannot read as unknown: it exits 0, keeps what it cannot judge and still
removes what it can.

Two clones of one bare repository reached by its path (no daemon), one shared SQLite store."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import git, make_repo
from tests.remote.remote_helpers import machine


@pytest.fixture
def two(tmp_path):
    source = make_repo(tmp_path / "source")
    bare = tmp_path / "served" / "repo.git"
    bare.parent.mkdir()
    git(tmp_path, "clone", "-q", "--bare", str(source), str(bare))
    git(bare, "config", "uploadpack.allowAnySHA1InWant", "true")
    (tmp_path / "shared").mkdir()
    store = f"sqlite:{tmp_path / 'shared' / 'state.sqlite3'}"
    return [machine(tmp_path, name, str(bare), store) for name in ("m1", "m2")], bare


def _start(node, name: str, text: str) -> dict:
    code, body = node.wtc("task", "start", name, "--run", "r1", "--own", f"new/{name}/**")
    assert code == 0, body
    path = Path(body["worktree"]) / "new" / name / "file.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return body


def _plant_pin_words(node, tree: str) -> Path:
    """A word index entry for the pin `tree`, as a merge that read that pin leaves it."""
    from worktree_coord.merge.checks.merge_index import FORMAT

    common = Path(git(node.repo, "rev-parse", "--git-common-dir"))
    entry = (common if common.is_absolute() else node.repo / common) / "wtc" / "merge-index" / f"v{FORMAT}" / \
        "pinwords" / tree
    entry.parent.mkdir(parents=True, exist_ok=True)
    entry.write_bytes(b"")
    return entry


def _has(node, sha: str) -> bool:
    return git(node.repo, "cat-file", "-t", sha, check=False).strip() == "commit"


def test_gc_in_a_clone_that_never_fetched_a_task_another_clone_finished(two):
    (m1, m2), bare = two
    assert m1.wtc("run", "start", "--run", "r1", "--remote", "origin")[0] == 0
    _start(m1, "a", "a\n")
    assert m1.wtc("task", "finish", "a", "--run", "r1")[1]["state"] == "merged"
    _start(m2, "b", "b\n")
    code, finished = m2.wtc("task", "finish", "b", "--run", "r1", "--no-merge")
    assert code == 0 and finished["state"] == "finished", finished
    head = git(bare, "rev-parse", "refs/heads/wtc/r1/b")
    assert not _has(m1, head), "the situation: m1 never fetched b's commit"

    # A pin's word index a merge of b might read (b's base is the pin or an integration commit a
    # `task update` moved it to; m1 cannot tell which without b's commit): planted under m1's index.
    planted = _plant_pin_words(m1, git(m1.repo, "rev-parse", "refs/heads/wtc/r1/integration^{tree}"))
    code, done = m1.wtc("gc")
    assert code == 0, done
    # m1's own merged task goes (its branch is in the integration history); b is another clone's, unmerged
    assert done["branches_deleted"] == ["wtc/r1/a"], done
    assert "refs/heads/wtc/r1/b" in git(bare, "for-each-ref", "--format=%(refname)", "refs/heads/wtc/r1/")
    # b's merge base is unknown here: no pin's word index goes because of a commit m1 could not read
    assert done["pin_words_removed"] == [] and planted.exists(), done

    code, merged = m1.wtc("merge", "--run", "r1")     # fetches b: its base is known here now
    assert code == 0 and [t["state"] for t in merged["tasks"]] == ["merged"], merged
    code, done = m1.wtc("gc")
    assert code == 0, done
    assert planted.name in done["pin_words_removed"] and not planted.exists(), done


def test_gc_with_a_tracking_ref_naming_a_commit_this_clone_lacks(two):
    (m1, m2), bare = two
    assert m1.wtc("run", "start", "--run", "r1", "--remote", "origin")[0] == 0
    _start(m1, "a", "a\n")
    assert m1.wtc("task", "finish", "a", "--run", "r1")[1]["state"] == "merged"
    _start(m2, "b", "b\n")
    assert m2.wtc("task", "finish", "b", "--run", "r1")[1]["state"] == "merged"
    ahead = git(bare, "rev-parse", "refs/heads/wtc/r1/integration")
    assert not _has(m1, ahead)
    # m1's tracking ref names the remote's tip, whose objects m1 never fetched (a ref written ahead
    # of its objects); its own integration branch still holds a's merge.
    common = Path(git(m1.repo, "rev-parse", "--git-common-dir"))
    tracking = (common if common.is_absolute() else m1.repo / common) / "refs/remotes/origin/wtc/r1/integration"
    tracking.parent.mkdir(parents=True, exist_ok=True)
    tracking.write_text(ahead + "\n")

    code, done = m1.wtc("gc")
    assert code == 0, done
    # a is in the integration history m1 can read: deleted; nothing else here is judged by the unread tip
    assert done["branches_deleted"] == ["wtc/r1/a"], done
    assert git(m1.repo, "for-each-ref", "--format=%(refname)", "refs/heads/wtc/r1/").split() == \
        ["refs/heads/wtc/r1/integration"]
