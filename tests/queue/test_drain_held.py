"""`wtc merge` holding its drain's objects in memory: one pack for the whole drain, written before
integration moves; killed just before or just after that pack, the next drain merges every task
once, and the merge index never names an object that is not on disk."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import git, wtc
from tests.queue.test_drain_publish import INTEGRATION, finished, merge_commits
from worktree_coord.coordinator import Coordinator
from worktree_coord.integrate.engine import HOLD_ENV, HOLD_FROM

MANY = tuple(f"t{i}" for i in range(HOLD_FROM + 1))


def packs(repo: Path) -> set[str]:
    return {p.name for p in (repo / ".git" / "objects" / "pack").glob("*.pack")}


def loose(repo: Path) -> set[str]:
    root = repo / ".git" / "objects"
    return {d.name + f.name for d in root.iterdir() if len(d.name) == 2 for f in d.iterdir()}


def index_names_on_disk(repo: Path) -> None:
    """Every object id a merge index entry is named by (tips, tables) exists for git."""
    folder = repo / ".git" / "wtc" / "merge-index"
    ids = {m for p in folder.rglob("*") if p.is_file() for m in re.findall(r"[0-9a-f]{40}", p.name)}
    for oid in ids:
        assert subprocess.run(["git", "-C", str(repo), "cat-file", "-e", oid]).returncode == 0, oid


def test_a_drain_of_many_tasks_writes_one_pack_and_no_loose_merge_commit(repo, monkeypatch):
    monkeypatch.delenv(HOLD_ENV, raising=False)
    finished(repo, MANY)
    packs_before = packs(repo)
    with Coordinator(repo) as coord:
        report = coord.merge("r1")
    assert [row["state"] for row in report.tasks] == ["merged"] * len(MANY)
    assert len(packs(repo) - packs_before) == 1
    commits = merge_commits(repo)
    assert len(commits) == len(MANY) and not set(commits) & loose(repo), "held until the one pack"
    git(repo, "fsck", "--full")
    index_names_on_disk(repo)


@pytest.mark.parametrize("point", ["merge.before_pack_written", "merge.after_pack_written"])
def test_a_drain_killed_on_either_side_of_its_pack_is_finished_by_the_next(repo, point):
    finished(repo)
    packs_before = packs(repo)
    start = git(repo, "rev-parse", INTEGRATION)
    killed = subprocess.run([sys.executable, "-m", "worktree_coord", "merge", "--run", "r1", "--json"],
                            cwd=repo, env=dict(os.environ, WTC_CRASH_AT=point, **{HOLD_ENV: "1"}),
                            capture_output=True)
    assert killed.returncode == -9, killed.stderr
    assert git(repo, "rev-parse", INTEGRATION) == start, "integration never moved"
    assert len(packs(repo) - packs_before) == (0 if point == "merge.before_pack_written" else 1)
    git(repo, "fsck", "--full")   # a pack written is whole; its objects unreachable, not broken
    index_names_on_disk(repo)
    with Coordinator(repo) as coord:
        assert {t.state.value for t in coord.store.list_tasks("r1")} == {"finished"}
    code, drained = wtc(repo, "merge", "--run", "r1")
    assert code == 0 and [row["state"] for row in drained["tasks"]] == ["merged"] * 3
    assert len(merge_commits(repo)) == 3, "each task merged exactly once"
    git(repo, "fsck", "--full")
    index_names_on_disk(repo)
    for name in ("a", "b", "c"):
        assert git(repo, "show", f"{INTEGRATION}:packages/{name}/f.txt") == name


def test_a_drain_past_the_pack_limit_combines_the_packs(repo, monkeypatch):
    """Each held drain leaves one pack; past PACK_LIMIT the drain combines them (git repack
    --geometric), so a long run's lookups do not search an ever longer list of packs."""
    from worktree_coord.gitrepo import repository

    monkeypatch.delenv(HOLD_ENV, raising=False)
    monkeypatch.setattr(repository, "PACK_LIMIT", 3)
    finished(repo, MANY)
    for i in range(4):   # small packs, as earlier drains leave them
        (repo / f"extra{i}.txt").write_text(f"{i}\n")
        git(repo, "add", f"extra{i}.txt")
        git(repo, "commit", "-q", "-m", f"extra {i}")
        git(repo, "repack", "-d", "-q")
    before = packs(repo)
    assert len(before) > 3
    with Coordinator(repo) as coord:
        report = coord.merge("r1")
    assert [row["state"] for row in report.tasks] == ["merged"] * len(MANY)
    assert len(packs(repo)) < len(before), "the drain's pack and the small ones combined"
    git(repo, "fsck", "--full")
    for name in MANY:
        assert git(repo, "show", f"{INTEGRATION}:packages/{name}/f.txt") == name
