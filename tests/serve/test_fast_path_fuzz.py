"""The quick path (fastcli.py) against an adversarial user: command lines an agent might type, odd
spellings included, parsed by the quick path and by typer, and run as real `wtc` processes with and
without it (WTC_NO_FAST=1) in two repositories built alike.

Three layers, cheapest first: the quick path's option tables equal the click tree typer builds; for
generated command lines (hypothesis), whenever the quick path takes a line, typer's path calls the
same body with the same values (in-process, bodies recorded, not run); and real processes print the
same bytes, exit with the same code and leave the same task states and branch tips.
"""

from __future__ import annotations

import inspect
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.conftest import git, make_repo
from tests.serve.test_fast_path import _plain

from worktree_coord import cli, fastcli, merge_file_command

WTC = [sys.executable, "-m", "worktree_coord"]
BODIES = ("version", "status", "task_start", "task_finish", "task_check", "merge", "gc", "report", "merge_file")


def _click_command(path: tuple[str, ...]) -> Any:
    command = cli.build_command(None)
    for name in path:
        command = command.commands[name]
    return command


def test_the_quick_path_s_option_tables_are_the_click_tree_s() -> None:
    """Every spelling typer accepts for a command the quick path takes, and nothing more: an alias
    added to a typer command without the quick path's table would go to typer (harmless), one in
    the table that typer lacks would run what typer refuses."""
    for path, (options, positionals, defaults, _) in fastcli.COMMANDS.items():
        command = _click_command(path)
        expected: dict[str, tuple[str, Any]] = {}
        arguments = []
        for param in command.params:
            if param.param_type_name == "argument":
                arguments.append(param.name)
                continue
            if param.name == "help":
                continue
            if param.is_flag:
                assert param.is_bool_flag, (path, param.name)
                expected.update({name: (param.name, True) for name in param.opts})
                expected.update({name: (param.name, False) for name in param.secondary_opts})
            elif param.multiple:
                expected.update({name: (param.name, "list") for name in param.opts})
            elif type(param.type).__name__ == "IntRange":
                assert (param.type.min, param.type.max, param.type.min_open) == (1, None, False), path
                expected.update({name: (param.name, "int>=1") for name in param.opts})
            elif type(param.type).__name__ in ("IntParamType", "FloatParamType"):   # merge-file's --marker-size, --timeout
                kind = "int" if type(param.type).__name__ == "IntParamType" else "float"
                expected.update({name: (param.name, kind) for name in param.opts})
            else:
                assert type(param.type).__name__ == "StringParamType", (path, param.name, param.type)
                expected.update({name: (param.name, "value") for name in param.opts})
            assert param.envvar is None, f"{path} {param.name} reads an environment variable the quick path ignores"
            if param.required:
                assert param.name not in defaults, (path, param.name)
            else:
                default = param.default() if callable(param.default) else param.default
                assert defaults[param.name] == (list(default) if param.multiple else default), (path, param.name)
        assert options == expected, path
        assert positionals == tuple(arguments), path
        assert not command.context_settings.get("ignore_unknown_options"), path
        assert command.context_settings.get("help_option_names", ["--help"]) == ["--help"], path


def typer_call(args: list[str]) -> tuple[int, list[tuple[str, dict[str, Any]]]]:
    """Which body typer's path calls for `args`, with which values (recorded, not run), and cli.main's code."""
    called: list[tuple[str, dict[str, Any]]] = []
    originals = {name: getattr(fastcli, name) for name in BODIES}

    def recorder(name: str) -> Any:
        def record(*a: Any, **k: Any) -> int:
            called.append((name, dict(inspect.signature(originals[name]).bind(*a, **k).arguments)))
            return 0
        return record

    # merge-file's typer command calls the body module (merge_file_command.py) itself, not fastcli's
    # wrapper: recorded there under the quick path's name, so a line both paths take is compared,
    # not run (it ran, and failed on a missing BASE file, whenever a drawn line had three positionals).
    body_module = merge_file_command.merge_file
    try:
        for name in BODIES:
            setattr(fastcli, name, recorder(name))
        merge_file_command.merge_file = recorder("merge_file")
        code = cli.main(list(args))
    finally:
        for name, original in originals.items():
            setattr(fastcli, name, original)
        merge_file_command.merge_file = body_module
    return code, called


# ---- generated command lines ---------------------------------------------------------------------

# Values an agent (or a shell quoting slip) passes: plain, empty, option-like, unicode, with `=` and spaces.
VALUES = ["r1", "t1", "", "-", "-x", "--json", "--", "ü-tâsk", "a=b", "a b", "=", "0", "1", "3", "07", "-1", "+2",
          "٣", "1_0", " 2", "packages/**", "A <a@b.c>", "--run", "-r", "-C", "text", "html", "json", "--help"]
NAMES = sorted({name for options, *_ in fastcli.COMMANDS.values() for name in options}
               | {"--bogus", "-x", "--help", "-h", "--no-sparse", "--no-json", "--forecast", "--why", "--version",
                  "--ru", "--JSON", "-R", "--own-", "--repo_"})
SPELLINGS = ["separate", "equals", "attached", "bare"]


@st.composite
def command_lines(draw: st.DrawFn) -> list[str]:
    path = list(draw(st.sampled_from(sorted(fastcli.COMMANDS))))
    options = sorted(fastcli.COMMANDS[tuple(path)][0])
    tokens: list[list[str]] = []
    for _ in range(draw(st.integers(0, 5))):
        name = draw(st.sampled_from(options) | st.sampled_from(NAMES))
        value = draw(st.sampled_from(VALUES) | st.text(min_size=0, max_size=4).filter(lambda t: "\x00" not in t))
        spelling = draw(st.sampled_from(SPELLINGS))
        if spelling == "bare":
            tokens.append([name])
        elif spelling == "equals":
            tokens.append([f"{name}={value}"])
        elif spelling == "attached":
            tokens.append([name + value])
        else:
            tokens.append([name, value])
    for _ in range(draw(st.integers(0, 2))):   # positionals (task ids and strays) anywhere
        at = draw(st.integers(0, len(tokens)))
        tokens.insert(at, [draw(st.sampled_from(VALUES))])
    line = [token for group in tokens for token in group]
    if draw(st.booleans()):   # the required --run, somewhere, so lines get past typer's required check
        line.insert(draw(st.integers(0, len(line))), draw(st.sampled_from(["--run=r1", "-rr1", "-r"])))
    prefix = draw(st.sampled_from([[], [], ["--json"], ["--version"], ["-C", "."]]))
    return prefix + path + line


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(command_lines())
@example(["merge-file", "r1", "--git", "r1", "--git", "r1"])   # three positionals: both paths call the body
def test_a_line_the_quick_path_takes_is_the_call_typer_makes(args: list[str]) -> None:
    parsed = fastcli.parse(list(args))
    if parsed is None:
        return   # typer's path runs it, by construction
    body, values = parsed
    code, called = typer_call(args)
    assert (code, [(name, values) for name, values in called]) == (0, [(body.__name__, values)]), args


# Lines found by hand or by the generator; each one stays here.
KNOWN = [
    ["task", "start", "ü-tâsk", "--run", "r1"], ["task", "start", "--run=r1", "--", "t1"],
    ["task", "start", "t1", "-r", "r1", "--own", "a", "--own=b", "--read", "c", "--read", "d"],
    ["task", "finish", "t1", "-m=x", "-r", "r1"], ["task", "finish", "t1", "-mx", "-rr1"],
    ["status", "-C="], ["status", "--repo="], ["status", "-C", ""], ["status", "--run", ""],
    ["merge", "--run", "r1", "--batch", "07"], ["merge", "--run", "r1", "--batch=1", "--batch", "2"],
    ["report", "--format=", "--run", "r1"], ["status", "--run=a=b"], ["status", "-r="],
    ["task", "check", "-", "-r", "r1"], ["task", "check", "a b", "-r", "r1", "--json", "--json"],
]


@pytest.mark.parametrize("args", KNOWN, ids=" ".join)
def test_known_odd_lines_are_the_call_typer_makes(args: list[str]) -> None:
    parsed = fastcli.parse(list(args))
    code, called = typer_call(args)
    if parsed is None:
        return
    assert (code, called) == (0, [(parsed[0].__name__, parsed[1])]), args


# ---- real processes --------------------------------------------------------------------------------

def run(repo: Path, args: list[str], cwd: Path | None = None, **env: str) -> subprocess.CompletedProcess[bytes]:
    # The test's own state folder stays (tests/conftest.py): the tasks' ports are leased there.
    environment = {k: v for k, v in os.environ.items() if not k.startswith("WTC_") or k == "WTC_STATE_DIR"}
    return subprocess.run([*WTC, *args], cwd=cwd or repo, env={**environment, "WTC_NO_SERVE": "1", "COLUMNS": "100",
                                                               **env}, capture_output=True, timeout=300)


def state(repo: Path) -> tuple[str, str]:
    """What the calls left: every branch's tree (commit ids differ with the clock, trees do not) and
    the runs' task states."""
    refs = git(repo, "for-each-ref", "--format=%(refname) %(tree)", "refs/heads", "refs/wtc")
    status = subprocess.run([*WTC, "status", "--run", "r1", "--json"], cwd=repo, capture_output=True,
                            env=dict(os.environ, WTC_NO_SERVE="1", WTC_NO_FAST="1"))
    tasks = json.loads(status.stdout).get("tasks", [])
    return refs, json.dumps([(t.get("task"), t.get("state")) for t in tasks], sort_keys=True)


# Steps run in order in both repositories: the odd spellings of the writes (each must act exactly as
# typer's), with read-only and failing lines between them. {repo} is the repository's absolute path.
STEPS = [
    ["run", "start", "--run", "r1"],
    ["task", "start", "--run=r1", "--own", "packages/api/**", "--own=docs/**", "t1", "--json"],
    ["task", "start", "ü-tâsk", "--run", "r1"],
    ["task", "start", "-rr1", "t2", "--own", "packages/web/**", "-C", "{repo}"],
    ["task", "start", "t3", "--run", "r1", "--json", "--own", "packages/web/**", "--exclusive"],
    ["task", "start", "bad/../name", "--run", "r1"], ["task", "start", "", "--run", "r1", "--json"],
    ["task", "start", "t4", "--run", "r1", "--own", "--json"],   # typer takes "--json" as the glob: so must we
    ["status", "--json", "-C", "."], ["status", "--repo={repo}", "-r", "r1"],
    ["status", "-C", "missing"], ["status", "--forecast"],
    ["task", "check", "t1", "-r", "r1", "--json"], ["task", "check", "t2", "--run=r1", "--repo", "."],
    ["task", "finish", "t1", "-rr1", "-m", "api work", "--no-merge", "--json"],
    ["task", "finish", "t2", "--run", "r1", "--message=web", "--merge", "--verify", "true"],
    ["merge", "--batch", "2", "-r", "r1", "--json"], ["merge", "-r", "r1", "--verify=true", "--batch=2", "--json"],
    ["merge", "--run", "r1", "--batch=+1"], ["merge", "-r", "r1", "--key", "-k"],
    ["report", "-r", "r1", "--format=json"], ["report", "--run", "r1", "--format", "html", "--json"],
    ["report", "--json", "--run", "nope"], ["version", "--json"],
]


def _steady(output: bytes, repo: Path) -> str:
    """`_plain`, and the JSON's clocks, ages and port numbers as placeholders."""
    text = re.sub(r"(<sha>|<id>|\d+)\.(<sha>|<id>|\d+)", "<time>", _plain(output, repo))
    text = re.sub(r" +<age>", " <age>", text)   # the age columns are right-aligned: their padding varies too
    return re.sub(r'"ports": \{[^}]*\}', '"ports": {}', text)


def test_real_processes_print_and_change_the_same_in_two_repositories_built_alike(tmp_path: Path) -> None:
    seen: dict[str, list[Any]] = {}
    for path, env in (("quick", {}), ("typer", {"WTC_NO_FAST": "1"})):
        repo = make_repo(tmp_path / path / "repo")
        outputs = []
        for step in STEPS:
            args = [arg.replace("{repo}", str(repo)) for arg in step]
            if step[:2] == ["task", "check"]:   # give the tasks something to check and finish
                worktree = repo / ".wtc" / "worktrees" / "r1" / step[2]
                folder = "api" if step[2] == "ü-tâsk" else "web"
                if worktree.is_dir():   # a task id refused by both paths has none
                    (worktree / "packages" / folder / "index.js").write_text(f"export const {folder} = 2;\n")
            done = run(repo, args, **env)
            outputs.append((step, done.returncode, _steady(done.stdout, repo), _steady(done.stderr, repo)))
        seen[path] = [*outputs, state(repo)]
    for quick, typer_path in zip(seen["quick"], seen["typer"]):
        assert quick == typer_path


# Environment variables a call may carry, on one read-only line and one failing one each.
ENVIRONMENTS = [
    {"_WTC_COMPLETE": "bash_source"},     # click's completion switch: typer answers it, whatever the line
    {"_WTC_COMPLETE": ""},                # empty: click ignores it
    {"WTC_NO_FAST": "0", "COLUMNS": "20", "LC_ALL": "C"},
]


def test_environment_variables_act_the_same_on_both_paths(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    run(repo, ["run", "start", "--run", "r1"])
    for env in ENVIRONMENTS:
        lines = [["status", "--run", "r1"], ["task", "check", "t\udcff", "-r", "r1", "--json"]]   # not UTF-8, too
        for args in lines + [["--help"]] * ("_WTC_COMPLETE" in env):
            quick, typer_path = run(repo, args, **env), run(repo, args, **{**env, "WTC_NO_FAST": "1"})
            assert (quick.returncode, quick.stdout, quick.stderr) == \
                (typer_path.returncode, typer_path.stdout, typer_path.stderr), (env, args)
