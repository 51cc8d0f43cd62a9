"""The rest of a run's rules come from its pin too: `verify`, `max-file-size` and `default-boundary`,
as committed at the run's pinned commit (the run's own `--verify` first). They used to be read from
the main checkout's working configuration, so an uncommitted `max-file-size = 0`, `verify = "true"`
or a wider `default-boundary` in the lead's checkout changed what every task of a run under way was
held to (test_run_config_from_pin.py holds the same for `left-behind`, `semantic-check` and the
reserved files).

And `wtc check --run R --task T` judges a task of a run by that run's rules, as `wtc task check` and
`task finish` do, not by the configuration at its target (the integration tip), where a task owning
`.wtc.toml` could have merged a relaxation."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import commit, git, make_repo, write, wtc_in_process

KIB = 1024
FILES = {
    "pkg/__init__.py": "",
    "pkg/utils.py": "def unquote(s):\n    return s.strip('\"')\n\n\ndef other():\n    return 1\n",
    "pkg/auth.py": "from pkg.utils import unquote\n\n\ndef auth(x):\n    return unquote(x)\n",
    "docs/readme.md": "# docs\n",
}
WITHOUT_UNQUOTE = "def other():\n    return 1\n"


def _run(tmp_path: Path, committed: str, working: str) -> Path:
    """A run pinned at a commit whose `.wtc.toml` is `committed`, then `working` written over it in
    the main checkout and left uncommitted."""
    repo = make_repo(tmp_path / "repo", FILES | {".wtc.toml": committed})
    code, body = wtc_in_process(repo, "run", "start", "--run", "r")
    assert code == 0, body
    write(repo, {".wtc.toml": working})
    return repo


def _started(repo: Path, task: str, *args: str) -> Path:
    code, body = wtc_in_process(repo, "task", "start", task, "--run", "r", *args)
    assert code == 0, body
    return Path(body["worktree"])


def test_an_uncommitted_max_file_size_does_not_relax_finish(tmp_path: Path) -> None:
    repo = _run(tmp_path, 'max-file-size = "1KB"\n', "max-file-size = 0\n")
    tip = git(repo, "rev-parse", "wtc/r/integration")
    worktree = _started(repo, "big", "--own", "docs/**")
    write(worktree, {"docs/dump.txt": "x" * (2 * KIB)})             # uncommitted: refused before the commit
    code, body = wtc_in_process(repo, "task", "finish", "big", "--run", "r")
    assert code == 3 and body["state"] == "rejected", body
    assert [(v["rule"], v["path"]) for v in body["violations"]] == [("large_file", "docs/dump.txt")], body
    assert "over max-file-size (1.0 KiB)" in body["violations"][0]["detail"]

    commit(worktree, {}, "the agent commits it itself")             # committed: refused in the history
    code, body = wtc_in_process(repo, "task", "finish", "big", "--run", "r")
    assert code == 3 and [v["rule"] for v in body["violations"]] == ["large_file"], body
    assert git(repo, "rev-parse", "wtc/r/integration") == tip


def test_an_uncommitted_max_file_size_does_not_tighten_finish_either(tmp_path: Path) -> None:
    repo = _run(tmp_path, "max-file-size = 0\n", 'max-file-size = "1KB"\n')
    worktree = _started(repo, "big", "--own", "docs/**")
    write(worktree, {"docs/dump.txt": "x" * (2 * KIB)})
    code, body = wtc_in_process(repo, "task", "finish", "big", "--run", "r")
    assert code == 0 and body["state"] == "merged", body


def test_an_uncommitted_verify_does_not_replace_the_pins(tmp_path: Path) -> None:
    repo = _run(tmp_path, 'verify = "exit 7"\n', 'verify = "true"\n')
    tip = git(repo, "rev-parse", "wtc/r/integration")
    worktree = _started(repo, "docs", "--own", "docs/**")
    write(worktree, {"docs/readme.md": "# docs, longer\n"})
    code, body = wtc_in_process(repo, "task", "finish", "docs", "--run", "r")
    assert code == 1 and body["state"] == "failed", body
    assert body["verification"]["command"] == "exit 7" and body["verification"]["exit_code"] == 7, body
    assert git(repo, "rev-parse", "wtc/r/integration") == tip


def test_the_runs_own_verify_still_comes_first(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", FILES | {".wtc.toml": 'verify = "exit 7"\n'})
    assert wtc_in_process(repo, "run", "start", "--run", "r", "--verify", "true")[0] == 0
    worktree = _started(repo, "docs", "--own", "docs/**")
    write(worktree, {"docs/readme.md": "# docs, longer\n"})
    code, body = wtc_in_process(repo, "task", "finish", "docs", "--run", "r")
    assert code == 0 and body["state"] == "merged", body


def test_an_uncommitted_default_boundary_does_not_widen_a_tasks(tmp_path: Path) -> None:
    repo = _run(tmp_path, '[default-boundary]\nown = ["docs/**"]\n', '[default-boundary]\nown = ["**"]\n')
    pin = git(repo, "rev-parse", "wtc/r/integration")
    code, body = wtc_in_process(repo, "task", "start", "writer", "--run", "r")   # no --own: the plan, then the default
    assert code == 0 and body["boundary"]["own"] == ["docs/**"], body["boundary"]
    code, plan = wtc_in_process(repo, "plan", "list", "--run", "r")
    assert code == 0 and plan["default"]["own"] == ["docs/**"], plan
    assert plan["default"]["from"] == f"default-boundary (.wtc.toml at the pin {pin[:12]})", plan

    write(Path(body["worktree"]), {"pkg/auth.py": "def auth(x):\n    return x\n"})
    code, body = wtc_in_process(repo, "task", "finish", "writer", "--run", "r")
    assert code == 3 and [v["path"] for v in body["violations"]] == ["pkg/auth.py"], body


def test_check_of_a_runs_task_keeps_the_runs_max_file_size(tmp_path: Path) -> None:
    """A task owning `.wtc.toml` merges `max-file-size = 0` into the integration branch: the run's own
    finish still refuses another task's large file (its rules are the pin's), and so does `wtc check
    --run --task` of that task, whose target is the integration tip."""
    repo = make_repo(tmp_path / "repo", FILES | {".wtc.toml": 'max-file-size = "1KB"\n'})
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    relax = _started(repo, "relax", "--own", ".wtc.toml")
    write(relax, {".wtc.toml": "max-file-size = 0\n"})
    assert wtc_in_process(repo, "task", "finish", "relax", "--run", "r")[1]["state"] == "merged"
    worktree = _started(repo, "big", "--own", "docs/**")
    commit(worktree, {"docs/dump.txt": "x" * (2 * KIB)}, "a dump")

    code, report = wtc_in_process(repo, "check", "--run", "r", "--task", "big", "--format", "json")
    assert code == 3, report
    assert [(f["rule"], f["path"]) for f in report["findings"]] == [("large_file", "docs/dump.txt")], report
    code, body = wtc_in_process(repo, "task", "finish", "big", "--run", "r")
    assert code == 3 and [v["rule"] for v in body["violations"]] == ["large_file"], body


def test_check_of_a_runs_task_keeps_the_runs_left_behind(tmp_path: Path) -> None:
    """The same for `left-behind`: `wtc task check` blocks a removal whose name old code still uses,
    by the pin's rules; `wtc check --run --task` of the same task answers the same, though the
    integration tip now says `left-behind = "off"`."""
    repo = make_repo(tmp_path / "repo", FILES | {".wtc.toml": 'left-behind = "block"\n'})
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    relax = _started(repo, "relax", "--own", ".wtc.toml")
    write(relax, {".wtc.toml": 'left-behind = "off"\n'})
    assert wtc_in_process(repo, "task", "finish", "relax", "--run", "r")[1]["state"] == "merged"
    worktree = _started(repo, "d5", "--own", "pkg/utils.py")
    commit(worktree, {"pkg/utils.py": WITHOUT_UNQUOTE}, "drop unquote")

    code, body = wtc_in_process(repo, "task", "check", "d5", "--run", "r")
    assert code == 1 and body["left_behind_blocks"], body
    code, report = wtc_in_process(repo, "check", "--run", "r", "--task", "d5", "--format", "json")
    assert code == 1 and report["left_behind_mode"] == "block", report
    assert {f["path"] for f in report["findings"] if f["rule"] == "left_behind"} == {"pkg/auth.py"}, report


def test_the_coordinator_reads_no_run_rule_from_its_working_configuration() -> None:
    """`self.config` is the main checkout's working configuration: the machine's settings. A run's
    rule (config.RUN_RULES) read from it would be the relaxation the tests above forbid, so none is:
    each goes through `_run_rules(run)`."""
    import ast

    from worktree_coord.config import _KEYS, RUN_RULES

    rules = {_KEYS[key][0] for key in RUN_RULES}
    root = Path(__file__).resolve().parents[2] / "worktree_coord" / "coordinator"
    found = []
    for path in sorted(root.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Attribute) and node.attr in rules and isinstance(node.value, ast.Attribute)
                    and node.value.attr == "config" and isinstance(node.value.value, ast.Name)
                    and node.value.value.id == "self"):
                found.append(f"{path.name}:{node.lineno} self.config.{node.attr}")
    assert not found, found


def test_check_of_a_runs_task_takes_the_runs_own_semantic_option_first(tmp_path: Path) -> None:
    """`wtc run start --semantic off`: the run merges a use of a name another task removed, and
    `wtc check --run --task` of that task says the same, not the configuration's default block."""
    repo = make_repo(tmp_path / "repo", FILES | {"pkg/auth.py": "def auth(x):\n    return x\n"})
    assert wtc_in_process(repo, "run", "start", "--run", "r", "--semantic", "off")[0] == 0
    remove = _started(repo, "remove", "--own", "pkg/utils.py")
    use = _started(repo, "use", "--own", "pkg/auth.py")
    write(remove, {"pkg/utils.py": "def unquote(s):\n    return s.strip('\"')\n"})
    assert wtc_in_process(repo, "task", "finish", "remove", "--run", "r")[1]["state"] == "merged"
    commit(use, {"pkg/auth.py": "from pkg.utils import other\n\n\ndef auth(x):\n    return other()\n"}, "use other")

    code, report = wtc_in_process(repo, "check", "--run", "r", "--task", "use", "--format", "json")
    assert code == 0 and not [f for f in report["findings"] if f["rule"].startswith("semantic")], report
    code, body = wtc_in_process(repo, "task", "finish", "use", "--run", "r")
    assert code == 0 and body["state"] == "merged", body
