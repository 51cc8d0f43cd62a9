"""Regressions of issue 11 not covered by the end-to-end path: markers a second `task update` must
not forget, labels of the dry run in `check`, the sparse fallback said out loud, the not_from_base
how-to, and a repeat consolidation that has nothing to do while intents are unapplied."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import git, make_repo, write
from tests.lead.helpers import cli
from worktree_coord.coordinator import Coordinator

CODE = {"m.py": "a = 1\nb = 2\nc = 3\n", "docs/x.rst": "x\n", "README.md": "r\n"}


def two_tasks_on_one_line(repo: Path, coord: Coordinator) -> None:
    coord.start_run("r")
    first = Path(coord.start_task("r", "u1", ["m.py"]).worktree)
    second = Path(coord.start_task("r", "u2", ["m.py"]).worktree)
    write(first, {"m.py": "a = 1\nb = 111  # U1\nc = 3\n"})
    write(second, {"m.py": "a = 1\nb = 222  # U2\nc = 3\n"})
    assert coord.finish_task("r", "u1").state == "merged"
    assert coord.finish_task("r", "u2").state == "conflict"


def test_a_second_update_keeps_unresolved_markers_pending_and_finish_refuses_them(tmp_path):
    repo = make_repo(tmp_path / "repo", CODE)
    with Coordinator(repo) as coord:
        two_tasks_on_one_line(repo, coord)
        first = coord.update_task("r", "u2")
        assert first.conflicted_paths == ["m.py"] and first.exit_code == 1
        text = (Path(first.worktree) / "m.py").read_text()
        assert text.index("<<<<<<< task u2\n") < text.index("# U2") < text.index("=======") < text.index("# U1") \
            < text.index(">>>>>>> integration r")
        # Asked again without resolving: the markers were committed "before update", and must stay
        # pending instead of being reported as a clean merge.
        again = coord.update_task("r", "u2", key="second-update")
        assert again.conflicted_paths == ["m.py"] and again.exit_code == 1 and not again.merged_cleanly
        refused = coord.finish_task("r", "u2")
        # Not a boundary violation: a conflict the agent has not resolved yet (exit 1), the worktree kept
        assert refused.state == "conflict" and refused.exit_code == 1 and not refused.violations
        assert [(c["path"], c["kind"]) for c in refused.conflicts] == [("m.py", "unresolved_markers")]
        assert "# U2" in refused.conflicts[0]["ours"] and "# U1" in refused.conflicts[0]["theirs"]
        assert Path(first.worktree).is_dir()
        assert coord.finish_task("r", "u2").conflicts == refused.conflicts      # asked again: the same
        assert "U2" not in git(repo, "show", "wtc/r/integration:m.py")


def test_the_dry_run_in_check_labels_the_target_over_its_own_content(tmp_path):
    repo = make_repo(tmp_path / "repo", CODE)
    git(repo, "checkout", "-qb", "feature")
    write(repo, {"m.py": "a = 1\nb = 222  # feature\nc = 3\n"})
    git(repo, "commit", "-qam", "feature")
    git(repo, "checkout", "-q", "main")
    write(repo, {"m.py": "a = 1\nb = 111  # main\nc = 3\n"})
    git(repo, "commit", "-qam", "main")
    code, body = cli(repo, "check", "--head", "feature", "--target", "main", "--own", "**", expect=1)
    [finding] = [f for f in body["findings"] if f["rule"] == "merge_conflict"]
    details = finding["details"]
    assert details["labels"] == {"ours": "main", "base": "base", "theirs": "feature"}
    assert "# main" in details["ours"] and "# feature" in details["theirs"]


def test_sparse_with_globs_in_any_folder_says_it_checked_out_everything(tmp_path):
    repo = make_repo(tmp_path / "repo", CODE)
    cli(repo, "run", "start", "--run", "r", expect=0)
    _, body = cli(repo, "task", "start", "t", "--run", "r", "--own", "*.rst", "--sparse", expect=0)
    assert body["sparse_cone"] is None
    assert any("'*.rst'" in note and "full checkout" in note for note in body["notes"])
    _, text = cli(repo, "task", "start", "t2", "--run", "r", "--own", "docs/**", "--sparse", json_mode=False, expect=0)
    assert "note:" not in text


def test_not_from_base_says_how_to_put_the_work_back(tmp_path):
    repo = make_repo(tmp_path / "repo", CODE)
    with Coordinator(repo) as coord:
        coord.start_run("r")
        worktree = Path(coord.start_task("r", "t", ["m.py"]).worktree)
        git(worktree, "checkout", "-q", "--orphan", "tmp")
        git(worktree, "commit", "-qm", "unrelated history")
        git(worktree, "branch", "-f", "wtc/r/t", "tmp")
        git(worktree, "checkout", "-q", "wtc/r/t")
        done = coord.finish_task("r", "t")
        [violation] = done.violations
        assert violation["rule"] == "not_from_base" and "rebase" in violation["detail"]


def test_a_repeat_consolidate_with_nothing_to_do_names_what_is_unapplied(tmp_path):
    repo = make_repo(tmp_path / "repo", {**CODE, "package.json": '{\n  "name": "root",\n  "version": "1.0.0"\n}\n'})
    cli(repo, "run", "start", "--run", "r", expect=0)
    _, started = cli(repo, "task", "start", "t", "--run", "r", "--own", "docs/**", expect=0)
    worktree = Path(started["worktree"])
    write(worktree, {"docs/x.rst": "y\n",
                     "package.json": '{\n  "name": "root",\n  "version": "1.0.0",\n  "dependencies": {"lodash": "^4"}\n}\n'})
    cli(repo, "task", "finish", "t", "--run", "r", "--no-merge", expect=0)
    _, body = cli(repo, "consolidate", "--run", "r", expect=1)
    assert body["roots"] == [] and [row["task"] for row in body["skipped"]] == ["t"]
    assert "finished" in body["skipped"][0]["why"] and "wtc task finish t" in body["skipped"][0]["fix"]
    _, text = cli(repo, "consolidate", "--run", "r", "--key", "again", json_mode=False, expect=1)
    assert "1 intent(s) not applied" in text and "t:package.json:add_dep:dependencies:lodash" in text


def test_report_names_a_sync_as_the_origin_of_what_it_brought(tmp_path):
    repo = make_repo(tmp_path / "repo", CODE)
    with Coordinator(repo) as coord:
        coord.start_run("r")
        worktree = Path(coord.start_task("r", "t", ["docs/**"]).worktree)
        write(worktree, {"docs/x.rst": "task\n"})
        assert coord.finish_task("r", "t").state == "merged"
        write(repo, {"README.md": "moved on main\n"})
        git(repo, "commit", "-qam", "main moved")
        assert coord.sync("r", "main").exit_code == 0
        report = coord.report("r")   # against the pin: both the task's file and what the sync brought
        where = {f["path"]: f["origin"] for f in report.files}
        assert where == {"docs/x.rst": "task t", "README.md": "sync from main"}
        onto_main = {f["path"] for f in coord.report("r", onto="main").files}
        assert onto_main == {"docs/x.rst"}, "main already holds what the sync brought from it"


def test_a_report_onto_the_branch_a_sync_brought_does_not_name_the_sync_for_a_file_the_task_also_changed(tmp_path):
    """A file both a task and main changed merges cleanly at `wtc sync --from main`; `wtc report --onto
    main` diffs against main, where all that differs is the task's change, and it said "task t, sync
    from main". Against the pin the sync did bring main's part, and says so."""
    repo = make_repo(tmp_path / "repo", CODE)
    with Coordinator(repo) as coord:
        coord.start_run("r")
        worktree = Path(coord.start_task("r", "t", ["m.py"]).worktree)
        write(worktree, {"m.py": "a = 10\nb = 2\nc = 3\n"})
        assert coord.finish_task("r", "t").state == "merged"
        write(repo, {"m.py": "a = 1\nb = 2\nc = 30\n"})
        git(repo, "commit", "-qam", "main moved")
        assert coord.sync("r", "main").exit_code == 0
        onto_main = {f["path"]: f["origin"] for f in coord.report("r", onto="main").files}
        assert onto_main == {"m.py": "task t"}, onto_main
        against_pin = {f["path"]: f["origin"] for f in coord.report("r").files}
        assert against_pin == {"m.py": "task t, sync from main"}, against_pin
    _, text = cli(repo, "report", "--run", "r", "--onto", "main", json_mode=False, expect=0)
    assert "sync from main" not in text, text


def test_a_person_approving_at_the_prompt_sees_the_leftovers_named_in_the_question(tmp_path):
    import os
    import pty
    import subprocess
    import sys

    repo = make_repo(tmp_path / "repo", CODE)
    with Coordinator(repo) as coord:
        coord.start_run("r")
        worktree = Path(coord.start_task("r", "t", ["docs/**"]).worktree)
        write(worktree, {"docs/x.rst": "task\n"})
        coord.finish_task("r", "t")
        coord.start_task("r", "late", ["m.py"])            # still started: a leftover
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "worktree_coord", "land", "--run", "r", "--onto", "main"],
                            cwd=repo, stdin=follower, stdout=follower, stderr=follower, close_fds=True)
    os.close(follower)
    seen = b""
    while b"[y/N]" not in seen:
        chunk = os.read(leader, 4096)
        assert chunk, seen
        seen += chunk
    os.write(leader, b"y\n")
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    assert proc.wait(timeout=60) == 0, seen
    text = seen.decode()
    assert "LEAVING OUT 1 task(s) started (late)" in text
    assert "left out: task late is started" in text
    assert git(repo, "rev-parse", "main") == git(repo, "rev-parse", "wtc/r/integration")
