"""Two tasks give two members of one uv workspace disjoint ranges of one package (pydantic/pydantic-ai,
driven as a user: `packaging>=24` in one member, `packaging<20` in another). Member manifests merge
as ordinary files, so both merged and only the relock failed, naming every member manifest the run
changed, and an innocent third task's intents failed with it. The finish of the second task is
refused instead, naming both members, the task that set the other range, and the fix (real uv,
offline from a wheel folder)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import git, make_repo, write
from tests.lead.helpers import tool_env, wheel
from worktree_coord.consolidate.adapters.base import find_tool
from worktree_coord.coordinator import Coordinator

pytestmark = pytest.mark.skipif(find_tool("uv") is None, reason="uv comes with the test extras")

ROOT = ('[project]\nname = "app"\nversion = "0.1.0"\nrequires-python = ">=3.11"\ndependencies = []\n\n'
        '[tool.uv.workspace]\nmembers = ["libs/a", "libs/b", "libs/c"]\n')


def member(name: str, deps: str = "") -> str:
    return (f'[project]\nname = "{name}"\nversion = "0.1.0"\nrequires-python = ">=3.11"\n'
            f'dependencies = [{deps}]\n')


@pytest.fixture
def workspace(tmp_path, monkeypatch) -> Path:
    env = tool_env(tmp_path)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    for version in ("19.0", "24.0"):
        wheel(tmp_path / "wheels", "packaging", version)
    repo = make_repo(tmp_path / "repo", {"pyproject.toml": ROOT, **{
        f"libs/{n}/pyproject.toml": member(n) for n in ("a", "b", "c")}})
    subprocess.run([find_tool("uv"), "lock", "--offline", "-q"], cwd=repo, env=dict(os.environ), check=True,
                   capture_output=True)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "lock")
    return repo


def _give(coord: Coordinator, task: str, folder: str, deps: str):
    worktree = Path(coord.start_task("r", task, [f"{folder}/**"]).worktree)
    write(worktree, {f"{folder}/pyproject.toml": member(folder.rsplit("/", 1)[1], deps)})
    return coord.finish_task("r", task)


def test_a_range_disjoint_from_another_members_at_the_tip_is_refused_at_finish(workspace):
    with Coordinator(workspace) as coord:
        coord.start_run("r")
        assert _give(coord, "t1", "libs/a", '"packaging>=24"').state == "merged"
        second = _give(coord, "t2", "libs/b", '"packaging<20"')
        assert second.state == "rejected", second
        [violation] = second.violations
        assert violation["rule"] == "disjoint_workspace_range" and violation["path"] == "libs/b/pyproject.toml"
        detail = violation["detail"]
        assert ("libs/b/pyproject.toml [dependencies] wants 'packaging<20', but libs/a/pyproject.toml "
                "[dependencies] requires 'packaging>=24' on the integration branch (set by task t1): no version "
                "satisfies both, and uv locks one version of each package for the whole workspace at .") in detail, \
            detail
        assert "wtc task update t2 --run r" in detail and "libs/a/pyproject.toml" in detail.split("fix: ")[1], detail
        # The innocent third task merges, and consolidation relocks with what merged.
        assert _give(coord, "t3", "libs/c", '"packaging>=20"').state == "merged"
        report = coord.consolidate("r")
        assert report.exit_code == 0, report.roots
        lock = git(workspace, "show", "wtc/r/integration:uv.lock")
        assert 'name = "packaging"\nversion = "24.0"' in lock


def test_a_range_the_operators_cannot_prove_disjoint_is_left_to_the_relock(workspace):
    """`===19.0` (arbitrary equality) is outside what the operators decide: the finish lets it through."""
    with Coordinator(workspace) as coord:
        coord.start_run("r")
        assert _give(coord, "t1", "libs/a", '"packaging>=24"').state == "merged"
        assert _give(coord, "t2", "libs/b", '"packaging===19.0"').state == "merged"


def test_a_range_the_pinned_commit_holds_is_named_as_the_pins(workspace):
    git(workspace, "checkout", "-q", "main")
    write(workspace, {"libs/a/pyproject.toml": member("a", '"packaging>=24"')})
    subprocess.run([find_tool("uv"), "lock", "--offline", "-q"], cwd=workspace, env=dict(os.environ), check=True,
                   capture_output=True)
    git(workspace, "commit", "-qam", "a needs packaging 24")
    with Coordinator(workspace) as coord:
        coord.start_run("r")
        second = _give(coord, "t2", "libs/b", '"packaging~=19.0"')
        assert second.state == "rejected", second
        assert "requires 'packaging>=24' on the integration branch (as the pinned commit has it)" in \
            second.violations[0]["detail"], second.violations


def test_a_relock_that_fails_on_two_members_fails_their_tasks_intents_and_leaves_an_innocent_tasks_pending(
        workspace):
    """Ranges the finish cannot decide (`===19.0` against `>=24`) both merge, and the relock fails. uv's
    message names the two members: their tasks' intents fail, naming those manifests alone; a third
    task's `add_member` and relock, which the failure does not name, stay pending and say why."""
    with Coordinator(workspace) as coord:
        coord.start_run("r")
        assert _give(coord, "t1", "libs/a", '"packaging>=24"').state == "merged"
        assert _give(coord, "t2", "libs/b", '"packaging===19.0"').state == "merged"
        worktree = Path(coord.start_task("r", "t3", ["libs/d/**"]).worktree)
        write(worktree, {"pyproject.toml": ROOT.replace('"libs/c"]', '"libs/c", "libs/d"]'),
                         "libs/d/pyproject.toml": member("d")})
        assert coord.finish_task("r", "t3").state == "merged"
        report = coord.consolidate("r")
        assert report.exit_code == 1
        states = {row["intent_id"]: row["state"] for row in coord.store.list_intents("r")}
        assert states == {"t1:.:relock:uv": "failed", "t2:.:relock:uv": "failed",
                          "t3:.:relock:uv": "pending", "t3:pyproject.toml:add_member:workspace.members:libs/d": "pending"}, \
            states
        failed = next(r for r in report.roots if r["state"] == "failed")
        assert "(libs/a/pyproject.toml by task t1; libs/b/pyproject.toml by task t2)" in failed["error"]["message"]
        why = {row["intent"]: row["why"] for row in report.skipped}
        assert why["t3:.:relock:uv"].startswith(
            "still waiting: . does not relock until libs/a/pyproject.toml (task t1) or libs/b/pyproject.toml "
            "(task t2) is corrected; the relock's failure does not name this task's changes"), why
        # Consolidating again before the fix: the innocent intents still wait, they do not fail now.
        again = coord.consolidate("r", key="again")
        assert [r["state"] for r in again.roots] == ["waiting"], again.roots
        states = {row["intent_id"]: row["state"] for row in coord.store.list_intents("r")}
        assert states["t3:.:relock:uv"] == states["t3:pyproject.toml:add_member:workspace.members:libs/d"] == \
            "pending", states
        # The fix: a task brings the tip in and corrects libs/b; the waiting intents apply with it.
        coord.start_task("r", "fix", ["libs/b/**"])
        worktree = Path(coord.update_task("r", "fix").worktree)
        write(worktree, {"libs/b/pyproject.toml": member("b", '"packaging>=24"')})
        assert coord.finish_task("r", "fix").state == "merged"
        done = coord.consolidate("r", key="fixed")
        assert [r["state"] for r in done.roots] == ["applied"], done.roots
        states = {row["intent_id"]: row["state"] for row in coord.store.list_intents("r")}
        assert states["t3:pyproject.toml:add_member:workspace.members:libs/d"] == "applied", states


def test_a_member_manifest_that_does_not_read_at_the_tip_leaves_the_finish_to_the_relock(workspace):
    with Coordinator(workspace) as coord:
        coord.start_run("r")
        worktree = Path(coord.start_task("r", "t1", ["libs/c/**"]).worktree)
        write(worktree, {"libs/c/pyproject.toml": member("c") + "[project\n"})
        assert coord.finish_task("r", "t1").state == "merged"
        assert _give(coord, "t2", "libs/b", '"packaging<20"').state == "merged"
