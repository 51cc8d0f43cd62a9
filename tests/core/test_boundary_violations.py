"""Every violation kind at finish, the reserved-file rule, and the fix-and-finish-again round trip."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.conftest import git, write, wtc
from worktree_coord.coordinator import Coordinator


@pytest.fixture
def coord(repo: Path):
    with Coordinator(repo) as coordinator:
        coordinator.start_run("r1")
        yield coordinator


def start(coord: Coordinator, task: str = "api", own=("packages/api/**",)) -> Path:
    return Path(coord.start_task("r1", task, list(own)).worktree)


def rules(result) -> set[tuple[str, str]]:
    return {(v["rule"], v["path"]) for v in result.violations}


def test_edit_outside_own_is_rejected_and_can_be_fixed(repo, coord):
    wt = start(coord)
    write(wt, {"packages/api/index.js": "ok\n", "packages/web/index.js": "not yours\n"})
    os.remove(wt / "docs/guide.md")
    first = coord.finish_task("r1", "api")
    assert first.exit_code == 3 and first.state == "rejected"
    assert rules(first) == {("outside_own", "packages/web/index.js"), ("outside_own", "docs/guide.md")}
    assert wt.exists(), "the worktree stays so the agent can fix it"
    assert git(repo, "show", "wtc/r1/api:packages/web/index.js") == "not yours", "the commit stays on the branch"
    # fix: restore both paths, finish again
    git(wt, "checkout", first.commit + "~1", "--", "packages/web/index.js", "docs/guide.md")
    second = coord.finish_task("r1", "api")
    assert second.exit_code == 0 and second.state == "merged"
    assert [c["path"] for c in second.changed] == ["packages/api/index.js"]


def test_the_rejection_gives_the_command_that_gives_up_the_outside_edits_and_it_works(repo, coord):
    wt = start(coord)
    write(wt, {"packages/api/index.js": "ok\n", "packages/web/index.js": "not yours\n", "docs/new page.md": "new\n"})
    os.remove(wt / "docs/guide.md")
    first = coord.finish_task("r1", "api")
    [note] = [n for n in first.notes if "to give up the changes outside the boundary" in n]
    keep = note.split("(keep them first: `")[1].split("`")[0]
    restore = note.split("): `")[1].split("`")[0]
    assert "'docs/new page.md'" in restore, "paths are quoted for the shell"
    # Run them as an agent would, from its shell: the patch keeps the work, the restore gives it up.
    import subprocess

    subprocess.run(keep, shell=True, cwd=wt, check=True)
    assert "not yours" in (wt / "outside.patch").read_text()
    (wt / "outside.patch").unlink()
    subprocess.run(restore, shell=True, cwd=wt, check=True)
    second = coord.finish_task("r1", "api")
    assert second.state == "merged", second.violations
    assert [c["path"] for c in second.changed] == ["packages/api/index.js"]


def test_reserved_root_manifest_edit_is_kept_aside_not_a_violation(repo, coord):
    wt = start(coord)
    write(wt, {"package.json": '{"name": "root", "dependencies": {"lodash": "^4"}}\n',
               "packages/api/index.js": "x\n", "packages/api/package-lock.json": "{}\n"})
    done = coord.finish_task("r1", "api")
    assert done.state == "merged", done.violations
    assert {r["path"] for r in done.reserved} == {"package.json", "packages/api/package-lock.json"}


def test_a_reserved_manifest_the_task_creates_in_its_own_area_is_its_own_but_a_new_lockfile_is_not(repo, coord):
    wt = start(coord)
    write(wt, {"packages/api/requirements.txt": "httpx==0.27.0\n", "packages/api/package-lock.json": "{}\n"})
    done = coord.finish_task("r1", "api")
    assert done.state == "merged", done.violations
    assert [c["path"] for c in done.changed if c["path"].endswith(".txt")] == ["packages/api/requirements.txt"]
    assert [r["path"] for r in done.reserved] == ["packages/api/package-lock.json"]
    assert git(repo, "show", "wtc/r1/integration:packages/api/requirements.txt") == "httpx==0.27.0"
    # Editing it later (it now exists at the next run's base) is a reserved edit again.
    git(repo, "merge", "-q", "--ff-only", "wtc/r1/integration")
    coord.start_run("r2")
    wt2 = Path(coord.start_task("r2", "api2", ["packages/api/**"]).worktree)
    write(wt2, {"packages/api/requirements.txt": "httpx==0.28.0\n"})
    again = coord.finish_task("r2", "api2")
    assert [r["path"] for r in again.reserved] == ["packages/api/requirements.txt"]


def test_member_manifest_inside_own_is_an_ordinary_change(repo, coord):
    wt = start(coord)
    write(wt, {"packages/api/package.json": '{"name": "api", "version": "1.1.0"}\n'})
    done = coord.finish_task("r1", "api")
    assert done.reserved == [] and [c["path"] for c in done.changed] == ["packages/api/package.json"]


def test_symlink_escaping_the_repository_is_rejected(repo, coord):
    wt = start(coord)
    os.symlink("/etc/passwd", wt / "packages/api/passwd")
    os.symlink("../../../../outside", wt / "packages/api/up")
    done = coord.finish_task("r1", "api")
    assert rules(done) == {("symlink_outside_repo", "packages/api/passwd"), ("symlink_outside_repo", "packages/api/up")}


def test_symlink_to_a_path_outside_own_is_rejected_but_inside_is_fine(repo, coord):
    wt = start(coord)
    os.symlink("../web/index.js", wt / "packages/api/web-link.js")
    os.symlink("index.js", wt / "packages/api/alias.js")
    done = coord.finish_task("r1", "api")
    assert rules(done) == {("symlink_outside_own", "packages/api/web-link.js")}


def test_gitlink_and_gitmodules_outside_own_are_rejected(repo, coord):
    wt = start(coord)
    nested = wt / "vendor/lib"
    nested.mkdir(parents=True)
    git(nested, "init", "-q")
    write(nested, {"x.txt": "x\n"})
    git(nested, "add", "x.txt")
    git(nested, "commit", "-q", "-m", "embedded")  # `git add -A` records an embedded repo as a gitlink
    write(wt, {".gitmodules": '[submodule "lib"]\n\tpath = vendor/lib\n\turl = https://example.com/lib.git\n'})
    done = coord.finish_task("r1", "api")
    assert rules(done) == {("submodule", "vendor/lib"), ("submodule", ".gitmodules")}


def test_a_folder_with_its_own_repository_inside_own_is_rejected_and_the_fix_commits_its_files(repo, coord):
    # A `git init` (or a scaffolding tool) in the worktree: `git add -A` would record a gitlink to a
    # commit only that folder has, and the merge would hand every checkout an empty folder.
    import re
    import subprocess

    wt = start(coord, own=("**",))
    nested = wt / "packages/newapp"
    nested.mkdir(parents=True)
    git(nested, "init", "-q")
    write(nested, {"index.js": "module.exports = 1\n"})
    git(nested, "add", "index.js")
    git(nested, "commit", "-q", "-m", "scaffold")
    done = coord.finish_task("r1", "api")
    assert done.exit_code == 3 and rules(done) == {("embedded_repository", "packages/newapp")}
    [violation] = done.violations
    assert "git rm -q --cached packages/newapp" in violation["detail"]
    shutil.rmtree(nested / ".git")                       # the fix, as the detail says it
    subprocess.run(["git", "rm", "-q", "--cached", "packages/newapp"], cwd=wt, check=True)
    finished = coord.finish_task("r1", "api")
    assert finished.state == "merged"
    assert git(repo, "show", "wtc/r1/integration:packages/newapp/index.js") == "module.exports = 1"


def test_a_declared_submodule_inside_own_merges(repo, coord, tmp_path):
    lib = tmp_path / "lib"
    lib.mkdir()
    git(lib, "init", "-q")
    write(lib, {"x.txt": "x\n"})
    git(lib, "add", "x.txt")
    git(lib, "commit", "-q", "-m", "lib")
    wt = start(coord, own=("**",))
    git(wt, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "vendor/lib")
    done = coord.finish_task("r1", "api")
    assert done.state == "merged", done.violations
    assert "vendor/lib" in git(repo, "ls-tree", "-r", "wtc/r1/integration", "vendor/lib")


def test_the_ci_check_reports_an_embedded_repository(repo, tmp_path):
    from worktree_coord.check.pipeline import check

    git(repo, "switch", "-q", "-c", "feature")
    nested = repo / "tools/gen"
    nested.mkdir(parents=True)
    git(nested, "init", "-q")
    write(nested, {"gen.py": "print(1)\n"})
    git(nested, "add", "gen.py")
    git(nested, "commit", "-q", "-m", "inner")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "adds a folder with its own repository")
    report = check(repo, base="main", own=["**"])
    assert [(f.rule, f.path) for f in report.findings if f.rule == "embedded_repository"] == [("embedded_repository", "tools/gen")]


def test_tampered_worktree_git_file_is_rejected_without_committing(repo, coord, tmp_path):
    wt = start(coord)
    write(wt, {"packages/api/index.js": "edited\n"})
    elsewhere = tmp_path / "other"
    git(tmp_path, "init", "-q", str(elsewhere))
    (wt / ".git").write_text(f"gitdir: {elsewhere / '.git'}\n")
    done = coord.finish_task("r1", "api")
    assert done.exit_code == 3 and ("git_dir", ".git") in rules(done)
    assert git(elsewhere, "rev-parse", "--verify", "-q", "HEAD", check=False) == "", "nothing was committed elsewhere"


def test_switched_branch_is_rejected(repo, coord):
    wt = start(coord)
    git(wt, "switch", "-q", "-c", "side")
    done = coord.finish_task("r1", "api")
    assert {r for r, _ in rules(done)} == {"branch_switched"}
    git(wt, "switch", "-q", "wtc/r1/api")
    assert coord.finish_task("r1", "api").state == "empty"


def test_commits_on_a_branch_of_the_agents_own_are_kept_by_the_way_back(repo, coord):
    # Agents habitually `git checkout -b fix` and commit there: the fix must carry those commits
    # (and the edits left uncommitted) onto the task branch, run exactly as a shell would.
    import re
    import subprocess

    wt = start(coord)
    git(wt, "switch", "-q", "-c", "fix")
    write(wt, {"packages/api/index.js": "committed on fix\n"})
    git(wt, "commit", "-q", "-am", "agent's own commit")
    write(wt, {"packages/api/extra.js": "left uncommitted\n"})
    done = coord.finish_task("r1", "api")
    [violation] = done.violations
    assert violation["rule"] == "branch_switched" and "nothing was committed" in violation["detail"]
    assert done.notes[0].startswith("put the worktree back on wtc/r1/api")
    [command] = re.findall(r"`([^`]*branch -f[^`]*)`", violation["detail"])
    subprocess.run(command, shell=True, check=True)
    finished = coord.finish_task("r1", "api")
    assert finished.state == "merged"
    assert git(repo, "show", "wtc/r1/integration:packages/api/index.js") == "committed on fix"
    assert git(repo, "show", "wtc/r1/integration:packages/api/extra.js") == "left uncommitted"


def test_work_left_in_the_shared_stash_is_not_left_behind_by_finish(repo, coord):
    # refs/stash is shared by every worktree: a stash an agent forgot is work no commit holds, where
    # another agent's `git stash pop` can take it. Finish stops and says how to keep or drop it.
    import re
    import subprocess

    wt = start(coord)
    write(wt, {"packages/api/index.js": "stashed edit\n"})
    git(wt, "stash", "-q")
    other = start(coord, "web", own=("packages/web/**",))
    write(other, {"packages/web/index.js": "web\n"})
    git(other, "stash", "-q")                      # another task's stash: not this task's business
    done = coord.finish_task("r1", "api")
    assert done.exit_code == 3 and rules(done) == {("stashed_work", "")}
    [violation] = done.violations
    assert "stash@{1}" in violation["detail"] and "stash@{0}" not in violation["detail"]
    assert done.notes[0].startswith("pop or drop the stash as the violation says")
    [keep] = re.findall(r"`([^`]*stash pop[^`]*)`", violation["detail"])
    subprocess.run(keep, shell=True, check=True)
    finished = coord.finish_task("r1", "api")
    assert finished.state == "merged"
    assert git(repo, "show", "wtc/r1/integration:packages/api/index.js") == "stashed edit"
    # The other task's stash is still there, and abandoning that task names it.
    abandoned = coord.abandon_task("r1", "web")
    assert any("stash@{0}" in note and "wtc/r1/web" in note for note in abandoned.notes)


def test_a_switch_to_a_branch_that_left_the_task_branch_behind_says_merge(repo, coord):
    wt = start(coord)
    write(wt, {"packages/api/index.js": "on the task branch\n"})
    git(wt, "commit", "-q", "-am", "task work")
    git(wt, "switch", "-q", "-c", "other", "HEAD~1")
    done = coord.finish_task("r1", "api")
    [violation] = done.violations
    assert "branch -f" not in violation["detail"], "moving the task branch would drop its own commit"
    assert "switch wtc/r1/api && git -C" in violation["detail"] and "merge other" in violation["detail"]


def test_branch_rewritten_off_the_pinned_base_is_rejected(repo, coord):
    wt = start(coord)
    tree = git(wt, "rev-parse", "HEAD^{tree}")
    orphan = git(wt, "commit-tree", tree, "-m", "unrelated history")
    git(wt, "reset", "-q", "--hard", orphan)
    done = coord.finish_task("r1", "api")
    assert rules(done) == {("not_from_base", "")}


def test_violation_through_the_cli_exits_3_with_every_path(repo):
    assert wtc(repo, "run", "start", "--run", "r1")[0] == 0
    code, started = wtc(repo, "task", "start", "t", "--run", "r1", "--own", "packages/api/**")
    assert code == 0 and started["schema"] == "wtc.task.start/1"
    wt = Path(started["worktree"])
    write(wt, {"packages/web/index.js": "x\n", "docs/new.md": "y\n"})
    code, finished = wtc(repo, "task", "finish", "t", "--run", "r1")
    assert code == 3
    assert finished["state"] == "rejected"
    assert {v["path"] for v in finished["violations"]} == {"packages/web/index.js", "docs/new.md"}
    # The way out is in the JSON too (an agent reading --json or an MCP result has no text renderer).
    assert finished["notes"][0] == f"fix the paths in {wt} and run `wtc task finish t --run r1` again"
    assert "restore --source=" in finished["notes"][1] and "docs/new.md packages/web/index.js" in finished["notes"][1]


@pytest.mark.parametrize("path, refused", [
    (".git/config", True), ("pkg/.GIT/hooks/pre-commit", True), ("pkg/.git. /x", True), ("pkg/GIT~1/x", True),
    ("pkg/.gitignore", False), ("pkg/legit/x.py", False), ("pkg/digits/git.py", False), ("pkg/a.py", False),
])
def test_a_path_under_a_git_folder_is_refused_whatever_its_case_and_trailing_dots(path, refused):
    """Checked from the commits alone (a merge's boundary checked again): a part that is `.git` or
    `git~1` once lowered and stripped of trailing dots and spaces (as Windows reads it) is refused,
    whatever else the path holds; a name that merely contains "git" is the task's own."""
    from worktree_coord.boundary.check import check_changes
    from worktree_coord.gitrepo.repository import Change
    from worktree_coord.model import Boundary

    report = check_changes([Change(path, None, 0o100644, None, "0" * 40)], Boundary(own=("**",)), lambda oid: b"")
    assert [v.rule for v in report.violations] == (["git_dir"] if refused else []), report.violations
