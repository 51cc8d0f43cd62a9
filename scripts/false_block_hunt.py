#!/usr/bin/env python3
"""Hunt for false blocks: `wtc check` of each commit of a real history against its parent.

Stage: evaluation, not product code. Input: a git repository (a clone, bare or not), a revision
(default HEAD) and how many first-parent commits to walk back from it (optionally only those that
change a folder). For each commit with a parent, the check `wtc check` runs (boundary, reserved
files, the dry-run merge, uses left behind of names the commit removed or renamed) with the commit
owning everything (`--own '**'`), its parent as base and as target: wtc's own API on the commits,
so nothing of the clone moves (no checkout, no ref, no index; the check writes only unreachable
objects). Output: one line per commit (its verdict, and each finding that blocks), then a summary:
commits checked, flagged, unanswered, CPU time.

A commit a project made and kept almost always built: a flag (exit 1, or 3) is a false block unless
the commit really broke the build, which a person judges from the finding (the script cannot).
Exit 6, or an exception, is "unanswered": the check gave no verdict (never a clean one).

Usage: python scripts/false_block_hunt.py REPO [--rev REV] [--commits N] [--path SUBDIR] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

from bench_merge_check import _own_grammars  # noqa: E402

# This checkout's profiles, not the installed one's (an editable install hands every checkout its own
# grammars/: a hunt run from a copy of main read the branch's profiles, and refused their new keys).
_own_grammars(ROOT)

from worktree_coord.check import Severity, check  # noqa: E402
from worktree_coord.errors import WtcError  # noqa: E402

VERDICTS = {0: "clean", 1: "FLAGGED", 3: "FLAGGED (boundary)", 6: "unanswered"}


def first_parent_commits(repo: str, rev: str, count: int, path: str | None) -> list[tuple[str, str, str]]:
    """(commit, first parent, subject) of up to `count` first-parent commits from `rev`, newest
    first, those touching `path` only when given; a root commit (no parent) is left out."""
    args = ["git", "-C", repo, "log", "--first-parent", f"-n{count}", "--format=%H %P%x00%s", rev]
    if path:
        args += ["--", path]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    commits = []
    for line in out.splitlines():
        ids, _, subject = line.partition("\0")
        parts = ids.split()
        if len(parts) >= 2:
            commits.append((parts[0], parts[1], subject))
    return commits


def cpu_seconds() -> float:
    """This process's CPU time and that of the git processes it waited for."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def hunt_one(repo: str, commit: str, parent: str) -> dict:
    """The check of `commit` against `parent`, owning everything: its verdict and blocking findings."""
    started = cpu_seconds()
    try:
        report = check(repo, head=commit, base=parent, target=parent, own=("**",))
    except WtcError as error:
        return {"exit_code": error.exit_code, "verdict": "unanswered", "findings": [],
                "error": f"{type(error).__name__}: {error.message}", "cpu": cpu_seconds() - started}
    except Exception as error:  # noqa: BLE001 - a crash in the check is what this script is for
        return {"exit_code": 6, "verdict": "unanswered", "findings": [],
                "error": f"{type(error).__name__}: {error}", "cpu": cpu_seconds() - started}
    findings = [f.to_json() for f in report.findings if f.severity is Severity.ERROR]
    return {"exit_code": report.exit_code, "verdict": VERDICTS.get(report.exit_code, f"exit {report.exit_code}"),
            "findings": findings, "changed": len(report.changed), "cpu": cpu_seconds() - started}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repo", help="the git repository (its checkout is not touched)")
    parser.add_argument("--rev", default="HEAD", help="where the walk starts (default HEAD)")
    parser.add_argument("--commits", type=int, default=40, help="first-parent commits to check (default 40)")
    parser.add_argument("--path", help="only commits that change this folder")
    parser.add_argument("--json", action="store_true", help="one JSON object per commit, then the summary")
    args = parser.parse_args(argv)

    commits = first_parent_commits(args.repo, args.rev, args.commits, args.path)
    start_cpu, start_wall = cpu_seconds(), time.monotonic()
    counts = {"checked": 0, "flagged": 0, "unanswered": 0}
    for commit, parent, subject in commits:
        result = hunt_one(args.repo, commit, parent)
        counts["checked"] += 1
        if result["exit_code"] in (1, 3):
            counts["flagged"] += 1
        elif result["exit_code"] != 0:
            counts["unanswered"] += 1
        if args.json:
            print(json.dumps({"commit": commit, "parent": parent, "subject": subject} | result), flush=True)
            continue
        print(f"{commit[:12]} {result['verdict']:<10} {result['cpu']:6.2f}s  {subject[:70]}", flush=True)
        for finding in result["findings"]:
            where = finding["path"] + (f":{finding['start_line']}" if finding["start_line"] else "")
            print(f"    {finding['rule']}: {where}: {finding['message']}", flush=True)
        if result.get("error"):
            print(f"    {result['error']}", flush=True)
    summary = counts | {"cpu_seconds": round(cpu_seconds() - start_cpu, 2),
                        "wall_seconds": round(time.monotonic() - start_wall, 2)}
    if args.json:
        print(json.dumps({"summary": summary}))
    else:
        print(f"commits checked: {summary['checked']}, flagged: {summary['flagged']}, unanswered: "
              f"{summary['unanswered']}, CPU time: {summary['cpu_seconds']} s "
              f"(wall {summary['wall_seconds']} s)")
    return 1 if counts["flagged"] else 0


if __name__ == "__main__":
    sys.exit(main())
