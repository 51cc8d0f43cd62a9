"""What `wtc merge` pays around each merge besides the merge and its checks: the task's changes
walked once for the boundary checked again and the checks, no graph library for a drain whose
tasks' packages do not depend on each other, the drain's records (docs/architecture.md, "Cost of
a merge": the queue's own cost)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import git, make_repo, write
from worktree_coord.coordinator import Coordinator
from worktree_coord.gitrepo.repository import GitRepo
from worktree_coord.model import TaskState

PY_FILES = {f"pkg/{name}/mod.py": f"def {name}_f(x):\n    return x + 1\n" for name in ("a", "b", "c", "d")}


def _finished(repo: Path, names: tuple[str, ...]) -> None:
    with Coordinator(repo) as coord:
        coord.start_run("r1")
        for name in names:
            wt = Path(coord.start_task("r1", name, [f"pkg/{name}/**"]).worktree)
            write(wt, {f"pkg/{name}/mod.py": f"def {name}_f(x):\n    return x + 2\n",
                       f"pkg/{name}/new.py": f"from .mod import {name}_f\n\nVALUE = {name}_f(1)\n"})
            assert coord.finish_task("r1", name, merge=False).state == "finished"


def test_a_drain_walks_each_task_s_trees_once_and_still_refuses_commits_outside_the_boundary(tmp_path, monkeypatch):
    """The boundary checked again at the merge reads the task's changes from the walk the merge's
    checks make of the same two trees (kept in the merge index), not from a diff of its own; a task
    whose recorded commit leaves its boundary is still refused while the others merge."""
    repo = make_repo(tmp_path / "repo", PY_FILES)
    _finished(repo, ("a", "b", "c"))
    with Coordinator(repo) as coord:   # a sandbox that recorded itself finished with a commit outside its boundary
        wt = Path(coord.start_task("r1", "d", ["pkg/d/**"]).worktree)
        write(wt, {"pkg/a/other.py": "X = 1\n"})
        git(wt, "add", "-A")
        git(wt, "commit", "-qm", "outside")
        head = git(wt, "rev-parse", "HEAD")
        pin = git(repo, "rev-parse", "main")
        coord.store.update_task("r1", "d", state=TaskState.FINISHED, head=head, result={"run": "r1", "task": "d", "since": pin, "mergeable": head})
    diffs: list[tuple[str, str]] = []
    real = GitRepo.changes

    def counted(self: GitRepo, old: str, new: str):  # type: ignore[no-untyped-def]
        diffs.append((old, new))
        return real(self, old, new)

    monkeypatch.setattr(GitRepo, "changes", counted)
    with Coordinator(repo) as coord:
        report = coord.merge("r1")
    states = {row["task"]: row["state"] for row in report.tasks}
    assert states == {"a": "merged", "b": "merged", "c": "merged", "d": "rejected"}, report.tasks
    assert diffs == [], "each task's changes walked once, by the merge's checks"
    assert git(repo, "show", "wtc/r1/integration:pkg/c/mod.py") == "def c_f(x):\n    return x + 2"
    assert git(repo, "ls-tree", "--name-only", "wtc/r1/integration", "pkg/a/") == "pkg/a/mod.py\npkg/a/new.py"


def test_a_drain_of_tasks_without_workspace_packages_loads_no_graph_library(tmp_path):
    """A repository with no workspace root manifest has no packages to order by: the drain merges
    in finish order without importing consolidate/'s workspace reading or networkx (~0.8 s of
    CPU of a process's first drain)."""
    repo = make_repo(tmp_path / "repo", PY_FILES)
    _finished(repo, ("c", "a", "b"))
    probe = ("import sys\n"
             "from worktree_coord.coordinator import Coordinator\n"
             f"with Coordinator({str(repo)!r}) as coord:\n"
             "    report = coord.merge('r1')\n"
             "print([row['task'] for row in report.tasks], [row['state'] for row in report.tasks])\n"
             "print(sorted(m for m in ('networkx', 'worktree_coord.consolidate.graph') if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    order, loaded = done.stdout.splitlines()
    assert order == "['c', 'a', 'b'] ['merged', 'merged', 'merged']"
    assert loaded == "[]"


def _state() -> Path:
    from worktree_coord.config import user_state_dir

    return user_state_dir()


def test_a_drain_gives_its_merged_tasks_ports_back_under_one_taking_of_the_registry_lock(tmp_path, monkeypatch):
    """Each merged task's range goes back to the machine (its names unlinked), in one taking of the
    port registry's lock for the whole drain, not one a task; a live task's range stays held."""
    from worktree_coord import filelock

    repo = make_repo(tmp_path / "repo", PY_FILES)
    _finished(repo, ("a", "b", "c"))
    with Coordinator(repo) as coord:
        live = coord.start_task("r1", "d", ["pkg/d/**"])
        held = {row["task_id"]: range(row["data"]["prepared"]["ports"]["base"], row["data"]["prepared"]["ports"]["last"] + 1)
                for row in coord.store.task_contexts("r1")}
    assert all((_state() / "ports" / str(port)).exists() for ports in held.values() for port in ports)
    locks: list[str] = []
    real = filelock.exclusive

    def counted(path, **kwargs):  # type: ignore[no-untyped-def]
        locks.append(Path(path).name)
        return real(path, **kwargs)

    monkeypatch.setattr(filelock, "exclusive", counted)
    with Coordinator(repo) as coord:
        assert [row["state"] for row in coord.merge("r1").tasks] == ["merged"] * 3
    assert locks.count("ports.lock") == 1
    assert not any((_state() / "ports" / str(port)).exists() for task in "abc" for port in held[task])
    assert all((_state() / "ports" / str(port)).exists() for port in held["d"]), live


def test_a_release_keeps_a_name_in_the_range_that_links_another_lease(tmp_path):
    """A range's names are read by file, the others told by inode: a name in the holder's range that
    links another holder's lease file is not the holder's, and stays."""
    import json
    import os

    from worktree_coord.store.port_registry import release_many

    repo = make_repo(tmp_path / "repo", PY_FILES)
    with Coordinator(repo) as coord:
        coord.start_run("r1")
        ports = coord.start_task("r1", "a", ["pkg/a/**"]).prepared["ports"]
        store = os.path.realpath(coord.store.location)
    first, last = ports["base"], ports["last"]
    folder = _state() / "ports"
    other = json.loads((folder / str(first + 3)).read_bytes()) | {"task": "other", "token": "t-other"}
    (tmp_path / "other").write_text(json.dumps(other))
    os.unlink(folder / str(first + 3))
    os.link(tmp_path / "other", folder / str(first + 3))
    release_many(store, [("r1", "a", first, last)], timeout=5)
    assert sorted(os.listdir(folder)) == [str(first + 3)]


def test_a_drain_without_a_workspace_root_lists_no_tree_and_takes_one_heavy_place(tmp_path, monkeypatch):
    """The drain's order asks the pin for workspace packages: with no root manifest at the top
    (package.json, Cargo.toml, pyproject.toml) it lists no tree (a `git ls-tree -r` of every path
    of the pin: 20,000 lines at bench_merge's size). And its run of merges holds one place in the
    machine's heavy-work queue, not one a merge (three store writes each)."""
    from worktree_coord.store.sqlite import SQLiteStore

    repo = make_repo(tmp_path / "repo", PY_FILES)
    _finished(repo, ("c", "a", "b"))
    listed: list[str] = []
    tickets: list[str] = []
    real_paths, real_enqueue = GitRepo.tree_paths, SQLiteStore.enqueue

    def paths(self: GitRepo, sha: str, *args, **kwargs):  # type: ignore[no-untyped-def]
        listed.append(sha)
        return real_paths(self, sha, *args, **kwargs)

    def enqueue(self: SQLiteStore, kind: str, owner: str) -> int:
        tickets.append(kind)
        return real_enqueue(self, kind, owner)

    monkeypatch.setattr(GitRepo, "tree_paths", paths)
    monkeypatch.setattr(SQLiteStore, "enqueue", enqueue)
    with Coordinator(repo) as coord:
        report = coord.merge("r1")
        assert coord.store.queue_entries(tickets[0]) == [], "the place is given back"
    assert [(row["task"], row["state"]) for row in report.tasks] == [("c", "merged"), ("a", "merged"), ("b", "merged")]
    assert listed == []
    assert len(tickets) == 1 and tickets[0].startswith("heavy@")


def test_a_drain_with_a_workspace_root_still_orders_by_its_packages(tmp_path):
    """The root manifest looked up first does not lose the order: with npm workspaces, a task of a
    package another waiting task's package depends on merges first."""
    files = dict(PY_FILES)
    files["package.json"] = '{"name": "root", "private": true, "workspaces": ["pkg/*"]}\n'
    for name in ("a", "b", "c", "d"):
        deps = {"b": ', "dependencies": {"a": "*"}'}.get(name, "")
        files[f"pkg/{name}/package.json"] = f'{{"name": "{name}", "version": "1.0.0"{deps}}}\n'
    repo = make_repo(tmp_path / "repo", files)
    _finished(repo, ("b", "c", "a"))
    with Coordinator(repo) as coord:
        report = coord.merge("r1")
    order = [row["task"] for row in report.tasks]
    assert order.index("a") < order.index("b"), order
    assert {row["state"] for row in report.tasks} == {"merged"}


def test_a_drain_takes_its_waiting_tasks_leases_in_one_write_and_skips_one_held_elsewhere(tmp_path, monkeypatch):
    """The free leases of every waiting task are taken in one store write and given back in one
    (two writes for the drain, where each task's lease cost two); a task whose lease a live process
    holds is still asked for alone and reported in progress while the others merge."""
    from worktree_coord.store import leases
    from worktree_coord.store.sqlite import SQLiteStore

    repo = make_repo(tmp_path / "repo", PY_FILES)
    _finished(repo, ("a", "b", "c"))
    alone: list[str] = []
    real = SQLiteStore.acquire_lease

    def one(self: SQLiteStore, name: str, *args, **kwargs):  # type: ignore[no-untyped-def]
        alone.append(name)
        return real(self, name, *args, **kwargs)

    with Coordinator(repo) as coord:
        location = coord.store.location
    holder = subprocess.Popen([sys.executable, "-c", (   # b's lease held by a live process (its own finish)
        "import time\n"
        "from worktree_coord.store import leases, SQLiteStore\n"
        f"with leases.hold(SQLiteStore({location!r}), 'task:r1/b', timeout=5):\n"
        "    print('held', flush=True)\n"
        "    time.sleep(60)\n")], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        monkeypatch.setattr(SQLiteStore, "acquire_lease", one)
        with Coordinator(repo) as coord:
            report = coord.merge("r1")
            left = {lease.name for lease in coord.store.list_leases()}
    finally:
        holder.kill()
        holder.wait()
    assert {row["task"]: row["state"] for row in report.tasks} == {"a": "merged", "b": "in_progress", "c": "merged"}
    assert alone == [leases.task_lease("r1", "b")]
    assert left == {leases.task_lease("r1", "b")}, "the drain gave back what it took, and only that"


def test_a_drain_reads_the_tasks_it_holds_again_in_one_query_and_skips_one_abandoned_before_its_leases(
        tmp_path, monkeypatch):
    """Once the drain holds its tasks' leases, their records are read again in one query (a task's
    record changes only under its lease), not one read a task; a task abandoned between the drain's
    list and its leases is read alone, found abandoned and reported so, not merged."""
    from worktree_coord.store import leases
    from worktree_coord.store.sqlite import SQLiteStore

    repo = make_repo(tmp_path / "repo", PY_FILES)
    _finished(repo, ("a", "b", "c"))
    reads: list[str] = []
    real_get, real_hold_free = SQLiteStore.get_task, leases.hold_free

    def get_task(self: SQLiteStore, run_id: str, task_id: str):  # type: ignore[no-untyped-def]
        reads.append(task_id)
        return real_get(self, run_id, task_id)

    def abandon_then_hold(store, names, *args, **kwargs):  # type: ignore[no-untyped-def]
        with Coordinator(repo) as other:   # another process's abandon, before the drain takes b's lease
            other.abandon_task("r1", "b")
        reads.clear()
        return real_hold_free(store, names, *args, **kwargs)

    monkeypatch.setattr(SQLiteStore, "get_task", get_task)
    monkeypatch.setattr(leases, "hold_free", abandon_then_hold)
    with Coordinator(repo) as coord:
        reads.clear()
        report = coord.merge("r1")
    assert {row["task"]: row["state"] for row in report.tasks} == {"a": "merged", "b": "abandoned", "c": "merged"}
    assert reads == ["b"], "only the task the one read did not find finished is read alone"
