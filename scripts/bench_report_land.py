#!/usr/bin/env python3
"""CPU of `wtc report` and `wtc land` on a run that changed many files, this checkout against another,
in one run: real `wtc` processes, the two codes alternating call by call; prints the medians, their
ratio, and whether both codes printed the same JSON (they must: only the cost may differ).

    python scripts/bench_report_land.py --baseline DIR [--files 300] [--repeat 7]

The run: FILES Python modules under pkg/ (each imports the next one's function and calls it), every
one edited by TASKS tasks of the run (a body changed, a function added), one of them also renaming
a function the next module still calls under its old name, and one leaving a stray line that does
not parse: the report's looks (uses left behind, declarations twice, files that no longer parse)
each read every changed file and find one. `land` lands it onto a new branch at the pin each call
(approving the use and the file by name), so each call does the whole land.

DIR is a copy of the other code (e.g. `git archive main | tar -x -C DIR`); its package is put first
on PYTHONPATH for its calls (both codes read the installed grammars: compare codes whose grammars
are the same). CPU is the process's and its git children's (wait4), so the ratio holds under load.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bytecode import compiled_baseline  # noqa: E402  (scripts/ is not a package)

IDENTITY = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
            "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid"}


def module(i: int, files: int) -> str:
    nxt = (i + 1) % files
    return (f"from pkg.m{nxt} import f{nxt}\n\n\ndef f{i}(x):\n    return x + 1\n\n\n"
            f"def g{i}(x):\n    return f{nxt}(x) * 2\n")


def build(root: Path, files: int, tasks: int, env: dict[str, str]) -> Path:
    """The repository with run r, its tasks merged; returns the repository."""
    repo = root / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "__init__.py").write_text("")
    for i in range(files):
        (repo / "pkg" / f"m{i}.py").write_text(module(i, files))
    git = lambda *args: subprocess.run(["git", *args], cwd=repo, env=env | IDENTITY, check=True,  # noqa: E731
                                       capture_output=True)
    git("init", "-q", "-b", "main")
    git("add", "-A")
    git("commit", "-q", "-m", "base")
    wtc(repo, env, "run", "start", "--run", "r", "--left-behind", "warn")   # the rename merges; land still looks
    share = -(-files // tasks)
    for t in range(tasks):
        own = range(t * share, min(files, (t + 1) * share))
        started = wtc(repo, env, "task", "start", f"t{t}", "--run", "r",
                      *[a for i in own for a in ("--own", f"pkg/m{i}.py")])
        tree = Path(started["worktree"])
        for i in own:
            text = module(i, files).replace("x + 1", "x + 2") + f"\n\ndef h{i}(x):\n    return g{i}(x)\n"
            if i == 1:   # renamed: m0.py still calls f1
                text = text.replace("def f1(", "def first(")
            if i == 2:   # a stray line: the landed tree would not load it
                text += "\nthis line is not python\n"
            (tree / "pkg" / f"m{i}.py").write_text(text)
        finished = wtc(repo, env, "task", "finish", f"t{t}", "--run", "r", "-m", f"t{t}", "--merge-unchecked")
        if finished.get("state") != "merged":
            raise SystemExit(f"task t{t} did not merge: {finished}")
    return repo


def wtc(repo: Path, env: dict[str, str], *args: str) -> dict:
    done = subprocess.run([sys.executable, "-m", "worktree_coord", *args, "--json"], cwd=repo, env=env,
                          capture_output=True, text=True)
    if done.returncode not in (0, 1):
        raise SystemExit(f"wtc {' '.join(args)} exited {done.returncode}: {done.stdout}{done.stderr}")
    return json.loads(done.stdout)


def calls(target: str) -> list[tuple[str, list[str]]]:
    return [("report", ["report", "--run", "r", "--onto", target]),
            ("land", ["land", "--run", "r", "--onto", target, "--yes", "--allow-left-behind", "f1",
                      "--allow-unparsed", "pkg/m2.py"])]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", required=True, help="a folder holding the other code's worktree_coord/")
    parser.add_argument("--files", type=int, default=300, help="modules the run changes (the looks read <= 400)")
    parser.add_argument("--tasks", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=7)
    options = parser.parse_args(argv)
    baseline = compiled_baseline(options.baseline)
    workdir = Path(tempfile.mkdtemp(prefix="wtc-bench-report-"))
    env = dict(os.environ, WTC_NO_SERVE="1", WTC_STATE_DIR=str(workdir / "state"))
    env.pop("PYTHONPATH", None)
    repo = build(workdir, options.files, options.tasks, env)
    codes = {"baseline": env | {"PYTHONPATH": str(baseline)}, "this": env}
    base = subprocess.run(["git", "rev-parse", "main"], cwd=repo, capture_output=True, text=True).stdout.strip()
    cpu: dict[tuple[str, str], list[float]] = {(w, k): [] for w in codes for k in ("report", "land")}
    # Output first: each code reports and lands in a copy of the run of its own, as the first call made.
    outputs: dict[tuple[str, str], str] = {}
    for which in codes:
        copy = workdir / f"copy-{which}"
        shutil.copytree(repo, copy, symlinks=True)
        subprocess.run(["git", "branch", "landed", base], cwd=copy, check=True)
        for kind, args in calls("landed"):
            outputs[(which, kind)] = subprocess.run([sys.executable, "-m", "worktree_coord", *args, "--json"],
                                                    cwd=copy, env=codes[which], capture_output=True,
                                                    text=True).stdout.replace(str(copy), "REPO")
            # The timeline's "now" is the clock's when the report was made.
            outputs[(which, kind)] = re.sub(r'"now": [0-9.]+', '"now": 0', outputs[(which, kind)])
    load = os.getloadavg()[0]
    for n in range(options.repeat):
        for which in (("baseline", "this") if n % 2 == 0 else ("this", "baseline")):
            target = f"land-{which}-{n}"
            subprocess.run(["git", "branch", target, base], cwd=repo, check=True)
            for kind, args in calls(target):
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                done = subprocess.run([sys.executable, "-m", "worktree_coord", *args, "--json"], cwd=repo,
                                      env=codes[which], capture_output=True, text=True)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                if done.returncode != 0:
                    raise SystemExit(f"{which}: wtc {' '.join(args)} exited {done.returncode}: {done.stdout}"
                                     f"{done.stderr}")
                cpu[(which, kind)].append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    print(f"{options.files} files changed by {options.tasks} tasks, {options.repeat} calls each, alternating; "
          f"load {load:.1f} at start, {os.getloadavg()[0]:.1f} at end")
    for kind in ("report", "land"):
        if os.environ.get("BENCH_SHOW"):
            for which in codes:
                (workdir.parent / f"bench-report-{which}-{kind}.json").write_text(outputs[(which, kind)])
        old, new = (statistics.median(cpu[(w, kind)]) for w in ("baseline", "this"))
        same = outputs[("baseline", kind)] == outputs[("this", kind)]
        print(f"{kind:<7} CPU p50: baseline {old * 1000:7.1f} ms, this {new * 1000:7.1f} ms, this/baseline "
              f"{new / old:.2f}; same JSON: {'yes' if same else 'NO'}")
    shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
