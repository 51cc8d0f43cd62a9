"""`worktree_coord.check.check` on real repositories: findings, lines, exit codes, boundary sources."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.ci.ci_helpers import clean_branch, commit_all, messy_branch, repo_state
from tests.conftest import git, make_repo, write
from worktree_coord.ci import CheckReport, check, check_staged
from worktree_coord.errors import UsageError
from worktree_coord.merge.result import FileMerge, Strategy


def by_rule(report: CheckReport, rule: str):
    return [f for f in report.findings if f.rule == rule]


def test_clean_branch_passes_with_base_at_the_merge_base(tmp_path):
    s = clean_branch(tmp_path)
    report = check(s.repo, own=["packages/api/**"])
    assert report.exit_code == 0 and report.ok
    assert report.findings == ()
    assert report.head == s.head and report.base == s.base
    assert report.merge.attempted and report.merge.clean and report.merge.target == "main"
    assert report.merge.target_tip == s.main_tip
    assert [c["path"] for c in report.changed] == ["packages/api/src/index.py"]


def test_messy_branch_reports_violation_reserved_edit_and_conflict_on_lines(tmp_path):
    s = messy_branch(tmp_path)
    report = check(s.repo, own=["packages/api/**"])
    outside = by_rule(report, "outside_own")
    assert [(f.path, f.start_line, f.end_line) for f in outside] == [("packages/web/app.ts", 2, 2)]
    reserved = by_rule(report, "reserved_edit")
    assert [(f.path, f.severity.value) for f in reserved] == [("package.json", "note")]
    # the same intents `wtc task finish` derives: the root manifest's new dependency
    assert [(i["manifest"], i["op"], i["name"], i["spec"]) for i in report.intents] == [
        ("package.json", "add_dep", "left-pad", "1.3.0")]
    conflicts = by_rule(report, "merge_conflict")
    # main changed line 2 of index.py too; the finding sits on line 2 of the head version
    assert [(f.path, f.start_line) for f in conflicts] == [("packages/api/src/index.py", 2)]
    assert "great" in conflicts[0].details["theirs"] and "fine" in conflicts[0].details["ours"]
    # the structured merge names the declaration the conflict sits in
    assert conflicts[0].declaration == "def health" and conflicts[0].details["strategy"] == "structured"
    # both sides edited package.json, yet it is no merge conflict: reserved edits stay out of the merge
    assert all(f.path != "package.json" for f in conflicts)
    assert report.exit_code == 3, "boundary violations win over merge conflicts"


def test_conflict_alone_exits_1(tmp_path):
    s = messy_branch(tmp_path)
    report = check(s.repo, own=["packages/**"])
    assert not report.violations and len(report.conflicts) == 1
    assert report.exit_code == 1


def test_the_check_never_moves_a_ref_or_touches_index_or_worktrees(tmp_path):
    s = messy_branch(tmp_path)
    before = repo_state(s.repo)
    check(s.repo, own=["packages/api/**"])
    check(s.repo, own=["packages/**"], target=s.main_tip)
    assert repo_state(s.repo) == before
    assert not (s.repo / ".git" / "wtc").exists(), "no store or lock files for a read-only check"
    assert not (s.repo / ".wtc").exists()


def test_resolver_that_resolves_clears_the_conflict_and_is_listed(tmp_path):
    s = messy_branch(tmp_path)

    def take_theirs(files):
        return {f.path: FileMerge(f.theirs, True, Strategy.STRUCTURED) for f in files}

    report = check(s.repo, own=["packages/**"], resolver=take_theirs)
    assert report.exit_code == 0
    assert report.merge.resolved == ("packages/api/src/index.py",)


def test_symlink_leaving_the_repository_is_a_violation(tmp_path):
    s = clean_branch(tmp_path)
    os.symlink("../../../../etc/passwd", s.repo / "packages/api/src/passwd")
    commit_all(s.repo, "feature: a link out")
    report = check(s.repo, own=["packages/api/**"])
    assert [f.path for f in by_rule(report, "symlink_outside_repo")] == ["packages/api/src/passwd"]
    assert report.exit_code == 3


def test_explicit_base_head_and_target(tmp_path):
    s = messy_branch(tmp_path)
    git(s.repo, "checkout", "-q", "main")
    report = check(s.repo, head="feature", base=s.base, target="main", own=["packages/api/**"])
    assert report.head == s.head and report.head_label == "feature"
    assert report.exit_code == 3


def test_a_base_outside_the_heads_history_is_a_usage_error_pointing_at_target(tmp_path):
    # `--base main` where main moved since the branch left it: the diff would undo main's own commits.
    s = messy_branch(tmp_path)
    with pytest.raises(UsageError) as caught:
        check(s.repo, head="feature", base="main", own=["packages/api/**"])
    assert caught.value.exit_code == 2 and "not in the history of the head" in caught.value.message
    assert "--target main" in caught.value.fix


def test_bad_revision_is_a_usage_error(tmp_path):
    s = clean_branch(tmp_path)
    with pytest.raises(UsageError) as caught:
        check(s.repo, own=["packages/api/**"], target="no-such-branch")
    assert caught.value.exit_code == 2 and "no-such-branch" in caught.value.message


def test_no_boundary_is_a_usage_error_naming_the_ways_to_give_one(tmp_path):
    s = clean_branch(tmp_path)
    with pytest.raises(UsageError) as caught:
        check(s.repo)
    assert "--own" in (caught.value.fix or "") and ".wtc-boundary.toml" in (caught.value.fix or "")


def test_committed_manifest_gives_the_boundary_and_its_change_is_flagged(tmp_path):
    s = messy_branch(tmp_path)
    write(s.repo, {".wtc-boundary.toml": 'own = ["packages/api/**", "packages/web/**"]\ntarget = "main"\n'})
    commit_all(s.repo, "feature: boundary manifest")
    report = check(s.repo)
    assert report.boundary.kind == "manifest" and report.boundary.manifest == ".wtc-boundary.toml"
    assert report.boundary.manifest_version == "head"  # the base has none: the branch's own is used
    assert not by_rule(report, "outside_own")
    warned = by_rule(report, "manifest_changed")
    assert [(f.path, f.severity.value) for f in warned] == [(".wtc-boundary.toml", "warning")]
    assert report.exit_code == 1  # the conflict is left; the warning does not fail


def test_manifest_on_main_is_not_flagged_when_unchanged(tmp_path):
    repo = make_repo(tmp_path / "repo", {"a/x.txt": "1\n", "b/y.txt": "1\n",
                                         ".wtc-boundary.toml": 'own = ["a/**"]\n'})
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {"a/x.txt": "2\n", "b/y.txt": "2\n"})
    commit_all(repo, "feature")
    report = check(repo)
    assert [f.rule for f in report.findings] == ["outside_own"]


@pytest.mark.parametrize("text, needle", [
    ('own = "a/**"\nextra = 1\n', "unknown key 'extra'"),
    ("own = [\n", "not valid TOML"),
    ("read = ['a/**']\n", "no `own` globs"),
    ("own = ['../up/**']\n", "'..'"),
])
def test_bad_manifest_is_a_usage_error(tmp_path, text, needle):
    repo = make_repo(tmp_path / "repo", {"a/x.txt": "1\n"})
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {".wtc-boundary.toml": text, "a/x.txt": "2\n"})
    commit_all(repo, "feature")
    with pytest.raises(UsageError) as caught:
        check(repo)
    assert needle in caught.value.message


def test_manifest_path_on_disk_outside_the_repository(tmp_path):
    s = messy_branch(tmp_path)
    outside = tmp_path / "boundary.toml"
    outside.write_text('own = ["packages/**", "package.json"]\n')
    report = check(s.repo, manifest=str(outside))
    assert report.boundary.kind == "manifest" and not report.violations


def test_rules_come_from_the_target_not_from_the_branch(tmp_path):
    repo = make_repo(tmp_path / "repo", {
        "pyproject.toml": '[project]\nname = "x"\n\n[tool.worktree-coord]\nreserved-add = ["config/*.yml"]\n',
        "config/app.yml": "a: 1\n", "src/m.py": "x = 1\n"})
    git(repo, "checkout", "-q", "-b", "feature")
    # the branch drops the rule and edits the file it protected
    write(repo, {"pyproject.toml": '[project]\nname = "x"\n', "config/app.yml": "a: 2\n"})
    commit_all(repo, "feature: relax the rules")
    report = check(repo, own=["src/**", "config/**"])
    assert sorted(f.path for f in by_rule(report, "reserved_edit")) == ["config/app.yml", "pyproject.toml"]


def test_default_target_follows_origin_head(tmp_path):
    origin = make_repo(tmp_path / "origin", {"a/x.txt": "1\n"})
    git(origin, "branch", "-m", "main", "trunk")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    git(clone, "checkout", "-q", "-b", "feature")
    write(clone, {"a/x.txt": "2\n"})
    commit_all(clone, "feature")
    report = check(clone, own=["a/**"])
    assert report.merge.target == "origin/trunk" and report.exit_code == 0


def test_run_and_task_from_the_store(tmp_path):
    from worktree_coord.coordinator import Coordinator

    repo = make_repo(tmp_path / "repo", {"a/x.txt": "1\n", "b/y.txt": "1\n"})
    with Coordinator(repo) as coordinator:
        coordinator.start_run("r1")
        started = coordinator.start_task("r1", "t1", ["a/**"])
    worktree = Path(started.worktree)
    write(worktree, {"a/x.txt": "2\n", "b/y.txt": "2\n"})
    git(worktree, "add", "-A")
    git(worktree, "commit", "-q", "-m", "agent work")
    report = check(repo, run="r1", task="t1")
    assert report.boundary.kind == "task" and report.boundary.own == ("a/**",)
    assert report.head_label == "wtc/r1/t1" and report.merge.target == "wtc/r1/integration"
    assert [f.path for f in report.violations] == ["b/y.txt"]
    with pytest.raises(UsageError):
        check(repo, run="r1", task="nope")
    with pytest.raises(UsageError):
        check(repo, run="r1")


def test_staged_check_sees_the_index_only(tmp_path):
    repo = make_repo(tmp_path / "repo", {"a/x.txt": "1\n", "b/y.txt": "1\n"})
    write(repo, {"b/y.txt": "2\n", "a/x.txt": "2\n"})
    git(repo, "add", "a/x.txt")  # b/y.txt changed but is not staged
    report = check_staged(repo, own=["a/**"])
    assert report.ok and [c["path"] for c in report.changed] == ["a/x.txt"]
    git(repo, "add", "b/y.txt")
    report = check_staged(repo, own=["a/**"])
    assert [(f.rule, f.path) for f in report.findings] == [("outside_own", "b/y.txt")]
    assert not report.merge.attempted and report.exit_code == 3


def test_staged_check_in_a_repository_without_commits(tmp_path):
    repo = tmp_path / "fresh"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    write(repo, {"a/x.txt": "1\n", ".wtc-boundary.toml": 'own = ["a/**"]\n'})
    git(repo, "add", "-A")
    report = check_staged(repo)
    assert report.boundary.kind == "manifest"
    assert [f.rule for f in report.findings] == ["manifest_changed"]
    assert report.exit_code == 0


def test_head_inside_a_linked_worktree_is_that_worktrees_head(tmp_path):
    s = clean_branch(tmp_path)
    git(s.repo, "checkout", "-q", "main")
    linked = tmp_path / "linked"
    git(s.repo, "worktree", "add", "-q", str(linked), "feature")
    write(linked, {"packages/web/app.ts": "changed\n"})
    head = commit_all(linked, "feature: outside")
    report = check(linked, own=["packages/api/**"])
    assert report.head == head
    assert [f.path for f in report.violations] == ["packages/web/app.ts"]


def test_head_and_base_spelled_with_head_inside_a_linked_worktree_are_that_worktrees(tmp_path):
    """Found driving wtc on headlessui: `wtc check --base <pin> --head HEAD` in a task's worktree
    checked the main checkout's HEAD ("clean: 0 changed files") while the task had changed twelve;
    only the default head read the worktree's. `HEAD`, `HEAD~1` and `@` are the checkout's own."""
    s = clean_branch(tmp_path)
    git(s.repo, "checkout", "-q", "main")
    linked = tmp_path / "linked"
    git(s.repo, "worktree", "add", "-q", str(linked), "feature")
    write(linked, {"packages/web/app.ts": "changed\n"})
    head = commit_all(linked, "feature: outside")
    for spelled in ("HEAD", "@"):
        report = check(linked, own=["packages/api/**"], head=spelled, base="HEAD~1")
        assert (report.head, report.base) == (head, s.head), spelled
        assert [f.path for f in report.violations] == ["packages/web/app.ts"], spelled
    assert check(s.repo, own=["packages/api/**"], head="HEAD").head == s.main_tip, "the main checkout's own HEAD"


def test_deleted_file_outside_is_a_file_level_finding(tmp_path):
    s = clean_branch(tmp_path)
    (s.repo / "packages/web/app.ts").unlink()
    commit_all(s.repo, "feature: delete web")
    [finding] = check(s.repo, own=["packages/api/**"]).violations
    assert (finding.path, finding.start_line, finding.end_line) == ("packages/web/app.ts", None, None)
    assert finding.message.startswith("deleted")


def test_target_that_did_not_move_is_a_fast_forward(tmp_path):
    repo = make_repo(tmp_path / "repo", {"a/x.txt": "1\n"})
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {"a/x.txt": "2\n"})
    commit_all(repo, "feature")
    report = check(repo, own=["a/**"])
    assert report.ok and report.merge.clean and "fast-forward" in report.merge.reason


def test_head_already_in_the_target_has_nothing_to_merge(tmp_path):
    s = clean_branch(tmp_path)
    git(s.repo, "checkout", "-q", "main")
    git(s.repo, "merge", "-q", "--no-edit", "feature")
    report = check(s.repo, head="feature", own=["packages/api/**"])
    assert report.ok and report.changed == () and "already in the target" in report.merge.reason


def test_reserved_edit_no_intent_can_express_is_refused_like_finish_refuses_it(tmp_path):
    from tests.ci.ci_helpers import BASE_FILES

    cargo = '[workspace]\nmembers = []\n[workspace.metadata]\nreleased = 2024-05-01\n'
    repo = make_repo(tmp_path / "repo", {**BASE_FILES, "Cargo.toml": cargo})
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {"Cargo.toml": cargo.replace("05-01", "06-01")})
    commit_all(repo, "feature: another date in the root manifest")
    report = check(repo, base="main", own=["packages/api/**"])
    assert [(f.rule, f.path) for f in report.violations] == [("reserved_unexpressible", "Cargo.toml")]
    assert "workspace.metadata.released" in report.violations[0].message and report.exit_code == 3


def test_a_root_manifest_script_becomes_a_setting_intent_not_a_violation(tmp_path):
    s = clean_branch(tmp_path)
    write(s.repo, {"package.json": '{\n  "name": "root",\n  "private": true,\n  "scripts": {"test": "x"}\n}\n'})
    commit_all(s.repo, "feature: a script in the root manifest")
    report = check(s.repo, own=["packages/api/**"])
    assert [f for f in report.violations if f.path == "package.json"] == []
    assert ("set_key", "scripts.test", '"x"') in [(i["op"], i["name"], i["spec"]) for i in report.intents]
    from worktree_coord.ci import text

    assert 'intent: package.json: set_key scripts.test = "x"' in text.render(report)


def test_a_branch_cannot_widen_the_boundary_its_base_committed(tmp_path):
    repo = make_repo(tmp_path / "repo", {"a/x.txt": "1\n", "b/y.txt": "1\n", ".wtc-boundary.toml": 'own = ["a/**"]\n'})
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {".wtc-boundary.toml": 'own = ["**"]\n', "b/y.txt": "2\n"})
    commit_all(repo, "feature: widen my own boundary")
    report = check(repo)
    assert report.boundary.own == ("a/**",) and report.boundary.manifest_version == "base"
    assert [(f.rule, f.path) for f in report.findings] == [("manifest_changed", ".wtc-boundary.toml"),
                                                           ("outside_own", "b/y.txt")]
    assert "version at the merge base" in report.findings[0].message
    assert report.exit_code == 3


def test_a_deleted_manifest_still_governs_from_the_base(tmp_path):
    repo = make_repo(tmp_path / "repo", {"a/x.txt": "1\n", "b/y.txt": "1\n", ".wtc-boundary.toml": 'own = ["a/**"]\n'})
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / ".wtc-boundary.toml").unlink()
    write(repo, {"b/y.txt": "2\n"})
    commit_all(repo, "feature: drop the manifest")
    report = check(repo)
    assert report.boundary.manifest_version == "base"
    assert {f.rule for f in report.findings} == {"manifest_changed", "outside_own"}


def test_a_broken_manifest_on_the_branch_does_not_hide_the_base_boundary(tmp_path):
    repo = make_repo(tmp_path / "repo", {"a/x.txt": "1\n", "b/y.txt": "1\n", ".wtc-boundary.toml": 'own = ["a/**"]\n'})
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {".wtc-boundary.toml": "own = [\n", "b/y.txt": "2\n"})
    commit_all(repo, "feature: break the manifest")
    report = check(repo)
    assert report.boundary.manifest_version == "base"
    assert {f.rule for f in report.findings} == {"manifest_changed", "outside_own"}


def test_structured_merge_resolves_what_git_alone_leaves_conflicted(tmp_path):
    repo = make_repo(tmp_path / "repo", {"m.py": "def a():\n    return 1\n"})
    base = git(repo, "rev-parse", "HEAD")
    write(repo, {"m.py": "def a():\n    return 1\n\n\ndef c():\n    return 3\n"})
    commit_all(repo, "main: def c")
    git(repo, "checkout", "-q", "-b", "feature", base)
    write(repo, {"m.py": "def a():\n    return 1\n\n\ndef d():\n    return 4\n"})
    commit_all(repo, "feature: def d")
    assert git(repo, "merge-tree", "--write-tree", "main", "feature", check=False).count("\n") >= 1
    assert "CONFLICT" in git(repo, "merge-tree", "--write-tree", "--messages", "main", "feature", check=False)
    report = check(repo, own=["m.py"])
    assert report.ok and report.merge.resolved == ("m.py",)


def test_the_coordinator_offers_the_same_check(tmp_path):
    from tests.conftest import git, make_repo, write
    from worktree_coord import Coordinator

    repo = make_repo(tmp_path / "repo")
    git(repo, "switch", "-q", "-c", "feature")
    write(repo, {"packages/web/index.js": "outside\n", "packages/api/index.js": "inside\n"})
    git(repo, "commit", "-qam", "feature")
    with Coordinator(repo) as coord:
        report = coord.check(own=["packages/api/**"], target="main")
    assert report.exit_code == 3
    assert [v.path for v in report.violations] == ["packages/web/index.js"]


def test_run_and_task_from_the_store_the_environment_names(tmp_path, monkeypatch):
    """`WTC_STORE` (or `store` in the configuration) decides where the runs are, for check as for
    every other command: a run kept there is found, and none is created in the default place."""
    from worktree_coord.coordinator import Coordinator

    repo = make_repo(tmp_path / "repo", {"a/x.txt": "1\n", "b/y.txt": "1\n"})
    monkeypatch.setenv("WTC_STORE", f"sqlite:{tmp_path / 'elsewhere.sqlite3'}")
    with Coordinator(repo) as coordinator:
        coordinator.start_run("r1")
        started = coordinator.start_task("r1", "t1", ["a/**"])
    write(Path(started.worktree), {"b/y.txt": "2\n"})
    commit_all(Path(started.worktree), "agent work")
    report = check(repo, run="r1", task="t1")
    assert report.boundary.own == ("a/**",) and [f.path for f in report.violations] == ["b/y.txt"]
    assert not (repo / ".git" / "wtc" / "state.sqlite3").exists()
    monkeypatch.setenv("WTC_STORE", f"sqlite:{tmp_path / 'empty.sqlite3'}")
    with pytest.raises(UsageError, match="no wtc store"):
        check(repo, run="r1", task="t1")
    assert not (tmp_path / "empty.sqlite3").exists(), "a check opens no store where there is none"
