"""merge_into end to end on real repositories: clean, resolved, conflicted, raced, refused."""

from __future__ import annotations

import json
import os

import pygit2
import pytest

from integrate_helpers import REF, SIG, base_repo, commit, first_parent_chain, git, module_text
from worktree_coord.errors import BusyError, NotFoundError, UsageError
from worktree_coord.integrate import (
    IntegrationState,
    Integrator,
    MergePath,
    StaleRef,
    already_merged,
    compare_and_swap,
    fast_forward,
    merge_into,
)
from worktree_coord.merge.result import FileMerge, Strategy


@pytest.fixture()
def repo_and_base(tmp_path):
    return base_repo(tmp_path / "repo")


@pytest.fixture()
def integrator(repo_and_base):
    with Integrator(repo_and_base[0]) as engine:
        yield engine


def _tip(repo):
    return repo.references[REF].target


def test_disjoint_tasks_land_on_the_fast_path_with_both_parents(repo_and_base, integrator):
    repo, base = repo_and_base
    t1 = commit(repo, [base], {"packages/p00/src/m00.py": b"t1\n", "packages/p00/src/new.py": b"n\n",
                               "packages/p00/src/m03.py": None})
    t2 = commit(repo, [base], {"packages/p01/src/m01.py": b"t2\n"})
    r1 = integrator.merge_into(REF, t1, base, message="wtc: merge run1/t1", author=SIG)
    r2 = integrator.merge_into(REF, str(t2), str(base), message="wtc: merge run1/t2", author=SIG)
    assert (r1.state, r1.path, r2.state, r2.path) == (
        IntegrationState.MERGED, MergePath.FAST, IntegrationState.MERGED, MergePath.FAST)
    assert r1.old_tip == str(base) and r2.old_tip == r1.new_tip and str(_tip(repo)) == r2.new_tip
    tip = repo[_tip(repo)]
    assert tip.parent_ids == [pygit2.Oid(hex=r1.new_tip), t2] and tip.message == "wtc: merge run1/t2"
    assert str(tip.tree_id) == r2.tree
    tree = tip.tree
    assert tree["packages/p00/src/m00.py"].data == b"t1\n"
    assert tree["packages/p00/src/new.py"].data == b"n\n"
    assert "packages/p00/src/m03.py" not in tree
    assert tree["packages/p01/src/m01.py"].data == b"t2\n"
    assert tree["packages/p02/src/m00.py"].id == repo[base].tree["packages/p02/src/m00.py"].id
    assert set(r2.timings_ms) >= {"check", "merge", "commit", "ref", "total"}
    # the fast path and git agree on the result
    assert git(repo.path, "merge-tree", "--write-tree", r1.new_tip, str(t2)).split()[0] == r2.tree
    reflog = git(repo.path, "reflog", "show", REF.removeprefix("refs/heads/"))
    assert "worktree_coord: wtc: merge run1/t2" in reflog


def test_same_file_disjoint_lines_falls_back_to_merge_tree_cleanly(repo_and_base, integrator):
    repo, base = repo_and_base
    readme = repo[base].tree["README.md"].data.splitlines(keepends=True)
    top = b"".join([b"TOP\n"] + readme[1:])
    bottom = b"".join(readme[:-1] + [b"BOTTOM\n"])
    integrator.merge_into(REF, commit(repo, [base], {"README.md": top}), base, message="m1", author=SIG)
    result = integrator.merge_into(REF, commit(repo, [base], {"README.md": bottom}), base,
                                   message="m2", author=SIG)
    assert result.state is IntegrationState.MERGED and result.path is MergePath.MERGE_TREE
    assert result.fallback_reason == "both sides changed README.md"
    merged = repo[_tip(repo)].tree["README.md"].data
    assert merged.startswith(b"TOP\n") and merged.endswith(b"BOTTOM\n")


def _union_resolver(calls):
    def resolve(files):
        calls.extend(files)
        out = {}
        for f in files:
            merged = f.ours + b"".join(line for line in f.theirs.splitlines(keepends=True)
                                       if line not in f.ours.splitlines(keepends=True))
            out[f.path] = FileMerge(merged, True, Strategy.STRUCTURED)
        return out
    return resolve


def test_same_place_edit_is_merged_by_the_resolver(repo_and_base, integrator):
    repo, base = repo_and_base
    path = "packages/p00/src/m00.py"
    original = repo[base].tree[path].data
    ours = original + b"def added_by_a():\n    return 1\n"
    theirs = original + b"def added_by_b():\n    return 2\n"
    integrator.merge_into(REF, commit(repo, [base], {path: ours}), base, message="a", author=SIG)
    task_b = commit(repo, [base], {path: theirs})
    calls = []
    result = integrator.merge_into(REF, task_b, base, message="b", author=SIG,
                                   resolve=_union_resolver(calls))
    assert result.state is IntegrationState.MERGED and result.resolved == (path,)
    assert [c.path for c in calls] == [path]
    assert (calls[0].base, calls[0].ours, calls[0].theirs) == (original, ours, theirs)
    merged = repo[_tip(repo)].tree[path].data
    assert merged == ours + b"def added_by_b():\n    return 2\n"
    assert b"<<<<<<<" not in merged


def test_real_conflict_leaves_the_ref_untouched_and_reports_it(repo_and_base, integrator):
    repo, base = repo_and_base
    path = "packages/p00/src/m00.py"
    lines = repo[base].tree[path].data.splitlines(keepends=True)
    ours = b"".join(lines[:3] + [b"    return 'integration'\n"] + lines[4:])
    theirs = b"".join(lines[:3] + [b"    return 'task'\n"] + lines[4:])
    integrator.merge_into(REF, commit(repo, [base], {path: ours}), base, message="a", author=SIG)
    before = _tip(repo)
    task = commit(repo, [base], {path: theirs, "packages/p05/src/m00.py": b"other change\n"})
    result = integrator.merge_into(REF, task, base, message="b", author=SIG)
    assert result.state is IntegrationState.CONFLICT and not result.moved
    assert _tip(repo) == before and result.new_tip == result.old_tip == str(before)
    (conflict,) = result.conflicts
    assert conflict.path == path and conflict.kind == "content"
    assert repo[conflict.ours.oid].data == ours and repo[conflict.theirs.oid].data == theirs
    assert conflict.base.oid == str(repo[base].tree[path].id)
    assert b"<<<<<<< integration" in conflict.text and b">>>>>>> task" in conflict.text
    (region,) = conflict.resolution.conflicts
    marked = conflict.text.splitlines()
    assert marked[region.start_line - 1].startswith(b"<<<<<<<")
    assert marked[region.end_line - 1].startswith(b">>>>>>>")
    assert "integration" in region.ours and "task" in region.theirs
    assert result.to_json()["conflicts"][0]["stages"]["ours"]["mode"] == "100644"
    assert json.loads(json.dumps(result.to_json()))["state"] == "conflict"
    marked_tree = repo[result.tree]
    assert marked_tree[path].data == conflict.text                         # markers, for `task update`
    assert marked_tree["packages/p05/src/m00.py"].data == b"other change\n"  # the clean part merged


def test_modify_delete_is_a_conflict_not_offered_to_the_resolver(repo_and_base, integrator):
    repo, base = repo_and_base
    path = "packages/p00/src/m00.py"
    integrator.merge_into(REF, commit(repo, [base], {path: None}), base, message="a", author=SIG)
    calls = []
    result = integrator.merge_into(REF, commit(repo, [base], {path: b"edited\n"}), base, message="b",
                                   author=SIG, resolve=_union_resolver(calls))
    assert result.state is IntegrationState.CONFLICT and calls == []
    (conflict,) = result.conflicts
    assert conflict.kind == "modify_delete" and conflict.ours is None and conflict.text == b"edited\n"


def test_retry_of_a_merged_task_is_already_merged(repo_and_base, integrator):
    repo, base = repo_and_base
    task = commit(repo, [base], {"packages/p00/src/m00.py": b"x\n"})
    first = integrator.merge_into(REF, task, base, message="m", author=SIG)
    other = commit(repo, [base], {"packages/p01/src/m00.py": b"y\n"})
    integrator.merge_into(REF, other, base, message="m2", author=SIG)
    again = integrator.merge_into(REF, task, base, message="m", author=SIG)
    assert again.state is IntegrationState.ALREADY_MERGED and again.merge_commit == first.new_tip
    assert again.new_tip == str(_tip(repo))
    assert already_merged(repo, REF, task) and already_merged(repo.workdir, REF, str(other))
    assert not already_merged(repo, REF, commit(repo, [base], {"x": b"new\n"}))
    empty = integrator.merge_into(REF, base, base, message="nothing", author=SIG)   # no commits yet
    assert empty.state is IntegrationState.ALREADY_MERGED
    # a fresh Integrator (another process after a crash) reaches the same answer
    with Integrator(repo.path) as fresh:
        assert fresh.merge_into(REF, task, base, message="m", author=SIG).state is IntegrationState.ALREADY_MERGED
    assert len(first_parent_chain(repo, _tip(repo), base)) == 2


def test_losing_the_race_merges_again_onto_the_new_tip(repo_and_base):
    """A second writer lands while our merge is in flight (inside the resolver step); our CAS sees
    the moved tip and we merge again on top of it instead of overwriting it."""
    repo, base = repo_and_base
    path = "packages/p00/src/m00.py"
    original = repo[base].tree[path].data
    racer = commit(repo, [base], {"packages/p04/src/m00.py": b"racer\n"})
    with Integrator(repo) as ours_engine, Integrator(repo.path) as other_engine:
        ours_engine.merge_into(REF, commit(repo, [base], {path: original + b"# a\n"}), base,
                               message="a", author=SIG)
        calls = []
        union = _union_resolver(calls)

        def racing_resolver(files):
            if not calls:
                landed = other_engine.merge_into(REF, racer, base, message="racer", author=SIG)
                assert landed.state is IntegrationState.MERGED
            return union(files)

        task = commit(repo, [base], {path: original + b"# b\n"})
        result = ours_engine.merge_into(REF, task, base, message="b", author=SIG, resolve=racing_resolver)
    assert result.state is IntegrationState.MERGED and result.attempts == 2
    chain = first_parent_chain(repo, _tip(repo), base)
    assert [c.message for c in chain] == ["b", "racer", "a"]
    tree = repo[_tip(repo)].tree
    assert tree["packages/p04/src/m00.py"].data == b"racer\n"
    assert tree[path].data == original + b"# a\n# b\n"


def test_bad_inputs_are_refused_with_the_fix(repo_and_base, integrator):
    repo, base = repo_and_base
    unrelated_root = commit(repo, [], {"other.txt": b"x\n"})
    with pytest.raises(UsageError) as info:
        integrator.merge_into(REF, unrelated_root, base, message="m", author=SIG)
    assert "does not descend" in info.value.message and info.value.fix
    task = commit(repo, [base], {"a": b"a\n"})
    with pytest.raises(NotFoundError):
        integrator.merge_into("refs/heads/nope", task, base, message="m", author=SIG)
    with pytest.raises(NotFoundError):
        integrator.merge_into(REF, "f" * 40, base, message="m", author=SIG)
    with pytest.raises(UsageError):
        integrator.merge_into("integration", task, base, message="m", author=SIG)
    with pytest.raises(UsageError):
        integrator.merge_into(REF, task, base, message="  ", author=SIG)
    assert _tip(repo) == base


def test_module_level_merge_into_accepts_a_path(repo_and_base):
    repo, base = repo_and_base
    task = commit(repo, [base], {"packages/p03/src/m00.py": module_text("x", tag="changed")})
    result = merge_into(repo.workdir, REF, str(task), str(base), message="m", author=SIG)
    assert result.state is IntegrationState.MERGED and str(_tip(repo)) == result.new_tip


def test_compare_and_swap_refuses_stale_and_waits_out_a_held_lock(repo_and_base):
    repo, base = repo_and_base
    a = commit(repo, [base], {"a": b"a\n"})
    b = commit(repo, [base], {"b": b"b\n"})
    compare_and_swap(repo, REF, a, base, message="to a")
    with pytest.raises(StaleRef) as info:
        compare_and_swap(repo, REF, b, base, message="stale")
    assert info.value.current == a and _tip(repo) == a
    lock = os.path.join(repo.path, REF + ".lock")
    open(lock, "w").close()
    try:
        with pytest.raises(BusyError):
            compare_and_swap(repo, REF, b, a, message="locked", timeout=0.2)
    finally:
        os.remove(lock)
    compare_and_swap(repo, "refs/heads/created", b, None, message="create-only")
    assert repo.references["refs/heads/created"].target == b
    with pytest.raises(StaleRef):
        compare_and_swap(repo, "refs/heads/created", a, None, message="create-only again")


def test_fast_forward_moves_only_forward_and_only_from_the_expected_tip(repo_and_base):
    repo, base = repo_and_base
    repo.references.create("refs/heads/main", base)
    integ = commit(repo, [base], {"a": b"a\n"})
    result = fast_forward(repo, "refs/heads/main", integ, base)
    assert (result.old, result.new) == (str(base), str(integ))
    assert repo.references["refs/heads/main"].target == integ
    sideways = commit(repo, [base], {"b": b"b\n"})
    with pytest.raises(UsageError):
        fast_forward(repo, "refs/heads/main", sideways, integ)
    later = commit(repo, [integ], {"c": b"c\n"})
    with pytest.raises(StaleRef):
        fast_forward(repo, "refs/heads/main", later, base)   # main moved since the caller looked
    with pytest.raises(NotFoundError):
        fast_forward(repo, "refs/heads/absent", later, integ)
    assert repo.references["refs/heads/main"].target == integ


def test_one_spawn_per_merge_fallback_resolves_and_reports_the_same(repo_and_base):
    """Without `stdbuf` the engine spawns `git merge-tree` per merge; results must not change."""
    from worktree_coord.integrate import MergeTreeProcess

    repo, base = repo_and_base
    path = "packages/p00/src/m00.py"
    original = repo[base].tree[path].data
    merger = MergeTreeProcess(repo.path, persistent=False)
    with Integrator(repo, merger=merger) as engine:
        engine.merge_into(REF, commit(repo, [base], {path: original + b"# a\n"}), base, message="a", author=SIG)
        calls = []
        result = engine.merge_into(REF, commit(repo, [base], {path: original + b"# b\n"}), base,
                                   message="b", author=SIG, resolve=_union_resolver(calls))
        assert result.state is IntegrationState.MERGED and result.path is MergePath.MERGE_TREE
        assert result.resolved == (path,) and merger.spawns == 0
        conflict = engine.merge_into(REF, commit(repo, [base], {path: original + b"# c\n"}), base,
                                     message="c", author=SIG)
        assert conflict.state is IntegrationState.CONFLICT and conflict.conflicts[0].path == path
    assert repo[_tip(repo)].tree[path].data == original + b"# a\n# b\n"


def test_merging_into_a_packed_ref(repo_and_base, integrator):
    """After `git pack-refs` (gc) the integration ref lives in packed-refs; the CAS still works."""
    repo, base = repo_and_base
    git(repo.workdir, "pack-refs", "--all")
    assert not os.path.exists(os.path.join(repo.path, REF))
    task = commit(repo, [base], {"packages/p00/src/m00.py": b"packed\n"})
    result = integrator.merge_into(REF, task, base, message="m", author=SIG)
    assert result.state is IntegrationState.MERGED and str(_tip(repo)) == result.new_tip
    assert git(repo.workdir, "rev-parse", REF).strip() == result.new_tip
    with pytest.raises(StaleRef):
        compare_and_swap(repo, REF, base, pygit2.Oid(hex=result.old_tip), message="stale")


def test_a_drain_merges_onto_its_own_last_commit_and_moves_the_ref_once(repo_and_base, integrator):
    """Integrator.drain: each merge onto the one before, nothing moved until publish(), then one
    compare-and-swap from the tip the drain started from; the same trees as merges one by one."""
    repo, base = repo_and_base
    tasks = [commit(repo, [base], {f"packages/p0{i}/src/m00.py": b"t%d\n" % i}) for i in range(3)]
    drain = integrator.drain(REF, message="drain of run1", signature=SIG)
    results = [drain.merge(t, base, message=f"wtc: merge run1/t{i}", author=SIG) for i, t in enumerate(tasks)]
    assert [r.state for r in results] == [IntegrationState.MERGED] * 3
    assert _tip(repo) == base, "nothing published yet"
    assert [r.old_tip for r in results] == [str(base), results[0].new_tip, results[1].new_tip]
    again = drain.merge(tasks[1], base, message="again", author=SIG)   # already in the drain's commits
    assert again.state is IntegrationState.ALREADY_MERGED and again.merge_commit == results[1].new_tip
    reflog_before = git(repo.path, "reflog", "show", REF.removeprefix("refs/heads/")).splitlines()
    assert str(drain.publish()) == results[-1].new_tip == str(_tip(repo))
    reflog = git(repo.path, "reflog", "show", REF.removeprefix("refs/heads/")).splitlines()
    assert len(reflog) == len(reflog_before) + 1 and "drain of run1 (3 merges)" in reflog[0]
    assert not drain.pending and drain.publish() == _tip(repo)   # nothing waits: nothing moves
    # One by one on another ref: the same final tree.
    other = "refs/heads/wtc/run2/integration"
    repo.references.create(other, base)
    for i, t in enumerate(tasks):
        integrator.merge_into(other, t, base, message=f"m{i}", author=SIG)
    assert repo[repo.references[other].target].tree_id == repo[_tip(repo)].tree_id


def test_a_drain_whose_ref_moved_publishes_nothing(repo_and_base, integrator):
    repo, base = repo_and_base
    drain = integrator.drain(REF)
    drain.merge(commit(repo, [base], {"packages/p00/src/m00.py": b"t\n"}), base, message="m", author=SIG)
    moved = commit(repo, [base], {"README.md": b"moved\n"})
    repo.references[REF].set_target(moved)
    with pytest.raises(StaleRef):
        drain.publish()
    assert _tip(repo) == moved
