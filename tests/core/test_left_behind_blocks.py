"""A use the landed tree keeps of a name the run removed blocks, like a semantic conflict does.

Found driving wtc on encode/httpx: a task deleted `unquote` from `httpx/_utils.py`, `httpx/_auth.py`
(no task touched it) still imported it; `task check` said "merges cleanly everywhere", `finish`,
`report` and `land --yes` exited 0, and `import httpx` then failed. Now (the run's left-behind mode,
block by default): the merge refuses it as a conflict of kind `left_behind` naming the file, lines
(the import first) and name, the live task that owns the file is named, `task check` exits 1,
and `land` refuses while any remains unless the person approves it by name. `warn` and `off` are
the run's other modes.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import git, make_repo, wtc_in_process

FILES = {
    "pkg/__init__.py": "",
    "pkg/utils.py": "def unquote(s):\n    return s.strip('\"')\n\n\ndef other():\n    return 1\n",
    "pkg/auth.py": "from pkg.utils import unquote\n\n\ndef auth(x):\n    return unquote(x)\n",
}
WITHOUT_UNQUOTE = "def other():\n    return 1\n"


def _run(tmp_path: Path, *options: str) -> Path:
    repo = make_repo(tmp_path / "repo", FILES)
    assert wtc_in_process(repo, "run", "start", "--run", "r", *options)[0] == 0
    return repo


def _delete_unquote(repo: Path, task: str = "d5") -> Path:
    code, body = wtc_in_process(repo, "task", "start", task, "--run", "r", "--own", "pkg/utils.py")
    assert code == 0, body
    worktree = Path(body["worktree"])
    (worktree / "pkg/utils.py").write_text(WITHOUT_UNQUOTE)
    return worktree


def test_finish_refuses_a_removal_whose_name_untouched_code_still_uses(tmp_path):
    repo = _run(tmp_path)
    _delete_unquote(repo)
    tip = git(repo, "rev-parse", "wtc/r/integration")

    code, body = wtc_in_process(repo, "task", "finish", "d5", "--run", "r")
    assert code == 1 and body["state"] == "conflict", body
    left = [c for c in body["conflicts"] if c["kind"] == "left_behind"]
    assert [(c["path"], c["start_line"], c["semantic"]["name"]) for c in left] == \
        [("pkg/auth.py", 1, "unquote"), ("pkg/auth.py", 5, "unquote")]          # the import first
    assert left[0]["semantic"]["removed_by_task"] == "d5" and left[0]["semantic"]["used_by_task"] is None
    assert git(repo, "rev-parse", "wtc/r/integration") == tip                      # nothing landed
    assert any("keep the old name too" in n and "wtc task widen d5 --run r --own '/pkg/auth.py'" in n
               for n in body["notes"]), body["notes"]
    assert not any(n.startswith("run `wtc task update d5") for n in body["notes"])  # no markers to resolve
    # ... but the finish removed the worktree the fix is made in: the notes say how to get it back
    # (found driving wtc on spf13/cobra: after `task widen`, the worktree the note sent the agent to was gone).
    assert not Path(body["worktree"] or repo / ".wtc/worktrees/r/d5").exists()
    assert any("`wtc task update d5 --run r` brings it back" in n for n in body["notes"]), body["notes"]

    text = subprocess.run([sys.executable, "-m", "worktree_coord", "task", "finish", "d5", "--run", "r"],
                          cwd=repo, capture_output=True, text=True)
    assert text.returncode == 1 and "(left behind)" in text.stdout and "pkg/auth.py:1 uses unquote" in text.stdout


def test_task_check_exits_1_on_it_before_the_finish(tmp_path):
    repo = _run(tmp_path)
    _delete_unquote(repo)
    code, body = wtc_in_process(repo, "task", "check", "d5", "--run", "r")
    assert code == 1 and body["clean"] and body["left_behind_blocks"], body
    assert [(u["use_path"], u["use_lines"]) for u in body["left_behind"]] == [("pkg/auth.py", [1, 5])]
    text = subprocess.run([sys.executable, "-m", "worktree_coord", "task", "check", "d5", "--run", "r"],
                          cwd=repo, capture_output=True, text=True)
    assert "WOULD BE REFUSED" in text.stdout and "merges cleanly everywhere" not in text.stdout


def test_a_live_task_owning_the_use_is_named_and_a_retry_merges_once_it_updated_the_use(tmp_path):
    repo = _run(tmp_path)
    _delete_unquote(repo)
    code, fix = wtc_in_process(repo, "task", "start", "fix", "--run", "r", "--own", "pkg/auth.py")
    assert code == 0

    code, body = wtc_in_process(repo, "task", "finish", "d5", "--run", "r")
    assert code == 1
    assert {tuple(c["owned_by"]) for c in body["conflicts"] if c["kind"] == "left_behind"} == {("fix",)}
    assert any(n.startswith("task fix owns pkg/auth.py") and "wtc task finish d5 --run r" in n
               for n in body["notes"]), body["notes"]

    (Path(fix["worktree"]) / "pkg/auth.py").write_text("def auth(x):\n    return x.strip('\"')\n")
    assert wtc_in_process(repo, "task", "finish", "fix", "--run", "r")[0] == 0
    code, body = wtc_in_process(repo, "task", "finish", "d5", "--run", "r")                    # the retry the note names
    assert code == 0 and body["state"] == "merged", body
    assert "unquote" not in git(repo, "show", "wtc/r/integration:pkg/utils.py")


def test_a_use_another_task_already_updated_on_integration_does_not_block(tmp_path):
    repo = _run(tmp_path)
    worktree = _delete_unquote(repo)
    code, fix = wtc_in_process(repo, "task", "start", "fix", "--run", "r", "--own", "pkg/auth.py")
    (Path(fix["worktree"]) / "pkg/auth.py").write_text("def auth(x):\n    return x\n")
    assert wtc_in_process(repo, "task", "finish", "fix", "--run", "r")[0] == 0
    code, body = wtc_in_process(repo, "task", "check", "d5", "--run", "r")
    assert code == 0 and body["left_behind"] == [], body
    assert (worktree / "pkg/utils.py").read_text() == WITHOUT_UNQUOTE
    code, body = wtc_in_process(repo, "task", "finish", "d5", "--run", "r")
    assert code == 0 and body["state"] == "merged", body


def test_keeping_the_old_name_as_an_alias_merges(tmp_path):
    repo = _run(tmp_path)
    worktree = _delete_unquote(repo)
    (worktree / "pkg/utils.py").write_text(FILES["pkg/utils.py"].replace("def unquote", "def strip_quotes")
                                           + "\n\nunquote = strip_quotes\n")
    code, body = wtc_in_process(repo, "task", "finish", "d5", "--run", "r")
    assert code == 0 and body["state"] == "merged", body


def test_warn_mode_merges_with_a_warning_and_land_does_not_refuse(tmp_path):
    repo = _run(tmp_path, "--left-behind", "warn")
    _delete_unquote(repo)
    code, body = wtc_in_process(repo, "task", "finish", "d5", "--run", "r")
    assert code == 0 and body["state"] == "merged", body
    assert any(n.startswith("left behind warning: pkg/auth.py:1 uses unquote") for n in body["notes"]), body["notes"]
    code, report = wtc_in_process(repo, "report", "--run", "r", "--onto", "main")
    assert [(u["use_path"], u["use_lines"]) for u in report["left_behind"]] == [("pkg/auth.py", [1, 5])]
    assert sum(w.count("unquote") > 0 for w in report["warnings"]) == 1     # once, not again per merge warning
    code, landed = wtc_in_process(repo, "land", "--run", "r", "--onto", "main", "--yes")
    assert code == 0 and landed["left_behind"], landed


def test_off_mode_checks_nothing(tmp_path):
    repo = _run(tmp_path, "--left-behind", "off")
    _delete_unquote(repo)
    code, body = wtc_in_process(repo, "task", "finish", "d5", "--run", "r")
    assert code == 0 and body["state"] == "merged"
    assert not any("unquote" in n for n in body["notes"]), body["notes"]
    code, body = wtc_in_process(repo, "land", "--run", "r", "--onto", "main", "--yes")
    assert code == 0


def test_a_bad_mode_is_refused_naming_the_option(tmp_path):
    repo = make_repo(tmp_path / "repo", FILES)
    code, body = wtc_in_process(repo, "run", "start", "--run", "r", "--left-behind", "loud")
    assert code == 2 and "--left-behind block|warn|off" in body["error"]["fix"], body


def _commit_on_integration(repo: Path, files: dict[str, str]) -> None:
    """Someone commits to the integration branch by hand (no merge checked it)."""
    git(repo, "checkout", "-q", "wtc/r/integration")
    for rel, text in files.items():
        (repo / rel).write_text(text)
    git(repo, "commit", "-q", "-am", "by hand")
    git(repo, "checkout", "-q", "main")


def test_land_refuses_while_a_use_is_left_behind_unless_approved_by_name(tmp_path):
    repo = _run(tmp_path)
    _commit_on_integration(repo, {"pkg/utils.py": WITHOUT_UNQUOTE})
    main = git(repo, "rev-parse", "main")

    code, report = wtc_in_process(repo, "report", "--run", "r", "--onto", "main")
    assert code == 0 and [u["name"] for u in report["left_behind"]] == ["unquote"]
    assert any("--allow-left-behind unquote" in w for w in report["warnings"]), report["warnings"]

    code, body = wtc_in_process(repo, "land", "--run", "r", "--onto", "main", "--yes")
    assert code == 1 and body["error"]["kind"] == "action_required", body
    assert "unquote (pkg/auth.py:1, 5)" in body["error"]["message"]
    assert "--allow-left-behind unquote" in body["error"]["fix"]
    assert git(repo, "rev-parse", "main") == main

    code, body = wtc_in_process(repo, "land", "--run", "r", "--onto", "main", "--yes", "--allow-left-behind", "quote")
    assert code == 2 and "quote" in body["error"]["message"] and git(repo, "rev-parse", "main") == main

    code, body = wtc_in_process(repo, "land", "--run", "r", "--onto", "main", "--yes", "--allow-left-behind", "unquote")
    assert code == 0, body
    assert [u["name"] for u in body["left_behind"]] == ["unquote"]
    assert git(repo, "rev-parse", "main") == git(repo, "rev-parse", "wtc/r/integration")


def test_the_report_guesses_a_rename_only_from_the_removing_tasks_own_change(tmp_path):
    """`unquote, which task d5 removed or renamed (to is_private_hostname, it seems)`, where another
    task added `is_private_hostname` and d5 only deleted `unquote`."""
    repo = _run(tmp_path, "--left-behind", "warn")
    code, body = wtc_in_process(repo, "task", "start", "add", "--run", "r", "--own", "pkg/utils.py")
    (Path(body["worktree"]) / "pkg/utils.py").write_text(
        FILES["pkg/utils.py"] + "\n\ndef is_private_hostname(h):\n    return h.startswith('10.')\n")
    assert wtc_in_process(repo, "task", "finish", "add", "--run", "r")[0] == 0
    code, body = wtc_in_process(repo, "task", "start", "d5", "--run", "r", "--own", "pkg/utils.py")
    base = git(repo, "show", "wtc/r/integration:pkg/utils.py")
    assert wtc_in_process(repo, "task", "update", "d5", "--run", "r")[0] == 0
    (Path(body["worktree"]) / "pkg/utils.py").write_text(base.replace(FILES["pkg/utils.py"].split("\n\n\n")[0] + "\n\n\n", ""))
    assert wtc_in_process(repo, "task", "finish", "d5", "--run", "r")[0] == 0
    code, report = wtc_in_process(repo, "report", "--run", "r")
    assert [(u["name"], u["replacement"], u["tasks"]) for u in report["left_behind"]] == [("unquote", "", ["d5"])]
    assert not any("is_private_hostname" in w for w in report["warnings"]), report["warnings"]


def test_the_api_lands_with_names_approved(tmp_path):
    from worktree_coord import Coordinator

    repo = _run(tmp_path)
    _commit_on_integration(repo, {"pkg/utils.py": WITHOUT_UNQUOTE})
    with Coordinator(repo) as coordinator:
        landed = coordinator.land("r", "main", approved=True, allow_left_behind=["unquote"])
    assert landed.exit_code == 0 and [u["name"] for u in landed.left_behind] == ["unquote"]


def test_a_target_that_moved_and_uses_a_removed_name_is_caught_at_land(tmp_path):
    """The merges saw no use (nothing used `helper` at the pin when the task removed it), but main
    moved meanwhile and its new file imports it; `wtc sync` brings that in, and landing would ship
    a tree that does not import. Land refuses it, naming the name and the use."""
    files = dict(FILES, **{"pkg/helper.py": "def helper():\n    return 1\n\n\ndef other():\n    return 2\n"})
    repo = make_repo(tmp_path / "repo", files)
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    code, body = wtc_in_process(repo, "task", "start", "drop", "--run", "r", "--own", "pkg/helper.py")
    (Path(body["worktree"]) / "pkg/helper.py").write_text("def other():\n    return 2\n")
    assert wtc_in_process(repo, "task", "finish", "drop", "--run", "r")[0] == 0          # nothing used it: merged
    (repo / "pkg/late.py").write_text("from pkg.helper import helper\n\nVALUE = helper()\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "late use on main")
    assert wtc_in_process(repo, "sync", "--run", "r", "--from", "main")[0] == 0
    code, body = wtc_in_process(repo, "land", "--run", "r", "--onto", "main", "--yes")
    assert code == 1 and "helper (pkg/late.py:1, 3)" in body["error"]["message"], body
    code, body = wtc_in_process(repo, "report", "--run", "r", "--onto", "main")
    assert [(u["use_path"], u["tasks"]) for u in body["left_behind"]] == [("pkg/late.py", ["drop"])]


def test_a_finish_again_says_what_stands_now_not_what_the_last_conflict_said(tmp_path):
    """Found driving wtc on spf13/cobra: each finish again of a task left in conflict kept the last
    conflict's notes and added its own, so the advice repeated (four copies after three finishes)
    and "task goreq owns doc/... and is not merged yet" stayed after goreq had merged."""
    repo = _run(tmp_path)
    _delete_unquote(repo)
    code, fix = wtc_in_process(repo, "task", "start", "fix", "--run", "r", "--own", "pkg/auth.py")
    assert code == 0
    code, first = wtc_in_process(repo, "task", "finish", "d5", "--run", "r")
    assert code == 1 and any(n.startswith("task fix owns pkg/auth.py") for n in first["notes"]), first["notes"]

    # fix merges without touching the use: d5 still conflicts, but fix is no longer live.
    (Path(fix["worktree"]) / "pkg/auth.py").write_text(FILES["pkg/auth.py"] + "\n\nVERSION = 2\n")
    assert wtc_in_process(repo, "task", "finish", "fix", "--run", "r")[0] == 0
    code, again = wtc_in_process(repo, "task", "finish", "d5", "--run", "r")
    assert code == 1 and again["state"] == "conflict", again
    assert not any("is not merged yet" in n for n in again["notes"]), again["notes"]
    assert len(again["notes"]) == len(set(again["notes"])), again["notes"]
    code, third = wtc_in_process(repo, "task", "finish", "d5", "--run", "r")
    assert code == 1 and third["notes"] == again["notes"], (again["notes"], third["notes"])


def test_a_moved_files_import_line_the_task_changed_is_called_the_tasks_own_change(tmp_path):
    """A task renamed `unquote` and moved pkg/auth.py to pkg/login.py, changing its import line on the
    way (it added `other`) but keeping the old name there. The finding said "no task changed that
    use" of a line the task itself had just written; the line it moved as it was keeps those words."""
    repo = _run(tmp_path)
    code, body = wtc_in_process(repo, "task", "start", "mv", "--run", "r", "--own", "pkg/**")
    assert code == 0, body
    worktree = Path(body["worktree"])
    (worktree / "pkg/utils.py").write_text(FILES["pkg/utils.py"].replace("def unquote(", "def unquote_value("))
    (worktree / "pkg/auth.py").unlink()
    (worktree / "pkg/login.py").write_text(FILES["pkg/auth.py"].replace("import unquote", "import other, unquote"))
    code, body = wtc_in_process(repo, "task", "finish", "mv", "--run", "r")
    assert code == 1 and body["state"] == "conflict", body
    messages = {c["start_line"]: c["semantic"]["message"] for c in body["conflicts"] if c["kind"] == "left_behind"}
    assert messages[1] == ("pkg/login.py:1 uses unquote (function at pkg/utils.py:1 in the base), which mv removed or "
                           "renamed (to unquote_value, it seems); mv changed that line itself and kept the old name, "
                           "so the landed tree would not resolve it"), messages
    assert messages[5].endswith("; no task changed that use, so the landed tree would not resolve it"), messages


def test_a_name_moved_to_another_file_while_its_old_file_stays_says_where_it_went(tmp_path):
    """A task moved `unquote` from pkg/utils.py (which keeps `other`) to a new pkg/quoting.py. The
    report's left_behind row had an empty `moved_to` (only a file moved whole was followed), so its
    advice was an alias of a name that had not been renamed."""
    repo = _run(tmp_path, "--left-behind", "warn")
    code, body = wtc_in_process(repo, "task", "start", "mv", "--run", "r", "--own", "pkg/utils.py", "--own", "pkg/quoting.py")
    assert code == 0, body
    worktree = Path(body["worktree"])
    (worktree / "pkg/utils.py").write_text(WITHOUT_UNQUOTE)
    (worktree / "pkg/quoting.py").write_text("def unquote(s):\n    return s.strip('\"')\n")
    code, body = wtc_in_process(repo, "task", "finish", "mv", "--run", "r")
    assert code == 0 and body["state"] == "merged", body
    code, report = wtc_in_process(repo, "report", "--run", "r")
    rows = [(row["use_path"], row["name"], row["definition_path"], row["moved_to"]) for row in report["left_behind"]]
    assert rows == [("pkg/auth.py", "unquote", "pkg/utils.py", "pkg/quoting.py")], report["left_behind"]
    assert any("which task mv moved from pkg/utils.py to pkg/quoting.py" in w and "keep a re-export at the old path"
               in w for w in report["warnings"]), report["warnings"]


def test_the_finish_advises_a_re_export_for_a_name_moved_while_its_old_file_stays(tmp_path):
    repo = _run(tmp_path)
    code, body = wtc_in_process(repo, "task", "start", "mv", "--run", "r", "--own", "pkg/utils.py", "--own", "pkg/quoting.py")
    worktree = Path(body["worktree"])
    (worktree / "pkg/utils.py").write_text(WITHOUT_UNQUOTE)
    (worktree / "pkg/quoting.py").write_text("def unquote(s):\n    return s.strip('\"')\n")
    code, body = wtc_in_process(repo, "task", "finish", "mv", "--run", "r")
    assert code == 1 and body["state"] == "conflict", body
    assert any(n.startswith("pkg/auth.py (lines 1, 5) still uses unquote from pkg/utils.py, which this task moved to "
                            "pkg/quoting.py") and "keep a re-export at the old path" in n for n in body["notes"]), \
        body["notes"]
