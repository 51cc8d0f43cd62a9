#!/usr/bin/env python3
"""Benchmark: `wtc status --json` of a run with N live tasks, each with an uncommitted edit.

`wtc status` reads each live task's worktree for its changed files (gitrepo/worktree_files.py:
one `git status` per task, a `git diff` only when the task committed). This builds a repository in
a temporary folder, starts N tasks (default 8), and times `wtc status --json` as a subprocess,
`--runs` times per checkout, interleaved so the machine's load moves every side alike; it prints
each side's median and the ratio to the first side's median (the baseline). Pass `--src DIR`
(repeatable) to compare checkouts (each DIR first on PYTHONPATH); without it the installed package
is timed alone, against `python -c pass` as the baseline.

Usage: python scripts/bench_status.py [--tasks N] [--runs N] [--src DIR ...]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                   env=dict(os.environ, GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@b", GIT_COMMITTER_NAME="b",
                            GIT_COMMITTER_EMAIL="b@b"))


def _wtc(repo: Path, *args: str, src: str | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=src) if src else dict(os.environ)
    return subprocess.run([sys.executable, "-m", "worktree_coord", *args], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=300)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=8)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--src", action="append", default=[])
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        repo = Path(folder) / "repo"
        (repo / "app").mkdir(parents=True)
        for i in range(50):
            (repo / "app" / f"m{i}.py").write_text(f"x = {i}\n")
        _git(repo, "init", "-q", "-b", "main")
        _git(repo, "add", "-A")
        _git(repo, "commit", "-qm", "base")
        assert _wtc(repo, "run", "start", "--run", "b").returncode == 0
        for i in range(options.tasks):
            started = _wtc(repo, "task", "start", f"t{i}", "--run", "b", "--own", "app/**", "--json")
            worktree = Path(json.loads(started.stdout)["worktree"])
            (worktree / "app" / f"m{i}.py").write_text("y = 1\n")
        sides = [(src, src) for src in options.src] or [("python -c pass", None), ("installed", "")]
        times: dict[str, list[float]] = {name: [] for name, _ in sides}
        for _ in range(options.runs):
            for name, src in sides:
                start = time.perf_counter()
                if src is None:
                    subprocess.run([sys.executable, "-c", "pass"], check=True)
                else:
                    done = _wtc(repo, "status", "--run", "b", "--json", src=src or None)
                    assert done.returncode == 0, done.stderr
                times[name].append(time.perf_counter() - start)
    baseline = statistics.median(times[sides[0][0]])
    for name, _ in sides:
        median = statistics.median(times[name])
        print(f"{name:<40} median {median * 1000:8.1f} ms   ratio {median / baseline:5.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
