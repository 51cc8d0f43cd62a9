"""Benchmark: 64 Claude Code WorktreeCreate hooks at once, wtc against Claude Code's own step.

Generates a monorepo (default 80 packages x 250 files = 20,000 files), then, alternating the two
methods in the same run, starts N (default 64) processes at once and waits for all:

  baseline  git worktree add -b worktree-<name> .claude/worktrees/<name> HEAD
            (what Claude Code runs for each agent without a hook: a full checkout, all in parallel)
  wtc       wtc hook claude worktree-create, the JSON payload on stdin (one session, N agents),
            exactly as the harness runs it; success is exit 0 and an existing folder on the last
            line of stdout

For each: wall time until the last process ends, failures (and the first error line), and each
process's own time (median, max). Between rounds everything is removed again. Prints medians over
the rounds and the ratio wtc / baseline of the wall times.

    python scripts/bench_hooks.py [--agents 64] [--packages 80] [--files 250] [--rounds 1] [--dir DIR] [--tmpfs]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from monorepo import generate  # noqa: E402

WTC = [sys.executable, "-m", "worktree_coord"]


@dataclass
class Wave:
    wall: float
    each: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)


# An installed wtc has its bytecode compiled (pip does it); a checkout run with
# PYTHONDONTWRITEBYTECODE=1 would compile every module in every hook process instead.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def wave(commands: list[tuple[list[str], str | None]], cwd: Path, check) -> Wave:  # type: ignore[no-untyped-def]
    """Start every command at once (stdin given or none), wait for all."""
    start = time.perf_counter()
    running = []
    for argv, stdin in commands:
        process = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
        if stdin is not None:
            process.stdin.write(stdin)  # type: ignore[union-attr]
            process.stdin.close()  # type: ignore[union-attr]
            process.stdin = None
        running.append((process, time.perf_counter()))
    result = Wave(0.0)
    for process, began in running:
        out, err = process.communicate(timeout=3600)
        result.each.append(time.perf_counter() - began)
        problem = check(process.returncode, out, err)
        if problem:
            result.failures.append(problem)
    result.wall = time.perf_counter() - start
    return result


def git_check(code: int, out: str, err: str) -> str | None:
    if code != 0:
        return (err.strip().splitlines() or [f"exit {code}"])[-1]
    return None


def hook_check(code: int, out: str, err: str) -> str | None:
    lines = [line for line in out.splitlines() if line.strip()]
    if code != 0 or not lines or not Path(lines[-1]).is_dir():
        return (err.strip().splitlines() or [f"exit {code}, stdout {out!r}"])[-1]
    return None


def clean(repo: Path, trash: Path, *, now: bool = False) -> None:
    # 64 checkouts are 1M+ files: deleting them takes minutes on a busy disk and would slow the next
    # wave, so they are moved aside (instant) and deleted once, after the last measurement (at once
    # with --tmpfs, where deleting is quick and memory is what runs out).
    trash.mkdir(parents=True, exist_ok=True)
    for folder in (repo / ".claude", repo / ".wtc"):
        if folder.exists():
            folder.rename(trash / f"{folder.name}-{len(list(trash.iterdir()))}")
    if now:
        subprocess.run(["rm", "-rf", str(trash)], check=True)
    subprocess.run(["git", "worktree", "prune"], cwd=repo, check=True)
    refs = subprocess.run(["git", "for-each-ref", "--format=%(refname)", "refs/heads/worktree-*", "refs/heads/wtc/"],
                          cwd=repo, capture_output=True, text=True, check=True).stdout.split()
    if refs:
        subprocess.run(["git", "update-ref", "--stdin"], cwd=repo, check=True,
                       input="".join(f"delete {ref}\n" for ref in refs), text=True)
    shutil.rmtree(repo / ".git" / "wtc", ignore_errors=True)    # the store: each round a fresh session


def describe(name: str, w: Wave, agents: int) -> str:
    first = f"; first: {w.failures[0]}" if w.failures else ""
    return (f"{name:<9} wall {w.wall:7.2f} s  failures {len(w.failures):>2}/{agents}  per process median "
            f"{statistics.median(w.each):6.2f} s, max {max(w.each):6.2f} s{first}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--agents", type=int, default=64)
    parser.add_argument("--packages", type=int, default=80)
    parser.add_argument("--files", type=int, default=250)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--dir", type=Path, default=None)
    parser.add_argument("--tmpfs", action="store_true", help="work in /dev/shm (memory): no disk in the timings")
    options = parser.parse_args()
    work = options.dir or Path(tempfile.mkdtemp(prefix="wtc-bench-hooks-", dir="/dev/shm" if options.tmpfs else None))
    repo = work / "repo"
    import worktree_coord

    subprocess.run([sys.executable, "-m", "compileall", "-q", str(Path(worktree_coord.__file__).parent)], env=ENV,
                   capture_output=True)   # bytecode written once, outside the timings
    t0 = time.perf_counter()
    generate(repo, options.packages, options.files, checkout=True)
    print(f"generated {options.packages * options.files} files in {time.perf_counter() - t0:.1f} s at {repo}",
          flush=True)
    baseline: list[Wave] = []
    hooks: list[Wave] = []
    for round_number in range(options.rounds):
        clean(repo, work / "trash", now=options.tmpfs)
        baseline.append(wave([(["git", "worktree", "add", "-q", "-b", f"worktree-agent-{i}",
                                str(repo / ".claude" / "worktrees" / f"agent-{i}"), "HEAD"], None)
                              for i in range(options.agents)], repo, git_check))
        print(f"round {round_number + 1}: " + describe("baseline", baseline[-1], options.agents), flush=True)
        clean(repo, work / "trash", now=options.tmpfs)
        session = f"bench-{round_number}"
        payloads = [json.dumps({"session_id": session, "transcript_path": "/dev/null", "cwd": str(repo),
                                "hook_event_name": "WorktreeCreate", "name": f"agent-{i}"})
                    for i in range(options.agents)]
        hooks.append(wave([(WTC + ["hook", "claude", "worktree-create"], p) for p in payloads], repo, hook_check))
        print(f"round {round_number + 1}: " + describe("wtc", hooks[-1], options.agents), flush=True)
    clean(repo, work / "trash", now=options.tmpfs)
    base_wall = statistics.median(w.wall for w in baseline)
    hook_wall = statistics.median(w.wall for w in hooks)
    print(f"median wall, {options.agents} at once on {options.packages * options.files} files: "
          f"git worktree add {base_wall:.2f} s ({sum(len(w.failures) for w in baseline)} failures in "
          f"{options.rounds} round(s)), wtc hook {hook_wall:.2f} s ({sum(len(w.failures) for w in hooks)} failures)")
    print(f"ratio wtc / git worktree add (wall): {hook_wall / base_wall:.2f}")
    subprocess.run(["rm", "-rf", str(work / "trash")], check=True)
    if options.dir is None:
        subprocess.run(["rm", "-rf", str(work)], check=True)


if __name__ == "__main__":
    main()
