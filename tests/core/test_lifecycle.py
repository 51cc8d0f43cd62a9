"""A task's life through the Python API: start, edit, finish, status, abandon, gc."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import commit, git, write
from worktree_coord.coordinator import Coordinator
from worktree_coord.errors import NotFoundError, StateError, UsageError
from worktree_coord.model import TaskState


@pytest.fixture
def coord(repo: Path):
    with Coordinator(repo) as coordinator:
        yield coordinator


def test_run_start_pins_head_and_creates_integration_branch(repo, coord):
    run = coord.start_run("r1")
    head = git(repo, "rev-parse", "HEAD")
    assert run.base == head
    assert git(repo, "rev-parse", "refs/heads/wtc/r1/integration") == head
    again = coord.start_run("r1")
    assert again.replayed and again.base == head


def test_full_lifecycle_commits_checks_and_removes_the_worktree(repo, coord):
    coord.start_run("r1")
    started = coord.start_task("r1", "api", ["packages/api/**"])
    wt = Path(started.worktree)
    assert git(wt, "rev-parse", "HEAD") == started.base
    assert git(wt, "symbolic-ref", "HEAD") == "refs/heads/wtc/r1/api"
    assert git(repo, "config", "--get", "branch.wtc/r1/api.remote", check=False) == ""  # no upstream
    write(wt, {"packages/api/index.js": "export function api() {\n  return 42;\n}\n",
               "packages/api/new.js": "export const x = 1;\n"})
    finished = coord.finish_task("r1", "api")
    assert finished.state == "merged" and finished.exit_code == 0
    assert {c["path"] for c in finished.changed} == {"packages/api/index.js", "packages/api/new.js"}
    assert not wt.exists()
    assert git(repo, "log", "-1", "--format=%an", "wtc/r1/api") == "wtc task api"
    assert coord.store.get_task("r1", "api").state is TaskState.MERGED
    # the main checkout never shows worktree folders
    assert git(repo, "status", "--porcelain") == ""


def test_untracked_files_are_committed_but_gitignored_files_are_not(repo, coord):
    coord.start_run("r1")
    wt = Path(coord.start_task("r1", "api", ["packages/api/**"]).worktree)
    write(wt, {"packages/api/.gitignore": "build/\n", "packages/api/build/out.js": "junk\n",
               "packages/api/fresh.js": "new\n"})
    finished = coord.finish_task("r1", "api")
    paths = {c["path"] for c in finished.changed}
    assert paths == {"packages/api/.gitignore", "packages/api/fresh.js"}


def test_sparse_worktree_holds_only_boundary_and_root_files(repo, coord):
    coord.start_run("r1")
    started = coord.start_task("r1", "web", ["packages/web/**"], ["docs/**"], sparse=True)
    wt = Path(started.worktree)
    files = sorted(str(p.relative_to(wt)) for p in wt.rglob("*")
                   if p.is_file() and ".wtc" not in p.relative_to(wt).parts and p.name != ".git")
    assert files == ["README.md", "docs/guide.md", "package.json", "packages/web/index.js",
                     "packages/web/package.json"]
    assert started.sparse_cone == ["docs", "packages/web"]
    assert git(wt, "status", "--porcelain") == ""
    write(wt, {"packages/web/index.js": "changed\n"})
    finished = coord.finish_task("r1", "web")
    # only the edit, never the deletion of out-of-cone files
    assert finished.changed == [{"path": "packages/web/index.js", "status": "modified"}]


def test_empty_task_finishes_as_empty(repo, coord):
    coord.start_run("r1")
    coord.start_task("r1", "noop", ["packages/api/**"])
    assert coord.finish_task("r1", "noop").state == "empty"


def test_manifest_file_is_written_and_not_committed(repo, coord):
    import json

    coord.start_run("r1")
    started = coord.start_task("r1", "api", ["packages/api/**"], ["docs/**"])
    manifest = json.loads(Path(started.manifest).read_text())
    assert manifest["own"] == ["packages/api/**"] and manifest["read"] == ["docs/**"]
    assert "/package.json" in manifest["reserved"]
    assert coord.finish_task("r1", "api").state == "empty"


def test_abandon_keeps_branch_and_snapshots_uncommitted_work(repo, coord):
    coord.start_run("r1")
    wt = Path(coord.start_task("r1", "api", ["packages/api/**"]).worktree)
    write(wt, {"packages/api/wip.js": "half done\n"})
    abandoned = coord.abandon_task("r1", "api")
    assert abandoned.snapshot and not wt.exists()
    assert git(repo, "show", "wtc/r1/api:packages/api/wip.js") == "half done"
    with pytest.raises(StateError):
        coord.finish_task("r1", "api")


def test_overlapping_own_is_reported_and_exclusive_refuses(repo, coord):
    from worktree_coord.errors import BusyError

    coord.start_run("r1")
    coord.start_task("r1", "a", ["packages/api/**"])
    second = coord.start_task("r1", "b", ["packages/*/index.js"])
    assert [o["task"] for o in second.overlaps] == ["a"]
    with pytest.raises(BusyError) as refused:
        coord.start_task("r1", "c", ["packages/api/lib/**"], exclusive=True)
    assert refused.value.exit_code == 4
    coord.start_task("r1", "d", ["docs/**"], exclusive=True)
    assert second.notes == [] and not any("has no '/'" in n for n in coord.start_task("r1", "e", ["/README.md"]).notes)


def test_a_plain_name_that_overlaps_says_it_owns_that_name_in_every_folder(repo, coord):
    commit(repo, {"CHANGELOG.md": "# changes\n"}, "a changelog")   # owned globs that match a file: no note of that
    coord.start_run("r1")
    coord.start_task("r1", "api", ["packages/api/**"])
    log = coord.start_task("r1", "log", ["CHANGELOG.md"])
    assert [o["task"] for o in log.overlaps] == ["api"]
    assert log.notes == ["--own 'CHANGELOG.md' has no '/', so it owns every CHANGELOG.md in any folder (gitignore "
                         "rules), which is why it may overlap; write '/CHANGELOG.md' for the one at the repository root"]
    root_only = coord.start_task("r1", "log2", ["/CHANGELOG.md"])
    assert [o["task"] for o in root_only.overlaps] == ["log"] and root_only.notes == []


def test_unknown_run_and_task_are_not_found(repo, coord):
    with pytest.raises(NotFoundError):
        coord.start_task("nope", "t", ["a/**"])
    coord.start_run("r1")
    with pytest.raises(NotFoundError) as missing:
        coord.finish_task("r1", "ghost")
    assert missing.value.exit_code == 5


@pytest.mark.parametrize("name", ["", "-x", ".x", "a/b", "a..b", "x.lock", "a b", "é", "x" * 65, "integration"])
def test_bad_task_names_are_usage_errors(repo, coord, name):
    coord.start_run("r1")
    with pytest.raises(UsageError) as bad:
        coord.start_task("r1", name, ["packages/api/**"])
    assert bad.value.exit_code == 2


@pytest.mark.parametrize("glob", ["../x/**", "/../etc/passwd", "a/../../x", "a/../b", ".git/config", "a/.git/**",
                                  "!packages/**", "/"])
def test_bad_globs_are_usage_errors(repo, coord, glob):
    coord.start_run("r1")
    with pytest.raises(UsageError):
        coord.start_task("r1", "t", [glob])


@pytest.mark.parametrize("glob", ["/tmp/**", "/etc/x.conf", "/home/**", "/docs/**", "/work/a.txt"])
def test_a_leading_slash_anchors_at_the_root_for_every_name(repo, coord, glob):
    from worktree_coord.boundary import matches

    coord.start_run("r1")
    started = coord.start_task("r1", "t", [glob])
    assert started.boundary["own"] == [glob]
    inside = glob.strip("/").replace("**", "f.txt")
    assert matches([glob], inside) and not matches([glob], "sub/" + inside)


def test_gc_deletes_merged_tasks_branches_whose_commits_integration_holds(repo, coord):
    coord.start_run("r1")
    for task, path in (("api", "packages/api/index.js"), ("web", "packages/web/index.js")):
        wt = Path(coord.start_task("r1", task, [path.rsplit("/", 1)[0] + "/**"]).worktree)
        (wt / path).write_text(f"// {task} v2\n")
        assert coord.finish_task("r1", task).state == "merged"
    tips = {t: git(repo, "rev-parse", f"wtc/r1/{t}") for t in ("api", "web")}
    # Someone commits on web's branch after it merged: that branch holds news, so it stays.
    git(repo, "update-ref", "refs/heads/wtc/r1/web",
        git(repo, "commit-tree", "-p", tips["web"], "-m", "later", f"{tips['web']}^{{tree}}"))
    abandoned = Path(coord.start_task("r1", "gone", ["docs/**"]).worktree)
    (abandoned / "docs/guide.md").write_text("half\n")
    coord.abandon_task("r1", "gone")
    dry = coord.gc(dry_run=True)
    assert dry.branches_deleted == ["wtc/r1/api"]
    assert git(repo, "rev-parse", "--verify", "-q", "refs/heads/wtc/r1/api", check=False) != ""
    report = coord.gc()
    assert report.branches_deleted == ["wtc/r1/api"]
    assert any(k["branch"] == "wtc/r1/web" and "pushed again" in k["why"] for k in report.kept), report.kept
    assert git(repo, "rev-parse", "--verify", "-q", "refs/heads/wtc/r1/api", check=False) == ""
    assert git(repo, "rev-parse", "--verify", "-q", "refs/heads/wtc/r1/gone", check=False) != "", "abandoned work kept"
    # Nothing lost: the deleted branch's commit is in the integration history; report still reads the run.
    assert subprocess.run(["git", "merge-base", "--is-ancestor", tips["api"], "wtc/r1/integration"],
                          cwd=repo).returncode == 0
    assert [t["task"] for t in coord.report("r1").tasks if t["state"] == "merged"] == ["api", "web"]


def test_gc_removes_orphans_and_keeps_live_work(repo, coord):
    coord.start_run("r1")
    live = Path(coord.start_task("r1", "live", ["packages/api/**"]).worktree)
    orphan = coord.worktree_root() / "r1" / "stray"
    orphan.mkdir(parents=True)
    (orphan / "junk.txt").write_text("x")
    coord.start_task("r1", "noop", ["packages/web/**"])
    coord.finish_task("r1", "noop")
    dry = coord.gc(dry_run=True)
    assert str(orphan) in dry.worktrees_removed and orphan.exists()
    report = coord.gc()
    assert not orphan.exists() and live.exists()
    assert "wtc/r1/noop" in report.branches_deleted
    assert git(repo, "rev-parse", "--verify", "-q", "refs/heads/wtc/r1/noop", check=False) == ""
    assert git(repo, "rev-parse", "--verify", "-q", "refs/heads/wtc/r1/live", check=False) != ""


def test_a_reserved_edit_no_intent_carries_is_said_and_one_that_does_is_not(repo, coord):
    coord.start_run("r1")
    wt = Path(coord.start_task("r1", "fmt", ["packages/api/**"]).worktree)
    # Only the layout of the root manifest: nothing consolidation applies.
    (wt / "package.json").write_text('{"name": "root", "workspaces": ["packages/*"]}\n')
    done = coord.finish_task("r1", "fmt")
    assert done.intents == [] and [r["path"] for r in done.reserved] == ["package.json"]
    assert ("package.json: the edit changes no dependency, member, version or override that consolidation "
            "applies, so no intent carries it (the relock decides the rest)") in done.notes
    wt = Path(coord.start_task("r1", "dep", ["packages/web/**"]).worktree)
    (wt / "package.json").write_text('{\n  "name": "root",\n  "workspaces": ["packages/*"],\n'
                                     '  "devDependencies": {"api": "*"}\n}\n')
    done = coord.finish_task("r1", "dep")
    assert [i["op"] for i in done.intents] == ["add_dep"]
    assert not [n for n in done.notes if "no intent carries" in n]


def test_run_start_names_the_uncommitted_work_no_task_will_see(repo, coord):
    clean = coord.start_run("r0")
    assert clean.notes == [] and clean.uncommitted == []
    (repo / "packages/api/index.js").write_text("edited, not committed\n")
    (repo / "scratch.txt").write_text("new, not added\n")
    started = coord.start_run("r1")
    assert sorted(started.uncommitted) == ["packages/api/index.js", "scratch.txt"]
    [note] = started.notes
    assert note.startswith("this checkout has 2 uncommitted change(s) (") and "no task will see" in note
    # The worktree a task gets holds the pinned commit, not the lead's edit: what the note warns of.
    wt = Path(coord.start_task("r1", "t", ["packages/api/**"]).worktree)
    assert (wt / "packages/api/index.js").read_text() != "edited, not committed\n"
    # Pinned elsewhere than this checkout's HEAD: its uncommitted work is not the question.
    git(repo, "commit", "-qam", "more")
    assert coord.start_run("r2", base="HEAD~1").notes == []


def test_run_start_names_the_run_rules_an_uncommitted_configuration_sets(repo, coord, tmp_path):
    """A `verify` written in an uncommitted .wtc.toml verified nothing: a run holds the rules committed
    at its pin, and run start said only that .wtc.toml was uncommitted (found driving wtc on httpx)."""
    (repo / ".wtc.toml").write_text('[tool.worktree-coord]\nverify = "false"\nleft-behind = "warn"\n'
                                    'lock-timeout = 90\n')
    started = coord.start_run("r1")
    assert started.uncommitted == [".wtc.toml"]
    assert started.notes[1] == (
        ".wtc.toml is not committed: its left-behind, verify do not apply to this run, which holds the rules "
        f"committed at its pinned commit {started.base[:12]} (docs/configuration.md); commit it and start a new "
        "run, or give them to `wtc run start` (--verify, --semantic, --left-behind); its settings of this machine "
        "(worktree-setup, relock, timeouts, the store) apply as they are")
    # Given to run start itself, a rule is the run's: only the others are named.
    assert coord.start_run("r2", verify="true").notes[1].startswith(".wtc.toml is not committed: its left-behind do")
    # Machine settings alone (what a checkout sets for itself): nothing more to say.
    (repo / ".wtc.toml").write_text("[tool.worktree-coord]\nlock-timeout = 90\n")
    assert len(coord.start_run("r3").notes) == 1
