"""Every ecosystem's consolidation output lists each applied intent the same way: task, manifest,
what changed, in text and JSON. A task's edit of a member manifest (a Cargo workspace member's
Cargo.toml, an npm workspace's package.json) asks its root for a relock; the output said only
"changed Cargo.lock", where a Go member's edits were listed one by one. Now the relock is listed
with the task and the member's changes, key by key. Real cargo and npm, offline."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.conftest import git, make_repo, write, wtc_in_process

CRATE = '[package]\nname = "{name}"\nversion = "0.1.0"\nedition = "2021"\n'


def _finish(repo: Path, task: str, own: str, files: dict[str, str]) -> dict:
    globs = [arg for glob in own.split() for arg in ("--own", glob)]
    code, started = wtc_in_process(repo, "task", "start", task, "--run", "r", *globs)
    assert code == 0, started
    write(Path(started["worktree"]), files)
    code, done = wtc_in_process(repo, "task", "finish", task, "--run", "r")
    assert code == 0 and done["state"] == "merged", done
    return done


def _consolidated(repo: Path) -> tuple[dict, str]:
    """`wtc consolidate`'s JSON and its text, as the command makes them (one call, two renderings)."""
    from worktree_coord.coordinator import Coordinator
    from worktree_coord.output import render

    with Coordinator(repo) as coordinator:
        result = coordinator.consolidate("r")
    assert result.exit_code == 0, result.roots
    return result.to_json(), render.consolidation_report(result)


def _cargo_workspace(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path / "repo", {
        "Cargo.toml": '[workspace]\nmembers = ["a", "b"]\nresolver = "2"\n',
        "a/Cargo.toml": CRATE.format(name="a"), "a/src/lib.rs": "pub fn a() {}\n",
        "b/Cargo.toml": CRATE.format(name="b"), "b/src/lib.rs": "pub fn b() {}\n"})
    subprocess.run(["cargo", "generate-lockfile", "--offline"], cwd=repo, check=True, capture_output=True)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "lock")
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    return repo


def test_a_cargo_member_edit_is_listed_with_its_task_and_changes(tmp_path: Path) -> None:
    repo = _cargo_workspace(tmp_path)
    _finish(repo, "uses-b", "a/**", {"a/Cargo.toml": CRATE.format(name="a") + '\n[dependencies]\nb = { path = "../b" }\n'})
    body, text = _consolidated(repo)
    [root] = body["roots"]
    assert root["state"] == "applied" and root["files_changed"] == ["Cargo.lock"]
    [relock] = root["relocks"]
    assert (relock["task"], relock["manifest"]) == ("uses-b", "a/Cargo.toml")
    assert relock["summary"] == "relock for a/Cargo.toml (member manifest changed: add_dep b (path ../b))"
    assert "applied relock for a/Cargo.toml (member manifest changed: add_dep b (path ../b)) (from uses-b)" in text


def test_one_task_changing_two_member_manifests_is_listed_with_both(tmp_path: Path) -> None:
    """Its two relock requests of one root shared one id, and the store kept only the last: the
    output named one of the two manifests."""
    repo = _cargo_workspace(tmp_path)
    _finish(repo, "bumps", "a/** b/**", {"a/Cargo.toml": CRATE.format(name="a").replace("0.1.0", "0.2.0"),
                                        "b/Cargo.toml": CRATE.format(name="b").replace("0.1.0", "0.2.0")})
    body, _ = _consolidated(repo)
    [relock] = body["roots"][0]["relocks"]
    assert relock["summary"] == ("relock for a/Cargo.toml (member manifest changed: bump_version a 0.2.0; "
                                 "and b/Cargo.toml: member manifest changed: bump_version b 0.2.0)")


def test_an_npm_member_edit_and_a_root_edit_are_listed_alike(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("npm_config_cache", str(tmp_path / "npm-cache"))
    package = lambda name, **more: json.dumps({"name": name, "version": "1.0.0", **more}, indent=2) + "\n"  # noqa: E731
    repo = make_repo(tmp_path / "repo", {
        "package.json": package("root", private=True, workspaces=["packages/*"]),
        "packages/a/package.json": package("a"), "packages/b/package.json": package("b")})
    subprocess.run(["npm", "install", "--package-lock-only", "--offline", "--ignore-scripts"], cwd=repo, check=True,
                   capture_output=True)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "lock")
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    _finish(repo, "a-uses-b", "packages/a/**", {"packages/a/package.json": package("a", dependencies={"b": "1.0.0"})})
    _finish(repo, "scripts", "packages/b/**", {
        "package.json": package("root", private=True, workspaces=["packages/*"], scripts={"test": "node -e 1"})})
    body, text = _consolidated(repo)
    [root] = body["roots"]
    [applied] = root["applied"]
    assert (applied["tasks"], applied["summary"]) == (["scripts"], 'set_key scripts.test "node -e 1"')
    [relock] = root["relocks"]
    assert relock["summary"] == "relock for packages/a/package.json (member manifest changed: add_dep b 1.0.0)"
    assert "applied set_key scripts.test \"node -e 1\" in package.json (from scripts)" in text
    assert "applied relock for packages/a/package.json (member manifest changed: add_dep b 1.0.0) (from a-uses-b)" \
        in text
