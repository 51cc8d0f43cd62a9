"""Finished tasks land on wtc/<run>/integration: pipelined, atomic, resumable, with conflict reports."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import git, write, wtc
from worktree_coord.coordinator import Coordinator

INTEGRATION = "wtc/r1/integration"


@pytest.fixture
def coord(repo: Path):
    with Coordinator(repo) as coordinator:
        coordinator.start_run("r1")
        yield coordinator


def do_task(coord: Coordinator, task: str, own: list[str], files: dict[str, str], **finish) -> object:
    wt = Path(coord.start_task("r1", task, own).worktree)
    write(wt, files)
    return coord.finish_task("r1", task, **finish)


def merge_commits(repo: Path) -> list[str]:
    base = git(repo, "rev-parse", "main")
    return git(repo, "rev-list", "--merges", "--first-parent", f"{base}..{INTEGRATION}").split()


def test_disjoint_tasks_each_land_as_one_merge_commit(repo, coord):
    a = do_task(coord, "api", ["packages/api/**"], {"packages/api/index.js": "api v2\n"})
    b = do_task(coord, "web", ["packages/web/**"], {"packages/web/new.js": "new\n"})
    assert a.state == b.state == "merged"
    assert git(repo, "show", f"{INTEGRATION}:packages/api/index.js") == "api v2"
    assert git(repo, "show", f"{INTEGRATION}:packages/web/new.js") == "new"
    merges = merge_commits(repo)
    assert len(merges) == 2
    top = merges[0]
    assert len(git(repo, "rev-list", "--parents", "-n1", top).split()) == 3, "two parents"
    assert "web" in git(repo, "log", "-1", "--format=%B", top) and "r1" in git(repo, "log", "-1", "--format=%B", top)


def test_same_file_edits_in_different_places_merge(repo, coord):
    body = "".join(f"line {i}\n" for i in range(30))
    write(repo, {"packages/core/lib.py": body})
    git(repo, "commit", "-qam", "longer lib")
    coord.start_run("r2")  # pinned at the new commit
    top = body.replace("line 1\n", "line 1 (top)\n")
    bottom = body.replace("line 28\n", "line 28 (bottom)\n")
    wt_a = Path(coord.start_task("r2", "a", ["packages/core/**"]).worktree)
    wt_b = Path(coord.start_task("r2", "b", ["packages/core/**"]).worktree)
    write(wt_a, {"packages/core/lib.py": top})
    write(wt_b, {"packages/core/lib.py": bottom})
    assert coord.finish_task("r2", "a").state == "merged"
    second = coord.finish_task("r2", "b")
    assert second.state == "merged", second.conflicts
    merged = git(repo, "show", "wtc/r2/integration:packages/core/lib.py")
    assert "line 1 (top)" in merged and "line 28 (bottom)" in merged


# The task's version is the side that broke (`task b`, below the markers; integration above them).
WHY_UNPARSED = ("the `task b` version does not parse as python (line 2:5) where the base did, so wtc's structured "
                "merge could not read it: that side's edit has a syntax error to fix as well; git's line conflict "
                "(lines 2-8) stands: in each, keep what `integration r1` (above) and `task b` (below) each meant, "
                "then remove the markers")


def test_a_conflict_says_why_the_structured_merge_kept_it(repo, coord):
    body = "def core():\n    return 3\n"
    do_task(coord, "a", ["packages/core/**"], {"packages/core/lib.py": body.replace("3", "4")})
    # b's file does not parse: the structured merge cannot read it and keeps git's conflict.
    done = do_task(coord, "b", ["packages/core/**"], {"packages/core/lib.py": body.replace("return 3", "return (5")})
    assert done.state == "conflict"
    assert {c["path"]: c["why"] for c in done.conflicts} == {"packages/core/lib.py": [WHY_UNPARSED]}
    from worktree_coord.output.render import task_finished

    assert f"  why       packages/core/lib.py: {WHY_UNPARSED}" in task_finished(done).splitlines()
    # Two edits of one function: a true overlap, nothing to explain.
    do_task(coord, "c", ["packages/api/**"], {"packages/api/index.js": "export function api() {\n  return 'c';\n}\n"})
    plain = do_task(coord, "d", ["packages/api/**"], {"packages/api/index.js": "export function api() {\n  return 'd';\n}\n"})
    assert plain.state == "conflict" and [c["why"] for c in plain.conflicts] == [[]]


def test_a_conflict_names_the_task_that_wrote_the_integration_side(repo, coord):
    body = "".join(f"def f{i}():\n    return {i}\n\n\n" for i in range(8))
    write(repo, {"packages/core/lib.py": body})
    git(repo, "commit", "-qam", "eight functions")
    coord.start_run("r2")
    # Two tasks merge edits of one file in different functions; a third edits what the second did.
    for task, old, new in (("top", "return 0", "return 100"), ("bottom", "return 6", "return 600"),
                           ("clash", "return 6", "return -6")):
        wt = Path(coord.start_task("r2", task, ["packages/core/**"]).worktree)
        write(wt, {"packages/core/lib.py": body.replace(old, new)})
    assert coord.finish_task("r2", "top").state == "merged"
    assert coord.finish_task("r2", "bottom").state == "merged"
    done = coord.finish_task("r2", "clash")
    assert done.state == "conflict"
    [conflict] = done.conflicts
    assert sorted(conflict["last_changed_by"]) == ["bottom", "top"], "every merged task that changed the file"
    assert conflict["written_by"] == ["bottom"], "only the task whose lines stand on the integration side"
    from worktree_coord.output.render import task_finished

    assert "integration side written by bottom" in task_finished(done)


def test_a_conflict_is_named_by_what_the_sides_did_to_the_member(repo, coord):
    # Found driving wtc on google/gson: one task deleted JsonArray.remove(int), another changed its
    # body; `task check` said delete_modify, the finish said git's "content" for the same block.
    body = "def keep():\n    return 1\n\n\ndef old():\n    return 2\n"
    write(repo, {"packages/core/lib.py": body})
    git(repo, "commit", "-qam", "two functions")
    coord.start_run("r3")
    deleter = Path(coord.start_task("r3", "delete-old", ["packages/core/**"]).worktree)
    changer = Path(coord.start_task("r3", "change-old", ["packages/core/**"]).worktree)
    write(deleter, {"packages/core/lib.py": "def keep():\n    return 1\n"})
    write(changer, {"packages/core/lib.py": body.replace("return 2", "return 3")})
    assert coord.finish_task("r3", "delete-old").state == "merged"
    done = coord.finish_task("r3", "change-old")
    assert done.state == "conflict"
    assert [(c["kind"], c["declaration"]) for c in done.conflicts] == [("delete_modify", "def old")]


def test_conflict_round_trip_through_update_and_a_second_finish(repo, coord):
    wt_a = Path(coord.start_task("r1", "a", ["packages/api/**"]).worktree)
    wt_b = Path(coord.start_task("r1", "b", ["packages/api/**"]).worktree)
    write(wt_a, {"packages/api/index.js": "export function api() {\n  return 'a';\n}\n"})
    write(wt_b, {"packages/api/index.js": "export function api() {\n  return 'b';\n}\n"})
    assert coord.finish_task("r1", "a").state == "merged"
    before = git(repo, "rev-parse", INTEGRATION)
    conflicted = coord.finish_task("r1", "b")
    assert conflicted.exit_code == 1 and conflicted.state == "conflict"
    assert git(repo, "rev-parse", INTEGRATION) == before, "integration untouched"
    report = conflicted.conflicts[0]
    assert report["path"] == "packages/api/index.js"
    assert report["last_changed_by"] == ["a"]
    assert "'a'" in report["ours"] and "'b'" in report["theirs"] and "return 1" in report["base"]
    assert report["start_line"] >= 1
    # a repeat of finish without new work gives the same conflict, not a new attempt
    assert coord.finish_task("r1", "b").state == "conflict"
    updated = coord.update_task("r1", "b")
    assert updated.exit_code == 1 and updated.conflicted_paths == ["packages/api/index.js"]
    wt = Path(updated.worktree)
    assert "<<<<<<<" in (wt / "packages/api/index.js").read_text()
    # finishing with the markers still in is refused
    refused = coord.finish_task("r1", "b")
    assert refused.exit_code == 1 and refused.state == "conflict" and not refused.violations
    assert refused.conflicts[0]["kind"] == "unresolved_markers" and refused.conflicts[0]["start_line"] >= 1
    assert any("left conflict markers that are still there (packages/api/index.js lines" in n for n in refused.notes)
    assert git(repo, "rev-parse", INTEGRATION) != git(repo, "rev-parse", "wtc/r1/b") and \
        "<<<<<<<" not in git(repo, "show", f"{INTEGRATION}:packages/api/index.js")
    write(wt, {"packages/api/index.js": "export function api() {\n  return 'a' + 'b';\n}\n"})
    final = coord.finish_task("r1", "b")
    assert final.state == "merged", final.violations
    assert "'a' + 'b'" in git(repo, "show", f"{INTEGRATION}:packages/api/index.js")
    assert [c["path"] for c in final.changed] == ["packages/api/index.js"]


def test_reserved_edits_stay_out_of_integration(repo, coord):
    done = do_task(coord, "api", ["packages/api/**"], {
        "packages/api/index.js": "changed\n", "package.json": '{"name": "root", "dependencies": {"x": "1"}}\n'})
    assert done.state == "merged"
    assert git(repo, "show", f"{INTEGRATION}:packages/api/index.js") == "changed"
    assert git(repo, "show", f"{INTEGRATION}:package.json") == git(repo, "show", "main:package.json")
    assert '"x"' in git(repo, "show", "wtc/r1/api:package.json"), "the edit waits on the task branch"


def test_no_merge_then_drain_merges_in_order_and_is_repeatable(repo, coord):
    for name, pkg in (("t1", "api"), ("t2", "web"), ("t3", "core")):
        out = do_task(coord, name, [f"packages/{pkg}/**"], {f"packages/{pkg}/n.txt": name + "\n"}, merge=False)
        assert out.state == "finished"
    drained = coord.merge("r1")
    assert [row["task"] for row in drained.tasks] == ["t1", "t2", "t3"]
    assert {row["state"] for row in drained.tasks} == {"merged"}
    again = coord.merge("r1")
    assert again.tasks == [] and again.tip == drained.tip
    assert len(merge_commits(repo)) == 3
    # A drain with other parameters is another request under its own default key, not exit 2.
    out = do_task(coord, "t4", ["packages/api/**"], {"packages/api/m.txt": "t4\n"}, merge=False)
    assert out.state == "finished"
    batched = coord.merge("r1", batch=2, verify="true")
    assert [row["task"] for row in batched.tasks] == ["t4"] and batched.tasks[0]["state"] == "merged"
    assert coord.merge("r1").tasks == []


def test_two_processes_finishing_at_once_both_land(repo):
    wtc(repo, "run", "start", "--run", "r1")
    worktrees = {}
    for name in ("x", "y", "z", "w"):
        _, started = wtc(repo, "task", "start", name, "--run", "r1", "--own", f"packages/{name}/**")
        write(Path(started["worktree"]), {f"packages/{name}/f.txt": name + "\n"})
        worktrees[name] = started["worktree"]
    procs = [subprocess.Popen([sys.executable, "-m", "worktree_coord", "task", "finish", n, "--run", "r1", "--json"],
                              cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for n in worktrees]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0, 0]
    for name in worktrees:
        assert git(repo, "show", f"{INTEGRATION}:packages/{name}/f.txt") == name
    assert len(merge_commits(repo)) == 4


@pytest.mark.parametrize("point", ["merge.after_commit_written", "merge.after_ref_moved", "merge.after_record"])
def test_crash_inside_the_merge_then_retry_merges_exactly_once(repo, point):
    wtc(repo, "run", "start", "--run", "r1")
    _, started = wtc(repo, "task", "start", "t", "--run", "r1", "--own", "packages/api/**")
    write(Path(started["worktree"]), {"packages/api/index.js": "crash test\n"})
    killed = subprocess.run([sys.executable, "-m", "worktree_coord", "task", "finish", "t", "--run", "r1", "--json"],
                            cwd=repo, env=dict(os.environ, WTC_CRASH_AT=point), capture_output=True)
    assert killed.returncode == -9
    code, retried = wtc(repo, "task", "finish", "t", "--run", "r1")
    assert code == 0 and retried["state"] == "merged"
    assert len(merge_commits(repo)) == 1
    code, drained = wtc(repo, "merge", "--run", "r1")
    assert code == 0 and drained["tasks"] == []
    assert git(repo, "show", f"{INTEGRATION}:packages/api/index.js") == "crash test"
    with Coordinator(repo) as coordinator:   # the record and its event: one write, never one alone
        assert [e["task_id"] for e in coordinator.store.events("r1") if e["kind"] == "task.merged"] == ["t"]


def test_drain_merges_a_dependency_before_its_dependents_whatever_the_finish_order(tmp_path):
    import json as _json

    from tests.conftest import make_repo

    def manifest(name, deps=None):
        return _json.dumps({"name": name, "version": "1.0.0", **({"dependencies": deps} if deps else {})}) + "\n"

    repo = make_repo(tmp_path / "ws", {
        "package.json": _json.dumps({"name": "root", "workspaces": ["packages/*"]}) + "\n",
        "packages/app/package.json": manifest("app", {"lib": "1.0.0"}),
        "packages/lib/package.json": manifest("lib", {"util": "1.0.0"}),
        "packages/util/package.json": manifest("util"),
        "packages/docs/package.json": manifest("docs"),
    })
    with Coordinator(repo) as coord:
        coord.start_run("r1")
        for name in ("app", "docs", "lib", "util"):  # finish order: dependents first
            wt = Path(coord.start_task("r1", name, [f"packages/{name}/**"]).worktree)
            write(wt, {f"packages/{name}/index.js": name + "\n"})
            assert coord.finish_task("r1", name, merge=False).state == "finished"
        drained = coord.merge("r1")
        order = [row["task"] for row in drained.tasks]
        # util -> lib -> app by dependency; docs has none and finished before util, so it goes first
        assert order == ["docs", "util", "lib", "app"]


def test_a_runs_packages_are_read_once_per_pin_and_a_damaged_copy_is_read_again(tmp_path):
    """The package graph depends on the pinned commit alone: the first drain that orders two tasks
    keeps it beside the store (`<wtc dir>/cache/packages-v1-<pin>.json`); a later drain orders by
    the kept copy, and one damaged (or removed) is read again from the pin's manifests."""
    import json as _json

    from tests.conftest import make_repo

    def manifest(name, deps=None):
        return _json.dumps({"name": name, "version": "1.0.0", **({"dependencies": deps} if deps else {})}) + "\n"

    repo = make_repo(tmp_path / "ws", {
        "package.json": _json.dumps({"name": "root", "workspaces": ["packages/*"]}) + "\n",
        "packages/app/package.json": manifest("app", {"lib": "1.0.0"}),
        "packages/lib/package.json": manifest("lib"),
        "packages/web/package.json": manifest("web", {"core": "1.0.0"}),
        "packages/core/package.json": manifest("core"),
    })
    with Coordinator(repo) as coord:
        run = coord.start_run("r1")
        kept = coord.git.wtc_dir / "cache" / f"packages-v1-{run.base}.json"

        def drain(first: str, second: str) -> list[str]:
            for name in (first, second):   # finish order: the dependent first
                wt = Path(coord.start_task("r1", name, [f"packages/{name}/**"]).worktree)
                write(wt, {f"packages/{name}/index.js": name + "\n"})
                assert coord.finish_task("r1", name, merge=False).state == "finished"
            return [row["task"] for row in coord.merge("r1").tasks]

        assert not kept.exists()
        assert drain("app", "lib") == ["lib", "app"]
        assert sorted(name for name, _, _ in _json.loads(kept.read_text())) == ["app", "core", "lib", "web"]
        kept.write_text("{not json")
        assert drain("web", "core") == ["core", "web"], "a damaged copy is read again from the pin"
        assert sorted(name for name, _, _ in _json.loads(kept.read_text())) == ["app", "core", "lib", "web"]


def test_which_task_owns_a_package_is_the_gitignore_match_for_every_kind_of_glob():
    """drain_order's ownership test skips the gitignore matches when every glob of the task is
    anchored under a folder unrelated to the package's (a string test): for every kind of glob and
    package folder, its answer is the one the two matches alone give."""
    from itertools import combinations

    from worktree_coord.boundary import matches
    from worktree_coord.boundary.globs import literal_prefix
    from worktree_coord.coordinator.merge_queue import Package, _owns_package
    from worktree_coord.model import Boundary, TaskRecord, TaskState

    globs = ["packages/p001/**", "/packages/p001/**", "packages/p001", "packages/p001/", "packages/*/src/**",
             "**/p001/**", "*.md", "packages/p001/src/a.py", "packages", "pack*/p001/**", "!packages/p001/x",
             "packages/p00[1-2]/**", "packages/p001/**/*.py", "docs/**", "packages/p0011/**", "/p001",
             "packages/p001/package.json", "apps/**"]
    folders = ["packages/p001", "packages/p0011", "packages/p001/sub", "packages", "apps/p001", "p001",
               "packages/p001/"]

    def reference(own: tuple[str, ...], folder: str) -> bool:   # the rule before the string test
        root = folder.rstrip("/")
        if matches(own, root + "/package.json") or matches(own, root + "/x"):
            return True
        return any(literal_prefix(g) and literal_prefix(g).startswith(root + "/") for g in own)

    checked = 0
    for size in (1, 2):
        for own in combinations(globs, size):
            if all(g.startswith("!") for g in own):
                continue
            task = TaskRecord(run_id="r", task_id="t", state=TaskState.FINISHED, branch="b", worktree="",
                              boundary=Boundary(own=own), author="a", head="h", created_at=0.0, updated_at=0.0)
            for folder in folders:
                assert _owns_package(task, Package("p", folder, ())) == reference(own, folder), (own, folder)
                checked += 1
    assert checked > 1000
