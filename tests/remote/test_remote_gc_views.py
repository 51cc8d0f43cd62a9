"""Remote runs, the rest of issue 16: `wtc gc` deletes the remote branches of ended tasks
(lease-checked) and prunes tracking refs; status, watch and report show the remote's integration tip
fresh, or say it is stale when the remote does not answer; a full clone converted to a partial one
starts a sparse task without fetching every blob; gc prunes the forecast cache of finished runs.

Real `git daemon` on loopback, clones standing for machines, one shared SQLite store."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import git, make_repo, wtc
from tests.remote.remote_helpers import cleanup, machine, remote_tip, serve

INTEGRATION = "refs/heads/wtc/r1/integration"


@pytest.fixture
def three(tmp_path):
    daemon, url = serve(tmp_path, make_repo(tmp_path / "source"))
    store = f"sqlite:{tmp_path / 'shared' / 'state.sqlite3'}"
    (tmp_path / "shared").mkdir()
    yield [machine(tmp_path, name, url, store) for name in ("m1", "m2", "m3")], daemon, daemon.root / "repo.git"
    cleanup(daemon)


def _start(node, name: str, text: str, rel: str | None = None) -> dict:
    rel = rel or f"new/{name}/file.txt"
    code, body = node.wtc("task", "start", name, "--run", "r1", "--own", str(Path(rel).parent) + "/**")
    assert code == 0, body
    path = Path(body["worktree"]) / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return body


def _remote_branches(bare: Path) -> set[str]:
    out = git(bare, "for-each-ref", "--format=%(refname)", "refs/heads/wtc/r1/")
    return {line.rsplit("/", 1)[1] for line in out.splitlines()}


def test_gc_deletes_remote_branches_of_merged_tasks_only_while_they_hold_the_recorded_commit(three):
    (m1, m2, m3), _, bare = three
    assert m1.wtc("run", "start", "--run", "r1", "--remote", "origin")[0] == 0
    _start(m1, "a", "a\n")
    assert m1.wtc("task", "finish", "a", "--run", "r1")[1]["state"] == "merged"
    _start(m2, "b", "b\n")
    assert m2.wtc("task", "finish", "b", "--run", "r1")[1]["state"] == "merged"
    _start(m1, "c1", "by c1\n", "docs/guide.md")
    _start(m2, "c2", "by c2\n", "docs/guide.md")
    assert m1.wtc("task", "finish", "c1", "--run", "r1")[1]["state"] == "merged"
    assert m2.wtc("task", "finish", "c2", "--run", "r1")[1]["state"] == "conflict"
    assert m2.wtc("task", "abandon", "c2", "--run", "r1")[0] == 0          # pushed, then abandoned
    _start(m3, "d", "d\n")
    assert m3.wtc("task", "finish", "d", "--run", "r1", "--no-merge")[1]["state"] == "finished"
    _start(m3, "e", "e\n")
    assert m3.wtc("task", "finish", "e", "--run", "r1")[1]["state"] == "merged"
    # Someone pushes new work onto e's branch name after it merged: gc must not lose it.
    repushed = git(m3.repo, "commit-tree", "-p", git(bare, "rev-parse", "wtc/r1/e"), "-m", "new work",
                   git(bare, "rev-parse", "wtc/r1/e^{tree}"))
    git(m3.repo, "push", "-q", "origin", f"{repushed}:refs/heads/wtc/r1/e")
    for node in (m1, m2):
        git(node.repo, "fetch", "-q", "origin")   # tracking refs: refs/remotes/origin/wtc/r1/*
    assert {"a", "b", "c1", "c2", "d", "e", "integration"} <= _remote_branches(bare)

    code, dry = m1.wtc("gc", "--dry-run")
    assert code == 0, dry
    assert sorted(dry["remote_branches_deleted"]) == [f"origin:refs/heads/wtc/r1/{t}" for t in ("a", "b", "c1")]
    assert {"a", "b", "c1", "c2", "d", "e"} <= _remote_branches(bare), "a dry run deletes nothing"
    # The abandoned task's work is on no other branch: kept, and said so.
    assert any(k["branch"] == "origin:wtc/r1/c2" and "abandoned" in k["why"] for k in dry["kept"]), dry["kept"]

    code, done = m2.wtc("gc")
    assert code == 0, done
    assert sorted(done["remote_branches_deleted"]) == sorted(dry["remote_branches_deleted"])
    assert _remote_branches(bare) == {"c2", "d", "e", "integration"}
    assert git(bare, "rev-parse", "wtc/r1/e") == repushed, "the branch pushed again is kept"
    assert any("wtc/r1/e" in k["branch"] and "pushed again" in k["why"] for k in done["kept"]), done["kept"]
    # The machine that deleted them lost its tracking refs with the push; another machine's gc prunes its own.
    for node in (m1, m2):
        if node is m1:
            code, other = m1.wtc("gc")
            assert other["remote_branches_deleted"] == [], other
            assert sorted(other["tracking_refs_pruned"]) == [f"refs/remotes/origin/wtc/r1/{t}" for t in ("a", "b", "c1")]
        tracking = git(node.repo, "for-each-ref", "--format=%(refname)", "refs/remotes/origin/wtc/r1").split()
        assert sorted(ref.rsplit("/", 1)[1] for ref in tracking) == ["c2", "d", "e", "integration"], node.name
    # Nothing the run needs was lost: the finished task still merges from another machine, and the
    # merged tasks' commits are all in the remote's integration history.
    code, merged = m1.wtc("merge", "--run", "r1")
    assert code == 0 and merged["tasks"][0]["state"] == "merged", merged
    tip = remote_tip(bare, INTEGRATION)
    for task in ("a", "b", "c1", "d", "e"):
        assert git(bare, "show", f"{tip}:new/{task}/file.txt" if task != "c1" else f"{tip}:docs/guide.md")
    code, again = m1.wtc("gc")
    assert again["remote_branches_deleted"] == ["origin:refs/heads/wtc/r1/d"], again


def test_status_watch_and_report_show_the_remotes_tip_and_say_when_it_is_stale(three):
    (m1, m2, _), daemon, bare = three
    assert m1.wtc("run", "start", "--run", "r1", "--remote", "origin")[0] == 0
    _start(m1, "a", "a\n")
    assert m1.wtc("task", "finish", "a", "--run", "r1")[1]["state"] == "merged"
    tip = remote_tip(bare, INTEGRATION)
    assert subprocess.run(["git", "rev-parse", "--verify", "-q", INTEGRATION], cwd=m2.repo,
                          capture_output=True).returncode != 0, "machine 2 never fetched the integration branch"
    code, status = m2.wtc("status", "--run", "r1")
    run = status["runs"][0]
    assert code == 0 and run["tip"] == tip and run["tip_fresh"] is True and "tip_stale" not in run, run
    code, frame = m2.wtc("watch", "--run", "r1", "--once", "--no-forecast")
    assert code == 0 and frame["run"]["tip"] == tip and frame["run"]["tip_fresh"] is True, frame["run"]
    # Machine 1 merges again; then the remote goes away: machine 2 shows what it fetched last, stale.
    _start(m1, "b", "b\n")
    assert m1.wtc("task", "finish", "b", "--run", "r1")[1]["state"] == "merged"
    daemon.stop()
    code, status = m2.wtc("status", "--run", "r1")
    run = status["runs"][0]
    assert code == 0 and run["tip"] == tip and run["tip_fresh"] is False and "origin" in run["tip_stale"], run
    text = subprocess.run([sys.executable, "-m", "worktree_coord", "status", "--run", "r1"], cwd=m2.repo,
                          env=os.environ | m2.env, capture_output=True, text=True)
    assert text.returncode == 0 and "STALE" in text.stdout, text
    code, frame = m2.wtc("watch", "--run", "r1", "--once", "--no-forecast")
    assert code == 0 and frame["run"]["tip"] == tip and frame["run"]["tip_fresh"] is False, frame["run"]
    code, report = m2.wtc("report", "--run", "r1", "--onto", "main")
    assert code == 0 and report["tip"] == tip, report
    assert any(w.startswith("stale:") for w in report["warnings"]), report["warnings"]
    code, collected = m2.wtc("gc")   # the rest of gc runs; the remote part says why it was skipped
    assert code == 0 and collected["remote_branches_deleted"] == [], collected
    assert any("origin unreachable" in k["why"] for k in collected["kept"]), collected["kept"]
    git(m2.repo, "remote", "rename", "origin", "elsewhere")
    code, status = m2.wtc("status", "--run", "r1")
    assert code == 0 and "does not appear to be a git repository" in status["runs"][0]["tip_stale"], status
    code, collected = m2.wtc("gc")
    assert code == 0 and any("no remote 'origin'" in k["why"] for k in collected["kept"]), collected
    git(m2.repo, "remote", "rename", "elsewhere", "origin")
    daemon.start()
    code, status = m2.wtc("status", "--run", "r1")
    assert status["runs"][0]["tip"] == remote_tip(bare, INTEGRATION) != tip and status["runs"][0]["tip_fresh"]


def test_a_full_clone_made_partial_starts_a_sparse_task_without_fetching_every_blob(tmp_path, three):
    """The documented conversion: `remote.origin.promisor true` + `partialclonefilter blob:none`,
    then fetch. Blobs the clone already had stay; what it fetches from then on comes without blobs,
    and a --sparse task's checkout fetches its cone's blobs only."""
    (m1, m2, _), _, bare = three
    for folder in ("wide", "narrow"):
        for number in range(30):
            path = m1.repo / folder / f"f{number}.txt"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"{folder} {number}\n" * 50)
    m1.git("add", "-A")
    m1.git("commit", "-qm", "60 new files machine 2 has not seen")
    m1.git("push", "-q", "origin", "main")
    pin = m1.git("rev-parse", "HEAD")
    git(m2.repo, "config", "remote.origin.promisor", "true")
    git(m2.repo, "config", "remote.origin.partialclonefilter", "blob:none")
    git(m2.repo, "fetch", "-q", "origin")
    assert m1.wtc("run", "start", "--run", "r1", "--remote", "origin")[0] == 0
    code, body = m2.wtc("task", "start", "n", "--run", "r1", "--own", "narrow/**", "--sparse")
    assert code == 0 and body["sparse_cone"] == ["narrow"] and body["base"] == pin, body
    tree = {line.split()[3]: line.split()[2] for line in git(m2.repo, "ls-tree", "-r", pin).splitlines()}
    have = {path: subprocess.run(["git", "cat-file", "-e", oid], cwd=m2.repo, env=os.environ | {
        "GIT_NO_LAZY_FETCH": "1"}).returncode == 0 for path, oid in tree.items()}
    assert all(have[p] for p in tree if p.startswith("narrow/")), "the cone's blobs were fetched"
    missing_wide = [p for p in tree if p.startswith("wide/") and not have[p]]
    assert len(missing_wide) == 30, f"the blobs outside the cone stay on the remote ({30 - len(missing_wide)} fetched)"
    Path(body["worktree"], "narrow", "f0.txt").write_text("changed\n")
    code, done = m2.wtc("task", "finish", "n", "--run", "r1")
    assert code == 0 and done["state"] == "merged", done


def test_gc_prunes_the_forecast_cache_of_finished_runs(tmp_path):
    repo = make_repo(tmp_path / "repo")
    assert wtc(repo, "run", "start", "--run", "old")[0] == 0
    for task in ("a", "b"):
        code, body = wtc(repo, "task", "start", task, "--run", "old", "--own", "docs/**")
        Path(body["worktree"], "docs", "guide.md").write_text(f"guide by {task}\n")
    code, forecast = wtc(repo, "forecast", "--run", "old")
    assert code == 0, forecast
    cache = repo / ".git" / "wtc" / "forecast-cache"
    entries = [p for p in cache.rglob("*") if p.is_file()]
    assert any(p.parent.name != "latest" for p in entries) and (cache / "latest" / "old.json").is_file(), entries
    code, kept = wtc(repo, "gc", "--dry-run")
    assert kept["forecast_cache_removed"] == 0, "an open run's cache stays"
    assert wtc(repo, "task", "finish", "a", "--run", "old")[1]["state"] == "merged"
    wtc(repo, "task", "abandon", "b", "--run", "old")
    code, landed = wtc(repo, "land", "--run", "old", "--onto", "main", "--yes", "--allow-partial")
    assert code == 0, landed
    assert wtc(repo, "status", "--run", "old")[1]["runs"][0]["state"] == "landed"
    assert wtc(repo, "run", "start", "--run", "new")[0] == 0
    code, body = wtc(repo, "task", "start", "c", "--run", "new", "--own", "docs/**")
    wtc(repo, "forecast", "--run", "new")
    code, dry = wtc(repo, "gc", "--dry-run")
    assert dry["forecast_cache_removed"] == len(entries), (dry, entries)
    assert all(p.exists() for p in entries), "a dry run removes nothing"
    code, done = wtc(repo, "gc")
    assert done["forecast_cache_removed"] == len(entries)
    assert not any(p.exists() for p in entries)
    assert (cache / "latest" / "new.json").is_file(), "the open run's column stays"
