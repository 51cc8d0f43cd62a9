#!/usr/bin/env python3
"""Benchmark: what a `wtc` call costs before it does anything, against `python -c pass`.

Every agent call, every git merge-driver call (`wtc merge-file`, once per conflicted file) and every
hook starts a fresh interpreter, so import time is paid per call. This times each command below as
a subprocess, wall clock, `--runs` times (default 11, at least 9), and prints the median, the
spread, and the ratio of the median to the median of `python -c pass` measured in the same run
(the machine's load moves both). One extra run per command under `PYTHONPROFILEIMPORTTIME=1`
(what `python -X importtime` prints) says which heavy libraries the command imported and how many
worktree_coord modules.

Commands: `python -c pass`; `wtc --help`; `wtc --version`; `wtc version`; `wtc status` in an empty
repository and `wtc status --run r1` in one with a run; `wtc task check`, `wtc report` and `wtc merge`
(nothing to merge) there; `wtc task start` and `wtc task finish --no-merge` (a new task each run, so
each does its real work); `wtc merge-file` on a small .py whose sides merge line by line, on a small
.py whose sides both append a function (the structured stage runs), and on a small .json; `wtc check
--help`; the same `status`, `version` and `--help` through typer (`WTC_NO_FAST=1`: what the quick
path, fastcli.py, saves, side by side); and the warm path (issue 36): `wtc version`, `wtc status
--run r1` and `wtc task start --help` in a repository a `wtc serve` serves (the call handed to the
server: the caller's start-up plus a fork). Each row also names the command's largest imports
(cumulative, top-level, from the traced run) and `imports ms`, the sum of its top-level imports'
cumulative times in that traced run: the start-up a command pays before its first line of work
(for `task start` and `task finish`, what issue 36 asks to measure with -X importtime).

Every command runs as the `wtc` script does (`python -m worktree_coord`: entry.py, the look for a
server, the quick path, then typer).

To compare two checkouts in one run (before/after), pass `--src DIR` (repeatable): each DIR is put
first on PYTHONPATH, so its `worktree_coord` is the one imported (grammars still come from the
installed package). Without `--src` the installed package is measured. `--python EXE` (repeatable)
measures the code another interpreter imports, e.g. the `.venv/bin/python` of an older checkout's
own editable install (that install maps its own grammars, which PYTHONPATH cannot): every command,
the server of the served rows too, runs under that interpreter; `python -c pass` is each one's own.
`--command NAME` (repeatable) times only the named rows (and `python -c pass`, the ratio's base).

Each source gets a user state folder of its own (`WTC_STATE_DIR`: the machine's port registry),
empty, or a copy of `--state-template DIR` (scripts/make_port_state.py makes one of a machine with
many repositories' leases), so two versions never read each other's registry and the caller's own
folder is left alone.

Usage: python scripts/bench_startup.py [--runs N] [--src DIR ... | --python EXE ...] [--command NAME ...]
                                      [--state-template DIR] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bytecode import compile_package  # noqa: E402  (scripts/ is not a package)
from stress_swarm import start_server  # noqa: E402  (scripts/ is not a package; one way to start `wtc serve`)

HEAVY = ("pygit2", "libcst", "tree_sitter", "networkx", "rich", "typer", "pydantic", "tomlkit", "packaging",
         "pathspec", "yaml", "sqlite3", "psycopg")


@dataclass(frozen=True)
class Command:
    name: str
    argv: tuple[str, ...]        # after the interpreter: ("-c", "pass") or ("-m", "worktree_coord", ...); "{n}":
                                 # the run's number (a new task per run), "traced" in the traced run
    exit_code: int = 0           # what a correct run exits with (a failing command is not timed)
    cwd_key: str = "scratch"     # which scratch folder it runs in ("served": a repository `wtc serve` serves)
    typer: bool = False          # through typer: WTC_NO_FAST=1 (the quick path off)


@dataclass(frozen=True)
class Source:
    label: str
    python: str                  # the interpreter every command of this source runs under
    src: str | None = None       # a checkout put first on PYTHONPATH (--src)


def wtc(*args: str) -> tuple[str, ...]:
    # The `wtc` script's own entry (entry.py); with --src, PYTHONPATH puts that checkout's package first.
    return ("-m", "worktree_coord", *args)


def commands() -> list[Command]:
    return [
        Command("python -c pass", ("-c", "pass")),
        Command("wtc --help", wtc("--help")),
        Command("wtc --help (typer)", wtc("--help"), typer=True),
        Command("wtc --version", wtc("--version")),
        Command("wtc version", wtc("version")),
        Command("wtc version (typer)", wtc("version"), typer=True),
        Command("wtc status (empty repo)", wtc("status"), cwd_key="repo"),
        Command("wtc status --run r1", wtc("status", "--run", "r1"), cwd_key="run"),
        Command("wtc status --run r1 (typer)", wtc("status", "--run", "r1"), cwd_key="run", typer=True),
        Command("wtc task check", wtc("task", "check", "live", "--run", "r1"), cwd_key="run"),
        Command("wtc report", wtc("report", "--run", "r1"), cwd_key="run"),
        Command("wtc merge (nothing to merge)", wtc("merge", "--run", "r1"), cwd_key="run"),
        Command("wtc task start", wtc("task", "start", "t{n}", "--run", "r1", "--own", "packages/t{n}/**"),
                cwd_key="run"),
        Command("wtc task finish --no-merge", wtc("task", "finish", "t{n}", "--run", "r1", "--no-merge"),
                cwd_key="run"),
        Command("wtc merge-file .py (line)", wtc("merge-file", "base.py", "left.py", "right.py", "--path", "m.py")),
        Command("wtc merge-file .py (structured)", wtc("merge-file", "base.py", "left_add.py", "right_add.py",
                                                       "--path", "m.py")),
        Command("wtc merge-file .json", wtc("merge-file", "base.json", "left.json", "right.json", "--path", "c.json")),
        Command("wtc check --help", wtc("check", "--help")),
        # The warm path: entry.py hands the call to the repository's server before anything else.
        Command("served: wtc version", wtc("version"), cwd_key="served"),
        Command("served: wtc status --run r1", wtc("status", "--run", "r1"), cwd_key="served"),
        Command("served: wtc task start --help", wtc("task", "start", "--help"), cwd_key="served"),
    ]


def scratch(root: Path) -> dict[str, Path]:
    files = root / "files"
    files.mkdir()
    base = "import os\n\n\ndef alpha(x):\n    return x + 1\n\n\ndef beta(x):\n    return x * 2\n\n\ndef gamma(x):\n    return x - 3\n"
    (files / "base.py").write_text(base)
    (files / "left.py").write_text(base.replace("x + 1", "x + 10"))
    (files / "right.py").write_text(base.replace("x - 3", "x - 30"))
    (files / "left_add.py").write_text(base + "\n\ndef left_new(x):\n    return alpha(x)\n")
    (files / "right_add.py").write_text(base + "\n\ndef right_new(x):\n    return beta(x)\n")
    doc = {"name": "demo", "version": "1.0.0", "scripts": {"test": "jest"}, "dependencies": {"a": "^1.0.0"}}
    (files / "base.json").write_text(json.dumps(doc, indent=2) + "\n")
    (files / "left.json").write_text(json.dumps(doc | {"version": "1.1.0"}, indent=2) + "\n")
    (files / "right.json").write_text(json.dumps(doc | {"dependencies": {"a": "^1.0.0", "b": "^2.0.0"}}, indent=2)
                                      + "\n")
    return {"scratch": files, "repo": git_repo(root / "repo")}


def git_repo(repo: Path) -> Path:
    repo.mkdir()
    identity = ["-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    (repo / "README.md").write_text("bench\n")
    subprocess.run(["git", *identity, "-C", str(repo), "add", "-A"], check=True)
    subprocess.run(["git", *identity, "-C", str(repo), "commit", "-q", "-m", "init"], check=True)
    return repo


def repo_with_run(repo: Path, env: dict[str, str], python: str) -> Path:
    git_repo(repo)
    for args in (["run", "start", "--run", "r1"], ["task", "start", "live", "--run", "r1", "--own", "live/**"]):
        subprocess.run([python, "-m", "worktree_coord", *args], cwd=repo, env=env | {"WTC_NO_SERVE": "1"},
                       check=True, capture_output=True)
    (repo / ".wtc" / "worktrees" / "r1" / "live" / "live").mkdir(parents=True, exist_ok=True)
    (repo / ".wtc" / "worktrees" / "r1" / "live" / "live" / "a.txt").write_text("an edit\n")
    return repo


def environment(source: Source, state: Path) -> dict[str, str]:
    src = source.src
    env = dict(os.environ)
    env.pop("PYTHONPROFILEIMPORTTIME", None)
    env.pop("WTC_NO_SERVE", None)
    env["WTC_STATE_DIR"] = str(state)
    if src:
        env["PYTHONPATH"] = os.pathsep.join([src] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return env


def argv(command: Command, n: str, python: str) -> list[str]:
    return [python, *(arg.replace("{n}", n) for arg in command.argv)]


def command_env(command: Command, env: dict[str, str]) -> dict[str, str]:
    return env | {"WTC_NO_FAST": "1"} if command.typer else env


def run_once(command: Command, cwd: Path, env: dict[str, str], n: int, python: str) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv(command, str(n), python), cwd=cwd, env=command_env(command, env), capture_output=True)
    elapsed = time.perf_counter() - started
    if done.returncode != command.exit_code:
        raise SystemExit(f"{command.name} exited {done.returncode}, expected {command.exit_code}:\n"
                         f"{done.stderr.decode('utf-8', 'replace')[-2000:]}")
    return elapsed


def imported(command: Command, cwd: Path, env: dict[str, str], python: str) -> tuple[list[str], int, list[tuple[str, float]], float]:
    """Heavy libraries the command imported, how many worktree_coord modules, its three largest
    top-level imports with their cumulative milliseconds, and the sum of every top-level import's
    (one traced run)."""
    done = subprocess.run(argv(command, "traced", python), cwd=cwd,
                          env=command_env(command, env) | {"PYTHONPROFILEIMPORTTIME": "1"}, capture_output=True)
    names = set()
    top: list[tuple[str, float]] = []
    for line in done.stderr.decode("utf-8", "replace").splitlines():
        match = re.match(r"import time:\s+\d+ \|\s+(\d+) \|( *)(\S+)", line)
        if match:
            names.add(match.group(3))
            if len(match.group(2)) == 1:          # one space: imported by the command itself, not by a module
                top.append((match.group(3), int(match.group(1)) / 1000))
    heavy = [h for h in HEAVY if h in names]
    largest = sorted(top, key=lambda item: -item[1])[:3]
    ours = sum(1 for n in names if n == "worktree_coord" or n.startswith("worktree_coord."))
    return heavy, ours, largest, sum(ms for _, ms in top)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=11, help="runs per command (>= 9; the median is reported)")
    parser.add_argument("--src", action="append", default=[], help="a checkout whose worktree_coord to measure")
    parser.add_argument("--python", action="append", default=[],
                        help="an interpreter whose installed worktree_coord to measure (instead of --src)")
    parser.add_argument("--command", action="append", default=[], help="time only this row (repeatable)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    parser.add_argument("--state-template", type=Path, help="a user state folder each source starts from (a copy)")
    args = parser.parse_args()
    if args.runs < 9:
        parser.error("--runs must be at least 9 (medians of fewer runs swing too much on a shared machine)")
    if shutil.which("git") is None:
        parser.error("git is needed on PATH")
    if args.src and args.python:
        parser.error("pass --src or --python, not both")
    names = {command.name for command in commands()}
    unknown = [name for name in args.command if name not in names]
    if unknown:
        parser.error(f"no command named {unknown[0]!r}; the rows are: {', '.join(sorted(names))}")
    chosen = [c for c in commands() if not args.command or c.name in args.command or c.name == "python -c pass"]
    if args.python:
        sources = [Source(f"{python}", python) for python in args.python]
        for python in args.python:   # bytecode as an install has it, outside the timings (scripts/bytecode.py)
            subprocess.run([python, "-c", "import sys; sys.path.insert(0, sys.argv[1]); from bytecode import "
                            "compile_package; compile_package()", str(Path(__file__).resolve().parent)],
                           check=True, env={k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"})
    else:
        sources = [Source(src or "installed", sys.executable, src) for src in args.src or [None]]
        compile_package(*(args.src or [None]))   # bytecode as an install has it, outside the timings
    results: dict[str, list[dict[str, object]]] = {}
    with tempfile.TemporaryDirectory(prefix="wtc-bench-startup-") as tmp:
        folders = scratch(Path(tmp))
        states = {source: Path(tmp) / f"state-{i}" for i, source in enumerate(sources)}
        for state in states.values():
            if args.state_template is not None:
                # cp -a keeps the lease files' hard links (a lease's one file named at each of its
                # ports); shutil.copytree makes each name a file of its own, a registry no wtc writes.
                subprocess.run(["cp", "-a", str(args.state_template), str(state)], check=True)
            else:
                state.mkdir()
        envs = {source: environment(source, states[source]) for source in sources}
        # Per source: a repository with a run, and one with a run that its own `wtc serve` serves
        # (a server runs one checkout's code: the client of another checkout would not use it).
        run_folders = {s: repo_with_run(Path(tmp) / f"run-{i}", envs[s], s.python) for i, s in enumerate(sources)}
        served = any(command.cwd_key == "served" for command in chosen)
        served_folders = {s: repo_with_run(Path(tmp) / f"served-{i}", envs[s], s.python)
                          for i, s in enumerate(sources)} if served else {}
        servers = [start_server(served_folders[s], envs[s], s.python) for s in sources] if served else []

        def folder(command: Command, source: Source) -> Path:
            return {"run": run_folders, "served": served_folders}.get(command.cwd_key, {}).get(source) \
                or folders[command.cwd_key]

        times: dict[tuple[Source, str], list[float]] = {}
        # Interleave sources and commands run by run, so a load spike hits every variant alike.
        for n in range(args.runs):
            for command in chosen:
                for source in sources:
                    times.setdefault((source, command.name), []).append(
                        run_once(command, folder(command, source), envs[source], n, source.python))
        for source in sources:
            label = source.label
            baseline = statistics.median(times[(source, "python -c pass")])
            rows = []
            for command in chosen:
                samples = times[(source, command.name)]
                median = statistics.median(samples)
                heavy, ours, largest, imports = imported(command, folder(command, source), envs[source], source.python)
                rows.append({"command": command.name, "median_ms": round(median * 1000, 1), "imports_ms": round(imports, 1),
                             "min_ms": round(min(samples) * 1000, 1), "max_ms": round(max(samples) * 1000, 1),
                             "ratio": round(median / baseline, 2), "extra_ms": round((median - baseline) * 1000, 1),
                             "wtc_modules": ours, "heavy_imports": heavy,
                             "top_imports": [{"module": name, "ms": round(ms, 1)} for name, ms in largest]})
            results[label] = rows
        for server in servers:
            server.terminate()
            server.wait(timeout=120)
    if args.json:
        print(json.dumps({"runs": args.runs, "results": results}, indent=2))
        return 0
    for label, rows in results.items():
        print(f"\n{label}  (medians of {args.runs} runs; ratio = median / median of `python -c pass`)")
        print(f"{'command':34} {'median':>8} {'min':>8} {'max':>8} {'ratio':>6} {'+ms':>7} {'imports':>8} {'mods':>5}"
              "  heavy imports")
        for row in rows:
            print(f"{row['command']:34} {row['median_ms']:>8} {row['min_ms']:>8} {row['max_ms']:>8} "
                  f"{row['ratio']:>6} {row['extra_ms']:>7} {row['imports_ms']:>8} {row['wtc_modules']:>5}  "
                  f"{', '.join(row['heavy_imports'])}")
        print("\nlargest top-level imports per command (cumulative ms, traced run; served: the caller's own)")
        for row in rows:
            print(f"  {row['command']:34} " + ", ".join(f"{t['module']} {t['ms']}" for t in row["top_imports"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
