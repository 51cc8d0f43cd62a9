"""Runs across machines: the integration branch on a git remote served by a real `git daemon` on
loopback, clones standing for machines (own folders and HOMEs), one shared store (SQLite at one path
where one host suffices, the session's real PostgreSQL where the store must be a server)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import git, make_repo
from tests.remote.remote_helpers import cleanup, machine, remote_tip, serve
from worktree_coord.model import TaskState

INTEGRATION = "refs/heads/wtc/r1/integration"


@pytest.fixture
def served(tmp_path):
    daemon, url = serve(tmp_path, make_repo(tmp_path / "source"))
    yield daemon, url, daemon.root / "repo.git"
    cleanup(daemon)


@pytest.fixture
def three(tmp_path, served):
    """Three machines on one remote and one SQLite store at a shared path."""
    daemon, url, bare = served
    store = f"sqlite:{tmp_path / 'shared' / 'state.sqlite3'}"
    (tmp_path / "shared").mkdir()
    return [machine(tmp_path, name, url, store) for name in ("m1", "m2", "m3")], daemon, bare


def _edit(body: dict, rel: str, text: str) -> None:
    path = Path(body["worktree"]) / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_a_run_spans_three_clones_and_lands_on_the_remote(three):
    (m1, m2, m3), _, bare = three
    pin = m1.git("rev-parse", "HEAD")
    code, started = m1.wtc("run", "start", "--run", "r1", "--remote", "origin")
    assert code == 0 and started["remote"] == "origin", started
    assert remote_tip(bare, INTEGRATION) == pin, "the integration branch lives on the remote"
    work = {m1: ("api", "packages/api/index.js"), m2: ("web", "packages/web/index.js"), m3: ("core", "packages/core/lib.py")}
    for node, (task, rel) in work.items():
        code, body = node.wtc("task", "start", task, "--run", "r1", "--own", str(Path(rel).parent) + "/**")
        assert code == 0, body
        _edit(body, rel, f"# changed by {task} on {node.name}\n" if rel.endswith(".py")
              else f"// changed by {task} on {node.name}\n")   # each parses: land refuses a file that does not
    for node, (task, _) in work.items():
        code, body = node.wtc("task", "finish", task, "--run", "r1")
        assert code == 0 and body["state"] == "merged", body
    tip = remote_tip(bare, INTEGRATION)
    for task, rel in work.values():
        assert f"changed by {task}" in git(bare, "show", f"{tip}:{rel}")
        assert remote_tip(bare, f"refs/heads/wtc/r1/{task}") is not None, "each task branch was pushed"
    assert git(bare, "rev-list", "--count", "--merges", f"{pin}..{tip}") == "3"
    # Any machine reads the run as the remote holds it, and lands it there.
    code, report = m2.wtc("report", "--run", "r1", "--onto", "main")
    assert code == 0 and report["tip"] == tip if "tip" in report else code == 0, report
    code, landed = m3.wtc("land", "--run", "r1", "--onto", "main", "--yes")
    assert code == 0 and landed["new"] == tip, landed
    assert remote_tip(bare, "refs/heads/main") == tip


def test_a_conflict_between_machines_is_reported_and_resolved_from_the_other_machine(three):
    (m1, m2, _), _, bare = three
    m1.wtc("run", "start", "--run", "r1", "--remote", "origin")
    code, one = m1.wtc("task", "start", "a", "--run", "r1", "--own", "docs/**")
    code, two = m2.wtc("task", "start", "b", "--run", "r1", "--own", "docs/**")
    _edit(one, "docs/guide.md", "guide by a\n")
    _edit(two, "docs/guide.md", "guide by b\n")
    assert m1.wtc("task", "finish", "a", "--run", "r1")[1]["state"] == "merged"
    code, body = m2.wtc("task", "finish", "b", "--run", "r1")
    assert code == 1 and body["state"] == "conflict" and body["conflicts"][0]["path"] == "docs/guide.md", body
    code, updated = m2.wtc("task", "update", "b", "--run", "r1")
    assert code == 1 and updated["conflicted_paths"] == ["docs/guide.md"], updated
    Path(updated["worktree"], "docs/guide.md").write_text("guide by a and b\n")
    code, body = m2.wtc("task", "finish", "b", "--run", "r1")
    assert code == 0 and body["state"] == "merged", body
    assert git(bare, "show", f"{INTEGRATION}:docs/guide.md") == "guide by a and b"


def test_the_remote_is_named_and_checked(three):
    (m1, _, _), _, bare = three
    code, body = m1.wtc("run", "start", "--run", "r1", "--remote", "upstream")
    assert code == 2 and "no git remote 'upstream'" in body["error"]["message"] and "origin" in body["error"]["message"]
    assert remote_tip(bare, INTEGRATION) is None
    assert m1.wtc("run", "start", "--run", "r1", "--remote", "origin")[0] == 0
    code, body = m1.wtc("run", "start", "--run", "r1")
    assert code == 2, body


def test_a_lost_push_race_ends_merged(three):
    """Machine 1 builds its merge on the tip it fetched; machine 2 moves the remote first; machine 1's
    push with a lease is refused, it fetches, merges again onto the new tip, and ends merged."""
    (m1, m2, _), _, bare = three
    from worktree_coord.coordinator import Coordinator
    from worktree_coord.coordinator import merge_queue as queue

    m1.wtc("run", "start", "--run", "r1", "--remote", "origin")
    code, a = m1.wtc("task", "start", "a", "--run", "r1", "--own", "packages/api/**")
    _edit(a, "packages/api/index.js", "a\n")
    assert m1.wtc("task", "finish", "a", "--run", "r1", "--no-merge")[1]["state"] == "finished"
    with _environment(m1.env):
        coordinator = Coordinator(m1.repo)
        run = coordinator._run("r1")
        coordinator._sync_integration(run)   # machine 1 reads the tip now ...
        seen = m1.git("rev-parse", INTEGRATION)
        code, b = m2.wtc("task", "start", "b", "--run", "r1", "--own", "packages/web/**")
        _edit(b, "packages/web/index.js", "b\n")
        assert m2.wtc("task", "finish", "b", "--run", "r1")[1]["state"] == "merged"   # ... machine 2 moves it
        moved = remote_tip(bare, INTEGRATION)
        assert moved != seen
        task = coordinator._task("r1", "a")
        outcome = coordinator._integrator().merge_into(
            INTEGRATION, task.result["mergeable"], run.base, message="wtc: merge task a into run r1",
            author=queue.signature(), publish=coordinator._publisher(run))
        coordinator.close()
    assert outcome.state.value == "merged" and outcome.attempts == 2, outcome
    tip = remote_tip(bare, INTEGRATION)
    assert tip == outcome.new_tip and git(bare, "rev-parse", f"{tip}^1") == moved, "built on machine 2's merge"
    assert git(bare, "show", f"{tip}:packages/web/index.js") == "b" and git(bare, "show", f"{tip}:packages/api/index.js") == "a"


def test_racing_finishes_from_three_machines_all_merge_once(three):
    (m1, m2, m3), _, bare = three
    m1.wtc("run", "start", "--run", "r1", "--remote", "origin")
    tasks = []
    for number, node in enumerate([m1, m2, m3] * 2):
        name = f"t{number}"
        code, body = node.wtc("task", "start", name, "--run", "r1", "--own", f"new/{name}/**")
        _edit(body, f"new/{name}/file.txt", f"{name}\n")
        tasks.append((node, name))
    running = [subprocess.Popen([sys.executable, "-m", "worktree_coord", "task", "finish", name, "--run", "r1", "--json"],
                                cwd=node.repo, env=_full(node.env), stdout=subprocess.PIPE, text=True)
               for node, name in tasks]
    outputs = [p.communicate(timeout=300)[0] for p in running]
    assert [p.returncode for p in running] == [0] * len(running), [o for o, p in zip(outputs, running) if p.returncode]
    tip = remote_tip(bare, INTEGRATION)
    log = git(bare, "log", "--format=%s", "--first-parent", tip)
    for _, name in tasks:
        assert log.count(f"merge task {name} into") == 1
        assert git(bare, "show", f"{tip}:new/{name}/file.txt") == name


def test_a_remote_outage_exits_4_and_the_same_command_finishes_after(three):
    (m1, _, _), daemon, bare = three
    m1.wtc("run", "start", "--run", "r1", "--remote", "origin")
    code, a = m1.wtc("task", "start", "a", "--run", "r1", "--own", "packages/api/**")
    _edit(a, "packages/api/index.js", "a\n")
    daemon.stop()
    code, failed = m1.wtc("task", "finish", "a", "--run", "r1")
    assert code == 4, failed
    assert failed["error"]["kind"] == "remote_unavailable" and failed["error"]["details"]["retry_after_seconds"] > 0
    daemon.start()
    code, done = m1.wtc("task", "finish", "a", "--run", "r1")
    assert code == 0 and done["state"] == "merged", done
    assert git(bare, "show", f"{INTEGRATION}:packages/api/index.js") == "a"


def test_a_merge_pushed_but_not_recorded_is_recognised_from_another_machine(three):
    """Killed right after its push moved the remote's integration ref: the store still says finished.
    Another machine's drain finds the task in the remote's history and records it merged, once."""
    (m1, m2, _), _, bare = three
    m1.wtc("run", "start", "--run", "r1", "--remote", "origin")
    code, a = m1.wtc("task", "start", "a", "--run", "r1", "--own", "packages/api/**")
    _edit(a, "packages/api/index.js", "a\n")
    done = subprocess.run([sys.executable, "-m", "worktree_coord", "task", "finish", "a", "--run", "r1", "--json"],
                          cwd=m1.repo, env=_full(m1.env | {"WTC_CRASH_AT": "merge.after_ref_moved"}), capture_output=True)
    assert done.returncode == -9
    moved = remote_tip(bare, INTEGRATION)
    code, report = m2.wtc("merge", "--run", "r1")
    assert code == 0 and report["tasks"][0]["state"] == "merged", report
    assert remote_tip(bare, INTEGRATION) == moved, "not merged a second time"
    code, status = m2.wtc("status", "--run", "r1")
    assert [t["state"] for t in status["tasks"]] == ["merged"], status


def test_a_finish_killed_after_its_push_resumes_from_another_machine(three):
    (m1, m2, _), _, bare = three
    m1.wtc("run", "start", "--run", "r1", "--remote", "origin")
    code, a = m1.wtc("task", "start", "a", "--run", "r1", "--own", "packages/api/**")
    _edit(a, "packages/api/index.js", "a\n")
    done = subprocess.run([sys.executable, "-m", "worktree_coord", "task", "finish", "a", "--run", "r1", "--json"],
                          cwd=m1.repo, env=_full(m1.env | {"WTC_CRASH_AT": "finish.after_push"}), capture_output=True)
    assert done.returncode == -9
    code, body = m2.wtc("task", "finish", "a", "--run", "r1", WTC_DEBUG="1")
    assert code == 0 and body["state"] == "merged", body
    assert git(bare, "show", f"{INTEGRATION}:packages/api/index.js") == "a"


def test_the_merging_machine_checks_the_boundary_again_from_the_commits(three):
    """A sandbox that skips its own check (it records itself finished with a commit outside its
    boundary) gains nothing: whoever merges checks the commits and rejects them."""
    (m1, m2, _), _, bare = three
    from worktree_coord.store.address import open_store, resolve

    m1.wtc("run", "start", "--run", "r1", "--remote", "origin")
    code, a = m1.wtc("task", "start", "a", "--run", "r1", "--own", "packages/api/**")
    _edit(a, "packages/web/index.js", "not mine\n")
    git(Path(a["worktree"]), "commit", "-qam", "outside")
    tip = git(Path(a["worktree"]), "rev-parse", "HEAD")
    m1.git("push", "-q", "origin", f"{tip}:refs/heads/wtc/r1/a")
    store = open_store(resolve(None, None, Path(m1.env["WTC_STORE"][len("sqlite:"):])))
    pin = m1.git("rev-parse", "main")
    store.update_task("r1", "a", state=TaskState.FINISHED, head=tip, result={"since": pin, "mergeable": tip})
    store.close()
    code, report = m2.wtc("merge", "--run", "r1")
    assert report["tasks"][0]["state"] == "rejected", report
    assert remote_tip(bare, INTEGRATION) == pin


def test_a_partial_clone_starts_a_sparse_task_and_merges(tmp_path, served):
    _, url, bare = served
    store = f"sqlite:{tmp_path / 'state.sqlite3'}"
    full, thin = machine(tmp_path, "full", url, store), machine(tmp_path, "thin", url, store, partial=True)
    full.wtc("run", "start", "--run", "r1", "--remote", "origin")
    code, other = full.wtc("task", "start", "docs", "--run", "r1", "--own", "docs/**")
    _edit(other, "docs/guide.md", "new guide\n")
    assert full.wtc("task", "finish", "docs", "--run", "r1")[0] == 0
    code, body = thin.wtc("task", "start", "api", "--run", "r1", "--own", "packages/api/**", "--sparse")
    assert code == 0 and body["sparse_cone"] == ["packages/api"], body
    worktree = Path(body["worktree"])
    assert (worktree / "packages/api/index.js").is_file() and not (worktree / "packages/web").exists()
    missing = git(thin.repo, "rev-list", "--objects", "--missing=print", "--all")
    assert "?" in missing, "the partial clone did not fetch every blob"
    (worktree / "packages/api/index.js").write_text("thin\n")
    code, done = thin.wtc("task", "finish", "api", "--run", "r1")
    assert code == 0 and done["state"] == "merged", done
    tip = remote_tip(bare, INTEGRATION)
    assert git(bare, "show", f"{tip}:packages/api/index.js") == "thin" and git(bare, "show", f"{tip}:docs/guide.md") == "new guide"


def test_a_run_across_clones_on_the_postgresql_store_survives_a_store_outage(tmp_path, served):
    from tests.pg_server import running_server

    _, url, bare = served
    with running_server() as server:
        store = server.url(server.create_database())
        m1, m2 = machine(tmp_path, "m1", url, store), machine(tmp_path, "m2", url, store)
        assert m1.wtc("run", "start", "--run", "r1", "--remote", "origin")[0] == 0
        code, a = m1.wtc("task", "start", "a", "--run", "r1", "--own", "packages/api/**")
        code, b = m2.wtc("task", "start", "b", "--run", "r1", "--own", "packages/web/**")
        _edit(a, "packages/api/index.js", "a\n")
        _edit(b, "packages/web/index.js", "b\n")
        assert m1.wtc("task", "finish", "a", "--run", "r1")[1]["state"] == "merged"
        server.stop()
        code, failed = m2.wtc("task", "finish", "b", "--run", "r1")
        assert code == 4 and failed["error"]["kind"] == "store_unavailable", failed
        assert server.password not in str(failed)
        server.start()
        code, done = m2.wtc("task", "finish", "b", "--run", "r1")
        assert code == 0 and done["state"] == "merged", done
    tip = remote_tip(bare, INTEGRATION)
    assert git(bare, "rev-list", "--count", "--merges", f"main..{tip}") == "2"


def _full(env: dict[str, str]) -> dict[str, str]:
    import os

    return dict(os.environ) | env


class _environment:
    """os.environ with `env` applied for an in-process Coordinator (restored after)."""

    def __init__(self, env: dict[str, str]):
        self.env = env

    def __enter__(self) -> None:
        import os

        self.saved = {k: os.environ.get(k) for k in self.env}
        os.environ.update(self.env)

    def __exit__(self, *exc: object) -> None:
        import os

        for key, value in self.saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def test_a_clone_without_the_pin_fetches_it(three):
    """Machine 1 pins a commit it just pushed; machine 2 cloned before and lacks it: its task start
    fetches the pin by id, and its finish merges onto the remote."""
    (m1, m2, _), _, bare = three
    (m1.repo / "docs" / "new.md").write_text("new\n")
    m1.git("add", "-A")
    m1.git("commit", "-qm", "a commit machine 2 has not seen")
    m1.git("push", "-q", "origin", "main")
    pin = m1.git("rev-parse", "HEAD")
    assert m1.wtc("run", "start", "--run", "r1", "--remote", "origin")[0] == 0
    assert subprocess.run(["git", "cat-file", "-e", pin], cwd=m2.repo).returncode != 0
    code, body = m2.wtc("task", "start", "a", "--run", "r1", "--own", "docs/**")
    assert code == 0 and (Path(body["worktree"]) / "docs" / "new.md").is_file(), body
    _edit(body, "docs/guide.md", "a\n")
    assert remote_tip(bare, INTEGRATION) == pin
    code, done = m2.wtc("task", "finish", "a", "--run", "r1")
    assert code == 0 and done["state"] == "merged", done
    assert remote_tip(bare, INTEGRATION) == done["merge"]["new_tip"]


def test_a_clone_behind_the_remote_pins_what_was_asked_and_says_the_remote_is_ahead(three):
    # Issue 35: `run start --remote origin` in a clone whose main is behind origin's pinned the stale
    # HEAD without a word. It still pins what was asked, and says by how much and how to pin that.
    (m1, m2, _), _, bare = three
    stale = m1.git("rev-parse", "HEAD")
    for n in (1, 2):
        m2.git("commit", "-q", "--allow-empty", "-m", f"newer {n}")
    m2.git("push", "-q", "origin", "main")
    code, started = m1.wtc("run", "start", "--run", "r1", "--remote", "origin")
    assert code == 0 and started["base"] == stale, started
    [note] = [n for n in started["notes"] if "ahead" in n]
    assert "origin's main is 2 commit(s) ahead of the pinned main" in note, note
    assert "--base origin/main" in note
    code, newer = m1.wtc("run", "start", "--run", "r2", "--remote", "origin", "--base", "origin/main")
    assert code == 0 and newer["base"] == remote_tip(bare, "refs/heads/main")
    assert not [n for n in newer["notes"] if "ahead" in n]
    code, current = m2.wtc("run", "start", "--run", "r3", "--remote", "origin")
    assert code == 0 and not [n for n in current["notes"] if "ahead" in n], current["notes"]
