"""The quick path (fastcli.py) is typer's path, faster: for every command line it takes, typer would
have called the same body with the same values; every command line it does not take in full goes to
typer; and real `wtc` processes print the same stdout and stderr bytes and exit with the same code
with and without it (WTC_NO_FAST=1), good input and bad, text and --json."""

from __future__ import annotations

import inspect
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import make_repo, write

from worktree_coord import cli, fastcli, merge_file_command

WTC = [sys.executable, "-m", "worktree_coord"]
IN_PROCESS = {"WTC_NO_SERVE": "1"}

# Every command line shape the quick path takes: each spelling of each option click accepts.
TAKEN = [
    ["version"], ["version", "--json"],
    ["status"], ["status", "--json"], ["status", "--run", "r1"], ["status", "-r", "r1", "--json"],
    ["status", "-rr1"], ["status", "--run=r1", "--repo", "."], ["status", "-C", ".", "--run", "r0", "--run", "r1"],
    ["status", "--run", "r1", "--forecast"], ["status", "--repo=.", "--json", "--json"],
    ["task", "start", "t1", "--run", "r1", "--own", "packages/api/**", "--own", "docs/**", "--read", "README.md",
     "--sparse", "--exclusive", "--author", "A <a@b.c>", "--key", "k1", "--json"],
    ["task", "start", "--run", "r1", "t1"], ["task", "start", "t1", "-r", "r1", "--own=packages/**", "-C", "."],
    ["task", "finish", "t1", "--run", "r1", "-m", "msg", "--no-merge", "--merge", "--verify", "true", "--key", "k"],
    ["task", "finish", "t1", "-rr1", "--message=a b", "--no-merge", "--json"], ["task", "finish", "t1", "--run", "r1"],
    ["task", "check", "t1", "--run", "r1"], ["task", "check", "--json", "t1", "-r", "r1", "--repo", "."],
    ["merge", "--run", "r1"], ["merge", "--run", "r1", "--batch", "3", "--verify", "true", "--key", "k", "--json"],
    ["merge", "-r", "r1", "--batch=2"],
    ["gc"], ["gc", "--dry-run", "--json"], ["gc", "-C", ".", "--dry-run"], ["gc", "--repo=.", "--json"],
    ["report", "--run", "r1"], ["report", "--run", "r1", "--format", "json"], ["report", "-r", "r1", "--onto", "main",
                                                                              "--format=html"],
    ["report", "--run", "r1", "--format", "xml"],      # a value the body refuses, the same way on both paths
    ["task", "start", "t1", "--run", ""],              # an empty value is a value
    ["task", "start", "-", "--run", "r1"],             # so is a lone dash
    ["merge-file", "b", "l", "r"], ["merge-file", "b", "l", "r", "--path", "m.py", "--json"],
    ["merge-file", "b", "l", "r", "--path", "p/m.go", "--git", "--marker-size", "9", "-L", "HEAD", "-L", "base",
     "-L", "feature"],                                 # git's driver line
    ["merge-file", "-Lours", "--label=base", "b", "--output", "o.txt", "l", "-o", "out.txt", "r", "--timeout", "2.5",
     "--conflict-style", "zdiff3", "--semantic", "warn"], ["merge-file", "b", "l", "r", "--timeout", "3"],
    ["merge-file", "b", "l", "r", "-L", "", "--marker-size", "0"],
]

# Command lines it leaves to typer: help, unknown options, missing or option-like values, wrong
# argument counts, `--`, a flag given a value, a bad number, other commands.
LEFT = [
    [], ["status", "--help"], ["task", "start", "--help"], ["status", "--bogus"], ["status", "-x"],
    ["status", "--run"], ["status", "--run", "--json"], ["status", "extra"], ["status", "--json=1"],
    ["status", "--"], ["task", "start", "--run", "r1"], ["task", "start", "t1", "t2", "--run", "r1"],
    ["task", "start", "t1"], ["task", "start", "t1", "--run", "r1", "--message", "m"],
    ["task", "finish", "t1", "--run", "r1", "-m", "-starts-with-dash"], ["merge", "--run", "r1", "--batch", "0"],
    ["merge", "--run", "r1", "--batch", "x"], ["merge", "--run", "r1", "--batch", "-1"], ["merge"], ["report"],
    ["task"], ["task", "abandon", "t1", "--run", "r1"], ["gc", "extra"], ["gc", "--dry-run=1"], ["run", "start"],
    ["--version"], ["version", "extra"], ["task", "check", "t1", "--run", "r1", "--own", "x"],
    ["status", "--forecast=yes"],
    ["merge-file", "b", "l"], ["merge-file", "b", "l", "r", "x"], ["merge-file", "b", "l", "r", "--marker-size", "x"],
    ["merge-file", "b", "l", "r", "--timeout", "1e3"], ["merge-file", "b", "l", "r", "--timeout", "-1"],
    ["merge-file", "b", "l", "r", "-L", "-x"], ["merge-file", "--help"], ["merge-file", "b", "l", "r", "--git=1"],
]


def run(repo: Path, args: list[str], **env: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([*WTC, *args], cwd=repo, env=dict(os.environ, **IN_PROCESS, **env), capture_output=True,
                          timeout=300)


def typer_values(monkeypatch: pytest.MonkeyPatch, args: list[str]) -> tuple[str, dict[str, Any]]:
    """Which body typer's path calls for `args`, with which values (recorded, not run)."""
    called: list[tuple[str, dict[str, Any]]] = []
    bodies = [(fastcli, name) for name in ("version", "status", "task_start", "task_finish", "task_check", "merge",
                                           "gc", "report")] + [(merge_file_command, "merge_file")]
    for module, name in bodies:
        original = getattr(module, name)

        def record(*a: Any, _name: str = name, _original: Any = original, **k: Any) -> int:
            called.append((_name, dict(inspect.signature(_original).bind(*a, **k).arguments)))
            return 0

        monkeypatch.setattr(module, name, record)
    assert cli.main(list(args)) == 0, args
    monkeypatch.undo()
    assert len(called) == 1, (args, called)
    return called[0]


@pytest.mark.parametrize("args", TAKEN, ids=" ".join)
def test_the_quick_path_calls_the_body_typer_calls_with_the_same_values(args: list[str],
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    parsed = fastcli.parse(list(args))
    assert parsed is not None, f"the quick path should take {args}"
    body, values = parsed
    name, expected = typer_values(monkeypatch, args)
    assert body.__name__ == name
    assert values == expected


@pytest.mark.parametrize("args", LEFT, ids=lambda a: " ".join(a) or "(none)")
def test_what_the_quick_path_does_not_take_in_full_goes_to_typer(args: list[str]) -> None:
    assert fastcli.parse(list(args)) is None


def test_wtc_prints_and_exits_the_same_with_and_without_the_quick_path(repo: Path) -> None:
    subprocess.run([*WTC, "run", "start", "--run", "r1"], cwd=repo, check=True, capture_output=True,
                   env=dict(os.environ, **IN_PROCESS))
    outside = repo.parent / "not-a-repo"
    outside.mkdir()
    # Read-only calls, good and bad, then writes that fail before they change anything.
    lines = [
        ["--help"], ["version"], ["version", "--json"], ["status"], ["status", "--json"], ["status", "--run", "r1"],
        ["status", "-r", "r1", "--json"], ["status", "--run", "nope"], ["status", "--run", "nope", "--json"],
        ["status", "--forecast"], ["status", "--forecast", "--json"], ["status", "-C", str(outside)],
        ["status", "-C", str(outside), "--json"], ["status", "--repo", str(repo / "missing")],
        ["task", "check", "t9", "--run", "r1"], ["task", "check", "t9", "--run", "r1", "--json"],
        ["report", "--run", "r1"], ["report", "--run", "r1", "--json"], ["report", "--run", "r1", "--format", "json"],
        ["report", "--run", "r1", "--format", "xml"], ["report", "--run", "r1", "--format", "html", "--json"],
        ["report", "--run", "nope"], ["merge", "--run", "nope"], ["merge", "--run", "nope", "--json"],
        ["task", "finish", "t9", "--run", "r1"], ["task", "finish", "t9", "--run", "r1", "--json"],
        ["task", "start", "bad name", "--run", "r1"], ["task", "start", "t1", "--run", "nope", "--json"],
        ["task", "start", "t1", "--run", ""],
        # What the quick path leaves to typer, for completeness: the same bytes by construction.
        ["status", "--bogus"], ["status", "--bogus", "--json"], ["merge", "--run", "r1", "--batch", "0"],
    ]
    for args in lines:
        quick, typer_path = run(repo, args, COLUMNS="100"), run(repo, args, WTC_NO_FAST="1", COLUMNS="100")
        # Byte for byte, but for a report's clock (`timeline.now`: when it was read).
        assert (quick.returncode, _now(quick.stdout), quick.stderr) == \
            (typer_path.returncode, _now(typer_path.stdout), typer_path.stderr), args


def test_merge_file_prints_writes_and_exits_the_same_with_and_without_the_quick_path(tmp_path: Path) -> None:
    """`wtc merge-file` as people and git's driver call it: clean, conflicting, a semantic finding,
    --json, --output, --git (the result written into LEFT), bad input."""
    base = "def alpha(x):\n    return x + 1\n\n\ndef gamma(x):\n    return x - 3\n"
    files = {"base.py": base, "clean_l.py": base.replace("x + 1", "x + 10"), "clean_r.py": base.replace("x - 3", "x - 30"),
             "conf_l.py": base.replace("x + 1", "x + 2"), "conf_r.py": base.replace("x + 1", "x + 3"),
             "gone_l.py": base.replace("def gamma(x):\n    return x - 3\n", ""),
             "use_r.py": base + "\n\ndef delta(x):\n    return gamma(x)\n",
             "b.txt": "one\ntwo\nthree\n", "l.txt": "one\nleft\nthree\n", "r.txt": "one\nright\nthree\n"}
    lines = [
        ["base.py", "clean_l.py", "clean_r.py", "--path", "m.py"],
        ["base.py", "clean_l.py", "clean_r.py", "--path", "m.py", "--json"],
        ["base.py", "conf_l.py", "conf_r.py", "--path", "m.py"],
        ["base.py", "conf_l.py", "conf_r.py", "--path", "m.py", "--json", "-L", "mine", "-L", "old", "-L", "yours"],
        ["base.py", "conf_l.py", "conf_r.py", "--conflict-style", "merge", "--marker-size", "9"],
        ["base.py", "gone_l.py", "use_r.py", "--path", "m.py"], ["base.py", "gone_l.py", "use_r.py", "--semantic", "warn"],
        ["b.txt", "l.txt", "r.txt"], ["b.txt", "l.txt", "r.txt", "--output", "out.txt"],
        ["b.txt", "l.txt", "r.txt", "--path", "x.txt", "--git", "--marker-size", "7", "-L", "HEAD", "-L", "base",
         "-L", "feature"],
        ["b.txt", "missing.txt", "r.txt"], ["b.txt", "l.txt", "r.txt", "--json", "--marker-size", "0"],
        ["b.txt", "l.txt", "r.txt", "-L", "a", "-L", "b", "-L", "c", "-L", "d"],
        ["b.txt", "l.txt", "r.txt", "--git", "--output", "o.txt"], ["b.txt", "l.txt", "r.txt", "--conflict-style", "x"],
        ["b.txt", "l.txt", "r.txt", "--semantic", "maybe", "--json"],
    ]
    for number, args in enumerate(lines):
        seen = []
        for path, env in (("quick", {}), ("typer", {"WTC_NO_FAST": "1"})):
            folder = tmp_path / f"{number}-{path}"
            write(folder, files)
            done = run(folder, ["merge-file", *args], **env)
            written = {name: (folder / name).read_bytes() for name in ("l.txt", "out.txt") if (folder / name).exists()}
            seen.append((done.returncode, done.stdout, done.stderr, written))
        assert seen[0] == seen[1], args


def test_top_level_help_is_typer_s_at_any_width(repo: Path) -> None:
    """Printed from cli_help.py where click would format it 80 columns wide; narrower, typer's own."""
    for columns in ("80", "200", "60", "20"):
        quick, typer_path = run(repo, ["--help"], COLUMNS=columns), run(repo, ["--help"], WTC_NO_FAST="1",
                                                                        COLUMNS=columns)
        assert (quick.returncode, quick.stdout, quick.stderr) == (0, typer_path.stdout, b""), columns


def test_a_write_through_the_quick_path_is_the_write_through_typer(tmp_path: Path) -> None:
    """The same writes in two repositories built alike, one per path: the same exit codes and the same
    output, once each repository's folder, commit ids and port range are read as placeholders."""
    outputs: dict[str, list[tuple[int, str, str]]] = {}
    for path, env in (("quick", {}), ("typer", {"WTC_NO_FAST": "1"})):
        repo = make_repo(tmp_path / path / "repo")
        seen = []
        for step in (["run", "start", "--run", "r1"],
                     ["task", "start", "t1", "--run", "r1", "--own", "packages/api/**"],
                     ["task", "check", "t1", "--run", "r1"],
                     ["task", "finish", "t1", "--run", "r1", "-m", "api", "--no-merge"],
                     ["merge", "--run", "r1"], ["status", "--run", "r1"], ["report", "--run", "r1"],
                     ["task", "start", "t1", "--run", "r1"], ["merge", "--run", "r1", "--json"]):
            if step[:2] == ["task", "check"]:
                write(repo / ".wtc" / "worktrees" / "r1" / "t1",
                      {"packages/api/index.js": "export function api() {\n  return 10;\n}\n"})
            done = run(repo, step, **env)
            seen.append((done.returncode, _plain(done.stdout, repo), _plain(done.stderr, repo)))
        outputs[path] = seen
    assert [code for code, _, _ in outputs["quick"]][:7] == [0] * 7, outputs["quick"]
    assert outputs["quick"] == outputs["typer"]


def _now(output: bytes) -> bytes:
    return re.sub(rb'"now": \d+\.\d+', b'"now": 0', output)


def _plain(output: bytes, repo: Path) -> str:
    """Output with the repository's folder, commit ids, times and port range read as placeholders."""
    text = output.decode().replace(str(repo.parent), "<tmp>")
    text = re.sub(r"\b[0-9a-f]{7,40}\b", "<sha>", text)
    text = re.sub(r"ports\s+\d+-\d+", "ports <range>", text)
    # The padding beside an age too: a table's column is one space wider for "10s" than for "9s".
    text = re.sub(r" *\b\d+(\.\d+)?(ms|s|m|h)\b *", " <age> ", text)
    return re.sub(r"\b\d{10}\.\d+\b|\b[0-9a-f]{32}\b", "<id>", text)
