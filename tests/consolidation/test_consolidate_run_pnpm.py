"""A pnpm workspace through the coordinator: two tasks edit the reserved root package.json and
pnpm-workspace.yaml, finish, and one `wtc consolidate` commits manifests and lock relocked by the
real pnpm (offline, store and caches in tmp); a second consolidation commits nothing."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import git, make_repo, write

pytestmark = pytest.mark.skipif(shutil.which("pnpm") is None,
                                reason="pnpm comes from `npm ci --prefix tools` (the README's test set-up)")

WORKSPACE_YAML = "# Members of this workspace.\npackages:\n  # libraries\n  - 'packages/a'  # the core\n"


def pkg(name: str, **fields) -> str:
    return json.dumps({"name": name, "version": "1.0.0", **fields}, indent=2) + "\n"


@pytest.fixture
def pnpm_repo(tmp_path, monkeypatch) -> Path:
    for key, folder in (("pnpm_config_store_dir", "store"), ("pnpm_config_cache_dir", "cache"),
                        ("XDG_DATA_HOME", "data"), ("XDG_CACHE_HOME", "xdg-cache"), ("XDG_STATE_HOME", "state")):
        monkeypatch.setenv(key, str(tmp_path / "pnpm-env" / folder))
    repo = make_repo(tmp_path / "repo", {
        "package.json": json.dumps({"name": "root", "private": True}, indent=2) + "\n",
        "pnpm-workspace.yaml": WORKSPACE_YAML,
        "packages/a/package.json": pkg("a"),
        "packages/a/index.js": "module.exports = 'a';\n",
    })
    subprocess.run(["pnpm", "install", "--lockfile-only", "--offline", "--ignore-scripts"], cwd=repo, check=True,
                   capture_output=True)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "lockfile")
    return repo


def wtc(repo: Path, *args: str) -> dict:
    done = subprocess.run([sys.executable, "-m", "worktree_coord", *args, "--json"], cwd=repo, capture_output=True,
                          text=True, env=dict(os.environ))
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)


def test_member_in_workspace_yaml_and_root_dependency_on_it_land_in_one_consolidation_commit(pnpm_repo):
    repo = pnpm_repo
    wtc(repo, "run", "start", "--run", "r1")
    # Task "lib" adds member b (its own files) and lists it in the reserved pnpm-workspace.yaml.
    lib = Path(wtc(repo, "task", "start", "lib", "--run", "r1", "--own", "packages/b/**")["worktree"])
    write(lib, {"packages/b/package.json": pkg("b", dependencies={"a": "workspace:*"}),
                "pnpm-workspace.yaml": WORKSPACE_YAML + "  - packages/b\n"})
    # Task "app" makes the root depend on b through the reserved root package.json.
    app = Path(wtc(repo, "task", "start", "app", "--run", "r1", "--own", "packages/a/**")["worktree"])
    write(app, {"package.json": json.dumps({"name": "root", "private": True,
                                            "devDependencies": {"b": "workspace:*"}}, indent=2) + "\n",
                "packages/a/index.js": "module.exports = 'a2';\n"})
    finished_app = wtc(repo, "task", "finish", "app", "--run", "r1")     # the dependency finishes first
    finished_lib = wtc(repo, "task", "finish", "lib", "--run", "r1")
    assert finished_app["state"] == finished_lib["state"] == "merged"
    assert [(i["ecosystem"], i["op"]) for i in finished_app["intents"]] == [("pnpm", "add_dep")]
    assert ("pnpm", "add_member") in [(i["ecosystem"], i["op"]) for i in finished_lib["intents"]]
    before = git(repo, "rev-parse", "wtc/r1/integration")

    report = wtc(repo, "consolidate", "--run", "r1")
    [root] = report["roots"]
    assert root["state"] == "applied", root
    assert root["files_changed"] == ["package.json", "pnpm-lock.yaml", "pnpm-workspace.yaml"]
    assert git(repo, "rev-parse", "wtc/r1/integration^") == before, "one commit on top of integration"
    show = lambda path: git(repo, "show", f"wtc/r1/integration:{path}")  # noqa: E731
    # Comments kept; the new entry quoted like its sibling (consolidation re-applies the intent).
    assert show("pnpm-workspace.yaml") + "\n" == WORKSPACE_YAML + "  - 'packages/b'\n"
    assert json.loads(show("package.json"))["devDependencies"] == {"b": "workspace:*"}
    importers = yaml.safe_load(show("pnpm-lock.yaml"))["importers"]
    assert importers["."]["devDependencies"]["b"] == {"specifier": "workspace:*", "version": "link:packages/b"}
    assert importers["packages/b"]["dependencies"]["a"]["version"] == "link:../a"
    # The committed lock is fresh for pnpm itself.
    check = repo.parent / "check"
    git(repo, "worktree", "add", "-q", "--detach", str(check), "wtc/r1/integration")
    fresh = subprocess.run(["pnpm", "install", "--frozen-lockfile", "--lockfile-only", "--offline"], cwd=check,
                           capture_output=True, text=True)
    assert fresh.returncode == 0, fresh.stdout + fresh.stderr

    again = wtc(repo, "consolidate", "--run", "r1")
    assert again["roots"] == [] and git(repo, "rev-parse", "wtc/r1/integration") == report["tip"]


def test_a_pinned_pnpm_of_another_major_is_never_used_silently_offline_then_fetched_online(pnpm_repo, monkeypatch):
    """The project pins pnpm@10 while PATH has another major: offline (npm's cache empty) the
    intent waits for the network and landing is told why; `--online` fetches the pinned pnpm with
    npm exec (the registry, as the README's `npm ci --prefix tools` uses it) and relocks with it."""
    repo = pnpm_repo
    monkeypatch.setenv("npm_config_cache", str(repo.parent / "npm-cache"))
    used = subprocess.run(["pnpm", "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    pinned = "10.34.5"
    assert used.split(".")[0] != "10", "the test needs another major on PATH"
    manifest = {"name": "root", "private": True, "packageManager": f"pnpm@{pinned}"}
    write(repo, {"package.json": json.dumps(manifest, indent=2) + "\n"})
    git(repo, "commit", "-qam", "pin pnpm")
    wtc(repo, "run", "start", "--run", "r1")
    app = Path(wtc(repo, "task", "start", "app", "--run", "r1", "--own", "packages/a/**")["worktree"])
    write(app, {"package.json": json.dumps(manifest | {"devDependencies": {"a": "workspace:*"}}, indent=2) + "\n"})
    assert wtc(repo, "task", "finish", "app", "--run", "r1")["state"] == "merged"
    before = git(repo, "rev-parse", "wtc/r1/integration")
    [root] = wtc(repo, "consolidate", "--run", "r1")["roots"]
    assert root["state"] == "needs_network", root
    assert f"pins pnpm@{pinned} (packageManager) and the pnpm on PATH is {used}" in root["error"]["stderr"]
    assert git(repo, "rev-parse", "wtc/r1/integration") == before, "nothing committed"
    report = wtc(repo, "report", "--run", "r1")
    assert [i["state"] for i in report["intents_pending"]] == ["needs_network"], report["intents_pending"]

    [root] = wtc(repo, "consolidate", "--run", "r1", "--online", "--retry-failed")["roots"]
    assert root["state"] == "applied" and root["warnings"] == [], root
    assert any(f"--package=pnpm@{pinned}" in run["argv"] and run["returncode"] == 0 for run in root["tool_runs"])
    importers = yaml.safe_load(git(repo, "show", "wtc/r1/integration:pnpm-lock.yaml"))["importers"]
    assert importers["."]["devDependencies"]["a"] == {"specifier": "workspace:*", "version": "link:packages/a"}


def test_offline_with_no_pnpm_on_path_the_message_names_the_missing_pnpm_and_both_fixes(pnpm_repo, monkeypatch):
    """The project pins the pnpm the tests use, but the machine has none on PATH (only node and npm)
    and npm's cache is empty: the offline relock lacks pnpm itself. The root and the skipped intent
    said "needs packages that are not cached"; the cause was only in the tool's output."""
    repo = pnpm_repo
    pinned = subprocess.run(["pnpm", "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    manifest = {"name": "root", "private": True, "packageManager": f"pnpm@{pinned}"}
    write(repo, {"package.json": json.dumps(manifest, indent=2) + "\n"})
    git(repo, "commit", "-qam", "pin pnpm")
    wtc(repo, "run", "start", "--run", "r1")
    app = Path(wtc(repo, "task", "start", "app", "--run", "r1", "--own", "packages/a/**")["worktree"])
    write(app, {"package.json": json.dumps(manifest | {"devDependencies": {"a": "workspace:*"}}, indent=2) + "\n"})
    assert wtc(repo, "task", "finish", "app", "--run", "r1")["state"] == "merged"
    without = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if not (Path(p) / "pnpm").exists())
    monkeypatch.setenv("PATH", without)
    monkeypatch.setenv("npm_config_cache", str(repo.parent / "npm-cache"))
    assert shutil.which("pnpm") is None and shutil.which("npm") is not None
    report = wtc(repo, "consolidate", "--run", "r1")
    [root] = report["roots"]
    assert (root["state"], root["error"]["kind"]) == ("needs_network", "tool_not_cached"), root
    cause = (f"pnpm cannot run offline: package.json pins pnpm@{pinned} (packageManager), there is no pnpm on "
             f"PATH, and `npm exec --offline` has no pnpm@{pinned} cached")
    assert root["error"]["message"] == cause
    assert root["error"]["fix"] == (f"install pnpm@{pinned} (npm install -g pnpm@{pinned}) and consolidate again, "
                                    "or consolidate online once (wtc consolidate --online): npm exec fetches "
                                    f"pnpm@{pinned} into npm's cache, where later offline runs find it")
    [skipped] = report["skipped"]
    assert skipped["why"] == cause
    assert "or consolidate online once (wtc consolidate --run r1 --online)" in skipped["fix"]
    text = subprocess.run([sys.executable, "-m", "worktree_coord", "consolidate", "--run", "r1"], cwd=repo,
                          capture_output=True, text=True, env=dict(os.environ))
    assert text.returncode == 1 and "not cached\n" not in text.stdout and cause in text.stdout, text.stdout


def test_a_member_manifest_change_merges_as_code_and_the_finish_says_its_root_relocks_at_consolidation(pnpm_repo):
    repo = pnpm_repo
    wtc(repo, "run", "start", "--run", "r1")
    wt = Path(wtc(repo, "task", "start", "dep", "--run", "r1", "--own", "packages/a/**")["worktree"])
    write(wt, {"packages/a/package.json": pkg("a", dependencies={"left-pad": "^1.3.0"})})
    done = subprocess.run([sys.executable, "-m", "worktree_coord", "task", "finish", "dep", "--run", "r1"], cwd=repo,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert ("  relock    pnpm root . (packages/a/package.json changed): at consolidation "
            "(`wtc consolidate --run r1`)") in done.stdout.splitlines(), done.stdout
    assert "reserved" not in done.stdout, "the member's manifest is not reserved: it merged as code"


def test_a_lockfile_edit_is_named_once_as_reserved_not_again_as_a_relock(pnpm_repo):
    repo = pnpm_repo
    wtc(repo, "run", "start", "--run", "r1")
    wt = Path(wtc(repo, "task", "start", "lock", "--run", "r1", "--own", "packages/a/**")["worktree"])
    write(wt, {"pnpm-lock.yaml": (wt / "pnpm-lock.yaml").read_text() + "\n"})
    done = subprocess.run([sys.executable, "-m", "worktree_coord", "task", "finish", "lock", "--run", "r1"], cwd=repo,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "  reserved  pnpm-lock.yaml (modified): kept aside for consolidation" in done.stdout.splitlines()
    assert "relock" not in done.stdout, done.stdout
