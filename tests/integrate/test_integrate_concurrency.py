"""Several processes merging into one ref at once, and crashes between the commit and the ref move."""

from __future__ import annotations

import multiprocessing

import pygit2
import pytest

from integrate_helpers import (
    REF,
    SIG,
    base_repo,
    commit,
    crashing_merge,
    first_parent_chain,
    git,
    merge_worker,
)
from worktree_coord.integrate import IntegrationState, Integrator, MergePath

SPAWN = multiprocessing.get_context("spawn")


def _tasks(repo: pygit2.Repository, base: pygit2.Oid, workers: int) -> list[list[pygit2.Oid]]:
    """Per worker: two changes in its own package (fast path) and one edit to a line of the shared
    README that nobody else edits (git merge-tree with a clean content merge)."""
    readme = repo[base].tree["README.md"].data.splitlines(keepends=True)
    per_worker = []
    for w in range(workers):
        pkg = f"packages/p{w:02d}/src"
        own1 = commit(repo, [base], {f"{pkg}/m00.py": b"worker %d\n" % w, f"{pkg}/new.py": b"new\n"})
        own2 = commit(repo, [base], {f"{pkg}/m01.py": None})
        lines = list(readme)
        lines[2 + 5 * w] = b"README line edited by worker %d\n" % w
        shared = commit(repo, [base], {"README.md": b"".join(lines)})
        per_worker.append([own1, shared, own2])
    return per_worker


@pytest.mark.heavy
@pytest.mark.parametrize("workers", [2, 8])
def test_concurrent_mergers_all_land_and_match_a_sequential_replay(tmp_path, workers):
    repo, base = base_repo(tmp_path / "repo", packages=8)
    per_worker = _tasks(repo, base, workers)
    barrier = SPAWN.Barrier(workers)
    results = SPAWN.Queue()
    procs = [SPAWN.Process(target=merge_worker,
                           args=(repo.workdir, REF, str(base), [str(t) for t in tasks], barrier, results))
             for tasks in per_worker]
    for p in procs:
        p.start()
    outcomes = [results.get(timeout=180) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    flat = [o for out in outcomes for o in out]
    assert all(state == "merged" for _, state, _, _, _ in flat), flat
    assert {path for _, _, path, _, _ in flat} == {"in-memory", "merge-tree"}
    all_tasks = {t for tasks in per_worker for t in tasks}
    chain = first_parent_chain(repo, repo.references[REF].target, base)
    assert len(chain) == len(all_tasks)                        # one merge commit per task, none lost
    assert {c.parent_ids[1] for c in chain} == all_tasks
    assert all(len(c.parent_ids) == 2 for c in chain)
    # Replaying the same merges one by one, in a fixed order, gives the same tree.
    replay_ref = "refs/heads/replay"
    repo.references.create(replay_ref, base)
    with Integrator(repo) as engine:
        for tasks in per_worker:
            for task in tasks:
                assert engine.merge_into(replay_ref, task, base, message="replay", author=SIG).moved
    final = repo[repo.references[REF].target].tree_id
    assert final == repo[repo.references[replay_ref].target].tree_id
    readme = repo[final]["README.md"].data
    assert all(b"edited by worker %d" % w in readme for w in range(workers))


def _unreachable_commits(repo: pygit2.Repository) -> list[pygit2.Oid]:
    out = git(repo.workdir, "fsck", "--unreachable", "--no-reflogs", "--no-progress")
    return [pygit2.Oid(hex=line.split()[2]) for line in out.splitlines()
            if line.startswith("unreachable commit")]


def _crash(repo, base, task, point):
    proc = SPAWN.Process(target=crashing_merge, args=(repo.workdir, REF, str(base), str(task), point))
    proc.start()
    proc.join(timeout=120)
    return proc.exitcode


@pytest.mark.parametrize("shared_file", [False, True], ids=["fast-path", "merge-tree"])
def test_crash_after_commit_written_then_retry_merges_exactly_once(tmp_path, shared_file):
    repo, base = base_repo(tmp_path / "repo")
    with Integrator(repo) as engine:
        first = commit(repo, [base], {"README.md": b"first\n" + repo[base].tree["README.md"].data})
        engine.merge_into(REF, first, base, message="first", author=SIG)
    tip_before = repo.references[REF].target
    change = {"README.md": repo[tip_before].tree["README.md"].data + b"last\n"} if shared_file else \
        {"packages/p01/src/m00.py": b"task\n"}
    task = commit(repo, [base], change)
    assert _crash(repo, base, task, "merge.after_commit_written") == -9   # SIGKILL
    assert repo.references[REF].target == tip_before                       # the ref did not move
    orphans = [repo[c] for c in _unreachable_commits(repo)]                # the task commit, and...
    merges = [c.parent_ids for c in orphans if len(c.parent_ids) == 2]
    assert merges == [[tip_before, task]]                                  # ...the merge commit written
    with Integrator(repo) as engine:
        retry = engine.merge_into(REF, task, base, message="retry", author=SIG)
        assert retry.state is IntegrationState.MERGED and retry.old_tip == str(tip_before)
        assert retry.path is (MergePath.MERGE_TREE if shared_file else MergePath.FAST)
        again = engine.merge_into(REF, task, base, message="retry", author=SIG)
        assert again.state is IntegrationState.ALREADY_MERGED
    chain = first_parent_chain(repo, repo.references[REF].target, base)
    assert [c.parent_ids[1] for c in chain].count(task) == 1


def test_crash_after_ref_moved_then_retry_is_already_merged(tmp_path):
    repo, base = base_repo(tmp_path / "repo")
    task = commit(repo, [base], {"packages/p02/src/m00.py": b"task\n"})
    assert _crash(repo, base, task, "merge.after_ref_moved") == -9
    tip = repo.references[REF].target
    assert repo[tip].parent_ids == [base, task]                            # the ref did move
    with Integrator(repo) as engine:
        retry = engine.merge_into(REF, task, base, message="retry", author=SIG)
    assert retry.state is IntegrationState.ALREADY_MERGED
    assert retry.merge_commit == str(tip) and retry.new_tip == str(tip)
    assert len(first_parent_chain(repo, repo.references[REF].target, base)) == 1


def test_threads_share_one_merge_tree_process_safely(tmp_path):
    """The module-level API from several threads: one Integrator per thread, one shared git
    merge-tree process (thread safe); every task lands exactly once."""
    import threading

    from worktree_coord.integrate import close_all, merge_into

    repo, base = base_repo(tmp_path / "repo", packages=8)
    per_worker = _tasks(repo, base, 4)
    errors, outcomes = [], []

    def work(tasks):
        try:
            for task in tasks:
                outcomes.append(merge_into(repo.workdir, REF, task, base, message=f"merge {task}", author=SIG))
        except Exception as exc:  # surfaced by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(tasks,)) for tasks in per_worker]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    close_all()
    assert errors == []
    assert all(o.state is IntegrationState.MERGED for o in outcomes) and len(outcomes) == 12
    chain = first_parent_chain(repo, repo.references[REF].target, base)
    assert sorted(str(c.parent_ids[1]) for c in chain) == sorted(str(t) for ts in per_worker for t in ts)
