"""What a run enforces (`left-behind`, `semantic-check`) is the configuration committed at the run's
pinned commit, the run's own options first: `wtc task check`, `task finish` and `wtc merge` read it
from there, as `wtc check` reads its target tip's. They used to read the main checkout's working
file (or the task worktree's, when called from inside it), so an uncommitted `left-behind = "off"`
in the main checkout, or a task committing a relaxed `.wtc.toml` on its own branch and finishing
from its worktree, switched off the block the run's committed rules asked for."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import commit, git, make_repo, write, wtc_in_process

FILES = {
    "pkg/__init__.py": "",
    "pkg/utils.py": "def unquote(s):\n    return s.strip('\"')\n\n\ndef other():\n    return 1\n",
    "pkg/auth.py": "from pkg.utils import unquote\n\n\ndef auth(x):\n    return unquote(x)\n",
    ".wtc.toml": 'left-behind = "block"\nsemantic-check = "block"\n',
}
WITHOUT_UNQUOTE = "def other():\n    return 1\n"
LAX = 'left-behind = "off"\nsemantic-check = "off"\n'


def _removal(tmp_path: Path, *, own: tuple[str, ...] = ("pkg/utils.py",)) -> tuple[Path, Path]:
    """A run pinned at a commit whose configuration blocks, and a task removing `unquote`, which
    pkg/auth.py (no task's) still uses."""
    repo = make_repo(tmp_path / "repo", FILES)
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    code, body = wtc_in_process(repo, "task", "start", "d5", "--run", "r", *[arg for glob in own for arg in ("--own", glob)])
    assert code == 0, body
    worktree = Path(body["worktree"])
    write(worktree, {"pkg/utils.py": WITHOUT_UNQUOTE})
    return repo, worktree


def _left_behind(body: dict) -> list[str]:
    return [c["path"] for c in body.get("conflicts", []) if c["kind"] == "left_behind"]


def test_a_dirty_main_checkout_does_not_relax_task_check_or_finish(tmp_path: Path) -> None:
    repo, _ = _removal(tmp_path)
    write(repo, {".wtc.toml": LAX})                                   # uncommitted, in the main checkout
    tip = git(repo, "rev-parse", "wtc/r/integration")

    code, body = wtc_in_process(repo, "task", "check", "d5", "--run", "r")
    assert code == 1 and body["left_behind_blocks"], body

    code, body = wtc_in_process(repo, "task", "finish", "d5", "--run", "r")
    assert code == 1 and body["state"] == "conflict" and _left_behind(body) == ["pkg/auth.py", "pkg/auth.py"], body
    assert git(repo, "rev-parse", "wtc/r/integration") == tip


def test_a_dirty_main_checkout_does_not_relax_wtc_merge(tmp_path: Path) -> None:
    repo, _ = _removal(tmp_path)
    code, body = wtc_in_process(repo, "task", "finish", "d5", "--run", "r", "--no-merge")
    assert code == 0 and body["state"] == "finished", body
    write(repo, {".wtc.toml": LAX})
    tip = git(repo, "rev-parse", "wtc/r/integration")

    code, body = wtc_in_process(repo, "merge", "--run", "r")
    [row] = body["tasks"]
    assert code == 1 and row["state"] == "conflict", body
    assert git(repo, "rev-parse", "wtc/r/integration") == tip


def test_a_relaxation_committed_on_the_task_branch_does_not_relax_its_own_finish(tmp_path: Path) -> None:
    """The task owns the configuration file, commits `left-behind = "off"` in its worktree and runs
    `task check` and `task finish` from inside it (where agents run wtc)."""
    repo, worktree = _removal(tmp_path, own=("pkg/utils.py", ".wtc.toml"))
    commit(worktree, {".wtc.toml": LAX}, "relax the rules")

    code, body = wtc_in_process(worktree, "task", "check", "d5", "--run", "r")
    assert code == 1 and body["left_behind_blocks"], body
    code, body = wtc_in_process(worktree, "task", "finish", "d5", "--run", "r")
    assert code == 1 and body["state"] == "conflict" and _left_behind(body), body


def test_the_runs_own_option_still_comes_first(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", FILES)
    assert wtc_in_process(repo, "run", "start", "--run", "r", "--left-behind", "warn")[0] == 0
    code, body = wtc_in_process(repo, "task", "start", "d5", "--run", "r", "--own", "pkg/utils.py")
    write(Path(body["worktree"]), {"pkg/utils.py": WITHOUT_UNQUOTE})
    code, body = wtc_in_process(repo, "task", "finish", "d5", "--run", "r")
    assert code == 0 and body["state"] == "merged", body


@pytest.mark.parametrize("where", ["main checkout", "pin"])
def test_a_semantic_check_relaxed_outside_the_pin_still_blocks(tmp_path: Path, where: str) -> None:
    """`semantic-check` the same way: a name one task removed that another task's new code uses.
    Committed on main after the pin is not the run's either (the run's rules are fixed at its pin)."""
    repo = make_repo(tmp_path / "repo", {**FILES, "pkg/auth.py": "def auth(x):\n    return x\n"})
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    if where == "main checkout":
        write(repo, {".wtc.toml": LAX})
    else:
        commit(repo, {".wtc.toml": LAX}, "relax after the pin")
    worktrees = {}
    for task, own in (("remove", "pkg/utils.py"), ("use", "pkg/auth.py")):
        code, body = wtc_in_process(repo, "task", "start", task, "--run", "r", "--own", own)
        assert code == 0, body
        worktrees[task] = Path(body["worktree"])
    write(worktrees["remove"], {"pkg/utils.py": "def unquote(s):\n    return s.strip('\"')\n"})
    write(worktrees["use"], {"pkg/auth.py": "from pkg.utils import other\n\n\ndef auth(x):\n    return other()\n"})
    assert wtc_in_process(repo, "task", "finish", "remove", "--run", "r")[1]["state"] == "merged"
    code, body = wtc_in_process(repo, "task", "finish", "use", "--run", "r")
    assert code == 1 and body["state"] == "conflict", body
    assert [c["kind"] for c in body["conflicts"]] == ["semantic"], body


def test_a_broken_configuration_at_the_pin_is_named_with_the_pin(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {**FILES, ".wtc.toml": 'left-behind = "loud"\n'})
    commit(repo, {".wtc.toml": FILES[".wtc.toml"]}, "fixed after the pin")
    git(repo, "checkout", "-q", "HEAD~1")   # the pin: the commit with the broken file
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 2          # the checkout's own file is read at start
    git(repo, "checkout", "-q", "main")
    pin = git(repo, "rev-parse", "HEAD~1")
    assert wtc_in_process(repo, "run", "start", "--run", "r", "--base", pin)[0] == 0
    code, body = wtc_in_process(repo, "task", "start", "d5", "--run", "r", "--own", "pkg/utils.py")   # its rules: the pin's
    assert code == 2, body
    error = body["error"]
    assert "left-behind" in error["message"] and pin[:12] in error["message"], error
    assert "start a new run from a commit whose configuration is valid" in error["fix"], error


def test_a_dirty_main_checkout_does_not_unreserve_a_root_manifest(tmp_path: Path) -> None:
    """The reserved files a task's boundary records at its start come from the pin too: an uncommitted
    `reserved-remove = ["/package.json"]` let a task's edit of the root manifest merge as a plain
    change instead of becoming an intent for the consolidation phase."""
    repo = make_repo(tmp_path / "repo", {**FILES, "package.json": '{\n  "name": "app",\n  "version": "1.0.0"\n}\n'})
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    write(repo, {".wtc.toml": FILES[".wtc.toml"] + 'reserved-remove = ["/package.json"]\n'})
    code, body = wtc_in_process(repo, "task", "start", "bump", "--run", "r")
    assert code == 0 and "/package.json" in body["boundary"]["reserved"], body["boundary"]
    write(Path(body["worktree"]), {"package.json": '{\n  "name": "app",\n  "version": "1.1.0"\n}\n'})
    code, body = wtc_in_process(repo, "task", "finish", "bump", "--run", "r")
    assert code == 0 and [r["path"] for r in body["reserved"]] == ["package.json"], body
    assert git(repo, "show", "wtc/r/integration:package.json").count("1.0.0") == 1   # not merged as a plain edit


def test_the_pins_configuration_is_kept_byte_for_byte_and_read_from_there(tmp_path: Path) -> None:
    """`run start` keeps the pin's configuration files beside the store (so a task start need not load
    libgit2 to read them): bytes exactly (a non-ASCII comment), a file the pin lacks as absent, and
    what is kept is what the run enforces: kept rules changed by hand change the verdict, which shows
    the calls read the kept copy, not the pin again."""
    import json

    relaxed = 'left-behind = "warn"  # réglé à la main\nsemantic-check = "block"\n'
    repo = make_repo(tmp_path / "repo", FILES | {".wtc.toml": relaxed})
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    pin = git(repo, "rev-parse", "wtc/r/integration")
    kept = repo / ".git" / "wtc" / "cache" / f"pin-config-v1-{pin}.json"
    files = json.loads(kept.read_text(encoding="utf-8"))
    assert files[".wtc.toml"].encode("latin-1") == relaxed.encode("utf-8")
    assert files["pyproject.toml"] is None

    files[".wtc.toml"] = 'left-behind = "block"\n'          # what a later call reads: the kept copy
    kept.write_text(json.dumps(files), encoding="utf-8")
    code, body = wtc_in_process(repo, "task", "start", "d5", "--run", "r", "--own", "pkg/utils.py")
    assert code == 0, body
    write(Path(body["worktree"]), {"pkg/utils.py": WITHOUT_UNQUOTE})
    code, body = wtc_in_process(repo, "task", "check", "d5", "--run", "r")
    assert code == 1 and body["left_behind_blocks"], body

    kept.unlink()                                           # gone: read from the pin again, and kept again
    code, body = wtc_in_process(repo, "task", "check", "d5", "--run", "r")
    assert code == 0 and not body.get("left_behind_blocks"), body
    assert kept.is_file()


def test_a_reserved_remove_entry_that_names_no_default_is_refused_naming_the_default_meant(tmp_path: Path) -> None:
    """`reserved-remove = ["package.json"]` removed nothing (the default is `/package.json`), so the
    root manifest stayed reserved without a word: the entry is refused where the rules are read,
    naming the default it was probably meant for, and nothing is started."""
    repo = make_repo(tmp_path / "repo", FILES | {".wtc.toml": FILES[".wtc.toml"] + 'reserved-remove = ["package.json"]\n'})
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    code, body = wtc_in_process(repo, "task", "start", "d5", "--run", "r", "--own", "pkg/utils.py")
    assert code == 2, body
    assert body["error"]["kind"] == "config" and "'package.json' (did you mean '/package.json'?)" in body["error"]["message"]
    assert "/package.json" in body["error"]["fix"]
    assert not (repo / ".wtc" / "worktrees" / "r" / "d5").exists()
