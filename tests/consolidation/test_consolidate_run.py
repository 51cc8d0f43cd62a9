"""Consolidation through the coordinator: intents derived at finish, applied once on integration with
a real npm relock (offline, workspace-internal edges only), one commit per root, idempotent."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import git, make_repo, write
from worktree_coord.coordinator import Coordinator

NPM_ENV = {"npm_config_cache": "", "npm_config_update_notifier": "false", "npm_config_audit": "false",
           "npm_config_fund": "false"}


def pkg(name: str, deps: dict | None = None) -> str:
    body = {"name": name, "version": "1.0.0"}
    if deps:
        body["dependencies"] = deps
    return json.dumps(body, indent=2) + "\n"


@pytest.fixture
def npm_repo(tmp_path, monkeypatch) -> Path:
    cache = tmp_path / "npm-cache"
    monkeypatch.setenv("npm_config_cache", str(cache))
    for k, v in NPM_ENV.items():
        if v:
            monkeypatch.setenv(k, v)
    repo = make_repo(tmp_path / "repo", {
        "package.json": json.dumps({"name": "root", "private": True, "workspaces": ["packages/*"]}, indent=2) + "\n",
        "packages/a/package.json": pkg("a"),
        "packages/a/index.js": "module.exports = 'a';\n",
        "packages/b/package.json": pkg("b"),
        "packages/b/index.js": "module.exports = 'b';\n",
    })
    subprocess.run(["npm", "install", "--package-lock-only", "--offline", "--ignore-scripts"], cwd=repo, check=True,
                   capture_output=True)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "lockfile")
    return repo


def test_new_member_and_dependency_on_it_consolidate_into_one_lock_commit(npm_repo):
    repo = npm_repo
    with Coordinator(repo) as coord:
        coord.start_run("r1")
        # task c adds a new workspace member; task b depends on it (both only member manifests)
        wt_c = Path(coord.start_task("r1", "c", ["packages/c/**"]).worktree)
        write(wt_c, {"packages/c/package.json": pkg("c"), "packages/c/index.js": "module.exports = 'c';\n"})
        wt_b = Path(coord.start_task("r1", "b", ["packages/b/**"]).worktree)
        write(wt_b, {"packages/b/package.json": pkg("b", {"c": "1.0.0"})})
        finished_b = coord.finish_task("r1", "b")
        finished_c = coord.finish_task("r1", "c")
        assert finished_b.state == finished_c.state == "merged"
        assert [i["op"] for i in finished_b.intents] == ["relock"]
        status = coord.status("r1")
        assert status.intents == {"pending": 1} or status.intents == {"pending": 2}
        before = git(repo, "rev-parse", "wtc/r1/integration")
        report = coord.consolidate("r1")
        assert report.exit_code == 0, report.roots
        [root] = report.roots
        assert root["state"] == "applied" and root["files_changed"] == ["package-lock.json"]
        assert git(repo, "rev-parse", "wtc/r1/integration^") == before, "one commit on top of integration"
        lock = json.loads(git(repo, "show", "wtc/r1/integration:package-lock.json"))
        assert lock["packages"]["packages/b"]["dependencies"] == {"c": "1.0.0"}
        assert "packages/c" in lock["packages"]
        assert {r["state"] for r in coord.store.list_intents("r1")} <= {"applied", "satisfied"}
        again = coord.consolidate("r1")
        assert again.roots == [] and git(repo, "rev-parse", "wtc/r1/integration") == report.tip
        # `--online` after an offline run is a new request (its own default key), not exit 2.
        online = coord.consolidate("r1", offline=False)
        assert online.offline is False and online.roots == [] and not online.replayed


def test_root_manifest_edit_becomes_an_intent_and_a_registry_miss_needs_network(npm_repo):
    repo = npm_repo
    with Coordinator(repo) as coord:
        coord.start_run("r1")
        wt = Path(coord.start_task("r1", "t", ["packages/a/**"]).worktree)
        root_manifest = json.loads((wt / "package.json").read_text())
        root_manifest["devDependencies"] = {"left-pad-not-cached": "^1.3.0"}
        write(wt, {"package.json": json.dumps(root_manifest, indent=2) + "\n", "packages/a/index.js": "x\n"})
        done = coord.finish_task("r1", "t")
        assert done.state == "merged"
        assert [(i["op"], i["name"]) for i in done.intents] == [("add_dep", "left-pad-not-cached")]
        lock_before = git(repo, "show", "wtc/r1/integration:package-lock.json")
        tip = git(repo, "rev-parse", "wtc/r1/integration")
        report = coord.consolidate("r1")
        assert report.roots[0]["state"] == "needs_network" and report.exit_code == 1
        assert git(repo, "rev-parse", "wtc/r1/integration") == tip, "nothing committed"
        assert git(repo, "show", "wtc/r1/integration:package-lock.json") == lock_before
        assert [r["state"] for r in coord.store.list_intents("r1")] == ["needs_network"]
        [skipped] = report.skipped       # one sentence, not the same words twice
        assert skipped["why"].startswith("the offline relock: `npm install") and skipped["why"].count("not cached") == 1
        # The report says the tool's reason once (its intent line), and the warning what landing leaves out.
        from worktree_coord.output.render import run_report

        text = run_report(coord.report("r1"))
        assert text.count("needs packages that are not cached") == 1, text
        assert "landing leaves it out. Fix: wtc consolidate --run r1 --online --retry-failed" in text


def test_root_manifest_settings_land_key_by_key_and_one_key_set_twice_is_a_conflict(npm_repo):
    repo = npm_repo
    with Coordinator(repo) as coord:
        coord.start_run("r1")
        for task, scripts in (("t", {"test": "node --test"}), ("u", {"lint": "eslint ."}),
                              ("v", {"test": "vitest"})):
            wt = Path(coord.start_task("r1", task, [f"packages/{task}/**"]).worktree)
            root_manifest = json.loads((wt / "package.json").read_text())
            root_manifest["scripts"] = scripts
            write(wt, {"package.json": json.dumps(root_manifest, indent=2) + "\n"})
            done = coord.finish_task("r1", task)
            assert done.state == "merged", done.violations
            assert [(i["op"], i["name"]) for i in done.intents] == [("set_key", f"scripts.{next(iter(scripts))}")]
        report = coord.consolidate("r1")
        # "scripts" is absent at the base: each task's key is still its own, so t's and u's land (the
        # object created on the way) and v's value for the key t set is a conflict naming both.
        assert report.exit_code == 1
        landed = json.loads(git(repo, "show", "wtc/r1/integration:package.json"))
        assert landed["scripts"] == {"lint": "eslint ."}, "neither value of the contested key is chosen"
        [conflict] = report.roots[0]["conflicts"]
        assert conflict["kind"] == "different_values" and conflict["tasks"] == ["t", "v"]
        assert 'scripts.test in package.json: task t wants "node --test", task v wants "vitest"' in conflict["message"]
        states = sorted((r["intent_id"].split(":")[0], r["state"]) for r in coord.store.list_intents("r1"))
        assert ("u", "applied") in states and ("t", "conflict") in states and ("v", "conflict") in states, states

    # With the object at the base, each task's key is its own: two land, one key set twice conflicts.
    root_manifest = json.loads((repo / "package.json").read_text())
    root_manifest["scripts"] = {"build": "tsc"}
    write(repo, {"package.json": json.dumps(root_manifest, indent=2) + "\n"})
    git(repo, "commit", "-qam", "scripts")
    with Coordinator(repo) as coord:
        coord.start_run("r2")
        for task, script in (("t", ("test", "node --test")), ("u", ("lint", "eslint .")), ("v", ("test", "vitest"))):
            wt = Path(coord.start_task("r2", task, [f"packages/{task}/**"]).worktree)
            root_manifest = json.loads((wt / "package.json").read_text())
            root_manifest["scripts"][script[0]] = script[1]
            write(wt, {"package.json": json.dumps(root_manifest, indent=2) + "\n"})
            assert coord.finish_task("r2", task).state == "merged"
        report = coord.consolidate("r2")
        assert report.exit_code == 1
        landed = json.loads(git(repo, "show", "wtc/r2/integration:package.json"))
        assert landed["scripts"] == {"build": "tsc", "lint": "eslint ."}
        [conflict] = report.roots[0]["conflicts"]
        assert conflict["kind"] == "different_values" and conflict["tasks"] == ["t", "v"]
        assert 'scripts.test in package.json: task t wants "node --test", task v wants "vitest"' in conflict["message"]


def test_a_root_script_lands_while_the_dependency_beside_it_waits_for_the_network(npm_repo):
    repo = npm_repo
    with Coordinator(repo) as coord:
        coord.start_run("r1")
        wt = Path(coord.start_task("r1", "t", ["packages/a/**"]).worktree)
        root_manifest = json.loads((wt / "package.json").read_text())
        root_manifest["devDependencies"] = {"left-pad-not-cached": "^1.3.0"}
        root_manifest["scripts"] = {"test": "node --test"}
        write(wt, {"package.json": json.dumps(root_manifest, indent=2) + "\n"})
        assert coord.finish_task("r1", "t").state == "merged"
        lock_before = git(repo, "show", "wtc/r1/integration:package-lock.json")
        report = coord.consolidate("r1")
        assert report.exit_code == 1
        assert [(r["state"], r.get("intent_ids")) for r in report.roots] == [
            ("applied", ["t:package.json:set_key:settings:scripts.test"]),
            ("needs_network", ["t:package.json:add_dep:devDependencies:left-pad-not-cached"])]
        landed = json.loads(git(repo, "show", "wtc/r1/integration:package.json"))
        assert landed["scripts"] == {"test": "node --test"} and "devDependencies" not in landed
        assert git(repo, "show", "wtc/r1/integration:package-lock.json") == lock_before
        states = {r["intent_id"]: r["state"] for r in coord.store.list_intents("r1")}
        assert states == {"t:package.json:set_key:settings:scripts.test": "applied",
                          "t:package.json:add_dep:devDependencies:left-pad-not-cached": "needs_network"}
        [skipped] = report.skipped
        assert skipped["intent"].endswith("left-pad-not-cached") and "--online" in skipped["fix"]


def test_declared_intent_is_consolidated(npm_repo):
    repo = npm_repo
    with Coordinator(repo) as coord:
        coord.start_run("r1")
        wt = Path(coord.start_task("r1", "t", ["packages/a/**"]).worktree)
        write(wt, {"packages/a/index.js": "uses b\n"})
        intent = coord.add_intent("r1", "t", manifest="packages/a/package.json", op="add_dep", name="b", spec="1.0.0")
        assert intent["name"] == "b"
        assert coord.finish_task("r1", "t").state == "merged"
        report = coord.consolidate("r1")
        assert report.exit_code == 0, report.roots
        manifest = json.loads(git(repo, "show", "wtc/r1/integration:packages/a/package.json"))
        assert manifest["dependencies"] == {"b": "1.0.0"}


def test_killed_between_roots_then_rerun_commits_each_root_once(tmp_path, monkeypatch):
    import sys

    monkeypatch.setenv("npm_config_cache", str(tmp_path / "npm-cache"))
    repo = make_repo(tmp_path / "repo", {
        "package.json": json.dumps({"name": "root", "private": True, "workspaces": ["packages/*"]}, indent=2) + "\n",
        "packages/a/package.json": pkg("a"),
        "sub/package.json": json.dumps({"name": "sub", "private": True, "workspaces": ["libs/*"]}, indent=2) + "\n",
        "sub/libs/x/package.json": pkg("x"),
    })
    for where in (repo, repo / "sub"):
        subprocess.run(["npm", "install", "--package-lock-only", "--offline", "--ignore-scripts"], cwd=where,
                       check=True, capture_output=True)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "two npm roots")
    with Coordinator(repo) as coord:
        coord.start_run("r1")
        for task, files in (("one", {"packages/b/package.json": pkg("b")}),
                            ("two", {"sub/libs/y/package.json": pkg("y")})):
            own = ["packages/b/**"] if task == "one" else ["sub/libs/y/**"]
            wt = Path(coord.start_task("r1", task, own).worktree)
            write(wt, files)
            assert coord.finish_task("r1", task).state == "merged"
    before = git(repo, "rev-parse", "wtc/r1/integration")
    killed = subprocess.run([sys.executable, "-m", "worktree_coord", "consolidate", "--run", "r1", "--json"], cwd=repo,
                            env=dict(os.environ, WTC_CRASH_AT="consolidate.after_root_commit"), capture_output=True)
    assert killed.returncode == -9
    assert git(repo, "rev-list", "--count", f"{before}..wtc/r1/integration") == "1", "the first root committed"
    with Coordinator(repo) as coord:
        rerun = coord.consolidate("r1")
        assert rerun.exit_code == 0, rerun.roots
        assert git(repo, "rev-list", "--count", f"{before}..wtc/r1/integration") == "2", "each root exactly once"
        lock_root = json.loads(git(repo, "show", "wtc/r1/integration:package-lock.json"))
        lock_sub = json.loads(git(repo, "show", "wtc/r1/integration:sub/package-lock.json"))
        assert "packages/b" in lock_root["packages"] and "libs/y" in lock_sub["packages"]
        assert {r["state"] for r in coord.store.list_intents("r1")} <= {"applied", "satisfied"}
        assert coord.consolidate("r1").roots == []


def test_a_merge_that_moves_member_manifests_under_a_consolidation_restarts_it_on_the_new_tip(npm_repo, tmp_path):
    """The race: consolidation relocks from tip T0 while a task's merge changes a member manifest
    (T1). Putting the T0 lockfile on top of T1 would commit a stale lock and call the second task's
    relock request satisfied; the consolidation must start again from T1 instead."""
    import contextlib

    from worktree_coord.coordinator.consolidation_phase import consolidate_run

    repo = npm_repo
    with Coordinator(repo) as coord:
        coord.start_run("r1")
        wt_b = Path(coord.start_task("r1", "b", ["packages/b/**"]).worktree)
        write(wt_b, {"packages/b/package.json": pkg("b", {"a": "1.0.0"})})
        assert coord.finish_task("r1", "b").state == "merged"
        t0 = git(repo, "rev-parse", "wtc/r1/integration")
        wt_a = Path(coord.start_task("r1", "a", ["packages/a/**"]).worktree)
        write(wt_a, {"packages/a/package.json": pkg("a", {"b": "1.0.0"})})
        assert coord.finish_task("r1", "a").state == "merged"
        t1 = git(repo, "rev-parse", "wtc/r1/integration")
        assert t1 != t0

        report = consolidate_run(coord.git, coord.store, coord._run("r1"), offline=True,
                                 scratch_root=tmp_path / "scratch", configs={}, heavy=contextlib.nullcontext,
                                 integration_tip=t0)      # as if it had started before task a merged
        assert report.exit_code == 0, report.roots
        tip = git(repo, "rev-parse", "wtc/r1/integration")
        assert git(repo, "rev-parse", f"{tip}^") == t1, "the lock commit sits on top of task a's merge"
        lock = json.loads(git(repo, "show", f"{tip}:package-lock.json"))
        assert lock["packages"]["packages/b"]["dependencies"] == {"a": "1.0.0"}
        assert lock["packages"]["packages/a"]["dependencies"] == {"b": "1.0.0"}, "the lock saw task a's manifest"
        assert json.loads(git(repo, "show", f"{tip}:packages/a/package.json"))["dependencies"] == {"b": "1.0.0"}
        assert {r["state"] for r in coord.store.list_intents("r1")} <= {"applied", "satisfied"}


def test_abandoning_a_task_drops_its_intents_so_they_never_hold_up_landing(npm_repo):
    repo = npm_repo
    with Coordinator(repo) as coord:
        coord.start_run("r1")
        wt = Path(coord.start_task("r1", "kept", ["packages/a/**"]).worktree)
        write(wt, {"packages/a/index.js": "kept\n"})
        coord.start_task("r1", "gone", ["packages/b/**"])
        gone = coord.add_intent("r1", "gone", manifest="packages/b/package.json", op="add_dep", name="a", spec="1.0.0")
        assert coord.finish_task("r1", "kept").state == "merged"
        abandoned = coord.abandon_task("r1", "gone")
        assert abandoned.dropped_intents == [gone["intent_id"]]
        assert any("dropped" in note for note in abandoned.notes)
        row = {i["intent"]: i for i in coord.intents("r1")}[gone["intent_id"]]
        assert row["state"] == "dropped" and "abandoned" in row["detail"]["reason"]   # kept, with why
        report = coord.report("r1")
        assert report.intents_pending == [] and report.leftovers["intents"] == {}
        assert coord.consolidate("r1").exit_code == 0                        # nothing skipped
        replay = coord.abandon_task("r1", "gone")                           # a repeat changes nothing
        assert replay.replayed and replay.dropped_intents == [gone["intent_id"]]


def test_an_unreachable_registry_online_is_needs_network_never_a_broken_base(npm_repo, monkeypatch):
    """--online with a registry nobody answers at: the run says the network failed (needs_network,
    kind unreachable, one readable line), keeps the intent for a retry, and neither blames the base
    nor bisects the intents for a culprit."""
    import socket

    with socket.socket() as probe:                 # a loopback port nothing listens on: refused at once
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("npm_config_registry", f"http://127.0.0.1:{port}/")
    monkeypatch.setenv("npm_config_fetch_retries", "0")
    repo = npm_repo
    with Coordinator(repo) as coord:
        coord.start_run("r1")
        wt = Path(coord.start_task("r1", "t", ["packages/a/**"]).worktree)
        write(wt, {"packages/a/index.js": "uses left-pad\n"})
        intent = coord.add_intent("r1", "t", manifest="packages/a/package.json", op="add_dep", name="left-pad",
                                  spec="^1.3.0")
        assert coord.finish_task("r1", "t").state == "merged"
        report = coord.consolidate("r1", offline=False)
        assert report.exit_code == 1
        [root] = report.roots
        assert root["state"] == "needs_network", root
        assert root["error"]["kind"] == "unreachable" and "could not reach" in root["error"]["message"]
        assert "ECONNREFUSED" in root["error"]["stderr"] or "connect" in root["error"]["stderr"].lower()
        assert root["culprits"] == []                                 # no intent blamed for the network
        [skipped] = report.skipped
        assert skipped["intent"] == intent["intent_id"] and skipped["state"] == "needs_network"
        assert "could not reach" in skipped["why"] and "\n" not in skipped["why"]
        [pending] = coord.report("r1").intents_pending
        assert "\n" not in pending["reason"] and "could not reach" in pending["reason"]


def test_two_ecosystems_rooted_in_one_folder_each_keep_their_row_in_the_report(tmp_path):
    """Found driving wtc on encode/httpx: uv's pyproject.toml and a hand-kept requirements.txt both at
    the top; the report keyed consolidation by folder, so the second root's row hid the first's
    (its state, its intents, its warning that nothing was relocked)."""
    pyproject = '[project]\nname = "app"\nversion = "1.0"\ndependencies = [\n    "idna",\n]\n'
    repo = make_repo(tmp_path / "repo", {"pyproject.toml": pyproject, "requirements.txt": "pytest==8.4.1\n",
                                         "app.py": "X = 1\n"})
    with Coordinator(repo) as coord:
        coord.start_run("r1")
        dep = Path(coord.start_task("r1", "dep", ["app.py"]).worktree)
        req = Path(coord.start_task("r1", "req", ["app.py"]).worktree)
        write(dep, {"pyproject.toml": pyproject.replace('"idna",', '"idna",\n    "sniffio>=1.3",')})
        write(req, {"requirements.txt": "pytest==8.4.1\npytest-xdist==3.6.1\n"})
        assert coord.finish_task("r1", "dep").state == "merged"
        assert coord.finish_task("r1", "req").state == "merged"
        coord.consolidate("r1")
        rows = {row["ecosystem"]: row for row in coord.report("r1").consolidation}
        assert set(rows) == {"uv", "pip-tools"}
        assert rows["uv"]["intents"] == {"applied": 1} and rows["pip-tools"]["intents"] == {"applied": 1}
        assert any("no uv.lock" in w for w in rows["uv"]["warnings"])
        assert any("kept by hand" in w for w in rows["pip-tools"]["warnings"])


VERIFY_NO_C = ("python3 -c \"import json,sys; "
               "sys.exit(1 if 'packages/c' in json.load(open('package-lock.json'))['packages'] else 0)\"")


def test_the_runs_verify_command_gates_a_consolidated_commit(npm_repo):
    """`verify` gates the integration branch's every move, consolidation's too: a relocked root whose
    commit fails it leaves integration where it was and its intents failed, with the way out."""
    repo = npm_repo
    with Coordinator(repo) as coord:
        coord.start_run("r1", verify=VERIFY_NO_C)
        wt_c = Path(coord.start_task("r1", "c", ["packages/c/**"]).worktree)
        write(wt_c, {"packages/c/package.json": pkg("c"), "packages/c/index.js": "module.exports = 'c';\n"})
        wt_b = Path(coord.start_task("r1", "b", ["packages/b/**"]).worktree)
        write(wt_b, {"packages/b/package.json": pkg("b", {"c": "1.0.0"})})
        assert coord.finish_task("r1", "b").state == "merged"   # the lock without packages/c passes
        assert coord.finish_task("r1", "c").state == "merged"
        before = git(repo, "rev-parse", "wtc/r1/integration")
        report = coord.consolidate("r1")
        assert report.exit_code == 1
        [root] = report.roots
        assert root["state"] == "failed" and root["commit"] is None
        assert root["error"]["kind"] == "failed_verification" and root["error"]["verify"]["exit_code"] == 1
        assert git(repo, "rev-parse", "wtc/r1/integration") == before, "a failed verify moves nothing"
        assert {r["state"] for r in coord.store.list_intents("r1")} == {"failed"}
        [skipped, *_] = report.skipped
        assert "verify command" in skipped["why"] and "--retry-failed" in skipped["fix"]


def test_a_consolidated_commit_that_passes_verify_lands(npm_repo):
    repo = npm_repo
    with Coordinator(repo) as coord:
        coord.start_run("r1", verify="test -f package-lock.json")
        wt_b = Path(coord.start_task("r1", "b", ["packages/b/**"]).worktree)
        write(wt_b, {"packages/b/package.json": pkg("b", {"a": "1.0.0"})})
        assert coord.finish_task("r1", "b").state == "merged"
        before = git(repo, "rev-parse", "wtc/r1/integration")
        report = coord.consolidate("r1")
        assert report.exit_code == 0, report.roots
        assert git(repo, "rev-parse", "wtc/r1/integration^") == before
